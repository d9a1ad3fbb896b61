"""Indexing and selecting entries with their gradients, sorting, and the variance
(Task 2.6).

Task 2.6 has two files. Start with this one: the other, ``shape_functions.py``
(reshaping, joining and splitting, and the gradient modes), cuts its views with
this file's ``index_view``, ``_along`` and ``narrow``. Three kinds of operation
live here:

* **views** that pick a part of a tensor without copying a number: indexing and
  slicing (``t[1, ::2]``), ``narrow``: a new shape and strides, and where the data
  starts. Their backward puts the gradient back in place: into zeros of the
  input's shape, through the same view;
* **copies** that pick entries into a new tensor: ``where``, ``index_select``,
  ``gather``; their backward scatters the gradient back, *adding* where one input
  entry was used several times (a repeated index);
* **compositions** of operations that already have gradients: ``sort``, ``topk``,
  ``var``. These need no backward of their own: autodiff differentiates the
  composition.
"""

from __future__ import annotations

from math import prod
from typing import TYPE_CHECKING, Any, Optional, Sequence, Tuple, Union

import numpy as np


from .engine.shapes import as_indices, check_gather, normalize_dim as _dim
from .tensor_data import TensorData
from .engine.autograd import Context, Function, _new

# Given, complete: the rest of PyTorch's tensor API (advanced indexing, flip,
# ...; a tensor's prod, norm, ...) lives in engine/indexing.py and
# engine/reductions.py; no task asks you to read them. The package
# (module2_tensors) exports their names.
from .engine.indexing import AdvancedIndex, _numpy_key, is_advanced_key

if TYPE_CHECKING:
    from .tensor import Tensor

__all__ = [
    "index_view",
    "getitem",
    "narrow",
    "where",
    "index_select",
    "gather",
    "sort",
    "topk",
    "var",
    "GetItem",
    "Where",
    "IndexSelect",
    "Gather",
]


# ---------------------------------------------------------------------------
# Indexing and slicing: views with an offset into the storage
# ---------------------------------------------------------------------------


def index_view(data: TensorData, key: Any) -> TensorData:
    """The view ``t[key]`` of ``data``, sharing its storage (no copy).

    ``key`` is one item or a tuple of items, one per dimension from the left:

    * an ``int`` $i$ (negative counts from the end) fixes the dimension at $i$ and
      removes it: the view starts $i \\cdot \\mathrm{stride}$ further on;
    * a ``slice`` ``start:stop:step`` (``step > 0``) keeps the dimension, with
      ``len(range(start, stop, step))`` entries (``slice.indices(size)`` clips the
      bounds as Python does), starting ``start * stride`` further on, with stride
      ``stride * step``;
    * ``None`` inserts a new dimension of size 1;
    * one ``...`` (Ellipsis) stands for as many ``:`` as needed;

    missing trailing items mean ``:``. A view that starts ``offset`` entries into
    the storage is simply ``TensorData(storage[offset:], shape, strides)``: NumPy's
    slice of the storage is itself a view.

    Raises (the tests read the quoted phrases in the messages):
        IndexError: ``"too many indices ..."``; more than one ``...`` (as in
            PyTorch); an ``int`` out of range: ``"index 3 is out of range for
            dimension 1 of size 3"`` (the index as given, negative or not).
        ValueError: a slice step that is not positive (a message that says
            ``"positive"``).
        TypeError: anything else, such as a list or a tensor of indices: a
            message that names ``"index_select"`` (or ``gather``), the operations
            that pick entries.
    """
    # BEGIN SOLUTION 2.6: walk the key, accumulating offset, shape and strides
    key = key if isinstance(key, tuple) else (key,)
    if sum(1 for k in key if k is Ellipsis) > 1:
        raise IndexError("an index can hold only one ellipsis (...)")
    used = sum(1 for k in key if k is not None and k is not Ellipsis)
    if used > data.dims:
        raise IndexError(
            f"too many indices for a tensor of {data.dims} dimensions: {key}"
        )
    fill = (slice(None),) * (data.dims - used)
    if Ellipsis in key:
        at = key.index(Ellipsis)
        key = key[:at] + fill + key[at + 1 :]
    else:
        key = key + fill

    offset, shape, strides, d = 0, [], [], 0
    for k in key:
        if k is None:
            shape.append(1)
            strides.append(0)
            continue
        size, step = data.shape[d], data.strides[d]
        if isinstance(k, slice):
            start, stop, stride = k.indices(size)
            if stride <= 0:
                raise ValueError(f"slice steps must be positive, got {k}")
            length = len(range(start, stop, stride))
            if length > 0:
                offset += start * step
            shape.append(length)
            strides.append(step * stride)
        elif isinstance(k, (int, np.integer)) and not isinstance(k, bool):
            i = int(k) + size if k < 0 else int(k)
            if not 0 <= i < size:
                raise IndexError(
                    f"index {k} is out of range for dimension {d} of size {size}"
                )
            offset += i * step
        else:
            raise TypeError(
                f"tensor indices are ints, slices, None or ...; got "
                f"{type(k).__name__} (pick entries with index_select or gather)"
            )
        d += 1
    return TensorData(data._storage[offset:], tuple(shape), tuple(strides))
    # END SOLUTION


class GetItem(Function):
    """``a[key]``: a view (:func:`index_view`).

    Backward: the gradient of the entries that were picked, zero elsewhere: make
    zeros of ``a``'s shape, take the same view of them, and copy ``grad`` into that
    view (``id_map(grad, out=view)``).
    """

    @staticmethod
    def forward(ctx: Context, a: "Tensor", key: Any) -> "Tensor":
        # BEGIN SOLUTION 2.6: GetItem.forward
        ctx.save_for_backward(a.shape, key)
        return _new(a, index_view(a._tensor, key))
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> "Tensor":
        # BEGIN SOLUTION 2.6: GetItem.backward
        shape, key = ctx.saved_values
        out = grad.new_zeros(shape)
        grad.backend.id_map(grad, out=_new(out, index_view(out._tensor, key)))
        return out
        # END SOLUTION


def getitem(t: "Tensor", key: Any) -> "Tensor":
    """``t[key]`` with ints, slices, ``None`` and ``...`` (a view, see
    :func:`index_view`), and also, like PyTorch, integer tensors or lists
    (``x[tensor([0, 2])]``, ``x[rows, cols]``) and boolean masks
    (``x[x > 0]``), which copy (:class:`AdvancedIndex`)."""
    if is_advanced_key(key):
        return AdvancedIndex.apply(t, _numpy_key(key, t))
    return GetItem.apply(t, key)


def narrow(t: "Tensor", dim: int, start: int, length: int) -> "Tensor":
    """Entries ``start .. start + length - 1`` along ``dim``, as a view.

    Raises:
        IndexError: the range does not fit in the dimension.
    """
    dim = _dim(dim, t.dims)
    size = t.shape[dim]
    start = start + size if start < 0 else start
    if not (0 <= start <= size and 0 <= length and start + length <= size):
        raise IndexError(
            f"narrow(dim={dim}, start={start}, length={length}) does not fit in "
            f"dimension {dim} of size {size} (shape {t.shape})"
        )
    return getitem(t, (slice(None),) * dim + (slice(start, start + length),))


def _along(t: "Tensor", dim: int, index: Union[int, slice]) -> "Tensor":
    """The view ``t[:, ..., index]`` with ``index`` at dimension ``dim``."""
    return _new(t, index_view(t._tensor, (slice(None),) * dim + (index,)))


# ---------------------------------------------------------------------------
# Selecting entries
# ---------------------------------------------------------------------------


class Where(Function):
    """$x$ where ``condition`` is non-zero, else $y$ (all three broadcast).

    Forward: ``select_zip(c, x) + select_zip(c == 0, y)`` (``select`` gives 0, not
    $0 \\cdot x$, for unselected entries, so an infinite $x$ there does no harm).
    Backward: no gradient for the condition; $x$ gets ``grad`` where the condition
    holds and $y$ where it does not.
    """

    @staticmethod
    def forward(
        ctx: Context, condition: "Tensor", x: "Tensor", y: "Tensor"
    ) -> "Tensor":
        # BEGIN SOLUTION 2.6: Where.forward
        backend = x.backend
        other = backend.eq_zip(condition, condition.new_tensor(0.0))
        ctx.save_for_backward(condition, other)
        return backend.add_zip(
            backend.select_zip(condition, x), backend.select_zip(other, y)
        )
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> Tuple[None, "Tensor", "Tensor"]:
        # BEGIN SOLUTION 2.6: Where.backward
        condition, other = ctx.saved_values
        select = grad.backend.select_zip
        return None, select(condition, grad), select(other, grad)
        # END SOLUTION


def where(condition: "Tensor", x: Any, y: Any) -> "Tensor":
    """``torch.where(condition, x, y)``; ``x`` and ``y`` may be numbers."""
    return Where.apply(condition, condition._other(x), condition._other(y))


class IndexSelect(Function):
    """The slices ``index[0], index[1], ...`` of ``a`` along ``dim``: output slice
    $k$ is input slice ``index[k]`` (an index may repeat).

    Forward: copy slice by slice (``_along`` gives the views, ``id_map`` copies).
    Backward: scatter-add: input slice ``index[k]`` receives output slice $k$'s
    gradient, *added* to what it already has, since a repeated index was used
    several times.
    """

    @staticmethod
    def forward(
        ctx: Context, a: "Tensor", dim: int, index: Tuple[int, ...]
    ) -> "Tensor":
        # BEGIN SOLUTION 2.6: IndexSelect.forward
        ctx.save_for_backward(a.shape, dim, index)
        shape = list(a.shape)
        shape[dim] = len(index)
        out = a.new_zeros(shape)
        for k, i in enumerate(index):
            a.backend.id_map(_along(a, dim, i), out=_along(out, dim, k))
        return out
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> "Tensor":
        # BEGIN SOLUTION 2.6: IndexSelect.backward (scatter-add)
        shape, dim, index = ctx.saved_values
        backend = grad.backend
        out = grad.new_zeros(shape)
        for k, i in enumerate(index):
            target = _along(out, dim, i)
            backend.id_map(backend.add_zip(target, _along(grad, dim, k)), out=target)
        return out
        # END SOLUTION


def index_select(t: "Tensor", dim: int, index: Any) -> "Tensor":
    """``torch.index_select``: ``index`` is a 1-D tensor or a sequence of ints in
    ``[0, size)``.

    Raises:
        IndexError: an index out of range (naming it and the size).
    """
    dim = _dim(dim, t.dims)
    indices = as_indices(index, "index_select")
    for i in indices:
        if not 0 <= i < t.shape[dim]:
            raise IndexError(
                f"index_select: index {i} is out of range for dimension {dim} of "
                f"size {t.shape[dim]}"
            )
    return IndexSelect.apply(t, dim, indices)


class Gather(Function):
    """``torch.gather``: $\\mathrm{out}[p] = a[p \\text{ with entry } \\mathrm{dim}
    \\text{ replaced by } \\mathrm{index}[p]]$ for every index $p$ of ``index``
    (``out`` has ``index``'s shape).

    Forward: a loop over ``index._tensor.indices()`` reading and writing entries
    (``TensorData.get``/``set``). Backward: scatter-add ``grad`` into zeros of
    ``a``'s shape through the same index pairs.
    """

    @staticmethod
    def forward(ctx: Context, a: "Tensor", dim: int, index: "Tensor") -> "Tensor":
        # BEGIN SOLUTION 2.6: Gather.forward
        ctx.save_for_backward(a.shape, dim, index)
        out = a.new_zeros(index.shape)
        for p in index._tensor.indices():
            source = list(p)
            source[dim] = int(index._tensor.get(p))
            out._tensor.set(p, a._tensor.get(source))
        return out
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> "Tensor":
        # BEGIN SOLUTION 2.6: Gather.backward (scatter-add)
        shape, dim, index = ctx.saved_values
        out = grad.new_zeros(shape)
        data = out._tensor
        for p in index._tensor.indices():
            target = list(p)
            target[dim] = int(index._tensor.get(p))
            data.set(target, data.get(target) + grad._tensor.get(p))
        return out
        # END SOLUTION


def gather(t: "Tensor", dim: int, index: "Tensor") -> "Tensor":
    """``torch.gather(t, dim, index)``: ``index`` has ``t``'s number of dimensions,
    no larger sizes outside ``dim``, and whole numbers in ``[0, t.shape[dim])``.

    Raises:
        ValueError: shapes that do not fit (naming both).
        IndexError: an index out of range.
    """
    dim = _dim(dim, t.dims)
    check_gather(t.shape, dim, index)
    return Gather.apply(t, dim, index)


def sort(
    t: "Tensor", dim: int = -1, descending: bool = False
) -> Tuple["Tensor", "Tensor"]:
    """``(values, indices)``: ``t`` sorted along ``dim``, and where each value came
    from (``values = gather(t, dim, indices)``). The sort is stable: equal values
    keep their order, so ties give the smaller index first (also when
    ``descending``). Indices are floats, like every tensor here.

    The gradient flows through ``gather``: each input entry gets the gradient of
    the place it was sorted to (the inverse permutation).

    NaN counts as larger than every number, as in PyTorch: NaNs come last in
    ascending order and first in descending order. A ``dim`` out of range raises
    IndexError, naming it.

    Hint: for each line along ``dim`` (iterate over the indices of ``t``'s shape
    with size 1 at ``dim``), read the values and rank their positions with Python's
    ``sorted(range(n), key=..., reverse=descending)``, which is stable. A NaN
    compares false with everything, so give it a key that is larger than any
    number's, e.g. ``(1, 0.0)`` for NaN and ``(0, x)`` for a number ``x``.
    """
    if t.dims == 0:
        values, indices = sort(t.view(1), 0, descending)
        return values.view(()), indices.view(())
    # BEGIN SOLUTION 2.6: the ranks of every line along dim, then gather
    dim = _dim(dim, t.dims)
    n = t.shape[dim]
    indices = t.new_zeros(t.shape)
    lines = list(t.shape)
    lines[dim] = 1
    for base in TensorData(np.zeros(prod(lines)), lines).indices():
        idx = list(base)
        line = []
        for j in range(n):
            idx[dim] = j
            line.append(t._tensor.get(idx))
        keys = [(1, 0.0) if x != x else (0, x) for x in line]  # NaN: largest
        ranked = sorted(range(n), key=keys.__getitem__, reverse=descending)
        for place, j in enumerate(ranked):
            idx[dim] = place
            indices._tensor.set(idx, float(j))
    return gather(t, dim, indices), indices
    # END SOLUTION


def topk(
    t: "Tensor", k: int, dim: int = -1, largest: bool = True, sorted: bool = True
) -> Tuple["Tensor", "Tensor"]:
    """``(values, indices)`` of the ``k`` largest (``largest=False``: smallest)
    entries along ``dim``, in sorted order (``sorted`` is accepted for PyTorch's
    signature; the result is always sorted). Ties: the smaller index first. A
    0-d tensor is its own top entry: as in PyTorch, ``k`` is 0 or 1 there, and
    both results are 0-d (the entry and index 0, for either ``k``).

    Raises:
        ValueError: ``k`` is not in ``[0, size]``; the message names ``k``.
        IndexError: ``dim`` is out of range (the message names it).
    """
    # BEGIN SOLUTION 2.6: sort, then narrow to the first k
    if t.dims == 0:
        values, indices = topk(t.view(1), 1 if k == 0 else k, 0, largest)
        return values.view(()), indices.view(())
    dim = _dim(dim, t.dims)
    if not 0 <= k <= t.shape[dim]:
        raise ValueError(
            f"topk: k={k} is out of range for dimension {dim} of size {t.shape[dim]}"
        )
    values, indices = sort(t, dim, descending=largest)
    return narrow(values, dim, 0, k), narrow(indices, dim, 0, k)
    # END SOLUTION


# ---------------------------------------------------------------------------
# Statistics
# ---------------------------------------------------------------------------


def var(
    t: "Tensor",
    dim: Union[None, int, Sequence[int]] = None,
    unbiased: bool = True,
    keepdim: bool = False,
    *,
    correction: Optional[int] = None,
) -> "Tensor":
    """The variance over ``dim``:

    $$\\mathrm{var}(x) = \\frac{1}{n - c} \\sum_i (x_i - \\bar x)^2,$$

    with $n$ the number of entries reduced, and the correction $c = 1$ (unbiased,
    the default, as in PyTorch) or $c = 0$ (``unbiased=False``, the biased
    estimate); ``correction=c`` sets it directly (PyTorch 2's name). With too few
    entries ($n - c \\le 0$) the scale is $1/0 = \\infty$, as in PyTorch: the
    result is inf, or nan ($0 \\cdot \\infty$) where every deviation is 0 (one
    entry). Multiply by ``float("inf")`` instead of dividing by zero.
    """
    # BEGIN SOLUTION 2.6: mean with keepdim, squared deviations, sum, divide
    c = (1 if unbiased else 0) if correction is None else int(correction)
    n = prod([t.shape[d] for d in t._reduce_dims(dim)])
    scale = 1.0 / (n - c) if n - c > 0 else float("inf")
    deviation = t - t.mean(dim, keepdim=True)
    return (deviation * deviation).sum(dim, keepdim) * scale
    # END SOLUTION
