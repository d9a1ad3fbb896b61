"""Named Hypothesis strategies and helpers for Module 3: NumPy arrays laid out in
storage in random orders, handed to the kernels as raw ``(storage, shape, strides)``.

The kernels see only flat storage, shapes and strides, so the tests talk to them the
same way, with NumPy as the oracle. A :class:`Strided` array is stored in a random
dimension order (a permuted, non-contiguous view), which sends the kernels down their
general, index-computing path; the contiguous layout sends them down the fast path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence, Tuple

import numpy as np
from hypothesis import strategies as st

Shape = Tuple[int, ...]


@dataclass
class Strided:
    """NumPy numbers stored in ``layout`` order: the raw arguments of a kernel."""

    storage: np.ndarray
    shape: np.ndarray
    strides: np.ndarray

    @classmethod
    def of(cls, array: Any, layout: Sequence[int] = ()) -> "Strided":
        """``array`` stored with its dimensions in ``layout`` order (default: the
        identity, i.e. contiguous). The strides come from NumPy."""
        array = np.asarray(array, dtype=np.float64)
        layout = tuple(layout) or tuple(range(array.ndim))
        laid_out = np.array(array.transpose(layout), order="C")  # keeps 0-d
        view = laid_out.transpose(tuple(int(k) for k in np.argsort(layout)))
        strides = [step // 8 for step in view.strides]
        return cls(
            laid_out.reshape(-1).copy(),
            np.array(array.shape, dtype=np.int64),
            np.array(strides, dtype=np.int64),
        )

    @classmethod
    def empty(cls, shape: Shape, layout: Sequence[int] = (), fill: float = 0.0):
        """An output of ``shape`` stored in ``layout`` order, filled with ``fill``."""
        return cls.of(np.full(shape, fill, dtype=np.float64), layout)

    def args(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.storage, self.shape, self.strides

    def to_numpy(self) -> np.ndarray:
        """The numbers, read back through the strides (NumPy does the indexing)."""
        shape = tuple(int(n) for n in self.shape)
        if len(self.storage) == 0:
            return np.zeros(shape)
        return np.lib.stride_tricks.as_strided(
            self.storage, shape, tuple(int(s) * 8 for s in self.strides)
        ).copy()


def _size(shape: Sequence[int]) -> int:
    return int(np.prod(shape, dtype=np.int64))


@st.composite
def shapes(
    draw: Any,
    min_dims: int = 1,
    max_dims: int = 4,
    max_side: int = 5,
    max_size: int = 96,
) -> Shape:
    """A shape of ``min_dims..max_dims`` dimensions, sides in ``1..max_side``, at
    most ``max_size`` entries."""
    dims = draw(st.integers(min_dims, max_dims))
    shape = []
    for _ in range(dims):
        room = max(1, max_size // max(1, _size(shape)))
        shape.append(draw(st.integers(1, min(max_side, room))))
    return tuple(shape)


@st.composite
def layouts(draw: Any, dims: int) -> Tuple[int, ...]:
    """A storage order of ``dims`` dimensions (the identity is contiguous)."""
    return tuple(draw(st.permutations(range(dims))))


#: Values where every function tested here is smooth and well conditioned.
values = st.floats(-3.0, 3.0, allow_nan=False, allow_subnormal=False)


@st.composite
def arrays(draw: Any, shape: Any) -> np.ndarray:
    """A float64 array of ``shape`` (a tuple or a strategy) with :data:`values`."""
    if isinstance(shape, st.SearchStrategy):
        shape = draw(shape)
    n = _size(shape)
    entries = draw(st.lists(values, min_size=n, max_size=n))
    return np.array(entries, dtype=np.float64).reshape(shape)


@st.composite
def strided_arrays(draw: Any, shape: Any) -> Tuple[np.ndarray, Strided]:
    """An array and the same numbers stored in a random layout."""
    array = draw(arrays(shape))
    return array, Strided.of(array, draw(layouts(array.ndim)))


@st.composite
def broadcast_pairs(
    draw: Any, max_dims: int = 4, max_size: int = 96
) -> Tuple[Shape, Shape]:
    """``(big, small)``: ``small`` broadcasts to ``big`` (leading dimensions dropped,
    some sizes set to 1)."""
    big = draw(shapes(max_dims=max_dims, max_size=max_size))
    drop = draw(st.integers(0, len(big)))
    small = tuple(1 if draw(st.booleans()) else n for n in big[drop:])
    return big, small


@st.composite
def matmul_shapes(
    draw: Any, max_batch_dims: int = 2, max_side: int = 9
) -> Tuple[Shape, Shape]:
    """``(..., n, m)`` and ``(..., m, p)`` whose batch dimensions broadcast."""
    n, m, p = (draw(st.integers(1, max_side)) for _ in range(3))
    full = draw(shapes(min_dims=0, max_dims=max_batch_dims, max_side=3, max_size=6))

    def batch() -> Shape:
        drop = draw(st.integers(0, len(full)))
        return tuple(1 if draw(st.booleans()) else k for k in full[drop:])

    return batch() + (n, m), batch() + (m, p)
