"""Symbolic differentiation of expression trees, and why autodiff beats it.

An expression is a tree of nodes: leaves ``Var("x")`` and ``Const(2.0)``, inner
nodes for ``+ - * /``, powers by a constant, ``log exp sin cos``. Python operators
build trees (``Var("x") * 2 + 1``). :func:`diff` applies the textbook rules to
return the derivative *as another expression*, :func:`evaluate` computes a value.

The catch is *expression swell*: the product rule copies both factors into the
result, so differentiating a composition repeats whole subtrees. For the logistic
map $l_{n+1} = 4 l_n (1 - l_n)$ the derivative's size grows exponentially with
$n$, while reverse-mode autodiff does a constant amount of work per operation
(:func:`swell_table` measures both).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any, Callable, Dict, Tuple, Union

from module0_fundamentals import operators

from .expr_text import to_string

__all__ = [
    "Expr",
    "Const",
    "Var",
    "Add",
    "Sub",
    "Mul",
    "Div",
    "Neg",
    "Pow",
    "Log",
    "Exp",
    "Sin",
    "Cos",
    "log",
    "exp",
    "sin",
    "cos",
    "diff",
    "evaluate",
]

ExprLike = Union["Expr", float, int]


def as_expr(x: Any) -> "Expr":
    """An Expr as is; a real number as a ``Const``."""
    if isinstance(x, Expr):
        return x
    if isinstance(x, numbers.Real):
        return Const(float(x))
    raise TypeError(
        f"expressions combine with Exprs and numbers, not {type(x).__name__}"
    )


class Expr:
    """Base class of expression nodes; ``children`` are the sub-expressions.

    Nodes are immutable and compared by identity (``==`` is not overloaded), so a
    tree may share sub-expressions, and a cycle cannot be built.
    """

    @property
    def children(self) -> Tuple["Expr", ...]:
        """The node's fields that are expressions, in order (``(a, b)``, ``(a,)``
        or ``()``; a power's exponent is a number, not a child)."""
        return tuple(v for v in vars(self).values() if isinstance(v, Expr))

    def __add__(self, b: ExprLike) -> "Expr":
        return Add(self, as_expr(b))

    def __radd__(self, b: ExprLike) -> "Expr":
        return Add(as_expr(b), self)

    def __sub__(self, b: ExprLike) -> "Expr":
        return Sub(self, as_expr(b))

    def __rsub__(self, b: ExprLike) -> "Expr":
        return Sub(as_expr(b), self)

    def __mul__(self, b: ExprLike) -> "Expr":
        return Mul(self, as_expr(b))

    def __rmul__(self, b: ExprLike) -> "Expr":
        return Mul(as_expr(b), self)

    def __truediv__(self, b: ExprLike) -> "Expr":
        return Div(self, as_expr(b))

    def __rtruediv__(self, b: ExprLike) -> "Expr":
        return Div(as_expr(b), self)

    def __neg__(self) -> "Expr":
        return Neg(self)

    def __pow__(self, c: Union[float, int]) -> "Expr":
        """$a^c$ for a constant exponent $c$ (a number) only."""
        if not isinstance(c, numbers.Real):  # (an Expr too)
            raise TypeError(
                f"the exponent must be a constant number, got {type(c).__name__}"
            )
        return Pow(self, float(c))

    def log(self) -> "Expr":
        return Log(as_expr(self))

    def exp(self) -> "Expr":
        return Exp(as_expr(self))

    def sin(self) -> "Expr":
        return Sin(as_expr(self))

    def cos(self) -> "Expr":
        return Cos(as_expr(self))

    __repr__ = to_string  # (its limit keeps a swollen tree's text short)


@dataclass(frozen=True, eq=False, repr=False)
class Const(Expr):
    """A number."""

    value: float


@dataclass(frozen=True, eq=False, repr=False)
class Var(Expr):
    """A variable, identified by its name."""

    name: str

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(
                f"a variable's name must be a non-empty str, got {self.name!r}"
            )


@dataclass(frozen=True, eq=False, repr=False)
class _Binary(Expr):
    a: Expr
    b: Expr


@dataclass(frozen=True, eq=False, repr=False)
class _Unary(Expr):
    a: Expr


class Add(_Binary):
    """$a + b$."""


class Sub(_Binary):
    """$a - b$."""


class Mul(_Binary):
    """$a b$."""


class Div(_Binary):
    """$a / b$."""


class Neg(_Unary):
    """$-a$."""


@dataclass(frozen=True, eq=False, repr=False)
class Pow(_Unary):
    """$a^c$ for a constant exponent $c$: ``Pow(a, c)``."""

    exponent: float


class Log(_Unary):
    """$\\ln a$."""


class Exp(_Unary):
    """$e^a$."""


class Sin(_Unary):
    """$\\sin a$."""


class Cos(_Unary):
    """$\\cos a$."""


# ---------------------------------------------------------------- Task 1.7
def diff(expr: ExprLike, name: str) -> Expr:
    """The derivative $\\partial\\, \\text{expr} / \\partial\\, \\text{name}$, as an
    expression, by the rules

    $c' = 0$, $x' = 1$ (other variables 0), $(a \\pm b)' = a' \\pm b'$,
    $(ab)' = a'b + ab'$, $(a/b)' = (a'b - ab') / b^2$, $(-a)' = -a'$,
    $(a^c)' = c\\,a^{c-1} a'$, $(\\ln a)' = a'/a$, $(e^a)' = e^a a'$,
    $(\\sin a)' = \\cos(a)\\, a'$, $(\\cos a)' = -\\sin(a)\\, a'$.

    Build the result with the node classes (``Add(...)``, ``Mul(...)``, ...) or the
    operators on ``Expr``; do not simplify (that is :func:`simplify`'s job), so the
    size of the result shows the textbook rules' true cost.
    """
    expr = as_expr(expr)
    # BEGIN SOLUTION 1.7: one rule per node type, recursing into the children
    if isinstance(expr, Const):
        return Const(0.0)
    if isinstance(expr, Var):
        return Const(1.0 if expr.name == name else 0.0)
    if isinstance(expr, Add):
        return Add(diff(expr.a, name), diff(expr.b, name))
    if isinstance(expr, Sub):
        return Sub(diff(expr.a, name), diff(expr.b, name))
    if isinstance(expr, Mul):
        a, b = expr.a, expr.b
        return Add(Mul(diff(a, name), b), Mul(a, diff(b, name)))
    if isinstance(expr, Div):
        a, b = expr.a, expr.b
        top = Sub(Mul(diff(a, name), b), Mul(a, diff(b, name)))
        return Div(top, Pow(b, 2.0))
    if isinstance(expr, Neg):
        return Neg(diff(expr.a, name))
    if isinstance(expr, Pow):
        c = expr.exponent
        return Mul(Mul(Const(c), Pow(expr.a, c - 1.0)), diff(expr.a, name))
    if isinstance(expr, Log):
        return Div(diff(expr.a, name), expr.a)
    if isinstance(expr, Exp):
        return Mul(expr, diff(expr.a, name))
    if isinstance(expr, Sin):
        return Mul(Cos(expr.a), diff(expr.a, name))
    if isinstance(expr, Cos):
        return Mul(Neg(Sin(expr.a)), diff(expr.a, name))
    raise TypeError(f"diff: unknown expression node {type(expr).__name__}")
    # END SOLUTION


# The functions of the math module, for expressions (given): ``log(x)`` is
# ``Expr.log``, which takes a number too (``log(2.0)`` is ``Log(Const(2.0))``).
log, exp, sin, cos = Expr.log, Expr.exp, Expr.sin, Expr.cos


def evaluate(expr: ExprLike, **values: float) -> float:
    """The value of ``expr`` with each variable set from ``values``.

    ``evaluate(Var("x") * 2 + 1, x=3.0) == 7.0``. A sub-expression that appears
    many times (shared) should be computed once: keep a dict from ``id(node)`` to
    its value.

    Raises:
        ValueError: a variable of ``expr`` has no value in ``values``.
    """
    expr = as_expr(expr)
    # BEGIN SOLUTION 1.7: compute children first; memoize by id(node)
    memo: Dict[int, float] = {}

    def ev(node: Expr) -> float:
        key = id(node)
        if key in memo:
            return memo[key]
        if isinstance(node, Const):
            out = node.value
        elif isinstance(node, Var):
            if node.name not in values:
                raise ValueError(f"evaluate: no value given for variable {node.name!r}")
            out = float(values[node.name])
        elif isinstance(node, Pow):
            out = ev(node.a) ** node.exponent
        else:
            args = [ev(child) for child in node.children]
            out = _FUNCTIONS[type(node)](*args)
        memo[key] = out
        return out

    return ev(expr)
    # END SOLUTION


# The float function of each node type (Pow's takes the exponent after its child's
# value: its exponent is not a child).
_FUNCTIONS: Dict[type, Callable[..., float]] = {
    Pow: pow,
    Add: operators.add,
    Sub: lambda a, b: operators.add(a, operators.neg(b)),
    Mul: operators.mul,
    Div: lambda a, b: operators.mul(a, operators.inv(b)),
    Neg: operators.neg,
    Log: operators.log,
    Exp: operators.exp,
    Sin: operators.sin,
    Cos: operators.cos,
}
