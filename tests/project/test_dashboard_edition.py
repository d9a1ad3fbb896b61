# kindling: instructor-only
"""The dashboard in a student edition, where every task is a stub: each page says
which task to write and which ``pytest -m`` command checks it, and nothing crashes."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.project.apptest import (
    every_view,
    open_app,
    problems,
    texts,
    todo_boxes,
    visit,
)

pytestmark = pytest.mark.usefixtures("isolated_imports")
# Views that run no student code until a button is pressed (timings, benchmark
# files, launch arithmetic): they have nothing to report as "not implemented".
NO_CODE_ON_OPEN = {
    ("dashboard/module3.py", "Backends"),
    ("dashboard/module3.py", "Benchmarks"),
    ("dashboard/module3.py", "Parallel diagnostics"),
    ("dashboard/module3.py", "CUDA launch"),
}
TODO = re.compile(
    r"Not implemented yet: Task (\d+)\.(\d+)\b.*pytest -m task\1_\2\b", re.S
)


@pytest.fixture
def app(edition):
    return open_app(edition)


def test_the_app_runs_the_editions_code(app, edition) -> None:
    import project.dashboard.common as common

    assert common.ROOT == edition


def test_every_view_says_what_to_implement_instead_of_crashing(app) -> None:
    views = every_view(app)
    assert len(views) >= 15
    for page, section in views:
        visit(app, page, section)
        assert not problems(app), (page, section, problems(app))
        if page.endswith("progress.py") or (page, section) in NO_CODE_ON_OPEN:
            continue
        boxes = todo_boxes(app)
        assert boxes, (page, section, texts(app)[:500])
        for box in boxes:
            assert TODO.search(box), box


def test_the_progress_page_points_at_the_first_task(app) -> None:
    assert not problems(app)
    assert "Next: Task 0.1 · Scalar operators" in texts(app)
    assert "pytest -m task0_1" in texts(app)
    table = app.dataframe[0].value
    assert set(table["Status"]) <= {"○ not run"}  # no test has run here yet


@pytest.fixture
def own_edition(edition, tmp_path) -> Path:
    """A copy of the edition for a test that writes results into it."""
    copy = tmp_path / "kindling-student"
    shutil.copytree(
        edition, copy, ignore=shutil.ignore_patterns(".kindling", "__pycache__")
    )
    return copy


def row_of(app, task: str):
    table = app.dataframe[0].value
    return table[table["Task"] == task].iloc[0]


def test_running_the_tests_of_a_task_from_the_page(own_edition) -> None:
    app = open_app(own_edition)
    app.selectbox(key="progress_scope").set_value("Task 1.1 · Numerical derivatives")
    app.button(key="progress_run_button").click().run(timeout=300)
    assert not problems(app)
    row = row_of(app, "1.1")
    assert row["Status"] == "✎ todo"
    assert row["Tests"] > 0 and row["Passed"] == 0 and row["Earned"] == "0.0"
    assert row["Last run"]  # the time of the result
    assert "task(s) reported" in texts(app)
    # The task just found unfinished comes next (tasks never run are no evidence).
    assert "Next: Task 1.1 · Numerical derivatives" in texts(app)

    # The result is kept (a new session reads it) until the task's code changes
    # (an edit elsewhere in its file leaves it current), and then it is stale.
    again = open_app(own_edition)
    assert row_of(again, "1.1")["Status"] == "✎ todo"
    student_file = own_edition / "module1_scalar_autodiff" / "differences.py"
    student_file.write_text(student_file.read_text() + "\n# my notes\n")
    assert row_of(open_app(own_edition), "1.1")["Status"] == "✎ todo"
    text = student_file.read_text()
    stub = text.index('raise NotImplementedError("Task 1.1')
    line_start = text.rindex("\n", 0, stub) + 1
    indent = text[line_start:stub]
    student_file.write_text(
        text[:line_start] + indent + "# my work\n" + text[line_start:]
    )
    later = open_app(own_edition)
    assert not problems(later)
    assert row_of(later, "1.1")["Status"] == "✎ todo (stale)"


def test_every_task_done_and_each_bar_scaled_to_its_task(own_edition) -> None:
    from kindling.grade import read_registry
    from kindling.progress import PROGRESS_FILE, merge_results

    registry = read_registry(own_edition)
    results = [
        {"id": t.id, "title": t.title, "points": t.points, "passed": 3}
        | {"failed": 0, "total": 3, "status": "done"}
        for t in registry
    ]
    merge_results(own_edition / PROGRESS_FILE, results, own_edition, registry)
    app = open_app(own_edition)
    assert not problems(app)
    assert "Every task is done. Well done!" in texts(app)
    assert not re.search("[\U0001f300-\U0001faff]", texts(app))  # no emoji
    table = app.dataframe[0].value
    # a 5-point task's bar is full too; Task 0.2 is scored by mutation, which only
    # `kindling grade` runs: a test run earns it no bar and no number
    graded = [t.scoring != "mutation" for t in registry]
    shares = list(table["Share"])
    assert [s for s, g in zip(shares, graded) if g] == [1.0] * sum(graded)
    assert all(s is None or s != s for s, g in zip(shares, graded) if not g)
    earned = [e for e, g in zip(table["Earned"], graded) if g]
    assert earned == [f"{t.points:.1f}" for t, g in zip(registry, graded) if g]


def test_a_task_scored_by_mutation_says_how_to_score_it(own_edition) -> None:
    """Task 0.2 done by its tests earns its points from the grader's mutants, which
    the page does not run: its row says so and how to score it, never 0.0."""
    from kindling.grade import read_registry
    from kindling.progress import PROGRESS_FILE, merge_results

    registry = read_registry(own_edition)
    [task] = [t for t in registry if t.scoring == "mutation"]
    result = {"id": task.id, "title": task.title, "points": task.points}
    result |= {"passed": 4, "failed": 0, "total": 4, "status": "done"}
    merge_results(own_edition / PROGRESS_FILE, [result], own_edition, registry)
    app = open_app(own_edition)
    assert not problems(app)
    row = row_of(app, task.id)
    assert row["Status"].endswith("done")
    assert row["Earned"].startswith("scored by mutation: run ")
    assert row["Earned"].endswith(f"-m kindling grade --tasks {task.id}")
    assert "0.0" not in row["Earned"]


def test_a_sandbox_names_the_missing_task(app) -> None:
    visit(app, "dashboard/module1.py", "Autodiff graph")
    app.text_input(key="m1_g").set_value("x * y + z").run()
    assert not problems(app)
    [box] = todo_boxes(app)
    assert "Task 1.2" in box and "pytest -m task1_2" in box
    assert "module1_scalar_autodiff/scalar.py" in box


def test_a_button_that_runs_student_code_names_the_task(app) -> None:
    visit(app, "dashboard/module3.py", "Parallel diagnostics")
    app.button(key="m3_diag").click().run()
    assert not problems(app)
    [box] = todo_boxes(app)
    assert "Task 3.1" in box and "pytest -m task3_1" in box


def test_an_edition_without_the_later_modules(early_edition) -> None:
    app = open_app(early_edition)
    assert not problems(app)
    assert set(app.dataframe[0].value["Task"]) == {
        "0.1", "0.2", "0.3", "0.4", "0.5",
        "1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7",
    }  # fmt: skip
    for module in (2, 3, 4):
        visit(app, f"dashboard/module{module}.py")
        assert not problems(app)
        assert f"Module {module} is not part of this checkout" in texts(app)
        assert not app.tabs  # the page stops before its sections
    visit(app, "dashboard/module1.py", "Autodiff graph")
    assert not problems(app) and todo_boxes(app)
