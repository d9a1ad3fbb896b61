"""Cut a student edition from the instructor source (``kindling release OUT``).

Every solution region of task 0.1 (its marker lines are described in
CONTRIBUTING.md; an optional hint follows a colon) is replaced, at the same
indentation, by

    # TODO: Task 0.1
    raise NotImplementedError("Task 0.1: <hint, or 'implement <function>'>")

Instructor-only files (first line ``# kindling: instructor-only``, or matched by the
registry's ``[release] exclude`` globs) are left out, and so are modules beyond
``--through N``. Imports that only the removed solutions used stay, marked
``# noqa: F401``: the student needs them, and the edition stays flake8-clean.
Malformed regions stop the release with ``file:line``.
"""

from __future__ import annotations

import ast
import fnmatch
import hashlib
import io
import json
import re
import shutil
import subprocess
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Set, Tuple

from kindling.progress import region_units
from kindling.registry import Registry, parse_registry

BEGIN = re.compile(
    r"^(?P<indent>[ \t]*)# BEGIN SOLUTION (?P<task>\d+\.\d+)(?P<rest>.*)$"
)
END = re.compile(r"^(?P<indent>[ \t]*)# END SOLUTION\s*$")
MENTION = re.compile(r"#\s*(BEGIN|END) SOLUTION")
DEFINITION = re.compile(r"^(?P<indent>[ \t]*)(?:async\s+def|def|class)\s+(?P<name>\w+)")
INSTRUCTOR_ONLY = "# kindling: instructor-only"
MANIFEST = ".kindling-manifest.json"
LINE_LENGTH = 88

# Never part of an edition, whatever git says.
ALWAYS_SKIPPED = {".git", ".venv", "__pycache__", ".pytest_cache", ".hypothesis"}
ALWAYS_SKIPPED_FILES = {".kindling", "bench-results"}


class ReleaseError(ValueError):
    """The instructor source cannot be released as it is (names file and line)."""


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
                raise ReleaseError(
                    f"{path}:{number}: BEGIN SOLUTION inside the region opened at "
                    f"line {open_at[0]} (regions do not nest)"
                )
            task, rest = begin["task"], begin["rest"].strip()
            if task not in registry:
                raise ReleaseError(f"{path}:{number}: unknown task {task!r}")
            if rest and not rest.startswith(":"):
                raise ReleaseError(
                    f"{path}:{number}: malformed marker; write "
                    f"'# BEGIN SOLUTION {task}' or '# BEGIN SOLUTION {task}: hint'"
                )
            open_at = (number, begin)
        elif end:
            if open_at is None:
                raise ReleaseError(f"{path}:{number}: END SOLUTION without BEGIN")
            start, match = open_at
            if end["indent"] != match["indent"]:
                raise ReleaseError(
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
            raise ReleaseError(f"{path}:{number}: malformed solution marker: {line!r}")
    if open_at is not None:
        raise ReleaseError(
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


def _excluded(relative: str, patterns: Iterable[str]) -> bool:
    for pattern in patterns:
        if fnmatch.fnmatch(relative, pattern):
            return True
        if pattern.startswith("**/") and fnmatch.fnmatch(relative, pattern[3:]):
            return True
    return False


TOP_LEVEL_IMPORT = re.compile(r"^(?:from|import)\s+module(\d+)_", re.M)


def _later_module(
    relative: str,
    through: Optional[int],
    registry: Registry,
    text: Optional[str] = None,
) -> bool:
    """True when a file belongs only to modules after ``through``, or (a script,
    given its ``text``) cannot even be imported without one."""
    if through is None:
        return False
    match = re.match(r"^(?:tests/)?module(\d+)[_/]", relative)
    if match and int(match[1]) > through:
        return True
    owners = [task.module for task in registry if relative in task.files]
    if owners and min(owners) > through:
        return True
    if text is not None and relative.startswith("project/"):
        needed = [int(m) for m in TOP_LEVEL_IMPORT.findall(text)]
        return bool(needed) and max(needed) > through
    return False


def _trim_registry(text: str, through: int) -> str:
    """The registry text without the ``[[task]]`` tables of later modules."""
    parts = re.split(r"(?m)^(?=\[\[task\]\])", text)
    kept = [parts[0]]
    for part in parts[1:]:
        match = re.search(r'(?m)^id\s*=\s*"(\d+)\.\d+"', part)
        if match and int(match[1]) > through:
            continue
        kept.append(part)
    return "".join(kept)


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def check_source(source: Path) -> None:
    """Refuse what is not the instructor source of a course (with a clear reason)."""
    registry_file = source / "kindling" / "tasks.toml"
    if not source.is_dir():
        raise ReleaseError(f"the source {source} is not a directory")
    if not registry_file.is_file():
        raise ReleaseError(
            f"{source} is not a Kindling course source (it has no kindling/tasks.toml);"
            " run 'kindling release OUT' in the instructor source, or pass "
            "--source DIR"
        )
    if (source / MANIFEST).is_file():
        raise ReleaseError(
            f"{source} is a student edition (it has {MANIFEST}), not the instructor "
            "source: cut editions from the source that holds the solutions"
        )
    if not any(p.is_dir() for p in source.glob("module*_*")):
        raise ReleaseError(
            f"{source} is not a Kindling course source (no module packages)"
        )


STUDENT_README = Path(__file__).with_name("templates") / "STUDENT_README.md"
MODULE_SUMMARY = {
    0: "scalar operators, property tests, higher-order functions, "
    "`Module`/`Parameter`, toy datasets",
    1: "numerical derivatives, `Scalar` autodiff (reverse mode), SGD, forward mode "
    "with dual numbers, symbolic differentiation",
    2: "strided `TensorData`, broadcasting, tensor operations and their gradients, "
    "shape ops, grad modes",
    3: "Numba CPU-parallel map/zip/reduce and matmul, CUDA kernels with shared "
    "memory, benchmarks",
    4: "conv1d/conv2d, pooling, softmax, dropout, the `nn` library, optimizers; "
    "training on images and text; recurrent networks (RNN, LSTM, GRU), attention "
    "and the Transformer, up to a character-level GPT",
}


def student_readme(out: Path, registry: Registry, through: Optional[int]) -> str:
    """The README of a student edition: what the course is, how to set up, how to
    check a task, how progress and grading work, and the edition's task table."""
    modules = sorted({task.module for task in registry})
    scope = (
        f"This edition holds Modules 0 to {max(modules)}; the next modules come "
        "as a new edition (see the end of this page)."
        if through is not None
        else ""
    )
    table = ["| module | package | you build |", "|---|---|---|"]
    for module in modules:
        packages = sorted(p.name for p in out.glob(f"module{module}_*") if p.is_dir())
        package = f"`{packages[0]}`" if packages else "-"
        table.append(f"| {module} | {package} | {MODULE_SUMMARY.get(module, '')} |")
    tasks = "\n".join(
        f"| {t.id} | {t.title} | {t.points} | `.venv/bin/python -m pytest -m "
        f"{t.marker}` |"
        for t in registry
    )
    total = sum(t.points for t in registry)
    special = {
        "proportional": [t.id for t in registry if t.scoring == "proportional"],
        "mutation": [t.id for t in registry if t.scoring == "mutation"],
    }
    grading = (
        f"The tasks of this edition are worth {total} points. Your instructor "
        "grades your repository with the course's own copy of the tests (the ones "
        "you have, and possibly more), each task on its own, from the files you "
        "edit for it: a task earns its points when all of its tests pass."
    )
    if special["proportional"]:
        grading += (
            f" Tasks {', '.join(special['proportional'])} earn the share of their "
            "tests that pass."
        )
    if special["mutation"]:
        grading += (
            f" Task {', '.join(special['mutation'])} (tests you write) earns the "
            "share of planted bugs your tests catch."
        )
    grading += " The progress table's points are an estimate of the grade."
    if (out / ".github" / "workflows" / "classroom.yml").is_file():
        grading += (
            " On GitHub, every push runs the tests of every task "
            "(`.github/workflows/classroom.yml`); the score it shows is your own "
            "progress report, not the final grade."
        )
    text = STUDENT_README.read_text(encoding="utf-8")
    for key, value in (
        ("{scope}", scope),
        ("{modules}", "\n".join(table)),
        ("{grading}", grading),
        ("{tasks}", tasks),
    ):
        text = text.replace(key, value)
    return text.replace("\n\n\n", "\n\n")


def release(
    source: Path,
    out: Path,
    through: Optional[int] = None,
    force: bool = False,
    registry: Optional[Registry] = None,
) -> Dict[str, object]:
    """Write the student edition of ``source`` into ``out``; return a summary.

    ``source`` must be a course's instructor source (its registry
    ``kindling/tasks.toml``, whose tasks are used, and its packages); the edition
    gets a README written for students instead of the source's.
    """
    source, out = Path(source).resolve(), Path(out).resolve()
    check_source(source)
    if registry is None:
        registry_file = source / "kindling" / "tasks.toml"
        registry = parse_registry(
            registry_file.read_text(encoding="utf-8"), str(registry_file)
        )
    if out == source or source in out.parents:
        raise ReleaseError(f"the edition cannot be written inside the source: {out}")
    if out.exists() and any(out.iterdir()):
        if not force:
            raise ReleaseError(f"{out} is not empty (use --force to replace it)")
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)

    student_files = {f for task in registry for f in task.files}
    stubs_per_task: Dict[str, int] = {}
    # Where each task's code lives (the definitions holding its regions): the
    # edition has no markers left, and its progress file judges staleness by these.
    units: Dict[str, Dict[str, List[str]]] = {}
    written: List[str] = []
    for path in source_files(source):
        relative = path.relative_to(source).as_posix()
        if _excluded(relative, registry.release_exclude):
            continue
        if _later_module(relative, through, registry):
            continue
        target = out / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".py":
            text = path.read_text(encoding="utf-8")
            if text.startswith(INSTRUCTOR_ONLY):
                continue
            if _later_module(relative, through, registry, text):
                continue  # e.g. project/parallel_check.py needs Module 3
            if relative in student_files and "# BEGIN SOLUTION" in text:
                for task_id, names in region_units(text).items():
                    units.setdefault(task_id, {})[relative] = names
            text, regions = strip_regions(text, relative, registry)
            for region in regions:
                stubs_per_task[region.task] = stubs_per_task.get(region.task, 0) + 1
            target.write_text(text, encoding="utf-8")
        elif relative == "kindling/tasks.toml" and through is not None:
            target.write_text(
                _trim_registry(path.read_text(encoding="utf-8"), through),
                encoding="utf-8",
            )
        else:
            shutil.copy2(path, target)
        written.append(relative)

    # The GitHub Classroom and grading workflows of the edition's own tasks.
    from kindling.classroom import write_workflows

    edition_tasks = registry if through is None else registry.through(through)
    written += [p for p in write_workflows(out, edition_tasks) if p not in written]

    # The source's README speaks to instructors; the edition gets one for students.
    (out / "README.md").write_text(
        student_readme(out, edition_tasks, through), encoding="utf-8"
    )
    if "README.md" not in written:
        written.append("README.md")

    # The manifest lets the grader report edits to files students should not change.
    protected = {
        rel: file_digest(out / rel) for rel in written if rel not in student_files
    }
    (out / MANIFEST).write_text(
        json.dumps({"protected": protected, "units": units}, indent=1) + "\n",
        encoding="utf-8",
    )
    return {"files": len(written), "stubs": stubs_per_task, "out": str(out)}


# ---------------------------------------------------------------------------
# ``kindling release --stats``: how much given code a student reads
# ---------------------------------------------------------------------------

#: Lines of given code (not docstrings, comments or blank lines) a student file
#: may hold before its first stub (COURSE_DESIGN §4a: a reading-order rule). The
#: size budget is the whole library's (``kindling.layers.LIBRARY_BUDGET``): a
#: budget over student files alone is met by moving code out of them.
MAX_BEFORE_FIRST_STUB = 120

_NOT_CODE = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENCODING,
    tokenize.ENDMARKER,
}


def code_lines(text: str) -> Set[int]:
    """The 1-based numbers of the lines of ``text`` that hold code: not blank, not
    only a comment, not part of a docstring (any statement that is a bare string)."""
    docstrings: Set[int] = set()
    for node in ast.walk(ast.parse(text)):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            docstrings.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    lines: Set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type not in _NOT_CODE:
            lines.update(range(token.start[0], token.end[0] + 1))
    return lines - docstrings


@dataclass(frozen=True)
class GivenCode:
    """Given code of one student file in the edition: code lines before its first
    stub (all of them when it has none) and in the whole file (stubs left out)."""

    path: str
    before_first_stub: int
    total: int


def given_code(text: str, path: str, registry: Registry) -> GivenCode:
    """:class:`GivenCode` of the edition's version of a source file's ``text``."""
    stripped, regions = strip_regions(text, path, registry)
    lines = stripped.splitlines()
    stub = re.compile(r"^\s*(# TODO: Task \d+\.\d+|raise NotImplementedError\()")
    stubs: Set[int] = set()
    first: Optional[int] = None
    for number, line in enumerate(lines, start=1):
        if stub.match(line):
            first = number if first is None else first
            stubs.add(number)
            if line.rstrip().endswith("("):  # black's three-line raise
                stubs.update({number + 1, number + 2})
    code = code_lines(stripped) - stubs
    before = len([n for n in code if first is None or n < first])
    return GivenCode(path, before, len(code))


def release_stats(source: Path, registry: Optional[Registry] = None) -> List[GivenCode]:
    """:class:`GivenCode` of every student file of the registry, in registry order."""
    source = Path(source).resolve()
    check_source(source)
    if registry is None:
        registry_file = source / "kindling" / "tasks.toml"
        registry = parse_registry(
            registry_file.read_text(encoding="utf-8"), str(registry_file)
        )
    files: List[str] = []
    for task in registry:
        files += [f for f in task.files if f not in files and f.endswith(".py")]
    return [
        given_code((source / f).read_text(encoding="utf-8"), f, registry)
        for f in files
        if (source / f).is_file()
    ]


def format_stats(stats: List[GivenCode]) -> str:
    """The ``--stats`` table (Markdown), files over the limit marked."""
    rows = [
        "| student file | given code before the first stub | given code in all |",
        "|---|---:|---:|",
    ]
    for s in stats:
        flag = " (over)" if s.before_first_stub > MAX_BEFORE_FIRST_STUB else ""
        rows.append(f"| `{s.path}` | {s.before_first_stub}{flag} | {s.total} |")
    total = sum(s.total for s in stats)
    over = len([s for s in stats if s.before_first_stub > MAX_BEFORE_FIRST_STUB])
    rows.append(
        f"| **total** ({len(stats)} files) | {over} over "
        f"{MAX_BEFORE_FIRST_STUB} | **{total}** |"
    )
    return "\n".join(rows)
