"""Function forms of tensor methods, as in PyTorch: ``kt.exp(x)``,
``kt.matmul(a, b)``, ``kt.sum(x, dim)`` (given code). Each one calls the method.

They live apart from ``tensor.py`` because ``sum``, ``abs`` and friends would hide
Python's built-ins there. ``einsum`` (with its ``Function``) is here too.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np

from .engine.autograd import Context

from . import indexing_functions as ixf
from . import shape_functions as sf
from .engine import autograd
from .tensor import Tensor, tensor
from .engine import dtypes
from .tensor_api.arithmetic import _label
from .tensor_api.core import TensorLike
from .tensor_api.indexing import SortResult, TopKResult

__all__ = [
    "cat",
    "stack",
    "where",
    "gather",
    "index_select",
    "tril",
    "triu",
    "prod",
    "exp",
    "log",
    "sqrt",
    "sigmoid",
    "tanh",
    "matmul",
    "sum",
    "mean",
    "cumsum",
    "maximum",
    "minimum",
    "clamp",
    "abs",
    "max",
    "min",
    "argmax",
    "argmin",
    "sort",
    "topk",
    "mm",
    "bmm",
    "concat",
    "concatenate",
    "clip",
    "equal",
    "allclose",
    "isclose",
    "argsort",
    "einsum",
]


# Function forms, as torch.exp(x), torch.matmul(a, b), torch.sum(x, dim).
def exp(t: Tensor) -> Tensor:
    """``t.exp()``."""
    return t.exp()


def log(t: Tensor) -> Tensor:
    """``t.log()``."""
    return t.log()


def sqrt(t: Tensor) -> Tensor:
    """``t.sqrt()``."""
    return t.sqrt()


def sigmoid(t: Tensor) -> Tensor:
    """``t.sigmoid()``."""
    return t.sigmoid()


def tanh(t: Tensor) -> Tensor:
    """``t.tanh()``."""
    return t.tanh()


def matmul(a: Tensor, b: Tensor) -> Tensor:
    """``a @ b``."""
    return a @ b


def sum(
    t: Tensor,
    dim: Union[None, int, Sequence[int]] = None,
    keepdim: bool = False,
    *,
    dtype: Any = None,
) -> Tensor:
    """``t.sum(dim, keepdim, dtype=dtype)``."""
    return t.sum(dim, keepdim, dtype=dtype)


def mean(
    t: Tensor,
    dim: Union[None, int, Sequence[int]] = None,
    keepdim: bool = False,
    *,
    dtype: Any = None,
) -> Tensor:
    """``t.mean(dim, keepdim, dtype=dtype)``."""
    return t.mean(dim, keepdim, dtype=dtype)


def cumsum(t: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """``t.cumsum(dim, dtype=dtype)``."""
    return t.cumsum(dim, dtype=dtype)


def maximum(a: Tensor, b: TensorLike) -> Tensor:
    """``a.maximum(b)``."""
    return a.maximum(b)


def minimum(a: Tensor, b: TensorLike) -> Tensor:
    """``a.minimum(b)``."""
    return a.minimum(b)


def clamp(
    t: Tensor, min: Optional[TensorLike] = None, max: Optional[TensorLike] = None
) -> Tensor:
    """``t.clamp(min, max)``."""
    return t.clamp(min, max)


def abs(t: Tensor) -> Tensor:
    """``t.abs()``."""
    return t.abs()


def max(t: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    """``torch.max``: ``max(x)`` the largest entry, ``max(x, dim)`` the named
    tuple ``(values, indices)``, ``max(x, y)`` the entrywise maximum."""
    return t.max(dim, keepdim)


def min(t: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    """``torch.min`` (see :func:`max`)."""
    return t.min(dim, keepdim)


def argmax(t: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> Tensor:
    """``t.argmax(dim, keepdim)``."""
    return t.argmax(dim, keepdim)


def argmin(t: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> Tensor:
    """``t.argmin(dim, keepdim)``."""
    return t.argmin(dim, keepdim)


def sort(t: Tensor, dim: int = -1, descending: bool = False) -> SortResult:
    """``t.sort(dim, descending)``: ``(values, indices)`` as a named tuple."""
    return t.sort(dim, descending)


def topk(
    t: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True
) -> TopKResult:
    """``t.topk(k, dim, largest)``: ``(values, indices)`` as a named tuple."""
    return t.topk(k, dim, largest, sorted)


# Function forms PyTorch scripts use (``kt.mm(a, b)``); none hides a built-in.
def mm(a: Tensor, b: Tensor) -> Tensor:
    """``torch.mm``: ``a.mm(b)``."""
    return a.mm(b)


def bmm(a: Tensor, b: Tensor) -> Tensor:
    """``torch.bmm``: ``a.bmm(b)``."""
    return a.bmm(b)


def _promoted(out: Tensor, operands: Sequence[Any]) -> Tensor:
    """``out`` reporting PyTorch's promoted dtype of ``operands`` (tensors,
    numbers); float64 operands, the usual case, leave it as it is."""
    if all(getattr(x, "_dtype", 0) is None and not x.is_mask for x in operands):
        return out
    return _label(out, dtypes.result_type(*operands))


def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """``torch.cat``: Task 2.6's :func:`~shape_functions.cat`, reporting the
    promoted dtype of ``tensors`` (``int64`` labels stay ``int64``)."""
    return _promoted(sf.cat(tensors, dim), tensors)


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """``torch.stack``: Task 2.6's :func:`~shape_functions.stack`, reporting the
    promoted dtype of ``tensors``."""
    return _promoted(sf.stack(tensors, dim), tensors)


def where(condition: Tensor, x: Any, y: Any) -> Tensor:
    """``torch.where``: Task 2.6's :func:`~indexing_functions.where`, reporting the
    promoted dtype of ``x`` and ``y``."""
    return _promoted(ixf.where(condition, x, y), (x, y))


def gather(t: Tensor, dim: int, index: Tensor) -> Tensor:
    """``torch.gather``: ``t.gather(dim, index)`` (``t``'s dtype)."""
    return t.gather(dim, index)


def index_select(t: Tensor, dim: int, index: Any) -> Tensor:
    """``torch.index_select``: ``t.index_select(dim, index)`` (``t``'s dtype)."""
    return t.index_select(dim, index)


def tril(t: Tensor, diagonal: int = 0) -> Tensor:
    """``torch.tril``: ``t.tril(diagonal)`` (``t``'s dtype)."""
    return t.tril(diagonal)


def triu(t: Tensor, diagonal: int = 0) -> Tensor:
    """``torch.triu``: ``t.triu(diagonal)`` (``t``'s dtype)."""
    return t.triu(diagonal)


def prod(t: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> Tensor:
    """``torch.prod``: ``t.prod(dim, keepdim)`` (``int64`` for integers)."""
    return t.prod(dim, keepdim)


concat = concatenate = cat  # torch.concat, torch.concatenate


clip = clamp  # torch.clip


def equal(a: Tensor, b: Tensor) -> bool:
    """``torch.equal``: ``a.equal(b)``."""
    return a.equal(b)


def allclose(
    a: Tensor,
    b: TensorLike,
    rtol: float = 1e-05,
    atol: float = 1e-08,
    equal_nan: bool = False,
) -> bool:
    """``torch.allclose``: ``a.allclose(b, ...)``."""
    return a.allclose(b, rtol, atol, equal_nan)


def isclose(
    a: Tensor,
    b: TensorLike,
    rtol: float = 1e-05,
    atol: float = 1e-08,
    equal_nan: bool = False,
) -> Tensor:
    """``torch.isclose``: ``a.isclose(b, ...)``."""
    return a.isclose(b, rtol, atol, equal_nan)


def argsort(t: Tensor, dim: int = -1, descending: bool = False, stable: bool = False):
    """``torch.argsort``: ``t.argsort(dim, descending)``."""
    return t.argsort(dim, descending, stable)


def _einsum_parts(equation: str, count: int) -> Tuple[List[str], str]:
    """``"ij,jk->ik"`` as ``(["ij", "jk"], "ik")``; without ``->`` the output
    is the letters used once, in alphabetical order (NumPy's and PyTorch's rule).

    Raises:
        ValueError: a wrong number of operands, ``...``, or a letter repeated
            inside one operand (a diagonal), which this library does not take.
    """
    equation = equation.replace(" ", "")
    if "." in equation:
        raise ValueError("einsum: '...' (ellipsis) is not supported here")
    left, arrow, out = equation.partition("->")
    inputs = left.split(",")
    if len(inputs) != count:
        raise ValueError(
            f"einsum(): the equation names {len(inputs)} operands but {count} "
            f"were given"
        )
    for subs in inputs:
        if len(set(subs)) != len(subs):
            raise ValueError(f"einsum: a repeated index in one operand ({subs!r})")
    if not arrow:
        letters = "".join(inputs)
        out = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    return inputs, out


class _Einsum(autograd.Function):
    """``einsum`` computed by NumPy; the gradient of operand $k$ is the einsum of
    $G$ with the other operands onto $k$'s indices, broadcast along the indices
    only $k$ has (they were summed away)."""

    @staticmethod
    def forward(ctx: Context, equation: str, *operands: Tensor) -> Tensor:
        inputs, out = _einsum_parts(equation, len(operands))
        arrays = [t.to_numpy() for t in operands]
        ctx.save_for_backward(inputs, out, arrays)
        result = np.einsum(f"{','.join(inputs)}->{out}", *arrays)
        return tensor(np.asarray(result, dtype=np.float64), backend=operands[0].backend)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tuple[Any, ...]:
        inputs, out, arrays = ctx.saved_values
        g = grad.to_numpy()
        grads: List[Any] = [None]
        for k, subs in enumerate(inputs):
            others = [(s, a) for j, (s, a) in enumerate(zip(inputs, arrays)) if j != k]
            known = set(out).union(*[set(s) for s, _ in others])
            target = "".join(c for c in subs if c in known)
            spec = ",".join([out] + [s for s, _ in others]) + "->" + target
            part = np.einsum(spec, g, *[a for _, a in others])
            shape = [
                arrays[k].shape[i] if c in known else 1 for i, c in enumerate(subs)
            ]
            full = np.broadcast_to(part.reshape(shape), arrays[k].shape)
            grads.append(tensor(np.array(full), backend=grad.backend))
        return tuple(grads)


def einsum(equation: str, *operands: Any) -> Tensor:
    """``torch.einsum``: products summed over the indices the output leaves
    out, e.g. ``einsum("bij,bjk->bik", a, b)`` (a batched matrix product) or
    ``einsum("i,i->", x, y)`` (a dot product). Operands may also be given as
    one list. Differentiable; computed on the host.

    Raises:
        ValueError: see :func:`_einsum_parts`.
    """
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return _Einsum.apply(equation, *operands)
