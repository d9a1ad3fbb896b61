"""The activation functions of ``torch.nn.functional`` (given; the facade
``nn.functional`` exports them and the activation layers of
``_activation_layers.py`` call them): ``relu``, ``sigmoid``, ``tanh``, ``gelu``,
``silu``, ``leaky_relu``, ``elu``, ``softplus``, ``logsigmoid``, ``hardtanh``,
``relu6``, ``mish``, ``prelu``, ``selu``, ``celu``, ``softsign``, ``softmin``,
``hardsigmoid``, ``hardswish``, ``hardshrink``, ``softshrink``, ``tanhshrink``,
``threshold`` and ``glu``, each with PyTorch's signature, semantics and
gradient at the kinks, built from differentiable tensor operations of Module 2
(which is all this file imports, but the softmaxes' implicit ``dim``); exact
``gelu`` is one elementwise map each way (:class:`_Gelu`)."""

from __future__ import annotations

import math
from typing import Any

from module0_fundamentals._exports import defined_here
from module2_tensors.engine.autograd import Context
from module2_tensors.engine.elementwise import Unary, unary_map
from module2_tensors.engine.higher_order import register
from module2_tensors.function_forms import where
from module2_tensors.tensor_api.dtype_device import floated
from module2_tensors.tensor import Tensor

from ._convolution import _dim

# The tensor methods themselves, as the facade's kt.sigmoid, kt.tanh.
sigmoid, tanh = Tensor.sigmoid, Tensor.tanh


def _written(input: Tensor, function: Any, *settings: Any) -> Tensor:
    """PyTorch's ``inplace=True``: ``function(input, *settings)`` written into
    ``input`` (returned) by its in-place mechanism (``Tensor._in_place``: the
    leaf and version-counter errors, the gradient through the change)."""
    name = function.__name__ + "_"
    return input._in_place(name, lambda a, _: function(a, *settings), 0.0)


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """$\\max(x, 0)$; ``inplace=True``: ``input.relu_()``."""
    return input.relu_() if inplace else input.relu()


_RSQRT2, _RSQRT2PI = 1.0 / math.sqrt(2.0), 1.0 / math.sqrt(2.0 * math.pi)


def _gelu(x: float) -> float:
    return x * 0.5 * (math.erf(x * _RSQRT2) + 1.0)


def _gelu_slope(x: float) -> float:
    return 0.5 * (math.erf(x * _RSQRT2) + 1.0) + x * math.exp(-0.5 * x * x) * _RSQRT2PI


class _Gelu(Unary):
    """Exact GELU $x \\Phi(x)$ as one map, its derivative $\\Phi(x) + x
    \\varphi(x)$ as another. Written with tensor operations it took about 16
    passes over the entries forward and back (five operations, their backwards,
    three gradients into ``x`` added): on ``(128, 20, 192)``, the SST-2
    Transformer's, forward and backward 45 -> 29 ms (FastOps, one thread)."""

    fn, derivative = _gelu, lambda a: unary_map(a.backend, _gelu_slope)(a)


@register(_Gelu)
def _gelu_recorded(ctx: Context, grad: Tensor, inputs: tuple, out: Tensor) -> Tensor:
    """The backward for ``create_graph``: the derivative as tensor operations."""
    (a,) = inputs
    phi = (a * a * -0.5).exp() * _RSQRT2PI
    return grad * (((a * _RSQRT2).erf() + 1.0) * 0.5 + a * phi)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """$x\\, \\Phi(x) = \\tfrac{x}{2} (1 + \\mathrm{erf}(x / \\sqrt 2))$, like
    ``torch.nn.functional.gelu``; ``approximate="tanh"``: $\\tfrac{x}{2} (1 +
    \\tanh(\\sqrt{2/\\pi} (x + 0.044715 x^3)))$."""
    if approximate == "none":
        return floated(input, _Gelu.apply(input))  # (float32 stays float32)
    if approximate == "tanh":
        inner = (input + input * input * input * 0.044715) * math.sqrt(2.0 / math.pi)
        return input * 0.5 * (inner.tanh() + 1.0)
    raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}")


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """$x\\, \\sigma(x)$ (also called swish)."""
    return _written(input, silu) if inplace else input * input.sigmoid()


def leaky_relu(
    input: Tensor, negative_slope: float = 0.01, inplace: bool = False
) -> Tensor:
    """$x$ for $x > 0$, else $\\alpha x$ (``negative_slope``); the gradient at
    exactly 0 is $\\alpha$, as in PyTorch."""
    if inplace:
        return _written(input, leaky_relu, negative_slope)
    return where(input > 0.0, input, input * negative_slope)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """$x$ for $x > 0$, else $\\alpha (e^x - 1)$; the gradient at exactly 0 is
    $\\alpha$ (the negative branch's), as in PyTorch."""
    if inplace:
        return _written(input, elu, alpha)
    # (min(x, 0) in the exponent: it never overflows)
    return where(input > 0.0, input, input.clamp(max=0.0).expm1() * alpha)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """$\\frac1\\beta \\ln(1 + e^{\\beta x})$, and $x$ itself where $\\beta x >$
    ``threshold`` (PyTorch's rule), computed stably as $\\max(z, 0) + \\ln(1 +
    e^{-|z|})$ for $z = \\beta x$."""
    z = input * beta
    # -|z| is written min(z, 0) - max(z, 0): the sum's derivative at 0 is then
    # sigma(0) = 1/2 and its second sigma'(0) = 1/4, as the exact ones (with
    # |z| the second derivative vanished at 0: a Hessian at a zero logit).
    smooth = (z.relu() + (z.clamp(max=0.0) - z.relu()).exp().log1p()) * (1.0 / beta)
    # (at z = -inf the sum is -inf + inf: PyTorch's limit, 0, with gradient 0)
    return where(z > threshold, input, smooth.masked_fill(z == -math.inf, 0.0))


def logsigmoid(input: Tensor) -> Tensor:
    """$\\log \\sigma(x) = -\\operatorname{softplus}(-x)$, stable for large $|x|$
    (``F.logsigmoid``)."""
    return -softplus(-input)


def hardtanh(
    input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False
) -> Tensor:
    """``F.hardtanh``: $\\min(\\max(x, \\text{min\\_val}), \\text{max\\_val})$;
    gradient 1 strictly inside the range, 0 outside and at its ends (PyTorch's)."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return _written(input, hardtanh, min_val, max_val)
    inside = (input > min_val).logical_and(input < max_val)
    return where(inside, input, input.detach().clamp(min_val, max_val).type_as(input))


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """``F.relu6``: $\\min(\\max(x, 0), 6)$, ``hardtanh(x, 0, 6)``."""
    return hardtanh(input, 0.0, 6.0, inplace)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """``F.mish``: $x \\tanh(\\operatorname{softplus}(x))$ (PyTorch's
    softplus, threshold 20 included)."""
    return _written(input, mish) if inplace else input * softplus(input).tanh()


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``F.prelu``: $x$ where $x > 0$, else $a x$, with one slope $a$ per channel
    (dim 1; ``weight`` of shape ``(C,)``) or one for all (``weight`` of one
    element; the only choice for a 0- or 1-D input, which has no channel dim, as
    PyTorch's)."""
    shape = [weight.size if d == 1 else 1 for d in range(input.dims)]  # (size: numel)
    return where(input > 0.0, input, weight.view(*shape) * input)


_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772, 1.0507009873554805


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """``F.selu``: $\\lambda \\operatorname{elu}(x, \\alpha)$, $\\alpha \\approx
    1.6733$, $\\lambda \\approx 1.0507$ (PyTorch's); gradient at 0: $\\lambda \\alpha$.
    """
    return _written(input, selu) if inplace else elu(input, _SELU_ALPHA) * _SELU_SCALE


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``F.celu``: $x$ for $x > 0$, else $\\alpha (e^{x / \\alpha} - 1)$; gradient 1
    at 0."""
    if inplace:
        return _written(input, celu, alpha)
    return where(input > 0.0, input, elu(input / alpha) * alpha)


def softsign(input: Tensor) -> Tensor:
    """``F.softsign``: $x / (1 + |x|)$."""
    return input / (input.abs() + 1.0)


def softmin(
    input: Tensor, dim: Any = None, _stacklevel: int = 3, dtype: Any = None
) -> Tensor:
    """``F.softmin``: $\\operatorname{softmax}(-x)$ along ``dim``."""
    return (-input).softmax(_dim(dim, input.dims, "softmin"), dtype)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """``F.hardsigmoid``: $\\operatorname{relu6}(x + 3) / 6$; gradient $1/6$
    strictly inside $(-3, 3)$, 0 elsewhere (PyTorch's)."""
    return _written(input, hardsigmoid) if inplace else relu6(input + 3.0) / 6.0


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """``F.hardswish``: $x \\operatorname{relu6}(x + 3) / 6$; gradient 0 at $-3$, 1
    at $3$ (``relu6``'s ends excluded), as PyTorch's."""
    return _written(input, hardswish) if inplace else input * relu6(input + 3.0) / 6.0


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``F.hardshrink``: 0 where $|x| \\le \\lambda$, else $x$ (NaN stays)."""
    return where(input.abs() <= lambd, 0.0, input)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``F.softshrink``: $x - \\operatorname{clamp}(x, -\\lambda, \\lambda)$
    (gradient 0 on $[-\\lambda, \\lambda]$, its ends included)."""
    return input - input.clamp(-lambd, lambd)


def tanhshrink(input: Tensor) -> Tensor:
    """``F.tanhshrink``: $x - \\tanh x$."""
    return input - input.tanh()


def threshold(
    input: Tensor, threshold: float, value: float, inplace: bool = False
) -> Tensor:
    """``F.threshold``: ``value`` where $x \\le$ ``threshold``, else $x$ (NaN
    stays; the input's dtype, as PyTorch's)."""
    fill = input.masked_fill_ if inplace else input.masked_fill
    return fill(input <= threshold, value)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """``F.glu``: $a \\sigma(b)$ for the halves $a, b$ of ``input`` along ``dim``."""
    if input.shape[dim] % 2:
        raise RuntimeError(f"glu: halving dimension {dim} must be even")
    a, b = input.chunk(2, dim)
    return a * b.sigmoid()


# (last: the names defined above)
__all__ = defined_here(globals(), "sigmoid", "tanh")
