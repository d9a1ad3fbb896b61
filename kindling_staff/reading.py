"""What a student must read for each task (``kindling release --stats``).

A task's *reading lines* are the given code lines (no blanks, comments or
docstrings; solution regions left out) of the files the task edits, plus those of
every library definition that the task's functions name directly and that lives in
another file: ``from .tensor_ops import map_op`` then ``map_op(...)`` inside a
function that holds one of the task's regions counts ``map_op``'s definition once.

Names reached through attributes of objects (``t.shape``) cannot be resolved
without running the code and are not counted; names reached through an imported
module (``operators.mul``) are. So the figure is a floor: what a student reads at
the least to write the task, beside what the whole file holds.

Moving given code out of a student file into a module that its stubs call does
not lower this figure; deleting code does.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Set, Tuple

from kindling.registry import Registry, Task
from kindling.regions import find_regions
from kindling_staff.release import code_lines, given_code

LIBRARY_PREFIX = "module"


@dataclass(frozen=True)
class Reading:
    """The reading lines of one task: its own files' given code and the given
    definitions (``module:name``) its functions name, with their code lines."""

    task: str
    own: int
    named: Tuple[Tuple[str, int], ...]

    @property
    def total(self) -> int:
        return self.own + sum(n for _, n in self.named)


class _Library:
    """Parsed library files of a source tree, looked up by dotted module name."""

    def __init__(self, source: Path, registry: Registry) -> None:
        self.source = source
        self.registry = registry
        self._trees: Dict[str, Optional[Tuple[Path, ast.Module, str]]] = {}

    def path_of(self, module: str) -> Optional[Path]:
        base = self.source.joinpath(*module.split("."))
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate
        return None

    def parsed(self, module: str) -> Optional[Tuple[Path, ast.Module, str]]:
        if module not in self._trees:
            path = self.path_of(module)
            if path is None or not module.startswith(LIBRARY_PREFIX):
                self._trees[module] = None
            else:
                text = path.read_text(encoding="utf-8")
                self._trees[module] = (path, ast.parse(text), text)
        return self._trees[module]

    def imports(self, module: str) -> Dict[str, Tuple[str, Optional[str]]]:
        """Local name -> (module, attribute) for the module's imports (attribute
        ``None`` for ``import a.b as c``), at any depth of the file."""
        parsed = self.parsed(module)
        if parsed is None:
            return {}
        path, tree, _ = parsed
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        table: Dict[str, Tuple[str, Optional[str]]] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        table[alias.asname] = (alias.name, None)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    parts = parts[: len(parts) - node.level + 1]
                    base = ".".join(parts + ([base] if base else []))
                for alias in node.names:
                    if alias.name == "*":
                        continue
                    local = alias.asname or alias.name
                    if self.path_of(f"{base}.{alias.name}") is not None:
                        table[local] = (f"{base}.{alias.name}", None)
                    else:
                        table[local] = (base, alias.name)
        return table

    def definition(
        self, module: str, name: str, depth: int = 0
    ) -> Optional[Tuple[str, ast.AST]]:
        """Where ``module.name`` is defined (following re-exports), or None."""
        parsed = self.parsed(module)
        if parsed is None or depth > 8:
            return None
        for node in parsed[1].body:
            if (
                isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                and node.name == name
            ):
                return module, node
        target = self.imports(module).get(name)
        if target is None:
            return None
        if target[1] is None:
            return None  # a module, not a definition
        return self.definition(target[0], target[1], depth + 1)

    def given_lines(self, module: str, node: ast.AST) -> int:
        """Code lines of a definition, its solution regions left out."""
        parsed = self.parsed(module)
        assert parsed is not None
        path, _, text = parsed
        relative = path.relative_to(self.source).as_posix()
        regions = find_regions(text, relative, self.registry)
        inside = {n for r in regions for n in range(r.begin, r.end + 1)}
        lines = set(range(node.lineno, (node.end_lineno or node.lineno) + 1))
        decorators = getattr(node, "decorator_list", [])
        lines.update(d.lineno for d in decorators)
        return len((code_lines(text) & lines) - inside)


def _module_of(path: str) -> str:
    return path[: -len(".py")].replace("/", ".").removesuffix(".__init__")


def _functions_with_regions(tree: ast.Module, lines: Set[int]) -> List[ast.AST]:
    """The innermost functions whose bodies hold any of ``lines`` (a region's
    markers); module-level regions give the module itself."""
    found: List[ast.AST] = []

    def visit(node: ast.AST) -> bool:
        hit = False
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                span = set(range(child.lineno, (child.end_lineno or child.lineno) + 1))
                if span & lines:
                    hit = True
                    if not visit(child):
                        found.append(child)
        return hit

    if not visit(tree):
        found.append(tree)
    return found


def _named(node: ast.AST) -> Iterable[Tuple[str, Optional[str]]]:
    """(name, attribute) pairs a function reads: ``f`` and ``mod.f``. Type
    annotations are left out: ``x: Tensor`` asks nobody to read ``Tensor``."""
    annotations: Set[int] = set()
    for child in ast.walk(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            arguments = child.args
            every = arguments.posonlyargs + arguments.args + arguments.kwonlyargs
            every += [a for a in (arguments.vararg, arguments.kwarg) if a]
            hints = [a.annotation for a in every] + [child.returns]
            for hint in hints:
                if hint is not None:
                    annotations.update(id(n) for n in ast.walk(hint))
        elif isinstance(child, ast.AnnAssign):
            annotations.update(id(n) for n in ast.walk(child.annotation))
    for child in ast.walk(node):
        if id(child) in annotations:
            continue
        if isinstance(child, ast.Attribute) and isinstance(child.value, ast.Name):
            yield child.value.id, child.attr
        elif isinstance(child, ast.Name):
            yield child.id, None


def task_reading(source: Path, task: Task, registry: Registry) -> Reading:
    """:class:`Reading` of one task in the instructor source ``source``."""
    library = _Library(source, registry)
    own_files = [f for f in task.files if f.endswith(".py")]
    own = 0
    counted: Dict[str, int] = {}
    own_modules = {_module_of(f) for f in own_files}
    for path in own_files:
        text = (source / path).read_text(encoding="utf-8")
        own += given_code(text, path, registry).total
        module = _module_of(path)
        parsed = library.parsed(module)
        if parsed is None:
            continue  # a project script or a test file: its own lines only
        regions = [r for r in find_regions(text, path, registry) if r.task == task.id]
        marks = {r.begin for r in regions} | {r.end for r in regions}
        imports = library.imports(module)
        for function in _functions_with_regions(parsed[1], marks):
            for name, attr in _named(function):
                target = imports.get(name)
                if target is None:
                    continue
                if target[1] is None:  # a module: ``mod.attr``
                    if attr is None:
                        continue
                    found = library.definition(target[0], attr)
                else:
                    found = library.definition(*target)
                if found is None or found[0] in own_modules:
                    continue
                key = f"{found[0]}:{getattr(found[1], 'name', '?')}"
                if key not in counted:
                    counted[key] = library.given_lines(*found)
    named = tuple(sorted(counted.items(), key=lambda kv: (-kv[1], kv[0])))
    return Reading(task.id, own, named)


def reading_stats(source: Path, registry: Registry) -> List[Reading]:
    """:class:`Reading` of every task, in registry order."""
    return [task_reading(Path(source).resolve(), task, registry) for task in registry]


def format_reading(readings: List[Reading], largest: int = 3) -> str:
    """The per-task reading table (Markdown): own given lines, the named
    definitions' lines and the largest of them."""
    rows = [
        "| task | given lines in its files | named given definitions | reading lines "
        "| largest named |",
        "|---|---:|---:|---:|---|",
    ]
    for r in readings:
        top = ", ".join(f"`{k}` {n}" for k, n in r.named[:largest])
        rows.append(
            f"| {r.task} | {r.own} | {sum(n for _, n in r.named)} "
            f"({len(r.named)}) | {r.total} | {top} |"
        )
    return "\n".join(rows)
