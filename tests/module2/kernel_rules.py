"""The rule for the index helpers that every kernel runs once per entry (the
Module 2 guide, Task 2.1): plain loops over integer NumPy arrays, nothing else.

Numba compiles a list or a ``tuple(...)`` happily in many cases, so compiling the
helpers is not enough to keep them allocation-free; this reads their source.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Callable, List

#: What the helpers must not build: containers, comprehensions, f-strings.
FORBIDDEN_NODES = {
    ast.List: "a list",
    ast.ListComp: "a list comprehension",
    ast.Dict: "a dict",
    ast.DictComp: "a dict comprehension",
    ast.Set: "a set",
    ast.SetComp: "a set comprehension",
    ast.GeneratorExp: "a generator expression",
    ast.JoinedStr: "an f-string",
    ast.Raise: "an exception (checks belong in TensorData.index)",
    ast.Try: "a try block",
}
FORBIDDEN_CALLS = {"list", "tuple", "dict", "set", "sorted", "reversed"}
FORBIDDEN_METHODS = {"append", "insert", "extend", "pop"}


def container_uses(fn: Callable[..., object]) -> List[str]:
    """``["line 3: a list", ...]``: what in ``fn``'s body breaks the rule."""
    source = textwrap.dedent(inspect.getsource(fn))
    first = inspect.getsourcelines(fn)[1]
    found = []
    for node in ast.walk(ast.parse(source)):
        what = FORBIDDEN_NODES.get(type(node))
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id in FORBIDDEN_CALLS:
                what = f"a call of {node.func.id}(...)"
            elif (
                isinstance(node.func, ast.Attribute)
                and node.func.attr in FORBIDDEN_METHODS
            ):
                what = f"a .{node.func.attr}(...) call"
        if what:
            found.append(f"line {first + node.lineno - 1}: {what}")
    return found
