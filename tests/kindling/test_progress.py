"""The per-task progress summary, run on a tiny project of its own."""

import json
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET

import pytest

from kindling.pytest_plugin import classify, stub_task

TESTS = """
import pytest


def stub():
    raise NotImplementedError("Task 0.3: implement map")


@pytest.mark.task0_1
def test_done():
    assert 1 + 1 == 2


@pytest.mark.task0_3
def test_todo_a():
    stub_03()


@pytest.mark.task0_3
def test_todo_b():
    stub_03()


@pytest.mark.task0_3
def test_passes_anyway():
    assert True


def stub_03():
    raise NotImplementedError("Task 0.3: implement map")


@pytest.mark.task0_4
def test_blocked():
    stub()


@pytest.mark.task0_5
def test_failing():
    assert 1 == 2


@pytest.mark.task1_1
def test_wrapped_stub():
    try:
        stub()
    except NotImplementedError as error:
        raise RuntimeError("kernel failed") from error


def test_without_task():
    assert True
"""


# The plugins named as in the course's pyproject.toml (not discovered).
PLUGINS = "addopts = --disable-plugin-autoload -p xdist.plugin -p hypothesispytest\n"


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("progress")
    (root / "conftest.py").write_text('pytest_plugins = ["kindling.pytest_plugin"]\n')
    (root / "test_things.py").write_text(textwrap.dedent(TESTS))
    (root / "pytest.ini").write_text(
        f"[pytest]\n{PLUGINS}markers =\n"
        + "".join(f"    task{t}: x\n" for t in ["0_1", "0_3", "0_4", "0_5", "1_1"])
    )
    return root


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_summary_table_and_json(project, workers):
    out = project / f"run{len(workers)}.json"
    result = subprocess.run(
        [sys.executable, "-m", "pytest", f"--kindling-json={out}", *workers],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert "Kindling progress" in result.stdout
    assert "next: Task 0.3 (Higher-order functions): python -m pytest -m task0_3" in (
        result.stdout
    )
    tasks = {t["id"]: t for t in json.loads(out.read_text())["tasks"]}
    assert {k: v["status"] for k, v in tasks.items()} == {
        "0.1": "done",
        "0.3": "todo",
        "0.4": "blocked by 0.3",
        "0.5": "failing",
        "1.1": "blocked by 0.3",
    }
    assert (tasks["0.3"]["passed"], tasks["0.3"]["failed"]) == (1, 2)
    assert "assert 1 == 2" in tasks["0.5"]["first_failure"]


def test_classify_rules():
    assert classify("1.2", 3, 0, []) == "done"
    assert classify("1.2", 0, 0, []) == "no tests"
    assert classify("1.2", 0, 2, ["1.2", "1.2"]) == "todo"
    assert classify("1.2", 0, 2, ["1.2", ""]) == "failing"
    assert classify("1.2", 0, 2, ["0.3", "0.1"]) == "blocked by 0.1"
    # A failure from an earlier task's stub blocks the task, whatever else failed.
    assert classify("1.2", 0, 2, ["1.2", "0.1"]) == "blocked by 0.1"
    assert classify("1.4", 5, 3, ["1.4", "", "1.2"]) == "blocked by 1.2"
    assert classify("1.2", 1, 2, ["1.2", "1.2"]) == "todo"


def test_stub_task_looks_through_causes_and_groups():
    error = NotImplementedError("Task 2.3: implement zip")
    wrapped = RuntimeError("outer")
    wrapped.__cause__ = error
    assert stub_task(wrapped) == "2.3"

    class Group(Exception):  # the shape of ExceptionGroup (Python 3.11+)
        exceptions = (ValueError(), error)

    assert stub_task(Group("many")) == "2.3"
    assert stub_task(NotImplementedError("abstract method")) is None


def test_a_stub_failure_is_one_line_and_real_failures_keep_tracebacks(project):
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--kindling-json="],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    out = result.stdout
    # The stub raised at line 6 of the test file stops two tests, reached directly
    # (test_blocked) or through a wrapping error (test_wrapped_stub).
    assert "Task 0.3: implement map — test_things.py:6 (2 tests)" in out
    assert "Task 0.3: implement map — test_things.py:30 (2 tests)" in out
    assert "not implemented yet (4 test(s) stopped at a stub)" in out
    # No traceback of a stub failure, no short-summary line for it ...
    assert "raise NotImplementedError" not in out
    assert "kernel failed" not in out
    assert "_ test_todo_a _" not in out
    assert "FAILED test_things.py::test_todo_a" not in out
    # ... but the real failure keeps its traceback, and the counts stay right.
    assert "_ test_failing _" in out and "E       assert 1 == 2" in out
    assert "FAILED test_things.py::test_failing" in out
    assert "5 failed, 3 passed" in out


def test_only_the_first_failure_at_a_tasks_stub_keeps_its_traceback(project, tmp_path):
    # The grader shows the first failure at each task's stub; formatting the others
    # (never printed) would cost ~10 ms a test: they carry the exception alone.
    xml = tmp_path / "report.xml"
    subprocess.run(
        [sys.executable, "-m", "pytest", "--kindling-json=", f"--junitxml={xml}"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    failures = {
        case.get("name"): case.find("failure")
        for case in ET.parse(xml).iter("testcase")
        if case.find("failure") is not None
    }
    first, later = failures["test_todo_a"], failures["test_todo_b"]
    assert "raise NotImplementedError" in first.text and "stub_03()" in first.text
    assert "raise NotImplementedError" not in later.text
    assert "Task 0.3: implement map" in later.text
    message = "NotImplementedError: Task 0.3: implement map"
    assert first.get("message") == later.get("message") == message
    # A real failure keeps its traceback, whatever stubs were met before it.
    assert "assert 1 == 2" in failures["test_failing"].text


HYPOTHESIS_STUB = """
import pytest
from hypothesis import given, settings, strategies as st


@pytest.mark.task0_1
@settings(print_blob=True, derandomize=True, max_examples=5)
@given(st.floats())
def test_neg(x):
    raise NotImplementedError("Task 0.1: implement neg")
"""


def test_a_hypothesis_stub_failure_has_no_boilerplate(tmp_path):
    (tmp_path / "conftest.py").write_text(
        'pytest_plugins = ["kindling.pytest_plugin"]\n'
    )
    (tmp_path / "test_h.py").write_text(HYPOTHESIS_STUB)
    (tmp_path / "pytest.ini").write_text(
        f"[pytest]\n{PLUGINS}markers =\n    task0_1: x\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--kindling-json="],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = [line for line in result.stdout.splitlines() if line.startswith("Task")]
    assert lines == ["Task 0.1: implement neg — test_h.py:10 (1 test)"]
    assert "reproduce_failure" not in result.stdout
    assert "Falsifying example" not in result.stdout
    assert "1 failed" in result.stdout


STUDENT_FILE = "module0_fundamentals/operators.py"


def test_progress_is_cumulative_and_marks_stale_results(project, tmp_path):
    from kindling.progress import read_progress

    root = tmp_path / "student"
    root.mkdir()
    for name in ("conftest.py", "test_things.py", "pytest.ini"):
        (root / name).write_text((project / name).read_text())
    (root / STUDENT_FILE).parent.mkdir()
    (root / STUDENT_FILE).write_text("def mul(x, y):\n    return x * y\n")

    def pytest_run(marker):
        return subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-m", marker],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=120,
        )

    first = pytest_run("task0_1")
    assert first.returncode == 0, first.stdout
    store = root / ".kindling" / "progress.json"
    after_first = read_progress(store, root)["tasks"]
    assert set(after_first) == {"0.1"}
    assert after_first["0.1"]["status"] == "done"
    assert after_first["0.1"]["stale_files"] == []

    (root / STUDENT_FILE).write_text("def mul(x, y):\n    return y * x\n")
    second = pytest_run("task0_3")
    assert "earlier results kept for 1 other task(s)" in second.stdout
    assert (
        "stale (code changed since): 0.1; re-check them: python -m pytest -m task0_1"
        in second.stdout
    )
    payload = read_progress(store, root)
    tasks = payload["tasks"]
    assert set(tasks) == {"0.1", "0.3"}  # the first run's result is still there
    assert tasks["0.1"]["time"] == after_first["0.1"]["time"]
    assert tasks["0.1"]["stale_files"] == [STUDENT_FILE]
    assert tasks["0.3"]["status"] == "todo" and tasks["0.3"]["stale_files"] == []
    assert payload["last_run"]["tasks"] == ["0.3"]
    assert tasks["0.3"]["timestamp"] >= tasks["0.1"]["timestamp"]


def test_next_task_follows_the_dependency_order():
    from kindling.progress import next_task
    from kindling.registry import load_registry

    registry = load_registry()
    done = {t: {"status": "done"} for t in ("0.1", "0.2", "0.3", "0.4", "0.5")}
    # Module 0 done, Task 1.4 blocked by Task 1.2: 1.2 is next (not 1.1, never run).
    results = dict(done, **{"1.4": {"status": "blocked by 1.2"}})
    assert next_task(registry, results).id == "1.2"
    # Only the blocked task's result known: still its blocker.
    assert next_task(registry, {"1.4": {"status": "blocked by 1.2"}}).id == "1.2"
    # Nothing unfinished known: the first task whose dependencies are done.
    assert next_task(registry, {}).id == "0.1"
    assert next_task(registry, done).id == "1.1"
    # A task whose latest result is done is never next, stale or not (the summary
    # lists stale tasks with their re-check command).
    stale = dict(done, **{"0.4": {"status": "done", "stale_files": ["x.py"]}})
    assert next_task(registry, stale).id == "1.1"
    # A stale result of another status is no evidence either way.
    failing = dict(done, **{"1.1": {"status": "failing", "stale_files": ["x.py"]}})
    assert next_task(registry, failing).id == "1.1"  # never done: the first to do
    everything = {t.id: {"status": "done"} for t in registry}
    assert next_task(registry, everything) is None


# Task 0.1 has three tests in two files, Task 0.2 (scored by mutation) one, Task 0.3
# one in a file that also makes backend variants (which name no marker).
PARTIAL_A = """
import pytest


@pytest.mark.task0_1
def test_mul():
    assert 2 * 3 == 6


@pytest.mark.task0_1
def test_add():
    assert 2 + 3 == 5


@pytest.mark.task0_2
def test_property():
    assert True
"""

PARTIAL_B = """
import pytest


@pytest.mark.task0_3
def test_fails_first():
    assert 1 == 2


@pytest.mark.task0_1
def test_neg():
    assert -(2) == -2
"""

PARTIAL_C = """
import pytest

from variants import backend_params


@pytest.mark.parametrize("name", backend_params("0.4"))
def test_variant(name):
    assert name in ("simple", "fast")
"""

# Stands for tests/backends.py: the variants take their markers from here.
VARIANTS = """
import pytest

OWNERS = {"simple": None, "fast": "0.5"}


def backend_params(task):
    return [
        pytest.param(
            name, marks=getattr(pytest.mark, "task" + (owner or task).replace(".", "_"))
        )
        for name, owner in OWNERS.items()
    ]
"""


@pytest.fixture(scope="module")
def partial_project(tmp_path_factory):
    root = tmp_path_factory.mktemp("judged")
    (root / "conftest.py").write_text('pytest_plugins = ["kindling.pytest_plugin"]\n')
    (root / "tests").mkdir()
    (root / "tests" / "test_a.py").write_text(PARTIAL_A)
    (root / "tests" / "test_b.py").write_text(PARTIAL_B)
    (root / "tests" / "test_c.py").write_text(PARTIAL_C)
    (root / "tests" / "variants.py").write_text(VARIANTS)
    (root / "pytest.ini").write_text(
        f"[pytest]\n{PLUGINS}testpaths = tests\nmarkers =\n"
        + "".join(f"    task{t}: x\n" for t in ["0_1", "0_2", "0_3", "0_4", "0_5"])
    )
    return root


def run_in(root, *args, json_name="progress.json"):
    """pytest in ``root``: its output and the tasks it recorded."""
    out = root / json_name
    out.unlink(missing_ok=True)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", f"--kindling-json={out}", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    tasks = {t["id"]: t for t in json.loads(out.read_text())["tasks"]}
    return result.stdout, tasks


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_a_run_that_leaves_out_some_of_a_tasks_tests_is_partial(
    partial_project, workers
):
    out, tasks = run_in(partial_project, "-m", "task0_1", "-k", "mul or add", *workers)
    assert tasks["0.1"]["status"] == "partial"
    assert (tasks["0.1"]["passed"], tasks["0.1"]["expected"]) == (2, 3)
    assert "partial: Task 0.1 ran 2 of its 3 tests" in out
    assert "run every test of it: python -m pytest -m task0_1" in out
    assert "points of the tasks run: 0/10" in out
    assert "tasks done: 0 of the 1 in this run" in out
    assert "next: Task 0.1" in out
    # All of them: done.
    out, tasks = run_in(partial_project, "-m", "task0_1", *workers)
    assert tasks["0.1"]["status"] == "done" and tasks["0.1"]["expected"] == 3
    assert "partial:" not in out
    assert "points of the tasks run: 10/10" in out


@pytest.mark.parametrize(
    "args",
    [
        ["tests/test_a.py::test_mul"],
        ["tests/test_a.py"],  # Task 0.1 has a test in test_b.py too
        ["--deselect", "tests/test_b.py::test_neg"],
        ["-x", "-p", "no:randomly"],  # stops at test_b's first test, before test_neg
    ],
    ids=["node-id", "one-file", "deselect", "exitfirst"],
)
def test_node_ids_files_deselection_and_exitfirst_are_partial(partial_project, args):
    out, tasks = run_in(partial_project, *args)
    assert tasks["0.1"]["status"] == "partial", out
    assert "(points" not in out and "0/10" in out


def test_files_that_hold_all_of_a_tasks_tests_judge_it(partial_project):
    # test_a.py and test_b.py hold every test of 0.1; test_c.py's variants name no
    # marker, yet they hold Task 0.4's tests (named by id) and 0.5's (the variants
    # helper names it): only a run that collects test_c.py can judge those.
    out, tasks = run_in(partial_project, "tests/test_a.py", "tests/test_b.py")
    assert tasks["0.1"]["status"] == "done"
    out, tasks = run_in(partial_project, "tests/test_c.py")
    assert tasks["0.4"]["status"] == tasks["0.5"]["status"] == "done"
    out, tasks = run_in(partial_project, "tests/test_c.py::test_variant")
    assert tasks["0.4"]["status"] == "partial"  # a node id: never known whole
    out, tasks = run_in(partial_project, "tests", "-m", "task0_1 or task0_4")
    assert tasks["0.1"]["status"] == "done" and tasks["0.4"]["status"] == "done"


def test_a_count_from_an_earlier_whole_run_judges_a_run_of_some_files(
    partial_project, tmp_path
):
    # test_d.py uses Task 0.1's marker, in no test: read without running, it might
    # hold a test of 0.1, so a run of test_a.py and test_b.py cannot know it has
    # them all, until a run that collects every file has counted the task.
    root = tmp_path / "project"
    root.mkdir()
    for name in ("conftest.py", "pytest.ini"):
        (root / name).write_text((partial_project / name).read_text())
    (root / "tests").mkdir()
    for path in (partial_project / "tests").glob("*.py"):
        (root / "tests" / path.name).write_text(path.read_text())
    (root / "tests" / "test_d.py").write_text(
        "import pytest\n\nMARK = pytest.mark.task0_1  # (used by no test)\n"
    )
    store = root / "kept.json"

    def run(*args):
        result = subprocess.run(
            [sys.executable, "-m", "pytest", f"--kindling-json={store}", *args],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=120,
        )
        run.stdout = result.stdout
        return json.loads(store.read_text())

    files = ("tests/test_a.py", "tests/test_b.py")
    assert {t["id"]: t for t in run(*files)["tasks"]}["0.1"]["status"] == "partial"
    counted = run("-m", "task0_4")  # collects everything; counts every task
    assert counted["collected"]["0.1"] == 3 and counted["collected"]["0.4"] == 1
    assert {t["id"]: t for t in run(*files)["tasks"]}["0.1"]["status"] == "done"
    # Two of the three, counted: partial, which leaves the done result of the
    # same code in place.
    kept = {t["id"]: t for t in run("tests/test_a.py")["tasks"]}["0.1"]
    assert "this run ran 2 of its 3 tests and they passed" in run.stdout
    assert (kept["status"], kept["expected"]) == ("done", 3)


def test_may_hold_task_reads_markers_and_variant_ids():
    from kindling.pytest_plugin import may_hold_task

    other = "task0_" + "10"  # (spelled out, a marker the registry would not know)
    assert may_hold_task("import pytest\n@pytest.mark.task0_1\ndef t(): pass\n", "0.1")
    assert not may_hold_task(
        f"import pytest\n@pytest.mark.{other}\ndef t(): ...", "0.1"
    )
    assert may_hold_task('pytestmark = getattr(pytest.mark, "task0_1")', "0.1")
    # In a string (a generated test project), a marker is no test of this file.
    assert not may_hold_task('SOURCE = "@pytest.mark.task0_1"', "0.1")
    assert may_hold_task('P = backend_params("2.3")', "2.3")
    assert not may_hold_task('P = backend_params("2.3")', "2.4")
    assert may_hold_task('P = backend_params("2.3")', "3.1", {"3.1", "3.3"})
    assert not may_hold_task('X = "2.3"', "2.3")  # an id alone makes no test
    assert may_hold_task("def broken(:", "0.1")  # unreadable: it might


def test_a_task_scored_by_mutation_shows_how_to_get_its_score(partial_project):
    out, tasks = run_in(partial_project, "-m", "task0_2")
    assert tasks["0.2"]["status"] == "done"  # its tests pass: that is all it says
    row = next(line for line in out.splitlines() if line.startswith("0.2 "))
    assert row.endswith("see below") and "10/10" not in out
    assert "Task 0.2 is scored by mutation testing" in out
    assert "its score: python -m kindling grade --tasks 0.2" in out
    assert "points of the tasks run" not in out  # nothing else was run


def test_stale_tasks_get_one_command_and_the_course_count(partial_project, tmp_path):
    from kindling.progress import merge_results
    from kindling.registry import load_registry

    root = tmp_path / "student"
    root.mkdir()
    (root / STUDENT_FILE).parent.mkdir()
    (root / STUDENT_FILE).write_text("x = 1\n")
    store = root / "progress.json"
    done = [{"id": t, "status": "done"} for t in ("0.1", "0.3", "0.4")]
    merge_results(store, done, root, load_registry())
    (root / STUDENT_FILE).write_text("x = 2\n")  # 0.1 and 0.3 watch this file
    for name in ("conftest.py", "pytest.ini"):
        (root / name).write_text((partial_project / name).read_text())
    (root / "tests").mkdir()
    (root / "tests" / "test_a.py").write_text(PARTIAL_A)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", f"--kindling-json={store}", "-m", "task0_2"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    out = result.stdout
    assert (
        "stale (code changed since): 0.1, 0.3; re-check them: "
        'python -m pytest -m "task0_1 or task0_3"'
    ) in out
    total = len(load_registry())
    # 0.2 (this run) and 0.4 (kept, current) are done; stale results do not count.
    assert f"tasks done: 1 of the 1 in this run; 2 of the {total} in the course" in out


def test_next_points_forward_past_done_tasks():
    """After a green 3.2, next is 3.3, whatever the staleness of 3.1's result (3.2
    depends on it); with every task done but one, that one."""
    from kindling.progress import next_task, task_key
    from kindling.registry import load_registry

    registry = load_registry()
    done = {t.id: {"status": "done"} for t in registry if task_key(t.id) <= (3, 2)}
    assert next_task(registry, done).id == "3.3"
    done["3.1"] = {"status": "done", "stale_files": ["fast_ops.py::tensor_map"]}
    assert next_task(registry, done).id == "3.3"
    for results in (done, {"3.2": {"status": "done"}}):
        upcoming = next_task(registry, results)
        assert upcoming is None or results.get(upcoming.id, {}).get("status") != "done"


FAST_OPS = """
def tensor_map(fn):
    \"\"\"Task 3.1.\"\"\"
    # BEGIN SOLUTION 3.1
    return fn
    # END SOLUTION


GIVEN = 1
"""

FAST_MATMUL = """
def tensor_matrix_multiply():
    # BEGIN SOLUTION 3.2
    return None
    # END SOLUTION
"""


def test_staleness_follows_a_tasks_own_code_and_its_dependencies(tmp_path):
    """A result goes stale when the definitions holding its task's regions, or
    those of the tasks it depends on, change; not when the rest of the file does
    (3.2, in fast_matmul.py, depends on 3.1, in fast_ops.py)."""
    from kindling.progress import merge_results, read_progress, task_units
    from kindling.registry import load_registry

    registry = load_registry()
    path = tmp_path / "module3_fast_ops" / "fast_ops.py"
    path.parent.mkdir()
    path.write_text(FAST_OPS)
    matmul = path.with_name("fast_matmul.py")
    matmul.write_text(FAST_MATMUL)
    units = task_units(tmp_path, registry)
    assert units["3.1"] == {"module3_fast_ops/fast_ops.py": ["tensor_map"]}
    mm = "module3_fast_ops/fast_matmul.py"
    assert units["3.2"] == {mm: ["tensor_matrix_multiply"]}
    store = tmp_path / "progress.json"
    done = [{"id": t, "status": "done"} for t in ("3.1", "3.2")]
    merge_results(store, done, tmp_path, registry)

    def stale():
        tasks = read_progress(store, tmp_path)["tasks"]
        return {t: tasks[t]["stale_files"] for t in ("3.1", "3.2")}

    assert stale() == {"3.1": [], "3.2": []}
    path.write_text(FAST_OPS.replace("GIVEN = 1", "GIVEN = 2"))  # given code
    assert stale() == {"3.1": [], "3.2": []}
    matmul.write_text(FAST_MATMUL.replace("return None", "return 3"))  # Task 3.2's
    mm += "::tensor_matrix_multiply"
    assert stale() == {"3.1": [], "3.2": [mm]}
    path.write_text(FAST_OPS.replace("return fn", "return fn  # edited"))  # Task 3.1's
    tm = "module3_fast_ops/fast_ops.py::tensor_map"
    assert stale() == {"3.1": [tm], "3.2": [mm, tm]}  # sorted


def test_an_edition_reads_its_tasks_code_from_the_manifest(tmp_path):
    """The edition has no region markers: ``kindling release`` records where each
    task's code lives in the manifest, and staleness follows it."""
    from kindling.progress import merge_results, read_progress, task_units
    from kindling.registry import load_registry

    registry = load_registry()
    path = tmp_path / "module3_fast_ops" / "fast_ops.py"
    path.parent.mkdir()
    edition = FAST_OPS.replace("    # BEGIN SOLUTION 3.1\n", "")
    path.write_text(edition)
    units = {"3.1": {"module3_fast_ops/fast_ops.py": ["tensor_map"]}}
    (tmp_path / ".kindling-manifest.json").write_text(
        json.dumps({"protected": {}, "units": units})
    )
    assert task_units(tmp_path, registry)["3.1"] == units["3.1"]
    store = tmp_path / "progress.json"
    merge_results(store, [{"id": "3.1", "status": "done"}], tmp_path, registry)
    path.write_text(edition.replace("GIVEN = 1", "GIVEN = 2"))
    assert read_progress(store, tmp_path)["tasks"]["3.1"]["stale_files"] == []
    path.write_text(edition.replace("return fn", "return fn(1)"))
    tm = "module3_fast_ops/fast_ops.py::tensor_map"
    assert read_progress(store, tmp_path)["tasks"]["3.1"]["stale_files"] == [tm]


def test_release_records_each_tasks_code_in_the_manifest():
    from kindling.progress import region_units

    text = FAST_OPS + FAST_MATMUL + "\n\nclass Layer:\n    def forward(self):\n"
    text += "        # BEGIN SOLUTION 4.6\n        return 1\n        # END SOLUTION\n"
    assert region_units(text) == {
        "3.1": ["tensor_map"],
        "3.2": ["tensor_matrix_multiply"],
        "4.6": ["Layer.forward"],
    }


def test_a_partial_run_never_unmarks_a_done_task(partial_project, tmp_path):
    """``pytest tests/module1`` (here: one file of Task 0.1's two) after a
    whole run of 0.1 on the same code: 0.1 stays done, in the file, the table and
    ``next:``. After its code changes, the partial result is what is known."""
    from kindling.progress import read_progress

    root = tmp_path / "student"
    root.mkdir()
    for name in ("conftest.py", "pytest.ini"):
        (root / name).write_text((partial_project / name).read_text())
    (root / "tests").mkdir()
    for name in ("test_a.py", "test_b.py", "test_c.py", "variants.py"):
        (root / "tests" / name).write_text(
            (partial_project / "tests" / name).read_text()
        )
    (root / STUDENT_FILE).parent.mkdir()
    (root / STUDENT_FILE).write_text("def mul(x, y):\n    return x * y\n")
    store = root / "progress.json"

    def run(*args):
        return subprocess.run(
            [sys.executable, "-m", "pytest", f"--kindling-json={store}", *args],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=120,
        ).stdout

    run("-m", "task0_1")
    assert read_progress(store, root)["tasks"]["0.1"]["status"] == "done"
    out = run("tests/test_a.py")
    assert read_progress(store, root)["tasks"]["0.1"]["status"] == "done", out
    assert "done (earlier run)" in out and "it stays done" in out
    assert "tasks done: 2 of the 2 in this run" in out  # 0.1 and 0.2
    assert "next: Task 0.1" not in out
    assert "partial: Task 0.1" not in out
    (root / STUDENT_FILE).write_text("def mul(x, y):\n    return y * x\n")
    out = run("tests/test_a.py")
    assert read_progress(store, root)["tasks"]["0.1"]["status"] == "partial", out
    assert "partial: Task 0.1" in out


def test_failures_of_tests_without_a_task_are_named_beside_the_counts(tmp_path):
    """A full run whose tasks are all done but where a test of given code fails
    says so under the counts, naming the test, instead of leaving "failed" in
    pytest's last line unexplained."""
    (tmp_path / "conftest.py").write_text(
        'pytest_plugins = ["kindling.pytest_plugin"]\n'
    )
    (tmp_path / "pytest.ini").write_text(
        f"[pytest]\n{PLUGINS}markers =\n    task0_1: x\n"
    )
    (tmp_path / "test_given.py").write_text(
        "import pytest\n\n\n@pytest.mark.task0_1\ndef test_task():\n    pass\n\n\n"
        "def test_given_code():\n    assert 1 == 2\n"
    )
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "--kindling-json=", "test_given.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    assert "tasks done: 1 of the 1 in this run" in out
    assert (
        "1 failed test(s) belong to no task (tests of given code, in no task's count "
        "above; the course's bug, or a task's code they reach): "
        "test_given.py::test_given_code"
    ) in out
