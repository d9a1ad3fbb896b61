"""``kindling release``: the student edition imports, lints, and grades as ``todo``.

These tests cut a real edition of this repository into a temporary directory and run
pytest, flake8 and black inside it, as a student would.
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kindling.cli import main
from kindling.release import BEGIN, END, MANIFEST, ReleaseError, release

ROOT = Path(__file__).resolve().parents[2]
MODULE0 = "task0_1 or task0_2 or task0_3 or task0_4 or task0_5"


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
    data = json.loads((edition / ".kindling" / "last-run.json").read_text())
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


def test_edition_imports_and_is_lint_clean(edition):
    imported = run(
        ["-c", "import module0_fundamentals, module1_scalar_autodiff, kindling"],
        cwd=edition,
    )
    assert imported.returncode == 0, imported.stderr
    flake8 = run(["-m", "flake8", "."], cwd=edition)
    assert flake8.returncode == 0, flake8.stdout + flake8.stderr
    black = run(["-m", "black", "--check", "-q", "."], cwd=edition)
    assert black.returncode == 0, black.stdout + black.stderr


def test_module0_tasks_are_todo_in_the_edition(edition):
    result = run(["-m", "pytest", "-q", "-m", MODULE0, "-p", "no:randomly"], edition)
    assert result.returncode == 1, result.stdout[-3000:]
    assert "NotImplementedError: Task 0.3" in result.stdout
    assert "Kindling progress" in result.stdout
    tasks = progress(edition)
    assert {t: tasks[t]["status"] for t in tasks} == {
        t: "todo" for t in ["0.1", "0.2", "0.3", "0.4", "0.5"]
    }


def test_task0_3_fails_and_the_reference_file_makes_0_1_pass(edition, tmp_path):
    copy = tmp_path / "student"
    shutil.copytree(edition, copy)
    failing = run(["-m", "pytest", "-q", "-m", "task0_3"], copy)
    assert failing.returncode == 1
    assert "NotImplementedError: Task 0.3" in failing.stdout
    shutil.copy(
        ROOT / "module0_fundamentals" / "operators.py",
        copy / "module0_fundamentals" / "operators.py",
    )
    passing = run(["-m", "pytest", "-q", "-m", "task0_1 or task0_3"], copy)
    assert passing.returncode == 0, passing.stdout[-3000:]
    tasks = progress(copy)
    assert tasks["0.1"]["status"] == tasks["0.3"]["status"] == "done"


def test_instructor_source_shows_module0_done(tmp_path):
    report = tmp_path / "run.json"
    result = run(
        ["-m", "pytest", "-q", "-m", MODULE0, f"--kindling-json={report}"], ROOT
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
    registry = (out / "kindling" / "tasks.toml").read_text()
    assert 'id = "1.7"' in registry and 'id = "2.1"' not in registry


def test_release_refuses_a_non_empty_directory_without_force(tmp_path):
    (tmp_path / "keep.txt").write_text("mine")
    with pytest.raises(ReleaseError, match="not empty"):
        release(ROOT, tmp_path)
    with pytest.raises(ReleaseError, match="inside the source"):
        release(ROOT, ROOT / "edition")
