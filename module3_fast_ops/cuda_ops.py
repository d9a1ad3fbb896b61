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
copies the arrays to the GPU, launches the kernel and copies ``out`` back.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Dict, Optional, Tuple

import numba
import numba.core.config
import numpy as np

from module2_tensors import tensor_data
from module2_tensors.tensor_data import Shape, Storage, Strides, shape_broadcast
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
    "TILE",
    "MAX_DIMS",
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
    "CudaOps",
    "CudaBackend",
]

#: True when the kernels run in Numba's CUDA simulator instead of on a GPU.
SIMULATOR: bool = bool(cuda.config.ENABLE_CUDASIM)
#: Threads per block of the map, zip and reduce kernels.
THREADS_PER_BLOCK: int = 32 if SIMULATOR else 256
#: Threads per block of ``sum_practice`` (so also the size of the sums it returns).
PRACTICE_THREADS: int = 32
#: Side of the square tiles of the matrix multiply (a block has TILE x TILE threads).
TILE: int = 8 if SIMULATOR else 32
#: The most dimensions a tensor may have here (the size of per-thread index arrays).
MAX_DIMS: int = 32
#: The largest grid dimension ``y`` or ``z`` a launch may use.
MAX_GRID: int = 65535

# ---------------------------------------------------------------------------
# Given: Module 2's index helpers as CUDA device functions (callable from kernels).
# ---------------------------------------------------------------------------

to_index = cuda.jit(device=True)(tensor_data.to_index)
index_to_position = cuda.jit(device=True)(tensor_data.index_to_position)
broadcast_index = cuda.jit(device=True)(tensor_data.broadcast_index)


#: What numba.cuda raises when there is no usable GPU (absent in the simulator).
_NO_GPU: Any = getattr(cuda, "CudaSupportError", ())


def _size(shape: Shape) -> int:
    size = 1
    for n in shape:
        size *= int(n)
    return size


def _check_dims(*shapes: Shape) -> None:
    for shape in shapes:
        if len(shape) > MAX_DIMS:
            raise ValueError(
                f"CUDA kernels handle at most {MAX_DIMS} dimensions, got shape "
                f"{tuple(int(n) for n in shape)}"
            )


def launch(kernel: Any, grid: Any, block: Any, out: Storage, *args: Any) -> None:
    """Run ``kernel[grid, block](out, *args)`` and copy the result back into ``out``.

    NumPy arrays are copied to the GPU first (``cuda.to_device``); everything else
    (numbers, flags) is passed as it is. Only ``out`` comes back, so the inputs are
    never copied twice.
    """
    try:
        device_out = cuda.to_device(out)
    except _NO_GPU as error:
        raise RuntimeError(
            "CudaBackend needs an NVIDIA GPU, or Numba's CUDA simulator: set "
            "NUMBA_ENABLE_CUDASIM=1 before Numba is imported (the tests and "
            "project/run_fast_tensor.py do this when no GPU is found)"
        ) from error
    device_args = [cuda.to_device(x) if isinstance(x, np.ndarray) else x for x in args]
    kernel[grid, block](device_out, *device_args)
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
    - thread ``i = cuda.grid(1)`` computes entry ``i``; threads with ``i >= size``
      (the last block is rarely full) do nothing;
    - a thread has no NumPy: its index buffers are
      ``cuda.local.array(MAX_DIMS, numba.int64)``;
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
        out_index = cuda.local.array(MAX_DIMS, numba.int64)
        in_index = cuda.local.array(MAX_DIMS, numba.int64)
        to_index(i, out_shape, out_index)
        broadcast_index(out_index, out_shape, in_shape, in_index)
        x = in_storage[index_to_position(in_index, in_strides)]
        out[index_to_position(out_index, out_strides)] = f(x)

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
        out_index = cuda.local.array(MAX_DIMS, numba.int64)
        a_index = cuda.local.array(MAX_DIMS, numba.int64)
        b_index = cuda.local.array(MAX_DIMS, numba.int64)
        to_index(i, out_shape, out_index)
        broadcast_index(out_index, out_shape, a_shape, a_index)
        broadcast_index(out_index, out_shape, b_shape, b_index)
        x = a_storage[index_to_position(a_index, a_strides)]
        y = b_storage[index_to_position(b_index, b_strides)]
        out[index_to_position(out_index, out_strides)] = f(x, y)

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

    Hints: launch ``size(out)`` blocks of ``THREADS_PER_BLOCK`` threads. In block
    ``o``, thread ``t`` folds the inputs ``t, t + blockDim, t + 2 blockDim, ...`` of
    the reduced dimension into a local value (neighbouring threads read neighbouring
    inputs), writes it to a ``cuda.shared.array``, then the block combines the
    values in a tree: half the threads add the other half's value to theirs,
    ``cuda.syncthreads()``, and again with a quarter, ... until thread 0 holds the
    result and writes it to ``out``. Every thread of the block must reach every
    ``syncthreads`` (no early ``return`` before it).
    """
    # BEGIN SOLUTION 3.3: CUDA tensor_reduce, one block per entry, tree in shared memory
    f = cuda.jit(device=True)(fn)

    @cuda.jit
    def _reduce(out, out_shape, out_strides, a_storage, a_shape, a_strides, dim):
        partial = cuda.shared.array(THREADS_PER_BLOCK, numba.float64)
        out_index = cuda.local.array(MAX_DIMS, numba.int64)
        t = cuda.threadIdx.x
        to_index(cuda.blockIdx.x, out_shape, out_index)
        target = index_to_position(out_index, out_strides)
        # out_index[dim] is 0: the position of the first input of this entry.
        first = index_to_position(out_index, a_strides)
        value = out[target]
        j = t
        while j < a_shape[dim]:
            value = f(value, a_storage[first + j * a_strides[dim]])
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
    contiguous ``size x size`` matrices (``size <= TILE``) with ONE block of
    ``(TILE, TILE)`` threads: thread ``(x, y) = cuda.threadIdx`` computes
    ``out[y, x]``.

    Hints: first every thread copies ``a[y, x]`` and ``b[y, x]`` into two
    ``cuda.shared.array((TILE, TILE), numba.float64)`` tiles (threads outside the
    matrix copy nothing), ``cuda.syncthreads()``, then each thread sums
    $\\sum_k a[y, k]\\, b[k, x]$ from shared memory, where every number it reads was
    loaded from global memory once for the whole block instead of once per thread.
    """

    # BEGIN SOLUTION 3.4: the one-block matmul from two shared-memory tiles
    @cuda.jit
    def _mm(out, a, b, size):
        a_tile = cuda.shared.array((TILE, TILE), numba.float64)
        b_tile = cuda.shared.array((TILE, TILE), numba.float64)
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
    """$a b$ for two square ``(size, size)`` tensors with ``size <= TILE``, in one
    block (given: it launches :func:`mm_practice_kernel`)."""
    if a.dims != 2 or a.shape != b.shape or a.shape[0] != a.shape[1]:
        raise ValueError(
            f"mm_practice takes two square matrices of the same size, got shapes "
            f"{a.shape} and {b.shape}"
        )
    size = a.shape[0]
    if size > TILE:
        raise ValueError(f"mm_practice handles size <= TILE = {TILE}, got {size}")
    out = a.new_zeros((size, size))
    if size:
        a_values = np.ascontiguousarray(a.to_numpy()).ravel()
        b_values = np.ascontiguousarray(b.to_numpy()).ravel()
        launch(
            compiled(mm_practice_kernel),
            1,
            (TILE, TILE),
            out.tuple()[0],
            a_values,
            b_values,
            size,
        )
    return out


def tensor_matrix_multiply() -> MatMulKernel:
    """The CUDA batched matrix multiply with shared-memory tiles:

    $$\\mathrm{out}[\\dots, i, j] = \\sum_k a[\\dots, i, k]\\, b[\\dots, k, j]$$

    Returns ``run(out, out_shape, out_strides, a_storage, a_shape, a_strides,
    b_storage, b_shape, b_strides)`` with the semantics of Module 2's
    ``tensor_matrix_multiply`` (broadcast batch dimensions, any strides, any sizes).

    Hints:

    - a block of ``(TILE, TILE)`` threads computes one ``TILE x TILE`` tile of
      ``out``; the grid is ``(ceil(p / TILE), ceil(n / TILE), batches)``, thread
      ``(x, y)`` of block ``(bx, by, bz)`` computes ``out[bz][by * TILE + y,
      bx * TILE + x]``;
    - the matrix ``bz`` of each tensor starts at the storage position of its
      index ``(bz's batch index..., 0, 0)``: :func:`to_index` and
      :func:`broadcast_index` find it;
    - walk ``k`` in steps of ``TILE``: every thread loads ONE entry of the current
      tile of ``a`` and of ``b`` into shared memory (0 past the edge of a matrix,
      so sizes need not be multiples of ``TILE``), ``syncthreads``, adds its
      ``TILE`` products, ``syncthreads`` again before the next tiles overwrite
      these;
    - let ``threadIdx.x`` run along the last dimension (``k`` for ``a``, ``j`` for
      ``b`` and ``out``): neighbouring threads then read neighbouring addresses;
    - the grid's ``z`` dimension is at most 65535: let block ``bz`` handle the
      batches ``bz, bz + gridDim.z, ...``.
    """

    # BEGIN SOLUTION 3.4: the tiled batched matmul kernel and its launch
    @cuda.jit
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
        a_tile = cuda.shared.array((TILE, TILE), numba.float64)
        b_tile = cuda.shared.array((TILE, TILE), numba.float64)
        index = cuda.local.array(MAX_DIMS, numba.int64)
        a_index = cuda.local.array(MAX_DIMS, numba.int64)
        b_index = cuda.local.array(MAX_DIMS, numba.int64)
        x = cuda.threadIdx.x
        y = cuda.threadIdx.y
        d, da, db = len(out_shape), len(a_shape), len(b_shape)
        n, p, m = out_shape[d - 2], out_shape[d - 1], a_shape[da - 1]
        i = cuda.blockIdx.y * TILE + y
        j = cuda.blockIdx.x * TILE + x
        for batch in range(cuda.blockIdx.z, batches, cuda.gridDim.z):
            # Where matrix `batch` starts in each storage (broadcast batch dims).
            to_index(batch * n * p, out_shape, index)
            broadcast_index(index, out_shape, a_shape, a_index)
            broadcast_index(index, out_shape, b_shape, b_index)
            a_start = index_to_position(a_index, a_strides)
            b_start = index_to_position(b_index, b_strides)
            out_start = index_to_position(index, out_strides)
            total = 0.0
            for k0 in range(0, m, TILE):
                # One entry of each tile per thread, zero outside the matrices.
                k = k0 + x
                if i < n and k < m:
                    a_tile[y, x] = a_storage[
                        a_start + i * a_strides[da - 2] + k * a_strides[da - 1]
                    ]
                else:
                    a_tile[y, x] = 0.0
                k = k0 + y
                if k < m and j < p:
                    b_tile[y, x] = b_storage[
                        b_start + k * b_strides[db - 2] + j * b_strides[db - 1]
                    ]
                else:
                    b_tile[y, x] = 0.0
                cuda.syncthreads()
                for kk in range(TILE):
                    total += a_tile[y, kk] * b_tile[kk, x]
                cuda.syncthreads()
            if i < n and j < p:
                out[out_start + i * out_strides[d - 2] + j * out_strides[d - 1]] = total

    def run(out: Storage, out_shape: Shape, out_strides: Strides, *ab: Any) -> None:
        # ab = (a_storage, a_shape, a_strides, b_storage, b_shape, b_strides)
        n, p = int(out_shape[-2]), int(out_shape[-1])
        if n * p > 0:
            batches = _size(out_shape) // (n * p)
            grid = (blocks_for(p, TILE), blocks_for(n, TILE), min(batches, MAX_GRID))
            args = (out, out_shape, out_strides, *ab, batches)
            launch(_matmul, grid, (TILE, TILE), *args)

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


class CudaOps(TensorOps):
    """The CUDA backend's ops: Module 2's interface, kernels on the GPU (or in
    Numba's CUDA simulator)."""

    cuda = True

    @staticmethod
    def map(fn: Callable[[float], float]) -> MapFn:
        """See ``TensorOps.map``."""

        def apply(a: Any, out: Optional[Any] = None) -> Any:
            if out is None:
                out = a.new_zeros(a.shape)
            _check_dims(a.tuple()[1], out.tuple()[1])
            compiled(tensor_map, fn)(*out.tuple(), *a.tuple())
            return out

        return apply

    @staticmethod
    def zip(fn: Callable[[float, float], float]) -> ZipFn:
        """See ``TensorOps.zip``."""

        def apply(a: Any, b: Any) -> Any:
            shape = a.shape if a.shape == b.shape else shape_broadcast(a.shape, b.shape)
            out = a.new_zeros(shape)
            _check_dims(out.tuple()[1])
            compiled(tensor_zip, fn)(*out.tuple(), *a.tuple(), *b.tuple())
            return out

        return apply

    @staticmethod
    def reduce(fn: Callable[[float, float], float], start: float = 0.0) -> ReduceFn:
        """See ``TensorOps.reduce`` (``start`` must be an identity of ``fn``)."""

        def apply(a: Any, dim: int) -> Any:
            shape = list(a.shape)
            shape[dim] = 1
            out = a.new_full(tuple(shape), start)
            _check_dims(out.tuple()[1])
            compiled(tensor_reduce, fn)(*out.tuple(), *a.tuple(), dim)
            return out

        return apply

    @staticmethod
    def matrix_multiply(a: Any, b: Any) -> Any:
        """See ``TensorOps.matrix_multiply``."""
        out = a.new_zeros(matmul_shape(a.shape, b.shape))
        _check_dims(out.tuple()[1])
        compiled(tensor_matrix_multiply)(*out.tuple(), *a.tuple(), *b.tuple())
        return out


#: The CUDA backend: ``tensor(data, backend=CudaBackend)`` or ``t.to(CudaBackend)``.
CudaBackend = TensorBackend(CudaOps)
