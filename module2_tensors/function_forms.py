"""Function forms of PyTorch that are more than a tensor method: ``kt.cat``,
``kt.where``, ``kt.einsum`` (with its ``Function``), ``kt.dot``, ... (given code).
Those that are the methods themselves (``kt.exp``, ``kt.sum``, ``kt.matmul``) are
the package's aliases, in ``__init__.py``.
"""

from __future__ import annotations

from functools import wraps
from string import ascii_letters
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from module0_fundamentals._exports import defined_here

from .engine import dtypes
from .engine.autograd import Context, Function

from . import indexing_functions as ixf
from . import shape_functions as sf
from .tensor import Tensor, linspace, randn, tensor
from .tensor_api.arithmetic import _promoted


def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """``torch.cat``: Task 2.6's :func:`~shape_functions.cat`, reporting the
    promoted dtype of ``tensors`` (``int64`` labels stay ``int64``)."""
    return _promoted(sf.cat(tensors, dim), tensors)


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """``torch.stack``: Task 2.6's :func:`~shape_functions.stack`, reporting the
    promoted dtype of ``tensors``, a list or tuple as PyTorch's (a generator,
    which the solution's ``list`` would take and leave the promotion nothing to
    read, is a TypeError at the slice, as ``torch.stack``'s)."""
    return _promoted(sf.stack(tensors[:], dim), tensors)


def where(condition: Tensor, x: Any = None, y: Any = None) -> Any:
    """``torch.where``: Task 2.6's :func:`~indexing_functions.where`, reporting the
    promoted dtype of ``x`` and ``y``; ``where(condition)`` alone is
    ``condition.nonzero(as_tuple=True)``."""
    if x is None and y is None:
        return condition.nonzero(as_tuple=True)
    return _promoted(ixf.where(condition, x, y), (x, y))


concat = concatenate = cat  # torch.concat, torch.concatenate

# More of PyTorch's functions, composed (the package adds methods as functions).


def var_mean(x: Tensor, *args: Any, **kwargs: Any) -> Tuple[Tensor, Tensor]:
    """``(x.var(...), x.mean(...))`` over the same ``dim`` and ``keepdim``
    (``torch.var_mean``; arguments as :meth:`Tensor.var`'s)."""
    return x.var(*args, **kwargs), _mean_as(x, *args, **kwargs)


def std_mean(x: Tensor, *args: Any, **kwargs: Any) -> Tuple[Tensor, Tensor]:
    """``(x.std(...), x.mean(...))``, as ``torch.std_mean``."""
    return x.std(*args, **kwargs), _mean_as(x, *args, **kwargs)


def _mean_as(x, dim=None, unbiased=True, keepdim=False, **_):  # (var's arguments)
    return x.mean(None if isinstance(dim, bool) else dim, keepdim)  # (var(False))


def vstack(tensors: Sequence[Tensor]) -> Tensor:
    """``torch.vstack``: 0-d and 1-D tensors as rows, joined along dim 0."""
    return cat([t.reshape(1, -1) if t.dims < 2 else t for t in tensors])


def hstack(tensors: Sequence[Tensor]) -> Tensor:
    """``torch.hstack``: joined along dim 1 (along dim 0 for 0-d and 1-D)."""
    tensors = [t.reshape(-1) if t.dims == 0 else t for t in tensors]
    return cat(tensors, 0 if tensors[0].dims == 1 else 1)


def column_stack(tensors: Sequence[Tensor]) -> Tensor:
    """``torch.column_stack``: 0-d and 1-D tensors as columns, joined along dim 1."""
    return hstack([t.reshape(-1, 1) if t.dims < 2 else t for t in tensors])


def dstack(tensors: Sequence[Tensor]) -> Tensor:
    """``torch.dstack``: :func:`atleast_3d` of each, joined along dim 2."""
    return cat([atleast_3d(t) for t in tensors], 2)


def _each(fn: Any, tensors: Tuple[Any, ...]) -> Any:
    """``fn`` of one tensor, or a tuple of ``fn`` of each (given or in one list)."""
    if len(tensors) == 1 and isinstance(tensors[0], Tensor):
        return fn(tensors[0])
    return tuple(map(fn, sf._shape_args(tensors)))


def atleast_1d(*tensors: Any) -> Any:
    """``torch.atleast_1d``: a 0-d tensor as shape ``(1,)``, the others as they are."""
    return _each(lambda t: t.reshape(1) if t.dims == 0 else t, tensors)


def atleast_2d(*tensors: Any) -> Any:
    """``torch.atleast_2d``: 0-d and 1-D tensors as one row, ``(1, n)``."""
    return _each(lambda t: atleast_1d(t).unsqueeze(0) if t.dims < 2 else t, tensors)


def atleast_3d(*tensors: Any) -> Any:
    """``torch.atleast_3d``: :func:`atleast_2d` of fewer dims, then a last dim of 1
    (``(n,)`` as ``(1, n, 1)``, ``(m, n)`` as ``(m, n, 1)``)."""
    return _each(lambda t: atleast_2d(t).unsqueeze(-1) if t.dims < 3 else t, tensors)


def broadcast_tensors(*tensors: Tensor) -> Tuple[Tensor, ...]:
    """The tensors expanded to their common broadcast shape (views)."""
    shape = np.broadcast_shapes(*(t.shape for t in tensors))
    return tuple(t.expand(*shape) for t in tensors)


def broadcast_shapes(*shapes: Any) -> Tuple[int, ...]:
    """``torch.broadcast_shapes``: the shape ``shapes`` (or ints) broadcast to."""
    return tuple(np.broadcast_shapes(*shapes))


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """``torch.as_tensor``: ``data`` itself when it is a tensor of ``dtype`` (or
    converted), else a new tensor of it."""
    if isinstance(data, Tensor):
        return data.to(dtype=dtype, device=device)  # (itself if neither changes)
    return tensor(data, dtype=dtype, device=device)


def normal(
    mean: Any = 0.0,
    std: Any = 1.0,
    size: Any = None,
    *,
    generator: Any = None,
    **kw: Any,
) -> Tensor:
    """``torch.normal``: samples of $N(\\text{mean}, \\text{std}^2)$, entrywise for
    tensors (broadcast), of shape ``size`` for numbers (no gradient: PyTorch's is 0)."""
    mean, std = as_tensor(mean).detach(), as_tensor(std).detach()
    shape = np.broadcast_shapes(mean.shape, std.shape) if size is None else size
    return randn(shape, generator=generator, **kw) * std + mean


def meshgrid(*tensors: Any, indexing: str = "ij") -> Tuple[Tensor, ...]:
    """``torch.meshgrid``: grid $k$ holds ``tensors[k]`` (1-D) along dim $k$,
    expanded to all their lengths; ``indexing="xy"`` swaps the first two dims."""
    tensors = sf._shape_args(tensors)  # (one list or the tensors themselves)
    shape = [int(t.numel()) for t in tensors]
    axes = [[-1 if j == k else 1 for j in range(len(shape))] for k in range(len(shape))]
    grids = [t.reshape(*a).expand(*shape) for t, a in zip(tensors, axes)]
    if indexing == "xy" and len(grids) > 1:
        grids = [g.transpose(0, 1) for g in grids]
    return tuple(grids)


def tensordot(a: Tensor, b: Tensor, dims: Any = 2) -> Tensor:
    """``torch.tensordot``: products summed over the last ``dims`` dims of ``a``
    and the first ``dims`` of ``b``, or over the dims ``dims = (dims_a, dims_b)``."""
    if isinstance(dims, int):
        dims = (range(a.dims - dims, a.dims), range(dims))
    # a's indices upper case, b's lower: einsum's implicit output (the indices
    # used once, sorted) is then a's free dims, then b's.
    sa, sb = list(ascii_letters[26 : 26 + a.dims]), list(ascii_letters[: b.dims])
    for i, j in zip(*dims):
        sb[j] = sa[i]
    return _promoted(einsum(f"{''.join(sa)},{''.join(sb)}", a, b), (a, b))


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: Any = None) -> Tensor:
    """``torch.cdist``: the ``p``-norm distances $\\|x_{1,i} - x_{2,j}\\|_p$ of the
    rows of ``x1`` and ``x2`` (batched; gradient 0 at distance 0, as PyTorch's)."""
    return (x1.unsqueeze(-2) - x2.unsqueeze(-3)).norm(p, dim=-1)


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """``torch.cartesian_prod``: every combination of the entries of the 1-D
    ``tensors``, one row each, the last varying fastest (one tensor: itself)."""
    grids = [g.reshape(-1) for g in meshgrid(*tensors)]
    return tensors[0] if len(tensors) == 1 else stack(grids, 1)


def unravel_index(indices: Tensor, shape: Any) -> Tuple[Tensor, ...]:
    """``torch.unravel_index``: the index along each dim of ``shape`` of each flat
    index (``int64``; modulo the size, negative ones counting from the end)."""
    if indices.is_floating_point():
        raise TypeError(f"unravel_index: integer indices expected, not {indices.dtype}")
    flat = indices.to_numpy().astype(np.int64) % int(np.prod(shape))
    return tuple(indices.new_tensor(i) for i in np.unravel_index(flat, shape))


def tril_indices(row: int, col: int, offset: int = 0, **kw: Any) -> Tensor:
    """``torch.tril_indices``: the (row, column) indices, a ``(2, N)`` tensor, of
    the lower triangle of a ``row`` by ``col`` matrix (diagonal ``offset`` on)."""
    return tensor(np.array(np.tril_indices(row, offset, col)), **kw)


def triu_indices(row: int, col: int, offset: int = 0, **kw: Any) -> Tensor:
    """``torch.triu_indices``: those of the upper triangle."""
    return tensor(np.array(np.triu_indices(row, offset, col)), **kw)


def logspace(start: float, end: float, steps: int, base: float = 10.0, **kw: Any):
    """``torch.logspace``: ``base`` to the powers ``linspace(start, end, steps)``,
    computed in floats and then converted to ``dtype`` (an integer dtype truncates
    the endpoints, unless ``steps`` is 1, and the powers, not the exponents:
    ``logspace(0, 1, 3, dtype=kt.int64)`` is 1, 3, 10, ``logspace(0.5, 1, 2, ...)``
    1, 10, as PyTorch's).
    """
    requires_grad, dtype = kw.pop("requires_grad", False), kw.pop("dtype", None)
    if dtype is not None and not dtype.is_floating_point and steps > 1:
        start, end = int(start), int(end)
    powers = base ** linspace(start, end, steps, **kw)
    return powers.to(dtype=dtype).requires_grad_(requires_grad)


def block_diag(*tensors: Tensor) -> Tensor:
    """``torch.block_diag``: the tensors (0-d and 1-D as one row) as the blocks
    along the diagonal of a matrix of zeros."""
    bs = [t.reshape(1, -1) if t.dims < 2 else t for t in tensors]
    end = np.cumsum([b.shape[1] for b in bs]).tolist()  # (each block's last column)
    bs = [sf.pad(b, (e - b.shape[1], end[-1] - e)) for b, e in zip(bs, end)]
    return _promoted(cat(bs), tensors)


def _number_first(method: Any) -> Any:
    """``method``'s function form, also taking a Python number first (``kt.pow(2,
    x)``, as PyTorch's): the number as a 0-d tensor, the other's ``new_tensor``
    (its float dtype, or ``int64``/the default float as the number is)."""

    @wraps(method)
    def form(a: Any, *args: Any, **kw: Any) -> Any:
        return method(a if is_tensor(a) else args[0].new_tensor(a), *args, **kw)

    return form


pow, xlogy = _number_first(Tensor.pow), _number_first(Tensor.xlogy)
float_power = _number_first(Tensor.float_power)


def is_tensor(obj: Any) -> bool:
    """``torch.is_tensor``: whether ``obj`` is a :class:`Tensor`."""
    return isinstance(obj, Tensor)


def searchsorted(
    sorted_sequence: Tensor,
    values: Any,
    *,
    out_int32: bool = False,
    right: bool = False,
    side: Any = None,
    sorter: Any = None,
) -> Tensor:
    """``torch.searchsorted``: for each of ``values``, how many entries of the
    last dim of ``sorted_sequence`` come before it: those $<$ it, or $\\le$ it
    with ``right`` (``side="right"``). A sequence of more dims has one row per
    row of ``values``; ``sorter`` puts a sequence in order (indices along its
    last dim). ``int64`` (``int32`` with ``out_int32``); no gradient."""
    seq, v = np.asarray(sorted_sequence), np.asarray(values)
    if sorter is not None:
        seq = np.take_along_axis(seq, np.asarray(sorter), -1)
    side = "right" if right else side or "left"
    rows = seq.reshape(-1, seq.shape[-1])  # (one, all the values, for a 1-D seq)
    pairs = zip(rows, v.reshape(len(rows), -1))
    found = np.reshape([np.searchsorted(s, x, side) for s, x in pairs], v.shape)
    return tensor(found, dtype=dtypes.int32 if out_int32 else dtypes.int64)


def vander(x: Tensor, N: Optional[int] = None, increasing: bool = False) -> Tensor:
    """``torch.vander``: the columns $x^{N-1}, \\dots, x, 1$ of the 1-D ``x``
    (``increasing``: $1, x, \\dots$; ``N`` by default ``len(x)``)."""
    powers = np.arange(x.shape[0] if N is None else N)
    return x.unsqueeze(1) ** x.new_tensor(powers if increasing else powers[::-1])


def bucketize(
    input: Any, boundaries: Tensor, *, out_int32: bool = False, right: bool = False
) -> Tensor:
    """``torch.bucketize``: the bucket of each entry of ``input`` among the 1-D
    ``boundaries``, :func:`searchsorted` of it in them."""
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def isin(
    elements: Any,
    test_elements: Any,
    *,
    assume_unique: bool = False,
    invert: bool = False,
) -> Tensor:
    """``torch.isin``: whether each of ``elements`` is one of ``test_elements``
    (``bool``; the opposite with ``invert``); either may be a number."""
    return tensor(np.isin(elements, test_elements, invert=invert))


class _Einsum(Function):
    """``einsum`` computed by NumPy; the gradient of operand $k$ is the einsum of
    $G$ with the other operands onto $k$'s indices, broadcast along the indices
    only $k$ has (they were summed away)."""

    @staticmethod
    def forward(ctx: Context, equation: str, *operands: Tensor) -> Tensor:
        # "ij,jk->ik" as ["ij", "jk"] and "ik"; without "->" the output is the
        # letters used once, in alphabetical order (NumPy's and PyTorch's rule).
        equation = equation.replace(" ", "")
        if "." in equation:
            raise ValueError("einsum: '...' (ellipsis) is not supported here")
        left, arrow, out = equation.partition("->")
        inputs = left.split(",")
        if len(inputs) != len(operands):
            raise ValueError(
                f"einsum(): the equation names {len(inputs)} operands but "
                f"{len(operands)} were given"
            )
        for subs in inputs:
            if len(set(subs)) != len(subs):
                raise ValueError(f"einsum: a repeated index in one operand ({subs!r})")
        if not arrow:
            out = "".join(sorted(c for c in set(left) - {","} if left.count(c) == 1))
        arrays = [t.to_numpy() for t in operands]
        ctx.save_for_backward(inputs, out, arrays)
        return tensor(np.einsum(f"{left}->{out}", *arrays), backend=operands[0].backend)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tuple[Any, ...]:
        inputs, out, arrays = ctx.saved_values
        g = grad.to_numpy()
        grads: List[Any] = [None]
        for k, subs in enumerate(inputs):
            # (operand k as ones of its shape: the indices only it has are broadcast)
            ones = [np.ones(a.shape) if j == k else a for j, a in enumerate(arrays)]
            part = np.einsum(f"{out},{','.join(inputs)}->{subs}", g, *ones)
            grads.append(tensor(part, backend=grad.backend))
        return tuple(grads)


def einsum(equation: str, *operands: Any) -> Tensor:
    """``torch.einsum``: products summed over the indices the output leaves
    out, e.g. ``einsum("bij,bjk->bik", a, b)`` (a batched matrix product) or
    ``einsum("i,i->", x, y)`` (a dot product). Operands may also be given as
    one list. Differentiable; computed on the host.

    Raises:
        ValueError: a wrong number of operands, ``...``, or a letter repeated
            inside one operand (a diagonal), which this library does not take.
    """
    # (one list or the operands, read as a shape's sizes are; promoted dtype)
    return _promoted(_Einsum.apply(equation, *(ops := sf._shape_args(operands))), ops)


# (last: the names defined above, and the number-first forms: wrapped methods,
# whose __module__ is the method's)
__all__ = defined_here(globals(), "pow", "xlogy", "float_power")
