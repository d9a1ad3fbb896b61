"""The library's modules import one another in one direction: no module imports,
at import time, a module that imports it back (directly or through others). These
tests belong to no task: they check the layout of the given code."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, List, Set

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = sorted(p.name for p in ROOT.glob("module[0-9]_*") if p.is_dir())


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _top_level_imports(path: Path) -> Set[str]:
    """Modules imported when ``path`` is imported: statements at module level
    (also inside a top-level ``if``/``try``, but not ``if TYPE_CHECKING``)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: Set[str] = set()

    def visit(statements: List[ast.stmt]) -> None:
        for node in statements:
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    parts = parts[: len(parts) - node.level + 1]
                    base = ".".join(parts + ([base] if base else []))
                found.add(base)
                # "from . import x" and "from pkg import sub" name submodules.
                found.update(f"{base}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.If):
                test = ast.unparse(node.test)
                if "TYPE_CHECKING" not in test:
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for handler in node.handlers:
                    visit(handler.body)

    visit(ast.parse(path.read_text(encoding="utf-8")).body)
    return found


def import_graph() -> Dict[str, Set[str]]:
    files = {
        _module_name(p): p
        for package in PACKAGES
        for p in (ROOT / package).glob("*.py")
    }
    return {
        name: {m for m in _top_level_imports(path) if m in files and m != name}
        for name, path in files.items()
    }


def cycles(graph: Dict[str, Set[str]]) -> List[List[str]]:
    """Every import cycle among submodules (a package's ``__init__`` re-exporting
    its own submodules is not one: a submodule names its package only as the
    parent of the module it imports)."""
    found, state, stack = [], {}, []

    def walk(node: str) -> None:
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if "." not in nxt or nxt.rsplit(".", 1)[0] == node:
                continue  # a package, or a package's own submodule
            if state.get(nxt) == "open":
                found.append(stack[stack.index(nxt) :] + [nxt])
            elif nxt not in state:
                walk(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            walk(node)
    return found


def test_the_library_has_no_import_time_cycles():
    assert cycles(import_graph()) == []


def test_module4_is_one_stack_with_nn_as_its_facade():
    graph = import_graph()
    m = "module4_networks."
    assert m + "nn" not in set().union(
        *(graph[m + x] for x in ("layers", "recurrent", "attention", "transformer"))
    )
    assert {m + "layers", m + "recurrent", m + "attention", m + "transformer"} <= (
        graph[m + "nn"]
    )
    assert m + "attention" not in graph[m + "functional"]


def test_a_cycle_is_found():
    graph = {"p.a": {"p.b"}, "p.b": {"p.c"}, "p.c": {"p.a"}}
    assert cycles(graph) == [["p.a", "p.b", "p.c", "p.a"]]
