"""Printing a symbolic expression (given complete; no task edits or needs to read
it): ``Expr.__repr__`` of :mod:`.symbolic` calls :func:`to_string`.

A node is told by its class's name (``Const``, ``Var``, ``Add``, ...) and read
through its fields (``value``, ``name``, ``a``, ``exponent``, ``children``), so
this module imports nothing from ``symbolic``, which imports it.
"""

from __future__ import annotations

from typing import Any, List

__all__ = ["to_string"]


def to_string(expr: Any, limit: int = 400) -> str:
    """Infix text, fully parenthesised; cut at ``limit`` characters."""
    infix = {"Add": "+", "Sub": "-", "Mul": "*", "Div": "/"}
    parts: List[str] = []
    budget = [limit]

    def emit(s: str) -> None:
        parts.append(s)
        budget[0] -= len(s)

    def walk(node: Any) -> None:
        if budget[0] <= 0:
            return
        kind = type(node).__name__
        if kind == "Const":
            emit(f"{node.value:g}")
        elif kind == "Var":
            emit(node.name)
        elif kind == "Neg":
            emit("-(")
            walk(node.a)
            emit(")")
        elif kind == "Pow":
            emit("(")
            walk(node.a)
            emit(f")^{node.exponent:g}")
        elif kind in infix:
            emit("(")
            walk(node.children[0])
            emit(f" {infix[kind]} ")
            walk(node.children[1])
            emit(")")
        elif not hasattr(node, "children"):  # a plain number
            emit(f"{float(node):g}")
        else:
            emit(f"{kind.lower()}(")
            walk(node.children[0])
            emit(")")

    walk(expr)
    text = "".join(parts)
    return text if len(text) <= limit else text[:limit] + "..."
