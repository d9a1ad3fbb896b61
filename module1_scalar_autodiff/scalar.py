"""``Scalar``: a float that remembers how it was computed.

Every arithmetic operation on a ``Scalar`` goes through a
:class:`~module1_scalar_autodiff.scalar_functions.ScalarFunction`, which returns a
new ``Scalar`` whose *history* records the function, its context and its inputs.
Those histories form the computation graph that :meth:`Scalar.backward` walks
backwards with the engine of :mod:`module1_scalar_autodiff.autodiff`.

Three kinds of Scalar:

* a **leaf** (``Scalar(2.0)``): made by the user, receives ``.derivative``;
* a **computed** value: has a history (``last_fn``, ``ctx``, ``inputs``);
* a **constant** (``Scalar(2.0, requires_grad=False)``, or a plain float mixed
  into an expression): no history, never receives a derivative.
"""

from __future__ import annotations

import itertools
import numbers
from dataclasses import dataclass
from typing import Iterable, Optional, Tuple, Type, Union

from .autodiff import backpropagate
from .context import Context
from .scalar_functions import (
    EQ,
    GT,
    LT,
    Add,
    Cos,
    Exp,
    Inv,
    Log,
    Mul,
    Neg,
    ReLU,
    ScalarFunction,
    Sigmoid,
    Sin,
    Tanh,
)

ScalarLike = Union[float, int, "Scalar"]

__all__ = ["Scalar", "ScalarHistory", "ScalarLike"]

# A process-wide counter: ids are never reused, unlike id(), so the engine's
# dictionaries keyed by unique_id cannot confuse a dead node with a new one.
_ids = itertools.count()


@dataclass(frozen=True)
class ScalarHistory:
    """How a Scalar was made: by ``last_fn`` from ``inputs``, with ``ctx`` holding
    what ``last_fn.forward`` saved. A leaf's history is ``ScalarHistory()``."""

    last_fn: Optional[Type["ScalarFunction"]] = None
    ctx: Optional[Context] = None
    inputs: Tuple["Scalar", ...] = ()


class Scalar:
    """A differentiable float.

    Args:
        value: the number (stored as ``float`` in ``.data``).
        history: how it was computed; ``None`` for a value made by the user.
        requires_grad: for a value made by the user, whether it is a leaf that
            receives a derivative (``True``) or a constant (``False``).
        name: an optional label, shown in graphs.

    Attributes:
        data: the float value.
        derivative: $\\partial L / \\partial \\text{self}$ accumulated by
            ``backward`` (``None`` until a backward pass reaches it).
    """

    def __init__(
        self,
        value: float,
        history: Optional[ScalarHistory] = None,
        *,
        requires_grad: bool = True,
        name: Optional[str] = None,
    ) -> None:
        if type(value) is not float:  # the common case skips the slow ABC check
            if not isinstance(value, numbers.Real):
                hint = "; use its .data" if isinstance(value, Scalar) else ""
                raise TypeError(
                    f"Scalar(value) needs a real number, got {type(value).__name__}: "
                    f"{value!r}{hint}"
                )
            value = float(value)
        self.data: float = value
        # Kept private and read-only: a history is fixed at creation, which is
        # what makes a cycle impossible to build through the public API. A value
        # made by the user gets a leaf's empty history unless it is a constant.
        self._history = history or (ScalarHistory() if requires_grad else None)
        self.derivative: Optional[float] = None
        self.retains_grad: bool = False
        self.unique_id: int = next(_ids)
        self.name: str = name if name is not None else f"s{self.unique_id}"

    # ------------------------------------------------------------------ graph
    @property
    def history(self) -> Optional[ScalarHistory]:
        """The record of how this value was made (``None`` for a constant)."""
        return self._history

    @property
    def requires_grad(self) -> bool:
        """True unless this is a constant."""
        return self._history is not None

    @property
    def is_leaf(self) -> bool:
        """True for a value made by the user that takes a derivative (a property,
        as in PyTorch)."""
        return self._history is not None and self._history.last_fn is None

    def is_constant(self) -> bool:
        """True for a value without history: it never takes a derivative."""
        return self._history is None

    @property
    def parents(self) -> Tuple["Scalar", ...]:
        """The inputs of the function that produced this value."""
        return () if self._history is None else self._history.inputs

    def chain_rule(self, d_output: float) -> Iterable[Tuple["Scalar", float]]:
        """One local step of backpropagation.

        For $y = f(x_1, \\dots, x_k)$ (this Scalar) and $d = \\partial L /
        \\partial y$, return the pairs $(x_i, d \\, \\partial f / \\partial x_i)$
        for the inputs that are not constants. The local derivatives come from
        ``last_fn._backward(ctx, d_output)``, which always returns a tuple with
        one float per input.
        """
        h = self._history
        if h is None or h.last_fn is None or h.ctx is None:
            raise RuntimeError(f"chain_rule needs a computed Scalar, got {self!r}")
        # BEGIN SOLUTION 1.3: pair each input with its derivative, skip constants
        local = h.last_fn._backward(h.ctx, d_output)
        return [(x, d) for x, d in zip(h.inputs, local) if not x.is_constant()]
        # END SOLUTION

    def accumulate_derivative(self, d: float) -> None:
        """Add ``d`` into ``.derivative`` (leaves and ``retain_grad`` values; the
        engine never hands one to a constant, which it leaves out of the graph)."""
        self.derivative = d if self.derivative is None else self.derivative + d

    def requires_grad_(self, requires_grad: bool = True) -> "Scalar":
        """Make a user-made value a leaf (``True``) or a constant (``False``), in
        place, like PyTorch's ``requires_grad_``. (``Parameter`` calls this.)

        Raises:
            RuntimeError: switching off a computed value; use :meth:`detach`.
        """
        if self.is_constant() or self.is_leaf:  # a value made by the user
            self._history = ScalarHistory() if requires_grad else None
        elif not requires_grad:  # (a computed value already takes derivatives)
            raise RuntimeError(
                "requires_grad_(False) on a computed Scalar; use .detach() for a "
                "constant copy"
            )
        return self

    def detach(self) -> "Scalar":
        """A constant with the same value, cut off from the graph."""
        return Scalar(self.data, requires_grad=False, name=self.name)

    def retain_grad(self) -> "Scalar":
        """Keep this computed value's derivative after ``backward``, like
        PyTorch's ``retain_grad()``."""
        self.retains_grad = True
        return self

    def zero_grad(self) -> None:
        """Forget the accumulated derivative (``.derivative`` becomes ``None``)."""
        self.derivative = None

    def backward(self, d_output: float = 1.0) -> None:
        """Backpropagate from this value: every leaf it depends on receives
        $d \\cdot \\partial \\text{self} / \\partial \\text{leaf}$, added to its
        ``.derivative``."""
        if self.is_constant():
            raise RuntimeError(
                "backward() on a constant Scalar: nothing in its graph takes a "
                "derivative"
            )
        backpropagate(self, float(d_output))

    # ------------------------------------------------------------- arithmetic
    def __add__(self, b: ScalarLike) -> "Scalar":
        # BEGIN SOLUTION 1.2: self + b
        return Add.apply(self, b)
        # END SOLUTION

    def __radd__(self, b: ScalarLike) -> "Scalar":
        # BEGIN SOLUTION 1.2: b + self, for a plain number b
        return Add.apply(b, self)
        # END SOLUTION

    def __sub__(self, b: ScalarLike) -> "Scalar":
        # BEGIN SOLUTION 1.2: self - b, with Add and Neg
        return Add.apply(self, Neg.apply(b))
        # END SOLUTION

    def __rsub__(self, b: ScalarLike) -> "Scalar":
        # BEGIN SOLUTION 1.2: b - self, for a plain number b
        return Add.apply(b, Neg.apply(self))
        # END SOLUTION

    def __mul__(self, b: ScalarLike) -> "Scalar":
        # BEGIN SOLUTION 1.2: self * b
        return Mul.apply(self, b)
        # END SOLUTION

    def __rmul__(self, b: ScalarLike) -> "Scalar":
        # BEGIN SOLUTION 1.2: b * self, for a plain number b
        return Mul.apply(b, self)
        # END SOLUTION

    def __truediv__(self, b: ScalarLike) -> "Scalar":
        # BEGIN SOLUTION 1.2: self / b, with Mul and Inv
        return Mul.apply(self, Inv.apply(b))
        # END SOLUTION

    def __rtruediv__(self, b: ScalarLike) -> "Scalar":
        # BEGIN SOLUTION 1.2: b / self, for a plain number b
        return Mul.apply(b, Inv.apply(self))
        # END SOLUTION

    def __neg__(self) -> "Scalar":
        # BEGIN SOLUTION 1.2: -self
        return Neg.apply(self)
        # END SOLUTION

    def __lt__(self, b: ScalarLike) -> "Scalar":
        # BEGIN SOLUTION 1.2: self < b as a Scalar 1.0 or 0.0
        return LT.apply(self, b)
        # END SOLUTION

    def __gt__(self, b: ScalarLike) -> "Scalar":
        # BEGIN SOLUTION 1.2: self > b as a Scalar 1.0 or 0.0
        return GT.apply(self, b)
        # END SOLUTION

    def __eq__(self, b: ScalarLike) -> "Scalar":  # type: ignore[override]
        # BEGIN SOLUTION 1.2: self == b as a Scalar 1.0 or 0.0
        return EQ.apply(self, b)
        # END SOLUTION

    # __eq__ returns a Scalar, so identity hashing has to be restored explicitly.
    __hash__ = object.__hash__

    def __bool__(self) -> bool:
        # Without this, `if x < y:` would test the truth of an object (always
        # True) instead of the 1.0 / 0.0 that the comparison computed.
        return bool(self.data)

    def __float__(self) -> float:
        return self.data

    # ------------------------------------------------------------ functions
    def log(self) -> "Scalar":
        """$\\ln x$."""
        # BEGIN SOLUTION 1.2
        return Log.apply(self)
        # END SOLUTION

    def exp(self) -> "Scalar":
        """$e^x$."""
        # BEGIN SOLUTION 1.2
        return Exp.apply(self)
        # END SOLUTION

    def sigmoid(self) -> "Scalar":
        """$\\sigma(x) = 1 / (1 + e^{-x})$."""
        # BEGIN SOLUTION 1.2
        return Sigmoid.apply(self)
        # END SOLUTION

    def relu(self) -> "Scalar":
        """$\\max(x, 0)$."""
        # BEGIN SOLUTION 1.2
        return ReLU.apply(self)
        # END SOLUTION

    def sin(self) -> "Scalar":
        """$\\sin x$."""
        # BEGIN SOLUTION 1.2
        return Sin.apply(self)
        # END SOLUTION

    def cos(self) -> "Scalar":
        """$\\cos x$."""
        # BEGIN SOLUTION 1.2
        return Cos.apply(self)
        # END SOLUTION

    def tanh(self) -> "Scalar":
        """$\\tanh x$."""
        # BEGIN SOLUTION 1.2
        return Tanh.apply(self)
        # END SOLUTION

    def __repr__(self) -> str:
        return f"Scalar({self.data!r})"


# Given: ScalarFunction.apply makes Scalars with their histories.
ScalarFunction.made = (Scalar, ScalarHistory)
