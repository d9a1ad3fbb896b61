"""``kindling sync``: a student's solved modules travel into the next edition."""

from pathlib import Path

import pytest

from kindling.cli import main
from kindling.registry import load_registry
from kindling_staff.release import release
from kindling.sync import SyncError, sync

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
