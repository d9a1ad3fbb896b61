"""The per-task progress summary printed after every pytest run.

Loaded from ``tests/conftest.py`` (``pytest_plugins = ["kindling.pytest_plugin"]``), so
it works the same in the instructor source and in a student edition. Every test carries
one task marker (``task2_3``); after the run we print, for each task that ran:

    task  title  passed  failed  total  status

with the statuses of :func:`kindling.progress.classify` (``done``, ``partial``,
``todo``, ``blocked by X.Y``, ``failing``), then the next task to work on, chosen
from this run and the earlier ones (:func:`kindling.progress.next_task`).

A task is ``done`` only when *every* test of the task ran and passed. A run that
left some of them out (``-k``, a node id, a file that holds only some of them,
``--deselect``, ``-x`` stopping early) can say that a task fails, never that it is
done: its passing tasks are ``partial``, worth no points. The task's full set is
counted from the collection before ``-k``/``-m``/``--deselect`` select from it,
when the run collected every file that can hold the task's tests
(:func:`may_hold_task`), else from the results file, where such a run recorded it
(``collected``); with neither it is unknown, and the task ``partial``.

The results are added to ``.kindling/progress.json`` (``--kindling-json`` moves
it, ``''`` skips it): the latest result of every task, with its time, so that a
run of one task keeps the others' results; the dashboard reads the same file.

A test that fails only because it reached a student stub (``NotImplementedError(
"Task 0.1: ...")``) is not a bug to debug: its traceback is left out of the
failures section, and one line per stub says what to write and where::

    Task 0.1: implement neg — module0_fundamentals/operators.py:54 (3 tests)

Real failures keep their full tracebacks.

The task of a test and the stub found in its failure travel in
``report.user_properties``, so the summary is also right under pytest-xdist, where
reports are made in worker processes.
"""

from __future__ import annotations

import ast
import fnmatch
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import AbstractSet, Dict, Iterable, List, Mapping, Optional, Set, Tuple

import pytest

from kindling.progress import (
    _stub_error,
    classify,
    kindling_command,
    merge_results,
    next_task,
    python_command,
    read_progress,
    stub_task,
    task_key,
)
from kindling.registry import load_registry

__all__ = [
    "classify",
    "may_hold_task",
    "tasks_named",
    "stub_task",
    "stub_location",
    "task_of_item",
    "TaskResult",
]

TASK_PROPERTY = "kindling_task"
STUB_PROPERTY = "kindling_stub"
STUB_LINE_PROPERTY = "kindling_stub_line"
STUB_PATH_PROPERTY = "kindling_stub_path"
MARKER = re.compile(r"^task(\d+)_(\d+)$")
#: The key of the full counts in an xdist worker's ``workeroutput``.
FULL_COUNTS = "kindling_full_counts"
#: tests/backends.py gives each backend variant of a test its task's marker at
#: collection, so a file that makes variants names no marker of its own.
VARIANTS = "backend_params"
SKIPPED_DIRS = {"site-packages", "node_modules", "__pycache__", "build", "dist"}


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


def tasks_named(text: str, variant_tasks: Set[str] = frozenset()) -> Optional[Set[str]]:
    """The tasks whose tests a test file with this text can hold (``None``: any,
    when it does not parse), read from its code, not its strings: a marker used
    as ``pytest.mark.task2_3`` (or ``getattr(pytest.mark, "task2_3")``), and
    for a call of the variants helper (``backend_params("2.3")``:
    ``tests/backends.py`` gives each variant its marker at collection) the task
    ids it names and the ``variant_tasks`` the variants belong to (3.1 and 3.3
    in the course)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    found: Set[str] = set()
    for node in ast.walk(tree):
        name = node.attr if isinstance(node, ast.Attribute) else None
        if isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else None
            called = func.id if isinstance(func, ast.Name) else called
            if called == "getattr" and len(node.args) > 1:
                second = node.args[1]
                if isinstance(second, ast.Constant) and isinstance(second.value, str):
                    name = second.value
            if called == VARIANTS:
                found.update(variant_tasks)
                for arg in [*node.args, *(k.value for k in node.keywords)]:
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                        if re.fullmatch(r"\d+\.\d+", arg.value):
                            found.add(arg.value)
        match = MARKER.match(name or "")
        if match:
            found.add(f"{int(match[1])}.{int(match[2])}")
    return found


def may_hold_task(
    text: str, task_id: str, variant_tasks: Set[str] = frozenset()
) -> bool:
    """Whether a test file with this text can hold tests of ``task_id`` (see
    :func:`tasks_named`)."""
    named = tasks_named(text, variant_tasks)
    return named is None or task_id in named


def _variant_tasks(config: pytest.Config) -> Set[str]:
    """The task ids (``"3.1"``) named in the module that defines the variants
    helper: every file that makes variants may hold their tests."""
    tasks: Set[str] = set()
    for path in _test_files(config, every=True):
        try:
            text = path.read_text(encoding="utf-8")
        except OSError:
            continue
        if f"def {VARIANTS}(" not in text:
            continue
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        if any(
            isinstance(node, ast.FunctionDef) and node.name == VARIANTS
            for node in tree.body
        ):  # the helper itself, not a test's text that shows one
            tasks.update(
                node.value
                for node in ast.walk(tree)
                if isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and re.fullmatch(r"\d+\.\d+", node.value)
            )
    return tasks


def _test_files(config: pytest.Config, every: bool = False) -> List[Path]:
    """Every file under the test paths that pytest would collect tests from
    (``every``: every Python file there)."""
    root = Path(config.rootpath)
    bases = [root / p for p in config.getini("testpaths")] or [root]
    patterns = ["*.py"] if every else config.getini("python_files")
    found: List[Path] = []
    for base in bases:
        paths = [base] if base.is_file() else sorted(base.rglob("*.py"))
        for path in paths:
            inside = path.relative_to(base).parts[:-1] if path != base else ()
            if any(p.startswith(".") or p in SKIPPED_DIRS for p in inside):
                continue  # a virtual environment's packages are no tests of ours
            if any(fnmatch.fnmatch(path.name, pattern) for pattern in patterns):
                found.append(path.resolve())
    return found


def _collected_paths(config: pytest.Config) -> Optional[List[Path]]:
    """The files and folders collected *whole* in this run; ``None`` when the
    run collected the test paths themselves (the usual ``pytest -m task0_1``).
    A node id (``file.py::test``) collects part of its file, so it adds nothing."""
    if config.args_source == pytest.Config.ArgsSource.TESTPATHS:
        return None
    base = Path(config.invocation_params.dir)
    whole = []
    for arg in config.args:
        if "::" not in arg:
            whole.append((base / arg).resolve())
    return whole


def _uncovered_tasks(config: pytest.Config, tasks: Iterable[str]) -> Set[str]:
    """The tasks some of whose tests may live in files this run did not collect
    whole: for them this collection is not the full set."""
    whole = _collected_paths(config)
    if whole is None:
        return set()
    texts: List[str] = []
    for path in _test_files(config):
        if any(path == w or w in path.parents for w in whole):
            continue
        try:
            texts.append(path.read_text(encoding="utf-8"))
        except OSError:
            continue
    variants = _variant_tasks(config) if texts else set()
    wanted = set(tasks)
    missing: Set[str] = set()
    for text in texts:  # parsed once each: a narrowed run pays ~0.1 s for all
        named = tasks_named(text, variants)
        missing |= wanted if named is None else wanted & named
    return missing


def stub_location(exc: BaseException, root: Optional[Path] = None) -> Optional[str]:
    """``"Task 0.1: implement neg — module0_fundamentals/operators.py:54"``: the
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


def stub_call_path(
    exc: BaseException, root: Optional[Path] = None, keep: int = 4
) -> str:
    """``"test_zero (tests/module2/test_x.py:12) → zero_ (module2_tensors/tensor.py:
    310) → copy_ (…)"``: how a test reached a stub, through the course's own files
    only (the test first, then at most ``keep - 1`` calls nearest the stub)."""
    error = _stub_error(exc)
    if error is None:
        return ""
    frames: List[str] = []
    tb = error.__traceback__
    base = Path(root).resolve() if root is not None else None
    while tb is not None and tb.tb_next is not None:  # the last is the stub itself
        code = tb.tb_frame.f_code
        try:
            path = Path(code.co_filename).resolve()
            relative = path.relative_to(base).as_posix() if base else path.name
        except (OSError, ValueError):
            relative = ""
        first = relative.split("/", 1)[0]
        if (
            relative
            and first not in ("kindling", ".venv")
            and "site-packages" not in relative
        ):
            frames.append(f"{code.co_name} ({relative}:{tb.tb_lineno})")
        tb = tb.tb_next
    if len(frames) > keep:
        frames = frames[:1] + ["…"] + frames[-(keep - 1) :]
    return " → ".join(frames)


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
    #: How many tests the task has in all (``None``: unknown, as when the run
    #: named some test files only); fewer ran means the run was partial.
    expected: Optional[int] = None
    scoring: str = "all-or-nothing"

    @property
    def total(self) -> int:
        return self.passed + self.failed

    @property
    def complete(self) -> bool:
        """Whether every test of the task ran (a skip counts as run)."""
        ran = self.passed + self.failed + self.skipped
        return self.expected is not None and ran >= self.expected

    @property
    def status(self) -> str:
        return classify(
            self.id, self.passed, self.failed, self.stubs, complete=self.complete
        )

    @property
    def points_earned(self) -> Optional[int]:
        """The all-or-nothing estimate; ``None`` for a task scored by mutation
        (its tests passing earns nothing by itself)."""
        if self.scoring == "mutation":
            return None
        return self.points if self.status == "done" else 0

    def to_json(self) -> dict:
        data = asdict(self)
        data.update(total=self.total, status=self.status)
        return data


def _is_stub_report(report) -> bool:
    return bool(dict(getattr(report, "user_properties", ())).get(STUB_LINE_PROPERTY))


class ProgressRecorder:
    """Collects per-test outcomes by task and prints the summary table."""

    def __init__(
        self, json_path: Optional[Path], root: Path, config: pytest.Config
    ) -> None:
        self.json_path = json_path
        self.root = root
        self.config = config
        # task -> its tests in the whole collection (before -k/-m/--deselect),
        # for the tasks whose every test file this run collected
        self.full_counts: Dict[str, int] = {}
        # the same, as an earlier run counted them (.kindling/progress.json)
        self.known_counts: Dict[str, int] = {}
        # nodeid -> (task, outcome, stub, message); the last failing phase wins.
        self.outcomes: Dict[str, tuple] = {}
        #: Failing tests that carry no task marker (tests of given code).
        self.unowned_failures: List[str] = []
        # stub line -> how many tests stopped there
        self.stub_lines: Dict[str, int] = {}
        #: for a stub reached from another task's test: the first such call path
        self.stub_paths: Dict[str, str] = {}
        # the tasks whose stubs have stopped a test of this session already
        self.stubs_met: Set[str] = set()

    @pytest.hookimpl(wrapper=True)
    def pytest_collection_modifyitems(self, items: List[pytest.Item]):
        """Count each task's tests before ``-k``, ``-m`` and ``--deselect`` take
        their pick (they select inside this hook)."""
        counts: Dict[str, int] = {}
        for item in items:
            task = task_of_item(item)
            if task is not None:
                counts[task] = counts.get(task, 0) + 1
        for task in _uncovered_tasks(self.config, counts):
            del counts[task]
        self.full_counts = counts
        workeroutput = getattr(self.config, "workeroutput", None)
        if workeroutput is not None:  # an xdist worker: tell the controller
            workeroutput[FULL_COUNTS] = dict(counts)
        return (yield)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error) -> None:
        """(xdist controller) Every worker collects the same tests; a worker
        that died before reporting leaves the counts unknown: partial."""
        counts = getattr(node, "workeroutput", {}).get(FULL_COUNTS)
        if isinstance(counts, dict):
            self.full_counts = {str(k): int(v) for k, v in counts.items()}

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
                # A stub of another task: say how this test got there (a student
                # who sees "blocked by 2.6" from a Task 2.3 test needs the path).
                if stub_task(call.excinfo.value) != task:
                    path = stub_call_path(call.excinfo.value, item.config.rootpath)
                    report.user_properties.append((STUB_PATH_PROPERTY, path))
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
        names = ["repr_failure"]
        for name in names:
            full = getattr(item, name)

            def formatted(excinfo, *args, _full=full, **kwargs):
                if stub_task(excinfo.value) in self.stubs_met:
                    return excinfo.getrepr(style="value", chain=True)
                return _full(excinfo, *args, **kwargs)

            # TestReport.from_item_and_call formats a failure of the test itself
            # with item.repr_failure (public: the method pytest documents for
            # items to override); Hypothesis calls it too. A failure in setup or
            # teardown goes through a private method that we leave alone: stubs
            # are reached from test bodies, rarely from fixtures.
            setattr(item, name, formatted)
        return names

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        props = dict(report.user_properties)
        if report.failed and props.get(STUB_LINE_PROPERTY):
            line = props[STUB_LINE_PROPERTY]
            self.stub_lines[line] = self.stub_lines.get(line, 0) + 1
            if props.get(STUB_PATH_PROPERTY):
                self.stub_paths.setdefault(line, props[STUB_PATH_PROPERTY])
        task = props.get(TASK_PROPERTY)
        if task is None:
            if report.failed and report.nodeid not in self.unowned_failures:
                self.unowned_failures.append(report.nodeid)
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
                    expected=self.full_counts.get(task, self.known_counts.get(task)),
                    scoring=registry[task].scoring if known else "all-or-nothing",
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
        return sorted(by_task.values(), key=lambda r: task_key(r.id))

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if self.json_path is not None:
            known = read_progress(self.json_path)["collected"]
            assert isinstance(known, dict)
            self.known_counts = known
        results = self.results()
        write = terminalreporter.write_line
        if self.stub_lines:
            count = sum(self.stub_lines.values())
            terminalreporter.section(
                f"not implemented yet ({count} test(s) stopped at a stub)"
            )
            for line, tests in sorted(self.stub_lines.items()):
                write(f"{line} ({tests} test{'s' if tests != 1 else ''})")
                if line in self.stub_paths:
                    write(f"    reached from {self.stub_paths[line]}")
        if not results:
            return
        terminalreporter.section("Kindling progress")
        python = python_command(self.root)
        earlier: Dict[str, dict] = {}
        if self.json_path is not None:
            stored = read_progress(self.json_path, self.root)["tasks"]
            assert isinstance(stored, dict)
            earlier = stored
        # A run of part of a done task's tests (pytest tests/module1, -k, ...) on
        # the code they all passed on leaves it done (merge_results keeps it).
        kept_done = {
            r.id
            for r in results
            if r.status == "partial"
            and earlier.get(r.id, {}).get("status") == "done"
            and not earlier[r.id].get("stale_files")
        }
        write(format_table(results, kept_done))
        for line in notes(results, python, kindling_command(self.root), kept_done):
            write(line)
        if self.json_path is not None:
            try:
                merge_results(
                    self.json_path,
                    [r.to_json() for r in results],
                    self.root,
                    load_registry(),
                    collected=self.full_counts,
                )
            except OSError as error:  # a read-only checkout must not fail the run
                write(f"(could not write {self.json_path}: {error})")
        ran = {r.id for r in results}
        kept = {k: v for k, v in earlier.items() if k not in ran}
        stale = sorted(
            (k for k, v in kept.items() if v.get("stale_files")), key=task_key
        )
        if kept:
            write(f"earlier results kept for {len(kept)} other task(s)")
        if stale:
            write(
                f"stale (code changed since): {', '.join(stale)}; re-check them: "
                + recheck_command(python, stale)
            )
        combined: Dict[str, dict] = dict(kept)
        combined.update({r.id: r.to_json() for r in results})
        combined.update({task_id: earlier[task_id] for task_id in kept_done})
        write(course_line(results, combined, load_registry(), kept_done))
        if self.unowned_failures:
            count = len(self.unowned_failures)
            write(
                f"{count} failed test(s) belong to no task (tests of given code, in "
                "no task's count above; the course's bug, or a task's code they "
                f"reach): {', '.join(self.unowned_failures[:3])}"
                + (" ..." if count > 3 else "")
            )
        upcoming = next_task(load_registry(), combined)
        if upcoming is not None:
            write(
                f"next: Task {upcoming.id} ({upcoming.title}): "
                f"{python} -m pytest -m {upcoming.marker}"
            )


def recheck_command(python: str, tasks: Iterable[str]) -> str:
    """One command that runs every test of ``tasks``:
    ``.venv/bin/python -m pytest -m "task0_1 or task0_3"``."""
    markers = " or ".join("task" + t.replace(".", "_") for t in tasks)
    quoted = f'"{markers}"' if " " in markers else markers
    return f"{python} -m pytest -m {quoted}"


def notes(
    results: List[TaskResult],
    python: str,
    kindling: str,
    kept_done: AbstractSet[str] = frozenset(),
) -> List[str]:
    """The lines under the table: what a ``partial`` status means and how to
    get the full result (or that a task done earlier stays done), how a task
    scored by mutation gets its score, and the all-or-nothing points of the
    tasks run."""
    lines: List[str] = []
    partial = [r for r in results if r.status == "partial" and r.id not in kept_done]
    for r in results:
        if r.status != "partial":
            continue
        ran = r.passed + r.failed + r.skipped
        if r.expected is not None:
            what = f"ran {ran} of its {r.expected} tests"
        else:  # the run did not collect every file that holds its tests
            what = f"ran {ran} test(s), not the files of all the others"
        if r.id in kept_done:
            lines.append(
                f"Task {r.id}: this run {what} and they passed; it stays done "
                "(all of its tests passed on this code in an earlier run)"
            )
            continue
        lines.append(
            f"partial: Task {r.id} {what} (-k, a node id, some files, --deselect "
            "or -x left some out): not done, no points"
        )
    if partial:
        lines.append(
            "run every test of "
            + ("it" if len(partial) == 1 else "them")
            + ": "
            + recheck_command(python, [r.id for r in partial])
        )
    for r in results:
        if r.scoring == "mutation":
            lines.append(
                f"Task {r.id} is scored by mutation testing (the share of planted "
                "bugs your tests catch), not by its tests passing; its score: "
                f"{kindling} grade --tasks {r.id}"
            )
    estimated = [r for r in results if r.points_earned is not None]
    if estimated:
        earned = sum(
            r.points if r.id in kept_done else (r.points_earned or 0) for r in estimated
        )
        possible = sum(r.points for r in estimated)
        lines.append(
            f"points of the tasks run: {earned}/{possible} (all-or-nothing estimate"
            + (
                "; mutation-scored tasks left out)"
                if len(estimated) < len(results)
                else ")"
            )
        )
    return lines


def course_line(
    results: List[TaskResult],
    combined: Mapping[str, Mapping[str, object]],
    registry: Iterable,
    kept_done: AbstractSet[str] = frozenset(),
) -> str:
    """``tasks done: 1 of the 2 in this run; 5 of 31 in the course (...)``; a
    task of ``kept_done`` counts as done."""
    in_run = sum(r.status == "done" or r.id in kept_done for r in results)
    tasks = list(registry)
    course = sum(
        1
        for t in tasks
        if combined.get(t.id, {}).get("status") == "done"
        and not combined.get(t.id, {}).get("stale_files")
    )
    return (
        f"tasks done: {in_run} of the {len(results)} in this run; "
        f"{course} of the {len(tasks)} in the course "
        "(with earlier runs' results, stale ones not counted)"
    )


def format_table(
    results: List[TaskResult], kept_done: AbstractSet[str] = frozenset()
) -> str:
    """The progress table as aligned text. A task of ``kept_done`` (part of its
    tests ran and passed; all of them had passed on this code) shows as done."""
    rows: List[Tuple[str, ...]] = [
        ("task", "title", "passed", "failed", "total", "status", "points")
    ]
    for r in results:
        earned = r.points if r.id in kept_done else r.points_earned
        if r.scoring == "mutation":
            earned = None
        points = f"{earned}/{r.points}" if earned is not None else "see below"
        status = "done (earlier run)" if r.id in kept_done else r.status
        rows.append(
            (
                r.id,
                r.title,
                str(r.passed),
                str(r.failed),
                str(r.total),
                status,
                points,
            )
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
        config.pluginmanager.register(
            ProgressRecorder(None, root, config), "kindling-progress"
        )
        return
    path = config.getoption("--kindling-json")
    json_path = Path(root, path) if path else None
    config.pluginmanager.register(
        ProgressRecorder(json_path, root, config), "kindling-progress"
    )
