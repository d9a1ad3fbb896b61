"""Tensor storage and strides (Task 2.1) and broadcasting (Task 2.2).

A tensor's numbers live in one flat array, its *storage*. The *shape* says how many
entries each dimension has; the *strides* say how far apart, in storage, two entries
are that differ by one along a dimension. The entry at multi-index
$(i_0, \\dots, i_{d-1})$ lives at

$$\\mathrm{position} = \\sum_{k} i_k \\cdot \\mathrm{strides}_k .$$

Changing only the shape and strides gives a new *view* of the same numbers without
copying them: that is how ``permute``, ``transpose``, ``expand`` and slicing work.

The three functions :func:`index_to_position`, :func:`to_index` and
:func:`broadcast_index` run once per tensor entry inside every kernel. Module 3
compiles them with Numba (``njit``), so they are written in the small
subset of Python that Numba understands: loops over integer NumPy arrays and integer
arithmetic only (no lists, no exceptions, no f-strings). Checking arguments is the job
of the :class:`TensorData` methods that call them.
"""

from __future__ import annotations

from typing import Iterator, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

# Given: checked layouts shared between tensors, and the constructors that reuse
# them (engine/layout.py).
from .engine.layout import LAYOUTS, contiguous_data, empty_data, full_data
from .engine.layout import laid_out, new_layout, view_data

__all__ = [
    "Storage",
    "Index",
    "Shape",
    "Strides",
    "UserIndex",
    "UserShape",
    "UserStrides",
    "index_to_position",
    "to_index",
    "strides_from_shape",
    "broadcast_index",
    "shape_broadcast",
    "TensorData",
]

Storage = npt.NDArray[np.float64]
Index = npt.NDArray[np.int64]
Shape = npt.NDArray[np.int64]
Strides = npt.NDArray[np.int64]

UserIndex = Sequence[int]
UserShape = Sequence[int]
UserStrides = Sequence[int]


# ---------------------------------------------------------------------------
# Task 2.1: from an index to a position and back
# ---------------------------------------------------------------------------


def index_to_position(index: Index, strides: Strides) -> int:
    """The storage position of a multi-index:
    $\\mathrm{position} = \\sum_k \\mathrm{index}_k \\cdot \\mathrm{strides}_k$.

    Args:
        index: one entry per dimension (an int64 array, or any sequence of ints).
        strides: the strides, same length as ``index``.

    Returns:
        The position in storage (an integer). A 0-d index ``()`` is at position 0.

    Numba-compatible: a plain loop, no checks (callers check the index).
    """
    # BEGIN SOLUTION 2.1
    position = 0
    for k in range(len(strides)):
        position += index[k] * strides[k]
    return position
    # END SOLUTION


def to_index(ordinal: int, shape: Shape, out_index: Index) -> None:
    """Write into ``out_index`` the multi-index of the ``ordinal``-th entry of
    ``shape`` in row-major order (the last dimension moves fastest).

    The inverse of counting: for shape $(s_0, \\dots, s_{d-1})$ the ordinal is
    $\\sum_k i_k \\prod_{j > k} s_j$, so the last index is ``ordinal % s_{d-1}``,
    and the rest is the same problem for ``ordinal // s_{d-1}`` and the shape
    without its last dimension. For shape ``(2, 3)``, ordinal ``4`` is index
    ``(1, 1)``.

    Args:
        ordinal: a number in ``[0, prod(shape))``.
        shape: the tensor's shape.
        out_index: an int64 array of length ``len(shape)``, overwritten.

    Returns:
        None: the answer is written into ``out_index`` (so that kernels can reuse one
        buffer instead of allocating per entry).

    Numba-compatible: a plain loop, no checks. It does not depend on strides.
    """
    # BEGIN SOLUTION 2.1: peel off the last dimension with % and // repeatedly
    rest = ordinal
    for k in range(len(shape) - 1, -1, -1):
        out_index[k] = rest % shape[k]
        rest = rest // shape[k]
    # END SOLUTION


def strides_from_shape(shape: UserShape) -> Tuple[int, ...]:
    """The strides of a contiguous (row-major) tensor of ``shape``:
    $\\mathrm{strides}_k = \\prod_{j > k} \\max(\\mathrm{shape}_j, 1)$.

    ``strides_from_shape((2, 3, 4)) == (12, 4, 1)``; a 0-d shape ``()`` has strides
    ``()``. A size-0 dimension steps as a size-1 one, as in PyTorch (no stride is 0):
    ``strides_from_shape((2, 0, 3)) == (3, 3, 1)``.
    """
    # BEGIN SOLUTION 2.1
    strides = []
    step = 1
    for size in reversed(tuple(shape)):
        strides.append(step)
        step *= max(int(size), 1)
    return tuple(reversed(strides))
    # END SOLUTION


# ---------------------------------------------------------------------------
# Task 2.2: broadcasting
# ---------------------------------------------------------------------------


def broadcast_index(
    big_index: Index, big_shape: Shape, shape: Shape, out_index: Index
) -> None:
    """Map an index of the broadcast (big) shape to the index it reads in ``shape``.

    ``shape`` is aligned with ``big_shape`` on the right. For each dimension $k$ of
    ``shape`` (dimension $k + d$ of ``big_shape``, with
    $d = \\mathrm{len(big\\_shape)} - \\mathrm{len(shape)}$):

    - if ``shape[k] == 1`` the entry was broadcast, so the index is 0;
    - otherwise the index is ``big_index[k + d]``.

    The leading $d$ dimensions of the big index do not exist in ``shape`` and are
    dropped. Example: big shape ``(2, 3, 4)``, shape ``(3, 1)``: big index
    ``(1, 2, 3)`` reads index ``(2, 0)``.

    Args:
        big_index: an index of ``big_shape``.
        big_shape: the broadcast shape.
        shape: a shape that broadcasts to ``big_shape``.
        out_index: an int64 array of length ``len(shape)``, overwritten.

    Numba-compatible: a plain loop, no checks.
    """
    # BEGIN SOLUTION 2.2
    offset = len(big_shape) - len(shape)
    for k in range(len(shape)):
        if shape[k] == 1:
            out_index[k] = 0
        else:
            out_index[k] = big_index[k + offset]
    # END SOLUTION


def shape_broadcast(shape1: UserShape, shape2: UserShape) -> Tuple[int, ...]:
    """The shape two tensors broadcast to, by NumPy's and PyTorch's three rules:

    1. align the shapes on the right (pad the shorter one with 1s on the left);
    2. in each dimension the sizes must be equal, or one of them must be 1;
    3. where one size is 1 the result has the other one (a size 1 is stretched,
       to 0 too: ``(0,)`` and ``(1,)`` give ``(0,)``).

    ``shape_broadcast((2, 1, 4), (3, 1)) == (2, 3, 4)``.

    Raises:
        ValueError: the shapes do not broadcast. The message names both shapes and
            the dimension, counted from the right (``-1`` is the last), e.g.
            ``"cannot broadcast shapes (2, 3) and (4,): at dimension -1 the sizes
            3 and 4 differ and neither is 1"``.
    """
    # BEGIN SOLUTION 2.2
    a, b = tuple(shape1), tuple(shape2)
    result = []
    for k in range(1, max(len(a), len(b)) + 1):
        size_a = a[-k] if k <= len(a) else 1
        size_b = b[-k] if k <= len(b) else 1
        if size_a != size_b and size_a != 1 and size_b != 1:
            raise ValueError(
                f"cannot broadcast shapes {a} and {b}: at dimension {-k} the sizes "
                f"{size_a} and {size_b} differ and neither is 1"
            )
        result.append(size_a if size_b == 1 else size_b)
    return tuple(reversed(result))
    # END SOLUTION


# ---------------------------------------------------------------------------
# TensorData: storage + shape + strides
# ---------------------------------------------------------------------------


def _as_shape(shape: UserShape, what: str = "shape") -> Tuple[int, ...]:
    """Check a user shape (a sequence of integers) and return it as a tuple of
    Python ints."""
    for size in shape:
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)):
            raise TypeError(
                f"a {what} holds integers, got {type(size).__name__} {size!r} "
                f"in {tuple(shape)}"
            )
    return tuple(map(int, shape))


_FLOAT64 = np.dtype(np.float64)  # (``is`` this is the quickest test of a dtype)


class TensorData:
    """The numbers of a tensor: a flat float64 ``storage`` viewed through a ``shape``
    and ``strides``.

    Args:
        storage: the flat storage (a 1-D float64 NumPy array is used as is, without
            a copy; other sequences are converted).
        shape: the size of each dimension (non-negative integers).
        strides: the step in storage of each dimension (non-negative integers);
            ``None`` means contiguous (row-major), ``strides_from_shape(shape)``.

    Attributes:
        shape, strides: tuples of Python ints.
        size: the number of entries, $\\prod_k \\mathrm{shape}_k$.
        dims: the number of dimensions.

    Raises:
        ValueError: negative sizes or strides, strides of the wrong length, or a
            storage too small for the largest position the shape and strides reach.
    """

    # Every operation makes one or more: attributes in slots are quicker to set
    # and read than dict entries (``__dict__`` still takes any other attribute).
    __slots__ = (
        "_storage",
        "shape",
        "strides",
        "_shape",
        "_strides",
        "_kernel_shape",
        "_kernel_strides",
        "size",
        "dims",
        "row_major",
        "__dict__",
    )
    _storage: Storage
    shape: Tuple[int, ...]
    strides: Tuple[int, ...]
    size: int
    dims: int
    #: True when the layout is row-major by construction (no strides given, or
    #: made by :meth:`contiguous` / :meth:`full`), so library code need not ask
    #: :meth:`is_contiguous`; False means "not known", not "not contiguous".
    row_major: bool

    def __init__(
        self,
        storage: Union[Sequence[float], Storage],
        shape: UserShape,
        strides: Optional[UserStrides] = None,
    ) -> None:
        # A flat float64 NumPy array, or GPU memory (CudaBackend's, Module 3), is
        # used as it is, never copied; anything else becomes a float64 array.
        if not (type(storage) is np.ndarray and storage.dtype is _FLOAT64):
            if not (hasattr(storage, "copy_to_host") and storage.dtype == np.float64):
                storage = np.asarray(storage, dtype=np.float64)
        if storage.ndim != 1:
            raise ValueError(
                f"storage must be a flat (1-D) array, got shape {storage.shape}"
            )
        shape = _as_shape(shape)
        strides = None if strides is None else _as_shape(strides, "stride tuple")
        # Layouts of one shape and strides recur every step (a transpose, a reduced
        # dim): each is checked once, and only the storage's size again.
        layout = LAYOUTS.get((shape, strides)) or new_layout(
            shape, strides, strides_from_shape
        )
        if layout.size > 0 and len(storage) <= layout.last:
            raise ValueError(
                f"a storage of {len(storage)} entries is too small for shape {shape} "
                f"with strides {layout.strides}, which reaches position {layout.last}"
            )
        # Sets ``_storage``, ``shape``, ``strides``, ``size``, ``dims``,
        # ``row_major`` (no strides given), and ``_shape`` and ``_strides``: the
        # shape and strides as read-only int64 arrays, shared by every tensor of
        # this layout (what kernels receive); ``_kernel_*``: writable twins that
        # only FastOps' compiled kernels get (see module2_tensors/engine/layout.py).
        laid_out(self, storage, layout, strides is None)

    # -------------------------------------------------------------- Task 2.1
    def is_contiguous(self) -> bool:
        """True when the entries lie in storage in row-major order with no gaps: the
        strides are those of :func:`strides_from_shape`, ignoring dimensions of size
        1 (one entry has no neighbour to step to, so its stride never matters).

        A contiguous tensor can be re-viewed with any shape of the same size
        (``view``); a permuted or expanded one cannot.
        """
        # BEGIN SOLUTION 2.1
        expected = strides_from_shape(self.shape)
        for size, step, want in zip(self.shape, self.strides, expected):
            if size > 1 and step != want:
                return False
        return True
        # END SOLUTION

    def index(self, index: Union[int, UserIndex, Index]) -> int:
        """The storage position of a multi-index, after checking it.

        Args:
            index: a sequence (or int64 array) with one entry per dimension; a plain
                int is accepted for a 1-D tensor. Negative entries are out of range
                here (``Tensor`` indexing handles ``t[-1]``).

        Returns:
            ``index_to_position(index, strides)``.

        Raises:
            IndexError: the index has the wrong number of entries, or an entry is
                outside ``[0, size)`` of its dimension. The message names the index,
                the shape and the dimension.
        """
        # BEGIN SOLUTION 2.1: check the index (IndexError), then index_to_position
        if isinstance(index, (int, np.integer)):
            index = (int(index),)
        index = tuple(index)
        if len(index) != self.dims:
            raise IndexError(
                f"index {index} has {len(index)} entries but shape {self.shape} has "
                f"{self.dims} dimensions"
            )
        for k, (i, size) in enumerate(zip(index, self.shape)):
            if not 0 <= i < size:
                raise IndexError(
                    f"index {index} is out of range for shape {self.shape}: entry "
                    f"{i} at dimension {k} is not in [0, {size})"
                )
        return int(index_to_position(np.array(index, dtype=np.int64), self._strides))
        # END SOLUTION

    def indices(self) -> Iterator[Tuple[int, ...]]:
        """Every multi-index of the shape, in row-major order, as tuples of ints.

        ``TensorData([0.0] * 6, (2, 3)).indices()`` yields ``(0, 0), (0, 1), (0, 2),
        (1, 0), (1, 1), (1, 2)``. Use :func:`to_index`.
        """
        # BEGIN SOLUTION 2.1
        out_index = np.zeros(self.dims, dtype=np.int64)
        for ordinal in range(self.size):
            to_index(ordinal, self._shape, out_index)
            yield tuple(int(i) for i in out_index)
        # END SOLUTION

    def permute(self, *order: int) -> "TensorData":
        """A view with the dimensions reordered: dimension ``k`` of the result is
        dimension ``order[k]`` of this tensor. No data is copied: the result shares
        the storage, with shape and strides reordered the same way.

        ``TensorData(s, (2, 3, 4)).permute(2, 0, 1)`` has shape ``(4, 2, 3)``.

        Raises:
            IndexError: ``order`` is not a permutation of ``0 .. dims-1``; the
                message names the order and the number of dimensions.
        """
        # BEGIN SOLUTION 2.1: check the order (IndexError), then reorder shape/strides
        if sorted(order) != list(range(self.dims)):
            raise IndexError(
                f"permute order {tuple(order)} is not a permutation of the "
                f"{self.dims} dimensions 0..{self.dims - 1}"
            )
        shape, strides = self.shape, self.strides
        return TensorData(
            self._storage,
            tuple([shape[k] for k in order]),
            tuple([strides[k] for k in order]),
        )
        # END SOLUTION

    # ------------------------------------------------------------------ given
    def get(self, index: Union[int, UserIndex, Index]) -> float:
        """The entry at ``index`` (checked by :meth:`index`)."""
        return float(self._storage[self.index(index)])

    def set(self, index: Union[int, UserIndex, Index], value: float) -> None:
        """Write ``value`` at ``index`` (checked by :meth:`index`)."""
        self._storage[self.index(index)] = value

    def tuple(self) -> Tuple[Storage, Shape, Strides]:
        """``(storage, shape, strides)`` as the kernels take them (int64 arrays)."""
        return (self._storage, self._shape, self._strides)

    # Constructors for library code (engine/layout.py), one or more per operation:
    # each reuses a checked layout, so a shape seen before skips __init__'s checks.
    # ``contiguous(storage, shape)``: over a fresh flat array of exactly that size;
    # ``full(shape, value)`` (zeros without a value) and ``empty(shape)``: new
    # storage; ``_view(storage, shape, strides)``: a view of an existing storage.
    contiguous = classmethod(contiguous_data)
    full = classmethod(full_data)
    empty = classmethod(empty_data)
    _view = classmethod(view_data)
