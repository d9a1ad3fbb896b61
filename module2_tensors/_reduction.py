"""``Reduction``: a whole reduction (``sum``, ``mean``, ``amax``, ``max()``)
recorded as one operation (private engine code: students never edit or need to
read this file; ``Tensor._reduce`` plans and applies it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Tuple

from module1_scalar_autodiff.context import Context

from .engine import autograd
from .engine.autograd import MODES, Function, _new
from .tensor_data import TensorData

if TYPE_CHECKING:
    from .tensor import Tensor

__all__ = ["Reduction"]


def _reshaped(t: "Tensor", shape: Tuple[int, ...]) -> "Tensor":
    """``t`` with ``shape`` (of the same size): itself, or a view of it (of a
    contiguous copy when it is not contiguous). Unrecorded: for intermediate
    values inside one operation."""
    if t.shape == shape:
        return t
    t = t.contiguous()
    return _new(t, TensorData._view(t._tensor._storage, shape))


class Reduction(Function):
    """A whole reduction as ``Tensor.sum``, ``mean``, ``amax`` and ``max()`` ask
    for it, recorded as one operation (given): ``a`` viewed as ``layout`` (of the
    same size), ``fn`` (``Sum`` or ``Max``, which keep the reduced dim with size
    1) applied along each of ``dims`` in turn, the result viewed as ``shape`` and
    multiplied by ``scale`` (``1 / count`` for a mean, else 1).

    Backward: the same steps in reverse, each through ``fn.backward``: the
    gradient times ``scale``, viewed with the reduced dims of size 1, then
    ``fn.backward`` of each step, viewed as ``a``'s shape.

    Why one operation: ``x.mean()`` would otherwise record a ``Sum``, a ``View``
    and a ``Mul``, three nodes whose bookkeeping costs far more than the kernel
    on a batch of ten (PyTorch records one ``MeanBackward`` too).
    """

    @staticmethod
    def forward(
        ctx: Context,
        a: "Tensor",
        fn: type,
        layout: Tuple[int, ...],
        dims: Tuple[int, ...],
        shape: Tuple[int, ...],
        scale: float,
    ) -> "Tensor":
        out = _reshaped(a, layout)
        steps = []
        for d in dims:
            step = Context(ctx.needs_input_grad[:1])
            out = fn.forward(step, out, d)
            steps.append(step)
        kept = out.shape
        out = _reshaped(out, shape)
        if scale != 1.0:
            out = out.backend.mul_zip(out, out._other(scale))
        ctx.save_for_backward(a.shape, fn, steps, kept, scale)
        return out

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> "Tensor":
        shape, fn, steps, kept, scale = ctx.saved_values
        if scale != 1.0:
            grad = grad.backend.mul_zip(grad, grad._other(scale))
        grad = _reshaped(grad, kept)
        for step in reversed(steps):
            grad = fn._backward(step, grad, 2)[0]
        if not MODES.retain_graph and any(
            isinstance(v, autograd.tensor_class())
            for step in steps
            for v in step.saved_values
        ):
            # The steps' saved tensors (Max's) are freed, as a recorded Max's
            # would be; a second backward then fails in chain_rule with the
            # usual message instead of in fn.backward.
            for step in steps:
                step.saved_values = ()
            ctx.freed = True
        return _reshaped(grad, shape)
