"""``kindling release``: the student edition imports, lints, and grades as ``todo``.

These tests cut a real edition of this repository into a temporary directory and run
pytest, flake8 and black inside it, as a student would. One run collects the whole
``tests/`` directory, as ``pytest -m task0_1`` does; the others name the module's test
folder, which selects the same tests in half the time.
"""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kindling.cli import main
from kindling.registry import load_registry
from kindling.regions import BEGIN, END, MANIFEST
from kindling_staff.release import (
    MAX_BEFORE_FIRST_STUB,
    ReleaseError,
    code_lines,
    given_code,
    release,
    release_stats,
)

ROOT = Path(__file__).resolve().parents[2]
MODULE0 = "task0_1 or task0_2 or task0_3 or task0_4 or task0_5"
MODULE0_FILES = sorted(
    {f for t in load_registry() if t.module == 0 for f in t.files}
    - {"tests/module0/test_properties.py"}  # Task 0.2 is graded by mutation
)


def run(args, cwd, **kwargs):
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        **kwargs,
    )


def progress(edition: Path) -> dict:
    data = json.loads((edition / ".kindling" / "progress.json").read_text())
    return {task["id"]: task for task in data["tasks"]}


@pytest.fixture(scope="module")
def edition(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("edition") / "student"
    assert main(["release", str(out), "--source", str(ROOT)]) == 0
    return out


def test_edition_leaves_out_instructor_files_and_solutions(edition):
    assert (edition / "module0_fundamentals" / "operators.py").exists()
    assert not (edition / "CONTRIBUTING.md").exists()
    assert not (edition / ".ci").exists()
    assert not (edition / "tests" / "kindling").exists()
    for path in edition.rglob("*.py"):
        for line in path.read_text().splitlines():
            assert not BEGIN.match(line) and not END.match(line), (path, line)
    operators = (edition / "module0_fundamentals" / "operators.py").read_text()
    assert 'raise NotImplementedError("Task 0.1:' in operators
    manifest = json.loads((edition / MANIFEST).read_text())["protected"]
    assert "tests/module0/test_operators.py" in manifest
    assert "module0_fundamentals/operators.py" not in manifest
    # Where each task's code lives, for the progress file's staleness (the
    # edition has no markers left).
    units = json.loads((edition / MANIFEST).read_text())["units"]
    assert units["0.1"]["module0_fundamentals/operators.py"][:2] == ["mul", "id"]
    assert units["3.2"] == {
        "module3_fast_ops/fast_matmul.py": ["tensor_matrix_multiply"]
    }


def test_edition_has_the_students_toolchain_and_not_the_staffs(edition):
    assert not (edition / "kindling_staff").exists()
    assert (edition / "kindling" / "regions.py").is_file()
    pyproject = (edition / "pyproject.toml").read_text()
    assert "kindling_staff" not in pyproject and "entry-points" not in pyproject
    refused = run(["-m", "kindling", "release", "../other"], edition)
    assert refused.returncode == 2 and "invalid choice: 'release'" in refused.stderr
    refused = run(["-m", "kindling", "grade", "--batch", "subs"], edition)
    assert refused.returncode == 2 and "unrecognized arguments" in refused.stderr
    helped = run(["-m", "kindling", "grade", "--help"], edition)
    assert helped.returncode == 0 and "--submission" in helped.stdout
    assert "--batch" not in helped.stdout


def test_edition_imports_and_is_lint_clean(edition):
    imported = run(
        ["-c", "import module0_fundamentals, module1_scalar_autodiff, kindling"],
        cwd=edition,
    )
    assert imported.returncode == 0, imported.stderr
    # The files the release rewrote (the stubs) or made; the copies unchanged from
    # the source are linted by CI's own black and flake8 runs over the source.
    changed = []
    for path in sorted(edition.rglob("*.py")):
        relative = path.relative_to(edition)
        source = ROOT / relative
        if not source.is_file() or source.read_bytes() != path.read_bytes():
            changed.append(relative.as_posix())
    assert "module0_fundamentals/operators.py" in changed, changed
    flake8 = run(["-m", "flake8", *changed], cwd=edition)
    assert flake8.returncode == 0, flake8.stdout + flake8.stderr
    black = run(["-m", "black", "--check", "-q", *changed], cwd=edition)
    assert black.returncode == 0, black.stdout + black.stderr


def test_module0_tasks_are_todo_in_the_edition(edition):
    result = run(["-m", "pytest", "-q", "-m", MODULE0, "-p", "no:randomly"], edition)
    assert result.returncode == 1, result.stdout[-3000:]
    assert re.search(
        r"^Task 0\.3: .* — module0_fundamentals/operators\.py:\d+ ", result.stdout, re.M
    )
    assert "Kindling progress" in result.stdout
    tasks = progress(edition)
    # Task 0.5's datasets use Task 0.1's operators: its tests stop there first.
    assert {t: tasks[t]["status"] for t in tasks} == {
        "0.1": "todo",
        "0.2": "todo",
        "0.3": "todo",
        "0.4": "todo",
        "0.5": "blocked by 0.1",
    }
    assert "next: Task 0.1 (Scalar operators)" in result.stdout


def test_task0_3_fails_and_the_reference_file_makes_0_1_pass(edition, tmp_path):
    copy = tmp_path / "student"
    shutil.copytree(edition, copy)
    failing = run(["-m", "pytest", "-q", "-m", "task0_3", "tests/module0"], copy)
    assert failing.returncode == 1
    assert re.search(
        r"^Task 0\.3: .* — module0_fundamentals/operators\.py:\d+ ",
        failing.stdout,
        re.M,
    )
    shutil.copy(
        ROOT / "module0_fundamentals" / "operators.py",
        copy / "module0_fundamentals" / "operators.py",
    )
    passing = run(
        ["-m", "pytest", "-q", "-m", "task0_1 or task0_3", "tests/module0"], copy
    )
    assert passing.returncode == 0, passing.stdout[-3000:]
    tasks = progress(copy)
    assert tasks["0.1"]["status"] == tasks["0.3"]["status"] == "done"


def test_module1_blocked_by_its_first_stub_after_module0_is_done(edition, tmp_path):
    """Module 0 solved, Module 1 still stubs: Task 1.4's tests stop at Task 1.2's
    stubs, so 1.4 is blocked by 1.2, and 1.2 is next (not 1.4, not 1.1)."""
    copy = tmp_path / "student"
    shutil.copytree(edition, copy)
    for relative in MODULE0_FILES:
        shutil.copy(ROOT / relative, copy / relative)
    result = run(
        ["-m", "pytest", "-q", "-m", "task1_4", "-p", "no:randomly", "tests/module1"],
        copy,
    )
    assert result.returncode == 1, result.stdout[-3000:]
    tasks = progress(copy)
    assert tasks["1.4"]["status"] == "blocked by 1.2"
    assert "next: Task 1.2 (Scalar and ScalarFunction forwards): " in result.stdout
    assert "-m pytest -m task1_2" in result.stdout
    # Every test stopped at a stub: one line per stub, not a traceback per test.
    assert "Traceback" not in result.stdout
    assert "raise NotImplementedError" not in result.stdout
    stub_lines = [
        line for line in result.stdout.splitlines() if line.startswith("Task 1.2: ")
    ]
    assert stub_lines, result.stdout[-3000:]
    for line in stub_lines:
        assert " — module1_scalar_autodiff/" in line, line
        assert line.endswith(("test)", "tests)")), line


def test_instructor_source_shows_module0_done(tmp_path):
    report = tmp_path / "run.json"
    result = run(
        [
            "-m",
            "pytest",
            "-q",
            "-m",
            MODULE0,
            f"--kindling-json={report}",
            "tests/module0",
        ],
        ROOT,
    )
    assert result.returncode == 0, result.stdout[-3000:]
    tasks = {t["id"]: t for t in json.loads(report.read_text())["tasks"]}
    assert {t: tasks[t]["status"] for t in tasks} == {
        t: "done" for t in ["0.1", "0.2", "0.3", "0.4", "0.5"]
    }


def test_release_through_keeps_earlier_modules_only(tmp_path):
    out = tmp_path / "m1"
    release(ROOT, out, through=1)
    assert (out / "module1_scalar_autodiff").is_dir()
    assert not (out / "module2_tensors").exists()
    assert not (out / "tests" / "module2").exists()
    assert not (out / "project" / "run_tensor.py").exists()
    assert (out / "project" / "run_scalar.py").exists()
    # A script that imports a later module at its top would not even start.
    assert not (out / "project" / "parallel_check.py").exists()
    assert (out / "project" / "app.py").exists()  # its later pages import lazily
    registry = (out / "kindling" / "tasks.toml").read_text()
    assert 'id = "1.7"' in registry and 'id = "2.1"' not in registry


def test_release_refuses_a_non_empty_directory_without_force(tmp_path):
    (tmp_path / "keep.txt").write_text("mine")
    with pytest.raises(ReleaseError, match="not empty"):
        release(ROOT, tmp_path)
    with pytest.raises(ReleaseError, match="inside the source"):
        release(ROOT, ROOT / "edition")


def test_release_refuses_what_is_not_a_course_source(tmp_path, edition, capsys):
    (tmp_path / "notes.txt").write_text("not a course")
    with pytest.raises(ReleaseError, match="not a Kindling course source"):
        release(tmp_path, tmp_path.parent / "out-of-nothing")
    assert not (tmp_path.parent / "out-of-nothing").exists()
    with pytest.raises(ReleaseError, match="is a student edition"):
        release(edition, tmp_path / "again")
    code = main(["release", str(tmp_path / "x"), "--source", str(tmp_path)])
    assert code == 2
    assert "no kindling/tasks.toml" in capsys.readouterr().err


def test_the_edition_has_a_readme_for_students(edition):
    readme = (edition / "README.md").read_text()
    instructor = (ROOT / "README.md").read_text()
    assert readme != instructor
    for instructor_only in ("reference solutions", "For instructors", "release"):
        assert instructor_only not in readme, instructor_only
    assert "python3 -m venv .venv" in readme
    assert ".venv/bin/python -m pytest -m task0_1" in readme
    assert "blocked by X.Y" in readme and ".kindling/progress.json" in readme
    assert ".venv/bin/streamlit run project/app.py" in readme
    for task in load_registry():  # the task table lists every task and its points
        assert f"| {task.id} | {task.title} | {task.points} |" in readme


def test_code_lines_leave_out_docstrings_comments_and_blank_lines():
    text = (
        '"""Module docstring,\n'
        'two lines."""\n'
        "\n"
        "# a comment\n"
        "X = (1,\n"
        "     2)  # code with a comment\n"
        "def f():\n"
        '    """Docstring."""\n'
        "    return '''a string\n"
        "that is code'''\n"
    )
    assert sorted(code_lines(text)) == [5, 6, 7, 9, 10]


def test_given_code_counts_up_to_the_first_stub_and_leaves_stubs_out():
    registry = load_registry()
    text = (
        "import math\n"
        "\n"
        "A = 1\n"
        "\n"
        "def mul(x: float, y: float) -> float:\n"
        '    """Multiply."""\n'
        "    # BEGIN SOLUTION 0.1\n"
        "    return x * y\n"
        "    # END SOLUTION\n"
        "\n"
        "B = 2\n"
    )
    stats = given_code(text, "m.py", registry)
    # import, A = 1, def: before the stub; B = 2 after; the raise is not given code.
    assert (stats.before_first_stub, stats.total) == (3, 4)


def test_release_stats_prints_every_student_file_and_the_total(capsys):
    assert main(["release", "--stats", "--source", str(ROOT)]) == 0
    out = capsys.readouterr().out
    for task in load_registry():
        for path in task.files:
            if path.endswith(".py"):
                assert f"`{path}`" in out
    assert "**total**" in out


def test_no_student_file_has_more_than_120_given_lines_before_its_first_stub():
    """The teaching layer's reading-order rule: at most 120 lines of given code
    before a student file's first stub (the size budget is the whole library's:
    tests/kindling/test_library_budget.py)."""
    stats = release_stats(ROOT)
    over = {s.path: s.before_first_stub for s in stats}
    over = {p: n for p, n in over.items() if n > MAX_BEFORE_FIRST_STUB}
    assert over == {}
