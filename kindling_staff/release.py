"""Cut a student edition from the instructor source (``kindling release OUT``).

Every solution region is replaced by its stub (:mod:`kindling.regions`, which
describes both). Instructor-only files (first line ``# kindling: instructor-only``,
or matched by the registry's ``[release] exclude`` globs) are left out, and so are
modules beyond ``--through N``; so is this staff package (``kindling_staff``), and
the edition's ``pyproject.toml`` neither lists it nor declares its commands
(:func:`edition_pyproject`). Malformed regions stop the release with
``file:line``.
"""

from __future__ import annotations

import ast
import fnmatch
import io
import json
import re
import shutil
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Set

from kindling.progress import region_units
from kindling.registry import Registry, parse_registry
from kindling.regions import MANIFEST, file_digest, source_files, strip_regions

INSTRUCTOR_ONLY = "# kindling: instructor-only"


class ReleaseError(ValueError):
    """The instructor source cannot be released as it is (names file and line)."""


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


STAFF_PACKAGE = "kindling_staff"
STAFF_ENTRY_POINTS = re.compile(r'^\[project\.entry-points\."kindling\.[a-z]+"\]\s*$')


def edition_pyproject(text: str) -> str:
    """The edition's ``pyproject.toml``: the source's, less the staff package (its
    lines in the packages list and package data) and the tables of entry points
    by which ``kindling`` finds the staff commands (``kindling.*`` groups, with
    the comment just above them). The edition installs, and its ``kindling``
    has only the commands of students and graders."""
    out: List[str] = []
    skipping = False
    for line in text.splitlines():
        if STAFF_ENTRY_POINTS.match(line):
            while out and out[-1].startswith("#"):
                out.pop()  # the comment that introduces the staff tables
            skipping = True
            continue
        if skipping and line.startswith("["):
            skipping = False
        if skipping or f'"{STAFF_PACKAGE}' in line or line.startswith(STAFF_PACKAGE):
            continue
        out.append(line)
    edition = "\n".join(out).rstrip("\n") + "\n"
    while "\n\n\n\n" in edition:
        edition = edition.replace("\n\n\n\n", "\n\n\n")
    return edition


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
            "share of planted bugs your tests catch (your instructor's grader "
            "draws them from a larger family than the practice bugs that "
            "`kindling grade` plants in your checkout)."
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
        elif relative == "pyproject.toml":
            target.write_text(
                edition_pyproject(path.read_text(encoding="utf-8")), encoding="utf-8"
            )
        elif relative == "kindling/tasks.toml" and through is not None:
            target.write_text(
                _trim_registry(path.read_text(encoding="utf-8"), through),
                encoding="utf-8",
            )
        else:
            shutil.copy2(path, target)
        written.append(relative)

    # The GitHub Classroom and grading workflows of the edition's own tasks.
    from kindling_staff.classroom import write_workflows

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
#: size budget is the whole library's (``kindling_staff.layers.LIBRARY_BUDGET``): a
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
