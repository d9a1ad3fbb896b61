"""The math test catalog: small functions every number type of the course gets right.

Each entry is written twice:

- ``fn`` uses only Python operators and the course's methods (``x * y``, ``5.0 - x``,
  ``x.sigmoid()``), so the very same function runs on a ``Scalar`` (Module 1), a
  ``Dual`` (Task 1.6) and a ``Tensor`` (Module 2);
- ``reference`` computes the same value on plain floats with the ``math`` module, an
  independent oracle for forward values and, by central differences, for derivatives.

``domain`` is the interval inputs are drawn from: it keeps ``log`` and division away
from their poles and ``relu`` away from its kink, where a derivative is not defined.
This module is given code (no task): tests and the dashboard use it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Tuple


@dataclass(frozen=True)
class MathCase:
    """One catalog function of one or two arguments."""

    name: str
    fn: Callable[..., Any]
    reference: Callable[..., float]
    domain: Tuple[float, float] = (-5.0, 5.0)

    @property
    def arity(self) -> int:
        """How many arguments ``fn`` takes (1 or 2)."""
        return self.fn.__code__.co_argcount


def _sigmoid(x: float) -> float:
    # Through tanh, which never overflows: sigma(x) = (1 + tanh(x / 2)) / 2.
    return 0.5 * (1.0 + math.tanh(0.5 * x))


# relu shifted right by 0.5: the two relu cases below, one each side of its kink.
def _shifted_relu(x: Any) -> Any:
    return (x - 0.5).relu()


def _shifted_relu_reference(x: float) -> float:
    return max(x - 0.5, 0.0)


UNARY = (
    MathCase("neg", lambda x: -x, lambda x: -x),
    MathCase("add_constant", lambda x: x + 5.0, lambda x: x + 5.0),
    MathCase("constant_add", lambda x: 5.0 + x, lambda x: 5.0 + x),
    MathCase("sub_constant", lambda x: x - 5.0, lambda x: x - 5.0),
    MathCase("constant_sub", lambda x: 5.0 - x, lambda x: 5.0 - x),
    MathCase("mul_constant", lambda x: x * 3.0, lambda x: x * 3.0),
    MathCase("constant_mul", lambda x: 3.0 * x, lambda x: 3.0 * x),
    MathCase("div_constant", lambda x: x / 4.0, lambda x: x / 4.0),
    MathCase("constant_div", lambda x: 4.0 / x, lambda x: 4.0 / x, (0.5, 5.0)),
    MathCase("square", lambda x: x * x, lambda x: x * x),
    MathCase("cube", lambda x: x * x * x, lambda x: x**3),
    MathCase("sigmoid", lambda x: x.sigmoid(), _sigmoid),
    # relu has a kink at 0: one case for each side, never on it.
    MathCase("relu_active", _shifted_relu, _shifted_relu_reference, (0.6, 5.0)),
    MathCase("relu_inactive", _shifted_relu, _shifted_relu_reference, (-5.0, 0.4)),
    MathCase("log", lambda x: x.log(), math.log, (0.1, 10.0)),
    MathCase("exp", lambda x: x.exp(), math.exp, (-3.0, 3.0)),
    MathCase("sin", lambda x: x.sin(), math.sin),
    MathCase("cos", lambda x: x.cos(), math.cos),
    MathCase("tanh", lambda x: x.tanh(), math.tanh),
    MathCase(
        "log_of_square_plus_one",
        lambda x: (x * x + 1.0).log(),
        lambda x: math.log(x * x + 1.0),
    ),
    MathCase(
        "sigmoid_times_exp",
        lambda x: x.sigmoid() * (x * 0.5).exp(),
        lambda x: _sigmoid(x) * math.exp(x * 0.5),
        (-3.0, 3.0),
    ),
)

BINARY = (
    MathCase("add", lambda x, y: x + y, lambda x, y: x + y),
    MathCase("sub", lambda x, y: x - y, lambda x, y: x - y),
    MathCase("mul", lambda x, y: x * y, lambda x, y: x * y),
    MathCase("div", lambda x, y: x / y, lambda x, y: x / y, (0.5, 5.0)),
    MathCase("product_plus_argument", lambda x, y: x * y + y, lambda x, y: x * y + y),
    MathCase(
        "sigmoid_of_difference",
        lambda x, y: (x - y).sigmoid(),
        lambda x, y: _sigmoid(x - y),
    ),
    MathCase(
        "log_of_sum_of_squares",
        lambda x, y: (x * x + y * y + 1.0).log(),
        lambda x, y: math.log(x * x + y * y + 1.0),
    ),
)

CATALOG = UNARY + BINARY
