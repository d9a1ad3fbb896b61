"""``kindling grade``: the grader runs the student's code, and nothing else of theirs.

Every test cuts a real student edition of this repository into a temporary
directory, writes a submission (the edition plus a few student files) and grades it.
Grading runs real pytest sessions in processes of their own, so these tests stay on
the quick Module 0 tasks (and the stubs of Module 1), with a short time limit where a
task must hang; the two ``slow`` tests grade every task.
"""

import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from kindling.cli import main
from kindling.grade import GradeError, Grader, clean_message, grade
from kindling.grade_reports import to_gradescope, to_junit, to_markdown
from kindling.progress import dependency_order
from kindling.registry import load_registry
from kindling.regions import MANIFEST, find_regions, source_files
from kindling_staff.release import _excluded, release
from kindling.sandbox import probe, why_not
from tests.kindling.editions import plant_few_mutants, reference, submission

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = load_registry()
MODULE0 = [t for t in REGISTRY if t.module == 0]
# Two tasks of Module 1 whose tests are quick to run on stubs: enough to show that a
# later module earns nothing (the slow tests below grade every task).
LATER = [REGISTRY["1.1"], REGISTRY["1.3"]]
OPERATORS = "module0_fundamentals/operators.py"
MODULE = "module0_fundamentals/module.py"
needs_sandbox = pytest.mark.skipif(probe() is None, reason=f"no sandbox: {why_not()}")


def ids(tasks) -> str:
    return ",".join(t.id for t in tasks)


@pytest.fixture(scope="module")
def edition(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("grade") / "edition"
    release(ROOT, out)
    return out


def by_id(report) -> dict:
    return {t.id: t for t in report.tasks}


#: The tasks in the order a student can do them (each after those it depends on).
ORDER = [task.id for task in dependency_order(REGISTRY)]


def unfinished(result) -> bool:
    """``todo``, or ``blocked-by`` the stub of a task that comes before it in
    dependency order (issue 16's semantics; Task 4.5's sentiment model embeds words
    with Task 4.6's ``nn.Embedding``, so 4.6 comes first)."""
    if result.status == "todo":
        return True
    blocker = result.status[len("blocked-by ") :]
    return (
        result.status.startswith("blocked-by ")
        and blocker in ORDER
        and ORDER.index(blocker) < ORDER.index(result.id)
    )


# -- the verdicts -------------------------------------------------------------------


@needs_sandbox
def test_fresh_edition_grades_every_task_todo(edition):
    # Module 0 here; the slow test below grades every task of a fresh edition.
    report = grade(edition, source=edition, tasks=ids(MODULE0))
    for result in report.tasks:
        assert unfinished(result), (result.id, result.status, result.message)
        assert result.points == 0 and result.total > 0
        # The message names the stub that decided the status.
        stub = result.status.replace("blocked-by ", "").replace("todo", result.id)
        if result.scoring == "mutation":
            # Task 0.2's terse feedback: the student's test and the stub's task.
            assert re.fullmatch(
                rf"test_\w+: NotImplementedError: Task {stub} still a stub",
                result.message,
            ), result.message
        else:
            assert result.message.startswith(f"Task {stub}: "), result.message
    assert report.tasks[0].status == "todo"
    assert report.score == 0 and report.max_score == sum(t.points for t in MODULE0)
    assert report.modified == [] and report.missing == [] and report.errors == []


@pytest.mark.long
@needs_sandbox
def test_solving_module0_only_earns_exactly_its_points(edition, tmp_path, monkeypatch):
    # Task 0.2 needs every planted bug caught: three make the point here (the
    # reference tests catch all of them in test_mutation.py).
    plant_few_mutants(monkeypatch)
    solved = {f: reference(f) for task in MODULE0 for f in task.files}
    student = submission(edition, tmp_path, solved)
    report = grade(student, source=edition, tasks=ids(MODULE0 + LATER))
    graded = by_id(report)
    for task in MODULE0:
        assert graded[task.id].status == "done", graded[task.id].message
        assert graded[task.id].points == task.points
        assert graded[task.id].passed == graded[task.id].total > 0
    for task in LATER:
        status = graded[task.id].status
        assert status == "todo" or status.startswith("blocked-by"), (task.id, status)
        assert graded[task.id].points == 0
    assert report.score == sum(t.points for t in MODULE0)
    assert report.modified == []


@needs_sandbox
def test_a_missing_student_file_is_graded_as_its_stub_never_the_reference(tmp_path):
    # The submission holds operators.py only. Graded against the instructor source,
    # whose module.py is the reference, Task 0.4 must still be todo.
    student = tmp_path / "partial"
    (student / "module0_fundamentals").mkdir(parents=True)
    (student / OPERATORS).write_text(reference(OPERATORS))
    report = grade(student, source=ROOT, tasks="0.1,0.4")
    graded = by_id(report)
    assert graded["0.1"].status == "done", graded["0.1"].message
    assert graded["0.4"].status == "todo", graded["0.4"].message
    assert "tests/module0/test_operators.py" in report.missing


@needs_sandbox
def test_a_one_module_edition_graded_from_the_source_has_no_changed_files(tmp_path):
    # Cut with --through 0, its registry and workflows differ from the full edition's:
    # the grader compares it with the Module 0 edition it came from.
    first = tmp_path / "module0"
    release(ROOT, first, through=0)
    report = grade(first, source=ROOT, tasks="0.3")
    assert report.tasks[0].status == "todo"
    assert report.modified == [] and report.missing == []


# -- misbehaving submissions --------------------------------------------------------

HANGS = """

def sigmoid(x: float) -> float:  # the student's sigmoid never returns
    import time

    while True:  # asleep, not spinning: the timeout is wall-clock time either way,
        time.sleep(60)  # and a spinning hang would take a core from the other tests
"""

CRASHES = """

def neg(x: float) -> float:  # reads address 0: a segmentation fault
    import ctypes

    return ctypes.string_at(0)


def map(fn):  # leaves the interpreter on the spot
    import os

    os._exit(1)
"""

SHOUTS = """

_quiet_neg = neg


def neg(x: float) -> float:  # prints 100 kB on every call: megabytes over the run
    print("x" * 100_000)
    return _quiet_neg(x)


def reduce(fn, start):  # never reaches a base case
    return reduce(fn, start)
"""

HOARDS = """

def _hoard(self):  # 2 GB: past the 1 GB memory limit of the grading run
    return bytearray(2 * 1024**3)


Module.named_parameters = _hoard
"""


@needs_sandbox
def test_a_hanging_task_times_out_and_the_others_are_graded(edition, tmp_path):
    # Task 0.1's tests call sigmoid within their first half second on an idle
    # machine; on one busy with other test suites (load 7 on 2 cores), 4 s did not
    # reach it. 10 s is ample either way.
    student = submission(edition, tmp_path, {OPERATORS: reference(OPERATORS) + HANGS})
    report = grade(student, source=edition, tasks="0.1,0.3", timeout=10)
    graded = by_id(report)
    assert graded["0.1"].status == "timeout"
    assert "did not finish within 10 s" in graded["0.1"].message
    assert "sigmoid" in graded["0.1"].message  # the test that was still running
    assert graded["0.1"].points == 0
    assert graded["0.3"].status == "done", graded["0.3"].message


@needs_sandbox
def test_a_segfault_and_os_exit_are_crashes(edition, tmp_path):
    student = submission(edition, tmp_path, {OPERATORS: reference(OPERATORS) + CRASHES})
    report = grade(student, source=edition, tasks="0.1,0.3,0.4")
    graded = by_id(report)
    assert graded["0.1"].status == "crashed"
    assert "segmentation fault" in graded["0.1"].message
    assert graded["0.3"].status == "crashed"
    assert "exited with status 1" in graded["0.3"].message
    assert graded["0.4"].status == "todo"  # graded as usual
    assert report.score == 0


def test_without_a_sandbox_crashes_are_still_crashes(edition, tmp_path):
    # --unsafe-no-sandbox: the same runner, as a plain subprocess of the grader.
    student = submission(edition, tmp_path, {OPERATORS: reference(OPERATORS) + CRASHES})
    report = grade(student, source=edition, tasks="0.1", sandbox=False)
    (task,) = report.tasks
    assert task.status == "crashed"
    assert "segmentation fault" in task.message
    assert report.sandbox.startswith("none")


@needs_sandbox
def test_recursion_memory_and_megabytes_of_output_are_graded_normally(
    edition, tmp_path
):
    files = {
        OPERATORS: reference(OPERATORS) + SHOUTS,
        MODULE: reference(MODULE) + HOARDS,
    }
    student = submission(edition, tmp_path, files)
    out = tmp_path / "result.json"
    args = ["grade", f"--submission={student}", f"--source={edition}"]
    args += ["--tasks=0.1,0.3,0.4", "--memory=1024", f"--json={out}"]
    assert main(args) == 0
    graded = {t["id"]: t for t in json.loads(out.read_text())["tasks"]}
    assert graded["0.1"]["status"] == "done", graded["0.1"]["message"]
    assert graded["0.3"]["status"] == "failing"
    assert "RecursionError" in graded["0.3"]["message"]
    assert len(graded["0.3"]["message"]) < 2000
    assert graded["0.4"]["status"] == "failing"
    assert "MemoryError" in graded["0.4"]["message"]


# -- protected files and reports -----------------------------------------------------


def task_test_file(edition: Path, marker: str) -> str:
    for path in sorted((edition / "tests").rglob("test_*.py")):
        if f"pytestmark = pytest.mark.{marker}" in path.read_text():
            return path.relative_to(edition).as_posix()
    raise AssertionError(f"no test file of {marker}")


@needs_sandbox
def test_edited_tests_have_no_effect_are_reported_and_grading_is_deterministic(
    edition, tmp_path
):
    buggy = reference(OPERATORS).replace("return x * y", "return x + y")
    assert buggy != reference(OPERATORS)
    tests = task_test_file(edition, "task0_1")
    cheat = (
        "import pytest\n\n\n@pytest.mark.task0_1\ndef test_all():\n    assert True\n"
    )
    student = submission(edition, tmp_path, {OPERATORS: buggy, tests: cheat})
    outputs = []
    for run in ("first", "second"):
        folder = tmp_path / run
        args = ["grade", f"--submission={student}", f"--source={edition}"]
        args += ["--tasks=0.1,0.4", f"--json={folder / 'r.json'}"]
        args += [f"--markdown={folder / 'r.md'}", f"--junit={folder / 'r.xml'}"]
        args += [f"--gradescope={folder / 'results.json'}"]
        assert main(args) == 0
        outputs.append(folder)

    result = json.loads((outputs[0] / "r.json").read_text())
    graded = {t["id"]: t for t in result["tasks"]}
    assert graded["0.1"]["status"] == "failing"
    assert graded["0.1"]["total"] > 1  # the pristine tests, not the student's one
    assert "mul" in graded["0.1"]["message"]
    assert result["modified_protected_files"] == [tests]
    assert result["score"] == 0 and result["max_score"] == 20

    # Identical results, byte for byte, apart from the timings.
    second = json.loads((outputs[1] / "r.json").read_text())
    assert {**result, "timing": None} == {**second, "timing": None}
    assert (outputs[0] / "r.xml").read_text() == (outputs[1] / "r.xml").read_text()

    def undated(text: str) -> str:
        return re.sub(r"(?m)^- graded: .*$", "", text)

    assert undated((outputs[0] / "r.md").read_text()) == undated(
        (outputs[1] / "r.md").read_text()
    )

    markdown = (outputs[0] / "r.md").read_text()
    assert "| 0.1 | Scalar operators | ❌ failing |" in markdown
    # Issue 16: who, when, which grader, and passed/total for every task.
    assert "- submission: `submission`" in markdown
    assert re.search(
        r"(?m)^- graded: \d{4}-\d\d-\d\d \d\d:\d\d UTC, kindling ", markdown
    )
    assert re.search(
        r"\| 0\.1 \| Scalar operators \| ❌ failing \| \d+/121 \|", markdown
    )
    assert "the pristine copies were graded" in markdown
    assert f"`{tests}`" in markdown
    suite = ET.parse(outputs[0] / "r.xml").getroot()
    assert suite.get("tests") == "2" and suite.get("failures") == "2"
    gradescope = json.loads((outputs[0] / "results.json").read_text())
    assert gradescope["score"] == 0 and isinstance(gradescope["execution_time"], int)
    for test in gradescope["tests"]:
        assert set(test) >= {"name", "score", "max_score", "status", "output"}
        assert test["visibility"] == "visible" and test["status"] == "failed"


def test_reports_render_every_status():
    from kindling.grade import GradeReport, TaskGrade

    report = GradeReport("src", "sub", modified=["tests/x.py"])
    for number, status in enumerate(
        ["done", "failing", "todo", "blocked-by 0.1", "timeout", "crashed", "tampered"]
    ):
        report.tasks.append(
            TaskGrade(
                f"0.{number + 1}",
                f"Task | {number}",
                f"task0_{number + 1}",
                "all-or-nothing",
                10,
                points=10.0 if status == "done" else 0.0,
                status=status,
                passed=3,
                total=3 if status == "done" else 4,
                message="" if status == "done" else "E   boom ``` <&>\x00",
            )
        )
    markdown = to_markdown(report)
    assert markdown.startswith("## Kindling grade: 10 / 70 points")
    assert markdown.count("\n| 0.") == 7 and "Task \\| 0" in markdown
    assert "🚫 tampered" in markdown
    assert "````text" in markdown  # a message holding ``` gets a longer fence
    junit = ET.fromstring(to_junit(report).split("\n", 1)[1])
    assert junit.get("failures") == "3" and junit.get("errors") == "3"
    gradescope = to_gradescope(report)
    assert gradescope["score"] == 10 and len(gradescope["tests"]) == 7
    assert "tests/x.py" in gradescope["output"]


def test_messages_lose_temporary_paths_and_addresses(tmp_path):
    text = f"File {tmp_path}/module0_fundamentals/operators.py at 0x7f3a9c2b1d00\n"
    cleaned = clean_message(text * 100, tmp_path, limit=300)
    assert str(tmp_path) not in cleaned and "0x7f3a" not in cleaned
    assert cleaned.startswith("File module0_fundamentals/operators.py at 0x...")
    assert len(cleaned) <= 310


def test_bad_arguments_are_clear_errors_before_any_grading(edition, tmp_path, capsys):
    with pytest.raises(GradeError, match="unknown task '9.9'"):
        Grader(edition, edition, "9.9")
    with pytest.raises(GradeError, match="not a course tree"):
        Grader(edition, tmp_path, "0.1")
    out = tmp_path / "r.json"
    missing = tmp_path / "nowhere"
    args = ["grade", f"--submission={missing}", f"--source={edition}"]
    assert main(args + [f"--json={out}"]) == 2
    printed = capsys.readouterr()
    assert "is not a directory" in printed.err
    assert "crashed" not in printed.out + printed.err  # no table of 30 crashes
    assert not out.exists()


@needs_sandbox
def test_partial_gives_proportional_points_all_or_nothing_stays_the_default(
    edition, tmp_path
):
    # neg is wrong: most of Task 0.1's tests pass, a few fail (121 tests in all).
    buggy = reference(OPERATORS).replace("    return -x\n", "    return x\n", 1)
    assert buggy != reference(OPERATORS)
    student = submission(edition, tmp_path, {OPERATORS: buggy})
    (strict,) = grade(student, source=edition, tasks="0.1").tasks
    (partial,) = grade(student, source=edition, tasks="0.1", partial=True).tasks
    assert strict.status == partial.status == "failing"
    assert 0 < strict.passed == partial.passed < strict.total == 121
    assert strict.points == 0
    assert partial.points == round(10 * partial.passed / 121, 2)


def test_the_editions_hashes_are_remembered_and_follow_the_source(
    tmp_path, monkeypatch
):
    # Graded from the instructor source, the protected files are compared with an
    # edition cut from it: once per source content (a batch shares it), never stale.
    from kindling import grade as grader
    from kindling.grade import expected_hashes, read_registry

    monkeypatch.setattr(grader, "_EDITION_HASHES", {})  # none from earlier tests
    monkeypatch.setenv("KINDLING_CACHE_DIR", str(tmp_path / "cache"))
    source = tmp_path / "source"
    skipped = shutil.ignore_patterns(".git", ".venv", "__pycache__", ".kindling")
    shutil.copytree(ROOT, source, ignore=skipped)
    registry = read_registry(source)
    student = tmp_path / "student"
    (student / "module0_fundamentals").mkdir(parents=True)
    tests = "tests/module0/test_operators.py"
    first = expected_hashes(source, student, registry, tmp_path / "cut1")
    assert tests in first and (tmp_path / "cut1" / MANIFEST).is_file()
    assert expected_hashes(source, student, registry, tmp_path / "cut2") == first
    assert not (tmp_path / "cut2").exists()  # remembered: no second edition cut
    monkeypatch.setattr(grader, "_EDITION_HASHES", {})  # another grader process
    assert expected_hashes(source, student, registry, tmp_path / "cut4") == first
    assert not (tmp_path / "cut4").exists()  # signed on disk: no cut either
    (source / tests).write_text((source / tests).read_text() + "\n# edited\n")
    edited = expected_hashes(source, student, registry, tmp_path / "cut3")
    assert edited[tests] != first[tests]
    assert {k: v for k, v in edited.items() if k != tests} == {
        k: v for k, v in first.items() if k != tests
    }


# -- the registry and the overlay agree ----------------------------------------------


def test_every_solution_region_lies_in_a_student_file_of_its_task():
    # The grader overlays only the registry's student files: a region anywhere else
    # would be graded with its reference solution in place.
    wrong = []
    for path in source_files(ROOT):
        relative = path.relative_to(ROOT).as_posix()
        if path.suffix != ".py" or _excluded(relative, REGISTRY.release_exclude):
            continue
        for region in find_regions(path.read_text(), relative, REGISTRY):
            if relative not in REGISTRY[region.task].files:
                wrong.append(f"{relative}:{region.begin} (Task {region.task})")
    assert not wrong, f"regions outside the registry's files of their task: {wrong}"


def test_the_edition_manifest_protects_everything_but_student_files(edition):
    protected = json.loads((edition / MANIFEST).read_text())["protected"]
    student = {f for task in REGISTRY for f in task.files}
    assert not student & set(protected)
    assert "kindling/grade.py" in protected and "tests/conftest.py" in protected
    assert ".github/workflows/classroom.yml" in protected


@pytest.mark.slow
@needs_sandbox
def test_a_fresh_edition_is_todo_on_every_task_with_tests(edition):
    report = grade(edition, source=edition, tasks="all")
    graded = [t for t in report.tasks if t.status != "no tests"]
    wrong = {t.id: t.status for t in graded if not unfinished(t)}
    assert not wrong
    assert report.score == 0


@pytest.mark.slow
@needs_sandbox
def test_reference_solutions_get_full_marks_on_every_task_with_tests():
    report = grade(ROOT, source=ROOT, tasks="all")
    graded = [t for t in report.tasks if t.status != "no tests"]
    failed = {t.id: (t.status, t.message[-300:]) for t in graded if t.status != "done"}
    assert not failed
    assert all(t.points == t.max_points for t in graded)
    assert re.fullmatch(r"[0-9.]+", str(report.score))


@needs_sandbox
def test_batch_grades_every_submission_into_one_csv(edition, tmp_path):
    import csv

    folder = tmp_path / "batch"
    folder.mkdir()
    submission(edition, folder / "tmp-a", {OPERATORS: reference(OPERATORS)}).rename(
        folder / "alice"
    )
    submission(edition, folder / "tmp-b", {}).rename(folder / "bob")
    for leftover in ("tmp-a", "tmp-b"):
        shutil.rmtree(folder / leftover)
    table, everything = tmp_path / "grades.csv", tmp_path / "grades.json"
    args = ["grade", f"--batch={folder}", f"--source={edition}", "--tasks=0.3"]
    assert main(args + [f"--batch-csv={table}", f"--json={everything}"]) == 0
    rows = {row["submission"]: row for row in csv.DictReader(table.open())}
    assert float(rows["alice"]["score"]) == 5 and rows["alice"]["0.3 status"] == "done"
    assert float(rows["bob"]["score"]) == 0 and rows["bob"]["0.3 status"] == "todo"
    reports = json.loads(everything.read_text())
    assert reports["alice"]["tasks"][0]["passed"] == 20


def test_the_grader_reads_any_forged_event_stream_without_raising():
    from kindling.grade_runner import parse_events

    honest = [
        {"event": "start", "nodeid": "t.py::a"},
        {"event": "report", "nodeid": "t.py::a", "when": "call", "outcome": "passed"},
        {"event": "finish", "exitstatus": 0},
    ]
    session = parse_events(b"\n".join(json.dumps(e).encode() for e in honest))
    assert session.problem is None and session.exitstatus == 0
    assert session.outcomes["t.py::a"].outcome == "passed"
    forged = [
        b'{"returncode": 0, "timed_out": false}',
        b"not json",
        b"[1, 2]",
        b'{"event": "report", "nodeid": 7, "outcome": "passed", "when": "call"}',
        b'{"event": "report", "nodeid": "x", "outcome": "won", "when": "call"}',
        b'{"event": "collected", "items": [[1, 2, 3]]}',
        b'{"event": "finish", "exitstatus": "0"}',
        b'{"event": "report", "nodeid": "t.py::a", "when": "call", "outcome": "passed"}'
        * 2,
        b"\xff\xfe" * 10,
    ]
    for line in forged:
        session = parse_events(line)
        assert session.problem, line
        assert session.exitstatus is None
    twice = b'{"event": "report", "nodeid": "a", "when": "call", "outcome": "passed"}\n'
    assert "two passing reports" in parse_events(twice * 2).problem
    late = b'{"event": "finish", "exitstatus": 1}\n' + twice
    assert "after the end" in parse_events(late).problem
