"""The checked list of plausible mistakes (``kindling mistakes``).

``tests/mistakes/moduleN.py`` keeps, as data, the wrong solutions a student
plausibly writes: each names a task, a library file, an exact snippet of one of
that task's solution regions and its replacement (find and replace, not line
numbers, so that the list survives code moving around the regions), and one line
saying what is wrong. The course promises (``COURSE_DESIGN.md`` §6) that a task's
tests reject every one of them; this module checks it:

* :func:`check_placement` says, without running anything, whether each snippet is
  found exactly once in its file and inside a solution region of its task, and
  whether the file still parses after the replacement;
* :func:`run_mistakes` copies the instructor source to a temporary folder, applies
  one mistake at a time, runs the task's marker there in a fresh pytest process,
  and says which mistakes the tests catch (the run fails) and which survive.
"""

from __future__ import annotations

import ast
import re
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Sequence

from kindling.registry import Registry, load_registry
from kindling_staff.source_copies import copy_source, copy_trusted_kernels, run_marker

MISTAKES_DIR = Path("tests") / "mistakes"
FIELDS = ("name", "task", "file", "find", "replace", "description")
#: A failing test's line in pytest's short summary (``-rf``).
FAILED_LINE = re.compile(r"^FAILED (\S+)", re.M)


class MistakeError(ValueError):
    """The list of mistakes is malformed."""


@dataclass(frozen=True)
class Mistake:
    """One plausible wrong solution of a task."""

    name: str
    task: str
    file: str
    find: str
    replace: str
    description: str
    source: str = ""  # the data file that lists it

    @property
    def marker(self) -> str:
        return "task" + self.task.replace(".", "_")

    def apply(self, text: str) -> str:
        """The file's text with the mistake made (the snippet must occur once)."""
        if text.count(self.find) != 1:
            raise MistakeError(
                f"{self.source}: {self.name}: the snippet occurs "
                f"{text.count(self.find)} times in {self.file}, not once"
            )
        return text.replace(self.find, self.replace)


@dataclass(frozen=True)
class Outcome:
    """What the task's tests made of one mistake."""

    mistake: Mistake
    verdict: str  # "caught", "survived" or "error" (the run could not judge it)
    seconds: float
    caught_by: str = ""  # the first failing test
    detail: str = ""  # the end of pytest's output, for a survivor or an error


def _entries(path: Path) -> List[dict]:
    """The ``MISTAKES`` list of a data file, read as literals (never imported:
    the files hold reference code and nothing should run)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "MISTAKES" for t in node.targets
        ):
            value = ast.literal_eval(node.value)
            if not isinstance(value, list):
                raise MistakeError(f"{path}: MISTAKES is not a list")
            return value
    raise MistakeError(f"{path}: no MISTAKES list")


def load_mistakes(root: Path, directory: Optional[Path] = None) -> List[Mistake]:
    """Every mistake listed under ``root/tests/mistakes`` (or ``directory``)."""
    folder = Path(directory) if directory is not None else Path(root) / MISTAKES_DIR
    mistakes: List[Mistake] = []
    names: Dict[str, str] = {}
    for path in sorted(folder.glob("*.py")):
        if path.name == "__init__.py":
            continue
        for number, entry in enumerate(_entries(path), start=1):
            where = f"{path.name}: mistake #{number}"
            if not isinstance(entry, dict) or set(entry) != set(FIELDS):
                raise MistakeError(f"{where}: needs exactly the keys {FIELDS}")
            if not all(isinstance(entry[k], str) for k in FIELDS) or not all(
                entry[k] for k in FIELDS if k != "replace"
            ):
                raise MistakeError(
                    f"{where}: every field is a string, empty only for 'replace' "
                    "(a deletion)"
                )
            if entry["find"] == entry["replace"]:
                raise MistakeError(f"{where}: the replacement changes nothing")
            if entry["name"] in names:
                raise MistakeError(
                    f"{where}: the name {entry['name']!r} is taken "
                    f"({names[entry['name']]})"
                )
            names[entry["name"]] = path.name
            mistakes.append(Mistake(**entry, source=path.name))
    return mistakes


def check_placement(
    mistake: Mistake, root: Path, registry: Optional[Registry] = None
) -> List[str]:
    """What is wrong with where ``mistake`` applies (``[]``: nothing): its task
    must exist, its snippet occur exactly once in its file and lie inside a
    solution region of its task, and the file must still parse once it is made."""
    from kindling.regions import find_regions

    registry = registry or load_registry()
    problems: List[str] = []
    label = f"{mistake.source}: {mistake.name}"
    if mistake.task not in registry:
        return [f"{label}: no task {mistake.task} in the registry"]
    path = Path(root) / mistake.file
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        return [f"{label}: cannot read {mistake.file}: {error}"]
    count = text.count(mistake.find)
    if count != 1:
        return [f"{label}: the snippet occurs {count} times in {mistake.file}"]
    start = text.index(mistake.find)
    first = text.count("\n", 0, start) + 1  # 1-based lines of the snippet
    last = first + mistake.find.rstrip("\n").count("\n")
    inside = [
        region
        for region in find_regions(text, mistake.file, registry)
        if region.begin < first and last < region.end
    ]
    if not inside:
        problems.append(
            f"{label}: lines {first}-{last} of {mistake.file} are not inside a "
            "solution region"
        )
    elif inside[0].task != mistake.task:
        problems.append(
            f"{label}: the snippet is in a region of Task {inside[0].task}, "
            f"not {mistake.task}"
        )
    try:
        ast.parse(mistake.apply(text), mistake.file)
    except SyntaxError as error:
        problems.append(f"{label}: the file no longer parses: {error}")
    return problems


def run_one(
    mistake: Mistake, copy: Path, timeout: float, python: str = sys.executable
) -> Outcome:
    """Make ``mistake`` in the copy at ``copy``, run its task's tests, undo it."""
    path = copy / mistake.file
    original = path.read_text(encoding="utf-8")
    started = time.monotonic()
    try:
        path.write_text(mistake.apply(original), encoding="utf-8")
        run = run_marker(copy, mistake.marker, timeout, "-x", "-rf", python=python)
    finally:
        path.write_text(original, encoding="utf-8")
    seconds = time.monotonic() - started
    if run is None:
        return Outcome(mistake, "error", seconds, "", "timed out")
    output = run.stdout + run.stderr
    failed = FAILED_LINE.search(output)
    if run.returncode == 1:
        return Outcome(mistake, "caught", seconds, failed[1] if failed else "")
    if run.returncode < 0:
        # Killed by a signal: the kernel wrote outside its arrays and the C runtime
        # aborted the tests (as `kindling mutants` counts it: the tests did not pass).
        signal = f"a crash (signal {-run.returncode})"
        return Outcome(
            mistake,
            "caught",
            seconds,
            f"{failed[1]}, then {signal}" if failed else signal,
        )
    verdict = "survived" if run.returncode == 0 else "error"
    return Outcome(mistake, verdict, seconds, "", output[-1500:])


def run_mistakes(
    root: Path,
    mistakes: Sequence[Mistake],
    registry: Optional[Registry] = None,
    echo: Callable[[str], None] = print,
    kernels: Optional[Path] = None,
) -> List[Outcome]:
    """Run every mistake against a copy of the source at ``root`` (which starts
    with the trusted compiled kernels of ``kernels``, if given: a mistake then
    recompiles only the kernels it changes)."""
    registry = registry or load_registry()
    outcomes: List[Outcome] = []
    with tempfile.TemporaryDirectory(prefix="kindling-mistakes-") as folder:
        copy = Path(folder) / "source"
        copy_source(Path(root), copy)
        if kernels is not None:
            copy_trusted_kernels(Path(kernels), copy)
        for mistake in mistakes:
            timeout = (
                registry[mistake.task].timeout if mistake.task in registry else 600
            )
            outcome = run_one(mistake, copy, timeout)
            echo(format_outcome(outcome))
            outcomes.append(outcome)
    return outcomes


def format_outcome(outcome: Outcome) -> str:
    """One line: verdict, task, name, what is wrong, and the test that caught it."""
    m = outcome.mistake
    line = (
        f"{outcome.verdict.upper() if outcome.verdict != 'caught' else 'caught':<8} "
        f"{m.task:<4} {m.name:<31} {m.description}"
    )
    if outcome.caught_by:
        line += f"\n         by {outcome.caught_by} ({outcome.seconds:.0f} s)"
    elif outcome.detail:
        tail = outcome.detail.strip().splitlines()[-3:]
        line += "".join(f"\n         | {t}" for t in tail)
    return line


def select(
    mistakes: Iterable[Mistake], tasks: str = "", names: str = ""
) -> List[Mistake]:
    """The mistakes of the comma-separated ``tasks`` and ``names`` (empty: all)."""
    wanted_tasks = {t.strip() for t in tasks.split(",") if t.strip()}
    wanted_names = {n.strip() for n in names.split(",") if n.strip()}
    return [
        m
        for m in mistakes
        if (not wanted_tasks or m.task in wanted_tasks)
        and (not wanted_names or m.name in wanted_names)
    ]


def main(
    root: Path,
    tasks: str = "",
    names: str = "",
    list_only: bool = False,
    kernels: Optional[Path] = None,
) -> int:
    """``kindling mistakes``: 0 when the tests catch every mistake chosen, 1 when
    one survives (or a run cannot judge it), 2 when the list itself is wrong."""
    root = Path(root)
    if not (root / MISTAKES_DIR).is_dir():
        print(
            f"kindling mistakes: no {MISTAKES_DIR.as_posix()} here (the list lives "
            "in the instructor source)",
            file=sys.stderr,
        )
        return 2
    try:
        chosen = select(load_mistakes(root), tasks, names)
    except (MistakeError, SyntaxError, ValueError) as error:
        print(f"kindling mistakes: {error}", file=sys.stderr)
        return 2
    registry = load_registry()
    problems = [p for m in chosen for p in check_placement(m, root, registry)]
    if problems:
        for problem in problems:
            print(f"kindling mistakes: {problem}", file=sys.stderr)
        return 2
    if list_only:
        for m in chosen:
            print(f"{m.task:<4} {m.name:<31} {m.description}")
        return 0
    print(f"{len(chosen)} mistake(s); each runs its task's tests on a copy of {root}")
    outcomes = run_mistakes(root, chosen, registry, kernels=kernels)
    caught = sum(o.verdict == "caught" for o in outcomes)
    print(f"caught {caught} of {len(outcomes)}")
    return 0 if caught == len(outcomes) else 1
