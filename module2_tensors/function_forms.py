"""Function forms of tensor methods, as in PyTorch: ``kt.exp(x)``,
``kt.matmul(a, b)``, ``kt.sum(x, dim)`` (given code). Each one calls the method.

They live apart from ``tensor.py`` because ``sum``, ``abs`` and friends would hide
Python's built-ins there.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from .tensor import Tensor
from .tensor_api.core import TensorLike
from .tensor_api.indexing import SortResult, TopKResult

__all__ = [
    "exp",
    "log",
    "sqrt",
    "sigmoid",
    "tanh",
    "matmul",
    "sum",
    "mean",
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
    t: Tensor, dim: Union[None, int, Sequence[int]] = None, keepdim: bool = False
) -> Tensor:
    """``t.sum(dim, keepdim)``."""
    return t.sum(dim, keepdim)


def mean(
    t: Tensor, dim: Union[None, int, Sequence[int]] = None, keepdim: bool = False
) -> Tensor:
    """``t.mean(dim, keepdim)``."""
    return t.mean(dim, keepdim)


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
