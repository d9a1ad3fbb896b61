"""Shape operations with their gradients, and gradient modes (Task 2.6).

Task 2.6 has two files: this one reshapes, joins and splits tensors;
``indexing_functions.py`` indexes and selects entries (``t[1, ::2]``, ``narrow``,
``where``, ``index_select``, ``gather``, ``sort``, ``topk``) and computes ``var``.
Write that one first: ``split``, ``Cat`` and ``Pad`` here cut their views with its
``narrow``, ``_along`` and ``index_view`` (imported below).

Three kinds of operation live here:

* **views** that only change shape and strides, never copying a number:
  ``squeeze``/``unsqueeze``, ``expand`` (stride 0), ``split`` (one ``narrow`` per
  piece). Their backward puts the gradient back in the input's shape;
* **copies** that gather numbers into a new tensor: ``cat``, ``pad``; their
  backward takes each input's part of the gradient, a view;
* **compositions** of operations that already have gradients: ``reshape``,
  ``flatten``, ``transpose``, ``stack``, ``repeat``. These need no backward of
  their own: autodiff differentiates the composition.

And the gradient modes: ``no_grad()``, ``retain_grad()`` (and, in
``tensor_api/gradients.py``, ``detach()`` and ``requires_grad_()``).
"""

from __future__ import annotations

from math import prod
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence, Tuple, Union

import numpy as np


from .engine.shapes import check_cat, expanded_shape, normalize_dims, padded_layout
from .engine.shapes import normalize_dim as _dim
from .tensor_data import TensorData, UserShape
from .engine.autograd import Context, Function, _new
from .engine.grad_modes import is_grad_enabled, run_inside, set_grad_enabled
from .indexing_functions import _along, index_view, narrow

if TYPE_CHECKING:
    from .tensor import Tensor

__all__ = [
    "no_grad",
    "inference_mode",
    "retain_grad",
    "reshape",
    "squeeze",
    "unsqueeze",
    "flatten",
    "transpose",
    "expand",
    "broadcast_to",
    "cat",
    "stack",
    "split",
    "chunk",
    "pad",
    "repeat",
    "tile",
    "Squeeze",
    "Unsqueeze",
    "Expand",
    "Cat",
    "Pad",
]


def _shape_args(args: Sequence[Any]) -> Tuple[Any, ...]:
    nested = len(args) == 1 and isinstance(args[0], (tuple, list))  # view((2, 3))
    return tuple(args[0] if nested else args)


# ---------------------------------------------------------------------------
# Gradient modes
# ---------------------------------------------------------------------------


class no_grad:
    """Context manager (and decorator) that switches gradient recording off:

    >>> with no_grad():
    ...     y = x * 2          # y has no history, even if x requires grad

    On exit the previous mode comes back (so ``no_grad`` blocks can nest). Use
    the engine's :func:`is_grad_enabled` and :func:`set_grad_enabled` (imported
    above). As a decorator
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
        return run_inside(no_grad, fn)  # fn run inside a fresh no_grad()


class inference_mode(no_grad):
    """``torch.inference_mode``: here the same as :class:`no_grad` (PyTorch
    also skips version counting; our counters cost nothing without autograd).
    ``inference_mode(False)`` changes nothing. (Given.)"""

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode

    def __enter__(self) -> "inference_mode":
        return super().__enter__() if self.mode else self

    def __exit__(self, *exc_info: Any) -> None:
        if self.mode:
            super().__exit__(*exc_info)

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        return super().__call__(fn) if self.mode else fn  # (False: fn as it is)


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
    chosen = range(t.dims) if dim is None else normalize_dims(dim, t.dims)
    dims = tuple(k for k in chosen if t.shape[k] == 1)
    return Squeeze.apply(t, dims)


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
    shape = t.shape[:start] + (prod(t.shape[start : end + 1]),) + t.shape[end + 1 :]
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
    return Expand.apply(t, shape)


def broadcast_to(t: "Tensor", shape: UserShape) -> "Tensor":
    """``t`` broadcast to ``shape`` (see :func:`expand`)."""
    return expand(t, *tuple(shape))


# ---------------------------------------------------------------------------
# Joining, splitting, padding, repeating
# ---------------------------------------------------------------------------


class Cat(Function):
    """The tensors joined along ``dim`` (their other sizes agree; ``cat`` checks).

    Forward: zeros of the joined shape; copy each tensor into its slice with
    ``id_map(t, out=slice)`` (``_along(out, dim, slice(start, stop))`` is the
    slice). Backward: each tensor's gradient is its slice of ``grad`` (a view).
    The first argument is ``dim``, so the gradients are ``(None, g_0, g_1, ...)``.
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
    return split(t, -(-size // chunks) if size else [0] * chunks, dim)


class Pad(Function):
    """``a`` surrounded by ``value``: ``inner`` is the key (a tuple of slices) of
    where ``a`` sits inside the padded result.

    Forward: ``new_full`` of the padded shape, then copy ``a`` into the ``inner``
    view (``index_view`` of its data, wrapped by ``_new``). Backward: the
    ``inner`` view of ``grad``.
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
    Clone before the last reshape: the result is always a copy, as torch's (with
    every count 1 the reshapes alone would return a view of ``t``).

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
    return reshape(expand(reshape(t, pairs), *target).clone(), final)
    # END SOLUTION


def tile(t: "Tensor", dims: Sequence[int]) -> "Tensor":
    """``torch.tile``: like :func:`repeat`, with missing leading sizes taken as 1."""
    return repeat(t, *(1,) * (t.dims - len(dims)), *dims)
