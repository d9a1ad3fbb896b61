"""The losses of ``torch.nn.functional`` that no task asks for (given; the facade
``nn.functional`` exports them, the loss modules of ``_loss_layers.py`` call
them): ``smooth_l1_loss``, ``huber_loss``, ``kl_div``, ``margin_ranking_loss``,
``cosine_embedding_loss``, ``gaussian_nll_loss``, ``triplet_margin_loss`` (with
``pairwise_distance``), ``soft_margin_loss``, ``hinge_embedding_loss``,
``multilabel_soft_margin_loss``; and, for Task 4.6's ``losses.py``, its checks
and reductions and the weighted form of ``binary_cross_entropy_with_logits``
(``weight``, ``pos_weight``). Each has
PyTorch's signature and semantics, built from differentiable tensor operations;
it imports only Module 2.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from module0_fundamentals._exports import defined_here
from module2_tensors.engine.dtypes import result_type
from module2_tensors.function_forms import where
from module2_tensors.tensor import Tensor, tensor


def _as_tensor(value: Any, like: Tensor) -> Tensor:
    if isinstance(value, Tensor):
        return value
    return tensor(np.asarray(value, dtype=np.float64), backend=like.backend)


def _reduce(losses: Tensor, reduction: str, weight: Optional[Any] = None) -> Tensor:
    """Apply ``reduction`` (``"mean"``, ``"sum"`` or ``"none"``) to per-example
    losses, first multiplied by ``weight`` (broadcast) when one is given."""
    losses = losses if weight is None else losses * _as_tensor(weight, losses)
    # (Every caller has checked it, _check_loss: "mean" or "sum" is the
    # tensor method of that name.)
    return losses if reduction == "none" else getattr(losses, reduction)()


def _check_loss(
    name: str, reduction: str, input: Any, target: Any = None
) -> Optional[Tensor]:
    """The checks every loss makes before computing anything (as PyTorch): a
    known ``reduction``, then a tensor ``input``. A loss of the student's file
    makes them first, so these errors never wait on a Task 4.6 stub. Returns
    ``target`` as a tensor (None without one)."""
    known = ("mean", "sum", "none")
    if reduction not in known:
        raise ValueError(f"{name}: reduction must be one of {known}, got {reduction!r}")
    if not isinstance(input, Tensor):
        raise TypeError(f"{name} needs a Tensor input, got {type(input).__name__}")
    return None if target is None else _as_tensor(target, input)


def _same_shape(
    name: str, input: Any, target: Any, reduction: str, masks: bool = False
) -> Tensor:
    """``target`` as a tensor of ``input``'s shape, after :func:`_check_loss`
    (the checks of the losses between two tensors of one shape). (PyTorch only
    warns; a silent broadcast of ``(N, 1)`` against ``(N,)`` is a classic bug.)
    ``masks``: a bool target becomes its 0s and 1s in ``input``'s type (PyTorch's
    ``mse_loss`` promotes it; its ``l1_loss`` raises, as ``-`` of a mask does)."""
    target = _check_loss(name, reduction, input, target)
    if target.shape != input.shape:
        raise ValueError(
            f"{name}: input of shape {input.shape} and target of shape "
            f"{target.shape} must have the same shape"
        )
    if masks and target.is_mask:
        return target._as_dtype(result_type(input, target))
    return target


def smooth_l1_loss(
    input: Tensor, target: Any, reduction: str = "mean", beta: float = 1.0
) -> Tensor:
    """$\\ell = \\tfrac12 d^2 / \\beta$ where $|d| < \\beta$, else $|d| - \\tfrac12
    \\beta$, for $d = x - y$ (``beta=0`` is the L1 loss)."""
    target = _same_shape("smooth_l1_loss", input, target, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    dtype = result_type(input, target)  # (a mask operand: its 0s and 1s, as PyTorch)
    d = input._as_dtype(dtype) - target._as_dtype(dtype)
    losses = size = d.abs()
    if beta > 0.0:  # (beta = 0: the L1 loss)
        losses = where(size < beta, d * d * (0.5 / beta), size - 0.5 * beta)
    return _reduce(losses, reduction)


def huber_loss(
    input: Tensor, target: Any, reduction: str = "mean", delta: float = 1.0
) -> Tensor:
    """$\\ell = \\tfrac12 d^2$ where $|d| < \\delta$, else $\\delta (|d| -
    \\tfrac12 \\delta)$: ``delta`` times the smooth L1 loss with $\\beta =
    \\delta$."""
    target = _same_shape("huber_loss", input, target, reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    return smooth_l1_loss(input, target, reduction, delta) * delta


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
    checked = "mean" if reduction == "batchmean" else reduction  # (mean's checks)
    target = _check_loss("kl_div", checked, input, target)
    if log_target:
        losses = target.exp() * (target - input)
    else:  # (xlogy: 0 where y = 0; PyTorch's formula)
        losses = target.xlogy(target) - target * input
    if reduction == "batchmean":  # (the sum over the batch size, as PyTorch's)
        return losses.sum() / (input.shape[0] if input.dims > 0 else 1)
    return _reduce(losses, reduction)


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
    computed without overflow; $-|x|$ is written $-x - 2 \\max(-x, 0)$ so the
    gradient at 0 is $\\sigma(0)$'s and the second derivative $\\sigma'(0)$'s, as
    ``softplus``'s (``relu`` and arithmetic: a Task 2.4 test needs no later task)."""
    r = (-input).relu()
    softplus_neg = r + (-input - 2.0 * r).exp().log1p()
    p = 1.0 if pos_weight is None else _as_tensor(pos_weight, input)
    losses = (1.0 - target) * input + ((p - 1.0) * target + 1.0) * softplus_neg
    return _reduce(losses, reduction, weight)


def margin_ranking_loss(
    input1: Tensor,
    input2: Tensor,
    target: Any,
    margin: float = 0.0,
    reduction: str = "mean",
) -> Tensor:
    """``F.margin_ranking_loss``: $\\ell = \\max(0, -y (x_1 - x_2) +
    \\text{margin})$, $y = \\pm 1$ saying which input should rank higher."""
    target = _check_loss("margin_ranking_loss", reduction, input1, target)
    # (max(0, .) as a clamp, as PyTorch's: at the kink its gradient is 1, relu's 0;
    # equal scores meet the kink often. The same in the margin losses below.)
    return _reduce((-target * (input1 - input2) + margin).clamp(0.0), reduction)


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
    target = _check_loss("cosine_embedding_loss", reduction, input1, target)
    dim = target.dims
    norms = ((input1 * input1).sum(dim) + 1e-12) * ((input2 * input2).sum(dim) + 1e-12)
    cos = (input1 * input2).sum(dim) / norms.sqrt()
    similar = where(target == 1.0, 1.0 - cos, 0.0)
    losses = similar + where(target == -1.0, (cos - margin).clamp(0.0), 0.0)
    return _reduce(losses, reduction)


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
    _check_loss("gaussian_nll_loss", reduction, input)
    target, var = _as_tensor(target, input), _as_tensor(var, input)
    # (A float, 0-d, is one variance for every entry: it broadcasts.)
    if var.dims and var.shape == input.shape[:-1]:
        var = var.unsqueeze(-1)
    elif var.shape not in (input.shape, ()) and (
        var.dims != input.dims
        or sum(b for a, b in zip(input.shape, var.shape) if a != b) != 1
    ):
        raise ValueError("var is of incorrect size")
    if (var.detach() < 0.0).any().item():
        raise ValueError("var has negative entry/entries")
    var = var + (var.detach().clamp(min=eps) - var.detach())
    constant = math.log(2 * math.pi) if full else 0.0
    losses = 0.5 * (var.log() + (input - target).square() / var + constant)
    return _reduce(losses, reduction)


def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False
) -> Tensor:
    """``F.pairwise_distance``: $\\lVert x_1 - x_2 + \\epsilon \\rVert_p$ over the
    last dim (PyTorch adds ``eps`` to the difference, keeping the gradient
    finite where $x_1 = x_2$)."""
    return (x1 - x2 + eps).norm(p, dim=-1, keepdim=keepdim)


def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2.0,
    eps: float = 1e-6,
    swap: bool = False,
    reduction: str = "mean",
) -> Tensor:
    """``F.triplet_margin_loss``: $\\ell = \\max(0, d(a, p) - d(a, n) +
    \\text{margin})$ with $d$ :func:`pairwise_distance`; ``swap`` uses
    $\\min(d(a, n), d(p, n))$ as the negative's distance."""
    _check_loss("triplet_margin_loss", reduction, anchor)
    d_negative = pairwise_distance(anchor, negative, p, eps)
    if swap:  # (the negative's distance to the positive where that is smaller)
        d_negative = d_negative.minimum(pairwise_distance(positive, negative, p, eps))
    losses = margin + pairwise_distance(anchor, positive, p, eps) - d_negative
    return _reduce(losses.clamp(0.0), reduction)


def soft_margin_loss(input: Tensor, target: Any, reduction: str = "mean") -> Tensor:
    """``F.soft_margin_loss``: $\\ell = \\log(1 + e^{-y x})$ for targets $y = \\pm
    1$ (broadcast, as PyTorch's; computed as PyTorch does, so $-y x$ above about
    709 overflows to ``inf`` there too)."""
    target = _check_loss("soft_margin_loss", reduction, input, target)
    return _reduce((-input * target).exp().log1p(), reduction)


def hinge_embedding_loss(
    input: Tensor, target: Any, margin: float = 1.0, reduction: str = "mean"
) -> Tensor:
    """``F.hinge_embedding_loss``: $\\ell = x$ where $y = 1$ and $\\max(0,
    \\text{margin} - x)$ where $y = -1$ (for ``input`` $x$ a distance, $y$ saying
    whether the pair is similar); as PyTorch's, a target that is neither adds
    both."""
    y = _check_loss("hinge_embedding_loss", reduction, input, target)
    hinge = where(y != 1, (margin - input).clamp(0.0), 0.0) + where(y != -1, input, 0.0)
    return _reduce(hinge, reduction)


def multilabel_soft_margin_loss(
    input: Tensor, target: Any, weight: Any = None, reduction: str = "mean"
) -> Tensor:
    """``F.multilabel_soft_margin_loss``: per example, the mean over the classes
    (the last dim) of $-w_c [y_c \\log \\sigma(x_c) + (1 - y_c) \\log \\sigma(-x_c)]$,
    the binary cross-entropy of each class's score $x_c$ against its 0/1 label
    $y_c$ (``weight`` $w$ broadcast)."""
    y = _check_loss("multilabel_soft_margin_loss", reduction, input, target)
    losses = weighted_bce_with_logits(input, y, weight, None, "none")
    return _reduce(losses.mean(-1), reduction)


# (last: the names defined above)
__all__ = defined_here(globals(), but=("weighted_bce_with_logits",))
