"""The per-task progress summary, run on a tiny project of its own."""

import json
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET

import pytest

from kindling.pytest_plugin import classify, stub_task

TESTS = """
import pytest


def stub():
    raise NotImplementedError("Task 0.3: implement map")


@pytest.mark.task0_1
def test_done():
    assert 1 + 1 == 2


@pytest.mark.task0_3
def test_todo_a():
    stub_03()


@pytest.mark.task0_3
def test_todo_b():
    stub_03()


@pytest.mark.task0_3
def test_passes_anyway():
    assert True


def stub_03():
    raise NotImplementedError("Task 0.3: implement map")


@pytest.mark.task0_4
def test_blocked():
    stub()


@pytest.mark.task0_5
def test_failing():
    assert 1 == 2


@pytest.mark.task1_1
def test_wrapped_stub():
    try:
        stub()
    except NotImplementedError as error:
        raise RuntimeError("kernel failed") from error


def test_without_task():
    assert True
"""


# The plugins named as in the course's pyproject.toml (not discovered).
PLUGINS = "addopts = --disable-plugin-autoload -p xdist.plugin -p hypothesispytest\n"


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("progress")
    (root / "conftest.py").write_text('pytest_plugins = ["kindling.pytest_plugin"]\n')
    (root / "test_things.py").write_text(textwrap.dedent(TESTS))
    (root / "pytest.ini").write_text(
        f"[pytest]\n{PLUGINS}markers =\n"
        + "".join(f"    task{t}: x\n" for t in ["0_1", "0_3", "0_4", "0_5", "1_1"])
    )
    return root


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_summary_table_and_json(project, workers):
    out = project / f"run{len(workers)}.json"
    result = subprocess.run(
        [sys.executable, "-m", "pytest", f"--kindling-json={out}", *workers],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert "Kindling progress" in result.stdout
    assert "next: Task 0.3 (Higher-order functions): python -m pytest -m task0_3" in (
        result.stdout
    )
    tasks = {t["id"]: t for t in json.loads(out.read_text())["tasks"]}
    assert {k: v["status"] for k, v in tasks.items()} == {
        "0.1": "done",
        "0.3": "todo",
        "0.4": "blocked by 0.3",
        "0.5": "failing",
        "1.1": "blocked by 0.3",
    }
    assert (tasks["0.3"]["passed"], tasks["0.3"]["failed"]) == (1, 2)
    assert "assert 1 == 2" in tasks["0.5"]["first_failure"]


def test_classify_rules():
    assert classify("1.2", 3, 0, []) == "done"
    assert classify("1.2", 0, 0, []) == "no tests"
    assert classify("1.2", 0, 2, ["1.2", "1.2"]) == "todo"
    assert classify("1.2", 0, 2, ["1.2", ""]) == "failing"
    assert classify("1.2", 0, 2, ["0.3", "0.1"]) == "blocked by 0.1"
    # A failure from an earlier task's stub blocks the task, whatever else failed.
    assert classify("1.2", 0, 2, ["1.2", "0.1"]) == "blocked by 0.1"
    assert classify("1.4", 5, 3, ["1.4", "", "1.2"]) == "blocked by 1.2"
    assert classify("1.2", 1, 2, ["1.2", "1.2"]) == "todo"


def test_stub_task_looks_through_causes_and_groups():
    error = NotImplementedError("Task 2.3: implement zip")
    wrapped = RuntimeError("outer")
    wrapped.__cause__ = error
    assert stub_task(wrapped) == "2.3"

    class Group(Exception):  # the shape of ExceptionGroup (Python 3.11+)
        exceptions = (ValueError(), error)

    assert stub_task(Group("many")) == "2.3"
    assert stub_task(NotImplementedError("abstract method")) is None


def test_a_stub_failure_is_one_line_and_real_failures_keep_tracebacks(project):
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--kindling-json="],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    out = result.stdout
    # The stub raised at line 6 of the test file stops two tests, reached directly
    # (test_blocked) or through a wrapping error (test_wrapped_stub).
    assert "Task 0.3: implement map — test_things.py:6 (2 tests)" in out
    assert "Task 0.3: implement map — test_things.py:30 (2 tests)" in out
    assert "not implemented yet (4 test(s) stopped at a stub)" in out
    # No traceback of a stub failure, no short-summary line for it ...
    assert "raise NotImplementedError" not in out
    assert "kernel failed" not in out
    assert "_ test_todo_a _" not in out
    assert "FAILED test_things.py::test_todo_a" not in out
    # ... but the real failure keeps its traceback, and the counts stay right.
    assert "_ test_failing _" in out and "E       assert 1 == 2" in out
    assert "FAILED test_things.py::test_failing" in out
    assert "5 failed, 3 passed" in out


def test_only_the_first_failure_at_a_tasks_stub_keeps_its_traceback(project, tmp_path):
    # The grader shows the first failure at each task's stub; formatting the others
    # (never printed) would cost ~10 ms a test: they carry the exception alone.
    xml = tmp_path / "report.xml"
    subprocess.run(
        [sys.executable, "-m", "pytest", "--kindling-json=", f"--junitxml={xml}"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    failures = {
        case.get("name"): case.find("failure")
        for case in ET.parse(xml).iter("testcase")
        if case.find("failure") is not None
    }
    first, later = failures["test_todo_a"], failures["test_todo_b"]
    assert "raise NotImplementedError" in first.text and "stub_03()" in first.text
    assert "raise NotImplementedError" not in later.text
    assert "Task 0.3: implement map" in later.text
    message = "NotImplementedError: Task 0.3: implement map"
    assert first.get("message") == later.get("message") == message
    # A real failure keeps its traceback, whatever stubs were met before it.
    assert "assert 1 == 2" in failures["test_failing"].text


HYPOTHESIS_STUB = """
import pytest
from hypothesis import given, settings, strategies as st


@pytest.mark.task0_1
@settings(print_blob=True, derandomize=True, max_examples=5)
@given(st.floats())
def test_neg(x):
    raise NotImplementedError("Task 0.1: implement neg")
"""


def test_a_hypothesis_stub_failure_has_no_boilerplate(tmp_path):
    (tmp_path / "conftest.py").write_text(
        'pytest_plugins = ["kindling.pytest_plugin"]\n'
    )
    (tmp_path / "test_h.py").write_text(HYPOTHESIS_STUB)
    (tmp_path / "pytest.ini").write_text(
        f"[pytest]\n{PLUGINS}markers =\n    task0_1: x\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--kindling-json="],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = [line for line in result.stdout.splitlines() if line.startswith("Task")]
    assert lines == ["Task 0.1: implement neg — test_h.py:10 (1 test)"]
    assert "reproduce_failure" not in result.stdout
    assert "Falsifying example" not in result.stdout
    assert "1 failed" in result.stdout


STUDENT_FILE = "module0_fundamentals/operators.py"


def test_progress_is_cumulative_and_marks_stale_results(project, tmp_path):
    from kindling.progress import read_progress

    root = tmp_path / "student"
    root.mkdir()
    for name in ("conftest.py", "test_things.py", "pytest.ini"):
        (root / name).write_text((project / name).read_text())
    (root / STUDENT_FILE).parent.mkdir()
    (root / STUDENT_FILE).write_text("def mul(x, y):\n    return x * y\n")

    def pytest_run(marker):
        return subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-m", marker],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=120,
        )

    first = pytest_run("task0_1")
    assert first.returncode == 0, first.stdout
    store = root / ".kindling" / "progress.json"
    after_first = read_progress(store, root)["tasks"]
    assert set(after_first) == {"0.1"}
    assert after_first["0.1"]["status"] == "done"
    assert after_first["0.1"]["stale_files"] == []

    (root / STUDENT_FILE).write_text("def mul(x, y):\n    return y * x\n")
    second = pytest_run("task0_3")
    assert "earlier results kept for 1 other task(s); stale" in second.stdout
    assert "stale (files changed since): 0.1" in second.stdout
    payload = read_progress(store, root)
    tasks = payload["tasks"]
    assert set(tasks) == {"0.1", "0.3"}  # the first run's result is still there
    assert tasks["0.1"]["time"] == after_first["0.1"]["time"]
    assert tasks["0.1"]["stale_files"] == [STUDENT_FILE]
    assert tasks["0.3"]["status"] == "todo" and tasks["0.3"]["stale_files"] == []
    assert payload["last_run"]["tasks"] == ["0.3"]
    assert tasks["0.3"]["timestamp"] >= tasks["0.1"]["timestamp"]


def test_next_task_follows_the_dependency_order():
    from kindling.progress import next_task
    from kindling.registry import load_registry

    registry = load_registry()
    done = {t: {"status": "done"} for t in ("0.1", "0.2", "0.3", "0.4", "0.5")}
    # Module 0 done, Task 1.4 blocked by Task 1.2: 1.2 is next (not 1.1, never run).
    results = dict(done, **{"1.4": {"status": "blocked by 1.2"}})
    assert next_task(registry, results).id == "1.2"
    # Only the blocked task's result known: still its blocker.
    assert next_task(registry, {"1.4": {"status": "blocked by 1.2"}}).id == "1.2"
    # Nothing unfinished known: the first task whose dependencies are done.
    assert next_task(registry, {}).id == "0.1"
    assert next_task(registry, done).id == "1.1"
    # A stale result is no evidence either way.
    stale = dict(done, **{"0.4": {"status": "done", "stale_files": ["x.py"]}})
    assert next_task(registry, stale).id == "0.4"
    everything = {t.id: {"status": "done"} for t in registry}
    assert next_task(registry, everything) is None
