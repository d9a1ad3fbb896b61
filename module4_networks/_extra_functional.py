"""More of ``torch.nn.functional`` (private: the facade ``nn.functional`` exports
it, the loss modules of ``nn`` use it; no task asks a student to read it).

``one_hot``, ``normalize``, ``cosine_similarity``, ``layer_norm``,
``smooth_l1_loss``, ``huber_loss``, ``kl_div``, the weighted form of
``binary_cross_entropy_with_logits`` (``weight``, ``pos_weight``), the
activations ``hardtanh``, ``relu6``, ``mish``, ``prelu`` and the losses
``margin_ranking_loss``, ``cosine_embedding_loss``, ``gaussian_nll_loss``, each with
PyTorch's signature and semantics, built from differentiable tensor operations.
It imports only Module 2, so any module of this package may import it.
"""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence, Union

import numpy as np

from module2_tensors.engine import dtypes
from module2_tensors.indexing_functions import where
from module2_tensors.tensor import Tensor, tensor

__all__ = [
    "one_hot",
    "normalize",
    "cosine_similarity",
    "layer_norm",
    "smooth_l1_loss",
    "huber_loss",
    "kl_div",
    "weighted_bce_with_logits",
    "hardtanh",
    "relu6",
    "mish",
    "prelu",
    "margin_ranking_loss",
    "cosine_embedding_loss",
    "gaussian_nll_loss",
]


def _as_tensor(value: Any, like: Tensor) -> Tensor:
    if isinstance(value, Tensor):
        return value
    return tensor(np.asarray(value, dtype=np.float64), backend=like.backend)


def _reduced(losses: Tensor, reduction: str, name: str) -> Tensor:
    if reduction == "mean":
        return losses.mean()
    if reduction == "sum":
        return losses.sum()
    if reduction == "none":
        return losses
    raise ValueError(f"{name}: {reduction} is not a valid value for reduction")


def _check_shapes(name: str, input: Tensor, target: Tensor) -> None:
    # As mse_loss here: PyTorch only warns, and a silent broadcast is a bug.
    if input.shape != target.shape:
        raise ValueError(
            f"{name}: input of shape {input.shape} and target of shape "
            f"{target.shape} must have the same shape"
        )


def one_hot(input: Tensor, num_classes: int = -1) -> Tensor:
    """``F.one_hot``: shape ``(*input.shape, C)``, 1 at each class index, an
    ``int64`` tensor; ``num_classes=-1`` means ``max(input) + 1``.

    Raises:
        RuntimeError: a negative or fractional class, or one ``>= num_classes``
            (PyTorch's messages).
    """
    classes = np.asarray(input.to_numpy())
    if classes.size and (np.any(classes < 0) or np.any(classes % 1 != 0)):
        raise RuntimeError("Class values must be non-negative integers.")
    if num_classes == -1:
        num_classes = int(classes.max()) + 1 if classes.size else 0
    if classes.size and classes.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = np.eye(num_classes)[classes.astype(np.int64)]
    return tensor(out, backend=input.backend, dtype=dtypes.int64)


def normalize(
    input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12
) -> Tensor:
    """$x / \\max(\\lVert x \\rVert_p, \\epsilon)$ along ``dim``."""
    norm = input.norm(p, dim, keepdim=True)
    return input / norm.clamp(min=eps)


def cosine_similarity(
    x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8
) -> Tensor:
    """$\\sum_d \\frac{x_1}{\\max(\\lVert x_1 \\rVert, \\epsilon)} \\cdot
    \\frac{x_2}{\\max(\\lVert x_2 \\rVert, \\epsilon)}$ along ``dim`` (PyTorch
    2's form: each input is normalised first), after broadcasting the two."""
    x1, x2 = _as_tensor(x1, x2 if isinstance(x2, Tensor) else x1), _as_tensor(x2, x1)
    shape = np.broadcast_shapes(x1.shape, x2.shape)
    x1, x2 = x1.expand(*shape), x2.expand(*shape)
    n1 = x1.norm(2, dim, keepdim=True).clamp(min=eps)
    n2 = x2.norm(2, dim, keepdim=True).clamp(min=eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def layer_norm(
    input: Tensor,
    normalized_shape: Union[int, Sequence[int]],
    weight: Optional[Tensor] = None,
    bias: Optional[Tensor] = None,
    eps: float = 1e-5,
) -> Tensor:
    """$(x - \\mu) / \\sqrt{\\sigma^2 + \\epsilon}\\, \\gamma + \\beta$ over the last
    ``len(normalized_shape)`` dims ($\\sigma^2$ biased), as ``F.layer_norm``.

    Raises:
        ValueError: ``normalized_shape`` is not the input's trailing shape.
    """
    shape = (
        (normalized_shape,)
        if isinstance(normalized_shape, int)
        else tuple(normalized_shape)
    )
    if tuple(input.shape[input.dims - len(shape) :]) != shape or len(shape) == 0:
        raise ValueError(
            f"layer_norm: normalized_shape {list(shape)} does not match the "
            f"trailing dims of an input of shape {input.shape}"
        )
    dims = tuple(range(input.dims - len(shape), input.dims))
    mean = input.mean(dims, keepdim=True)
    centred = input - mean
    var = (centred * centred).mean(dims, keepdim=True)
    out = centred / (var + eps).sqrt()
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out


def smooth_l1_loss(
    input: Tensor, target: Any, reduction: str = "mean", beta: float = 1.0
) -> Tensor:
    """$\\ell = \\tfrac12 d^2 / \\beta$ where $|d| < \\beta$, else $|d| - \\tfrac12
    \\beta$, for $d = x - y$ (``beta=0`` is the L1 loss)."""
    target = _as_tensor(target, input)
    _check_shapes("smooth_l1_loss", input, target)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    d = input - target
    size = d.abs()
    if beta == 0.0:
        return _reduced(size, reduction, "smooth_l1_loss")
    losses = where(size < beta, d * d * (0.5 / beta), size - 0.5 * beta)
    return _reduced(losses, reduction, "smooth_l1_loss")


def huber_loss(
    input: Tensor, target: Any, reduction: str = "mean", delta: float = 1.0
) -> Tensor:
    """$\\ell = \\tfrac12 d^2$ where $|d| < \\delta$, else $\\delta (|d| -
    \\tfrac12 \\delta)$: ``delta`` times the smooth L1 loss with $\\beta =
    \\delta$."""
    target = _as_tensor(target, input)
    _check_shapes("huber_loss", input, target)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    d = input - target
    size = d.abs()
    losses = where(size < delta, d * d * 0.5, (size - 0.5 * delta) * delta)
    return _reduced(losses, reduction, "huber_loss")


def kl_div(
    input: Tensor,
    target: Any,
    reduction: str = "mean",
    log_target: bool = False,
) -> Tensor:
    """$\\ell = y (\\log y - x)$ for log-probabilities $x$ (``input``) and
    probabilities $y$ (0 where $y = 0$); with ``log_target``, $e^y (y - x)$.
    ``reduction="batchmean"`` divides the sum by the batch size, which is the
    true KL divergence ("mean" divides by every entry, as PyTorch does)."""
    target = _as_tensor(target, input)
    if log_target:
        losses = target.exp() * (target - input)
    else:
        positive = target > 0.0
        safe = where(positive, target, 1.0)  # log(1) = 0 where y = 0
        losses = where(positive, target * (safe.log() - input), 0.0)
    if reduction == "batchmean":
        batch = input.shape[0] if input.dims > 0 else 1
        return losses.sum() * (1.0 / batch)
    return _reduced(losses, reduction, "kl_div")


def weighted_bce_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Optional[Any],
    pos_weight: Optional[Any],
    reduction: str,
) -> Tensor:
    """Binary cross-entropy of raw scores with per-entry ``weight`` $w$ and a
    positive-class weight ``pos_weight`` $p$ (broadcast along the last dim):

    $$\\ell = w \\left[(1 - y) x + (1 + (p - 1) y)\\left(\\log(1 + e^{-|x|}) +
    \\max(-x, 0)\\right)\\right],$$

    which is $-w[p\\, y \\log \\sigma(x) + (1 - y) \\log(1 - \\sigma(x))]$
    computed without overflow; $\\max(-x, 0)$ is written $(|x| - x) / 2$ so the
    gradient at 0 is $\\sigma(0)$'s."""
    magnitude = input.abs()
    softplus_neg = (-magnitude).exp().log1p() + (magnitude - input) * 0.5
    if pos_weight is not None:
        log_weight = (_as_tensor(pos_weight, input) - 1.0) * target + 1.0
        losses = (1.0 - target) * input + log_weight * softplus_neg
    else:
        losses = (1.0 - target) * input + softplus_neg
    if weight is not None:
        losses = losses * _as_tensor(weight, input)
    return _reduced(losses, reduction, "binary_cross_entropy_with_logits")


def hardtanh(
    input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False
) -> Tensor:
    """``F.hardtanh``: $\\min(\\max(x, \\text{min\\_val}), \\text{max\\_val})$;
    gradient 1 strictly inside the range, 0 outside and at its ends (PyTorch's)."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    inside = (input > min_val).logical_and(input < max_val)
    return where(inside, input, input.detach().clamp(min_val, max_val))


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """``F.relu6``: $\\min(\\max(x, 0), 6)$, ``hardtanh(x, 0, 6)``."""
    return hardtanh(input, 0.0, 6.0)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """``F.mish``: $x \\tanh(\\operatorname{softplus}(x))$, with softplus
    computed stably as $\\max(x, 0) + \\log(1 + e^{-|x|})$."""
    magnitude = input.abs()
    softplus = (input + magnitude) * 0.5 + (-magnitude).exp().log1p()
    return input * softplus.tanh()


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``F.prelu``: $x$ where $x > 0$, else $a x$, with one slope $a$ per channel
    (dim 1, or dim 0 of a 1-D input; ``weight`` of shape ``(C,)``) or one for
    all (``weight`` of one element)."""
    shape = [1] * input.dims
    if weight.size != 1:  # (``size`` is the number of elements here)
        shape[1 if input.dims >= 2 else 0] = weight.size
    return where(input > 0.0, input, weight.view(*shape) * input)


def margin_ranking_loss(
    input1: Tensor,
    input2: Tensor,
    target: Any,
    margin: float = 0.0,
    reduction: str = "mean",
) -> Tensor:
    """``F.margin_ranking_loss``: $\\ell = \\max(0, -y (x_1 - x_2) +
    \\text{margin})$, $y = \\pm 1$ saying which input should rank higher."""
    target = _as_tensor(target, input1)
    losses = (-target * (input1 - input2) + margin).relu()
    return _reduced(losses, reduction, "margin_ranking_loss")


def cosine_embedding_loss(
    input1: Tensor,
    input2: Tensor,
    target: Any,
    margin: float = 0.0,
    reduction: str = "mean",
) -> Tensor:
    """``F.cosine_embedding_loss``: with the cosine $c$ of each pair (over the
    last dim, PyTorch's $10^{-12}$ added to each squared norm), $\\ell = 1 - c$
    where $y = 1$ and $\\max(0, c - \\text{margin})$ where $y = -1$."""
    target = _as_tensor(target, input1)
    dim = target.dims
    dot = (input1 * input2).sum(dim)
    norms = ((input1 * input1).sum(dim) + 1e-12) * ((input2 * input2).sum(dim) + 1e-12)
    cos = dot / norms.sqrt()
    similar = where(target == 1.0, 1.0 - cos, 0.0)
    losses = similar + where(target == -1.0, (cos - margin).relu(), 0.0)
    return _reduced(losses, reduction, "cosine_embedding_loss")


def gaussian_nll_loss(
    input: Tensor,
    target: Any,
    var: Any,
    full: bool = False,
    eps: float = 1e-6,
    reduction: str = "mean",
) -> Tensor:
    """``F.gaussian_nll_loss``: the negative log-likelihood of ``target`` under
    $N(\\text{input}, \\text{var})$, $\\ell = \\tfrac12 (\\log v + (x - y)^2 / v)$
    (plus $\\tfrac12 \\log 2\\pi$ with ``full``). ``var`` has ``input``'s shape,
    or it without its last dim or with 1 there (one variance per row), or is a
    float. As PyTorch, $v$ is clamped at ``eps`` without gradient (the
    gradient passes to ``var`` as if unclamped).

    Raises:
        ValueError: a negative variance, a ``var`` of another shape, or an
            unknown reduction.
    """
    target, var = _as_tensor(target, input), _as_tensor(var, input)
    if var.dims == 0:  # a float: one variance for every entry
        var = var * input.detach().new_ones(input.shape)
    elif var.shape == input.shape[:-1]:
        var = var.unsqueeze(-1)
    elif var.shape != input.shape and (
        var.dims != input.dims
        or sum(b for a, b in zip(input.shape, var.shape) if a != b) != 1
    ):
        raise ValueError("var is of incorrect size")
    if (var.detach() < 0.0).any().item():
        raise ValueError("var has negative entry/entries")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(reduction + " is not valid")
    var = var + (var.detach().clamp(min=eps) - var.detach())
    difference = input - target
    losses = 0.5 * (var.log() + difference * difference / var)
    if full:
        losses = losses + 0.5 * math.log(2 * math.pi)
    return _reduced(losses, reduction, "gaussian_nll_loss")
