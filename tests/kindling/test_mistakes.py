"""The checked list of plausible mistakes (tests/mistakes/, `kindling mistakes`)."""

from pathlib import Path

import pytest

from kindling_staff.mistakes import (
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


def test_every_task_written_by_students_has_listed_mistakes():
    # Task 0.2's students write tests, graded by the bugs they catch (mutation):
    # it has no solution code of its own to get wrong in a listed way.
    listed = {m.task for m in load_mistakes(ROOT)}
    written = {t.id for t in load_registry().tasks if t.scoring != "mutation"}
    assert sorted(written - listed) == []


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
    assert main(ROOT, kernels=ROOT) == 0  # with the kernels this run compiled


def test_the_copy_starts_with_the_trusted_kernels(tiny, tmp_path, capsys, monkeypatch):
    # `kindling mistakes --kernel-cache DIR`: the mistake's run finds the kernels
    # that a trusted run of DIR compiled, beside the copy's own package files
    # (where the kernel cache looks when no KINDLING_CACHE_DIR names a folder).
    monkeypatch.delenv("KINDLING_CACHE_DIR", raising=False)
    (tiny / "pkg").mkdir()
    (tiny / "pkg" / "__init__.py").write_text("")
    trusted = tmp_path / "trusted" / "pkg" / "__pycache__"
    trusted.mkdir(parents=True)
    (trusted / "lib.kernel-1.py311.nbi").write_bytes(b"index")
    (tiny / "tests" / "test_lib.py").write_text(
        TESTS
        + "\n\n@pytest.mark.task0_1\n"
        + "def test_the_kernel_is_there():\n"
        + "    from pathlib import Path\n\n"
        + "    assert Path('pkg/__pycache__/lib.kernel-1.py311.nbi').is_file()\n"
    )
    # Without the trusted kernels the copy has none: the kernel test fails.
    assert main(tiny, names="plus-itself") == 0
    assert "test_the_kernel_is_there" in capsys.readouterr().out
    # With them, every test passes (the equivalent mistake survives).
    assert main(tiny, names="plus-itself", kernels=tmp_path / "trusted") == 1
    assert "SURVIVED 0.1  plus-itself" in capsys.readouterr().out


def test_a_mistake_that_crashes_the_tests_counts_as_caught(tmp_path, capsys):
    # A kernel that writes outside its arrays can make the C runtime abort the
    # test process (a signal, no exit code): the tests did not pass.
    library = (
        "import os\n\n\ndef guard(x):\n"
        "    # BEGIN SOLUTION 0.1\n"
        "    return x\n"
        "    # END SOLUTION\n"
    )
    tests = (
        "import pytest\n\nfrom lib import guard\n\n\n"
        "@pytest.mark.task0_1\ndef test_guard():\n    assert guard(3) == 3\n"
    )
    mistakes = (
        "# kindling: instructor-only\nMISTAKES = [\n    {\n"
        '        "name": "abort",\n        "task": "0.1",\n'
        '        "file": "lib.py",\n'
        '        "find": "    return x\\n",\n'
        '        "replace": "    os.abort()\\n",\n'
        '        "description": "aborts the process",\n    },\n]\n'
    )
    write_tiny_project(tmp_path, library, tests, ("task0_1",))
    (tmp_path / "tests" / "mistakes").mkdir(parents=True)
    (tmp_path / "tests" / "mistakes" / "lib.py").write_text(mistakes)
    (outcome,) = run_mistakes(tmp_path, load_mistakes(tmp_path), echo=lambda _: None)
    assert outcome.verdict == "caught"
    assert outcome.caught_by.startswith("a crash (signal ")
