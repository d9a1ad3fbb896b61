"""A class graded in parallel and in shards (issue 30, item 7)."""

import json
from pathlib import Path

import pytest

from kindling.cli import main
from kindling_staff.grade_batch import in_shard, parse_shard
from kindling_staff.release import release
from kindling.sandbox import probe, why_not
from tests.kindling.editions import reference, submission

ROOT = Path(__file__).resolve().parents[2]
MODULE = "module0_fundamentals/module.py"
OPERATORS = "module0_fundamentals/operators.py"


def test_shards_are_disjoint_cover_the_batch_and_stay_put():
    names = [f"student-{n:03d}" for n in range(60)]
    parts = [{n for n in names if in_shard(n, (k, 4))} for k in range(1, 5)]
    assert set().union(*parts) == set(names)
    assert sum(len(p) for p in parts) == len(names)
    assert all(parts)  # 60 names spread over all four
    more = names + ["zoe", "adam"]  # a student added changes no other's shard
    assert [
        {n for n in more if in_shard(n, (k, 4))} - {"zoe", "adam"} for k in (1, 2, 3, 4)
    ] == parts


@pytest.mark.parametrize("text", ["0/2", "3/2", "1", "a/b", "1/0"])
def test_a_malformed_shard_is_refused(text):
    from kindling.grade import GradeError

    with pytest.raises(GradeError):
        parse_shard(text)


def without_timing(batch: dict) -> dict:
    return {
        name: {k: v for k, v in r.items() if k != "timing"} for name, r in batch.items()
    }


@pytest.mark.skipif(probe() is None, reason=f"no sandbox: {why_not()}")
def test_two_shards_merged_equal_the_whole_batch_graded_in_parallel(tmp_path):
    edition = tmp_path / "edition"
    release(ROOT, edition)
    batch = tmp_path / "batch"
    batch.mkdir()
    for name, files in (
        ("ada", {MODULE: reference(MODULE)}),
        ("bob", {}),
        ("cy", {MODULE: reference(MODULE) + "\nraise ImportError('no')\n"}),
    ):
        (batch / name).mkdir()
        submission(edition, batch / name, files)
    for entry in batch.iterdir():  # submission() wrote <name>/submission
        (entry / "submission").rename(tmp_path / "moved")
        entry.rmdir()
        (tmp_path / "moved").rename(entry)
    common = [f"--batch={batch}", f"--source={edition}", "--tasks=0.4"]
    out = tmp_path / "out"
    assert (
        main(
            [
                "grade",
                *common,
                "--jobs=2",
                f"--json={out / 'all.json'}",
                f"--batch-csv={out / 'all.csv'}",
            ]
        )
        == 0
    )
    for k in (1, 2):
        assert (
            main(
                [
                    "grade",
                    *common,
                    "--jobs=1",
                    f"--shard={k}/2",
                    f"--json={out / f'{k}.json'}",
                ]
            )
            == 0
        )
    assert (
        main(
            [
                "grade",
                "merge",
                str(out / "1.json"),
                str(out / "2.json"),
                f"--json={out / 'merged.json'}",
                f"--batch-csv={out / 'merged.csv'}",
            ]
        )
        == 0
    )
    whole = json.loads((out / "all.json").read_text())
    merged = json.loads((out / "merged.json").read_text())
    assert sorted(whole) == ["ada", "bob", "cy"]
    assert without_timing(merged) == without_timing(whole)
    assert (out / "merged.csv").read_text() == (out / "all.csv").read_text()
    statuses = {name: r["tasks"][0]["status"] for name, r in whole.items()}
    assert statuses == {"ada": "done", "bob": "todo", "cy": "failing"}


# A batch folder is graded from inside itself (`kindling grade --batch . --jobs 2`):
# a submission folder named like a module the child grader imports, holding code
# that writes a marker and forges the child's report (10/10 for its author, 0 for
# everyone else).
IMPOSTOR = """
import pathlib
import sys

pathlib.Path({marker!r}).write_text("student code ran in the grader")
forged = {{"tasks": [{{"id": "0.1", "title": "t", "marker": "task0_1",
    "scoring": "all-or-nothing", "max_points": 10, "points": 10,
    "status": "done"}}]}}
for arg in sys.argv:
    if arg.startswith("--json="):
        pathlib.Path(arg[len("--json="):]).write_text(__import__("json").dumps(forged))
sys.exit(0)
"""


@pytest.mark.skipif(probe() is None, reason=f"no sandbox: {why_not()}")
@pytest.mark.parametrize(
    "name, files",
    [
        ("kindling", ("__init__.py", "__main__.py")),  # replaces `python -m kindling`
        ("json", ("__init__.py",)),  # a pure-Python module every grader imports
    ],
)
def test_no_submission_folder_is_importable_by_a_child_grader(
    tmp_path, monkeypatch, name, files
):
    edition = tmp_path / "edition"
    release(ROOT, edition, through=0)
    batch = tmp_path / "batch"
    batch.mkdir()
    submission(edition, tmp_path / "honest", {OPERATORS: reference(OPERATORS)})
    (tmp_path / "honest" / "submission").rename(batch / "honest")
    marker = tmp_path / "escaped.txt"
    (batch / name).mkdir()
    for file in files:
        (batch / name / file).write_text(IMPOSTOR.format(marker=str(marker)))
    monkeypatch.chdir(batch)  # graded from the batch folder itself
    out = tmp_path / "out.json"
    args = ["grade", "--batch=.", "--jobs=2", f"--source={edition}", "--tasks=0.1"]
    assert main([*args, f"--json={out}"]) == 0
    assert not marker.exists()
    graded = json.loads(out.read_text())
    assert graded["honest"]["tasks"][0]["status"] == "done"
    assert graded["honest"]["score"] == 10
    assert graded[name]["tasks"][0]["status"] == "todo"
    assert graded[name]["score"] == 0


# At import, 48 busy processes, each in a session of its own, then a wait: the
# task's whole time limit spent taking CPU from whoever else is graded meanwhile.
HOG = """
import os
import time

for _ in range(48):
    if os.fork() == 0:
        os.setsid()
        while True:
            pass
time.sleep(3600)
"""


@pytest.mark.long
@pytest.mark.skipif(probe() is None, reason=f"no sandbox: {why_not()}")
def test_a_busy_submission_cannot_make_another_time_out(tmp_path):
    """Under --jobs 2, a submission starting CPU-bound processes (24 did) made the
    other job's tasks time out: `done` alone and beside a harmless neighbour, 0 points
    beside the attacker (no CPU share per job, wall-clock limits)."""
    edition = tmp_path / "edition"
    release(ROOT, edition, through=0)
    batch = tmp_path / "batch"
    batch.mkdir()
    for name, text in (
        ("a_hog", (edition / OPERATORS).read_text() + HOG),
        ("b_victim", reference(OPERATORS)),
    ):
        submission(edition, tmp_path / name, {OPERATORS: text})
        (tmp_path / name / "submission").rename(batch / name)
    out = tmp_path / "out.json"
    args = [f"--batch={batch}", "--jobs=2", f"--source={edition}", "--tasks=0.1"]
    assert main(["grade", *args, "--timeout=20", f"--json={out}"]) == 0
    graded = json.loads(out.read_text())
    assert graded["b_victim"]["tasks"][0]["status"] == "done"
    assert graded["b_victim"]["score"] == 10
    assert graded["a_hog"]["tasks"][0]["status"] == "timeout"
    assert graded["a_hog"]["score"] == 0


def test_every_job_has_an_equal_cpu_share_where_cgroups_allow():
    from kindling.grade_limits import CPU_SHARES, CPU_WEIGHT, JobCgroup, available

    if available() is None:
        pytest.skip("no cgroups here: jobs have rlimits only")
    jobs = [JobCgroup.create(64 << 20) for _ in range(2)]
    try:
        shares = [
            (folder / name).read_text().strip()
            for job in jobs
            for folder in job.folders
            for name in ("cpu.shares", "cpu.weight")
            if (folder / name).exists()
        ]
    finally:
        for job in jobs:
            job.remove()
    if not shares:
        pytest.skip("the CPU controller is not available to the grader here")
    assert shares in ([str(CPU_SHARES)] * 2, [str(CPU_WEIGHT)] * 2)


def test_a_child_graders_import_path_is_the_parents_without_the_batch(
    tmp_path, monkeypatch
):
    import sys

    from kindling_staff.grade_batch import child_path, package_root

    batch = tmp_path / "batch"
    (batch / "alice").mkdir(parents=True)
    monkeypatch.chdir(batch)
    extra = tmp_path / "site"  # e.g. the user's site-packages, or PYTHONPATH
    monkeypatch.setattr(
        sys, "path", ["", str(batch), str(batch / "alice"), str(extra), *sys.path]
    )
    path = child_path(batch)
    assert path[0] == package_root()
    assert str(extra) in path
    assert not any(p in ("", str(batch), str(batch / "alice")) for p in path)
