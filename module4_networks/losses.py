"""Loss functions (Task 4.6), with PyTorch's signatures and reductions.

Every loss compares a prediction with a target and returns, depending on
``reduction``, the mean over the examples (``"mean"``, the default), the sum
(``"sum"``) or the per-example losses (``"none"``). They are built from tensor
operations, so their gradients come from autodiff.

Class targets are *indices* (``target[n]`` in ``0 .. C-1``, a tensor or a sequence of
whole numbers), as in PyTorch: a one-hot mask picks the log-probability of the
right class, $\\text{one\\_hot}[n, c] = [c = \\text{target}[n]]$, which the
comparison ``target.view(N, 1) == arange(C)`` builds by broadcasting.
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from module2_tensors.engine.autograd import Context, Function

from module2_tensors.function_forms import where  # noqa: F401 (clamping, Task 4.6)
from module2_tensors.tensor import Tensor, arange, tensor  # noqa: F401 (arange: 4.6)

from ._loss_functions import (
    _check_loss,
    _reduce,
    _same_shape,
    weighted_bce_with_logits,
)

__all__ = [
    "cross_entropy",
    "nll_loss",
    "mse_loss",
    "l1_loss",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
]


def _class_dim(input: Tensor, name: str = "loss") -> int:
    """The dim of ``input`` that holds the classes (1, or 0 for one example)."""
    if input.dims == 0:
        raise ValueError(f"{name}: input must have a class dimension, got shape ()")
    return 1 if input.dims > 1 else 0


def _class_weight(weight: Optional[Tensor], classes: int) -> None:
    """Raise unless ``weight`` is ``None`` or holds one number per class."""
    if weight is not None and weight.shape != (classes,):
        raise ValueError(
            f"weight must have shape ({classes},) (one per class), got {weight.shape}"
        )


def _class_targets(
    name: str, input: Tensor, target: Any, weight: Optional[Tensor], ignore_index: int
) -> Tuple[Tensor, Tensor]:
    """``(target, weights)``: ``target`` as a tensor on ``input``'s backend, checked
    against ``input`` (-1, no class, where ignored), and $w_{\\text{target}[n]}$ per
    example (1 without ``weight``), 0 where ignored.

    ``input`` is ``(N, C)`` or ``(N, C, d1, ...)`` (or ``(C,)`` for one example);
    ``target`` must then be ``(N,)``, ``(N, d1, ...)`` (or ``()``) and hold whole
    numbers in ``[0, C)`` or equal to ``ignore_index``; a float tensor of class
    indices raises, as PyTorch's (often a probability target of the wrong shape).
    """
    if isinstance(target, Tensor) and target.is_floating_point():
        got = f"{name}: expected target dtype to be Long or Byte, but got"
        raise RuntimeError(f"{got} {target.dtype} (class indices: use .long())")
    values = np.asarray(target, dtype=np.float64)  # (a tensor through __array__)
    classes = input.shape[_class_dim(input, name)]
    expected = (input.shape[0],) + input.shape[2:] if input.dims > 1 else ()
    if values.shape != expected:
        raise ValueError(
            f"{name}: target of shape {values.shape} does not match input of shape "
            f"{input.shape} (expected class indices of shape {expected}, or "
            f"class probabilities of shape {input.shape})"
        )
    kept = values != ignore_index
    bad = ((values != np.round(values)) | (values < 0) | (values >= classes)) & kept
    if bad.any():
        raise IndexError(
            f"{name}: target {values[bad].flat[0]:g} is out of bounds for "
            f"{classes} classes"
        )
    _class_weight(weight, classes)
    w = np.ones(classes) if weight is None else weight.detach().to_numpy()
    # (an ignored entry's target -1, no class: ignore_index may name a class, and
    # its -inf, a masked pad token's, would give 0 * -inf = nan; its weight is 0)
    values = np.where(kept, values, -1.0)
    per_example = np.where(kept, w[values.astype(int)], 0.0)
    # (the weights in input's float dtype, new_tensor's: float32 stays)
    return tensor(values, backend=input.backend), input.new_tensor(per_example)


def _picked(input: Tensor, target: Tensor) -> Tensor:
    """$\\text{input}[n, \\text{target}[n]]$ for every example $n$ (shape of
    ``target``), and 0 where ``target`` is no class (an ignored entry).

    A one-hot mask, $\\text{one\\_hot}[n, c] = [c = \\text{target}[n]]$, picks the
    entry: ``target.unsqueeze(class_dim) == arange(C)`` (viewed along the class
    dim) builds it by broadcasting; select with ``where(one_hot, input, 0.0)``
    and sum over the class dim. (Not ``input * one_hot``: a class masked with
    $-\\infty$, common in practice, would give $0 \\cdot (-\\infty) = $ nan.)
    """
    # BEGIN SOLUTION 4.6: one-hot mask by broadcasting ==, then sum over classes
    class_dim = _class_dim(input)
    shape = [1] * input.dims
    shape[class_dim] = input.shape[class_dim]
    classes = arange(input.shape[class_dim], backend=input.backend).view(*shape)
    one_hot = target.unsqueeze(class_dim) == classes
    return where(one_hot, input, 0.0).sum(dim=class_dim)
    # END SOLUTION


def _weighted_reduce(losses: Tensor, weights: Tensor, reduction: str) -> Tensor:
    """``"mean"`` is the weighted mean $\\sum_n w_n \\ell_n / \\sum_n w_n$ (PyTorch's
    rule). When every target is ignored it is nan, as in PyTorch, and the
    gradient is 0 (not the nan of $0 / 0$'s derivative)."""
    if reduction == "mean":
        total = weights.sum()
        if total.item() == 0.0:
            return losses.sum() * 0.0 + float("nan")
        return losses.sum() / total
    return _reduce(losses, reduction)


def nll_loss(
    input: Tensor,
    target: Any,
    weight: Optional[Tensor] = None,
    ignore_index: int = -100,
    reduction: str = "mean",
) -> Tensor:
    r"""Negative log-likelihood: $\ell_n = -w_{t_n}\, \text{input}[n, t_n]$.

    ``input`` holds log-probabilities ``(N, C)`` (or ``(N, C, d1, ...)``, or
    ``(C,)``), e.g. from ``log_softmax(x, dim=1)``; ``target`` holds class indices
    ``(N,)`` (or ``(N, d1, ...)``, or a single index). ``weight`` (``(C,)``)
    weighs each class; entries whose target is ``ignore_index`` count for
    nothing. ``"mean"`` divides by $\sum_n w_{t_n}$ over the kept entries.

    Raises:
        ValueError: shapes that do not match, or a bad ``reduction``.
        IndexError: a target outside ``[0, C)`` (other than ``ignore_index``).
    """
    _check_loss("nll_loss", reduction, input)
    target, weights = _class_targets("nll_loss", input, target, weight, ignore_index)
    return _weighted_reduce(-_picked(input, target) * weights, weights, reduction)


def _log_probabilities(input: Tensor) -> Tensor:
    """``log_softmax`` over the class dim (1, or 0 for a single example)."""
    # BEGIN SOLUTION 4.6: log_softmax over the class dim
    return input.log_softmax(dim=_class_dim(input))
    # END SOLUTION


def cross_entropy(
    input: Tensor,
    target: Any,
    weight: Optional[Tensor] = None,
    ignore_index: int = -100,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    r"""Cross-entropy of raw scores (logits), like ``torch.nn.functional.
    cross_entropy``:

    $$\ell_n = -\log \mathrm{softmax}(x_n)_{t_n}
            = -x_{n, t_n} + \log \sum_c e^{x_{n, c}},$$

    that is ``nll_loss(log_softmax(input, dim=1), target, ...)`` for class-index
    targets (shapes as there, with ``weight`` and ``ignore_index``). A target of
    ``input``'s shape holds class *probabilities* $p$: $\ell_n = -\sum_c w_c
    p_{n, c} \log \mathrm{softmax}(x_n)_c$, and ``"mean"`` divides by $N$.
    ``label_smoothing`` $\varepsilon$ mixes the target with the uniform
    distribution: $(1 - \varepsilon)$ of the loss above plus $\varepsilon$ times
    $-\frac1C \sum_c w_c \log \mathrm{softmax}(x_n)_c$.

    Do not apply a softmax first: the loss does it, stably.
    """
    _check_loss("cross_entropy", reduction, input)
    if label_smoothing > 1.0:
        raise ValueError(
            f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}"
        )
    label_smoothing = max(label_smoothing, 0.0)  # (PyTorch ignores a negative one)
    class_dim = _class_dim(input, "cross_entropy")
    logp = _log_probabilities(input)
    classes = input.shape[class_dim]
    _class_weight(weight, classes)
    trailing = (1,) * (input.dims - 1 - class_dim)  # (w broadcasts on the classes)
    w = 1.0 if weight is None else weight.detach().view(classes, *trailing)
    if isinstance(target, Tensor) and target.shape == input.shape:  # probabilities
        target = target * (1.0 - label_smoothing) + label_smoothing / classes
        return _reduce(-(logp * target * w).sum(dim=class_dim), reduction)
    target, weights = _class_targets(
        "cross_entropy", input, target, weight, ignore_index
    )
    losses = -_picked(logp, target) * weights
    if label_smoothing:
        smooth = where(target >= 0.0, -(logp * w).sum(class_dim), 0.0) / classes
        losses = losses * (1.0 - label_smoothing) + smooth * label_smoothing
    return _weighted_reduce(losses, weights, reduction)


def mse_loss(input: Tensor, target: Any, reduction: str = "mean") -> Tensor:
    r"""Mean squared error: $\ell_i = (x_i - y_i)^2$, averaged over every entry.

    ``input`` and ``target`` must have the same shape (PyTorch only warns; a
    silent broadcast of ``(N, 1)`` against ``(N,)`` is a classic bug).
    """
    target = _same_shape("mse_loss", input, target, reduction, masks=True)
    # BEGIN SOLUTION 4.6
    diff = input - target
    return _reduce(diff * diff, reduction)
    # END SOLUTION


def l1_loss(input: Tensor, target: Any, reduction: str = "mean") -> Tensor:
    r"""Mean absolute error: $\ell_i = |x_i - y_i|$ (same shapes, as
    :func:`mse_loss`). (Given.)"""
    target = _same_shape("l1_loss", input, target, reduction)
    return _reduce((input - target).abs(), reduction)


class BinaryCrossEntropy(Function):
    r"""$\ell = -\big(y \log p + (1 - y) \log(1 - p)\big)$ entry by entry, with
    PyTorch's gradients (its own backward, because autodiff of the clamped
    formula would give 0 at $p \in \{0, 1\}$):

    * each log is clamped at $-100$ (a tiny $p$ is raised to $e^{-100}$ before
      the log, so nothing is $-\infty$);
    * $\partial \ell / \partial p = (p - y) / \max\big(p (1 - p),
      10^{-12}\big)$: the exact derivative inside $(0, 1)$, finite at the ends
      (0 where $p = y$, $\pm 10^{12}$ where they disagree);
    * $\partial \ell / \partial y = \log(1 - p) - \log p$, *not* clamped (as
      PyTorch): $+\infty$ at $p = 0$, $-\infty$ at $p = 1$.
    """

    @staticmethod
    def forward(ctx: Context, p: Tensor, y: Tensor) -> Tensor:
        # BEGIN SOLUTION 4.6: clamped logs (with where), save what backward needs
        a, t = p.detach(), y.detach()
        tiny = float(np.exp(-100.0))
        log_p = where(a < tiny, tiny, a).log()
        log_q = where((1.0 - a) < tiny, tiny, 1.0 - a).log()
        ctx.save_for_backward(a, t)
        return -(t * log_p + (1.0 - t) * log_q)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tuple[Tensor, Tensor]:
        # BEGIN SOLUTION 4.6: (p - y) / max(p (1 - p), 1e-12), and log(1-p) - log p
        a, t = ctx.saved_values
        denominator = a * (1.0 - a)
        denominator = where(denominator < 1e-12, 1e-12, denominator)
        grad_y = None
        if ctx.needs_input_grad[1]:
            grad_y = grad * ((1.0 - a).log() - a.log())
        return grad * (a - t) / denominator, grad_y
        # END SOLUTION


def binary_cross_entropy(
    input: Tensor, target: Any, weight: Optional[Any] = None, reduction: str = "mean"
) -> Tensor:
    r"""Binary cross-entropy of probabilities $p$ and targets $y \in [0, 1]$:

    $$\ell_i = -\big(y_i \log p_i + (1 - y_i) \log(1 - p_i)\big).$$

    As in PyTorch each log is clamped at $-100$, so $p = 0$ or $1$ gives a large
    finite loss rather than $\infty$, and the gradient is PyTorch's
    (:class:`BinaryCrossEntropy`). Prefer :func:`binary_cross_entropy_with_logits`
    on raw scores. ``weight`` (broadcast to the losses) multiplies each
    $\\ell_i$ before the reduction, as in PyTorch.
    """
    target = _same_shape("binary_cross_entropy", input, target, reduction)
    values = input.detach().to_numpy()
    if values.size and (values.min() < 0.0 or values.max() > 1.0):
        raise ValueError(
            "binary_cross_entropy: input must hold probabilities in [0, 1] "
            "(use binary_cross_entropy_with_logits for raw scores)"
        )
    # (weight: given, PyTorch's)
    return _reduce(BinaryCrossEntropy.apply(input, target), reduction, weight)


def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Any,
    weight: Optional[Any] = None,
    reduction: str = "mean",
    pos_weight: Optional[Any] = None,
) -> Tensor:
    r"""Binary cross-entropy of raw scores $x$ ($p = \sigma(x)$), computed stably:

    $$\ell_i = \max(x_i, 0) - x_i y_i + \log\left(1 + e^{-|x_i|}\right).$$

    Its gradient is $\sigma(x_i) - y_i$, also at $x_i = 0$ ($\tfrac12 - y_i$):
    write $\max(x, 0)$ as $(x + |x|) / 2$, whose derivative at 0 is $\tfrac12$
    (``relu``'s is 0 there, and $|x|$'s is 0).
    """
    target = _same_shape("binary_cross_entropy_with_logits", input, target, reduction)
    if weight is not None or pos_weight is not None:  # (given: PyTorch's weights)
        return weighted_bce_with_logits(input, target, weight, pos_weight, reduction)
    # BEGIN SOLUTION 4.6: the stable formula (no exp of a large positive number)
    magnitude = input.abs()
    positive_part = (input + magnitude) * 0.5
    losses = positive_part - input * target + ((-magnitude).exp() + 1.0).log()
    return _reduce(losses, reduction)
    # END SOLUTION
