"""Fast tensor kernels on the CPU with Numba: parallel map, zip and reduce (Task
3.1), and ``FastOps``, the backend they and Task 3.2's matrix multiply
(``fast_matmul.py``) make.

Module 2's ``SimpleOps`` runs a few Python function calls per tensor entry. Here the
same loops are compiled to machine code by Numba (``njit``) and spread over every CPU
core (``parallel=True`` with ``prange``). The kernels keep Module 2's interface
(flat float64 storage, shapes and strides as int64 arrays), so ``FastOps`` is a
drop-in replacement: ``FastBackend = TensorBackend(FastOps)``.

Each kernel *factory* (``tensor_map(fn)``, ``tensor_zip(fn)``, ``tensor_reduce(fn)``,
and ``tensor_matrix_multiply()`` of ``fast_matmul.py``) takes the scalar function and
returns a compiled kernel. Numba compiles a kernel the first time it is called, so
the ops class keeps every kernel it builds in a cache (``compiled``) and compiles
each one once per process. The compiled index helpers the kernels call
(:func:`to_index`, :func:`next_row`, :func:`broadcast_index`,
:func:`index_to_position`, :func:`workers_for`, :func:`last_step`, ...) are given,
in ``kernel_indexing.py``.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from numba import njit, prange

from module2_tensors._backend import TensorBackend
from module2_tensors.tensor_data import Shape, Storage, Strides

from ._dispatch import NumbaOps
from .fast_matmul import tensor_matrix_multiply
from .kernel_indexing import MapKernel, ReduceKernel, ZipKernel
from .kernel_indexing import broadcast_index, equal_arrays, index_to_position
from .kernel_indexing import kernel_size, last_step, next_row, to_index
from .kernel_indexing import workers_for

__all__ = ["tensor_map", "tensor_zip", "tensor_reduce", "FastOps", "FastBackend"]

# ---------------------------------------------------------------------------
# Task 3.1: parallel map, zip and reduce
# ---------------------------------------------------------------------------


def tensor_map(fn: Callable[[float], float]) -> MapKernel:
    """The parallel map kernel for ``fn``: $\\mathrm{out}[i] = fn(\\mathrm{in}[i])$.

    Returns ``_map(out, out_shape, out_strides, in_storage, in_shape, in_strides)``,
    compiled with ``njit(parallel=True)``, with the semantics of Module 2's
    ``tensor_map``: ``in_shape`` broadcasts to ``out_shape``, either side may have
    any strides, and ``out`` is filled in place.

    Hints:

    - compile ``fn`` with ``njit(inline="always")`` so the kernel can call it;
    - give each worker a slice of the entries of ``out`` and let it allocate its
      index buffers once for the whole slice, not once per entry;
    - **fast path**: when ``out`` and ``in`` have the same shape and the same strides
      and both storages hold exactly ``size`` entries, entry ``i`` of the storage of
      one is entry ``i`` of the other: loop over storage positions, no indices;
    - general path: the index arithmetic (Module 2's compiled :func:`to_index`,
      :func:`broadcast_index`, :func:`index_to_position`) is needed only where a
      *run* along the last dimension starts; along the run, positions in ``out``
      and ``in`` move by constant steps (:func:`last_step`); each run after a
      slice's first starts the next row (:func:`next_row` counts the index on
      without :func:`to_index`'s divisions);
    - :func:`workers_for` says how many slices the work is worth (one for small
      work: waking threads costs more); run the slices in a ``prange`` loop. No
      ``return`` or ``raise`` inside a ``prange`` body (Numba would run it
      serially), and no two workers may write the same entry.
    """
    # BEGIN SOLUTION 3.1: tensor_map (see the hints above and the module README)
    f = njit(inline="always")(fn)

    @njit
    def map_slice(
        lo: int,
        hi: int,
        aligned: bool,
        out: Storage,
        out_shape: Shape,
        out_strides: Strides,
        in_storage: Storage,
        in_shape: Shape,
        in_strides: Strides,
    ) -> None:
        if aligned:
            # Same layout: storage position i of one is position i of the other.
            # (Views of the slice, indexed from 0: the compiler then knows that no
            # index is negative, and turns the loop into vector instructions.)
            out_run, in_run = out[lo:hi], in_storage[lo:hi]
            for i in range(hi - lo):
                out_run[i] = f(in_run[i])
            return
        # This worker's buffers, reused for every entry of its slice.
        out_index = np.empty(len(out_shape), np.int64)
        in_index = np.empty(len(in_shape), np.int64)
        d = len(out_shape)
        last = out_shape[d - 1] if d > 0 else 1
        out_step = last_step(out_shape, out_strides)
        in_step = last_step(in_shape, in_strides)
        ordinal = lo
        if lo < hi:  # (an empty tensor has no index)
            to_index(lo, out_shape, out_index)
        while ordinal < hi:
            # Index arithmetic once per run along the last dimension, then
            # constant steps; the next run starts the next row.
            broadcast_index(out_index, out_shape, in_shape, in_index)
            o = index_to_position(out_index, out_strides)
            i = index_to_position(in_index, in_strides)
            run = min(last - (out_index[d - 1] if d > 0 else 0), hi - ordinal)
            next_row(out_index, out_shape)
            for j in range(run):
                out[o + j * out_step] = f(in_storage[i + j * in_step])
            ordinal += run

    def _map(
        out: Storage,
        out_shape: Shape,
        out_strides: Strides,
        in_storage: Storage,
        in_shape: Shape,
        in_strides: Strides,
    ) -> None:
        size = kernel_size(out_shape)
        aligned = (
            len(out) == size
            and len(in_storage) == size
            and equal_arrays(out_shape, in_shape)
            and equal_arrays(out_strides, in_strides)
        )
        args = (out, out_shape, out_strides, in_storage, in_shape, in_strides)
        workers = workers_for(size)
        if workers == 1:
            map_slice(0, size, aligned, *args)
        else:
            for w in prange(workers):
                lo, hi = w * size // workers, (w + 1) * size // workers
                map_slice(lo, hi, aligned, *args)

    return njit(parallel=True)(_map)
    # END SOLUTION


def tensor_zip(fn: Callable[[float, float], float]) -> ZipKernel:
    """The parallel zip kernel for ``fn``: $\\mathrm{out}[i] = fn(a[i], b[i])$.

    Returns ``_zip(out, out_shape, out_strides, a_storage, a_shape, a_strides,
    b_storage, b_shape, b_strides)``, compiled with ``njit(parallel=True)``, with
    the semantics of Module 2's ``tensor_zip`` (both inputs broadcast to
    ``out_shape``).

    Hints: as :func:`tensor_map`; the fast path needs all three tensors aligned
    (same shape, same strides, storages of exactly ``size`` entries). A second fast
    path pays off too: one input a single number (a storage of one entry, such as
    the 0-d tensor of ``x * 2.0``) beside the other aligned with ``out``; read the
    number once and loop over storage positions.
    """
    # BEGIN SOLUTION 3.1: tensor_zip, as tensor_map with two broadcast inputs
    f = njit(inline="always")(fn)
    # The paths _zip chooses between, one per call (compile-time constants).
    GENERAL, ALIGNED, NUMBER_A, NUMBER_B = 0, 1, 2, 3

    @njit
    def zip_slice(
        lo: int,
        hi: int,
        path: int,
        out: Storage,
        out_shape: Shape,
        out_strides: Strides,
        a_storage: Storage,
        a_shape: Shape,
        a_strides: Strides,
        b_storage: Storage,
        b_shape: Shape,
        b_strides: Strides,
    ) -> None:
        if path == ALIGNED:
            out_run, a_run, b_run = out[lo:hi], a_storage[lo:hi], b_storage[lo:hi]
            for i in range(hi - lo):
                out_run[i] = f(a_run[i], b_run[i])
            return
        if path == NUMBER_B:  # b is one number: read it once
            out_run, a_run, y = out[lo:hi], a_storage[lo:hi], b_storage[0]
            for i in range(hi - lo):
                out_run[i] = f(a_run[i], y)
            return
        if path == NUMBER_A:
            out_run, x, b_run = out[lo:hi], a_storage[0], b_storage[lo:hi]
            for i in range(hi - lo):
                out_run[i] = f(x, b_run[i])
            return
        out_index = np.empty(len(out_shape), np.int64)
        a_index = np.empty(len(a_shape), np.int64)
        b_index = np.empty(len(b_shape), np.int64)
        d = len(out_shape)
        last = out_shape[d - 1] if d > 0 else 1
        out_step = last_step(out_shape, out_strides)
        a_step = last_step(a_shape, a_strides)
        b_step = last_step(b_shape, b_strides)
        # All three runs contiguous (a row plus a broadcast row, say x + bias):
        # the runs are then read as views, which become vector instructions.
        contiguous = out_step == 1 and a_step == 1 and b_step == 1
        ordinal = lo
        if lo < hi:  # (an empty tensor has no index)
            to_index(lo, out_shape, out_index)
        while ordinal < hi:
            broadcast_index(out_index, out_shape, a_shape, a_index)
            broadcast_index(out_index, out_shape, b_shape, b_index)
            o = index_to_position(out_index, out_strides)
            x = index_to_position(a_index, a_strides)
            y = index_to_position(b_index, b_strides)
            run = min(last - (out_index[d - 1] if d > 0 else 0), hi - ordinal)
            # The next run starts the next row (no to_index: no divisions); an
            # input with step 0 along the run (a column: x - mean) is one number
            # a run, so that loop is read as views too. Measured, one thread,
            # against to_index every run and the strided loop: (128, 20, 48) +
            # (128, 20, 1) 0.66 -> 0.19 ms, (32, 16, 28, 28) + (16, 1, 1) 2.10
            # -> 0.91 ms (NumPy 0.25, 0.73).
            next_row(out_index, out_shape)
            out_run = out[o : o + run]  # (read where out_step is 1)
            if contiguous:
                a_run, b_run = a_storage[x : x + run], b_storage[y : y + run]
                for j in range(run):
                    out_run[j] = f(a_run[j], b_run[j])
            elif out_step == 1 and a_step == 1 and b_step == 0:  # b one number
                a_run, v = a_storage[x : x + run], b_storage[y]
                for j in range(run):
                    out_run[j] = f(a_run[j], v)
            elif out_step == 1 and a_step == 0 and b_step == 1:  # a one number
                u, b_run = a_storage[x], b_storage[y : y + run]
                for j in range(run):
                    out_run[j] = f(u, b_run[j])
            else:
                for j in range(run):
                    out[o + j * out_step] = f(
                        a_storage[x + j * a_step], b_storage[y + j * b_step]
                    )
            ordinal += run

    def _zip(
        out: Storage,
        out_shape: Shape,
        out_strides: Strides,
        a_storage: Storage,
        a_shape: Shape,
        a_strides: Strides,
        b_storage: Storage,
        b_shape: Shape,
        b_strides: Strides,
    ) -> None:
        size = kernel_size(out_shape)
        # Which fast path: both inputs laid out as out (ALIGNED), or one of them a
        # single number (a 0-d tensor, say: x * 2.0) beside the other laid out as
        # out; else the general path (GENERAL).
        a_like = (
            len(out) == size
            and len(a_storage) == size
            and equal_arrays(out_shape, a_shape)
            and equal_arrays(out_strides, a_strides)
        )
        b_like = (
            len(out) == size
            and len(b_storage) == size
            and equal_arrays(out_shape, b_shape)
            and equal_arrays(out_strides, b_strides)
        )
        path = GENERAL
        if a_like and b_like:
            path = ALIGNED
        elif a_like and len(b_storage) == 1:
            path = NUMBER_B
        elif b_like and len(a_storage) == 1:
            path = NUMBER_A
        args = (out, out_shape, out_strides, a_storage, a_shape, a_strides)
        args_b = (b_storage, b_shape, b_strides)
        workers = workers_for(size)
        if workers == 1:
            zip_slice(0, size, path, *args, *args_b)
        else:
            for w in prange(workers):
                lo, hi = w * size // workers, (w + 1) * size // workers
                zip_slice(lo, hi, path, *args, *args_b)

    return njit(parallel=True)(_zip)
    # END SOLUTION


def tensor_reduce(fn: Callable[[float, float], float]) -> ReduceKernel:
    """The parallel reduce kernel for ``fn`` along one dimension.

    Returns ``_reduce(out, out_shape, out_strides, a_storage, a_shape, a_strides,
    reduce_dim)``, compiled with ``njit(parallel=True)``, with the semantics of
    Module 2's ``tensor_reduce``: ``out_shape`` is ``a_shape`` with a 1 at
    ``reduce_dim``, ``out`` already holds the start value, and for every entry of
    ``out``

    $$\\mathrm{out}[\\dots, 0, \\dots] \\leftarrow fn(\\dots fn(fn(s, a[\\dots, 0,
    \\dots]), a[\\dots, 1, \\dots]) \\dots, a[\\dots, n-1, \\dots]).$$

    Hints: split the entries of ``out`` into slices, one per worker, as in
    :func:`tensor_map` (the work is ``size(a)``). For one entry, find the position
    in ``a`` of its first input once; the next input is ``a_strides[reduce_dim]``
    further on. Keep the running value in a local variable and write ``out`` once:
    the inner loop has no index arithmetic, no function call (``fn`` is inlined)
    and no write to memory.

    Optional, for speed: each sum above is a chain of dependent additions, one
    after the other. When ``reduce_dim`` is not the last dim and both tensors run
    contiguously along the last, sum a whole run of entries of ``out`` at once
    instead (input row after input row added into the run): the same additions in
    the same order, but many chains advance together, in vector instructions.
    """
    # BEGIN SOLUTION 3.1: tensor_reduce (a local accumulator, one write per entry)
    f = njit(inline="always")(fn)

    @njit
    def reduce_slice(
        lo: int,
        hi: int,
        out: Storage,
        out_shape: Shape,
        out_strides: Strides,
        a_storage: Storage,
        a_shape: Shape,
        a_strides: Strides,
        reduce_dim: int,
    ) -> None:
        length = a_shape[reduce_dim]
        step = a_strides[reduce_dim]
        out_index = np.empty(len(out_shape), np.int64)
        d = len(out_shape)
        if reduce_dim < d - 1 and out_strides[d - 1] == 1 and a_strides[d - 1] == 1:
            # Reducing a dim other than the last, both laid out contiguously along
            # the last (a bias's gradient: the sum over the rows of a matrix): a
            # whole run of entries along the last dim at once, adding input row
            # after input row into it. The same sums in the same order as below,
            # but the run is what becomes vector instructions.
            last = out_shape[d - 1]
            ordinal = lo
            while ordinal < hi:
                to_index(ordinal, out_shape, out_index)
                target = index_to_position(out_index, out_strides)
                position = index_to_position(out_index, a_strides)
                run = min(last - out_index[d - 1], hi - ordinal)
                out_run = out[target : target + run]
                for _ in range(length):
                    a_run = a_storage[position : position + run]
                    for j in range(run):
                        out_run[j] = f(out_run[j], a_run[j])
                    position += step
                ordinal += run
            return
        for ordinal in range(lo, hi):
            to_index(ordinal, out_shape, out_index)
            target = index_to_position(out_index, out_strides)
            # out_index[reduce_dim] is 0: this is the first input's position.
            position = index_to_position(out_index, a_strides)
            accumulated = out[target]
            for _ in range(length):
                accumulated = f(accumulated, a_storage[position])
                position += step
            out[target] = accumulated

    def _reduce(
        out: Storage,
        out_shape: Shape,
        out_strides: Strides,
        a_storage: Storage,
        a_shape: Shape,
        a_strides: Strides,
        reduce_dim: int,
    ) -> None:
        size = kernel_size(out_shape)
        args = (out, out_shape, out_strides, a_storage, a_shape, a_strides)
        workers = min(workers_for(kernel_size(a_shape)), size)
        if workers <= 1:
            reduce_slice(0, size, *args, reduce_dim)
        else:
            for w in prange(workers):
                lo, hi = w * size // workers, (w + 1) * size // workers
                reduce_slice(lo, hi, *args, reduce_dim)

    return njit(parallel=True)(_reduce)
    # END SOLUTION


# ---------------------------------------------------------------------------
# Given: the ops class and the backend
# ---------------------------------------------------------------------------


class FastOps(NumbaOps):
    """The Numba backend's ops: Module 2's ``TensorOps`` interface on the kernels
    that the three factories above and ``tensor_matrix_multiply`` (Task 3.2,
    ``fast_matmul.py``) build.

    ``FastOps.map(fn)`` returns the function that ``TensorBackend`` calls for each
    operation; at its first call it builds ``tensor_map(fn)`` (so a stubbed task
    fails where it is used, not at import), once per process, and keeps its machine
    code on disk for the next runs. Each call then allocates the output and runs the
    kernel on the raw storages, shapes and strides. (The dispatcher,
    ``_dispatch.py``, does this; you need not read it.)
    """

    map_kernel = tensor_map
    zip_kernel = tensor_zip
    reduce_kernel = tensor_reduce
    matmul_kernel = tensor_matrix_multiply


#: The Numba backend: ``tensor(data, backend=FastBackend)`` or ``t.to(FastBackend)``.
FastBackend = TensorBackend(FastOps)
