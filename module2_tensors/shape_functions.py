"""Shape and utility operations with their gradients, and gradient modes (Task 2.6).

Three kinds of operation live here:

* **views** that only change shape, strides and where the data starts, never copying
  a number: ``squeeze``/``unsqueeze``, ``expand`` (stride 0), indexing and slicing
  (``t[1, ::2]``), ``narrow``/``split``. Their backward puts the gradient back in
  place: into zeros of the input's shape, through the same view;
* **copies** that gather numbers into a new tensor: ``cat``, ``pad``,
  ``index_select``, ``gather``, ``where``; their backward scatters the gradient back,
  *adding* where one input entry was used several times (a repeated index);
* **compositions** of operations that already have gradients: ``reshape``,
  ``flatten``, ``transpose``, ``stack``, ``repeat``, ``sort``, ``topk``, ``var``. These
  need no backward of their own: autodiff differentiates the composition.

And the gradient modes: ``no_grad()``, ``retain_grad()`` (and, in ``tensor.py``,
``detach()`` and ``requires_grad_()``).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence, Tuple, Union

import numpy as np

from module1_scalar_autodiff.context import Context

from .engine.shapes import as_indices, check_cat, check_gather, expanded_shape
from .engine.shapes import normalize_dim as _dim, padded_layout
from .tensor_data import TensorData, UserShape
from .engine.autograd import Function, _new, is_grad_enabled, set_grad_enabled

# Given, complete: the rest of PyTorch's tensor API (advanced indexing, flip,
# ...; prod, norm, ...) lives in engine/indexing.py and engine/reductions.py; no
# task asks you to read them. The package (module2_tensors) exports their names.
from .engine.indexing import AdvancedIndex, _numpy_key, is_advanced_key

if TYPE_CHECKING:
    from .tensor import Tensor

__all__ = [
    "no_grad",
    "inference_mode",
    "retain_grad",
    "index_view",
    "reshape",
    "squeeze",
    "unsqueeze",
    "flatten",
    "transpose",
    "expand",
    "broadcast_to",
    "cat",
    "stack",
    "narrow",
    "split",
    "chunk",
    "pad",
    "repeat",
    "tile",
    "where",
    "getitem",
    "index_select",
    "gather",
    "sort",
    "topk",
    "var",
    "Squeeze",
    "Unsqueeze",
    "Expand",
    "Cat",
    "Pad",
    "Where",
    "GetItem",
    "IndexSelect",
    "Gather",
]


def _shape_args(args: Sequence[Any]) -> Tuple[Any, ...]:
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return tuple(args)


def _prod(sizes: Sequence[int]) -> int:
    out = 1
    for n in sizes:
        out *= n
    return out


# ---------------------------------------------------------------------------
# Gradient modes
# ---------------------------------------------------------------------------


class no_grad:
    """Context manager (and decorator) that switches gradient recording off:

    >>> with no_grad():
    ...     y = x * 2          # y has no history, even if x requires grad

    On exit the previous mode comes back (so ``no_grad`` blocks can nest). Use
    :func:`~module2_tensors.tensor_functions.is_grad_enabled` and
    :func:`~module2_tensors.tensor_functions.set_grad_enabled`. As a decorator
    it works with or without parentheses (``@no_grad()``, ``@no_grad``), as
    PyTorch's does.
    """

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and not kwargs and callable(args[0]):
            return cls()(args[0])  # @no_grad: decorate the function directly
        return super().__new__(cls)

    def __enter__(self) -> "no_grad":
        """Remember the current mode (for ``__exit__``), switch recording off and
        return ``self`` (what ``with no_grad() as g`` binds)."""
        # BEGIN SOLUTION 2.6: remember the mode, switch recording off, return self
        self._previous = is_grad_enabled()
        set_grad_enabled(False)
        return self
        # END SOLUTION

    def __exit__(self, *exc_info: Any) -> None:
        # BEGIN SOLUTION 2.6: restore the mode saved by __enter__
        set_grad_enabled(self._previous)
        # END SOLUTION

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            with no_grad():
                return fn(*args, **kwargs)

        return wrapped


class inference_mode(no_grad):
    """``torch.inference_mode``: here the same as :class:`no_grad` (PyTorch
    also skips version counting; our counters cost nothing without autograd).
    ``inference_mode(False)`` changes nothing. (Given.)"""

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode

    def __enter__(self) -> "inference_mode":
        self._previous = is_grad_enabled()
        if self.mode:
            set_grad_enabled(False)
        return self

    def __exit__(self, *exc_info: Any) -> None:
        set_grad_enabled(self._previous)


def retain_grad(t: "Tensor") -> "Tensor":
    """Ask ``backward`` to keep ``.grad`` on a computed (non-leaf) tensor; returns
    ``t``. The engine stores the gradient of every tensor whose ``retains_grad``
    attribute is true. On a leaf that requires grad it changes nothing (a leaf keeps
    its gradient anyway).

    Raises:
        RuntimeError: ``t`` does not require grad (there is nothing to keep).
    """
    # BEGIN SOLUTION 2.6
    if not t.requires_grad:
        raise RuntimeError("retain_grad() on a tensor that does not require grad")
    if not t.is_leaf:
        t.retains_grad = True
    return t
    # END SOLUTION


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
    (``x[tensor([0., 2.])]``, ``x[rows, cols]``) and boolean masks
    (``x[x > 0]``), which copy (:class:`AdvancedIndex`)."""
    if is_advanced_key(key):
        return AdvancedIndex.apply(t, _numpy_key(key))
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


def split(
    t: "Tensor", split_size_or_sections: Union[int, Sequence[int]], dim: int = 0
) -> Tuple["Tensor", ...]:
    """Cut ``t`` along ``dim`` into views: pieces of ``split_size`` entries (the
    last may be shorter), or pieces of the given sizes, which must add up to the
    dimension's size (PyTorch's ``torch.split``).

    Raises:
        ValueError: a non-positive split size, or sections that do not add up to
            the size (naming both).
        IndexError: ``dim`` is out of range (naming it).
    """
    # BEGIN SOLUTION 2.6: the list of piece sizes, then one narrow per piece
    dim = _dim(dim, t.dims)
    size = t.shape[dim]
    if isinstance(split_size_or_sections, (int, np.integer)):
        step = int(split_size_or_sections)
        if step <= 0:
            raise ValueError(f"split size must be positive, got {step}")
        sizes = [min(step, size - start) for start in range(0, size, step)] or [0]
    else:
        sizes = [int(n) for n in split_size_or_sections]
        if any(n < 0 for n in sizes) or sum(sizes) != size:
            raise ValueError(
                f"split sections {sizes} add up to {sum(sizes)}, but dimension "
                f"{dim} of shape {t.shape} has size {size}"
            )
    pieces, start = [], 0
    for n in sizes:
        pieces.append(narrow(t, dim, start, n))
        start += n
    return tuple(pieces)
    # END SOLUTION


def chunk(t: "Tensor", chunks: int, dim: int = 0) -> Tuple["Tensor", ...]:
    """At most ``chunks`` pieces of equal size (the last may be smaller) along
    ``dim``, as ``torch.chunk``."""
    if chunks <= 0:
        raise ValueError(f"chunks must be positive, got {chunks}")
    size = t.shape[_dim(dim, t.dims)]
    return split(t, max(1, -(-size // chunks)), dim)


# ---------------------------------------------------------------------------
# Reshaping views
# ---------------------------------------------------------------------------


def reshape(t: "Tensor", *shape: int) -> "Tensor":
    """``t`` with a new shape of the same size (one size may be ``-1``): a view
    when ``t`` is contiguous, else a view of a contiguous copy."""
    # BEGIN SOLUTION 2.6
    return t.contiguous().view(*_shape_args(shape))
    # END SOLUTION


class Squeeze(Function):
    """Remove the dimensions ``dims`` (each of size 1): a view that keeps the
    other sizes and strides. Backward: ``grad`` viewed back to ``a``'s shape."""

    @staticmethod
    def forward(ctx: Context, a: "Tensor", dims: Tuple[int, ...]) -> "Tensor":
        # BEGIN SOLUTION 2.6: Squeeze.forward (a view without the dims)
        ctx.save_for_backward(a.shape)
        keep = [k for k in range(a.dims) if k not in dims]
        data = a._tensor
        return _new(
            a,
            TensorData(
                data._storage,
                tuple(data.shape[k] for k in keep),
                tuple(data.strides[k] for k in keep),
            ),
        )
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> "Tensor":
        # BEGIN SOLUTION 2.6: Squeeze.backward
        (shape,) = ctx.saved_values
        return grad.contiguous().view(shape)
        # END SOLUTION


def squeeze(t: "Tensor", dim: Union[None, int, Sequence[int]] = None) -> "Tensor":
    """Remove dimensions of size 1: all of them (``dim=None``), or those of ``dim``
    (an int or a tuple) that have size 1 (others are left alone, as in PyTorch)."""
    if dim is None:
        dims = tuple(k for k, n in enumerate(t.shape) if n == 1)
    else:
        chosen = dim if isinstance(dim, (tuple, list)) else (dim,)
        dims = tuple(k for k in (_dim(d, t.dims) for d in chosen) if t.shape[k] == 1)
    return Squeeze.apply(t, dims) if dims else t


class Unsqueeze(Function):
    """Insert a dimension of size 1 at ``dim`` (in ``[0, a.dims]``): a view. A
    size-1 dimension is never stepped along, so its stride does not matter; use
    ``shape[dim] * strides[dim]`` (or 1 at the end) to keep contiguous tensors
    contiguous. Backward: ``grad`` viewed back to ``a``'s shape."""

    @staticmethod
    def forward(ctx: Context, a: "Tensor", dim: int) -> "Tensor":
        # BEGIN SOLUTION 2.6: Unsqueeze.forward
        ctx.save_for_backward(a.shape)
        data = a._tensor
        step = data.shape[dim] * data.strides[dim] if dim < a.dims else 1
        return _new(
            a,
            TensorData(
                data._storage,
                data.shape[:dim] + (1,) + data.shape[dim:],
                data.strides[:dim] + (step,) + data.strides[dim:],
            ),
        )
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> "Tensor":
        # BEGIN SOLUTION 2.6: Unsqueeze.backward
        (shape,) = ctx.saved_values
        return grad.contiguous().view(shape)
        # END SOLUTION


def unsqueeze(t: "Tensor", dim: int) -> "Tensor":
    """Insert a dimension of size 1 at ``dim``, in ``[-(dims + 1), dims]``."""
    return Unsqueeze.apply(t, _dim(dim, t.dims + 1))


def flatten(t: "Tensor", start_dim: int = 0, end_dim: int = -1) -> "Tensor":
    """Merge dimensions ``start_dim .. end_dim`` (inclusive) into one, of their
    product's size: shape ``(2, 3, 4, 5)`` with ``flatten(t, 1, 2)`` becomes
    ``(2, 12, 5)``. A 0-d tensor becomes shape ``(1,)``.

    Raises:
        ValueError: ``start_dim`` comes after ``end_dim``.
    """
    # BEGIN SOLUTION 2.6: the new shape, then reshape
    if t.dims == 0:
        return reshape(t, 1)
    start, end = _dim(start_dim, t.dims), _dim(end_dim, t.dims)
    if start > end:
        raise ValueError(
            f"flatten: start_dim {start_dim} comes after end_dim {end_dim} for shape "
            f"{t.shape}"
        )
    shape = t.shape[:start] + (_prod(t.shape[start : end + 1]),) + t.shape[end + 1 :]
    return reshape(t, shape)
    # END SOLUTION


def transpose(t: "Tensor", dim0: int, dim1: int) -> "Tensor":
    """Swap dimensions ``dim0`` and ``dim1`` (a view, through ``permute``)."""
    # BEGIN SOLUTION 2.6
    order = list(range(t.dims))
    d0, d1 = _dim(dim0, t.dims), _dim(dim1, t.dims)
    order[d0], order[d1] = order[d1], order[d0]
    return t.permute(*order)
    # END SOLUTION


class Expand(Function):
    """``a`` broadcast to ``shape`` without copying: new leading dimensions and
    stretched size-1 dimensions get stride 0, so every index along them reads the
    same storage entry.

    Backward: each entry of ``a`` was used by every entry it was stretched to, so
    its gradient is the sum of theirs, which is exactly what :func:`unbroadcast`
    does to whatever ``backward`` returns.
    """

    @staticmethod
    def forward(ctx: Context, a: "Tensor", shape: Tuple[int, ...]) -> "Tensor":
        # BEGIN SOLUTION 2.6: Expand.forward (stride 0 where a is stretched)
        extra = len(shape) - a.dims
        data = a._tensor
        strides = (0,) * extra + tuple(
            0 if n == 1 and shape[k + extra] != 1 else step
            for k, (n, step) in enumerate(zip(data.shape, data.strides))
        )
        return _new(a, TensorData(data._storage, shape, strides))
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> "Tensor":
        # BEGIN SOLUTION 2.6: Expand.backward
        return grad
        # END SOLUTION


def expand(t: "Tensor", *sizes: int) -> "Tensor":
    """Broadcast ``t`` to a larger shape without copying, as ``torch.expand``:
    ``sizes`` has at least ``t.dims`` entries, new dimensions go on the left, and a
    size of ``-1`` keeps the existing size.

    Raises:
        ValueError: the shape cannot be reached (naming both shapes and the dim).
    """
    shape = expanded_shape(t.shape, _shape_args(sizes))
    return t if shape == t.shape else Expand.apply(t, shape)


def broadcast_to(t: "Tensor", shape: UserShape) -> "Tensor":
    """``t`` broadcast to ``shape`` (see :func:`expand`)."""
    return expand(t, *tuple(shape))


# ---------------------------------------------------------------------------
# Joining, padding, repeating
# ---------------------------------------------------------------------------


def _along(t: "Tensor", dim: int, index: Union[int, slice]) -> "Tensor":
    """The view ``t[:, ..., index]`` with ``index`` at dimension ``dim``."""
    return _new(t, index_view(t._tensor, (slice(None),) * dim + (index,)))


class Cat(Function):
    """The tensors joined along ``dim`` (their other sizes agree; ``cat`` checks).

    Forward: zeros of the joined shape; copy each tensor into its slice with
    ``id_map(t, out=slice)``. Backward: each tensor's gradient is its slice of
    ``grad`` (a view). The first argument is ``dim``, so the gradients are
    ``(None, g_0, g_1, ...)``.
    """

    @staticmethod
    def forward(ctx: Context, dim: int, *tensors: "Tensor") -> "Tensor":
        # BEGIN SOLUTION 2.6: Cat.forward
        sizes = [t.shape[dim] for t in tensors]
        ctx.save_for_backward(dim, sizes)
        shape = list(tensors[0].shape)
        shape[dim] = sum(sizes)
        out = tensors[0].new_zeros(shape)
        start = 0
        for t, n in zip(tensors, sizes):
            out.backend.id_map(t, out=_along(out, dim, slice(start, start + n)))
            start += n
        return out
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> Tuple[Optional["Tensor"], ...]:
        # BEGIN SOLUTION 2.6: Cat.backward
        dim, sizes = ctx.saved_values
        grads, start = [], 0
        for n in sizes:
            grads.append(_along(grad, dim, slice(start, start + n)))
            start += n
        return (None, *grads)
        # END SOLUTION


def cat(tensors: Sequence["Tensor"], dim: int = 0) -> "Tensor":
    """Join tensors along an existing dimension ``dim``.

    Raises:
        ValueError: no tensors, or shapes that differ outside ``dim`` (naming both).
    """
    tensors = list(tensors)
    if not tensors:
        raise ValueError("cat() needs at least one tensor")
    dim = _dim(dim, tensors[0].dims)
    check_cat([t.shape for t in tensors], dim)
    return Cat.apply(dim, *tensors)


def stack(tensors: Sequence["Tensor"], dim: int = 0) -> "Tensor":
    """Join tensors of one shape along a *new* dimension ``dim``: the result has
    shape ``shape[:dim] + (len(tensors),) + shape[dim:]``.

    Raises:
        ValueError: no tensors, or two shapes that differ (naming both).
    """
    # BEGIN SOLUTION 2.6: unsqueeze each, then cat
    tensors = list(tensors)
    if not tensors:
        raise ValueError("stack() needs at least one tensor")
    for t in tensors[1:]:
        if t.shape != tensors[0].shape:
            raise ValueError(
                f"stack() needs tensors of one shape, got {tensors[0].shape} and "
                f"{t.shape}"
            )
    dim = _dim(dim, tensors[0].dims + 1)
    return cat([unsqueeze(t, dim) for t in tensors], dim)
    # END SOLUTION


class Pad(Function):
    """``a`` surrounded by ``value``: ``inner`` is the key (a tuple of slices) of
    where ``a`` sits inside the padded result.

    Forward: ``new_full`` of the padded shape, then copy ``a`` into the ``inner``
    view. Backward: the ``inner`` view of ``grad``.
    """

    @staticmethod
    def forward(
        ctx: Context,
        a: "Tensor",
        shape: Tuple[int, ...],
        inner: Tuple[slice, ...],
        value: float,
    ) -> "Tensor":
        # BEGIN SOLUTION 2.6: Pad.forward
        ctx.save_for_backward(inner)
        out = a.new_full(shape, value)
        a.backend.id_map(a, out=_new(out, index_view(out._tensor, inner)))
        return out
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> "Tensor":
        # BEGIN SOLUTION 2.6: Pad.backward
        (inner,) = ctx.saved_values
        return _new(grad, index_view(grad._tensor, inner))
        # END SOLUTION


def pad(t: "Tensor", pad: Sequence[int], value: float = 0.0) -> "Tensor":
    """Pad with a constant, as ``torch.nn.functional.pad``: ``pad`` holds
    ``(before, after)`` pairs starting from the *last* dimension, so
    ``pad(t, (1, 2))`` adds 1 entry before and 2 after along the last dimension, and
    ``pad(t, (1, 1, 2, 0))`` also adds 2 rows on top.

    Raises:
        ValueError: an odd number of entries, more pairs than dimensions, or a
            negative entry.
    """
    shape, inner = padded_layout(t.shape, tuple(int(p) for p in pad))
    return Pad.apply(t, shape, inner, float(value))


def repeat(t: "Tensor", *sizes: int) -> "Tensor":
    """Tile ``t``: ``sizes[k]`` copies along dimension ``k``, as ``torch.repeat``
    (``sizes`` may be longer than ``t.dims``: ``t`` then gets leading dims of size
    1). Shape ``(2, 3)`` repeated ``(2, 1, 2)`` becomes ``(2, 2, 6)``.

    Hint: view each size $n$ as ``(1, n)``, expand the 1 to the repeat count $r$
    and reshape ``(r, n)`` to ``r * n``: ``t[i]`` then appears $r$ times in a row.

    Raises:
        ValueError: fewer sizes than dimensions (the message names the shape), or
            a negative size.
    """
    # BEGIN SOLUTION 2.6: reshape to (1, n, 1, m, ...), expand, reshape
    sizes = _shape_args(sizes)
    if len(sizes) < t.dims or any(r < 0 for r in sizes):
        raise ValueError(
            f"repeat needs at least {t.dims} non-negative sizes for shape {t.shape}, "
            f"got {tuple(sizes)}"
        )
    shape = (1,) * (len(sizes) - t.dims) + t.shape
    pairs, target, final = [], [], []
    for n, r in zip(shape, sizes):
        pairs += [1, n]
        target += [r, n]
        final.append(r * n)
    return reshape(expand(reshape(t, pairs), *target), final)
    # END SOLUTION


def tile(t: "Tensor", dims: Sequence[int]) -> "Tensor":
    """``torch.tile``: like :func:`repeat`, with missing leading sizes taken as 1."""
    dims = tuple(dims)
    return repeat(t, *((1,) * (t.dims - len(dims)) + dims))


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
    for base in TensorData(np.zeros(_prod(lines)), lines).indices():
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
    entries ($n - c \\le 0$) the result is nan, as in PyTorch (multiply by
    ``float("nan")`` instead of dividing by zero).
    """
    # BEGIN SOLUTION 2.6: mean with keepdim, squared deviations, sum, divide
    c = (1 if unbiased else 0) if correction is None else int(correction)
    n = _prod([t.shape[d] for d in t._reduce_dims(dim)])
    scale = 1.0 / (n - c) if n - c > 0 else float("nan")
    deviation = t - t.mean(dim, keepdim=True)
    return (deviation * deviation).sum(dim, keepdim) * scale
    # END SOLUTION
