"""The per-task progress summary printed after every pytest run.

Loaded from ``tests/conftest.py`` (``pytest_plugins = ["kindling.pytest_plugin"]``), so
it works the same in the instructor source and in a student edition. Every test carries
one task marker (``task2_3``); after the run we print, for each task that ran:

    task  title  passed  failed  total  status

with the statuses of :func:`kindling.progress.classify` (``done``, ``todo``,
``blocked by X.Y``, ``failing``), then the next task to work on, chosen from this
run and the earlier ones (:func:`kindling.progress.next_task`). The results are
added to ``.kindling/progress.json`` (``--kindling-json`` moves it, ``''`` skips
it): the latest result of every task, with its time, so that a run of one task
keeps the others' results; the dashboard reads the same file.

A test that fails only because it reached a student stub (``NotImplementedError(
"Task 0.1: ...")``) is not a bug to debug: its traceback is left out of the
failures section, and one line per stub says what to write and where::

    Task 0.1: implement neg — module0_fundamentals/operators.py:42 (3 tests)

Real failures keep their full tracebacks.

The task of a test and the stub found in its failure travel in
``report.user_properties``, so the summary is also right under pytest-xdist, where
reports are made in worker processes.
"""

from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

import pytest

from kindling.progress import (
    _stub_error,
    classify,
    merge_results,
    next_task,
    python_command,
    read_progress,
    stub_task,
)
from kindling.registry import load_registry

__all__ = ["classify", "stub_task", "stub_location", "task_of_item", "TaskResult"]

TASK_PROPERTY = "kindling_task"
STUB_PROPERTY = "kindling_stub"
STUB_LINE_PROPERTY = "kindling_stub_line"
MARKER = re.compile(r"^task(\d+)_(\d+)$")


def task_of_item(item: pytest.Item) -> Optional[str]:
    """The task id of a test from its marker (the latest task if several)."""
    tasks = []
    for mark in item.iter_markers():
        match = MARKER.match(mark.name)
        if match:
            tasks.append((int(match[1]), int(match[2])))
    if not tasks:
        return None
    major, minor = max(tasks)
    return f"{major}.{minor}"


def stub_location(exc: BaseException, root: Optional[Path] = None) -> Optional[str]:
    """``"Task 0.1: implement neg — module0_fundamentals/operators.py:42"``: the
    stub's message and the line that raised it (relative to ``root``)."""
    error = _stub_error(exc)
    if error is None:
        return None
    tb = error.__traceback__
    where = ""
    while tb is not None:
        if tb.tb_next is None:
            filename = Path(tb.tb_frame.f_code.co_filename)
            if root is not None:
                try:
                    filename = filename.resolve().relative_to(Path(root).resolve())
                except ValueError:
                    pass
            where = f" — {filename.as_posix()}:{tb.tb_lineno}"
        tb = tb.tb_next
    return f"{error.args[0]}{where}"


@dataclass
class TaskResult:
    """What one pytest run says about one task."""

    id: str
    title: str
    points: int
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    stubs: List[str] = field(default_factory=list)
    first_failure: str = ""

    @property
    def total(self) -> int:
        return self.passed + self.failed

    @property
    def status(self) -> str:
        return classify(self.id, self.passed, self.failed, self.stubs)

    def to_json(self) -> dict:
        data = asdict(self)
        data.update(total=self.total, status=self.status)
        return data


def _is_stub_report(report) -> bool:
    return bool(dict(getattr(report, "user_properties", ())).get(STUB_LINE_PROPERTY))


class ProgressRecorder:
    """Collects per-test outcomes by task and prints the summary table."""

    def __init__(self, json_path: Optional[Path], root: Path) -> None:
        self.json_path = json_path
        self.root = root
        # nodeid -> (task, outcome, stub, message); the last failing phase wins.
        self.outcomes: Dict[str, tuple] = {}
        # stub line -> how many tests stopped there
        self.stub_lines: Dict[str, int] = {}
        # the tasks whose stubs have stopped a test of this session already
        self.stubs_met: Set[str] = set()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem):
        shadowed = self._brief_stub_repr(item)
        try:
            yield
        finally:
            for name in shadowed:
                item.__dict__.pop(name, None)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo):
        outcome = yield
        report = outcome.get_result()
        if report.failed and call.excinfo is not None:
            stub = stub_task(call.excinfo.value)
            if stub is not None:  # its next failures are brief (see below)
                self.stubs_met.add(stub)
        task = task_of_item(item)
        if report.failed and call.excinfo is not None:
            line = stub_location(call.excinfo.value, item.config.rootpath)
            if line:
                report.user_properties.append((STUB_LINE_PROPERTY, line))
        if task is None:
            return
        report.user_properties.append((TASK_PROPERTY, task))
        if report.failed and call.excinfo is not None:
            stub = stub_task(call.excinfo.value) or ""
            report.user_properties.append((STUB_PROPERTY, stub))

    def _brief_stub_repr(self, item: pytest.Item) -> List[str]:
        """Once a test has stopped at a task's stub, the failures of later tests at
        that task's stubs are formatted without their tracebacks.

        Stub tracebacks are never printed (see :func:`pytest_terminal_summary`),
        yet pytest formats each one, parsing the source of every file in it, and
        Hypothesis formats a failing test's once more: about 10 ms a test, seconds
        for a fresh edition where hundreds of tests stop at stubs. The first test
        stopped by each task's stub keeps its traceback (the grader shows it); the
        others keep the exception's message and the line that raised it
        (``report.longrepr.reprcrash``). Shadows the formatting methods of
        ``item`` for its run; returns their names, to remove after it.
        """
        names = ["repr_failure", "_repr_failure_py"]
        for name in names:
            full = getattr(item, name)

            def formatted(excinfo, *args, _full=full, **kwargs):
                if stub_task(excinfo.value) in self.stubs_met:
                    return excinfo.getrepr(style="value", chain=True)
                return _full(excinfo, *args, **kwargs)

            # TestReport.from_item_and_call formats a failure of the test itself
            # with item.repr_failure, of its setup or teardown with
            # item._repr_failure_py; Hypothesis calls item.repr_failure.
            setattr(item, name, formatted)
        return names

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        props = dict(report.user_properties)
        if report.failed and props.get(STUB_LINE_PROPERTY):
            line = props[STUB_LINE_PROPERTY]
            self.stub_lines[line] = self.stub_lines.get(line, 0) + 1
        task = props.get(TASK_PROPERTY)
        if task is None:
            return
        previous = self.outcomes.get(report.nodeid)
        if previous is not None and previous[1] == "failed":
            return  # a failure in setup or call is not undone by teardown
        if report.failed:
            if props.get(STUB_LINE_PROPERTY):
                message = props[STUB_LINE_PROPERTY]
            else:
                message = str(report.longrepr)[-2000:] if report.longrepr else ""
            self.outcomes[report.nodeid] = (
                task,
                "failed",
                props.get(STUB_PROPERTY, ""),
                message,
            )
        elif report.skipped:
            self.outcomes[report.nodeid] = (task, "skipped", "", "")
        elif report.when == "call":
            self.outcomes[report.nodeid] = (task, "passed", "", "")

    def results(self) -> List[TaskResult]:
        registry = load_registry()
        by_task: Dict[str, TaskResult] = {}
        for task, outcome, stub, message in self.outcomes.values():
            if task not in by_task:
                known = task in registry
                by_task[task] = TaskResult(
                    id=task,
                    title=registry[task].title if known else "(not in the registry)",
                    points=registry[task].points if known else 0,
                )
            result = by_task[task]
            if outcome == "passed":
                result.passed += 1
            elif outcome == "skipped":
                result.skipped += 1
            else:
                result.failed += 1
                result.stubs.append(stub)
                if not result.first_failure:
                    result.first_failure = message
        return sorted(
            by_task.values(), key=lambda r: tuple(int(p) for p in r.id.split("."))
        )

    def pytest_terminal_summary(self, terminalreporter) -> None:
        results = self.results()
        write = terminalreporter.write_line
        if self.stub_lines:
            count = sum(self.stub_lines.values())
            terminalreporter.section(
                f"not implemented yet ({count} test(s) stopped at a stub)"
            )
            for line, tests in sorted(self.stub_lines.items()):
                write(f"{line} ({tests} test{'s' if tests != 1 else ''})")
        if not results:
            return
        terminalreporter.section("Kindling progress")
        write(format_table(results))
        done = sum(r.points for r in results if r.status == "done")
        possible = sum(r.points for r in results)
        write(f"tasks done: {sum(r.status == 'done' for r in results)}/{len(results)}")
        write(f"points of the tasks run: {done}/{possible} (all-or-nothing estimate)")
        earlier: Dict[str, dict] = {}
        if self.json_path is not None:
            stored = read_progress(self.json_path, self.root)["tasks"]
            assert isinstance(stored, dict)
            earlier = stored
            try:
                merge_results(
                    self.json_path,
                    [r.to_json() for r in results],
                    self.root,
                    load_registry(),
                )
            except OSError as error:  # a read-only checkout must not fail the run
                write(f"(could not write {self.json_path}: {error})")
        ran = {r.id for r in results}
        kept = {k: v for k, v in earlier.items() if k not in ran}
        stale = sorted(
            (k for k, v in kept.items() if v.get("stale_files")),
            key=lambda t: tuple(int(p) for p in t.split(".")),
        )
        if kept:
            write(
                f"earlier results kept for {len(kept)} other task(s)"
                + (
                    f"; stale (files changed since): {', '.join(stale)}"
                    if stale
                    else ""
                )
            )
        combined: Dict[str, dict] = dict(kept)
        combined.update({r.id: r.to_json() for r in results})
        upcoming = next_task(load_registry(), combined)
        if upcoming is not None:
            write(
                f"next: Task {upcoming.id} ({upcoming.title}): "
                f"{python_command(self.root)} -m pytest -m {upcoming.marker}"
            )


def format_table(results: List[TaskResult]) -> str:
    """The progress table as aligned text."""
    rows: List[Tuple[str, ...]] = [
        ("task", "title", "passed", "failed", "total", "status")
    ]
    for r in results:
        rows.append(
            (r.id, r.title, str(r.passed), str(r.failed), str(r.total), r.status)
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [
            cell.rjust(width) if 2 <= i <= 4 else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(row, widths))
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter):
    """Keep the tracebacks of stub failures out of pytest's own sections.

    This wrapper runs around the terminal reporter's: the stub reports leave
    ``stats`` while it prints FAILURES and the short summary, and come back
    before the final counts line, which still counts them.
    """
    hidden: Dict[str, list] = {}
    for key in ("failed", "error"):
        reports = terminalreporter.stats.get(key, [])
        stubs = [r for r in reports if _is_stub_report(r)]
        if stubs:
            hidden[key] = stubs
            terminalreporter.stats[key] = [r for r in reports if not _is_stub_report(r)]
    try:
        yield
    finally:
        for key, stubs in hidden.items():
            terminalreporter.stats.setdefault(key, []).extend(stubs)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kindling")
    group.addoption(
        "--kindling-json",
        default=os.path.join(".kindling", "progress.json"),
        help="the file that keeps every task's latest result ('' to skip)",
    )


def pytest_configure(config: pytest.Config) -> None:
    # Under xdist the workers report to the controller; only it summarises.
    root = Path(config.rootpath)
    if hasattr(config, "workerinput"):
        config.pluginmanager.register(ProgressRecorder(None, root), "kindling-progress")
        return
    path = config.getoption("--kindling-json")
    json_path = Path(root, path) if path else None
    config.pluginmanager.register(
        ProgressRecorder(json_path, root), "kindling-progress"
    )
