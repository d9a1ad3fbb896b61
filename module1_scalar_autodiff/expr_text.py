"""Printing a symbolic expression (given complete; no task edits or needs to read
it): ``Expr.__repr__`` of :mod:`.symbolic` is :func:`to_string`.

A node is told by its class's name (``Const``, ``Var``, ``Add``, ...) and read
through its fields (``value``, ``name``, ``exponent``, ``children``), so
this module imports nothing from ``symbolic``, which imports it.
"""

from __future__ import annotations

from typing import Any, List

__all__ = ["to_string"]


def to_string(expr: Any, limit: int = 400) -> str:
    """Infix text, fully parenthesised; cut at ``limit`` characters."""
    infix = {"Add": " + ", "Sub": " - ", "Mul": " * ", "Div": " / "}
    parts: List[str] = []
    budget = [limit]

    def emit(s: str) -> None:
        parts.append(s)
        budget[0] -= len(s)

    def walk(node: Any) -> None:
        if budget[0] <= 0:  # a swollen tree: stop early, the text is cut anyway
            return
        kind = type(node).__name__
        if kind in ("Const", "Var"):
            emit(node.name if kind == "Var" else f"{node.value:g}")
            return
        # "(a + b)", "-(a)", "(a)^c" or "log(a)": an opening, the children, a closing.
        function = "" if kind in infix or kind == "Pow" else kind.lower()
        emit("-(" if kind == "Neg" else f"{function}(")
        for k, child in enumerate(node.children):
            emit(infix[kind] if k else "")
            walk(child)
        emit(f")^{node.exponent:g}" if kind == "Pow" else ")")

    walk(expr)
    text = "".join(parts)
    return text if len(text) <= limit else text[:limit] + "..."
