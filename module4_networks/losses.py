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

from typing import Any

import numpy as np

from module2_tensors.shape_functions import where  # noqa: F401 (clamping, Task 4.6)
from module2_tensors.tensor import Tensor, tensor
from module2_tensors.tensor import arange  # noqa: F401 (one-hot classes, Task 4.6)

__all__ = [
    "cross_entropy",
    "nll_loss",
    "mse_loss",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
]

_REDUCTIONS = ("mean", "sum", "none")


def _reduce(losses: Tensor, reduction: str) -> Tensor:
    """Apply ``reduction`` to per-example losses."""
    if reduction == "mean":
        return losses.mean()
    if reduction == "sum":
        return losses.sum()
    return losses


def _check_reduction(name: str, reduction: str) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(
            f"{name}: reduction must be one of {_REDUCTIONS}, got {reduction!r}"
        )


def _class_targets(name: str, input: Tensor, target: Any) -> Tensor:
    """``target`` as a tensor on ``input``'s backend, checked against ``input``.

    ``input`` is ``(N, C)`` or ``(N, C, d1, ...)`` (or ``(C,)`` for one example);
    ``target`` must then be ``(N,)``, ``(N, d1, ...)`` (or ``()``) and hold whole
    numbers in ``[0, C)``.
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"{name} needs a Tensor input, got {type(input).__name__}")
    values = target.to_numpy() if isinstance(target, Tensor) else np.asarray(target)
    values = np.asarray(values, dtype=np.float64)
    if input.dims == 0:
        raise ValueError(f"{name}: input must have a class dimension, got shape ()")
    expected = (input.shape[0],) + input.shape[2:] if input.dims > 1 else ()
    if values.shape != expected:
        raise ValueError(
            f"{name}: target of shape {values.shape} does not match input of shape "
            f"{input.shape} (expected target shape {expected})"
        )
    classes = input.shape[1] if input.dims > 1 else input.shape[0]
    if values.size and (
        not np.all(values == np.round(values))
        or values.min() < 0
        or values.max() >= classes
    ):
        bad = values[(values != np.round(values)) | (values < 0) | (values >= classes)]
        raise IndexError(
            f"{name}: target {bad.flat[0]:g} is out of bounds for {classes} classes"
        )
    return tensor(values, backend=input.backend)


def nll_loss(input: Tensor, target: Any, reduction: str = "mean") -> Tensor:
    r"""Negative log-likelihood: $\ell_n = -\text{input}[n, \text{target}[n]]$.

    ``input`` holds log-probabilities ``(N, C)`` (or ``(N, C, d1, ...)``, or
    ``(C,)``), e.g. from ``log_softmax(x, dim=1)``; ``target`` holds class indices
    ``(N,)`` (or ``(N, d1, ...)``, or a single index). ``"mean"`` averages over
    every target entry.

    Raises:
        ValueError: shapes that do not match, or a bad ``reduction``.
        IndexError: a target outside ``[0, C)``.
    """
    _check_reduction("nll_loss", reduction)
    target = _class_targets("nll_loss", input, target)
    # BEGIN SOLUTION 4.6: one-hot mask by broadcasting ==, then -sum over classes
    class_dim = 1 if input.dims > 1 else 0
    shape = [1] * input.dims
    shape[class_dim] = input.shape[class_dim]
    classes = arange(input.shape[class_dim], backend=input.backend).view(*shape)
    one_hot = target.unsqueeze(class_dim) == classes
    losses = -(input * one_hot).sum(dim=class_dim)
    return _reduce(losses, reduction)
    # END SOLUTION


def cross_entropy(input: Tensor, target: Any, reduction: str = "mean") -> Tensor:
    r"""Cross-entropy of raw scores (logits) and class indices:

    $$\ell_n = -\log \mathrm{softmax}(x_n)_{t_n}
            = -x_{n, t_n} + \log \sum_c e^{x_{n, c}},$$

    that is ``nll_loss(log_softmax(input, dim=1), target)`` (shapes as there). Do
    not apply a softmax first: the loss does it, stably.
    """
    _check_reduction("cross_entropy", reduction)
    # BEGIN SOLUTION 4.6: log_softmax over the class dim, then nll_loss
    from .functional import log_softmax  # here: functional.py imports this module

    class_dim = 1 if input.dims > 1 else 0
    return nll_loss(log_softmax(input, dim=class_dim), target, reduction)
    # END SOLUTION


def _same_shape(name: str, input: Any, target: Any) -> Tensor:
    if not isinstance(input, Tensor):
        raise TypeError(f"{name} needs a Tensor input, got {type(input).__name__}")
    if not isinstance(target, Tensor):
        target = tensor(np.asarray(target, dtype=np.float64), backend=input.backend)
    if target.shape != input.shape:
        raise ValueError(
            f"{name}: input of shape {input.shape} and target of shape "
            f"{target.shape} must have the same shape"
        )
    return target


def mse_loss(input: Tensor, target: Any, reduction: str = "mean") -> Tensor:
    r"""Mean squared error: $\ell_i = (x_i - y_i)^2$, averaged over every entry.

    ``input`` and ``target`` must have the same shape (PyTorch only warns; a
    silent broadcast of ``(N, 1)`` against ``(N,)`` is a classic bug).
    """
    _check_reduction("mse_loss", reduction)
    target = _same_shape("mse_loss", input, target)
    # BEGIN SOLUTION 4.6
    diff = input - target
    return _reduce(diff * diff, reduction)
    # END SOLUTION


def binary_cross_entropy(input: Tensor, target: Any, reduction: str = "mean") -> Tensor:
    r"""Binary cross-entropy of probabilities $p$ and targets $y \in [0, 1]$:

    $$\ell_i = -\big(y_i \log p_i + (1 - y_i) \log(1 - p_i)\big).$$

    As in PyTorch each log is clamped at $-100$, so $p = 0$ or $1$ gives a large
    finite loss rather than $\infty$. Prefer
    :func:`binary_cross_entropy_with_logits` on raw scores.
    """
    _check_reduction("binary_cross_entropy", reduction)
    target = _same_shape("binary_cross_entropy", input, target)
    values = input.detach().to_numpy()
    if values.size and (values.min() < 0.0 or values.max() > 1.0):
        raise ValueError(
            "binary_cross_entropy: input must hold probabilities in [0, 1] "
            "(use binary_cross_entropy_with_logits for raw scores)"
        )
    # BEGIN SOLUTION 4.6: clamp p and 1 - p at e^-100 with where, then the formula
    tiny = float(np.exp(-100.0))
    p = where(input < tiny, tiny, input)
    q = where((1.0 - input) < tiny, tiny, 1.0 - input)
    losses = -(target * p.log() + (1.0 - target) * q.log())
    return _reduce(losses, reduction)
    # END SOLUTION


def binary_cross_entropy_with_logits(
    input: Tensor, target: Any, reduction: str = "mean"
) -> Tensor:
    r"""Binary cross-entropy of raw scores $x$ ($p = \sigma(x)$), computed stably:

    $$\ell_i = \max(x_i, 0) - x_i y_i + \log\left(1 + e^{-|x_i|}\right).$$
    """
    _check_reduction("binary_cross_entropy_with_logits", reduction)
    target = _same_shape("binary_cross_entropy_with_logits", input, target)
    # BEGIN SOLUTION 4.6: the stable formula (no exp of a large positive number)
    losses = input.relu() - input * target + ((-input.abs()).exp() + 1.0).log()
    return _reduce(losses, reduction)
    # END SOLUTION
