"""Named Hypothesis strategies for Module 2: shapes, memory layouts and values.

A test input is a :class:`Case`: a NumPy array (the oracle's view of the numbers) and
a *layout*, the order in which its dimensions are laid out in storage. Layout
``(1, 0)`` of a 2-D array stores it column by column, so the tensor built from it is a
permuted, non-contiguous view: every kernel must work through strides, not through
the happy contiguous case.

Shapes are small (SimpleOps runs Python loops per entry, and every gradient is checked
entry by entry), but cover 0-d tensors, size-1 dimensions and up to 4 dimensions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence, Tuple

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from module2_tensors import Tensor, TensorData

#: For tests that take the ``backend`` fixture: Hypothesis runs the examples of one
#: test with one fixture value, which is what we want here.
backend_settings = settings(
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ]
)

Shape = Tuple[int, ...]


def make_tensor(
    array: Any,
    layout: Optional[Sequence[int]] = None,
    backend: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """A tensor with the numbers of ``array``, stored in ``layout`` order.

    The strides come from NumPy (a transposed copy, transposed back), not from the
    code under test, so the layout is right even when ``TensorData.permute`` is not.
    """
    array = np.asarray(array, dtype=np.float64)
    if layout is None or array.ndim < 2:
        layout = tuple(range(array.ndim))
    if array.ndim == 0:
        laid_out, strides = array.copy(), ()
    else:
        laid_out = np.ascontiguousarray(array.transpose(layout))
        view = laid_out.transpose(tuple(int(k) for k in np.argsort(layout)))
        strides = tuple(step // 8 for step in view.strides)
    data = TensorData(laid_out.reshape(-1), array.shape, strides)
    return Tensor(data, backend, requires_grad=requires_grad)


@dataclass
class Case:
    """An input: the numbers and their storage layout."""

    array: np.ndarray
    layout: Tuple[int, ...]

    def tensor(self, backend: Any = None, requires_grad: bool = False) -> Tensor:
        return make_tensor(self.array, self.layout, backend, requires_grad)

    @property
    def shape(self) -> Shape:
        return self.array.shape


def _size(shape: Sequence[int]) -> int:
    return int(np.prod(shape, dtype=np.int64))


@st.composite
def shapes(
    draw: Any,
    min_dims: int = 0,
    max_dims: int = 4,
    min_side: int = 1,
    max_side: int = 3,
    max_size: int = 24,
) -> Shape:
    """A shape of ``min_dims..max_dims`` dimensions with sides in
    ``min_side..max_side`` and at most ``max_size`` entries."""
    dims = draw(st.integers(min_dims, max_dims))
    shape = []
    for _ in range(dims):
        room = max_size // max(1, _size(shape))
        shape.append(draw(st.integers(min_side, max(min_side, min(max_side, room)))))
    return tuple(shape)


#: Values where every operation here is smooth and well conditioned.
small_values = st.floats(-3.0, 3.0, allow_nan=False, allow_subnormal=False)
#: Values in [0.25, 4]: for log, sqrt, division.
positive_values = st.floats(0.25, 4.0, allow_nan=False, allow_subnormal=False)


@st.composite
def away_from_zero(draw: Any, limit: float = 3.0, gap: float = 0.1) -> float:
    """A value with $\\mathrm{gap} \\le |x| \\le \\mathrm{limit}$: relu, inv and abs
    have a kink or a pole at 0 that central differences must not straddle."""
    magnitude = draw(st.floats(gap, limit, allow_nan=False, allow_subnormal=False))
    return magnitude if draw(st.booleans()) else -magnitude


@st.composite
def layouts(draw: Any, dims: int) -> Tuple[int, ...]:
    """A storage order of ``dims`` dimensions (identity = contiguous)."""
    return tuple(draw(st.permutations(range(dims))))


@st.composite
def cases(
    draw: Any,
    shape: Any = None,
    elements: st.SearchStrategy[float] = small_values,
    **shape_kwargs: Any,
) -> Case:
    """A :class:`Case` of a given ``shape`` (a tuple or a strategy), or of a shape
    drawn by :func:`shapes` with ``shape_kwargs``, in a random layout."""
    if shape is None:
        shape = shapes(**shape_kwargs)
    if isinstance(shape, st.SearchStrategy):
        shape = draw(shape)
    values = draw(st.lists(elements, min_size=_size(shape), max_size=_size(shape)))
    array = np.array(values, dtype=np.float64).reshape(shape)
    return Case(array, draw(layouts(len(shape))))


@st.composite
def distinct_cases(draw: Any, shape: Any = None, **shape_kwargs: Any) -> Case:
    """A :class:`Case` whose entries are all different, at least 0.3 apart (for
    max and sort: no ties for a central difference to step across)."""
    if shape is None:
        shape = shapes(**shape_kwargs)
    if isinstance(shape, st.SearchStrategy):
        shape = draw(shape)
    n = _size(shape)
    ranks = draw(st.permutations(range(n)))
    array = (np.array(ranks, dtype=np.float64) * 0.3 - 0.15 * n).reshape(shape)
    return Case(array, draw(layouts(len(shape))))


@st.composite
def broadcastable_shapes(
    draw: Any, min_dims: int = 0, max_dims: int = 3, max_size: int = 24
) -> Tuple[Shape, Shape]:
    """Two shapes that broadcast together: both derived from one full shape by
    dropping leading dimensions and setting some sizes to 1. (The full shape's
    sides are 2 or more: a side of 1 there broadcasts nothing, and the first
    examples of a derandomized run were mostly shapes of 1s.)"""
    full = draw(shapes(min_dims, max_dims, min_side=2, max_size=max_size))

    def derive() -> Shape:
        drop = draw(st.integers(0, len(full)))
        return tuple(1 if draw(st.booleans()) else n for n in full[drop:])

    return derive(), derive()


@st.composite
def matmul_shapes(draw: Any, max_batch: int = 2) -> Tuple[Shape, Shape]:
    """Shapes ``(..., n, m)`` and ``(..., m, p)`` with broadcasting batch dims."""
    n, m, p = (draw(st.integers(1, 3)) for _ in range(3))
    batch_a, batch_b = draw(broadcastable_shapes(max_dims=max_batch, max_size=4))
    return batch_a + (n, m), batch_b + (m, p)


@st.composite
def dims_of(draw: Any, dims: int) -> int:
    """A dimension of a tensor of ``dims`` dimensions, possibly negative."""
    return draw(st.integers(-dims, dims - 1))
