"""Max-pooling in one pass: the fast path of ``functional.max_pool2d``.

Interface: :func:`max_pool2d` (called first by ``functional.max_pool2d``; ``None``
means "run the students' code").

The students' max-pooling (Tasks 4.3 and 4.4) is ``tile`` then ``max`` over the
window axis: a contiguous copy, a permuted copy, ``max_reduce``, an equality
mask, and two more reductions for the first argmax; backward multiplies the
gradient by a one-hot mask of the tiled shape and undoes the tiling. About six
passes over the activation, plus the graph of each step: on the Task 4.5 CNN (one
thread) max-pooling was 49% of the training step (issue 29, ``module3_fast_ops/
BENCHMARKS.md``). Here one compiled loop reads every window once and writes the
maximum and the position of its first maximum; backward adds each output gradient
onto that position (a scatter). Measured (one thread, load average 3.5): forward
and backward of a ``(32, 16, 28, 28)`` activation, 84-90 ms by the students' code,
8 ms here; the CNN step 182-220 ms -> 32-37 ms (``kindling bench --threads 1
--models cnn --models-only``, 4.7x -> 1.4x PyTorch's step).

Semantics are the students' code's, which match PyTorch's values:

* windows ``(i * s_h - p_h .. + k_h, j * s_w - p_w .. + k_w)``, positions outside
  the input (padding, ``ceil_mode``'s overhang) count as $-\\infty$;
* ties go to the first maximum in row-major window order (``torch.max``'s rule);
  a window whose maximum is a padding position (all its entries $-\\infty$) sends
  its gradient nowhere, as the students' padded tensor drops it;
* a window holding a NaN gives NaN, and no gradient (the one-hot mask of
  ``x == max`` is empty there; PyTorch routes it to the NaN instead).

The students' code stays the definition. For each new signature (shape, window
arguments, backend) the first call runs their ``max_pool2d`` forward *and*
backward on a detached copy (with a fixed pseudo-random output gradient) and this
path beside it; the fast path serves that signature only when values and
gradients agree, so a student's bug still shows in their own training and a stub
still raises.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Tuple

import numpy as np
from numba import njit

from module2_tensors.engine.autograd import Context, Function
from module2_tensors.engine.grad_modes import enable_grad
from module2_tensors.engine.higher_order import register
from module2_tensors.engine.indexing import AdvancedIndex, EmbedInZeros
from module2_tensors.tensor import Tensor

from ._conv_gemm import _view
from ._conv_checks import pair
from .engine import agrees, fast_path, host_float64, probe_gradient

Window = Tuple[int, int, int, int, int, int]  # kh, kw, sh, sw, ph, pw

#: Per signature: the output shape where the fast path agrees, else ``False``.
PATH = fast_path("max_pool2d", "functional.max_pool2d (Task 4.4)")


@njit(cache=True)
def _forward(x, oh, ow, kh, kw, sh, sw, ph, pw):  # type: ignore[no-untyped-def]
    """``(out, arg)``, each ``(B, C, oh, ow)``: ``out[b, c, i, j]`` = the window's
    maximum; ``arg[b, c, i, j]`` = the flat position ``y * W + x`` of its first
    maximum in the input plane, or -1 (the maximum is padding, or the window holds
    a NaN)."""
    batch, channels, height, width = x.shape
    out = np.empty((batch, channels, oh, ow))
    arg = np.empty((batch, channels, oh, ow), dtype=np.int64)
    for b in range(batch):
        for c in range(channels):
            for i in range(oh):
                for j in range(ow):
                    best, where = -np.inf, -1
                    for u in range(kh):
                        y = i * sh + u - ph
                        for v in range(kw):
                            xx = j * sw + v - pw
                            if 0 <= y < height and 0 <= xx < width:
                                val, pos = x[b, c, y, xx], y * width + xx
                            else:
                                val, pos = -np.inf, -1
                            if val != val:  # (a NaN stays: nothing is > NaN)
                                best, where = np.nan, -1
                            elif val > best or u == v == 0:  # (or the first entry)
                                best, where = val, pos
                    out[b, c, i, j], arg[b, c, i, j] = best, where
    return out, arg


@njit(cache=True)
def _backward(g, arg, height, width):  # type: ignore[no-untyped-def]
    """``dx`` ``(B, C, height, width)``: zero, plus ``dx[b, c, arg // W, arg % W]
    += g[b, c, i, j]`` (overlapping windows may share a position)."""
    batch, channels, oh, ow = g.shape
    dx = np.zeros((batch, channels, height, width))
    for b in range(batch):
        for c in range(channels):
            for i in range(oh):
                for j in range(ow):
                    pos = arg[b, c, i, j]
                    if pos >= 0:
                        dx[b, c, pos // width, pos % width] += g[b, c, i, j]
    return dx


class _MaxPool2dFun(Function):
    """``apply(input, out_shape, window)``: values by :func:`_forward`, gradient
    by :func:`_backward` from the saved argmax positions."""

    @staticmethod
    def forward(
        ctx: Context, input: Tensor, out_shape: Tuple[int, ...], window: Window
    ) -> Tensor:
        out, arg = _forward(_view(input.tuple(), 2), *out_shape[2:], *window)
        ctx.save_for_backward(arg, tuple(input.shape))
        return input.new_tensor(out)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        arg, in_shape = ctx.saved_values
        return grad.new_tensor(_backward(_view(grad.tuple(), 2), arg, *in_shape[2:]))


@register(_MaxPool2dFun)
def _recorded_backward(ctx: Context, grad: Tensor, inputs: Tuple, out: Tensor) -> Any:
    """``_MaxPool2dFun``'s backward as recorded operations, for
    ``create_graph=True``: each window's gradient picked from ``grad`` and added
    at its argmax (flat position ``arg`` in the ``(H, W)`` plane)."""
    arg, in_shape = ctx.saved_values
    windows = np.nonzero(arg >= 0)  # (b, c, i, j) of the windows with a maximum
    target = windows[:2] + divmod(arg[windows], in_shape[-1])
    return EmbedInZeros.apply(AdvancedIndex.apply(grad, windows), in_shape, target)


def max_pool2d(
    student: Callable[..., Tensor],
    input: Tensor,
    kernel_size: Any,
    stride: Any,
    padding: Any,
    ceil_mode: bool,
) -> Optional[Tensor]:
    """``student(input, kernel_size, stride, padding, 1, ceil_mode)`` (dilation 1)
    computed in one pass where that agrees with ``student``
    (``functional.max_pool2d``) on this signature; ``None`` where the caller
    should run ``student``'s own code (a CUDA or unusual input, a check in
    progress, or a signature where they differ)."""
    if PATH.checking or not (host_float64(input) and input.dims == 4):
        return None
    # (A size that is not an int or a pair raises pair's TypeError, as the
    # students' code would.)
    kh, kw = pair(kernel_size, "kernel_size")
    sh, sw = (kh, kw) if stride is None else pair(stride, "stride")
    window = (kh, kw, sh, sw, *pair(padding, "padding"))
    key = (tuple(input.shape), window, bool(ceil_mode), type(input.backend))

    def check() -> Any:
        """Run the students' ``max_pool2d`` (forward and backward, on a detached
        copy) and this path; the output shape when they agree, else ``False``."""
        probe = input.detach().requires_grad_()
        # Recording on: the first call may come inside ``no_grad()``.
        with enable_grad():
            reference = student(probe, kernel_size, stride, padding, 1, ceil_mode)
            g = probe_gradient(reference.shape)
            reference.backward(reference.new_tensor(g))
        out, arg = _forward(_view(input.tuple(), 2), *reference.shape[2:], *window)
        grad = _backward(g, arg, *input.shape[2:])
        # The maxima are copies (exact); gradients of overlapping windows are sums,
        # possibly in another order (no gradient reaching the input reads as zeros).
        same = np.array_equal(out, reference.to_numpy(), equal_nan=True)
        return tuple(reference.shape) if same and agrees(grad, probe.grad) else False

    out_shape = PATH.verdict(key, check)
    return None if out_shape is False else _MaxPool2dFun.apply(input, out_shape, window)
