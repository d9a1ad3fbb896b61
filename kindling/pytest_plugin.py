"""The per-task progress summary printed after every pytest run.

Loaded from ``tests/conftest.py`` (``pytest_plugins = ["kindling.pytest_plugin"]``), so
it works the same in the instructor source and in a student edition. Every test carries
one task marker (``task2_3``); after the run we print, for each task that ran:

    task  title  passed  failed  total  status

with status ``done`` (every test passed), ``todo`` (every failure is the task's own
``NotImplementedError("Task X.Y: ...")`` stub), ``blocked by X.Y`` (every failure is the
stub of another task), or ``failing``. The same numbers are written as JSON to
``.kindling/last-run.json`` for the dashboard (``--kindling-json`` moves it).

The task of a test and the stub found in its failure travel in
``report.user_properties``, so the summary is also right under pytest-xdist, where
reports are made in worker processes.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Dict, Iterator, List, Optional

import pytest

from kindling.registry import load_registry

TASK_PROPERTY = "kindling_task"
STUB_PROPERTY = "kindling_stub"
STUB_MESSAGE = re.compile(r"^Task (\d+\.\d+)\b")
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


def _exception_chain(exc: BaseException) -> Iterator[BaseException]:
    """The exception, its causes and contexts, and members of exception groups."""
    seen = set()
    stack = [exc]
    while stack:
        current = stack.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        stack.extend(getattr(current, "exceptions", ()) or ())
        stack.append(current.__cause__)
        stack.append(current.__context__)


def stub_task(exc: BaseException) -> Optional[str]:
    """The task named by a student-stub ``NotImplementedError`` in ``exc``, if any."""
    for current in _exception_chain(exc):
        if isinstance(current, NotImplementedError) and current.args:
            match = STUB_MESSAGE.match(str(current.args[0]))
            if match:
                return match[1]
    return None


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


def classify(task: str, passed: int, failed: int, stubs: List[str]) -> str:
    """The status of a task from its counts and the stub task of each failure.

    ``stubs`` holds one entry per failure: the task whose ``NotImplementedError``
    caused it, or ``""`` for a failure of any other kind.
    """
    if failed == 0:
        return "done" if passed else "no tests"
    if len(stubs) < failed or "" in stubs:
        return "failing"
    if task in stubs:
        return "todo"
    earliest = min(stubs, key=lambda t: tuple(int(p) for p in t.split(".")))
    return f"blocked by {earliest}"


class ProgressRecorder:
    """Collects per-test outcomes by task and prints the summary table."""

    def __init__(self, json_path: Optional[Path]) -> None:
        self.json_path = json_path
        # nodeid -> (task, outcome, stub); the last failing phase wins.
        self.outcomes: Dict[str, tuple] = {}

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo):
        outcome = yield
        report = outcome.get_result()
        task = task_of_item(item)
        if task is None:
            return
        report.user_properties.append((TASK_PROPERTY, task))
        if report.failed and call.excinfo is not None:
            stub = stub_task(call.excinfo.value) or ""
            report.user_properties.append((STUB_PROPERTY, stub))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        props = dict(report.user_properties)
        task = props.get(TASK_PROPERTY)
        if task is None:
            return
        previous = self.outcomes.get(report.nodeid)
        if previous is not None and previous[1] == "failed":
            return  # a failure in setup or call is not undone by teardown
        if report.failed:
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
        if not results:
            return
        write = terminalreporter.write_line
        terminalreporter.section("Kindling progress")
        write(format_table(results))
        done = sum(r.points for r in results if r.status == "done")
        possible = sum(r.points for r in results)
        write(f"tasks done: {sum(r.status == 'done' for r in results)}/{len(results)}")
        write(f"points of the tasks run: {done}/{possible} (all-or-nothing estimate)")
        nxt = next((r for r in results if r.status != "done"), None)
        if nxt is not None:
            marker = "task" + nxt.id.replace(".", "_")
            write(f"next: Task {nxt.id} ({nxt.title}): pytest -m {marker}")
        if self.json_path is not None:
            try:
                self.json_path.parent.mkdir(parents=True, exist_ok=True)
                payload = {"tasks": [r.to_json() for r in results]}
                self.json_path.write_text(json.dumps(payload, indent=2))
            except OSError as error:  # a read-only checkout must not fail the run
                write(f"(could not write {self.json_path}: {error})")


def format_table(results: List[TaskResult]) -> str:
    """The progress table as aligned text."""
    rows = [("task", "title", "passed", "failed", "total", "status")]
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


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kindling")
    group.addoption(
        "--kindling-json",
        default=".kindling/last-run.json",
        help="where to write the per-task results as JSON ('' to skip)",
    )


def pytest_configure(config: pytest.Config) -> None:
    # Under xdist the workers report to the controller; only it summarises.
    if hasattr(config, "workerinput"):
        config.pluginmanager.register(ProgressRecorder(None), "kindling-progress")
        return
    path = config.getoption("--kindling-json")
    json_path = Path(config.rootpath, path) if path else None
    config.pluginmanager.register(ProgressRecorder(json_path), "kindling-progress")
