"""Given: what the CPU kernels of Tasks 3.1 (``fast_ops.py``) and 3.2
(``fast_matmul.py``) share: their signatures, Module 2's index arithmetic compiled
by Numba, and how many slices (``prange`` iterations) a kernel's work is split into.

Every function here is compiled with ``njit``, so a kernel calls it like any
function and the compiler inlines it into the kernel's machine code.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from numba import njit

from module2_tensors import tensor_data
from module2_tensors.tensor_data import Shape, Storage, Strides

MapKernel = Callable[[Storage, Shape, Strides, Storage, Shape, Strides], None]
ZipKernel = Callable[
    [Storage, Shape, Strides, Storage, Shape, Strides, Storage, Shape, Strides], None
]
ReduceKernel = Callable[[Storage, Shape, Strides, Storage, Shape, Strides, int], None]
MatMulKernel = ZipKernel

# ---------------------------------------------------------------------------
# Given: Module 2's index helpers, compiled. LLVM inlines ``to_index`` and
# ``index_to_position`` into the kernels' machine code by itself, so an index costs
# a few integer operations. Numba's ``inline="always"`` pastes a helper in before
# typing instead, so every kernel instance (one per scalar function) types and
# lowers it again; only ``broadcast_index`` keeps it, since LLVM leaves that one a
# call. Measured (2-core VM, one thread, 6 maps and 3 zips compiled, best of 3
# runs): a map compiles in 1.15 s instead of 1.27 s, a zip in 1.85 s instead of
# 2.18 s; the kernels run as fast (maps and zips of 60,000 entries, aligned,
# permuted and broadcast), and a zip along a last dimension of 2 twice as fast.
# ---------------------------------------------------------------------------

to_index = njit(tensor_data.to_index)
index_to_position = njit(tensor_data.index_to_position)
broadcast_index = njit(inline="always")(tensor_data.broadcast_index)


@njit
def kernel_size(shape: Shape) -> int:
    """The number of entries of ``shape``: $\\prod_k \\mathrm{shape}_k$ (compiled;
    1 for the shape ``()`` of a 0-d tensor)."""
    return np.prod(shape)


@njit
def equal_arrays(x: np.ndarray, y: np.ndarray) -> bool:
    """Whether two 1-D arrays have the same length and entries (compiled)."""
    if len(x) != len(y):
        return False
    for k in range(len(x)):
        if x[k] != y[k]:
            return False
    return True


# ---------------------------------------------------------------------------
# Splitting a kernel's work into slices
# ---------------------------------------------------------------------------

#: Work (entries, or multiply-adds) below which a kernel runs on the calling thread
#: alone: waking the other workers costs microseconds on an idle machine and
#: milliseconds on a busy one, more than small work itself.
MIN_PARALLEL_WORK = 1 << 15
#: The most slices a kernel splits its work into. Numba deals the iterations of a
#: ``prange`` loop out to its threads in equal runs, so many slices (of at least a
#: quarter of ``MIN_PARALLEL_WORK`` each) keep every thread busy on any machine.
MAX_SLICES = 64


@njit
def workers_for(work: int) -> int:
    """How many slices (one ``prange`` iteration each) share ``work``: 1 below
    :data:`MIN_PARALLEL_WORK`, else one per quarter of it, at most
    :data:`MAX_SLICES`. Numba spreads the slices over its threads.

    (Not ``numba.get_num_threads()``: its address is only known at run time, and
    a kernel that uses it cannot be kept in the on-disk cache.)"""
    if work < MIN_PARALLEL_WORK:
        return 1
    return min(MAX_SLICES, work // (MIN_PARALLEL_WORK // 4))


@njit
def last_step(shape: Shape, strides: Strides) -> int:
    """The storage step between neighbours along the LAST dimension: its stride, or
    0 when there is no such dimension or it has size 1 (a broadcast input reads the
    same entry all along the last dimension of the output)."""
    d = len(shape)
    return 0 if d == 0 or shape[d - 1] == 1 else strides[d - 1]


@njit
def next_row(index: np.ndarray, shape: Shape) -> None:
    """Count ``index`` on to the first entry of the next row of ``shape`` (rows
    along the last dimension, in row-major order): the last index back to 0, one
    more in the dimension before it, carried leftwards past each dimension's end.
    A kernel's runs start where the last one ended, so this replaces
    :func:`to_index` after the first run, without its divisions (one a
    dimension, about 22 ns a run of a 4-d zip, measured)."""
    k = len(shape) - 1
    while k > 0:
        index[k] = 0
        k -= 1
        index[k] += 1
        if index[k] < shape[k]:
            return
