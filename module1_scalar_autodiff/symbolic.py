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
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, NamedTuple, Tuple, Union

from module0_fundamentals import operators

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
    "size",
    "dag_size",
    "simplify",
    "logistic_map",
    "swell_table",
    "recorded_operations",
    "SwellRow",
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

    children: Tuple["Expr", ...] = ()

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

    def __pow__(self, c: Union[float, int, "Const"]) -> "Expr":
        """$a^c$ for a constant exponent $c$ only."""
        if isinstance(c, Const):
            c = c.value
        if isinstance(c, Expr) or not isinstance(c, numbers.Real):
            raise TypeError(
                f"the exponent must be a constant number, got {type(c).__name__}"
            )
        return Pow(self, float(c))

    def log(self) -> "Expr":
        return Log(self)

    def exp(self) -> "Expr":
        return Exp(self)

    def sin(self) -> "Expr":
        return Sin(self)

    def cos(self) -> "Expr":
        return Cos(self)

    def __repr__(self) -> str:
        return to_string(self)


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
    children: Tuple[Expr, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "children", (self.a, self.b))


@dataclass(frozen=True, eq=False, repr=False)
class _Unary(Expr):
    a: Expr
    children: Tuple[Expr, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "children", (self.a,))


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


# The functions of the math module, for expressions (given).
def log(x: ExprLike) -> Expr:
    """$\\ln x$ as an expression."""
    return Log(as_expr(x))


def exp(x: ExprLike) -> Expr:
    """$e^x$ as an expression."""
    return Exp(as_expr(x))


def sin(x: ExprLike) -> Expr:
    """$\\sin x$ as an expression."""
    return Sin(as_expr(x))


def cos(x: ExprLike) -> Expr:
    """$\\cos x$ as an expression."""
    return Cos(as_expr(x))


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


# The float function of each node type (Pow is special: its exponent is not a child).
_FUNCTIONS: Dict[type, Callable[..., float]] = {
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


# ------------------------------------------------------------ measuring swell
def size(expr: ExprLike) -> int:
    """The number of nodes of ``expr`` written out as a tree: a sub-expression
    used $k$ times counts $k$ times. (Computed with memoization, so it is fast
    even when the count is astronomically large.)"""
    memo: Dict[int, int] = {}

    def count(node: Expr) -> int:
        if id(node) not in memo:
            memo[id(node)] = 1 + sum(count(c) for c in node.children)
        return memo[id(node)]

    return count(as_expr(expr))


def dag_size(expr: ExprLike) -> int:
    """The number of *distinct* node objects of ``expr`` (shared ones count once)."""
    seen: set = set()
    stack = [as_expr(expr)]
    while stack:
        node = stack.pop()
        if id(node) not in seen:
            seen.add(id(node))
            stack.extend(node.children)
    return len(seen)


def simplify(expr: ExprLike) -> Expr:
    """A light clean-up: fold constants and apply $x + 0 = x$, $x \\cdot 1 = x$,
    $x \\cdot 0 = 0$, $x / 1 = x$, $-(-x) = x$, $x^1 = x$, $x^0 = 1$.

    It shrinks results by a constant factor but cannot stop exponential swell:
    the repeated subtrees are different expressions, not zeros or ones.
    """
    memo: Dict[int, Expr] = {}

    def is_const(e: Expr, value: float) -> bool:
        return isinstance(e, Const) and e.value == value

    def simp(node: Expr) -> Expr:
        key = id(node)
        if key in memo:
            return memo[key]
        out: Expr = node
        if isinstance(node, Pow):
            a = simp(node.a)
            if node.exponent == 1.0:
                out = a
            elif node.exponent == 0.0:
                out = Const(1.0)
            elif isinstance(a, Const):
                out = Const(a.value**node.exponent)
            else:
                out = Pow(a, node.exponent)
        elif node.children:
            kids = [simp(c) for c in node.children]
            if all(isinstance(k, Const) for k in kids):
                try:
                    out = Const(_FUNCTIONS[type(node)](*(k.value for k in kids)))
                except (ValueError, OverflowError):  # leave log(-1) etc. as is
                    out = type(node)(*kids)
            elif isinstance(node, Add) and is_const(kids[0], 0.0):
                out = kids[1]
            elif isinstance(node, (Add, Sub)) and is_const(kids[1], 0.0):
                out = kids[0]
            elif isinstance(node, Sub) and is_const(kids[0], 0.0):
                out = Neg(kids[1])
            elif isinstance(node, Mul) and (
                is_const(kids[0], 0.0) or is_const(kids[1], 0.0)
            ):
                out = Const(0.0)
            elif isinstance(node, Mul) and is_const(kids[0], 1.0):
                out = kids[1]
            elif isinstance(node, (Mul, Div)) and is_const(kids[1], 1.0):
                out = kids[0]
            elif isinstance(node, Div) and is_const(kids[0], 0.0):
                out = Const(0.0)
            elif isinstance(node, Neg) and isinstance(kids[0], Neg):
                out = kids[0].a
            else:
                out = type(node)(*kids)
        memo[key] = out
        return out

    return simp(as_expr(expr))


_INFIX = {Add: "+", Sub: "-", Mul: "*", Div: "/"}


def to_string(expr: ExprLike, limit: int = 400) -> str:
    """Infix text, fully parenthesised; cut at ``limit`` characters."""
    parts: List[str] = []
    budget = [limit]

    def emit(s: str) -> None:
        parts.append(s)
        budget[0] -= len(s)

    def walk(node: Expr) -> None:
        if budget[0] <= 0:
            return
        if isinstance(node, Const):
            emit(f"{node.value:g}")
        elif isinstance(node, Var):
            emit(node.name)
        elif isinstance(node, Neg):
            emit("-(")
            walk(node.a)
            emit(")")
        elif isinstance(node, Pow):
            emit("(")
            walk(node.a)
            emit(f")^{node.exponent:g}")
        elif type(node) in _INFIX:
            emit("(")
            walk(node.children[0])
            emit(f" {_INFIX[type(node)]} ")
            walk(node.children[1])
            emit(")")
        else:
            emit(f"{type(node).__name__.lower()}(")
            walk(node.children[0])
            emit(")")

    walk(as_expr(expr))
    text = "".join(parts)
    return text if len(text) <= limit else text[:limit] + "..."


# ------------------------------------------------------ the logistic map demo
def logistic_map(l0: Any, n: int) -> Any:
    """$l_n$ for $l_{k+1} = 4 l_k (1 - l_k)$, for any $l_0$ that supports ``*`` and
    ``-`` with numbers: an ``Expr``, a ``Scalar``, a ``Dual`` or a float."""
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    lk = l0
    for _ in range(n):
        lk = 4.0 * lk * (1.0 - lk)
    return lk


class SwellRow(NamedTuple):
    """Sizes for one $n$ of the logistic map."""

    n: int
    expression: int  # size(l_n) as a tree
    derivative: int  # size(diff(l_n)) as a tree
    simplified: int  # size(simplify(diff(l_n)))
    autodiff_ops: int  # operations recorded by a Scalar computing l_n


def recorded_operations(out: Any) -> int:
    """How many function applications the graph of a ``Scalar`` records: the
    number of local steps a backward pass from ``out`` takes."""
    seen: set = set()
    stack = [out]
    count = 0
    while stack:
        v = stack.pop()
        if v.is_constant() or v.unique_id in seen:
            continue
        seen.add(v.unique_id)
        count += 0 if v.is_leaf else 1
        stack.extend(v.parents)
    return count


def swell_table(n_max: int) -> List[SwellRow]:
    """Expression swell against autodiff cost for $n = 1, \\dots,$ ``n_max``.

    The autodiff column counts the operations a ``Scalar`` records while
    computing $l_n$ (:func:`recorded_operations`): the backward pass does one
    local step per operation.
    """
    from .scalar import Scalar

    rows = []
    for n in range(1, n_max + 1):
        ln = logistic_map(Var("x"), n)
        d = diff(ln, "x")
        ops = recorded_operations(logistic_map(Scalar(0.3), n))
        rows.append(SwellRow(n, size(ln), size(d), size(simplify(d)), ops))
    return rows
