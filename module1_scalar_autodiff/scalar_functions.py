"""The differentiable functions of a ``Scalar``: one class per operation.

A :class:`ScalarFunction` is a pair of plain-float computations:

* ``forward(ctx, *inputs)`` computes $f(a, b, \\dots)$ and saves whatever the
  backward pass will need with ``ctx.save_for_backward(...)``;
* ``backward(ctx, d_output)`` receives $d = \\partial L / \\partial f$ and returns
  $\\partial L / \\partial a = d \\cdot \\partial f / \\partial a$ for each input (a
  single float for a one-input function, a tuple for two inputs).

``Function.apply(*values)`` glues them to ``Scalar``: it unwraps the inputs, runs
``forward`` and wraps the result in a new ``Scalar`` that remembers the function,
the context and the inputs (its history), unless no input needs a derivative.

Write every forward and backward with Module 0's ``operators`` (``operators.mul``,
``operators.log_back``, ...): the same few functions then serve Scalars here and
every entry of a Tensor in Module 2.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Tuple, Union

# The forwards and backwards below are written with Module 0's operators.
from module0_fundamentals import operators  # noqa: F401

from .context import Context

if TYPE_CHECKING:
    from .scalar import Scalar, ScalarLike

__all__ = [
    "ScalarFunction",
    "Add",
    "Mul",
    "Inv",
    "Neg",
    "Sigmoid",
    "ReLU",
    "Log",
    "Exp",
    "Sin",
    "Cos",
    "Tanh",
    "LT",
    "GT",
    "EQ",
]


class ScalarFunction:
    """Base class of every scalar operation; subclasses define the two static
    methods and are used through :meth:`apply`, never instantiated."""

    #: The classes ``apply`` makes, ``(Scalar, ScalarHistory)``: scalar.py sets
    #: them (it imports this module, which cannot import it).
    made: Tuple[type, type]

    @staticmethod
    def forward(ctx: Context, *inputs: float) -> float:
        """$f(\\text{inputs})$ on plain floats."""
        raise NotImplementedError

    @staticmethod
    def backward(ctx: Context, d_output: float) -> Union[float, Tuple[float, ...]]:
        """$d \\cdot \\partial f / \\partial x_i$ for each input $x_i$."""
        raise NotImplementedError

    @classmethod
    def _backward(cls, ctx: Context, d_output: float) -> Tuple[float, ...]:
        """``backward`` with its result always a tuple of floats (one per input)."""
        d = cls.backward(ctx, d_output)
        return tuple(map(float, d if isinstance(d, tuple) else (d,)))

    @classmethod
    def apply(cls, *values: ScalarLike) -> "Scalar":
        """Run the function on Scalars or plain numbers, recording the history.

        Plain numbers become constants (no history, no derivative). The result has
        a history only if some input needs a derivative.

        Raises:
            TypeError: an input is neither a ``Scalar`` nor a real number.
        """
        Scalar, ScalarHistory = ScalarFunction.made
        # Scalar() itself rejects what is not a real number, naming its type.
        inputs = [
            v if isinstance(v, Scalar) else Scalar(v, requires_grad=False)
            for v in values
        ]
        ctx = Context(needs_input_grad=tuple(not x.is_constant() for x in inputs))
        out = cls.forward(ctx, *[x.data for x in inputs])
        if not isinstance(out, (float, int)) and not isinstance(out, numbers.Real):
            raise TypeError(
                f"{cls.__name__}.forward must return a float, "
                f"got {type(out).__name__}"
            )
        if not ctx.requires_grad:
            return Scalar(out, requires_grad=False)
        return Scalar(out, history=ScalarHistory(cls, ctx, tuple(inputs)))


class Add(ScalarFunction):
    """$f(a, b) = a + b$."""

    @staticmethod
    def forward(ctx: Context, a: float, b: float) -> float:
        # BEGIN SOLUTION 1.2: Add.forward
        return operators.add(a, b)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, d_output: float) -> Tuple[float, float]:
        # BEGIN SOLUTION 1.4: Add.backward
        return d_output, d_output
        # END SOLUTION


class Mul(ScalarFunction):
    """$f(a, b) = a b$."""

    @staticmethod
    def forward(ctx: Context, a: float, b: float) -> float:
        # BEGIN SOLUTION 1.2: Mul.forward
        ctx.save_for_backward(a, b)
        return operators.mul(a, b)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, d_output: float) -> Tuple[float, float]:
        # BEGIN SOLUTION 1.4: Mul.backward
        a, b = ctx.saved_values
        return operators.mul(b, d_output), operators.mul(a, d_output)
        # END SOLUTION


class Inv(ScalarFunction):
    """$f(a) = 1 / a$."""

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        # BEGIN SOLUTION 1.2: Inv.forward
        ctx.save_for_backward(a)
        return operators.inv(a)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, d_output: float) -> float:
        # BEGIN SOLUTION 1.4: Inv.backward
        (a,) = ctx.saved_values
        return operators.inv_back(a, d_output)
        # END SOLUTION


class Neg(ScalarFunction):
    """$f(a) = -a$."""

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        # BEGIN SOLUTION 1.2: Neg.forward
        return operators.neg(a)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, d_output: float) -> float:
        # BEGIN SOLUTION 1.4: Neg.backward
        return operators.neg(d_output)
        # END SOLUTION


class Sigmoid(ScalarFunction):
    """$f(a) = \\sigma(a) = 1 / (1 + e^{-a})$; $f'(a) = \\sigma(a)(1 - \\sigma(a))$."""

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        # BEGIN SOLUTION 1.2: Sigmoid.forward
        s = operators.sigmoid(a)
        ctx.save_for_backward(s)
        return s
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, d_output: float) -> float:
        # BEGIN SOLUTION 1.4: Sigmoid.backward
        (s,) = ctx.saved_values
        return s * (1.0 - s) * d_output
        # END SOLUTION


class ReLU(ScalarFunction):
    """$f(a) = \\max(a, 0)$; its derivative at 0 is taken to be 0."""

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        # BEGIN SOLUTION 1.2: ReLU.forward
        ctx.save_for_backward(a)
        return operators.relu(a)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, d_output: float) -> float:
        # BEGIN SOLUTION 1.4: ReLU.backward
        (a,) = ctx.saved_values
        return operators.relu_back(a, d_output)
        # END SOLUTION


class Log(ScalarFunction):
    """$f(a) = \\ln a$."""

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        # BEGIN SOLUTION 1.2: Log.forward
        ctx.save_for_backward(a)
        return operators.log(a)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, d_output: float) -> float:
        # BEGIN SOLUTION 1.4: Log.backward
        (a,) = ctx.saved_values
        return operators.log_back(a, d_output)
        # END SOLUTION


class Exp(ScalarFunction):
    """$f(a) = e^a$; $f'(a) = e^a$."""

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        # BEGIN SOLUTION 1.2: Exp.forward
        out = operators.exp(a)
        ctx.save_for_backward(out)
        return out
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, d_output: float) -> float:
        # BEGIN SOLUTION 1.4: Exp.backward
        (out,) = ctx.saved_values
        return operators.mul(out, d_output)
        # END SOLUTION


class Sin(ScalarFunction):
    """$f(a) = \\sin a$; $f'(a) = \\cos a$."""

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        # BEGIN SOLUTION 1.2: Sin.forward
        ctx.save_for_backward(a)
        return operators.sin(a)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, d_output: float) -> float:
        # BEGIN SOLUTION 1.4: Sin.backward
        (a,) = ctx.saved_values
        return operators.mul(operators.cos(a), d_output)
        # END SOLUTION


class Cos(ScalarFunction):
    """$f(a) = \\cos a$; $f'(a) = -\\sin a$."""

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        # BEGIN SOLUTION 1.2: Cos.forward
        ctx.save_for_backward(a)
        return operators.cos(a)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, d_output: float) -> float:
        # BEGIN SOLUTION 1.4: Cos.backward
        (a,) = ctx.saved_values
        return operators.mul(operators.neg(operators.sin(a)), d_output)
        # END SOLUTION


class Tanh(ScalarFunction):
    """$f(a) = \\tanh a$; $f'(a) = 1 - \\tanh^2 a$."""

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        # BEGIN SOLUTION 1.2: Tanh.forward
        t = operators.tanh(a)
        ctx.save_for_backward(t)
        return t
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, d_output: float) -> float:
        # BEGIN SOLUTION 1.4: Tanh.backward
        (t,) = ctx.saved_values
        return (1.0 - t * t) * d_output
        # END SOLUTION


class LT(ScalarFunction):
    """$f(a, b) = 1$ if $a < b$ else $0$ (flat almost everywhere: zero derivative)."""

    @staticmethod
    def forward(ctx: Context, a: float, b: float) -> float:
        # BEGIN SOLUTION 1.2: LT.forward
        return operators.lt(a, b)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, d_output: float) -> Tuple[float, float]:
        # BEGIN SOLUTION 1.4: LT.backward
        return 0.0, 0.0
        # END SOLUTION


class GT(ScalarFunction):
    """$f(a, b) = 1$ if $a > b$ else $0$ (zero derivative)."""

    @staticmethod
    def forward(ctx: Context, a: float, b: float) -> float:
        # BEGIN SOLUTION 1.2: GT.forward
        return operators.lt(b, a)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, d_output: float) -> Tuple[float, float]:
        # BEGIN SOLUTION 1.4: GT.backward
        return 0.0, 0.0
        # END SOLUTION


class EQ(ScalarFunction):
    """$f(a, b) = 1$ if $a = b$ else $0$ (zero derivative)."""

    @staticmethod
    def forward(ctx: Context, a: float, b: float) -> float:
        # BEGIN SOLUTION 1.2: EQ.forward
        return operators.eq(a, b)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, d_output: float) -> Tuple[float, float]:
        # BEGIN SOLUTION 1.4: EQ.backward
        return 0.0, 0.0
        # END SOLUTION
