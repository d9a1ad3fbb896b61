"""The checked list of plausible mistakes (tests/mistakes/, `kindling mistakes`)."""

from pathlib import Path

import pytest

from kindling.mistakes import (
    MistakeError,
    check_placement,
    load_mistakes,
    main,
    run_mistakes,
)
from kindling.registry import load_registry

from .tiny_project import write_tiny_project

ROOT = Path(__file__).resolve().parents[2]

#: The mistakes of issue 25 that passed their task's tests: each must stay listed.
REQUIRED = {
    "is-close-le",
    "mul-clipped",
    "topological-pre-order",
    "evaluate-without-memo",
    "diff-simplifies-times-zero",
    "to-index-python-list",
    "broadcast-index-skips-size-1",
    "map-ignores-out-strides",
    "two-ellipses",
    "mm-practice-from-global-memory",
}


def test_every_mistake_lies_inside_a_solution_region_of_its_task():
    mistakes = load_mistakes(ROOT)
    assert REQUIRED <= {m.name for m in mistakes}
    registry = load_registry()
    problems = [p for m in mistakes for p in check_placement(m, ROOT, registry)]
    assert problems == []


def test_the_list_never_reaches_a_student_edition():
    # The snippets are reference code: every data file is instructor-only.
    for path in (ROOT / "tests" / "mistakes").glob("*.py"):
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert first == "# kindling: instructor-only", path.name


LIBRARY = """
def double(x):
    # BEGIN SOLUTION 0.1
    return x * 2
    # END SOLUTION


def outside(x):
    return x * 2 + 0
"""

TESTS = """
import pytest

from lib import double


@pytest.mark.task0_1
def test_double():
    assert double(3) == 6
"""

MISTAKES = """# kindling: instructor-only
MISTAKES = [
    {
        "name": "plus",
        "task": "0.1",
        "file": "lib.py",
        "find": "return x * 2\\n",
        "replace": "return x + 2\\n",
        "description": "adds instead of doubling",
    },
    {
        "name": "plus-itself",
        "task": "0.1",
        "file": "lib.py",
        "find": "return x * 2\\n",
        "replace": "return x + x\\n",
        "description": "the same number, another way (survives)",
    },
]
"""


@pytest.fixture
def tiny(tmp_path):
    write_tiny_project(tmp_path, LIBRARY, TESTS, ("task0_1",))
    (tmp_path / "tests" / "mistakes").mkdir(parents=True)
    (tmp_path / "tests" / "mistakes" / "lib.py").write_text(MISTAKES)
    return tmp_path


def test_the_tool_tells_caught_from_surviving_mistakes(tiny, capsys):
    mistakes = load_mistakes(tiny)
    outcomes = run_mistakes(tiny, mistakes, echo=lambda line: None)
    assert [(o.mistake.name, o.verdict) for o in outcomes] == [
        ("plus", "caught"),
        ("plus-itself", "survived"),
    ]
    assert outcomes[0].caught_by == "tests/test_lib.py::test_double"
    # The source is untouched, and the command says a mistake survived.
    assert "return x * 2\n" in (tiny / "lib.py").read_text()
    assert main(tiny) == 1
    out = capsys.readouterr().out
    assert "SURVIVED 0.1  plus-itself" in out and "caught 1 of 2" in out
    assert main(tiny, names="plus") == 0


def test_a_misplaced_or_malformed_mistake_is_refused(tiny):
    data = tiny / "tests" / "mistakes" / "lib.py"
    moved = MISTAKES.replace('"return x * 2\\n"', '"return x * 2 + 0"', 1)
    assert moved != MISTAKES
    data.write_text(moved)
    (mistake,) = [m for m in load_mistakes(tiny) if m.name == "plus"]
    assert "not inside a solution region" in check_placement(mistake, tiny)[0]
    assert main(tiny) == 2
    data.write_text(MISTAKES.replace('"plus-itself"', '"plus"'))
    with pytest.raises(MistakeError, match="taken"):
        load_mistakes(tiny)


@pytest.mark.slow
def test_the_course_tests_catch_every_listed_mistake():
    # Minutes: every mistake runs its task's tests. `kindling mistakes` does the same.
    assert main(ROOT) == 0
