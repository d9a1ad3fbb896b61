"""``kindling grade`` against a student who tries to cheat (issue 15).

Each test reproduces one attack on the grader as a real submission (a student
edition with an attacking student file) and shows that it fails: no unearned points,
no altered report, no student code inside the grader, no leak, no crash. Every test
grades only the cheap Module 0 tasks. They need bubblewrap (``apt-get install
bubblewrap``), which the grader itself requires.
"""

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kindling.grade import grade
from kindling_staff.grade_batch import grade_batch
from kindling_staff.release import release
from kindling.sandbox import probe, why_not
from tests.kindling.editions import (
    FORGE_REPORTS,
    plant_few_mutants,
    reference,
    submission,
)

ROOT = Path(__file__).resolve().parents[2]
OPERATORS = "module0_fundamentals/operators.py"
MODULE = "module0_fundamentals/module.py"
PROPERTIES = "tests/module0/test_properties.py"

pytestmark = pytest.mark.skipif(probe() is None, reason=f"no sandbox: {why_not()}")


@pytest.fixture(scope="module")
def edition(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("attacks") / "edition"
    release(ROOT, out)
    return out


def stub(edition: Path, relative: str) -> str:
    return (edition / relative).read_text()


def by_id(report) -> dict:
    return {t.id: t for t in report.tasks}


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- forged verdicts ----------------------------------------------------------------


PATCH_PROGRESS = """

import kindling.pytest_plugin as _progress

_progress.classify = lambda *args, **kwargs: "done"
_progress.TaskResult.status = property(lambda self: "done")
"""


def test_forged_passing_reports_earn_nothing(edition, tmp_path):
    """Every report forged to "passed" over stubs: the session's claims are all
    passes, and the values checked outside the sandbox decide (0 points)."""
    attack = stub(edition, OPERATORS) + FORGE_REPORTS
    student = submission(edition, tmp_path, {OPERATORS: attack})
    report = grade(student, source=ROOT, tasks="0.1,0.4")
    graded = by_id(report)
    assert graded["0.1"].passed == graded["0.1"].total  # forged: all "passed"
    assert graded["0.1"].status == "failing", graded["0.1"].message
    assert "values checked outside the sandbox" in graded["0.1"].message
    assert graded["0.1"].details["values"]["matched"] == 0
    assert report.score == 0


def test_patching_the_progress_plugin_changes_nothing(edition, tmp_path):
    attack = stub(edition, OPERATORS) + PATCH_PROGRESS
    student = submission(edition, tmp_path, {OPERATORS: attack})
    (task,) = grade(student, source=edition, tasks="0.1").tasks
    assert task.status == "todo" and task.points == 0
    assert task.total == 121 and task.passed < task.total  # Task 0.1's tests


FORGE_PIPE = """

def _forge():
    import os

    lies = (
        b'{"returncode": 0, "timed_out": false, "seconds": 0}\\n'
        b'{"event": "report", "nodeid": "x", "when": "call"}\\n'
        b'not json at all\\n{"event": "finish", "exitstatus": 0}\\n'
    )
    for fd in range(3, 256):
        try:
            os.write(fd, lies)
        except OSError:
            pass
    for pid in os.listdir("/proc"):
        for fd in range(3, 16):
            try:
                with open(f"/proc/{pid}/fd/{fd}", "wb") as pipe:
                    pipe.write(lies)
            except (OSError, ValueError):
                pass


_neg = neg
_forged = []


def neg(x):
    if not _forged:  # once: the stream is forged from then on (and it stays quick)
        _forged.append(True)
        _forge()
    return _neg(x)
"""


def test_forged_runner_messages_crash_only_their_task(edition, tmp_path):
    files = {OPERATORS: reference(OPERATORS) + FORGE_PIPE, MODULE: reference(MODULE)}
    student = submission(edition, tmp_path, files)
    report = grade(student, source=edition, tasks="0.1,0.4")
    graded = by_id(report)
    assert graded["0.1"].status in ("crashed", "tampered"), graded["0.1"].message
    assert graded["0.1"].points == 0
    assert graded["0.4"].status == "done", graded["0.4"].message
    assert not report.errors


# -- what the student's code can see and reach ---------------------------------------

FIND_REFERENCE = """

def _steal():
    import os
    import sys

    candidates = [{source!r}, os.getcwd(), os.path.dirname(os.getcwd())]
    for module in list(sys.modules.values()):  # the editable install's finder
        for folder in dict(getattr(module, "MAPPING", {{}}) or {{}}).values():
            candidates.append(os.path.dirname(str(folder)))
    for root in candidates:
        path = os.path.join(root, "module0_fundamentals", "operators.py")
        try:
            text = open(path).read()
        except OSError:
            continue
        if "BEGIN " + "SOLUTION" in text:  # the reference, not this very file
            exec(compile(text, path, "exec"), globals())
            return


_steal()
"""


def test_the_reference_solutions_are_out_of_reach(edition, tmp_path):
    attack = stub(edition, OPERATORS) + FIND_REFERENCE.format(source=str(ROOT))
    student = submission(edition, tmp_path, {OPERATORS: attack})
    (task,) = grade(student, source=ROOT, tasks="0.1").tasks
    assert task.status == "todo", task.message
    assert task.points == 0


READ_MISTAKES = """

def neg(x):
    import os

    found = [
        path
        for path in ("tests/mistakes/module0.py", "tests/mutants/module0.py")
        if os.path.exists(path)
    ]
    raise AssertionError(f"instructor data: {found} in {sorted(os.listdir('tests'))}")
"""


def test_the_mistakes_list_is_out_of_reach(edition, tmp_path):
    """Each plausible mistake's ``find`` (tests/mistakes/) is a snippet of a
    reference solution: no test session reads the list, so a graded tree holds
    neither it nor the mutants' list, while the task's own tests are there."""
    attack = stub(edition, OPERATORS) + READ_MISTAKES
    student = submission(edition, tmp_path, {OPERATORS: attack})
    (task,) = grade(student, source=ROOT, tasks="0.1").tasks
    assert "instructor data: [] in" in task.message, task.message
    assert "'module0'" in task.message and "'mistakes'" not in task.message


SNOOP = """

def _snoop():
    import os

    seen = {{
        "uid": os.getuid(),
        "token": os.environ.get("KINDLING_FAKE_TOKEN"),
        "home": os.path.isdir({home!r}),
        "source": os.path.isdir({source!r}),
        "submission": os.path.isdir({submission!r}),
    }}
    raise AssertionError(f"snooped {{seen}}")


def neg(x):
    _snoop()
"""


def test_student_code_runs_as_another_user_without_environment_or_files(
    edition, tmp_path, monkeypatch
):
    monkeypatch.setenv("KINDLING_FAKE_TOKEN", "tok-5ecret")
    where = tmp_path / "submission"
    attack = stub(edition, OPERATORS) + SNOOP.format(
        home=str(Path.home()), source=str(edition), submission=str(where)
    )
    student = submission(edition, tmp_path, {OPERATORS: attack})
    report = grade(student, source=edition, tasks="0.1")
    (task,) = report.tasks
    assert "snooped" in task.message, task.message
    assert "tok-5ecret" not in task.message and "'token': None" in task.message
    assert "'source': False" in task.message
    assert "'submission': False" in task.message
    if "user" in report.sandbox:
        assert f"'uid': {os.getuid()}," not in task.message
        assert "'uid': 65534" in task.message


POISON = """

def _poison():
    for path in {targets!r}:
        try:
            with open(path, "a") as f:
                f.write("\\nraise SystemExit('poisoned')\\n")
        except OSError:
            pass


_poison()
"""


def test_pristine_tests_and_the_grader_cannot_be_edited(edition, tmp_path):
    targets = ["tests/conftest.py", "kindling/grade.py", "kindling/pytest_plugin.py"]
    targets += [str(edition / t) for t in targets]
    before = {t: digest(edition / t) for t in targets[:3]}
    attack = stub(edition, OPERATORS) + POISON.format(targets=targets)
    files = {OPERATORS: attack, MODULE: reference(MODULE)}
    student = submission(edition, tmp_path, files)
    report = grade(student, source=edition, tasks="0.1,0.4")
    graded = by_id(report)
    assert graded["0.1"].status == "todo", graded["0.1"].message
    assert graded["0.4"].status == "done", graded["0.4"].message
    assert {t: digest(edition / t) for t in targets[:3]} == before


def test_symlinks_into_the_source_are_refused(edition, tmp_path):
    student = submission(edition, tmp_path, {})
    shutil.rmtree(student / "module0_fundamentals")
    (student / "module0_fundamentals").symlink_to(ROOT / "module0_fundamentals")
    report = grade(student, source=edition, tasks="0.1,0.4")
    assert [t.status for t in report.tasks] == ["todo", "todo"]
    assert report.score == 0
    assert any("symbolic link" in why and OPERATORS in why for why in report.refused)

    linked = submission(edition, tmp_path / "file", {})
    (linked / OPERATORS).unlink()
    (linked / OPERATORS).symlink_to(ROOT / OPERATORS)
    report = grade(linked, source=edition, tasks="0.1")
    assert report.tasks[0].status == "todo" and report.score == 0
    assert any(OPERATORS in why for why in report.refused)


# -- nothing outlives a task ---------------------------------------------------------

ESCAPE = """

def _escape():
    import os
    import time

    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            # Tries every tenth of a second for a minute: a process that outlived
            # its sandbox would write within moments of the grader's return.
            for _ in range(600):
                time.sleep(0.1)
                for path in {targets!r}:
                    try:
                        with open(path, "w") as f:
                            f.write("rewritten by a process that escaped")
                    except OSError:
                        pass
            os._exit(0)
        os._exit(0)


_escape()
"""


def test_a_process_that_escapes_with_setsid_dies_with_its_sandbox(edition, tmp_path):
    out = tmp_path / "out"
    marker = tmp_path / "escaped.txt"
    reports = [out / "r.json", out / "r.md", out / "results.json", marker]
    attack = stub(edition, OPERATORS) + ESCAPE.format(targets=list(map(str, reports)))
    student = submission(edition, tmp_path, {OPERATORS: attack})
    from kindling.cli import main

    args = ["grade", f"--submission={student}", f"--source={edition}", "--tasks=0.1"]
    args += [f"--json={out / 'r.json'}", f"--markdown={out / 'r.md'}"]
    args += [f"--gradescope={out / 'results.json'}"]
    assert main(args) == 0
    before = {p: p.read_text() for p in reports[:3]}
    time.sleep(1)  # an escaped process would have tried ten times by now
    assert not marker.exists()
    assert {p: p.read_text() for p in reports[:3]} == before
    assert json.loads(before[reports[0]])["tasks"][0]["status"] == "todo"


def test_in_a_batch_one_student_cannot_touch_the_next(edition, tmp_path):
    batch = tmp_path / "batch"
    batch.mkdir()
    honest = submission(edition, batch / "tmp-b", {OPERATORS: reference(OPERATORS)})
    honest.rename(batch / "b_honest")
    honest = batch / "b_honest"
    marker = tmp_path / "escaped.txt"
    targets = [str(honest / OPERATORS), str(marker)]
    attack = stub(edition, OPERATORS) + ESCAPE.format(targets=targets)
    cheat = submission(edition, batch / "tmp-a", {OPERATORS: attack})
    cheat.rename(batch / "a_cheat")
    shutil.rmtree(batch / "tmp-a")
    shutil.rmtree(batch / "tmp-b")
    before = digest(honest / OPERATORS)
    reports = grade_batch(batch, source=edition, tasks="0.1")
    time.sleep(1)  # an escaped process would have tried ten times by now
    assert reports["a_cheat"].tasks[0].status == "todo"
    assert reports["b_honest"].tasks[0].status == "done"
    assert reports["b_honest"].score == 10
    assert digest(honest / OPERATORS) == before and not marker.exists()


# -- the shared cache ----------------------------------------------------------------


def test_a_planted_collection_cache_is_ignored(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("KINDLING_CACHE_DIR", str(cache))
    # A Module 0 edition: its tests are collected (twice, in an empty cache) in a
    # fraction of the time the whole course's take.
    edition = tmp_path / "module0"
    release(ROOT, edition, through=0)
    stubbed = submission(edition, tmp_path / "stub", {})
    assert grade(stubbed, source=edition, tasks="0.3").tasks[0].status == "todo"
    (entry,) = (cache / "kindling").glob("collection-*.json")
    data = json.loads(entry.read_text())
    fake = {"0.3": ["tests/module0/test_operators.py::test_nothing_here"]}
    # A planted list: signed with a key of the attacker's, or not signed at all.
    entry.write_text(json.dumps({**data, "tests": fake, "mac": "0" * 64}))
    (cache / "kindling" / "secret.key").write_bytes(b"guessed")
    report = grade(stubbed, source=edition, tasks="0.3")
    assert report.tasks[0].status == "todo" and report.tasks[0].total == 20
    solved = submission(edition, tmp_path / "ref", {OPERATORS: reference(OPERATORS)})
    (task,) = grade(solved, source=edition, tasks="0.3").tasks
    assert task.status == "done" and task.points == task.max_points


# -- feedback ------------------------------------------------------------------------

LEAK_TEST = """
import pytest

pytestmark = pytest.mark.task0_2


def test_leaks_the_operators():
    assert False, open("module0_fundamentals/operators.py").read()[::-1][::-1]
"""


def test_feedback_never_carries_the_reference(tmp_path):
    student = tmp_path / "submission"
    (student / "tests" / "module0").mkdir(parents=True)
    (student / PROPERTIES).write_text(LEAK_TEST)
    (task,) = grade(student, source=ROOT, tasks="0.2").tasks
    assert task.status == "failing" and task.points == 0
    assert "test_leaks_the_operators" in task.message
    for line in ("BEGIN SOLUTION", "z / (1.0 + z)", "return x * y", "math.exp"):
        assert line not in task.message, task.message


def test_hidden_tests_never_reach_the_feedback(tmp_path):
    # An instructor source of Module 0 alone (every later module and its tests left
    # out): the grader collects its tests in a moment, not the whole course's.
    source = tmp_path / "source"
    skipped = (".git", ".venv", "__pycache__", "module[1-9]*", "project")
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*skipped))
    hidden = "tests/module0/test_extra_hidden.py"
    (source / hidden).write_text(
        "import pytest\n\npytestmark = pytest.mark.task0_1\n\n"
        'EXPECTED_SECRET_VALUE = "hidden-7c1f-answer"\n\n\n'
        "def test_hidden():\n    assert EXPECTED_SECRET_VALUE\n"
    )
    leak = f"\n\ndef neg(x):\n    raise AssertionError(open({hidden!r}).read())\n"
    student = tmp_path / "student"
    (student / "module0_fundamentals").mkdir(parents=True)
    (student / OPERATORS).write_text(reference(OPERATORS) + leak)
    (task,) = grade(student, source=source, tasks="0.1").tasks
    assert task.status == "failing"
    assert "hidden-7c1f-answer" not in task.message, task.message


# What the sandbox can read of the tests in its tree: every file's path (outside
# tests/kindling, which no task runs), as a count and a digest, and the names in
# tests/module0 (where the grader used to plant Task 0.1's canaries).
LIST_TESTS = """

def neg(x):
    import hashlib
    import os

    names = []
    for folder, dirs, files in os.walk("tests"):
        dirs[:] = [d for d in dirs if d not in ("__pycache__", "kindling")]
        names += [os.path.join(folder, name) for name in files]
    names.sort()
    digest = hashlib.sha256("\\n".join(names).encode()).hexdigest()[:16]
    here = [n.rsplit("/", 1)[-1] for n in names if n.startswith("tests/module0/")]
    raise AssertionError(f"TREE {len(names)} {digest} {' '.join(here)}")
"""


def test_a_run_holds_the_published_and_hidden_tests_and_nothing_else(tmp_path):
    """Nothing is planted in a run's tree (the canary tests once were, and could be
    told from hidden tests by their text): its tests/ holds the source's files
    under their own names, the hidden test too, and the task's collection is the
    published tests and the hidden one."""
    import hashlib
    import re

    from kindling.grade_cache import tree_files

    source = tmp_path / "source"
    skipped = (".git", ".venv", "__pycache__", "module[1-9]*", "project")
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*skipped))
    (source / "tests/module0/test_extra_hidden.py").write_text(
        "import pytest\n\npytestmark = pytest.mark.task0_1\n\n\n"
        "def test_hidden():\n    assert True\n"
    )
    names = sorted(
        relative
        for relative in tree_files(source)
        if relative.startswith("tests/") and not relative.startswith("tests/kindling/")
    )
    student = tmp_path / "student"
    (student / "module0_fundamentals").mkdir(parents=True)
    (student / OPERATORS).write_text(reference(OPERATORS) + LIST_TESTS)
    (task,) = grade(student, source=source, tasks="0.1").tasks
    found = re.search(r"TREE (\d+) ([0-9a-f]{16}) ([\w. ]+)", task.message)
    assert found, task.message
    here = sorted(n.rsplit("/", 1)[-1] for n in names if n.startswith("tests/module0/"))
    assert found[3].split() == here  # test_extra_hidden.py under its own name
    digest = hashlib.sha256("\n".join(names).encode()).hexdigest()[:16]
    assert (int(found[1]), found[2]) == (len(names), digest)
    assert task.total == 121 + 1  # Task 0.1's published tests and the hidden one


# -- mutation grading cannot be told from the base run -------------------------------

DETECTOR = """
import sys

import pytest

from module0_fundamentals import operators as ops

pytestmark = pytest.mark.task0_2


def test_detects_mutants():
    assert "kindling.mutation" not in sys.modules
    assert not any("mutant" in arg for arg in sys.argv)
    assert ops.add(1.0, 2.0) == 3.0 or True
"""


def test_a_test_that_looks_for_the_mutation_machinery_earns_nothing(
    tmp_path, monkeypatch
):
    planted = plant_few_mutants(monkeypatch)
    student = tmp_path / "submission"
    (student / "tests" / "module0").mkdir(parents=True)
    (student / PROPERTIES).write_text(DETECTOR)
    (task,) = grade(student, source=ROOT, tasks="0.2").tasks
    assert task.points == 0, task.details
    assert task.details["killed"] == []
    assert task.details["survived"] == [m.name for m in planted]


def test_base_and_mutant_runs_are_the_same_command(tmp_path):
    from kindling.grade_runner import Runner
    from kindling.mutation import (
        PRACTICE_MUTANTS,
        TARGET_FILE,
        mutate_source,
        mutation_job,
    )

    tree = tmp_path / "tree"
    (tree / TARGET_FILE).parent.mkdir(parents=True)
    text = reference(OPERATORS)
    (tree / TARGET_FILE).write_text(text)
    before = os.stat(tree / TARGET_FILE)
    runner = Runner(tree, probe(), tmp_path)
    args = ["-x", "-m", "task0_2", PROPERTIES]
    commands = []
    for source in (text, mutate_source(text, PRACTICE_MUTANTS[0])):
        job = mutation_job(args, tree, tmp_path / "run", 10, 0, source)
        assert job.binds == []  # written in place: no mount tells the runs apart
        assert (tree / TARGET_FILE).read_text() == source
        assert os.stat(tree / TARGET_FILE).st_mtime_ns == before.st_mtime_ns
        command, _ = runner.command(job, 5)
        commands.append(" ".join(command))
        assert not any("mutant" in arg or "mutation" in arg for arg in job.args)
    assert commands[0] == commands[1]


# -- interrupting the grader ---------------------------------------------------------

HANGS = """

def reduce(fn, start):  # never returns (asleep: spinning would take a core)
    import time

    while True:
        time.sleep(60)
"""


def test_sigterm_leaves_a_valid_partial_report_and_no_temporary_tree(edition, tmp_path):
    student = submission(edition, tmp_path, {OPERATORS: reference(OPERATORS) + HANGS})
    temp = tmp_path / "tmp"
    temp.mkdir()
    out = tmp_path / "r.json"
    command = [sys.executable, "-m", "kindling", "grade", f"--submission={student}"]
    command += [f"--source={edition}", "--tasks=0.1,0.3", "--timeout=120"]
    command += [f"--json={out}"]
    env = {**os.environ, "TMPDIR": str(temp)}
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        try:
            tasks = json.loads(out.read_text())["tasks"]
            if tasks[0]["status"] == "done":
                break
        except (OSError, ValueError):
            pass
        time.sleep(0.5)
    time.sleep(1)
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=60)
    result = json.loads(out.read_text())
    assert result["interrupted"] is True
    assert result["tasks"][0]["status"] == "done"
    assert result["tasks"][1]["message"] == "not graded: the grading was interrupted"
    assert not list(temp.glob("kindling-grade-*"))
