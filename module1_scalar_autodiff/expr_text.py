"""Printing a symbolic expression (given complete; no task edits or needs to read
it): ``Expr.__repr__`` of :mod:`.symbolic` is :func:`to_string`.

A node is told by its class's name (``Const``, ``Var``, ``Add``, ...) and read
through its fields (``value``, ``name``, ``exponent``, ``children``), so
this module imports nothing from ``symbolic``, which imports it.
"""

from __future__ import annotations

import itertools
from typing import Any, Iterator


def to_string(expr: Any, limit: int = 400) -> str:
    """Infix text, fully parenthesised; cut at ``limit`` characters."""
    infix = {"Add": " + ", "Sub": " - ", "Mul": " * ", "Div": " / "}

    def walk(node: Any) -> Iterator[str]:
        """The text's pieces, in order, as they are asked for (a swollen tree's
        walk stops where the text is cut)."""
        kind = type(node).__name__
        if kind in ("Const", "Var"):
            yield node.name if kind == "Var" else f"{node.value:g}"
            return
        # "(a + b)", "-(a)", "(a)^c" or "log(a)": an opening, the children, a closing.
        function = "" if kind in infix or kind == "Pow" else kind.lower()
        yield "-(" if kind == "Neg" else f"{function}("
        for k, child in enumerate(node.children):
            yield infix[kind] if k else ""
            yield from walk(child)
        yield f")^{node.exponent:g}" if kind == "Pow" else ")"

    for text in itertools.accumulate(walk(expr), initial=""):  # the text so far
        if len(text) > limit:
            return text[:limit] + "..."
    return text
