"""Indexing and movement (engine layer: students never edit or need to read
this file; it imports none of theirs), exported by the package (``kt.flip``):

* advanced indexing (``x[rows, cols]``, ``x[x > 0]``): :class:`AdvancedIndex`
  copies through NumPy and scatter-adds its gradient back; ``set_advanced`` writes
  ``t[key] = value`` into the storage; ``scatter_add``, ``index_add``, ``nonzero``;
* :class:`StridedView`: ``view`` of a non-contiguous tensor;
  :func:`matrix_transpose`, the view ``MatMul.backward`` multiplies by;
* movements composed of differentiable operations (``flip``, ``roll``,
  ``movedim``, ``unbind``, ``tril``, ``triu``).

Tensors arrive as arguments (whose methods it calls: ``t.where``,
``t.masked_fill``); the ``Tensor`` class is the one tensor.py registers with
:mod:`.autograd`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence, Tuple, Union

import numpy as np

from . import autograd
from .autograd import Context, DifferentiableBackward, _new
from .dtypes import int64
from .layout import host_view, view_data
from .shapes import as_indices, normalize_dim, normalize_dims

if TYPE_CHECKING:
    from ..tensor import Tensor


def is_advanced_key(key: Any) -> bool:
    """Whether an index holds integer tensors, boolean masks, lists or arrays
    (PyTorch's *advanced* indexing, which copies) rather than only ints, slices,
    ``None`` and ``...`` (a view)."""
    items = key if isinstance(key, tuple) else (key,)
    return any(isinstance(k, (autograd._Tensor, list, np.ndarray, bool)) for k in items)


def _numpy_key(key: Any, t: "Tensor") -> Tuple[Any, ...]:
    """An advanced index into ``t`` as NumPy understands it: a boolean mask (a
    tensor from a comparison or ``bool()``, a list of bools, a bool array) stays
    boolean, any other tensor, list or array must hold whole numbers (integer
    indices; a float tensor is refused even so, as in PyTorch).

    PyTorch applies an int (a 0-d integer tensor too) as a select before the
    advanced part: for ``x`` of shape ``(2, 3, 4)``, ``x[0, :, idx]`` is
    ``x[0][:, idx]``, of shape ``(3, len(idx))``, where NumPy, which counts the
    int as one more advanced index, would move ``idx``'s dim to the front. Such a
    key is rewritten as the positions it picks in that order: one integer array
    per dim of ``t`` (each dim's index of every entry, read PyTorch's way)."""
    first, rest = [], []  # (PyTorch's reading: x[tuple(first)][tuple(rest)])
    for k in key if isinstance(key, tuple) else (key,):
        # (a float tensor index hides a bug, as in PyTorch; so does a list of
        # fractions, which PyTorch would truncate)
        whole = not (isinstance(k, autograd._Tensor) and k.is_floating_point())
        if isinstance(k, (autograd._Tensor, list, np.ndarray, bool)):
            k = np.asarray(k)  # (a tensor: its __array__, of its dtype: a mask bool)
        if isinstance(k, np.ndarray) and k.dtype != np.bool_:
            values = k.astype(np.float64)
            if not (whole and np.all(values == np.round(values))):
                raise IndexError(
                    f"tensors used as indices must be long, int, byte or bool "
                    f"tensors (lists: whole numbers), got {values.tolist()}"
                )
            k = values.astype(np.int64)
        select = np.ndim(k) == 0 and np.asarray(k).dtype.kind in "iu"  # (an int)
        taken = np.ndim(k) if np.asarray(k).dtype == np.bool_ else int(k is not None)
        first += [k] if select or k is Ellipsis else [slice(None)] * taken
        rest += [] if select else [k]
    # No int in the key: NumPy's reading of it is PyTorch's, and it stays as it is.
    if all(isinstance(k, slice) or k is Ellipsis for k in first):
        return tuple(rest)
    return tuple(i[tuple(first)][tuple(rest)] for i in np.indices(t.shape))


class AdvancedIndex(DifferentiableBackward):
    """``a[key]`` with integer-tensor or boolean-mask indices, NumPy's (and
    PyTorch's) advanced indexing: a copy. (Given.)

    Backward: :class:`EmbedInZeros`, a scatter-add of ``grad`` into zeros of
    ``a``'s shape through the same index, so an entry picked twice gets both
    gradients.
    """

    @staticmethod
    def forward(ctx: Context, a: "Tensor", key: Tuple[Any, ...]) -> "Tensor":
        ctx.save_for_backward(a.shape, key)
        # (An index out of range: NumPy's IndexError names it, the axis and size.)
        return a.new_tensor(a.to_numpy()[key])

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> "Tensor":
        shape, key = ctx.saved_values
        return EmbedInZeros.apply(grad, shape, key)


class EmbedInZeros(DifferentiableBackward):
    """Zeros of ``shape`` with ``g`` added at the NumPy index ``key``
    (``np.add.at``: an entry picked twice gets both): the adjoint of indexing,
    so the backward of ``a[key]``, ``index_select``, ``gather``... Gradient:
    ``G[key]`` (:class:`AdvancedIndex`)."""

    @staticmethod
    def forward(
        ctx: Context, g: "Tensor", shape: Tuple[int, ...], key: Any
    ) -> "Tensor":
        ctx.save_for_backward(key)
        out = np.zeros(shape)
        np.add.at(out, key, g.to_numpy())
        return g.new_tensor(out)

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> "Tensor":
        (key,) = ctx.saved_values
        return AdvancedIndex.apply(grad, key)


def set_advanced(t: "Tensor", key: Any, value: "Tensor") -> None:
    """``t[key] = value`` for an advanced ``key``, written into ``t``'s storage
    (so every view sees it); ``value`` broadcasts to the selection."""
    storage = t._tensor._storage
    if not isinstance(storage, np.ndarray):
        raise TypeError(
            "assignment through integer or boolean indices needs a CPU backend; "
            "move the tensor with .to(...) first"
        )
    # Written through a NumPy view of the storage. (A value that does not
    # broadcast to the selection: NumPy's ValueError names both shapes.)
    host_view(storage, t.shape, t.stride())[_numpy_key(key, t)] = value.to_numpy()


class StridedView(DifferentiableBackward):
    """``view`` of a non-contiguous tensor whose layout allows it (PyTorch's
    stride rule, computed in ``Tensor.view``): the same storage with new
    ``shape`` and ``strides``. (Given.)

    Backward: a view keeps the row-major order of the entries, so the gradient
    is viewed back to the input's shape.
    """

    @staticmethod
    def forward(
        ctx: Context, a: "Tensor", shape: Tuple[int, ...], strides: Tuple[int, ...]
    ) -> "Tensor":
        ctx.save_for_backward(a.shape)
        return _new(a, type(a._tensor)(a._tensor._storage, shape, strides))

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> "Tensor":
        (shape,) = ctx.saved_values
        return grad.contiguous().view(shape)


def matrix_transpose(t: "Tensor") -> "Tensor":
    """The transpose of ``t``'s last two dimensions as a view (no copy, no
    history): what ``MatMul.backward`` multiplies by (``tensor_functions``'s
    ``_mT``). Built from the layout directly, not through ``permute``: every
    ``MatMul.backward`` makes two."""
    data = t._tensor
    shape = data.shape[:-2] + (data.shape[-1], data.shape[-2])
    strides = data.strides[:-2] + (data.strides[-1], data.strides[-2])
    return _new(t, view_data(type(data), data._storage, shape, strides))


def flip(t: "Tensor", *dims: Any) -> "Tensor":
    """The entries in reverse order along each of ``dims`` (a copy): a tuple or
    list of dims, or the dims themselves (``x.flip(0, 1)``, as PyTorch's)."""
    ds = normalize_dims(dims[0] if len(dims) == 1 else dims, t.dims)
    key = tuple(slice(None, None, -1 if d in ds else 1) for d in range(t.dims))
    return AdvancedIndex.apply(t, key)


def roll(t: "Tensor", shifts: Union[int, Sequence[int]], dims: Any = None) -> "Tensor":
    """Entries shifted by ``shifts`` along ``dims``, wrapping around (of the
    flattened tensor when ``dims`` is None), like ``torch.roll``: one shift a
    dimension (RuntimeError otherwise, as PyTorch's; NumPy would broadcast)."""
    shifts = tuple(shifts) if isinstance(shifts, (tuple, list)) else (shifts,)
    # (no dims, None or (): of the flattened tensor, as PyTorch's default dims=[])
    dims = None if dims is None else normalize_dims(dims, t.dims) or None
    if len(shifts) != len(dims or (0,)):
        raise RuntimeError(
            f"roll: shifts and dimensions must align. shifts: {len(shifts)}, "
            f"dims: {len(dims or ())}"
        )
    # Where each entry comes from, as a position in the flattened tensor.
    source = np.roll(np.arange(t.numel()).reshape(t.shape), shifts, dims)
    return AdvancedIndex.apply(t.reshape(-1), (source,))


def movedim(t: "Tensor", source: Any, destination: Any) -> "Tensor":
    """Dimension(s) ``source`` moved to ``destination``, the others keeping their
    order (a view, ``permute``)."""
    src, dst = normalize_dims(source, t.dims), normalize_dims(destination, t.dims)
    # (the order np.moveaxis makes: the sizes, once moved, of an empty array whose
    # dimension k has size k)
    return t.permute(*np.moveaxis(np.empty(tuple(range(t.dims))), src, dst).shape)


def unbind(t: "Tensor", dim: int = 0) -> Tuple["Tensor", ...]:
    """The slices along ``dim``, that dimension removed (views)."""
    d = normalize_dim(dim, t.dims)
    return tuple(t[(slice(None),) * d + (i,)] for i in range(t.shape[d]))


def _triangle(t: "Tensor", diagonal: int, lower: bool) -> "Tensor":
    if t.dims < 2:
        raise ValueError(f"tril/triu need at least 2 dimensions, got {t.shape}")
    keep = (np.tril if lower else np.triu)(np.ones(t.shape[-2:]), diagonal)
    return t.where(t.new_tensor(keep)._as_mask(), 0.0)


def tril(t: "Tensor", diagonal: int = 0) -> "Tensor":
    """The lower triangle of the last two dims (entries with $j - i \\le$
    ``diagonal``), zeros above."""
    return _triangle(t, diagonal, True)


def triu(t: "Tensor", diagonal: int = 0) -> "Tensor":
    """The upper triangle of the last two dims (entries with $j - i \\ge$
    ``diagonal``), zeros below."""
    return _triangle(t, diagonal, False)


def scatter_positions(index: "Tensor", dim: int) -> Tuple[np.ndarray, ...]:
    """The NumPy index of ``scatter``/``gather`` along ``dim``: ``index``'s own
    positions with entry ``dim`` replaced by its values."""
    values = index.to_numpy()
    if not np.all(values == np.round(values)):
        raise IndexError("scatter_add: indices must be whole numbers")
    grids = list(np.indices(values.shape))
    grids[dim] = values.astype(np.int64)
    return tuple(grids)


def last_writers(index: "Tensor", dim: int, shape: Tuple[int, ...]) -> np.ndarray:
    """For ``scatter(dim, index, src)`` into a tensor of ``shape``: a 0/1 array of
    ``index``'s shape, 1 where entry ``p`` is the last (in row-major order) to
    write its position. PyTorch leaves repeated positions unspecified; its CPU
    kernel keeps the last write, and so does :meth:`Tensor.scatter` with this."""
    flat = np.ravel_multi_index(scatter_positions(index, dim), shape).ravel()
    order = np.arange(flat.size)
    owner = np.full(int(np.prod(shape)), -1)
    np.maximum.at(owner, flat, order)
    return (owner[flat] == order).reshape(index.shape).astype(np.float64)


def scatter_add(t: "Tensor", dim: int, index: "Tensor", src: "Tensor") -> "Tensor":
    """``torch.scatter_add`` (out of place): ``out[..., index[p], ...] +=
    src[p]`` along ``dim``; repeated indices add up."""
    positions = scatter_positions(index, normalize_dim(dim, t.dims))
    inner = tuple(slice(0, n) for n in index.shape)  # the part of src used
    return t + EmbedInZeros.apply(AdvancedIndex.apply(src, inner), t.shape, positions)


def index_add(
    t: "Tensor", dim: int, index: Any, source: "Tensor", alpha: float = 1.0
) -> "Tensor":
    """``torch.index_add`` (out of place): slice ``index[k]`` of ``t`` along
    ``dim`` gets ``alpha * source``'s slice ``k`` added (repeats add up)."""
    rows = np.asarray(as_indices(index, "index_add"), dtype=np.int64)
    key = (slice(None),) * normalize_dim(dim, t.dims) + (rows,)
    return t + EmbedInZeros.apply(source * alpha, t.shape, key)  # (repeats add up)


def nonzero(t: "Tensor", as_tuple: bool = False) -> Any:
    """The indices of the non-zero entries, one row per entry ``(n, dims)``
    (``int64``, no gradient), or with ``as_tuple`` one 1-D tensor per dim."""
    found = np.argwhere(t.to_numpy() != 0.0)  # (n, dims): (1, 0) or (0, 0) if 0-d
    if as_tuple:  # (a 0-d tensor as a 1-D one of one entry, as PyTorch)
        columns = found.T if t.dims else np.zeros((1, len(found)))
        return tuple(t.new_tensor(column, int64) for column in columns)
    return t.new_tensor(found, int64)
