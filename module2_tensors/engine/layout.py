"""The layouts ``TensorData`` shares between tensors (private: students never
edit or need to read this file), and the constructors of ``TensorData`` that
library code calls once or more per operation, as plain functions of the class
(``TensorData`` binds them as its class methods ``contiguous``, ``full``,
``empty`` and ``_view``): each reuses a checked layout, so a shape seen before
costs a dict lookup instead of the constructor's checks.

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

import math
from typing import TYPE_CHECKING, Any, Callable, Dict, NamedTuple, Optional, Tuple

import numpy as np

if TYPE_CHECKING:
    from ..tensor_data import Storage, TensorData


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
#: ``shape -> Layout``: the row-major layouts of :data:`LAYOUTS` again (the same
#: objects), keyed by the shape alone, for the constructors every operation calls
#: (``TensorData.empty``, ``full``, ``contiguous``): hashing a shape rather than a
#: ``(shape, None)`` pair built for the lookup costs 50 ns less a call, 2-3 calls
#: an operation (tests/module2/test_layout.py checks that both dicts agree).
ROW_MAJOR: Dict[Tuple[int, ...], Layout] = {}
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
    if any(n < 0 for n in shape + steps):
        raise ValueError(
            f"sizes and strides must be non-negative, got shape {shape} "
            f"and strides {steps}"
        )
    layout = Layout(
        shape,
        steps,
        _read_only(shape),
        _read_only(steps),
        np.array(shape, dtype=np.int64),
        np.array(steps, dtype=np.int64),
        math.prod(shape),
        len(shape),
        sum((n - 1) * step for n, step in zip(shape, steps)),  # the last position
    )
    if len(LAYOUTS) < MAX_LAYOUTS:
        LAYOUTS[(shape, strides)] = layout
        if strides is None:
            ROW_MAJOR[shape] = layout
    return layout


def laid_out(
    data: "TensorData", storage: "Storage", layout: Layout, row_major: bool
) -> "TensorData":
    """``data`` (a ``TensorData`` just made by ``cls.__new__(cls)``, or one in
    its ``__init__``, which has checked everything) set over ``storage`` with a
    checked ``layout``: no checks. Returns ``data``. (``TensorData.__init__``
    calls it too: 1.20 -> 1.24 us a call, min of four alternating runs on the
    loaded 2-core VM, within the noise; about 7 calls a Task 3.5 batch, views
    the student's code makes.)

    This and the constructors below are plain functions, which ``TensorData``'s
    class methods and FastOps' kernel wrappers call: a class method called
    through its class costs an unspecialised look-up and a bound method more per
    call on CPython 3.11. With :data:`ROW_MAJOR` and ``autograd._new``: 0.07-0.1
    us less per map or zip result (1.31 -> 1.24 us for ``neg_map`` on (10, 100)),
    60 results a batch of the Task 3.5 epoch (module3_fast_ops/BENCHMARKS.md,
    "Less Python per result"). tests/module2/test_layout.py checks that every
    constructor gives the constructor's layout."""
    data._storage = storage
    (
        data.shape,
        data.strides,
        data._shape,
        data._strides,
        data._kernel_shape,
        data._kernel_strides,
        data.size,
        data.dims,
        _,
    ) = layout
    data.row_major = row_major
    return data


def empty_data(cls: type, shape: Tuple[int, ...]) -> "TensorData":
    """A new contiguous ``cls`` (``TensorData``) of ``shape`` whose entries are left
    unset (``TensorData.empty(shape)``): for an output that a kernel then writes
    entirely (a map's, a zip's). Cheaper than zeros."""
    layout = ROW_MAJOR.get(shape)
    if layout is None:
        return cls(np.empty(math.prod(shape)), shape)
    return laid_out(cls.__new__(cls), np.empty(layout.size), layout, True)


def full_data(
    cls: type, shape: Tuple[int, ...], value: Optional[float] = None
) -> "TensorData":
    """A new contiguous ``cls`` (``TensorData``) of ``shape`` (a tuple of ints)
    holding ``value`` everywhere (``None``: zeros): ``TensorData.full(shape,
    value)``. Operations allocate their outputs so (or with :func:`empty_data`): a
    shape seen before costs two dict lookups and one NumPy allocation."""
    layout = ROW_MAJOR.get(shape)
    count = math.prod(shape) if layout is None else layout.size
    if value is None:
        storage = np.zeros(count)
    else:  # (np.full costs several times as much as this, for small sizes)
        storage = np.empty(count)
        storage.fill(value)
    return contiguous_data(cls, storage, shape)


def contiguous_data(
    cls: type, storage: "Storage", shape: Tuple[int, ...]
) -> "TensorData":
    """A contiguous (row-major) ``cls`` (``TensorData``) of ``shape`` over
    ``storage``: ``TensorData.contiguous(storage, shape)``.

    For library code that has just made ``storage`` itself: a flat float64 NumPy
    array of exactly ``prod(shape)`` entries (``np.zeros(count)``). Every operation
    makes such an output, so a shape seen before skips what the constructor
    checks."""
    layout = ROW_MAJOR.get(shape)
    if layout is None:
        return cls(storage, shape)
    return laid_out(cls.__new__(cls), storage, layout, True)


def view_data(
    cls: type,
    storage: "Storage",
    shape: Tuple[int, ...],
    strides: Optional[Tuple[int, ...]] = None,
) -> "TensorData":
    """``cls(storage, shape, strides)`` (``TensorData._view``) for library code
    that derives a view from an existing tensor (a transpose, a reshape):
    ``storage`` is that tensor's and ``shape`` and ``strides`` are tuples of ints.
    A layout seen before is not checked again; the storage's size still is."""
    layout = LAYOUTS.get((shape, strides))
    if layout is None or (layout.size > 0 and len(storage) <= layout.last):
        return cls(storage, shape, strides)  # checks (and reports) everything
    return laid_out(cls.__new__(cls), storage, layout, strides is None)


def host_view(storage: np.ndarray, shape: Any, strides: Any) -> np.ndarray:
    """A NumPy view (no copy) of host ``storage`` read with ``shape`` and
    ``strides`` (in entries): what ``to_numpy`` copies, advanced assignment
    writes through and Module 4's NumPy paths compute on."""
    steps = tuple(int(s) * storage.itemsize for s in strides)
    return np.lib.stride_tricks.as_strided(storage, tuple(int(n) for n in shape), steps)
