"""The CUDA backend's runtime (private: students never edit or need to read this
file).

``cuda_ops.py`` holds the kernels a student writes. This module holds what runs
them, behind a small interface:

* :func:`launch` (with :func:`check_launch`, :func:`device_constant`): start a
  kernel after checking its grid and block against a GPU's limits, with shapes and
  strides as cached device constants and host arrays copied as needed; every CUDA
  kernel of the library starts there, counted in :data:`launches`;
* :class:`CudaKernelOps`: Module 2's ``TensorOps`` on the kernels of four
  factories named by a subclass (``cuda_ops.CudaOps``), results in GPU memory
  (:func:`_result`, from a pool of reused buffers: :class:`DevicePool`);
* :func:`compiled` and :func:`kernel_in`: each kernel built once per process,
  kept on disk (``_cuda_cache``), and found inside the launcher that runs it
  (the resource checks' list of kernels is ``_cuda_specs.py``).
"""

from __future__ import annotations

import functools
import math
import sys
import threading
import weakref
from collections import Counter
from contextlib import contextmanager, suppress
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import numba.core.config
import numpy as np

from module2_tensors._backend import matmul_shape
from module2_tensors.tensor_data import Shape, Storage, Strides, TensorData
from module2_tensors.tensor_ops import MapFn, ReduceFn, TensorOps, ZipFn

from . import _cuda_cache, _dispatch

if "numba.cuda" not in sys.modules:
    # numba.cuda chooses between the GPU and the simulator when it is first imported,
    # from Numba's configuration, which Numba read from the environment when *it*
    # was first imported. Re-read it, so that NUMBA_ENABLE_CUDASIM set after
    # ``import numba`` (but before ``numba.cuda``) still counts.
    numba.core.config.reload_config()

from numba import cuda  # noqa: E402 (after the configuration is current)

#: True when the kernels run in Numba's CUDA simulator instead of on a GPU.
SIMULATOR: bool = bool(cuda.config.ENABLE_CUDASIM)
#: The largest grid dimension ``y`` or ``z`` a launch may use.
MAX_GRID: int = 65535
#: The largest grid dimension ``x``, and the largest block: 1024 threads in all, at
#: most 1024 along ``x`` or ``y`` and 64 along ``z`` (every GPU since compute
#: capability 3.0). :func:`launch` checks these and ``MAX_GRID``; the simulator
#: would run any launch.
MAX_GRID_X: int = 2**31 - 1
MAX_THREADS: int = 1024
MAX_BLOCK: Tuple[int, int, int] = (1024, 1024, 64)


# Small tensors launch a few blocks, and numba-cuda warns about every such launch
# ("Grid size 1 will likely result in GPU under-utilization"): one switch for the
# whole library instead of a flood (the config moved between numba versions).
for _config in ("numba.cuda.core.config", "numba.core.config"):
    if hasattr(sys.modules.get(_config), "CUDA_LOW_OCCUPANCY_WARNINGS"):
        sys.modules[_config].CUDA_LOW_OCCUPANCY_WARNINGS = 0  # type: ignore

#: What numba.cuda raises when there is no usable GPU (absent in the simulator).
_NO_GPU: Any = getattr(cuda, "CudaSupportError", ())


def _size(shape: Shape) -> int:
    return int(math.prod(shape))


def aligned(out: Storage, out_shape: Shape, out_strides: Strides, *inputs: Any) -> bool:
    """Whether ``out`` and every ``(storage, shape, strides)`` input share one layout
    with no gaps (same shape, same strides, storages of exactly ``size`` entries):
    then storage position ``i`` of one is storage position ``i`` of the others."""
    size = _size(out_shape)
    return len(out) == size and all(
        len(inputs[k]) == size
        and np.array_equal(inputs[k + 1], out_shape)
        and np.array_equal(inputs[k + 2], out_strides)
        for k in range(0, len(inputs), 3)
    )


def on_device(x: Any) -> bool:
    """Whether ``x`` is an array in GPU memory (a Numba device array, also the
    simulator's)."""
    return hasattr(x, "copy_to_host")


@functools.lru_cache(maxsize=4096)
def _device_copy(dtype: str, data: bytes) -> Any:
    """A device copy of the array of ``dtype`` whose bytes are ``data``: made once
    per distinct content (a program uses few distinct shapes and strides)."""
    return cuda.to_device(np.frombuffer(data, dtype))


def device_constant(values: np.ndarray) -> Any:
    """A device copy of the small integer array ``values`` (a shape or strides),
    made once per distinct content: a tensor's shape reaches the kernels without
    a host-to-device copy per operation. Kernels must not write to it."""
    return _device_copy(values.dtype.str, np.ascontiguousarray(values).tobytes())


def layout(out_shape: Shape, out_strides: Strides, *inputs: Any) -> Any:
    """The shapes and strides of an elementwise launch as ONE device array of int64
    (cached by content, so a program's few layouts are copied to the GPU once):

    ``[d, out_shape (d), out_strides (d), strides of input 1 (d), ...]``

    where ``d = len(out_shape)`` and each ``(storage, shape, strides)`` input's
    strides are given as ``out`` sees them: aligned on the right, and 0 along every
    dimension the input broadcasts (its size there is 1, or it has no such
    dimension). Entry number ``i`` of ``out`` then reads position
    $\\sum_k \\mathrm{index}_k\\, \\mathrm{strides}_k$ of every input, with one
    ``index`` for all (``cuda_positions.two_positions``, ``three_positions``). On a GPU
    one array argument costs 7 kernel parameters and a Python wrapper per launch:
    one array here replaces two per tensor."""
    described = [out_shape, out_strides]
    described += [v for k in range(1, len(inputs), 3) for v in inputs[k : k + 2]]
    return _packed(tuple(np.asarray(v, dtype=np.int64).tobytes() for v in described))


@functools.lru_cache(maxsize=4096)
def _packed(described: Tuple[bytes, ...]) -> Any:
    """:func:`layout`'s device array, from its shapes and strides as bytes."""
    shape, strides, *rest = (np.frombuffer(v, np.int64) for v in described)
    d = len(shape)
    rows = [[d], shape, strides]
    for shape_k, strides_k in zip(rest[::2], rest[1::2]):
        rows.append(np.pad(np.where(shape_k == 1, 0, strides_k), (d - len(shape_k), 0)))
    return cuda.to_device(np.concatenate([np.asarray(r, np.int64) for r in rows]))


def _dims(value: Any) -> Tuple[int, int, int]:
    """A grid or block given as an int or a tuple of 1-3 ints, as ``(x, y, z)``."""
    dims = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    if not 1 <= len(dims) <= 3:
        raise ValueError(f"a grid or block has 1 to 3 dimensions, got {value!r}")
    return tuple(int(d) for d in dims) + (1,) * (3 - len(dims))  # type: ignore


def check_launch(grid: Any, block: Any) -> None:
    """Refuse a launch configuration that a GPU refuses, with the reason.

    A GPU accepts a grid of at most ``MAX_GRID_X`` blocks along ``x`` and
    ``MAX_GRID`` along ``y`` and ``z``, and a block of at most ``MAX_THREADS``
    threads, ``MAX_BLOCK`` along each dimension; every dimension is at least 1.
    Numba's simulator checks none of this, so without this check a launch that
    passes every test in CI could fail on the first real GPU.

    Raises:
        ValueError: naming the dimension and the limit it exceeds.
    """
    g, b = _dims(grid), _dims(block)
    grid_limits = (MAX_GRID_X, MAX_GRID, MAX_GRID)
    for name, dims, limits in (("grid", g, grid_limits), ("block", b, MAX_BLOCK)):
        for axis, size, limit in zip("xyz", dims, limits):
            if not 1 <= size <= limit:
                raise ValueError(
                    f"a GPU refuses this launch: {name} dimension {axis} is {size}, "
                    f"must be 1 to {limit} (grid {g}, block {b})"
                )
    if b[0] * b[1] * b[2] > MAX_THREADS:
        raise ValueError(
            f"a GPU refuses this launch: a block of {b[0] * b[1] * b[2]} threads "
            f"{b}, at most {MAX_THREADS}"
        )


class LaunchCounter:
    """Kernel launches made through :func:`launch`, by kernel name.

    ``total`` counts every launch of the process; ``counting()`` counts those made
    inside a ``with`` block::

        with launches.counting() as seen:
            y = x.sum(1)
        assert sum(seen.values()) == 1

    The count is what a GPU would run: every CUDA kernel of the library starts
    through :func:`launch` (the simulator counts the same launches). Per-op host
    overhead on a GPU is dominated by launches (issue 40: tens of microseconds
    each), so tests hold the launches per operation to a budget."""

    def __init__(self) -> None:
        self.total = 0
        self._open: List["Counter[str]"] = []

    def record(self, kernel: Any) -> None:
        """Note one launch of ``kernel``."""
        self.total += 1
        for seen in self._open:
            seen[kernel.__name__] += 1

    @contextmanager
    def counting(self) -> Iterator["Counter[str]"]:
        """A ``Counter`` of kernel name -> launches, filled while the block runs."""
        seen: "Counter[str]" = Counter()
        self._open.append(seen)
        try:
            yield seen
        finally:
            self._open.remove(seen)


#: The launches of this process (see :class:`LaunchCounter`).
launches = LaunchCounter()


def launch(kernel: Any, grid: Any, block: Any, out: Storage, *args: Any) -> None:
    """Run ``kernel[grid, block](out, *args)``, once :func:`check_launch` has
    accepted ``grid`` and ``block``.

    Arrays already on the GPU are passed as they are. Integer NumPy arrays (shapes,
    strides) go through :func:`device_constant`. Float NumPy arrays (storages of
    tensors in host memory) are copied to the GPU, and, for ``out``, back after the
    kernel: only ``out`` comes back, so the inputs are never copied twice.
    """
    check_launch(grid, block)
    launches.record(kernel)
    try:
        device = []
        for x in (out, *args):
            if isinstance(x, np.ndarray):
                x = device_constant(x) if x.dtype.kind in "iu" else cuda.to_device(x)
            device.append(x)
    except _NO_GPU as error:
        raise RuntimeError(
            "CudaBackend needs an NVIDIA GPU, or Numba's CUDA simulator: set "
            "NUMBA_ENABLE_CUDASIM=1 before Numba is imported (the tests and "
            "project/run_fast_tensor.py do this when no GPU is found)"
        ) from error
    # The simulator runs a block's threads as Python threads that wait for one
    # another at every syncthreads(): hand the GIL over at once (1 us) instead of
    # after Python's default 5 ms, or a reduce block takes 0.1 s.
    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-6 if SIMULATOR else previous)
    try:
        kernel[grid, block](*device)
    finally:
        sys.setswitchinterval(previous)
    if device[0] is not out:
        device[0].copy_to_host(out)


def _persist(run: Any, label: str) -> Any:
    """``run`` (a kernel factory's launcher), its kernel's compiled code kept on
    disk for the next processes (``_cuda_cache.persist``: keyed by everything
    compiled into it); a launcher whose kernel cannot be found compiles in
    memory."""
    with suppress(ValueError):  # (no kernel to be found)
        _cuda_cache.persist(kernel_in(run), label)
    return run


#: ``compiled(factory, fn=None)``: the kernel ``factory(fn)`` (``factory()`` without
#: ``fn``), built once per process (``_dispatch.compiled``), its compiled code kept
#: on disk (:func:`_persist`). ``fn`` is compiled as it is: the backends' scalar
#: functions follow IEEE arithmetic (inf and NaN, no exceptions), as a GPU thread
#: must.
compiled = functools.partial(_dispatch.compiled, persist=_persist)


def kernel_in(run: Any) -> Any:
    """The ``@cuda.jit`` kernel that the launcher ``run`` (returned by a kernel
    factory) launches: the one kernel among the variables it closes over."""
    if not callable(run) or getattr(run, "__closure__", None) is None:
        return run  # the factory returned the kernel itself
    for cell in run.__closure__:
        options = getattr(cell.cell_contents, "targetoptions", None)
        if options is not None and not options.get("device", False):
            return cell.cell_contents
    raise ValueError(f"{run!r} launches no @cuda.jit kernel that can be found")


# ---------------------------------------------------------------------------
# Given: tensors that live on the GPU
#
# A tensor on CudaBackend keeps its storage in GPU memory: every result of CudaOps
# is a device array, and the kernels read device arrays as they are (``launch``),
# with shapes and strides as cached device constants. A tensor made on the host
# (``tensor(data, backend=CudaBackend)``, ``zeros``) is copied to the GPU by each
# operation that reads it, until ``.to(CudaBackend)`` moves it once. The copies back
# are ``to_numpy()``, ``item()``, printing and ``.to()`` another backend.
# ---------------------------------------------------------------------------


def _memory_of(array: Any) -> Any:
    """The buffer under a device array: numba's pointer object on a GPU (an
    ``OwnedPointer`` whose ``refct`` counts the views of the buffer), the NumPy
    array in the simulator."""
    return array._ary if SIMULATOR else array.gpu_data


def _wrap(memory: Any, size: int) -> Any:
    """A flat float64 device array of ``size`` entries on ``memory``."""
    if SIMULATOR:
        from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray

        return FakeCUDAArray(memory)
    from numba.cuda.cudadrv.devicearray import DeviceNDArray

    return DeviceNDArray((size,), (8,), np.float64, gpu_data=memory)


class DevicePool:
    """Device storage by entry count, freed buffers kept for the next result of the
    same size.

    A training loop allocates the same few sizes over and over. Without a pool each
    result is a fresh ``cudaMalloc`` and each dead tensor a ``cudaFree``, which
    waits for the whole GPU to finish (numba defers frees and then flushes them
    together: a stall every few ops). Here a dead storage's buffer goes back on a
    free list by size (``weakref.finalize`` on its array) and the next
    :meth:`take` of that size wraps it in a new array: no driver call either way.

    The pool holds at most ``limit`` bytes of free buffers (beyond that a freed
    buffer is released as before); :meth:`clear` releases them all, which
    :meth:`take` does once before giving up on an allocation that ran out of
    memory. A buffer that a view of its array still uses (``x[2:5]`` outlives
    ``x``) is never pooled. ``reused`` and ``allocated`` count what :meth:`take`
    handed out."""

    def __init__(self, limit: int = 1 << 30) -> None:
        self.limit = limit
        self.held = 0  # bytes of free buffers in the pool
        self.reused = self.allocated = 0
        self._free: Dict[int, List[Any]] = {}
        self._lock = threading.Lock()

    def take(self, size: int) -> Any:
        """A flat float64 device array of ``size`` entries, uninitialised (a
        reused buffer holds what its last tensor left there)."""
        memory = None
        with self._lock:  # (no buffer of size 0 is ever pooled)
            if self._free.get(size):
                memory = self._free[size].pop()
                self.held -= 8 * size
        if memory is not None:
            array = _wrap(memory, size)
            self.reused += 1
        else:
            try:
                array = cuda.device_array(size, dtype=np.float64)
            except Exception:  # out of memory (CudaAPIError): free the pool, once
                if not self.held:
                    raise
                self.clear()
                array = cuda.device_array(size, dtype=np.float64)
            self.allocated += 1
        if size:  # (a finalizer that does not run at exit: nothing to recycle then)
            weakref.finalize(array, self._give, size, _memory_of(array)).atexit = False
        return array

    def _give(self, size: int, memory: Any) -> None:
        # Called when the array on ``memory`` is gone. Another array may still use
        # the buffer: a view (numba counts those in ``refct`` on a GPU; in the
        # simulator a NumPy view holds a Python reference, beyond the ones any
        # finalizer sees: _UNSHARED).
        if SIMULATOR and sys.getrefcount(memory) > _UNSHARED:
            return
        if not SIMULATOR and getattr(memory, "refct", 1) > 1:
            return
        with self._lock:
            if self.held + 8 * size <= self.limit:
                self._free.setdefault(size, []).append(memory)
                self.held += 8 * size

    def clear(self) -> None:
        """Release every free buffer (numba frees them as it frees any array)."""
        with self._lock:
            self._free.clear()
            self.held = 0

    def __len__(self) -> int:
        """The number of free buffers held."""
        return sum(len(buffers) for buffers in self._free.values())


def _references_at_finalize() -> int:
    """What ``sys.getrefcount`` says of a buffer in :meth:`DevicePool._give` when
    nothing else holds it: the finalizer's arguments, the call, and the dying
    array's own attribute (still set while weakref callbacks run), which differs
    between Python versions: measured once, on a simulator array (only the
    simulator reads it)."""
    seen: List[int] = []

    def give(size: int, memory: Any) -> None:
        seen.append(sys.getrefcount(memory))

    array = _wrap(np.empty(1), 1)
    weakref.finalize(array, give, 1, _memory_of(array))
    del array
    return seen[0]


_UNSHARED = _references_at_finalize() if SIMULATOR else 0

#: The device storage of this process's tensors (see :class:`DevicePool`).
pool = DevicePool()


def _result(like: Any, shape: Shape) -> Any:
    """A new contiguous tensor of ``shape`` on ``like``'s backend, in GPU memory,
    uninitialised: every kernel of this backend writes all of its result (the
    reduce takes its start value as an argument), so no fill launch precedes it.
    Its storage comes from :data:`pool`: the buffer of a dead tensor of the same
    size when there is one."""
    return type(like)(TensorData(pool.take(_size(shape)), tuple(shape)), like.backend)


class CudaKernelOps(TensorOps):
    """Module 2's ``TensorOps`` on CUDA kernels: a subclass names its kernel
    factories (class attributes ``map_kernel``, ``zip_kernel``, ``reduce_kernel``,
    ``matmul_kernel``) and gets the four ops, results in GPU memory."""

    cuda = True
    map_kernel: Callable[..., Any]
    zip_kernel: Callable[..., Any]
    reduce_kernel: Callable[..., Any]
    matmul_kernel: Callable[..., Any]

    @staticmethod
    def to_device(storage: Any) -> Any:
        """``storage`` in GPU memory (``Tensor.to(CudaBackend)`` moves with it)."""
        return storage if on_device(storage) else cuda.to_device(storage)

    @classmethod
    def map(cls, fn: Callable[[float], float]) -> MapFn:
        """See ``TensorOps.map``."""

        def apply(a: Any, out: Optional[Any] = None) -> Any:
            out = _result(a, a.shape) if out is None else out
            compiled(cls.map_kernel, fn)(*out.tuple(), *a.tuple())
            return out

        return apply

    @classmethod
    def zip(cls, fn: Callable[[float, float], float]) -> ZipFn:
        """See ``TensorOps.zip``."""

        def apply(a: Any, b: Any) -> Any:
            out = _result(a, _dispatch._broadcast(a.shape, b.shape))
            compiled(cls.zip_kernel, fn)(*out.tuple(), *a.tuple(), *b.tuple())
            return out

        return apply

    @classmethod
    def reduce(
        cls, fn: Callable[[float, float], float], start: float = 0.0
    ) -> ReduceFn:
        """See ``TensorOps.reduce`` (``start`` must be an identity of ``fn``)."""

        def apply(a: Any, dim: int) -> Any:
            out = _result(a, a.shape[:dim] + (1,) + a.shape[dim + 1 :])
            compiled(cls.reduce_kernel, fn)(*out.tuple(), *a.tuple(), dim, start)
            return out

        return apply

    @classmethod
    def matrix_multiply(cls, a: Any, b: Any) -> Any:
        """See ``TensorOps.matrix_multiply``."""
        out = _result(a, matmul_shape(a.shape, b.shape))
        compiled(cls.matmul_kernel)(*out.tuple(), *a.tuple(), *b.tuple())
        return out
