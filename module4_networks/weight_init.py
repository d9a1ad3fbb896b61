"""Weight initialisation (Task 4.6), as ``torch.nn.init``. Code reaches these
functions through ``kt.nn.init`` (or ``kt.init``: the facade ``init/__init__.py``),
which adds the given ``trunc_normal_``, ``orthogonal_``, ``eye_`` and ``dirac_``
of ``_structured_init.py``.

A layer's starting weights decide whether a deep network trains at all. If every
layer multiplies the size of its signal by a factor $a$, $L$ layers multiply it by
$a^L$: it vanishes or explodes. The cure is to draw weights with the variance that
keeps the signal's variance constant through a layer:

* **Xavier/Glorot** (tanh, sigmoid, linear): $\\mathrm{Var}(w) = g^2 \\cdot 2 /
  (\\text{fan\\_in} + \\text{fan\\_out})$, a compromise between the forward pass
  (which wants $1/\\text{fan\\_in}$) and the backward pass ($1/\\text{fan\\_out}$);
* **Kaiming/He** (ReLU family): $\\mathrm{Var}(w) = g^2 / \\text{fan}$, where the
  gain $g = \\sqrt{2}$ for ReLU makes up for the half of the signal ReLU zeroes.

For a weight of shape ``(out, in, *kernel)``, $\\text{fan\\_in} = \\text{in} \\cdot
\\prod \\text{kernel}$ and $\\text{fan\\_out} = \\text{out} \\cdot \\prod
\\text{kernel}$. A uniform $U(-b, b)$ has variance $b^2 / 3$, so the uniform
versions use $b = \\sqrt{3} \\cdot \\text{std}$.

Every function fills its tensor (or a ``Parameter``'s value) *in place*, without
recording gradients, and returns it. Random numbers come from the generator that
``manual_seed`` seeds, or from a NumPy ``generator=``.
"""

from __future__ import annotations

import math
from typing import Any, Optional, Tuple

import numpy as np

from module0_fundamentals.module import Parameter
from module2_tensors.shape_functions import no_grad
from module2_tensors.tensor import Tensor, rand, randn

__all__ = [
    "calculate_gain",
    "calculate_fan_in_and_fan_out",
    "uniform_",
    "normal_",
    "constant_",
    "zeros_",
    "ones_",
    "xavier_uniform_",
    "xavier_normal_",
    "kaiming_uniform_",
    "kaiming_normal_",
]

Generator = Optional[np.random.Generator]


def _tensor_of(x: Any) -> Tensor:
    """The tensor to fill (or an optimizer updates): ``x`` itself or a
    ``Parameter``'s value."""
    value = x.value if isinstance(x, Parameter) else x
    if not isinstance(value, Tensor):
        raise TypeError(
            f"expected a Tensor or a Parameter holding one, got {type(value).__name__}"
        )
    return value


def _fill(x: Any, values: Any) -> Any:
    """Copy ``values`` (an array or a tensor of ``x``'s shape) into ``x``'s tensor
    in place (no gradient); return ``x``."""
    target = _tensor_of(x)
    with no_grad():
        target.copy_(target.new_tensor(values))
    return x


# ------------------------------------------------------------------ given
# Sampling is plumbing: the numbers are drawn by ``rand``/``randn`` (so that
# ``manual_seed`` and ``generator=`` work) and scaled in NumPy before the one copy
# into the tensor, which keeps big tables (embeddings) quick on any backend.
def uniform_(x: Any, a: float = 0.0, b: float = 1.0, generator: Generator = None):
    """Fill with $U(a, b)$."""
    t = _tensor_of(x)
    return _fill(x, rand(*t.shape, generator=generator).to_numpy() * (b - a) + a)


def normal_(x: Any, mean: float = 0.0, std: float = 1.0, generator: Generator = None):
    """Fill with $N(\\text{mean}, \\text{std}^2)$."""
    t = _tensor_of(x)
    return _fill(x, randn(*t.shape, generator=generator).to_numpy() * std + mean)


def constant_(x: Any, val: float) -> Any:
    """Fill with ``val`` (PyTorch's name for it)."""
    return _fill(x, np.full(_tensor_of(x).shape, float(val)))


def zeros_(x: Any) -> Any:
    """Fill with 0."""
    return constant_(x, 0.0)


def ones_(x: Any) -> Any:
    """Fill with 1."""
    return constant_(x, 1.0)


# --------------------------------------------------------------- Task 4.6
def calculate_gain(nonlinearity: str, param: Optional[float] = None) -> float:
    """The recommended gain $g$ for a nonlinearity (``torch.nn.init.calculate_gain``):

    ========================  =======================================
    linear, conv*, sigmoid    $1$
    tanh                      $5/3$
    relu                      $\\sqrt{2}$
    leaky_relu                $\\sqrt{2 / (1 + a^2)}$, slope $a$ = ``param``
                              (default 0.01)
    selu                      $3/4$
    ========================  =======================================

    Raises:
        ValueError: an unknown nonlinearity (the message names it), or a bad
            ``param``.
    """
    # BEGIN SOLUTION 4.6
    convolutions = {f"conv{t}{d}d" for t in ("", "_transpose") for d in (1, 2, 3)}
    if nonlinearity in {"linear", "sigmoid"} | convolutions:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3.0
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = float(param)
        else:
            raise ValueError(f"negative_slope {param!r} is not a valid number")
        return math.sqrt(2.0 / (1.0 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4.0
    raise ValueError(f"unsupported nonlinearity {nonlinearity!r}")
    # END SOLUTION


def calculate_fan_in_and_fan_out(x: Any) -> Tuple[int, int]:
    """``(fan_in, fan_out)`` of a weight of shape ``(out, in, *kernel)``:
    ``(in * prod(kernel), out * prod(kernel))``. A ``Linear`` weight ``(out, in)``
    has ``fan_in = in``.

    Raises:
        ValueError: a tensor of fewer than 2 dimensions, with a message that says
            ``"fewer than 2 dimensions"`` and gives the shape (PyTorch's words).
    """
    # BEGIN SOLUTION 4.6
    shape = _tensor_of(x).shape
    if len(shape) < 2:
        raise ValueError(
            f"fan in and fan out can not be computed for a tensor with fewer than 2 "
            f"dimensions (shape {shape})"
        )
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive
    # END SOLUTION


def _fan(x: Any, mode: str) -> int:
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"mode must be 'fan_in' or 'fan_out', got {mode!r}")
    return calculate_fan_in_and_fan_out(x)[0 if mode == "fan_in" else 1]


def xavier_uniform_(x: Any, gain: float = 1.0, generator: Generator = None) -> Any:
    """Fill with $U(-b, b)$, $b = g \\sqrt{6 / (\\text{fan\\_in} +
    \\text{fan\\_out})}$."""
    # BEGIN SOLUTION 4.6
    fan_in, fan_out = calculate_fan_in_and_fan_out(x)
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(x, -bound, bound, generator=generator)
    # END SOLUTION


def xavier_normal_(x: Any, gain: float = 1.0, generator: Generator = None) -> Any:
    """Fill with $N(0, \\sigma^2)$, $\\sigma = g \\sqrt{2 / (\\text{fan\\_in} +
    \\text{fan\\_out})}$."""
    # BEGIN SOLUTION 4.6
    fan_in, fan_out = calculate_fan_in_and_fan_out(x)
    std = gain * math.sqrt(2.0 / (fan_in + fan_out))
    return normal_(x, 0.0, std, generator=generator)
    # END SOLUTION


def kaiming_uniform_(
    x: Any,
    a: float = 0.0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Generator = None,
) -> Any:
    """Fill with $U(-b, b)$, $b = \\sqrt{3}\\, g / \\sqrt{\\text{fan}}$, with $g$ =
    ``calculate_gain(nonlinearity, a)`` and fan the ``mode`` one."""
    # BEGIN SOLUTION 4.6
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(x, mode))
    bound = math.sqrt(3.0) * std
    return uniform_(x, -bound, bound, generator=generator)
    # END SOLUTION


def kaiming_normal_(
    x: Any,
    a: float = 0.0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Generator = None,
) -> Any:
    """Fill with $N(0, \\sigma^2)$, $\\sigma = g / \\sqrt{\\text{fan}}$."""
    # BEGIN SOLUTION 4.6
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(x, mode))
    return normal_(x, 0.0, std, generator=generator)
    # END SOLUTION
