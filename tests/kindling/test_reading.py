"""``kindling release --stats``' reading lines: what a student reads for a task is
its files' given code plus the given definitions its functions name, so moving
given code out of a student file into a module its stub calls changes nothing."""

from __future__ import annotations

import textwrap
from pathlib import Path

from kindling.cli import main
from kindling_staff.reading import format_reading, reading_stats, task_reading
from kindling.registry import load_registry, parse_registry

ROOT = Path(__file__).resolve().parents[2]

REGISTRY = """
[[task]]
id = "0.1"
title = "t"
points = 1
files = ["module0_fundamentals/student.py"]
"""

HELPER = '''\
def helper(x):
    """Doubles."""
    y = x + x  # why: twice
    return y


def unused(x):
    return x
'''

STUDENT_WITH_HELPER = '''\
def helper(x):
    """Doubles."""
    y = x + x  # why: twice
    return y


def task(x: int) -> int:
    """The task."""
    # BEGIN SOLUTION 0.1
    return helper(x) + 1
    # END SOLUTION
'''

STUDENT_CALLING_ENGINE = '''\
from . import engine
from .engine import helper


def task(x: "Unused") -> int:
    """The task."""
    # BEGIN SOLUTION 0.1
    return helper(x) + engine.unused(1)
    # END SOLUTION
'''


def _tree(root: Path, files: dict) -> Path:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def test_moving_given_code_into_a_module_the_stub_calls_does_not_lower_reading(
    tmp_path,
):
    registry = parse_registry(REGISTRY)
    inline = _tree(
        tmp_path / "inline",
        {
            "module0_fundamentals/__init__.py": "",
            "module0_fundamentals/student.py": STUDENT_WITH_HELPER,
        },
    )
    moved = _tree(
        tmp_path / "moved",
        {
            "module0_fundamentals/__init__.py": "",
            "module0_fundamentals/engine.py": HELPER,
            "module0_fundamentals/student.py": STUDENT_CALLING_ENGINE,
        },
    )
    before = task_reading(inline, registry["0.1"], registry)
    after = task_reading(moved, registry["0.1"], registry)
    # Inline: def helper, y = ..., return y, def task (the region is the
    # student's): 4 given lines.
    assert (before.own, before.named, before.total) == (4, (), 4)
    # Moved: the imports and def task stay (3); helper (3 lines) and
    # engine.unused (2) are named by the solution; the annotation is not.
    assert after.own == 3
    assert dict(after.named) == {
        "module0_fundamentals.engine:helper": 3,
        "module0_fundamentals.engine:unused": 2,
    }
    assert after.total >= before.total


def test_reading_lines_are_printed_for_every_task(capsys):
    assert main(["release", "--stats", "--source", str(ROOT)]) == 0
    out = capsys.readouterr().out
    assert "| task | given lines in its files |" in out
    for task in load_registry():
        assert f"\n| {task.id} | " in out


def test_reading_names_definitions_across_files_of_this_repository():
    readings = {r.task: r for r in reading_stats(ROOT, load_registry())}
    # Task 3.3's kernels are launched through the runtime's launch helper,
    # which the student reads to know how a kernel is called.
    named = dict(readings["3.3"].named)
    assert any(key.endswith(":launch") for key in named)
    assert readings["3.3"].total == readings["3.3"].own + sum(named.values())
    assert format_reading(list(readings.values())).count("\n") == len(readings) + 1
