"""Function forms of tensor methods, as in PyTorch: ``kt.exp(x)``,
``kt.matmul(a, b)``, ``kt.sum(x, dim)`` (given code). Most are the methods themselves.

They live apart from ``tensor.py`` because ``sum``, ``abs`` and friends would hide
Python's built-ins there. ``einsum`` (with its ``Function``) is here too.
"""

from __future__ import annotations

from typing import Any, List, Sequence, Tuple

import numpy as np

from .engine.autograd import Context

from . import indexing_functions as ixf
from . import shape_functions as sf
from .engine import autograd
from .tensor import Tensor, tensor
from .tensor_api.arithmetic import _promoted

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


# Function forms, as torch.exp(x), torch.matmul(a, b), torch.sum(x, dim): each is
# the method itself, so ``kt.exp(x)`` is ``x.exp()`` (``torch.max(x, y)`` included).
exp = Tensor.exp
log = Tensor.log
sqrt = Tensor.sqrt
sigmoid = Tensor.sigmoid
tanh = Tensor.tanh
matmul = Tensor.matmul
sum = Tensor.sum
mean = Tensor.mean
cumsum = Tensor.cumsum
maximum = Tensor.maximum
minimum = Tensor.minimum
clamp = clip = Tensor.clamp  # torch.clip
abs = Tensor.abs
max = Tensor.max
min = Tensor.min
argmax = Tensor.argmax
argmin = Tensor.argmin
sort = Tensor.sort
topk = Tensor.topk
argsort = Tensor.argsort
# Function forms PyTorch scripts use (``kt.mm(a, b)``); none hides a built-in.
mm = Tensor.mm
bmm = Tensor.bmm
gather = Tensor.gather
index_select = Tensor.index_select
tril = Tensor.tril
triu = Tensor.triu
prod = Tensor.prod
equal = Tensor.equal
allclose = Tensor.allclose
isclose = Tensor.isclose


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


concat = concatenate = cat  # torch.concat, torch.concatenate


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
