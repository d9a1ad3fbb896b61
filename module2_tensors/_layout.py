"""The layouts ``TensorData`` shares between tensors (private: students never
edit or need to read this file).

A layout is a shape and strides, checked once, with everything derived from them
that every operation needs: the size, the number of dims, the largest storage
position reached, and the shape and strides as int64 arrays, which the kernels
read. A training step makes the same few layouts over and over, so each is built
once, by :func:`new_layout`, and kept in :data:`LAYOUTS`, keyed by ``(shape,
strides)`` (``strides`` ``None`` for the row-major layout of ``shape``).

The arrays are shared by every tensor of that layout, so they are read-only: a
kernel (or a ``to_index`` with its arguments swapped) that writes into one raises
instead of silently changing every other tensor's shape. Python code, Module 2's
kernels, the CUDA and convolution kernels all receive these.

One exception, kept for speed: FastOps' compiled kernels receive writable twins
(``kernel_shape``, ``kernel_strides``; ``TensorData._kernel_shape``). Numba types
a read-only array differently and takes a slower path to dispatch a call with one
(about 60 ns per array, six arrays per zip): measured on the Task 3.5 epoch,
read-only arrays there cost 4-5% (ratio to PyTorch 1.08 against 1.02-1.06 with the
twins, same sitting, loaded machine; issue 26), more than the margin to the 1.5x
target. A ``to_index`` that writes into its shape fails in Module 2 first, where
the arrays are read-only; tests/module2/test_layout.py checks both.
"""

from __future__ import annotations

from typing import Callable, Dict, NamedTuple, Optional, Tuple

import numpy as np

__all__ = ["Layout", "LAYOUTS", "MAX_LAYOUTS", "new_layout"]


class Layout(NamedTuple):
    """A checked shape and strides, and what follows from them."""

    shape: Tuple[int, ...]
    strides: Tuple[int, ...]
    #: ``shape`` as a read-only int64 array (the kernels' ``*_shape``).
    shape_array: np.ndarray
    #: ``strides`` as a read-only int64 array (the kernels' ``*_strides``).
    strides_array: np.ndarray
    #: Writable copies of the two, for FastOps' compiled kernels only.
    kernel_shape: np.ndarray
    kernel_strides: np.ndarray
    #: The number of entries, $\\prod_k \\mathrm{shape}_k$.
    size: int
    dims: int
    #: The largest storage position an entry reaches (0 for an empty shape).
    last: int


#: ``(shape, strides or None) -> Layout``.
LAYOUTS: Dict[Tuple[Tuple[int, ...], Optional[Tuple[int, ...]]], Layout] = {}
#: Layouts remembered at most (a training run uses a few dozen).
MAX_LAYOUTS = 8192


def _read_only(values: Tuple[int, ...]) -> np.ndarray:
    array = np.array(values, dtype=np.int64)
    array.flags.writeable = False
    return array


def new_layout(
    shape: Tuple[int, ...],
    strides: Optional[Tuple[int, ...]],
    row_major: Callable[[Tuple[int, ...]], Tuple[int, ...]],
) -> Layout:
    """The :class:`Layout` of ``shape`` (a tuple of ints) and ``strides`` (a tuple
    of ints, or ``None`` for ``row_major(shape)``), checked, and remembered in
    :data:`LAYOUTS` (while it has room).

    Raises:
        ValueError: strides of the wrong length, or negative sizes or strides.
    """
    steps = tuple(row_major(shape)) if strides is None else strides
    if len(steps) != len(shape):
        raise ValueError(
            f"strides {steps} and shape {shape} have different lengths "
            f"({len(steps)} and {len(shape)})"
        )
    size, last = 1, 0
    for n, step in zip(shape, steps):
        if n < 0 or step < 0:
            raise ValueError(
                f"sizes and strides must be non-negative, got shape {shape} "
                f"and strides {steps}"
            )
        size *= n
        last += (n - 1) * step
    layout = Layout(
        shape,
        steps,
        _read_only(shape),
        _read_only(steps),
        np.array(shape, dtype=np.int64),
        np.array(steps, dtype=np.int64),
        size,
        len(shape),
        last,
    )
    if len(LAYOUTS) < MAX_LAYOUTS:
        LAYOUTS[(shape, strides)] = layout
    return layout
