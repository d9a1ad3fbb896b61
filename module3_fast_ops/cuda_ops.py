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
launches the kernel with :func:`launch`. The map, zip and reduce kernels get every
shape and stride packed in ONE small device array, :func:`layout`: on a GPU each
array argument is seven kernel parameters and some Python work per launch. Tensors
on ``CudaBackend`` keep their storage in GPU memory (``_cuda_runtime.py``), so the
storages usually are device arrays already; ``launch`` copies only what is still on
the host.
"""

from __future__ import annotations

from typing import Any, Callable, Dict

import numba
import numpy as np

from module2_tensors._backend import TensorBackend
from module2_tensors.tensor_data import Shape, Storage, Strides

# The runtime that runs your kernels (you need not read it): ``cuda`` is
# ``numba.cuda``; ``launch(kernel, grid, block, out, *args)`` runs
# ``kernel[grid, block](out, *args)`` once ``check_launch`` has accepted the grid
# and block (it raises ValueError, naming the limit, for a launch a GPU refuses),
# copying host arrays to the GPU (and ``out`` back); ``compiled(factory, fn)``
# builds ``factory(fn)`` once per process; ``_size(shape)`` is the entry count.
from ._cuda_runtime import MAX_GRID, SIMULATOR, CudaKernelOps, _size, compiled
from ._cuda_runtime import cuda, launch

# Given, in _cuda_runtime.py: layout(out_shape, out_strides, *inputs) packs the
# shapes and strides of a launch into one int64 device array (cached by content):
# [d, out_shape, out_strides, strides of each input as out sees them (0 where it
# broadcasts)], read by two_positions and three_positions.
# Given there too: aligned(out, out_shape, out_strides, *inputs) is True when out
# and every (storage, shape, strides) input share one gap-free layout, so storage
# position i of one is position i of the others.
from ._cuda_runtime import aligned, layout  # noqa: F401 (for Task 3.3)

# Given, in cuda_positions.py (device functions: call them inside a kernel):
# two_positions(ordinal, packed) -> (position in out, position in the input) of
# entry number ``ordinal`` of out (row-major), from a layout of out and one input;
# three_positions(ordinal, packed) -> (in out, in a, in b), the same for two
# inputs; blocks_for(size, threads) = ceil(size / threads) blocks.
from .cuda_positions import blocks_for, three_positions, two_positions  # noqa: F401
from .kernel_indexing import MapKernel, MatMulKernel, ReduceKernel, ZipKernel

__all__ = [
    "THREADS_PER_BLOCK",
    "PRACTICE_THREADS",
    "PRACTICE_TILE",
    "TILE_ROWS",
    "TILE_COLS",
    "TILE_K",
    "WORK_ROWS",
    "WORK_COLS",
    "MATMUL_OPTIONS",
    "tensor_map",
    "tensor_zip",
    "tensor_reduce",
    "sum_practice_kernel",
    "sum_practice",
    "mm_practice_kernel",
    "mm_practice",
    "tensor_matrix_multiply",
    "CudaOps",
    "CudaBackend",
]

#: Threads per block of the map, zip and reduce kernels (a power of two: the
#: reduce's tree halves it).
THREADS_PER_BLOCK: int = 8 if SIMULATOR else 256
#: Threads per block of ``sum_practice`` (so also the size of the sums it returns).
PRACTICE_THREADS: int = 32
#: Side of the one-block ``mm_practice`` (a block of PRACTICE_TILE^2 threads; at most
#: 32, since a block has at most 1024 threads).
PRACTICE_TILE: int = 8 if SIMULATOR else 32
#: ``TILE_ROWS``, ``TILE_COLS``: rows and columns of the tile of ``out`` that one
#: block of the matrix multiply computes; ``TILE_K``: the depth of the ``k`` steps
#: it walks (a ``TILE_ROWS x TILE_K`` tile of ``a`` and a ``TILE_K x TILE_COLS``
#: tile of ``b`` in shared memory).
TILE_ROWS, TILE_COLS, TILE_K = (8, 8, 4) if SIMULATOR else (128, 64, 8)
#: Rows and columns of the group of ``out`` entries that one thread of the matrix
#: multiply computes (kept in registers: *register blocking*). A block has
#: ``(TILE_COLS // WORK_COLS, TILE_ROWS // WORK_ROWS)`` threads: (16, 16) on a GPU,
#: (4, 2) in the simulator.
WORK_ROWS, WORK_COLS = (4, 2) if SIMULATOR else (8, 4)
#: Options of the matrix-multiply kernel: ``@cuda.jit(**MATMUL_OPTIONS)``. On a GPU,
#: *launch bounds* promise at most 256 threads per block (16 x 16) and ask for room
#: for 2 blocks per SM, so the compiler keeps a thread to 128 registers (a thread's
#: 32 running sums alone take 64). The simulator takes no such option.
MATMUL_OPTIONS: Dict[str, Any] = {} if SIMULATOR else {"launch_bounds": (256, 2)}

# ---------------------------------------------------------------------------
# Task 3.3: map, zip, reduce, and a block sum in shared memory
# ---------------------------------------------------------------------------


def tensor_map(fn: Callable[[float], float]) -> MapKernel:
    """The CUDA map: $\\mathrm{out}[i] = fn(\\mathrm{in}[i])$, one thread per entry
    of ``out``.

    Returns ``run(out, out_shape, out_strides, in_storage, in_shape, in_strides)``
    with the semantics of Module 2's ``tensor_map`` (broadcasting, any strides),
    which launches the kernel over enough blocks of ``THREADS_PER_BLOCK`` threads.
    The ``@cuda.jit`` kernel itself takes ``(out, size, same, packed,
    in_storage)``: ``size`` is the number of entries of ``out`` (an int), ``same``
    what :func:`aligned` says (a bool) and ``packed`` what :func:`layout` packs of
    the shapes and strides (an int64 array): three arrays, not six, since on a GPU
    every array argument costs seven kernel parameters and host time at each
    launch. Keep that order: ``kindling kernels`` and the resource tests compile
    your kernel for a GPU with exactly these argument types.

    Hints:

    - compile ``fn`` for the GPU with ``cuda.jit(device=True)``; the kernel is a
      ``@cuda.jit`` function; launch it with :func:`launch`;
    - thread ``i = cuda.grid(1)`` computes entry number ``i`` (row-major) of
      ``out``; threads with ``i >= size`` (the last block is rarely full) do
      nothing;
    - find storage positions with the given device function
      :func:`two_positions` (``out`` and the input from one decomposition of
      ``i``): no index arrays, whose per-thread copies a real GPU keeps in slow
      local memory;
    - fast path: when :func:`aligned`, thread ``i`` reads and writes storage
      position ``i`` (neighbouring threads touch neighbouring addresses, which the
      GPU merges into one memory transaction: *coalescing*).
    """
    # BEGIN SOLUTION 3.3: CUDA tensor_map, one thread per entry, and its launch
    f = cuda.jit(device=True)(fn)

    @cuda.jit
    def _map(out, size, same, packed, in_storage):
        i = cuda.grid(1)
        if i >= size:
            return
        if same:
            out[i] = f(in_storage[i])
            return
        target, source = two_positions(i, packed)
        out[target] = f(in_storage[source])

    def run(out: Storage, out_shape: Shape, out_strides: Strides, *inp: Any) -> None:
        # inp = (in_storage, in_shape, in_strides)
        size = _size(out_shape)
        if size > 0:
            same = aligned(out, out_shape, out_strides, *inp)
            packed = layout(out_shape, out_strides, *inp)
            grid = blocks_for(size, THREADS_PER_BLOCK)
            launch(_map, grid, THREADS_PER_BLOCK, out, size, same, packed, inp[0])

    return run
    # END SOLUTION


def tensor_zip(fn: Callable[[float, float], float]) -> ZipKernel:
    """The CUDA zip: $\\mathrm{out}[i] = fn(a[i], b[i])$, one thread per entry of
    ``out``, with the semantics of Module 2's ``tensor_zip``.

    Returns ``run(out, out_shape, out_strides, a_storage, a_shape, a_strides,
    b_storage, b_shape, b_strides)``; its kernel takes ``(out, size, same, packed,
    a_storage, b_storage)``, ``packed`` the :func:`layout` of ``out``, ``a`` and
    ``b``. Hints: as :func:`tensor_map`, with :func:`three_positions`.
    """
    # BEGIN SOLUTION 3.3: CUDA tensor_zip, as tensor_map with two broadcast inputs
    f = cuda.jit(device=True)(fn)

    @cuda.jit
    def _zip(out, size, same, packed, a_storage, b_storage):
        i = cuda.grid(1)
        if i >= size:
            return
        if same:
            out[i] = f(a_storage[i], b_storage[i])
            return
        target, x, y = three_positions(i, packed)
        out[target] = f(a_storage[x], b_storage[y])

    def run(out: Storage, out_shape: Shape, out_strides: Strides, *ab: Any) -> None:
        # ab = (a_storage, a_shape, a_strides, b_storage, b_shape, b_strides)
        size = _size(out_shape)
        if size > 0:
            same = aligned(out, out_shape, out_strides, *ab)
            packed = layout(out_shape, out_strides, *ab)
            grid = blocks_for(size, THREADS_PER_BLOCK)
            args = (out, size, same, packed, ab[0], ab[3])
            launch(_zip, grid, THREADS_PER_BLOCK, *args)

    return run
    # END SOLUTION


def tensor_reduce(fn: Callable[[float, float], float]) -> ReduceKernel:
    """The CUDA reduce along one dimension: one *block* per entry of ``out``.

    Returns ``run(out, out_shape, out_strides, a_storage, a_shape, a_strides,
    reduce_dim, start)`` with the semantics of Module 2's ``tensor_reduce``, except
    that the start value comes as the argument ``start`` (``out`` is handed out
    uninitialised: filling it first would cost a second launch per reduce), and it
    must be an *identity* of ``fn`` ($0$ for add, $1$ for mul, $-\\infty$ for max),
    because every thread starts from it. Its kernel takes ``(out, packed,
    a_storage, length, step, start)`` (the order the resource tests compile it
    with): ``packed`` is the :func:`layout` of ``out`` and ``a``, ``length`` and
    ``step`` the size and the stride of ``a`` along the reduced dimension (ints);
    it writes every entry of ``out``, never reads one.

    Hints: launch ``size(out)`` blocks of ``THREADS_PER_BLOCK`` threads. Block ``o``
    computes entry number ``o`` of ``out``: :func:`two_positions` of ``o`` gives
    its position in ``out`` and, since its index is 0 along the reduced dimension,
    where its first input lies in ``a``; its inputs are ``step`` apart. Thread
    ``t`` folds the inputs ``t, t + blockDim, t + 2 blockDim, ...`` of the reduced
    dimension into a local value (neighbouring threads read neighbouring inputs),
    writes it to a ``cuda.shared.array``, then the block combines the values in a
    tree: half the threads combine the other half's value
    with theirs, ``cuda.syncthreads()``, and again with a quarter, ... until thread
    0 holds the result and writes it to ``out``. Every thread of the block must
    reach every ``syncthreads`` (no early ``return`` before it).
    """
    # BEGIN SOLUTION 3.3: CUDA tensor_reduce, one block per entry, tree in shared memory
    f = cuda.jit(device=True)(fn)

    @cuda.jit
    def _reduce(out, packed, a_storage, length, step, start):
        partial = cuda.shared.array(THREADS_PER_BLOCK, numba.float64)
        t = cuda.threadIdx.x
        o = cuda.blockIdx.x
        target, first = two_positions(o, packed)
        value = start
        j = t
        while j < length:
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
        # a = (a_storage, a_shape, a_strides, reduce_dim, start)
        a_storage, a_shape, a_strides, dim, start = a
        size = _size(out_shape)
        if size > 0:  # one block per entry of out
            packed = layout(out_shape, out_strides, a_storage, a_shape, a_strides)
            length, step = int(a_shape[dim]), int(a_strides[dim])
            args = (out, packed, a_storage, length, step, start)
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
        args = (out.tuple()[0], np.ascontiguousarray(a.to_numpy()), size)
        launch(compiled(sum_practice_kernel), blocks, PRACTICE_THREADS, *args)
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
        values = [np.ascontiguousarray(t.to_numpy()).ravel() for t in (a, b)]
        block = (PRACTICE_TILE, PRACTICE_TILE)
        launch(compiled(mm_practice_kernel), 1, block, out.tuple()[0], *values, size)
    return out


def tensor_matrix_multiply() -> MatMulKernel:
    """The CUDA batched matrix multiply, tiled in shared memory and blocked in
    registers:

    $$\\mathrm{out}[\\dots, i, j] = \\sum_k a[\\dots, i, k]\\, b[\\dots, k, j]$$

    Returns ``run(out, out_shape, out_strides, a_storage, a_shape, a_strides,
    b_storage, b_shape, b_strides)`` with the semantics of Module 2's
    ``tensor_matrix_multiply`` (broadcast batch dimensions, any strides, any sizes)
    but one: ``out`` is **not** zeroed on entry (GPU memory is handed out as it is,
    which saves a pass), so write each entry once, with ``=``, never ``+=``. The
    ``@cuda.jit`` kernel takes ``(out, packed, a_storage, b_storage, m,
    batches)``: ``packed`` is the :func:`layout` of ``out``, ``a`` and ``b`` (as
    for the zip: ``out``'s shape and strides, then ``a``'s and ``b``'s strides as
    ``out`` sees them, so entry ``d - 1`` of ``a``'s is its row stride and entry
    ``d`` its ``k`` stride), ``m`` the inner size (``a``'s last dimension) and
    ``batches`` the number of matrices in ``out`` (the product of its batch
    dimensions; ints): ``kindling kernels`` and the resource tests compile it
    with these types.

    The ideas, from the practice kernel to a fast one:

    - *tiling*: a block of threads computes a tile of ``out``; it walks ``k`` in
      steps, loading a tile of ``a`` and a tile of ``b`` into shared memory once
      for the whole block (``syncthreads`` before using them and before
      overwriting them), so each number is read from global memory once per
      block, not once per thread (you did this in :func:`mm_practice_kernel`);
    - *register blocking*: let each thread compute a small group of entries of
      ``out`` instead of one, its running sums in a ``cuda.local.array`` indexed
      only by loop counters over constant ranges (so the compiler keeps it in
      registers): a group of $R \\times C$ entries needs $R + C$ numbers from
      shared memory per step of ``k`` for $R C$ multiply-adds;
    - *loading together*: every thread of the block helps load both tiles
      (number the threads $0 \\dots T - 1$ and let thread ``t`` load entries
      ``t, t + T, ...`` of each tile, counted row by row), so the tiles need not
      have the block's shape;
    - *coalescing*: neighbouring threads (along ``threadIdx.x``) should read and
      write neighbouring addresses, so run that axis along the last dimension;
    - any size: load 0 past the edge of a matrix; any batch: find where each
      matrix starts in ``out``, ``a`` and ``b`` with :func:`three_positions` of
      the number of its first entry (a broadcast batch dimension has stride 0);
    - limits: a grid's ``y`` and ``z`` dimensions are at most ``MAX_GRID`` (a GPU
      refuses more, and :func:`launch` says so), so a block may have to handle
      several tiles or batches;
    - registers: the resource test wants no spills and two blocks per SM (at
      most 128 registers a thread at 256 threads; the sums alone take 64), and
      ``kindling kernels`` shows where you stand. What costs registers is every
      value a thread keeps alive through the ``k`` loop, and every index the
      compiler cannot prove non-negative (Numba wraps negative indices, as NumPy
      does, with code per index): give the shared tiles a shape in which a
      thread's reads differ only by constants, hold one number of ``a`` at a
      time in the innermost loop, and look up where ``out`` lies only after
      the loop.

    The constants above (``TILE_ROWS``, ``TILE_COLS``, ``TILE_K``, ``WORK_ROWS``,
    ``WORK_COLS``, ``MATMUL_OPTIONS``) are one good choice on a GPU; decorate the
    kernel with ``@cuda.jit(**MATMUL_OPTIONS)``, launch it with blocks of
    ``(TILE_COLS // WORK_COLS, TILE_ROWS // WORK_ROWS)`` threads, and check what it
    costs a GPU with ``kindling kernels --task 3.4``.
    """

    # BEGIN SOLUTION 3.4: the tiled, register-blocked batched matmul and its launch
    # Thread (x, y) owns the rows y + r * DOWN and the columns x + c * ACROSS of its
    # block's tile (r < WORK_ROWS, c < WORK_COLS): neighbouring threads write
    # neighbouring columns, and read neighbouring entries of the b tile.
    ACROSS, DOWN = TILE_COLS // WORK_COLS, TILE_ROWS // WORK_ROWS
    THREADS = ACROSS * DOWN
    A_ENTRIES, B_ENTRIES = TILE_ROWS * TILE_K, TILE_K * TILE_COLS
    A_LOADS = (A_ENTRIES + THREADS - 1) // THREADS  # per thread, per k step
    B_LOADS = (B_ENTRIES + THREADS - 1) // THREADS
    # When the threads divide a tile evenly, no load falls past its end.
    A_EVEN, B_EVEN = A_ENTRIES % THREADS == 0, B_ENTRIES % THREADS == 0

    @cuda.jit(**MATMUL_OPTIONS)
    def _matmul(out, packed, a_storage, b_storage, m, batches):
        # Row y + r * DOWN of the a tile is a_tile[r, y], column x + c * ACROSS of
        # the b tile is b_tile[c, x]: the thread's reads then differ by constant
        # offsets, one address register for all of them.
        a_tile = cuda.shared.array((WORK_ROWS, DOWN, TILE_K), numba.float64)
        b_tile = cuda.shared.array((TILE_K, WORK_COLS, ACROSS), numba.float64)
        acc = cuda.local.array((WORK_ROWS, WORK_COLS), numba.float64)
        b_row = cuda.local.array(WORK_COLS, numba.float64)
        # "& 1023" changes nothing (a block has at most 1024 threads along x or y)
        # but tells the compiler that x and y are never negative, so it drops
        # Numba's wraparound of negative indices from the tile indices below:
        # fewer registers (ptxas: 168 instead of 192 without launch bounds).
        x = cuda.threadIdx.x & 1023
        y = cuda.threadIdx.y & 1023
        t = y * ACROSS + x
        # packed: [d, out_shape, out_strides, a's strides, b's strides], each d
        # long; the last two entries of each are the matrices' own.
        d = packed[0]
        n, p = packed[d - 1], packed[d]
        a_si, a_sk = packed[3 * d - 1], packed[3 * d]
        b_sk, b_sj = packed[4 * d - 1], packed[4 * d]
        j0 = cuda.blockIdx.x * TILE_COLS
        row_tiles = (n + TILE_ROWS - 1) // TILE_ROWS
        for by in range(cuda.blockIdx.y, row_tiles, cuda.gridDim.y):
            i0 = by * TILE_ROWS
            for batch in range(cuda.blockIdx.z, batches, cuda.gridDim.z):
                first = batch * n * p
                # Where this block's rows of a and columns of b start.
                _, a_first, b_first = three_positions(first, packed)
                a_first += i0 * a_si
                b_first += j0 * b_sj
                for r in range(WORK_ROWS):
                    for c in range(WORK_COLS):
                        acc[r, c] = 0.0
                for k0 in range(0, m, TILE_K):
                    # Entry e of a tile, row by row: consecutive threads load
                    # consecutive k of a row of a, consecutive j of a row of b.
                    for q in range(A_LOADS):
                        e = t + q * THREADS
                        if A_EVEN or e < A_ENTRIES:
                            row, kk = e // TILE_K, e % TILE_K
                            i, k = i0 + row, k0 + kk
                            value = 0.0
                            if i < n and k < m:
                                value = a_storage[a_first + row * a_si + k * a_sk]
                            a_tile[row // DOWN, row % DOWN, kk] = value
                    for q in range(B_LOADS):
                        e = t + q * THREADS
                        if B_EVEN or e < B_ENTRIES:
                            kk, col = e // TILE_COLS, e % TILE_COLS
                            k, j = k0 + kk, j0 + col
                            value = 0.0
                            if k < m and j < p:
                                value = b_storage[b_first + k * b_sk + col * b_sj]
                            b_tile[kk, col // ACROSS, col % ACROSS] = value
                    cuda.syncthreads()
                    for kk in range(TILE_K):
                        for c in range(WORK_COLS):
                            b_row[c] = b_tile[kk, c, x]
                        for r in range(WORK_ROWS):
                            a_value = a_tile[r, y, kk]
                            for c in range(WORK_COLS):
                                acc[r, c] += a_value * b_row[c]
                    cuda.syncthreads()
                # Read where out lies only now: fewer values held through the loop.
                out_start, _, _ = three_positions(first, packed)
                o_si, o_sj = packed[2 * d - 1], packed[2 * d]
                for r in range(WORK_ROWS):
                    i = i0 + y + r * DOWN
                    for c in range(WORK_COLS):
                        j = j0 + x + c * ACROSS
                        if i < n and j < p:
                            out[out_start + i * o_si + j * o_sj] = acc[r, c]

    def run(out: Storage, out_shape: Shape, out_strides: Strides, *ab: Any) -> None:
        # ab = (a_storage, a_shape, a_strides, b_storage, b_shape, b_strides)
        n, p = int(out_shape[-2]), int(out_shape[-1])
        if n * p > 0:
            batches = _size(out_shape) // (n * p)
            rows = min(blocks_for(n, TILE_ROWS), MAX_GRID)
            grid = (blocks_for(p, TILE_COLS), rows, min(batches, MAX_GRID))
            packed = layout(out_shape, out_strides, *ab)
            args = (out, packed, ab[0], ab[3], int(ab[1][-1]), batches)
            launch(_matmul, grid, (ACROSS, DOWN), *args)

    return run
    # END SOLUTION


# ---------------------------------------------------------------------------
# Given: the ops class and the backend
# ---------------------------------------------------------------------------


class CudaOps(CudaKernelOps):
    """The CUDA backend's ops: Module 2's ``TensorOps`` interface on the kernels
    that the four factories above build (each built once per process, at its first
    use), with every result in GPU memory: a tensor on ``CudaBackend`` keeps its
    storage on the GPU, and only ``.to()``, ``to_numpy()``, ``item()`` and printing
    copy it back. (The runtime, ``_cuda_runtime.py``, does this; you need not read
    it.)"""

    map_kernel = tensor_map
    zip_kernel = tensor_zip
    reduce_kernel = tensor_reduce
    matmul_kernel = tensor_matrix_multiply


#: The CUDA backend: ``tensor(data, backend=CudaBackend)`` or ``t.to(CudaBackend)``.
CudaBackend = TensorBackend(CudaOps)
