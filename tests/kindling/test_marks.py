"""`kindling marks`: a task's tests pass with only the task and its dependencies
solved, every other solution region back to its stub."""

import textwrap

import pytest

from kindling_staff.marks import closure, keep_only, main, run_task
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

    from kindling_staff.marks import write_partial_source

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


def test_a_rotation_starts_where_its_key_says_and_keeps_the_order():
    from kindling_staff.marks import rotation

    tasks = ["0.1", "0.3", "0.4", "1.1"]
    first = rotation(tasks, "commit a")
    assert sorted(first) == sorted(tasks)
    start = tasks.index(first[0])
    assert first == tasks[start:] + tasks[:start]
    assert rotation(tasks, "commit a") == first
    starts = {rotation(tasks, f"commit {n}")[0] for n in range(20)}
    assert len(starts) > 1  # other keys, other first tasks
    assert rotation([], "commit a") == []


def test_a_spent_budget_starts_no_further_task(tiny, capsys):
    # A budget of 0 s: the first task runs, none after it.
    assert main(tiny, "0.1,0.3", budget=0.0) == 0
    out = capsys.readouterr().out
    assert "ok    0.1" in out and "0.3 " not in out.split("\n", 1)[1]
    assert "1 of 1 task(s) judged by their own closure alone; 1 not run" in out


def test_the_trusted_kernels_are_copied_into_the_copy(tmp_path, monkeypatch):
    from kindling_staff.source_copies import copy_trusted_kernels

    # Where the kernel cache looks when no KINDLING_CACHE_DIR names a folder.
    monkeypatch.delenv("KINDLING_CACHE_DIR", raising=False)

    trusted = tmp_path / "trusted" / "pkg" / "__pycache__"
    trusted.mkdir(parents=True)
    (trusted / "fast.kernel-1.py311.nbi").write_bytes(b"index")
    (trusted / "fast.kernel-1.py311.1.nbc").write_bytes(b"code")
    (trusted / "fast.cpython-311.pyc").write_bytes(b"bytecode")
    copy = tmp_path / "copy"
    (copy / "pkg").mkdir(parents=True)
    assert copy_trusted_kernels(tmp_path / "trusted", copy) == 2
    cached = sorted(p.name for p in (copy / "pkg" / "__pycache__").iterdir())
    assert cached == ["fast.kernel-1.py311.1.nbc", "fast.kernel-1.py311.nbi"]
    # Copies: a kernel compiled in the copy does not touch the trusted file.
    (copy / "pkg" / "__pycache__" / "fast.kernel-1.py311.nbi").write_bytes(b"new")
    assert (trusted / "fast.kernel-1.py311.nbi").read_bytes() == b"index"
