"""Measuring expression swell (given complete; no task edits or needs to read it).

Task 1.7 asks for :func:`~module1_scalar_autodiff.symbolic.diff` and
:func:`~module1_scalar_autodiff.symbolic.evaluate`; this module holds the tools
that compare symbolic differentiation with autodiff: tree sizes, ``simplify``,
the logistic map and :func:`swell_table`.

Interface: the names of ``__all__``. It stands above ``symbolic`` (whose node
classes and ``diff`` it uses) and ``scalar``; neither imports it.
"""

from __future__ import annotations

import contextlib
import functools
from typing import Any, Dict, List, NamedTuple
from module0_fundamentals._exports import defined_here

from .scalar import Scalar
from .symbolic import _FUNCTIONS, Add, Const, Div, Expr, ExprLike, Mul, Neg, Pow, Sub
from .symbolic import Var, as_expr, diff


# ------------------------------------------------------------ measuring swell
def size(expr: ExprLike) -> int:
    """The number of nodes of ``expr`` written out as a tree: a sub-expression
    used $k$ times counts $k$ times. (Computed with memoization, so it is fast
    even when the count is astronomically large.)"""

    @functools.cache  # (nodes hash by identity: a shared node is counted once)
    def count(node: Expr) -> int:
        return 1 + sum(map(count, node.children))

    return count(as_expr(expr))


def simplify(expr: ExprLike) -> Expr:
    """A light clean-up: fold constants and apply $x + 0 = x$, $x \\cdot 1 = x$,
    $x \\cdot 0 = 0$, $x / 1 = x$, $-(-x) = x$, $x^1 = x$, $x^0 = 1$.

    It shrinks results by a constant factor but cannot stop exponential swell:
    the repeated subtrees are different expressions, not zeros or ones.
    """

    @functools.cache  # (each shared node once)
    def simp(node: Expr) -> Expr:
        if not node.children:
            return node
        # Each node is rebuilt on its simplified children unless a rule applies.
        kids = list(map(simp, node.children))
        # (a power's exponent is no child: it comes after its one child)
        extra = (node.exponent,) if isinstance(node, Pow) else ()
        out = type(node)(*kids, *extra)
        # The children's values where they are constants (None where not).
        values = [k.value if isinstance(k, Const) else None for k in kids]
        # 0 + x, 0 * x and 1 * x read as x + 0, x * 0 and x * 1 by the rules
        if isinstance(node, (Add, Mul)) and values[0] is not None:
            kids, values = kids[::-1], values[::-1]
        if None not in values:
            # (log(-1), 0^-1 and the like are left as they are)
            with contextlib.suppress(ValueError, ArithmeticError):
                out = Const(_FUNCTIONS[type(node)](*values, *extra))
        elif isinstance(node, Pow) and node.exponent in (0.0, 1.0):
            out = kids[0] if node.exponent == 1.0 else Const(1.0)
        elif isinstance(node, (Add, Sub)) and values[1] == 0.0:
            out = kids[0]
        elif isinstance(node, Sub) and values[0] == 0.0:
            out = Neg(kids[1])
        elif isinstance(node, Mul) and values[1] == 0.0:
            out = Const(0.0)
        elif isinstance(node, Div) and values[0] == 0.0:
            out = Const(0.0)
        elif isinstance(node, (Mul, Div)) and values[1] == 1.0:
            out = kids[0]
        elif isinstance(node, Neg) and isinstance(kids[0], Neg):
            out = kids[0].a
        return out

    return simp(as_expr(expr))


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
    seen: Dict[int, Any] = {}
    stack = [out]
    while stack:
        v = stack.pop()
        if not v.is_constant() and v.unique_id not in seen:
            seen[v.unique_id] = v
            stack.extend(v.parents)
    return sum(not v.is_leaf for v in seen.values())


def swell_table(n_max: int) -> List[SwellRow]:
    """Expression swell against autodiff cost for $n = 1, \\dots,$ ``n_max``.

    The autodiff column counts the operations a ``Scalar`` records while
    computing $l_n$ (:func:`recorded_operations`): the backward pass does one
    local step per operation.
    """
    rows = []
    for n in range(1, n_max + 1):
        ln = logistic_map(Var("x"), n)
        d = diff(ln, "x")
        ops = recorded_operations(logistic_map(Scalar(0.3), n))
        rows.append(SwellRow(n, size(ln), size(d), size(simplify(d)), ops))
    return rows


# (last: the names defined above)
__all__ = defined_here(globals())
