"""Tensor kernels on an NVIDIA GPU with Numba CUDA: map, zip, reduce and a
shared-memory block sum (Task 3.3), and a tiled batched matrix multiply (Task 3.4).

A GPU runs one small function, the *kernel*, on thousands of threads at once.
Threads come in *blocks* (up to 1024 threads that can share fast on-chip memory and
wait for each other with ``cuda.syncthreads()``), and blocks form a *grid*. Every
thread finds its piece of the work from its coordinates: ``cuda.blockIdx``,
``cuda.blockDim`` and ``cuda.threadIdx`` (``cuda.grid(1)`` is
``blockIdx.x * blockDim.x + threadIdx.x``).

Without a GPU, Numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, set before Numba
is imported) runs the same kernels on the CPU, one Python thread per GPU thread:
slow, but exact, so the tests grade these tasks on any machine. Block sizes are
smaller under the simulator (every simulated thread is a Python thread).

The kernel factories keep Module 2's interface: ``tensor_map(fn)`` returns a function
``(out, out_shape, out_strides, in_storage, in_shape, in_strides) -> None`` that
launches the kernel with :func:`launch`. Tensors on ``CudaBackend`` keep their storage
in GPU memory (see "tensors that live on the GPU" below), so the storages usually are
device arrays already; ``launch`` copies only what is still on the host.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple

import numba
import numba.core.config
import numpy as np

from module2_tensors.tensor_data import (
    Shape,
    Storage,
    Strides,
    TensorData,
    shape_broadcast,
)
from module2_tensors.tensor_ops import (
    MapFn,
    ReduceFn,
    TensorBackend,
    TensorOps,
    ZipFn,
    matmul_shape,
)

from .fast_ops import (
    MapKernel,
    MatMulKernel,
    ReduceKernel,
    ZipKernel,
)

if "numba.cuda" not in sys.modules:
    # numba.cuda chooses between the GPU and the simulator when it is first imported,
    # from Numba's configuration, which Numba read from the environment when *it*
    # was first imported. Re-read it, so that NUMBA_ENABLE_CUDASIM set after
    # ``import numba`` (but before ``numba.cuda``) still counts.
    numba.core.config.reload_config()

from numba import cuda  # noqa: E402 (after the configuration is current)

__all__ = [
    "SIMULATOR",
    "THREADS_PER_BLOCK",
    "PRACTICE_THREADS",
    "PRACTICE_TILE",
    "TILE",
    "WORK",
    "SIDE",
    "MATMUL_OPTIONS",
    "MAX_GRID",
    "MAX_GRID_X",
    "MAX_THREADS",
    "MAX_BLOCK",
    "position",
    "broadcast_position",
    "on_device",
    "device_constant",
    "check_launch",
    "launch",
    "blocks_for",
    "aligned",
    "tensor_map",
    "tensor_zip",
    "tensor_reduce",
    "sum_practice_kernel",
    "sum_practice",
    "mm_practice_kernel",
    "mm_practice",
    "tensor_matrix_multiply",
    "compiled",
    "device_storage",
    "KernelSpec",
    "kernel_specs",
    "device_functions",
    "CudaOps",
    "CudaBackend",
]

#: True when the kernels run in Numba's CUDA simulator instead of on a GPU.
SIMULATOR: bool = bool(cuda.config.ENABLE_CUDASIM)
#: Threads per block of the map, zip and reduce kernels (a power of two: the
#: reduce's tree halves it).
THREADS_PER_BLOCK: int = 8 if SIMULATOR else 256
#: Threads per block of ``sum_practice`` (so also the size of the sums it returns).
PRACTICE_THREADS: int = 32
#: Side of the one-block ``mm_practice`` (a block of PRACTICE_TILE^2 threads; at most
#: 32, since a block has at most 1024 threads).
PRACTICE_TILE: int = 8 if SIMULATOR else 32
#: Side of the square tile of ``out`` that one block of the matrix multiply computes.
TILE: int = 8 if SIMULATOR else 64
#: Side of the square group of ``out`` entries that one thread of the matrix multiply
#: computes (kept in registers: *register blocking*).
WORK: int = 2 if SIMULATOR else 4
#: Threads per side of a matrix-multiply block, also the depth of its ``k`` tiles:
#: a block has SIDE x SIDE threads (256 on a GPU).
SIDE: int = TILE // WORK
#: Options of the matrix-multiply kernel: ``@cuda.jit(**MATMUL_OPTIONS)``. On a GPU,
#: *launch bounds* promise at most SIDE^2 threads per block and ask for room for 2
#: blocks per SM, so the compiler keeps a thread to 128 registers (it would take
#: ~175, and fit one block per SM). The simulator takes no such option.
MATMUL_OPTIONS: Dict[str, Any] = (
    {} if SIMULATOR else {"launch_bounds": (SIDE * SIDE, 2)}
)
#: The largest grid dimension ``y`` or ``z`` a launch may use.
MAX_GRID: int = 65535
#: The largest grid dimension ``x``, and the largest block: 1024 threads in all, at
#: most 1024 along ``x`` or ``y`` and 64 along ``z`` (every GPU since compute
#: capability 3.0). :func:`launch` checks these and ``MAX_GRID``; the simulator
#: would run any launch.
MAX_GRID_X: int = 2**31 - 1
MAX_THREADS: int = 1024
MAX_BLOCK: Tuple[int, int, int] = (1024, 1024, 64)


def _quiet_low_occupancy() -> None:
    # Small tensors launch a few blocks, and numba-cuda warns about every such launch
    # ("Grid size 1 will likely result in GPU under-utilization"): one switch for the
    # whole library instead of a flood (the config moved between numba versions).
    for name in ("numba.cuda.core.config", "numba.core.config"):
        config = sys.modules.get(name)
        if config is not None and hasattr(config, "CUDA_LOW_OCCUPANCY_WARNINGS"):
            config.CUDA_LOW_OCCUPANCY_WARNINGS = 0


_quiet_low_occupancy()

# ---------------------------------------------------------------------------
# Given: positions in a strided storage, computed by arithmetic.
#
# Module 2 goes ordinal -> index (an array) -> position. A GPU thread keeps such an
# index array in slow per-thread *local* memory (a stack frame), and it costs many
# registers. These helpers walk the dimensions from the
# last one and peel one index at a time off the ordinal, so nothing is stored.
# ---------------------------------------------------------------------------


@cuda.jit(device=True)
def position(ordinal, shape, strides):  # type: ignore
    """The storage position of the entry with row-major number ``ordinal`` of a
    tensor with ``shape`` and ``strides``: $\\sum_d \\mathrm{index}_d\\,
    \\mathrm{strides}_d$ where ``index`` is ``ordinal`` written in the mixed radix
    ``shape`` (last dimension fastest)."""
    result = 0
    for d in range(len(shape) - 1, -1, -1):
        result += (ordinal % shape[d]) * strides[d]
        ordinal //= shape[d]
    return result


@cuda.jit(device=True)
def broadcast_position(ordinal, out_shape, shape, strides):  # type: ignore
    """The storage position, in a tensor with ``shape`` and ``strides`` broadcast to
    ``out_shape``, of the entry that entry number ``ordinal`` of ``out_shape`` reads:
    dimensions are aligned on the right, and a dimension of size 1 always reads
    index 0 (Module 2's ``broadcast_index`` and ``index_to_position`` in one)."""
    result = 0
    offset = len(out_shape) - len(shape)
    for d in range(len(out_shape) - 1, offset - 1, -1):
        index = ordinal % out_shape[d]
        ordinal //= out_shape[d]
        if shape[d - offset] != 1:
            result += index * strides[d - offset]
    return result


#: What numba.cuda raises when there is no usable GPU (absent in the simulator).
_NO_GPU: Any = getattr(cuda, "CudaSupportError", ())


def _size(shape: Shape) -> int:
    size = 1
    for n in shape:
        size *= int(n)
    return size


def on_device(x: Any) -> bool:
    """Whether ``x`` is an array in GPU memory (a Numba device array, also the
    simulator's)."""
    return hasattr(x, "copy_to_host")


#: Device copies of shapes and strides, by content: a tensor's shape reaches the
#: kernels without a host-to-device copy per operation (they are a few bytes each,
#: and a program uses few distinct ones).
_CONSTANTS: Dict[Tuple[str, bytes], Any] = {}
_MAX_CONSTANTS = 4096


def device_constant(values: np.ndarray) -> Any:
    """A device copy of the small integer array ``values`` (a shape or strides),
    made once per distinct content. Kernels must not write to it."""
    key = (values.dtype.str, values.tobytes())
    found = _CONSTANTS.get(key)
    if found is None:
        if len(_CONSTANTS) >= _MAX_CONSTANTS:
            _CONSTANTS.clear()
        found = _CONSTANTS[key] = cuda.to_device(np.ascontiguousarray(values))
    return found


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
    if type(grid) is int and type(block) is int:  # the usual 1-D launch, at once
        if 1 <= grid <= MAX_GRID_X and 1 <= block <= MAX_THREADS:
            return
    g, b = _dims(grid), _dims(block)
    for name, dims, limits in (
        ("grid", g, (MAX_GRID_X, MAX_GRID, MAX_GRID)),
        ("block", b, MAX_BLOCK),
    ):
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


def launch(kernel: Any, grid: Any, block: Any, out: Storage, *args: Any) -> None:
    """Run ``kernel[grid, block](out, *args)``, once :func:`check_launch` has
    accepted ``grid`` and ``block``.

    Arrays already on the GPU are passed as they are. Integer NumPy arrays (shapes,
    strides) go through :func:`device_constant`. Float NumPy arrays (storages of
    tensors in host memory) are copied to the GPU, and, for ``out``, back after the
    kernel: only ``out`` comes back, so the inputs are never copied twice.
    """
    check_launch(grid, block)
    try:
        device_out = out if on_device(out) else cuda.to_device(out)
    except _NO_GPU as error:
        raise RuntimeError(
            "CudaBackend needs an NVIDIA GPU, or Numba's CUDA simulator: set "
            "NUMBA_ENABLE_CUDASIM=1 before Numba is imported (the tests and "
            "project/run_fast_tensor.py do this when no GPU is found)"
        ) from error
    device_args = [
        (
            x
            if not isinstance(x, np.ndarray)
            else device_constant(x) if x.dtype.kind in "iu" else cuda.to_device(x)
        )
        for x in args
    ]
    if SIMULATOR:
        # The simulator runs a block's threads as Python threads that wait for one
        # another at every syncthreads(): hand the GIL over at once (1 us) instead
        # of after Python's default 5 ms, or a reduce block takes 0.1 s.
        previous = sys.getswitchinterval()
        sys.setswitchinterval(1e-6)
        try:
            kernel[grid, block](device_out, *device_args)
        finally:
            sys.setswitchinterval(previous)
    else:
        kernel[grid, block](device_out, *device_args)
    if device_out is not out:
        device_out.copy_to_host(out)


def blocks_for(size: int, threads: int) -> int:
    """The number of blocks of ``threads`` threads that cover ``size`` entries:
    $\\lceil \\mathrm{size} / \\mathrm{threads} \\rceil$."""
    return (size + threads - 1) // threads


def aligned(out: Storage, out_shape: Shape, out_strides: Strides, *inputs: Any) -> bool:
    """Whether ``out`` and every ``(storage, shape, strides)`` input share one layout
    with no gaps (same shape, same strides, storages of exactly ``size`` entries):
    then storage position ``i`` of one is storage position ``i`` of the others."""
    size = _size(out_shape)
    if len(out) != size:
        return False
    for k in range(0, len(inputs), 3):
        storage, shape, strides = inputs[k : k + 3]
        if (
            len(storage) != size
            or not np.array_equal(shape, out_shape)
            or not np.array_equal(strides, out_strides)
        ):
            return False
    return True


# ---------------------------------------------------------------------------
# Task 3.3: map, zip, reduce, and a block sum in shared memory
# ---------------------------------------------------------------------------


def tensor_map(fn: Callable[[float], float]) -> MapKernel:
    """The CUDA map: $\\mathrm{out}[i] = fn(\\mathrm{in}[i])$, one thread per entry
    of ``out``.

    Returns ``run(out, out_shape, out_strides, in_storage, in_shape, in_strides)``
    with the semantics of Module 2's ``tensor_map`` (broadcasting, any strides),
    which launches the kernel over enough blocks of ``THREADS_PER_BLOCK`` threads.

    Hints:

    - compile ``fn`` for the GPU with ``cuda.jit(device=True)``; the kernel is a
      ``@cuda.jit`` function; launch it with :func:`launch`;
    - thread ``i = cuda.grid(1)`` computes entry number ``i`` (row-major) of
      ``out``; threads with ``i >= size`` (the last block is rarely full) do
      nothing;
    - find storage positions with the given device functions :func:`position`
      (``out``) and :func:`broadcast_position` (the input): no index arrays, whose
      per-thread copies a real GPU keeps in slow local memory;
    - fast path: when :func:`aligned`, thread ``i`` reads and writes storage
      position ``i`` (neighbouring threads touch neighbouring addresses, which the
      GPU merges into one memory transaction: *coalescing*).
    """
    # BEGIN SOLUTION 3.3: CUDA tensor_map, one thread per entry, and its launch
    f = cuda.jit(device=True)(fn)

    @cuda.jit
    def _map(out, out_shape, out_strides, size, same, in_storage, in_shape, in_strides):
        i = cuda.grid(1)
        if i >= size:
            return
        if same:
            out[i] = f(in_storage[i])
            return
        x = in_storage[broadcast_position(i, out_shape, in_shape, in_strides)]
        out[position(i, out_shape, out_strides)] = f(x)

    def run(out: Storage, out_shape: Shape, out_strides: Strides, *inp: Any) -> None:
        # inp = (in_storage, in_shape, in_strides)
        size = _size(out_shape)
        if size > 0:
            same = aligned(out, out_shape, out_strides, *inp)
            grid = blocks_for(size, THREADS_PER_BLOCK)
            args = (out, out_shape, out_strides, size, same, *inp)
            launch(_map, grid, THREADS_PER_BLOCK, *args)

    return run
    # END SOLUTION


def tensor_zip(fn: Callable[[float, float], float]) -> ZipKernel:
    """The CUDA zip: $\\mathrm{out}[i] = fn(a[i], b[i])$, one thread per entry of
    ``out``, with the semantics of Module 2's ``tensor_zip``.

    Returns ``run(out, out_shape, out_strides, a_storage, a_shape, a_strides,
    b_storage, b_shape, b_strides)``. Hints: as :func:`tensor_map`.
    """
    # BEGIN SOLUTION 3.3: CUDA tensor_zip, as tensor_map with two broadcast inputs
    f = cuda.jit(device=True)(fn)

    @cuda.jit
    def _zip(
        out,
        out_shape,
        out_strides,
        size,
        same,
        a_storage,
        a_shape,
        a_strides,
        b_storage,
        b_shape,
        b_strides,
    ):
        i = cuda.grid(1)
        if i >= size:
            return
        if same:
            out[i] = f(a_storage[i], b_storage[i])
            return
        x = a_storage[broadcast_position(i, out_shape, a_shape, a_strides)]
        y = b_storage[broadcast_position(i, out_shape, b_shape, b_strides)]
        out[position(i, out_shape, out_strides)] = f(x, y)

    def run(out: Storage, out_shape: Shape, out_strides: Strides, *ab: Any) -> None:
        # ab = (a_storage, a_shape, a_strides, b_storage, b_shape, b_strides)
        size = _size(out_shape)
        if size > 0:
            same = aligned(out, out_shape, out_strides, *ab)
            grid = blocks_for(size, THREADS_PER_BLOCK)
            args = (out, out_shape, out_strides, size, same, *ab)
            launch(_zip, grid, THREADS_PER_BLOCK, *args)

    return run
    # END SOLUTION


def tensor_reduce(fn: Callable[[float, float], float]) -> ReduceKernel:
    """The CUDA reduce along one dimension: one *block* per entry of ``out``.

    Returns ``run(out, out_shape, out_strides, a_storage, a_shape, a_strides,
    reduce_dim)`` with the semantics of Module 2's ``tensor_reduce``, except that the
    start value in ``out`` must be an *identity* of ``fn`` ($0$ for add, $1$ for
    mul, $-\\infty$ for max), because every thread starts from it.

    Hints: launch ``size(out)`` blocks of ``THREADS_PER_BLOCK`` threads. Block ``o``
    computes entry number ``o`` of ``out``: its position is
    ``position(o, out_shape, out_strides)``, and, since its index is 0 along the
    reduced dimension, ``position(o, out_shape, a_strides)`` is where its first
    input lies. Thread ``t`` folds the inputs ``t, t + blockDim, t + 2 blockDim,
    ...`` of the reduced dimension into a local value (neighbouring threads read
    neighbouring inputs), writes it to a ``cuda.shared.array``, then the block
    combines the values in a tree: half the threads combine the other half's value
    with theirs, ``cuda.syncthreads()``, and again with a quarter, ... until thread
    0 holds the result and writes it to ``out``. Every thread of the block must
    reach every ``syncthreads`` (no early ``return`` before it).
    """
    # BEGIN SOLUTION 3.3: CUDA tensor_reduce, one block per entry, tree in shared memory
    f = cuda.jit(device=True)(fn)

    @cuda.jit
    def _reduce(out, out_shape, out_strides, a_storage, a_shape, a_strides, dim):
        partial = cuda.shared.array(THREADS_PER_BLOCK, numba.float64)
        t = cuda.threadIdx.x
        o = cuda.blockIdx.x
        target = position(o, out_shape, out_strides)
        first = position(o, out_shape, a_strides)
        step = a_strides[dim]
        value = out[target]
        j = t
        while j < a_shape[dim]:
            value = f(value, a_storage[first + j * step])
            j += cuda.blockDim.x
        partial[t] = value
        cuda.syncthreads()
        half = cuda.blockDim.x // 2
        while half > 0:
            if t < half:
                partial[t] = f(partial[t], partial[t + half])
            cuda.syncthreads()
            half //= 2
        if t == 0:
            out[target] = partial[0]

    def run(out: Storage, out_shape: Shape, out_strides: Strides, *a: Any) -> None:
        # a = (a_storage, a_shape, a_strides, reduce_dim)
        size = _size(out_shape)
        if size > 0:  # one block per entry of out
            args = (out, out_shape, out_strides, *a)
            launch(_reduce, size, THREADS_PER_BLOCK, *args)

    return run
    # END SOLUTION


def sum_practice_kernel() -> Any:
    """The kernel of :func:`sum_practice`: ``_sum(out, a, size)``, launched with
    blocks of ``PRACTICE_THREADS`` threads, writes into ``out[b]`` the sum of the
    entries ``a[b * PRACTICE_THREADS : (b + 1) * PRACTICE_THREADS]`` (entries past
    ``size`` count as 0).

    Hints: each thread copies one entry of ``a`` into a
    ``cuda.shared.array(PRACTICE_THREADS, numba.float64)``, ``cuda.syncthreads()``,
    then a tree: at step $s = 1, 2, 4, \\dots$ thread ``t`` with ``t % (2 s) == 0``
    adds entry ``t + s`` to entry ``t`` (then ``syncthreads`` again); thread 0 writes
    the block's sum. Shared memory is visible to the whole block and about a hundred
    times faster than global memory.
    """

    # BEGIN SOLUTION 3.3: the block sum in shared memory
    @cuda.jit
    def _sum(out, a, size):
        cache = cuda.shared.array(PRACTICE_THREADS, numba.float64)
        i = cuda.grid(1)
        t = cuda.threadIdx.x
        cache[t] = a[i] if i < size else 0.0
        cuda.syncthreads()
        step = 1
        while step < PRACTICE_THREADS:
            if t % (2 * step) == 0:
                cache[t] += cache[t + step]
            cuda.syncthreads()
            step *= 2
        if t == 0:
            out[cuda.blockIdx.x] = cache[0]

    return _sum
    # END SOLUTION


def sum_practice(a: Any) -> Any:
    """Block sums of a 1-D tensor, in shared memory: entry ``b`` of the result is
    $\\sum_{i = 32 b}^{32 b + 31} a_i$ (``PRACTICE_THREADS = 32``), so the result
    has $\\lceil n / 32 \\rceil$ entries. (Given: it launches
    :func:`sum_practice_kernel`.)"""
    if a.dims != 1:
        raise ValueError(f"sum_practice takes a 1-D tensor, got shape {a.shape}")
    size = a.shape[0]
    blocks = blocks_for(size, PRACTICE_THREADS)
    out = a.new_zeros((blocks,))
    if blocks:
        values = np.ascontiguousarray(a.to_numpy())
        launch(
            compiled(sum_practice_kernel),
            blocks,
            PRACTICE_THREADS,
            out.tuple()[0],
            values,
            size,
        )
    return out


# ---------------------------------------------------------------------------
# Task 3.4: matrix multiply with shared-memory tiles
# ---------------------------------------------------------------------------


def mm_practice_kernel() -> Any:
    """The kernel of :func:`mm_practice`: ``_mm(out, a, b, size)`` multiplies two
    contiguous ``size x size`` matrices (``size <= PRACTICE_TILE``) with ONE block of
    ``(PRACTICE_TILE, PRACTICE_TILE)`` threads: thread ``(x, y) = cuda.threadIdx``
    computes ``out[y, x]``.

    Hints: first every thread copies ``a[y, x]`` and ``b[y, x]`` into two
    ``cuda.shared.array((PRACTICE_TILE, PRACTICE_TILE), numba.float64)`` tiles
    (threads outside the matrix copy nothing), ``cuda.syncthreads()``, then each
    thread sums $\\sum_k a[y, k]\\, b[k, x]$ from shared memory, where every number
    it reads was loaded from global memory once for the whole block instead of once
    per thread.
    """

    # BEGIN SOLUTION 3.4: the one-block matmul from two shared-memory tiles
    @cuda.jit
    def _mm(out, a, b, size):
        a_tile = cuda.shared.array((PRACTICE_TILE, PRACTICE_TILE), numba.float64)
        b_tile = cuda.shared.array((PRACTICE_TILE, PRACTICE_TILE), numba.float64)
        x = cuda.threadIdx.x
        y = cuda.threadIdx.y
        if x < size and y < size:
            a_tile[y, x] = a[y * size + x]
            b_tile[y, x] = b[y * size + x]
        cuda.syncthreads()
        if x < size and y < size:
            total = 0.0
            for k in range(size):
                total += a_tile[y, k] * b_tile[k, x]
            out[y * size + x] = total

    return _mm
    # END SOLUTION


def mm_practice(a: Any, b: Any) -> Any:
    """$a b$ for two square ``(size, size)`` tensors with ``size <= PRACTICE_TILE``,
    in one block (given: it launches :func:`mm_practice_kernel`)."""
    if a.dims != 2 or a.shape != b.shape or a.shape[0] != a.shape[1]:
        raise ValueError(
            f"mm_practice takes two square matrices of the same size, got shapes "
            f"{a.shape} and {b.shape}"
        )
    size = a.shape[0]
    if size > PRACTICE_TILE:
        raise ValueError(
            f"mm_practice handles size <= PRACTICE_TILE = {PRACTICE_TILE}, got {size}"
        )
    out = a.new_zeros((size, size))
    if size:
        a_values = np.ascontiguousarray(a.to_numpy()).ravel()
        b_values = np.ascontiguousarray(b.to_numpy()).ravel()
        launch(
            compiled(mm_practice_kernel),
            1,
            (PRACTICE_TILE, PRACTICE_TILE),
            out.tuple()[0],
            a_values,
            b_values,
            size,
        )
    return out


def tensor_matrix_multiply() -> MatMulKernel:
    """The CUDA batched matrix multiply, tiled in shared memory and blocked in
    registers:

    $$\\mathrm{out}[\\dots, i, j] = \\sum_k a[\\dots, i, k]\\, b[\\dots, k, j]$$

    Returns ``run(out, out_shape, out_strides, a_storage, a_shape, a_strides,
    b_storage, b_shape, b_strides)`` with the semantics of Module 2's
    ``tensor_matrix_multiply`` (broadcast batch dimensions, any strides, any sizes).

    The layout (constants given above; on a GPU ``TILE = 64``, ``WORK = 4``,
    ``SIDE = 16``):

    - a block of ``(SIDE, SIDE)`` threads computes one ``TILE x TILE`` tile of
      ``out``; the grid is ``(ceil(p / TILE), ceil(n / TILE), batches)``, its ``y``
      and ``z`` capped at ``MAX_GRID`` (below);
    - thread ``(x, y)`` of block ``(bx, by, bz)`` computes the ``WORK x WORK``
      entries ``out[bz][by * TILE + y + r * SIDE, bx * TILE + x + c * SIDE]`` for
      ``r, c`` in ``range(WORK)``, accumulated in a
      ``cuda.local.array((WORK, WORK), numba.float64)`` (indexed only by loop
      counters over constant ranges, the compiler keeps it in registers);
    - walk ``k`` in steps of ``SIDE``: the block loads the ``TILE x SIDE`` tile of
      ``a`` and the ``SIDE x TILE`` tile of ``b`` into two ``cuda.shared.array``
      tiles, every thread ``WORK`` entries of each (0 past the edge of a matrix, so
      sizes need not be multiples of anything), ``syncthreads``; then for each of the
      ``SIDE`` values of ``k`` a thread reads ``WORK`` numbers of the ``a`` tile and
      ``WORK`` of the ``b`` tile and does ``WORK x WORK`` multiply-adds: $2 W$ reads
      for $W^2$ products, where the plain tiled kernel does 2 reads per product;
      ``syncthreads`` again before the next tiles overwrite these;
    - let ``threadIdx.x`` run along the last dimension (``k`` for ``a``, ``j`` for
      ``b`` and ``out``): neighbouring threads then read and write neighbouring
      addresses;
    - matrix ``bz`` of each tensor starts at ``broadcast_position(bz * n * p,
      out_shape, shape, strides)`` (its index is ``(batch index..., 0, 0)``);
    - the grid's ``y`` and ``z`` dimensions are at most ``MAX_GRID`` (a GPU refuses
      more, and :func:`launch` says so): let block ``(bx, by, bz)`` handle the row
      tiles ``by, by + gridDim.y, ...`` of the batches ``bz, bz + gridDim.z, ...``;
    - decorate the kernel with ``@cuda.jit(**MATMUL_OPTIONS)``, and check what it
      costs a GPU with ``kindling kernels --task 3.4``.
    """

    # BEGIN SOLUTION 3.4: the tiled, register-blocked batched matmul and its launch
    @cuda.jit(**MATMUL_OPTIONS)
    def _matmul(
        out,
        out_shape,
        out_strides,
        a_storage,
        a_shape,
        a_strides,
        b_storage,
        b_shape,
        b_strides,
        batches,
    ):
        a_tile = cuda.shared.array((TILE, SIDE), numba.float64)
        b_tile = cuda.shared.array((SIDE, TILE), numba.float64)
        acc = cuda.local.array((WORK, WORK), numba.float64)
        a_row = cuda.local.array(WORK, numba.float64)
        b_col = cuda.local.array(WORK, numba.float64)
        x = cuda.threadIdx.x
        y = cuda.threadIdx.y
        d, da, db = len(out_shape), len(a_shape), len(b_shape)
        n, p, m = out_shape[d - 2], out_shape[d - 1], a_shape[da - 1]
        a_si, a_sk = a_strides[da - 2], a_strides[da - 1]
        b_sk, b_sj = b_strides[db - 2], b_strides[db - 1]
        o_si, o_sj = out_strides[d - 2], out_strides[d - 1]
        j0 = cuda.blockIdx.x * TILE + x
        for by in range(cuda.blockIdx.y, (n + TILE - 1) // TILE, cuda.gridDim.y):
            i0 = by * TILE + y
            for batch in range(cuda.blockIdx.z, batches, cuda.gridDim.z):
                first = batch * n * p
                a_start = broadcast_position(first, out_shape, a_shape, a_strides)
                b_start = broadcast_position(first, out_shape, b_shape, b_strides)
                out_start = position(first, out_shape, out_strides)
                for r in range(WORK):
                    for c in range(WORK):
                        acc[r, c] = 0.0
                for k0 in range(0, m, SIDE):
                    for r in range(WORK):
                        # a tile: row y + r SIDE, column x; b tile: row y,
                        # column x + r SIDE.
                        i = i0 + r * SIDE
                        k = k0 + x
                        value = 0.0
                        if i < n and k < m:
                            value = a_storage[a_start + i * a_si + k * a_sk]
                        a_tile[y + r * SIDE, x] = value
                        j = j0 + r * SIDE
                        k = k0 + y
                        value = 0.0
                        if k < m and j < p:
                            value = b_storage[b_start + k * b_sk + j * b_sj]
                        b_tile[y, x + r * SIDE] = value
                    cuda.syncthreads()
                    for kk in range(SIDE):
                        for r in range(WORK):
                            a_row[r] = a_tile[y + r * SIDE, kk]
                            b_col[r] = b_tile[kk, x + r * SIDE]
                        for r in range(WORK):
                            for c in range(WORK):
                                acc[r, c] += a_row[r] * b_col[c]
                    cuda.syncthreads()
                for r in range(WORK):
                    i = i0 + r * SIDE
                    for c in range(WORK):
                        j = j0 + c * SIDE
                        if i < n and j < p:
                            out[out_start + i * o_si + j * o_sj] = acc[r, c]

    def run(out: Storage, out_shape: Shape, out_strides: Strides, *ab: Any) -> None:
        # ab = (a_storage, a_shape, a_strides, b_storage, b_shape, b_strides)
        n, p = int(out_shape[-2]), int(out_shape[-1])
        if n * p > 0:
            batches = _size(out_shape) // (n * p)
            rows = min(blocks_for(n, TILE), MAX_GRID)
            grid = (blocks_for(p, TILE), rows, min(batches, MAX_GRID))
            args = (out, out_shape, out_strides, *ab, batches)
            launch(_matmul, grid, (SIDE, SIDE), *args)

    return run
    # END SOLUTION


# ---------------------------------------------------------------------------
# Given: the ops class and the backend
# ---------------------------------------------------------------------------

_COMPILED: Dict[Tuple[Callable[..., Any], Any], Any] = {}


def compiled(
    factory: Callable[..., Any], fn: Optional[Callable[..., float]] = None
) -> Any:
    """The kernel ``factory(fn)`` (``factory()`` without ``fn``), built once per
    process. ``fn`` is compiled as it is: the backends' scalar functions follow IEEE
    arithmetic (inf and NaN, no exceptions), as a GPU thread must."""
    key = (factory, fn)
    if key not in _COMPILED:
        _COMPILED[key] = factory() if fn is None else factory(fn)
    return _COMPILED[key]


@dataclass(frozen=True)
class KernelSpec:
    """One CUDA kernel as it is launched, for the resource check
    (``tests/module3/test_cuda_resources.py``) and ``kindling kernels``.

    ``build()`` returns the ``@cuda.jit`` kernel (building it may raise the
    ``NotImplementedError`` of an unfinished task); ``argtypes`` are the Numba types
    of its arguments; ``threads`` is the number of threads per block it is launched
    with."""

    name: str
    task: str
    build: Callable[[], Any]
    argtypes: Tuple[Any, ...]
    threads: int


def kernel_in(run: Any) -> Any:
    """The ``@cuda.jit`` kernel that the launcher ``run`` (returned by a kernel
    factory) launches: the one kernel among the variables it closes over."""
    if not callable(run) or getattr(run, "__closure__", None) is None:
        return run  # the factory returned the kernel itself
    for cell in run.__closure__:
        value = cell.cell_contents
        options = getattr(value, "targetoptions", None)
        if options is not None and not options.get("device", False):
            return value
    raise ValueError(f"{run!r} launches no @cuda.jit kernel that can be found")


def device_functions() -> List[Tuple[str, Callable[..., float], int]]:
    """Every scalar function that CUDA kernels compile in, as ``(name, function,
    arity)``: those a ``TensorBackend`` hands to ``map``, ``zip`` and ``reduce``
    (Task 0.1's operators among them) and Module 2's given scalar helpers for
    ``unary_map`` (``erf``, ``floor``, ...). The simulator runs any Python; a GPU
    runs only what Numba's CUDA target compiles, so ``kindling kernels`` compiles
    each of these for a GPU too."""
    import inspect

    from module2_tensors import tensor_functions
    from module2_tensors.tensor_ops import TensorBackend

    found: Dict[Any, Tuple[str, Callable[..., float], int]] = {}

    class _Recording:
        """An ops class that only notes the functions it is given."""

        cuda = True

        @staticmethod
        def map(fn: Callable[[float], float]) -> None:
            found.setdefault(fn, (fn.__name__, fn, 1))

        @staticmethod
        def zip(fn: Callable[[float, float], float]) -> None:
            found.setdefault(fn, (fn.__name__, fn, 2))

        @staticmethod
        def reduce(fn: Callable[[float, float], float], start: float = 0.0) -> None:
            found.setdefault(fn, (fn.__name__, fn, 2))

        matrix_multiply = None

    TensorBackend(_Recording)  # type: ignore[arg-type]
    for name, fn in vars(tensor_functions).items():
        if inspect.isfunction(fn) and fn.__module__ == tensor_functions.__name__:
            parameters = inspect.signature(fn).parameters.values()
            if parameters and all(p.annotation == "float" for p in parameters):
                found.setdefault(fn, (name, fn, len(parameters)))
    return list(found.values())


def kernel_specs() -> List[KernelSpec]:
    """Every kernel of this module with the argument types and block size it is
    launched with (the scalar functions are representative ones: each compiles
    to its own kernel)."""
    from module0_fundamentals import operators

    f64, i64 = numba.float64[::1], numba.int64[::1]
    strided = (f64, i64, i64)
    flag, count = numba.boolean, numba.int64
    elementwise = (*strided, count, flag)
    return [
        KernelSpec(
            "map(sigmoid)",
            "3.3",
            lambda: kernel_in(compiled(tensor_map, operators.sigmoid)),
            (*elementwise, *strided),
            THREADS_PER_BLOCK,
        ),
        KernelSpec(
            "zip(mul)",
            "3.3",
            lambda: kernel_in(compiled(tensor_zip, operators.mul)),
            (*elementwise, *strided, *strided),
            THREADS_PER_BLOCK,
        ),
        KernelSpec(
            "reduce(add)",
            "3.3",
            lambda: kernel_in(compiled(tensor_reduce, operators.add)),
            (*strided, *strided, count),
            THREADS_PER_BLOCK,
        ),
        KernelSpec(
            "fill (given)",
            "3.3",
            lambda: _fill,
            (f64, numba.float64, count),
            THREADS_PER_BLOCK,
        ),
        KernelSpec(
            "sum_practice",
            "3.3",
            lambda: compiled(sum_practice_kernel),
            (f64, f64, count),
            PRACTICE_THREADS,
        ),
        KernelSpec(
            "mm_practice",
            "3.4",
            lambda: compiled(mm_practice_kernel),
            (f64, f64, f64, count),
            PRACTICE_TILE * PRACTICE_TILE,
        ),
        KernelSpec(
            "matmul",
            "3.4",
            lambda: kernel_in(compiled(tensor_matrix_multiply)),
            (*strided, *strided, *strided, count),
            SIDE * SIDE,
        ),
    ]


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


@cuda.jit
def _fill(out, value, size):  # type: ignore
    i = cuda.grid(1)
    if i < size:
        out[i] = value


def device_storage(size: int, fill: Optional[float] = None) -> Any:
    """A new flat float64 device array of ``size`` entries (filled with ``fill`` by
    a kernel, with no host copy; left uninitialised when ``fill`` is None, for
    results that a kernel overwrites entirely)."""
    storage = cuda.device_array(size, dtype=np.float64)
    if fill is not None and size:
        _fill[blocks_for(size, THREADS_PER_BLOCK), THREADS_PER_BLOCK](
            storage, fill, size
        )
    return storage


def _result(like: Any, shape: Shape, fill: Optional[float] = None) -> Any:
    """A new contiguous tensor of ``shape`` on ``like``'s backend, in GPU memory."""
    return type(like)(
        TensorData(device_storage(_size(shape), fill), tuple(shape)), like.backend
    )


class CudaOps(TensorOps):
    """The CUDA backend's ops: Module 2's interface, kernels on the GPU (or in
    Numba's CUDA simulator), results in GPU memory."""

    cuda = True

    @staticmethod
    def to_device(storage: Any) -> Any:
        """``storage`` in GPU memory (``Tensor.to(CudaBackend)`` moves with it)."""
        return storage if on_device(storage) else cuda.to_device(storage)

    @staticmethod
    def map(fn: Callable[[float], float]) -> MapFn:
        """See ``TensorOps.map``."""

        def apply(a: Any, out: Optional[Any] = None) -> Any:
            if out is None:
                out = _result(a, a.shape)
            compiled(tensor_map, fn)(*out.tuple(), *a.tuple())
            return out

        return apply

    @staticmethod
    def zip(fn: Callable[[float, float], float]) -> ZipFn:
        """See ``TensorOps.zip``."""

        def apply(a: Any, b: Any) -> Any:
            shape = a.shape if a.shape == b.shape else shape_broadcast(a.shape, b.shape)
            out = _result(a, shape)
            compiled(tensor_zip, fn)(*out.tuple(), *a.tuple(), *b.tuple())
            return out

        return apply

    @staticmethod
    def reduce(fn: Callable[[float, float], float], start: float = 0.0) -> ReduceFn:
        """See ``TensorOps.reduce`` (``start`` must be an identity of ``fn``)."""

        def apply(a: Any, dim: int) -> Any:
            shape = list(a.shape)
            shape[dim] = 1
            out = _result(a, tuple(shape), start)
            compiled(tensor_reduce, fn)(*out.tuple(), *a.tuple(), dim)
            return out

        return apply

    @staticmethod
    def matrix_multiply(a: Any, b: Any) -> Any:
        """See ``TensorOps.matrix_multiply``."""
        out = _result(a, matmul_shape(a.shape, b.shape))
        compiled(tensor_matrix_multiply)(*out.tuple(), *a.tuple(), *b.tuple())
        return out


#: The CUDA backend: ``tensor(data, backend=CudaBackend)`` or ``t.to(CudaBackend)``.
CudaBackend = TensorBackend(CudaOps)
