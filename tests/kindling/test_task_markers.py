"""Every test that checks a task's code carries that task's marker.

A test without a task marker is a test of given code: it counts for no task, so a
bug it catches in a task's code shows as a failure beside "all done" and the
progress table blames nothing. The check: in a copy of the source where every
task is a stub, run the module tests that carry no task marker; each one that
stops at a task's stub checks that task's code.

Tests that did so before this check existed are listed in
``unmarked_task_tests.txt`` (a debt to pay: give each the marker of the task whose
code it checks, and delete its line); a test not listed there fails this check.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from kindling_staff.marks import failed_tests, write_partial_source
from kindling.registry import load_registry

ROOT = Path(__file__).resolve().parents[2]
KNOWN = Path(__file__).with_name("unmarked_task_tests.txt")
MODULE_TESTS = ["tests/module0", "tests/module1", "tests/module2", "tests/module3"]
MODULE_TESTS.append("tests/module4")


def function_name(case: str) -> str:
    """A JUnit case as a test function: ``tests.module2.test_x::test_y[fast]``
    is ``tests/module2/test_x.py::test_y``."""
    module, _, name = case.partition("::")
    return module.replace(".", "/") + ".py::" + re.sub(r"\[.*\]$", "", name)


def unmarked_tests_reaching_stubs(workdir: Path) -> list:
    """The test functions without a task marker that stop at a task's stub."""
    registry = load_registry()
    source = workdir / "source"
    write_partial_source(ROOT, source, set(), registry)
    report = workdir / "junit.xml"
    markers = " or ".join(task.marker for task in registry)
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider"]
        + ["--kindling-json=", f"--junitxml={report}", "-m", f"not ({markers})"]
        + MODULE_TESTS,
        cwd=source,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    return sorted(
        {function_name(case) for case, stubs in failed_tests(report, set()) if stubs}
    )


@pytest.mark.slow
def test_no_test_without_a_task_marker_reaches_a_tasks_code(tmp_path):
    known = {
        line.strip()
        for line in KNOWN.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    }
    reached = unmarked_tests_reaching_stubs(tmp_path)
    assert reached, "no test reached a stub: the check itself is broken"
    new = [name for name in reached if name not in known]
    assert not new, (
        f"{len(new)} test(s) carry no task marker but run a task's code (they stop "
        "at its stub when it is not written): give each the marker of the task "
        "whose code it checks:\n" + "\n".join(new)
    )
