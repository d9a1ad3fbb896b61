"""``kindling grade``'s terminal table: what a student reads without ``--json``."""

from __future__ import annotations

from kindling.grade import GradeReport
from kindling.grade_reports import format_table
from kindling.grade_verdict import TaskGrade


def _mutation_grade(killed, survived, timed_out=()):
    grade = TaskGrade("0.2", "Property tests", "task0_2", "mutation", 10)
    grade.status = "failing" if survived or timed_out else "done"
    total = len(killed) + len(survived) + len(timed_out)
    grade.points = round(10 * len(killed) / total, 2)
    grade.details = {
        "mutants": total,
        "killed": list(killed),
        "survived": list(survived),
        "timed_out": list(timed_out),
    }
    grade.message = "your tests caught ...\n  - the last bug's description"
    return grade


def test_the_table_says_how_many_planted_bugs_were_caught_and_names_survivors():
    grade = _mutation_grade(["a", "b", "c"], ["sigmoid_wrong_scale"], ["exp_loops"])
    text = format_table(GradeReport("src", "sub", tasks=[grade]))
    assert "Task 0.2: 3 of 5 planted bugs caught" in text
    assert "survived (your tests still pass): sigmoid_wrong_scale" in text
    assert "timed out (not a catch): exp_loops" in text
    assert "the last bug's description" not in text  # the counts replace it


def test_a_task_that_caught_every_bug_shows_its_count_and_no_survivors():
    text = format_table(GradeReport("s", "t", tasks=[_mutation_grade(["a", "b"], [])]))
    assert "Task 0.2: 2 of 2 planted bugs caught" in text
    assert "survived" not in text


def test_other_tasks_keep_the_last_line_of_their_message():
    grade = TaskGrade("1.1", "Differences", "task1_1", "tests", 5)
    grade.status, grade.message = "failing", "first line\nAssertionError: off by one"
    text = format_table(GradeReport("s", "t", tasks=[grade]))
    assert "Task 1.1 failing: AssertionError: off by one" in text
