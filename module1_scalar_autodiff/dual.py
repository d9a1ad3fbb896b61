"""Forward-mode autodiff with dual numbers.

A dual number $a + \\dot a\\,\\epsilon$ with $\\epsilon^2 = 0$ carries a value $a$
and a *tangent* $\\dot a$ (a directional derivative). Taylor's theorem with
$\\epsilon^2 = 0$ gives the rule every operation follows:

$$f(a + \\dot a \\epsilon) = f(a) + f'(a)\\,\\dot a\\,\\epsilon,$$

so one evaluation of $f$ on duals seeded with tangents $v$ yields $f(x)$ *and* the
Jacobian-vector product $J_f(x)\\,v$: no graph, no backward pass. The price: one
pass per input direction, so the full Jacobian of $f: \\mathbb{R}^n \\to
\\mathbb{R}^m$ costs $n$ forward passes, against $m$ passes (a forward run and a
backward each) in reverse mode (:func:`jacobian` counts both).
"""

from __future__ import annotations

import numbers
from typing import Any, Callable, List, NamedTuple, Sequence, Tuple, Union

from module0_fundamentals import operators

# jacobian's reverse mode runs f on Scalar leaves.
from .scalar import Scalar  # noqa: F401

__all__ = ["Dual", "jvp", "jacobian", "JacobianResult"]

DualLike = Union[float, int, "Dual"]


def _as_dual(b: Any) -> "Dual":
    """Lift a plain number to a constant dual (tangent 0); pass a Dual through.
    (``Dual`` rejects what is not a real number, naming its type.)"""
    return b if isinstance(b, Dual) else Dual(b)


class Dual:
    """A value and its tangent: $a + \\dot a \\epsilon$, $\\epsilon^2 = 0$.

    Supports the operations of ``Scalar`` (``+ - * /``, unary ``-``, ``< > ==``,
    ``log exp sigmoid relu sin cos tanh``), with plain numbers on either side.
    """

    __slots__ = ("value", "tangent")

    def __init__(self, value: float, tangent: float = 0.0) -> None:
        for what, v in (("value", value), ("tangent", tangent)):
            if not isinstance(v, numbers.Real):  # (a Dual too)
                raise TypeError(
                    f"Dual {what} must be a real number, got {type(v).__name__}"
                )
        self.value: float = float(value)
        self.tangent: float = float(tangent)

    # ---- arithmetic: the sum, product and quotient rules ------------------
    def __add__(self, b: DualLike) -> "Dual":
        """$(a + \\dot a\\epsilon) + (b + \\dot b\\epsilon) = (a + b) + (\\dot a +
        \\dot b)\\epsilon$."""
        b = _as_dual(b)
        # BEGIN SOLUTION 1.6
        return Dual(self.value + b.value, self.tangent + b.tangent)
        # END SOLUTION

    __radd__ = __add__  # b + a = a + b, value and tangent alike

    def __neg__(self) -> "Dual":
        """$-(a + \\dot a\\epsilon) = -a - \\dot a\\epsilon$."""
        # BEGIN SOLUTION 1.6
        return Dual(operators.neg(self.value), operators.neg(self.tangent))
        # END SOLUTION

    def __sub__(self, b: DualLike) -> "Dual":
        return self + (-_as_dual(b))

    def __rsub__(self, b: DualLike) -> "Dual":
        return _as_dual(b) + (-self)

    def __mul__(self, b: DualLike) -> "Dual":
        """$(a + \\dot a\\epsilon)(b + \\dot b\\epsilon) = ab + (\\dot a b + a \\dot
        b)\\epsilon$ (the $\\epsilon^2$ term vanishes)."""
        b = _as_dual(b)
        # BEGIN SOLUTION 1.6
        return Dual(
            operators.mul(self.value, b.value),
            self.tangent * b.value + self.value * b.tangent,
        )
        # END SOLUTION

    __rmul__ = __mul__  # b a = a b: the same two products in the tangent

    def inv(self) -> "Dual":
        """$1 / (a + \\dot a\\epsilon) = 1/a - (\\dot a / a^2)\\epsilon$."""
        # BEGIN SOLUTION 1.6
        return Dual(
            operators.inv(self.value), operators.inv_back(self.value, self.tangent)
        )
        # END SOLUTION

    def __truediv__(self, b: DualLike) -> "Dual":
        return self * _as_dual(b).inv()

    def __rtruediv__(self, b: DualLike) -> "Dual":
        return _as_dual(b) * self.inv()

    # ---- comparisons: piecewise constant, so the tangent is 0 --------------
    def __lt__(self, b: DualLike) -> "Dual":
        return Dual(operators.lt(self.value, _as_dual(b).value), 0.0)

    def __gt__(self, b: DualLike) -> "Dual":
        return Dual(operators.lt(_as_dual(b).value, self.value), 0.0)

    def __eq__(self, b: DualLike) -> "Dual":  # type: ignore[override]
        return Dual(operators.eq(self.value, _as_dual(b).value), 0.0)

    __hash__ = object.__hash__

    def __bool__(self) -> bool:
        return bool(self.value)

    def __float__(self) -> float:
        return self.value

    # ---- functions: f(a + a'e) = f(a) + f'(a) a' e -------------------------
    def log(self) -> "Dual":
        """$\\ln a + (\\dot a / a)\\epsilon$."""
        # BEGIN SOLUTION 1.6
        return Dual(
            operators.log(self.value), operators.log_back(self.value, self.tangent)
        )
        # END SOLUTION

    def exp(self) -> "Dual":
        """$e^a + e^a \\dot a\\,\\epsilon$."""
        # BEGIN SOLUTION 1.6
        e = operators.exp(self.value)
        return Dual(e, e * self.tangent)
        # END SOLUTION

    def sigmoid(self) -> "Dual":
        """$\\sigma(a) + \\sigma(a)(1 - \\sigma(a))\\dot a\\,\\epsilon$."""
        # BEGIN SOLUTION 1.6
        s = operators.sigmoid(self.value)
        return Dual(s, s * (1.0 - s) * self.tangent)
        # END SOLUTION

    def relu(self) -> "Dual":
        """$\\max(a, 0) + [a > 0]\\,\\dot a\\,\\epsilon$."""
        # BEGIN SOLUTION 1.6
        return Dual(
            operators.relu(self.value), operators.relu_back(self.value, self.tangent)
        )
        # END SOLUTION

    def sin(self) -> "Dual":
        """$\\sin a + \\cos a\\,\\dot a\\,\\epsilon$."""
        # BEGIN SOLUTION 1.6
        return Dual(operators.sin(self.value), operators.cos(self.value) * self.tangent)
        # END SOLUTION

    def cos(self) -> "Dual":
        """$\\cos a - \\sin a\\,\\dot a\\,\\epsilon$."""
        # BEGIN SOLUTION 1.6
        return Dual(
            operators.cos(self.value), -operators.sin(self.value) * self.tangent
        )
        # END SOLUTION

    def tanh(self) -> "Dual":
        """$\\tanh a + (1 - \\tanh^2 a)\\,\\dot a\\,\\epsilon$."""
        # BEGIN SOLUTION 1.6
        t = operators.tanh(self.value)
        return Dual(t, (1.0 - t * t) * self.tangent)
        # END SOLUTION

    def __repr__(self) -> str:
        return f"Dual({self.value!r}, {self.tangent!r})"


def _as_outputs(result: Any, kind: type) -> Tuple[List[Any], bool]:
    """A function's result as a list of outputs, and whether it was a single one.

    A plain number counts as a constant output of type ``kind``'s world (it does
    not depend on the inputs)."""
    if isinstance(result, (kind, numbers.Real)):
        return [result], True
    if isinstance(result, (list, tuple)):
        return list(result), False
    raise TypeError(
        f"the function must return a number, a {kind.__name__} or a list of them, "
        f"got {type(result).__name__}"
    )


def jvp(
    f: Callable[..., Any], primals: Sequence[float], tangents: Sequence[float]
) -> Tuple[Any, Any]:
    """The value of ``f`` and its Jacobian-vector product, in one forward pass.

    Like ``torch.func.jvp``: with $x$ = ``primals`` and $v$ = ``tangents``,
    returns $(f(x), J_f(x)\\,v)$. ``f`` takes ``len(primals)`` arguments and
    returns one number (then both results are floats) or a list of them (then
    both results are lists of floats).

    Raises:
        ValueError: ``primals`` and ``tangents`` differ in length.
    """
    if len(primals) != len(tangents):
        raise ValueError(
            f"jvp needs one tangent per primal: got {len(primals)} primals and "
            f"{len(tangents)} tangents"
        )
    # BEGIN SOLUTION 1.6: seed Duals, call f once, read values and tangents
    outputs, single = _as_outputs(
        f(*(Dual(x, v) for x, v in zip(primals, tangents))), Dual
    )
    duals = [_as_dual(y) for y in outputs]
    values = [y.value for y in duals]
    derivs = [y.tangent for y in duals]
    if single:
        return values[0], derivs[0]
    return values, derivs
    # END SOLUTION


class JacobianResult(NamedTuple):
    """``matrix[i][j]`` $= \\partial f_i / \\partial x_j$ ($m \\times n$) and the
    number of passes it took (forward: one per input; reverse: one per output)."""

    matrix: List[List[float]]
    passes: int


def jacobian(
    f: Callable[..., Any], xs: Sequence[float], mode: str = "forward"
) -> JacobianResult:
    """The Jacobian of $f: \\mathbb{R}^n \\to \\mathbb{R}^m$ at ``xs``.

    * ``mode="forward"``: column $j$ is the JVP with the unit vector $e_j$, one
      :func:`jvp` pass per input ($n$ passes).
    * ``mode="reverse"``: row $i$ is the gradient of output $f_i$: for each
      output, one forward run of ``f`` on fresh ``Scalar`` leaves (fresh, or the
      derivatives would accumulate) and one ``backward`` from $f_i$ ($m$ passes,
      as the Module 1 guide counts them).

    ``f`` takes $n$ arguments and returns one value or a list of $m$ values; it
    must be written with operations both ``Dual`` and ``Scalar`` support.

    Returns:
        ``JacobianResult(matrix, passes)``; it unpacks as ``matrix, passes``.
    """
    if mode not in ("forward", "reverse"):
        raise ValueError(f"mode must be 'forward' or 'reverse', got {mode!r}")
    xs = [float(x) for x in xs]
    n = len(xs)
    if n == 0:
        raise ValueError("jacobian needs at least one input")
    # BEGIN SOLUTION 1.6: n jvp passes (columns) or m backward passes (rows)
    if mode == "forward":
        columns = []
        for j in range(n):
            unit = [1.0 if k == j else 0.0 for k in range(n)]
            _, column = jvp(lambda *a: _as_outputs(f(*a), Dual)[0], xs, unit)
            columns.append(column)
        m = len(columns[0])
        return JacobianResult([[columns[j][i] for j in range(n)] for i in range(m)], n)

    rows: List[List[float]] = []
    m = 1  # the number of outputs, known after the first pass
    while len(rows) < m:
        leaves = [Scalar(x) for x in xs]
        outputs = _as_outputs(f(*leaves), Scalar)[0]
        m = len(outputs)
        out = outputs[len(rows)]
        if isinstance(out, Scalar) and not out.is_constant():
            out.backward()
        rows.append([0.0 if x.derivative is None else x.derivative for x in leaves])
    return JacobianResult(rows, m)
    # END SOLUTION
