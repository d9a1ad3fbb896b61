"""Solution regions, and the files of a course tree they live in.

The instructor source holds each reference solution between ``# BEGIN SOLUTION
X.Y[: hint]`` and ``# END SOLUTION`` at one indentation (CONTRIBUTING.md). This
module finds them (:func:`find_regions`, which rejects malformed markers with
``file:line``) and replaces them by the stub a student sees (:func:`stub_out`,
:func:`strip_regions`), at the same indentation:

    # TODO: Task 0.1
    raise NotImplementedError("Task 0.1: <hint, or 'implement <function>'>")

Imports that only the removed solutions used stay, marked ``# noqa: F401``: the
student needs them, and the stubbed file stays flake8-clean.

Everything that reads regions uses this module: the grader (a missing student
file becomes its stub, never the reference), Task 0.2's mutation grading, and the
staff tools (``kindling release``, ``marks``, ``mistakes``, ``mutants``,
``release --stats``), which import it from ``kindling_staff``.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Set, Tuple

from kindling.registry import Registry

BEGIN = re.compile(
    r"^(?P<indent>[ \t]*)# BEGIN SOLUTION (?P<task>\d+\.\d+)(?P<rest>.*)$"
)
END = re.compile(r"^(?P<indent>[ \t]*)# END SOLUTION\s*$")
MENTION = re.compile(r"#\s*(BEGIN|END) SOLUTION")
DEFINITION = re.compile(r"^(?P<indent>[ \t]*)(?:async\s+def|def|class)\s+(?P<name>\w+)")
MANIFEST = ".kindling-manifest.json"
LINE_LENGTH = 88

# Never part of a course tree's files, whatever git says (nor of an edition).
ALWAYS_SKIPPED = {".git", ".venv", "__pycache__", ".pytest_cache", ".hypothesis"}
ALWAYS_SKIPPED_FILES = {".kindling", "bench-results"}


class RegionError(ValueError):
    """A malformed solution region (the message names file and line)."""


@dataclass(frozen=True)
class Region:
    """One solution region: 1-based first and last line (the markers themselves)."""

    task: str
    begin: int
    end: int
    indent: str
    message: str


def _enclosing_name(lines: List[str], index: int, indent: str) -> Optional[str]:
    """The function or class whose body holds line ``index`` (0-based)."""
    for line in reversed(lines[:index]):
        match = DEFINITION.match(line)
        if match and len(match["indent"]) < len(indent):
            return match["name"]
    return None


def find_regions(text: str, path: str, registry: Registry) -> List[Region]:
    """Every solution region of a file, validated."""
    lines = text.splitlines()
    regions: List[Region] = []
    open_at: Optional[Tuple[int, re.Match]] = None
    for number, line in enumerate(lines, start=1):
        begin, end = BEGIN.match(line), END.match(line)
        if begin:
            if open_at is not None:
                raise RegionError(
                    f"{path}:{number}: BEGIN SOLUTION inside the region opened at "
                    f"line {open_at[0]} (regions do not nest)"
                )
            task, rest = begin["task"], begin["rest"].strip()
            if task not in registry:
                raise RegionError(f"{path}:{number}: unknown task {task!r}")
            if rest and not rest.startswith(":"):
                raise RegionError(
                    f"{path}:{number}: malformed marker; write "
                    f"'# BEGIN SOLUTION {task}' or '# BEGIN SOLUTION {task}: hint'"
                )
            open_at = (number, begin)
        elif end:
            if open_at is None:
                raise RegionError(f"{path}:{number}: END SOLUTION without BEGIN")
            start, match = open_at
            if end["indent"] != match["indent"]:
                raise RegionError(
                    f"{path}:{number}: END SOLUTION is not at the indentation of the "
                    f"BEGIN SOLUTION on line {start}"
                )
            hint = match["rest"].strip()[1:].strip()
            if not hint:
                name = _enclosing_name(lines, start - 1, match["indent"])
                hint = f"implement {name}" if name else "implement this part"
            regions.append(Region(match["task"], start, number, match["indent"], hint))
            open_at = None
        elif MENTION.search(line) and line.lstrip().startswith("#"):
            raise RegionError(f"{path}:{number}: malformed solution marker: {line!r}")
    if open_at is not None:
        raise RegionError(
            f"{path}:{open_at[0]}: BEGIN SOLUTION {open_at[1]['task']} is never closed"
        )
    return regions


def _string_literal(text: str) -> str:
    """A Python string literal for ``text`` in the quotes black would choose."""
    if '"' in text and "'" not in text:
        return repr(text)  # single quotes: black keeps them rather than escape
    return json.dumps(text)  # double-quoted and escaped


def stub_lines(region: Region) -> List[str]:
    """The lines that stand in for a region in the student edition."""
    indent = region.indent
    message = f"Task {region.task}: {region.message}"
    literal = _string_literal(message)
    one_line = f"{indent}raise NotImplementedError({literal})"
    if len(one_line) <= LINE_LENGTH:
        body = [one_line]
    else:  # black's layout for a call that does not fit on one line
        room = LINE_LENGTH - len(indent) - 4
        while len(literal) > room and len(message) > 20:
            message = message[: len(message) - 4].rstrip() + "..."
            literal = _string_literal(message)
        body = [
            f"{indent}raise NotImplementedError(",
            f"{indent}    {literal}",
            f"{indent})",
        ]
    return [f"{indent}# TODO: Task {region.task}"] + body


def stub_out(text: str, regions: List[Region]) -> str:
    """``text`` with each of ``regions`` (found in it, in order) replaced by its
    stub, and the imports only those solutions used kept for the student."""
    if not regions:
        return text
    lines = text.splitlines()
    out: List[str] = []
    cursor = 0
    for region in regions:
        out.extend(lines[cursor : region.begin - 1])
        out.extend(stub_lines(region))
        cursor = region.end
    out.extend(lines[cursor:])
    stripped = "\n".join(out) + ("\n" if text.endswith("\n") else "")
    return keep_solution_imports(text, stripped)


def strip_regions(text: str, path: str, registry: Registry) -> Tuple[str, List[Region]]:
    """The student version of a file's text, and the regions replaced."""
    regions = find_regions(text, path, registry)
    return stub_out(text, regions), regions


def _names_used(tree: ast.AST) -> Set[str]:
    """Names a module reads, as pyflakes counts them (``__all__`` entries included)."""
    used: Set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            used.add(node.id)
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            used.update(
                c.value for c in ast.walk(node.value) if isinstance(c, ast.Constant)
            )
    return used


def _bound_name(alias: ast.alias) -> str:
    return alias.asname or alias.name.split(".")[0]


def keep_solution_imports(original: str, stripped: str) -> str:
    """Mark with ``# noqa: F401`` the imports only the removed solutions used.

    The student will need them to write the solution, so they stay in the edition
    (they also hint at the tools to use); the marker keeps flake8 quiet until then.
    """
    before = _names_used(ast.parse(original))
    tree = ast.parse(stripped)
    after = _names_used(tree)
    lines = stripped.splitlines()
    for node in tree.body:
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        names = {_bound_name(a) for a in node.names if a.name != "*"}
        orphaned = {n for n in names if n in before and n not in after}
        first = node.lineno - 1
        if not orphaned or "noqa" in lines[first]:
            continue
        comment = "  # noqa: F401"
        if len(lines[first]) + len(comment) > LINE_LENGTH:
            comment = "  # noqa"
        lines[first] += comment
    return "\n".join(lines) + ("\n" if stripped.endswith("\n") else "")


def source_files(root: Path) -> List[Path]:
    """The files of the instructor source (git's view when it is a repository)."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            cwd=root,
            capture_output=True,
            check=True,
        ).stdout.decode()
        files = [root / p for p in listed.split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        files = [p for p in root.rglob("*") if p.is_file()]
    return sorted(
        p
        for p in files
        if p.is_file()
        and not (
            set(p.relative_to(root).parts) & (ALWAYS_SKIPPED | ALWAYS_SKIPPED_FILES)
        )
    )


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
