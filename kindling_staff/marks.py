"""Do a task's tests judge that task alone? (``kindling marks``)

A test marked for Task T must pass once T and the tasks T depends on (the
registry's ``depends``, followed transitively) are solved, whatever the state of
every other task. Otherwise a student who has just finished T sees ``blocked by
U`` for a task U they have not reached, and ``next:`` sends them back and forth.

The check: copy the instructor source, turn every solution region of a task
outside T's closure back into its stub (exactly as ``kindling release`` does),
run ``pytest -m <T's marker>`` in the copy, and report each failing test with
the stubs it reached (``Task U: ...`` in its message). Nothing is imported from
the copy: the run is a fresh pytest process whose working directory is the copy.

A whole-course run takes about 20 minutes on 2 cores, mostly Module 3 and 4's
tests. CI runs a rotating sample instead (``--budget SECONDS --rotate KEY``: the
tasks in registry order from a place chosen by ``KEY``, the commit, until the
budget is spent), so that over a few commits every task is checked. With
``--kernel-cache DIR`` each copy starts with the Numba kernels that a trusted run
of ``DIR`` compiled: the cache keys a kernel by the code it runs, so the copy
loads every kernel whose code is the reference's and compiles only the rest.
"""

from __future__ import annotations

import hashlib
import re
import sys
import xml.etree.ElementTree as ElementTree
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, List, Optional, Sequence, Set, Tuple

from kindling.registry import Registry, load_registry
from kindling_staff.source_copies import copy_trusted_kernels, run_marker

#: The task a stub names in its ``NotImplementedError``.
STUB_TASK = re.compile(r"Task (\d+\.\d+):")


@dataclass(frozen=True)
class MarkOutcome:
    """What Task ``task``'s tests made of a source where only its closure is solved."""

    task: str
    solved: Tuple[str, ...]  # the tasks left solved: the task and its closure
    passed: bool
    seconds: float
    #: (test node id, the later tasks whose stubs it reached) for each failure
    failures: Tuple[Tuple[str, Tuple[str, ...]], ...] = field(default=())
    detail: str = ""  # the end of pytest's output when the run could not judge


def closure(registry: Registry, task_id: str) -> Set[str]:
    """``task_id`` and every task it depends on, transitively."""
    found: Set[str] = set()
    stack = [task_id]
    while stack:
        current = stack.pop()
        if current in found or current not in registry:
            continue
        found.add(current)
        stack.extend(registry[current].depends)
    return found


def keep_only(text: str, path: str, keep: Set[str], registry: Registry) -> str:
    """The file's text with the solution regions of tasks outside ``keep`` turned
    into their stubs; the regions of ``keep`` stay solved."""
    from kindling.regions import find_regions, stub_out

    regions = find_regions(text, path, registry)
    return stub_out(text, [r for r in regions if r.task not in keep])


def write_partial_source(
    root: Path, destination: Path, keep: Set[str], registry: Registry
) -> None:
    """The instructor source at ``root`` copied to ``destination`` with only the
    tasks of ``keep`` solved."""
    from kindling.regions import source_files

    for path in source_files(root):
        relative = path.relative_to(root).as_posix()
        target = destination / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        data = path.read_bytes()
        if path.suffix == ".py" and b"BEGIN SOLUTION" in data:
            text = data.decode("utf-8")
            stubbed = keep_only(text, relative, keep, registry)
            target.write_text(stubbed, encoding="utf-8")
        else:
            target.write_bytes(data)


def rotation(task_ids: Sequence[str], key: str) -> List[str]:
    """``task_ids`` in their order, starting at a place that ``key`` chooses (the
    same key, the same start): successive commits check different tasks first."""
    if not task_ids:
        return []
    start = int(hashlib.sha256(key.encode()).hexdigest(), 16) % len(task_ids)
    return list(task_ids[start:]) + list(task_ids[:start])


def failed_tests(
    report: Path, keep: Set[str]
) -> Tuple[Tuple[str, Tuple[str, ...]], ...]:
    """(test, the tasks outside ``keep`` whose stubs it reached) for each failing
    or erroring test of a JUnit report (empty when there is no report)."""
    try:
        tree = ElementTree.parse(report)
    except (OSError, ElementTree.ParseError):
        return ()
    found = []
    for case in tree.iter("testcase"):
        for problem in list(case.findall("failure")) + list(case.findall("error")):
            text = (problem.get("message") or "") + (problem.text or "")
            later = tuple(sorted(set(STUB_TASK.findall(text)) - keep))
            name = f"{case.get('classname', '')}::{case.get('name', '')}"
            found.append((name, later))
            break
    return tuple(found)


def run_task(
    task_id: str,
    root: Path,
    registry: Registry,
    python: str = sys.executable,
    timeout: Optional[float] = None,
    kernels: Optional[Path] = None,
) -> MarkOutcome:
    """Run Task ``task_id``'s tests on a copy of ``root`` where only its closure
    is solved (starting with the trusted compiled kernels of ``kernels``)."""
    keep = closure(registry, task_id)
    task = registry[task_id]
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="kindling-marks-") as folder:
        copy = Path(folder) / "source"
        report = Path(folder) / "junit.xml"
        write_partial_source(Path(root), copy, keep, registry)
        if kernels is not None:
            copy_trusted_kernels(Path(kernels), copy)
        run = run_marker(
            copy,
            task.marker,
            timeout or task.timeout,
            f"--junitxml={report}",
            python=python,
        )
        if run is None:
            return MarkOutcome(
                task_id,
                tuple(sorted(keep)),
                False,
                time.monotonic() - started,
                detail="timed out",
            )
        failures = failed_tests(report, keep)
    seconds = time.monotonic() - started
    output = run.stdout + run.stderr
    if run.returncode == 0:
        return MarkOutcome(task_id, tuple(sorted(keep)), True, seconds)
    detail = "" if failures else output[-1500:]
    return MarkOutcome(task_id, tuple(sorted(keep)), False, seconds, failures, detail)


def format_outcome(outcome: MarkOutcome) -> str:
    """A line for the task, then one per failing test with the stubs it reached."""
    verdict = "ok" if outcome.passed else "FAILS"
    solved = ", ".join(outcome.solved)
    line = f"{verdict:<6}{outcome.task:<5} solved: {solved} ({outcome.seconds:.0f} s)"
    for node, later in outcome.failures:
        reached = f" reaches the stub of Task {', '.join(later)}" if later else ""
        line += f"\n      {node}{reached}"
    if outcome.detail:
        line += "".join(
            f"\n      | {t}" for t in outcome.detail.strip().splitlines()[-3:]
        )
    return line


def main(
    root: Path,
    tasks: str = "",
    echo: Callable[[str], None] = print,
    registry: Optional[Registry] = None,
    kernels: Optional[Path] = None,
    budget: Optional[float] = None,
    rotate: str = "",
) -> int:
    """``kindling marks``: 0 when every chosen task's tests pass with only its
    closure solved, 1 otherwise. With ``budget`` (seconds), no task starts after
    the budget is spent (one always runs); ``rotate`` chooses the first task."""
    registry = registry or load_registry()
    wanted: Iterable[str] = [t.strip() for t in tasks.split(",") if t.strip()]
    chosen = list(wanted) or [t.id for t in registry.tasks]
    unknown = [t for t in chosen if t not in registry]
    if unknown:
        echo(f"kindling marks: no task {', '.join(unknown)} in the registry")
        return 2
    if rotate:
        chosen = rotation(chosen, rotate)
    echo(
        f"{len(chosen)} task(s); each runs its tests on a copy of {root} where only "
        "the task and the tasks it depends on are solved"
        + (f" (until {budget:g} s are spent)" if budget is not None else "")
    )
    outcomes = []
    started = time.monotonic()
    for task_id in chosen:
        if outcomes and budget is not None and time.monotonic() - started >= budget:
            break
        outcome = run_task(task_id, Path(root), registry, kernels=kernels)
        echo(format_outcome(outcome))
        outcomes.append(outcome)
    passed = sum(o.passed for o in outcomes)
    left = len(chosen) - len(outcomes)
    echo(
        f"{passed} of {len(outcomes)} task(s) judged by their own closure alone"
        + (f"; {left} not run (budget spent)" if left else "")
    )
    return 0 if passed == len(outcomes) else 1
