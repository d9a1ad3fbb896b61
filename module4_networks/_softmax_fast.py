"""The attention's (masked) softmax in one Function: the fast path of
``attention.attention_weights``.

Interface: :func:`attention_weights` (called first by
``attention.attention_weights``; ``None`` means "run the students' code").

The students' masked softmax (Task 4.8) is a chain of tensor operations over the
scores ``(N, h, L, S)``: with a 0/1 mask, ``broadcast_to``, ``any``, two
``where``\\ s, the softmax (a max, a subtraction, ``exp``, a sum, a division) and
a third ``where``, each a pass over the scores forward and again backward, plus
the graph of each. On the SST-2 Transformer of ``kindling bench`` (scores
``(128, 4, 20, 20)``, two blocks) ``attention_weights`` took 28 ms of a 160 ms step
(cProfile, one thread, load average 2; issue 29). Here NumPy computes the same
sequence on arrays, and the backward is the softmax's own formula,

$$\\frac{\\partial L}{\\partial x} = w \\odot \\Big(G - \\sum_j G_j w_j\\Big),$$

with the masks' zeros applied to $G$ before and to the result after (the masked
entries get no gradient, as through the students' ``where``).

Semantics are the students' code's (and PyTorch's): a 0/1 mask keeps the entries
where it is 1, a row with no kept entry gives zeros; an additive float mask is
added to the scores first (a row of $-\\infty$ gives NaN, as ``softmax`` does).
Dropout is not part of this path: ``attention_weights`` applies it afterwards.

Measured (``kindling bench --threads 1``, load average 2.1; ``module3_fast_ops/
BENCHMARKS.md``, issue 29, part 3): with the other engine paths on, the SST-2
Transformer step is 1.34x PyTorch's with this path and 1.63x without it; zip calls
345 -> 287 a step.

The students' code stays the definition. For each new signature (scores' shape and
layout, the mask's kind and shape, whether the scores need a gradient, backend)
the first call runs their ``attention_weights`` (without dropout) forward and
backward on a detached copy with a fixed pseudo-random output gradient, and this
path beside it; the fast path serves that signature only when values and gradients
agree (rtol 1e-9), so a wrong softmax or mask still shows and a stub still raises.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Tuple

import numpy as np

from module1_scalar_autodiff.context import Context
from module2_tensors.engine import dtypes
from module2_tensors.engine.autograd import enable_grad
from module2_tensors.engine.autograd import Function, is_grad_enabled
from module2_tensors.tensor import Tensor

from .engine import agrees, fast_path, probe_gradient, ran_backward
from ._attention_masks import _as_mask, _is_boolean
from ._matmul_blas import _array

__all__ = ["attention_weights"]

#: Per signature: does this path agree with the students' code there?
PATH = fast_path("softmax", "attention_weights (Task 4.8's masked softmax)")

Mask = Tuple[Optional[np.ndarray], bool]  # (mask array or None, boolean?)


def _forward(scores: np.ndarray, mask: Mask) -> Tuple[np.ndarray, Any]:
    """The weights, and what :func:`_backward` needs: the softmax ``w`` of the
    (masked) scores and the kept entries (``None`` without a 0/1 mask)."""
    m, boolean = mask
    x = scores if m is None or boolean else scores + m
    keep = None
    if boolean:
        keep = np.broadcast_to(m != 0.0, scores.shape)
        kept = keep.any(axis=-1, keepdims=True)
        # Masked scores are -inf; rows with nothing kept softmax zeros instead.
        x = np.where(keep & kept, scores, np.where(kept, -np.inf, 0.0))
    shift = x.max(axis=-1, keepdims=True)
    e = np.exp(x - shift)
    w = e / e.sum(axis=-1, keepdims=True)
    out = w if keep is None else np.where(keep, w, 0.0)
    return out, (w, keep)


def _backward(g: np.ndarray, saved: Any) -> np.ndarray:
    w, keep = saved
    if keep is not None:
        g = np.where(keep, g, 0.0)
    dx = w * (g - (g * w).sum(axis=-1, keepdims=True))
    if keep is not None:
        dx = np.where(keep & keep.any(axis=-1, keepdims=True), dx, 0.0)
    return dx


class _SoftmaxFun(Function):
    """``apply(scores, mask)``: :func:`_forward`, gradient by :func:`_backward`
    (none for the mask, a constant)."""

    @staticmethod
    def forward(ctx: Context, scores: Tensor, mask: Mask) -> Tensor:
        out, saved = _forward(_array(scores), mask)
        ctx.save_for_backward(saved)
        return scores.new_tensor(out)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (saved,) = ctx.saved_values
        return grad.new_tensor(_backward(_array(grad), saved))


def _close(got: np.ndarray, want: Optional[Tensor]) -> bool:
    return agrees(got, None if want is None else want.to_numpy(), nan=True)


def _check(
    student: Callable[..., Tensor],
    scores: Tensor,
    attn_mask: Any,
    mask: Mask,
    need: bool,
) -> bool:
    """Run the students' ``attention_weights`` (no dropout) forward and backward
    on a detached copy, and this path; whether values and gradients agree."""
    probe = scores.detach().requires_grad_(need)
    with enable_grad():  # (inside no_grad() nothing needs a gradient)
        reference = student(probe, attn_mask, 0.0)
        g = probe_gradient(reference.shape)
        if need and not ran_backward(reference, reference.new_tensor(g)):
            return False
    out, saved = _forward(_array(scores), mask)
    if not need:
        return _close(out, reference)
    return _close(out, reference) and _close(_backward(g, saved), probe.grad)


def _host_float64(t: Tensor) -> bool:
    return (
        not getattr(t.backend, "cuda", False)
        and type(t.tuple()[0]) is np.ndarray
        and t.dtype is dtypes.float64
    )


def attention_weights(
    student: Callable[..., Tensor], scores: Tensor, attn_mask: Any
) -> Optional[Tensor]:
    """``student(scores, attn_mask, 0.0)`` (the weights before dropout) in one
    Function where that agreed with ``student`` on this signature; ``None`` where
    the caller should run its own code (a check in progress, a CUDA or float32
    tensor, a mask that needs a gradient or does not fit the scores, a signature
    where they differed)."""
    if (
        not PATH.active
        or not isinstance(scores, Tensor)
        or scores.dims == 0
        or not _host_float64(scores)
    ):
        return None
    mask: Mask = (None, False)
    if attn_mask is not None:
        m = _as_mask(attn_mask, scores)
        host = type(m.tuple()[0]) is np.ndarray  # (a 0/1 mask may be a bool one)
        if m.requires_grad or not host or getattr(m.backend, "cuda", False):
            return None
        values = _array(m)
        try:
            if np.broadcast_shapes(values.shape, scores.shape) != scores.shape:
                return None
        except ValueError:
            return None  # the students' code reports it
        mask = (values, _is_boolean(attn_mask))
    # Whether the scores need a gradient (a backward may branch on
    # needs_input_grad; without recording the check compares values alone).
    need = is_grad_enabled() and scores.requires_grad
    key = (
        tuple(scores.shape),
        tuple(int(s) for s in scores.tuple()[2]),
        None if mask[0] is None else (mask[0].shape, mask[1]),
        type(scores.backend),
        need,
    )
    if not PATH.verdict(key, lambda: _check(student, scores, attn_mask, mask, need)):
        return None
    return _SoftmaxFun.apply(scores, mask)
