"""The per-task progress summary, run on a tiny project of its own."""

import json
import subprocess
import sys
import textwrap

import pytest

from kindling.pytest_plugin import classify, stub_task

TESTS = """
import pytest


def stub():
    raise NotImplementedError("Task 0.1: implement mul")


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


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("progress")
    (root / "conftest.py").write_text('pytest_plugins = ["kindling.pytest_plugin"]\n')
    (root / "test_things.py").write_text(textwrap.dedent(TESTS))
    (root / "pytest.ini").write_text(
        "[pytest]\nmarkers =\n"
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
    assert "next: Task 0.3 (Higher-order functions): pytest -m task0_3" in result.stdout
    tasks = {t["id"]: t for t in json.loads(out.read_text())["tasks"]}
    assert {k: v["status"] for k, v in tasks.items()} == {
        "0.1": "done",
        "0.3": "todo",
        "0.4": "blocked by 0.1",
        "0.5": "failing",
        "1.1": "blocked by 0.1",
    }
    assert (tasks["0.3"]["passed"], tasks["0.3"]["failed"]) == (1, 2)
    assert "assert 1 == 2" in tasks["0.5"]["first_failure"]


def test_classify_rules():
    assert classify("1.2", 3, 0, []) == "done"
    assert classify("1.2", 0, 0, []) == "no tests"
    assert classify("1.2", 0, 2, ["1.2", "1.2"]) == "todo"
    assert classify("1.2", 0, 2, ["1.2", ""]) == "failing"
    assert classify("1.2", 0, 2, ["0.3", "0.1"]) == "blocked by 0.1"
    assert classify("1.2", 0, 2, ["1.2", "0.1"]) == "todo"


def test_stub_task_looks_through_causes_and_groups():
    error = NotImplementedError("Task 2.3: implement zip")
    wrapped = RuntimeError("outer")
    wrapped.__cause__ = error
    assert stub_task(wrapped) == "2.3"

    class Group(Exception):  # the shape of ExceptionGroup (Python 3.11+)
        exceptions = (ValueError(), error)

    assert stub_task(Group("many")) == "2.3"
    assert stub_task(NotImplementedError("abstract method")) is None
