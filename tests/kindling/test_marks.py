"""`kindling marks`: a task's tests pass with only the task and its dependencies
solved, every other solution region back to its stub."""

import textwrap

import pytest

from kindling.marks import closure, keep_only, main, run_task
from kindling.registry import load_registry

from .tiny_project import write_tiny_project

LIBRARY = """
def double(x):
    # BEGIN SOLUTION 0.1
    return x * 2
    # END SOLUTION


def triple(x):
    # BEGIN SOLUTION 0.4
    return x * 3
    # END SOLUTION
"""

# Task 0.3 depends on 0.1 (tasks.toml), not on 0.4: its second test is mis-marked.
TESTS = """
import pytest

from lib import double, triple


@pytest.mark.task0_1
def test_double():
    assert double(3) == 6


@pytest.mark.task0_3
def test_double_twice():
    assert double(double(1)) == 4


@pytest.mark.task0_3
def test_needs_a_task_outside_the_closure():
    assert triple(double(1)) == 6
"""


@pytest.fixture
def tiny(tmp_path):
    write_tiny_project(tmp_path, LIBRARY, TESTS, ("task0_1", "task0_3", "task0_4"))
    return tmp_path


def test_the_closure_follows_depends_transitively():
    registry = load_registry()
    assert closure(registry, "0.1") == {"0.1"}
    assert closure(registry, "1.4") == {"0.1", "1.2", "1.3", "1.4"}
    assert {"2.4", "2.3", "2.2", "2.1", "1.4"} <= closure(registry, "2.6")


def test_only_the_regions_outside_the_closure_become_stubs():
    registry = load_registry()
    text = keep_only(textwrap.dedent(LIBRARY), "lib.py", {"0.1"}, registry)
    assert "return x * 2" in text
    assert "return x * 3" not in text
    assert 'raise NotImplementedError("Task 0.4: implement triple")' in text


def test_a_test_that_needs_a_later_task_is_named_with_the_stub_it_reached(tiny, capsys):
    registry = load_registry()
    outcome = run_task("0.3", tiny, registry)
    assert not outcome.passed
    assert outcome.solved == ("0.1", "0.3")
    assert outcome.failures == (
        ("tests.test_lib::test_needs_a_task_outside_the_closure", ("0.4",)),
    )
    assert run_task("0.1", tiny, registry).passed
    # The source itself is untouched.
    assert "return x * 3" in (tiny / "lib.py").read_text()
    assert main(tiny, "0.1") == 0
    assert main(tiny, "0.1,0.3") == 1
    out = capsys.readouterr().out
    assert "test_needs_a_task_outside_the_closure reaches the stub of Task 0.4" in out
    assert "1 of 2 task(s) judged by their own closure alone" in out


def test_a_stub_of_another_task_shows_the_path_that_reached_it(tiny, tmp_path):
    import subprocess
    import sys

    from kindling.marks import write_partial_source

    copy = tmp_path / "copy"
    write_partial_source(tiny, copy, {"0.1", "0.3"}, load_registry())
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-m", "task0_3", "-p", "no:cacheprovider"],
        cwd=copy,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 1
    lines = run.stdout.splitlines()
    stub = lines.index("Task 0.4: implement triple — lib.py:10 (1 test)")
    assert lines[stub + 1] == (
        "    reached from test_needs_a_task_outside_the_closure "
        "(tests/test_lib.py:19)"
    )
