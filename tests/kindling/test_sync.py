"""``kindling sync``: a student's solved modules travel into the next edition."""

from pathlib import Path

import pytest

from kindling.cli import main
from kindling.registry import load_registry
from kindling_staff.release import release
from kindling.sync import SyncError, definitions, sync

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = load_registry()
MODULE0_FILES = sorted({f for t in REGISTRY if t.module == 0 for f in t.files})
MODULE1_FILES = sorted({f for t in REGISTRY if t.module == 1 for f in t.files})


@pytest.fixture
def editions(tmp_path):
    """A student's solved Module 0 edition, and the fresh Module 0-1 edition."""
    first, second = tmp_path / "module0", tmp_path / "module1"
    release(ROOT, first, through=0)
    release(ROOT, second, through=1)
    for relative in MODULE0_FILES:  # the student solves Module 0 ...
        (first / relative).write_text((ROOT / relative).read_text())
    (first / "tests" / "conftest.py").write_text("# edited\n")  # ... and tinkers
    return first, second


def test_sync_copies_the_solved_student_files_and_nothing_else(editions):
    first, second = editions
    pristine_conftest = (second / "tests" / "conftest.py").read_text()
    stubbed = {f: (second / f).read_text() for f in MODULE1_FILES}
    actions = dict(sync(first, second))
    assert set(actions) == set(MODULE0_FILES)
    assert set(actions.values()) == {"copied"}
    for relative in MODULE0_FILES:
        assert (second / relative).read_text() == (ROOT / relative).read_text()
    assert (second / "tests" / "conftest.py").read_text() == pristine_conftest
    assert {f: (second / f).read_text() for f in MODULE1_FILES} == stubbed
    assert set(dict(sync(first, second)).values()) == {"unchanged"}


def test_a_dry_run_changes_nothing(editions):
    first, second = editions
    before = (second / MODULE0_FILES[0]).read_text()
    actions = dict(sync(first, second, dry_run=True))
    assert set(actions.values()) == {"would copy"}
    assert (second / MODULE0_FILES[0]).read_text() == before


def test_the_sync_command(editions, capsys):
    first, second = editions
    assert main(["sync", "--from", str(first), "--to", str(second)]) == 0
    out = capsys.readouterr().out
    assert f"{len(MODULE0_FILES)} file(s) copied" in out
    assert main(["sync", "--from", str(second), "--to", str(second)]) == 2
    assert "this edition itself" in capsys.readouterr().err


def test_sync_refuses_what_is_not_an_edition(tmp_path, editions):
    with pytest.raises(SyncError, match="not a course edition"):
        sync(tmp_path / "nowhere", editions[1])


SPLIT = ["module2_tensors/shape_functions.py", "module2_tensors/indexing_functions.py"]
HELPER = """

def _my_helper(x):  # the student's own
    return x
"""


def test_solutions_follow_definitions_that_moved_to_another_file(tmp_path):
    """Task 2.6 was one file before it was two: a student's solved old file is
    merged by definition into both new files (a whole-file copy defined GetItem
    twice, and the package failed at import)."""
    import subprocess
    import sys

    old, new = tmp_path / "old", tmp_path / "new"
    release(ROOT, new, through=2)
    release(ROOT, old, through=2)
    shape, indexing = (ROOT / f for f in SPLIT)
    moved = indexing.read_text()
    spans = definitions(moved)
    blocks = ["\n".join(moved.splitlines()[a - 1 : b]) for a, b in spans.values()]
    single = shape.read_text().rstrip("\n") + "\n\n\n" + "\n\n\n".join(blocks)
    (old / SPLIT[0]).write_text(single + HELPER)
    (old / SPLIT[1]).unlink()
    registry = (old / "kindling" / "tasks.toml").read_text()
    files = f'files = ["{SPLIT[1]}", "{SPLIT[0]}"]'
    assert files in registry
    (old / "kindling" / "tasks.toml").write_text(
        registry.replace(files, f'files = ["{SPLIT[0]}"]')
    )

    actions = dict(sync(old, new))
    assert actions[SPLIT[0]] == actions[SPLIT[1]] == "merged"
    for relative in SPLIT:
        text = (new / relative).read_text()
        assert "# TODO: Task 2.6" not in text, relative
        reference = (ROOT / relative).read_text()
        for name, span in definitions(reference).items():
            theirs = definitions(text)[name]
            lines = text.splitlines()[theirs[0] - 1 : theirs[1]]
            assert lines == reference.splitlines()[span[0] - 1 : span[1]], name
    assert "def _my_helper(x):" in (new / SPLIT[0]).read_text()
    assert "def _my_helper" not in (new / SPLIT[1]).read_text()
    check = "import module2_tensors.indexing_functions as m; print(m.GetItem)"
    done = subprocess.run(
        [sys.executable, "-c", check], cwd=new, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]


FAST = ["module3_fast_ops/fast_ops.py", "module3_fast_ops/fast_matmul.py"]
GIVEN_MOVED = "module3_fast_ops/kernel_indexing.py"


def test_given_definitions_that_moved_to_a_given_file_stay_there(tmp_path):
    """Tasks 3.1 and 3.2 were one file, with the compiled index helpers, before
    they were two and the helpers moved to a given file: the student's solutions
    go to the file each kernel factory now lives in, their own helper comes
    along, and the course's helpers are not brought back into the student file
    (they would shadow the given ones)."""
    import subprocess
    import sys

    old, new = tmp_path / "old", tmp_path / "new"
    release(ROOT, new, through=3)
    release(ROOT, old, through=3)
    single = (ROOT / FAST[0]).read_text().rstrip("\n")
    for relative in (FAST[1], GIVEN_MOVED):
        text = (ROOT / relative).read_text()
        for first, last in definitions(text).values():
            single += "\n\n\n" + "\n".join(text.splitlines()[first - 1 : last])
    (old / FAST[0]).write_text(single + "\n" + HELPER)
    (old / FAST[1]).unlink()
    registry = (old / "kindling" / "tasks.toml").read_text()
    files = f'files = ["{FAST[1]}"]'
    assert registry.count(files) == 1
    (old / "kindling" / "tasks.toml").write_text(
        registry.replace(files, f'files = ["{FAST[0]}"]')
    )

    actions = dict(sync(old, new))
    assert actions[FAST[0]] == actions[FAST[1]] == "merged"
    for relative in FAST:
        text = (new / relative).read_text()
        assert "# TODO: Task 3." not in text, relative
        reference = (ROOT / relative).read_text()
        for name, span in definitions(reference).items():
            theirs = definitions(text)[name]
            lines = text.splitlines()[theirs[0] - 1 : theirs[1]]
            assert lines == reference.splitlines()[span[0] - 1 : span[1]], name
    text = (new / FAST[0]).read_text()
    assert set(definitions(text)) == set(definitions((ROOT / FAST[0]).read_text())) | {
        "_my_helper"
    }
    assert "def _my_helper" not in (new / FAST[1]).read_text()
    check = (
        "from module0_fundamentals import operators\n"
        "from module3_fast_ops import fast_matmul, fast_ops\n"
        "fast_ops.tensor_map(operators.neg); fast_matmul.tensor_matrix_multiply()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", check], cwd=new, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
