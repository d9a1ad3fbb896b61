"""Attacks on ``kindling grade`` as real submissions: weakening Hypothesis,
recognising mutant text, sleeping past a mutant's time limit, forging by file
name, leaking reference text through a node id.

Each test grades a student edition with one attacking student file, and only the
cheap Module 0 tasks. They need bubblewrap, which the grader itself requires.
"""

from pathlib import Path

import pytest

from kindling.grade import grade
from kindling_staff.release import release
from kindling.sandbox import probe, why_not
from tests.kindling.editions import reference, submission

ROOT = Path(__file__).resolve().parents[2]
OPERATORS = "module0_fundamentals/operators.py"

pytestmark = pytest.mark.skipif(probe() is None, reason=f"no sandbox: {why_not()}")


@pytest.fixture(scope="module")
def edition(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("attacks") / "edition"
    release(ROOT, out)
    return out


# A bug Hypothesis finds only beyond its first example, and a profile that stops
# Hypothesis there, loaded when the test module imports the operators.
WEAK_HYPOTHESIS = """

_right_inv_back = inv_back


def inv_back(x, d):
    if abs(d) > 0.5:  # wrong for most derivatives, right for the simplest (0.0)
        return -_right_inv_back(x, d)
    return _right_inv_back(x, d)


from hypothesis import settings as _settings  # noqa: E402

_settings.register_profile("quick", max_examples=1, database=None)
_settings.load_profile("quick")
"""


def test_a_student_file_cannot_weaken_hypothesis(edition, tmp_path):
    student = submission(
        edition, tmp_path, {OPERATORS: reference(OPERATORS) + WEAK_HYPOTHESIS}
    )
    (task,) = grade(student, source=edition, tasks="0.1").tasks
    assert task.status == "failing" and task.points == 0, task.message
    assert "test_inv_back" in task.message
    assert "max_examples=1" in task.message  # reported
    assert task.details["hypothesis_settings_changed"]


# -- Task 0.2: a time-out is not a kill, and nothing but behaviour counts -------------

PROPERTIES = "tests/module0/test_properties.py"


def grade_properties(tmp_path: Path, text: str, timeout=None):
    student = tmp_path / "submission"
    (student / "tests" / "module0").mkdir(parents=True)
    (student / PROPERTIES).write_text(text)
    (task,) = grade(student, source=ROOT, tasks="0.2", timeout=timeout).tasks
    return task


IDEMPOTENCE = """
import pathlib

import pytest

from kindling.mutation import PRACTICE_MUTANTS, mutate_source


@pytest.mark.task0_2
def test_no_planted_bug():  # no property: fails when the text is a mutant's
    text = pathlib.Path("module0_fundamentals/operators.py").read_text()
    assert not any(mutate_source(text, m) == text for m in PRACTICE_MUTANTS)
"""


def test_a_test_that_recognises_mutant_text_catches_nothing(tmp_path, monkeypatch):
    """A mutant's text was a fixed point of its own mutation: 12 of 12 killed."""
    from tests.kindling.editions import plant_few_mutants

    plant_few_mutants(monkeypatch)
    task = grade_properties(tmp_path, IDEMPOTENCE)
    assert task.points == 0 and task.details["killed"] == [], task.details


SHAPE = """
import pathlib
import re

import pytest


@pytest.mark.task0_2
def test_text_is_untouched():  # fails on any rewritten operator, right or wrong
    text = pathlib.Path("module0_fundamentals/operators.py").read_text()
    assert not re.search(r"_[a-z]{6} = .*; return _[a-z]{6}", text)
"""


def test_a_test_that_reads_source_instead_of_behaviour_earns_nothing(
    tmp_path, monkeypatch
):
    from tests.kindling.editions import plant_few_mutants

    planted = plant_few_mutants(monkeypatch)
    task = grade_properties(tmp_path, SHAPE)
    assert task.points == 0 and task.status == "failing", task.details
    # Every run's operators.py is the same text, whose operators the grader runs
    # (kindling/served.py): the test passes on the base and on every mutant
    # (before, every run was respelled and the base run itself failed).
    assert task.details["killed"] == []
    assert task.details["survived"] == [m.name for m in planted]


SLEEPS = """
import time

import pytest


@pytest.mark.task0_2
def test_slowly():
    time.sleep(4)
"""


@pytest.mark.long
def test_a_suite_that_only_sleeps_catches_nothing(tmp_path, monkeypatch):
    """Under a tight --timeout, a mutant run out of its share of time was a kill."""
    from tests.kindling.editions import plant_few_mutants

    plant_few_mutants(monkeypatch)
    task = grade_properties(tmp_path, SLEEPS, timeout=12)
    assert task.points == 0 and task.details["killed"] == [], task.details


HANGS_ON_NEG = """
import time

import pytest

from module0_fundamentals import operators as ops


@pytest.mark.task0_2
def test_neg():
    while ops.neg(1.0) == 1.0:  # hangs on the neg mutant, and catches nothing
        time.sleep(0.1)
    assert ops.add(1.0, 2.0) == 3.0
"""


@pytest.mark.long
def test_a_mutant_run_out_of_time_is_a_timeout_not_a_kill(tmp_path, monkeypatch):
    from tests.kindling.editions import plant_few_mutants

    plant_few_mutants(monkeypatch)
    task = grade_properties(tmp_path, HANGS_ON_NEG, timeout=8)
    assert task.details["timed_out"] == ["neg_keeps_sign"], task.details
    assert "neg_keeps_sign" not in task.details["killed"]
    assert "a time-out is not a catch" in task.message


@pytest.mark.long
def test_an_honest_suite_scores_the_same_under_any_timeout(tmp_path, monkeypatch):
    from tests.kindling.editions import plant_few_mutants

    plant_few_mutants(monkeypatch)
    scores = []
    for timeout in (40, 300):
        task = grade_properties(tmp_path / str(timeout), reference(PROPERTIES), timeout)
        assert task.details["timed_out"] == []
        scores.append((task.points, task.details["killed"]))
    assert scores[0] == scores[1] and scores[0][0] == 10


# -- forging the tests it can name earns nothing: the values decide ------------------

FORGE_SELECTIVELY = """

import _pytest.reports as _reports

_made = _reports.TestReport.from_item_and_call.__func__


def _forge(cls, item, call):  # the edition's tests and any *_hidden.py "pass"
    report = _made(cls, item, call)
    if str(item.path).endswith("_hidden.py") or item.path.name in {published!r}:
        report.outcome, report.longrepr = "passed", None
    return report


_reports.TestReport.from_item_and_call = classmethod(_forge)
"""

HIDDEN = '''"""More tests of the operators."""

import pytest

from module0_fundamentals import operators as ops


@pytest.mark.task0_1
def test_add_of_examples() -> None:
    assert ops.add(2.0, 3.0) == 5.0
'''


def test_forging_the_published_and_hidden_tests_earns_nothing(edition, tmp_path):
    """Forging every test of the edition's files and of *_hidden.py files (98/98
    once, when canaries were all that stood in the way): every test of the task
    "passes", and the values checked outside the sandbox give 0."""
    import shutil

    source = tmp_path / "source"
    skipped = (".git", ".venv", "__pycache__", "module[1-9]*", "project")
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*skipped))
    (source / "tests/module0/test_more_hidden.py").write_text(HIDDEN)
    published = sorted(p.name for p in (edition / "tests").rglob("test_*.py"))
    attack = (edition / OPERATORS).read_text()
    attack += FORGE_SELECTIVELY.replace("{published!r}", repr(set(published)))
    student = submission(edition, tmp_path, {OPERATORS: attack})
    (task,) = grade(student, source=source, tasks="0.1").tasks
    assert task.passed == task.total == 121 + 1  # every claim a pass
    assert task.points == 0 and task.status == "failing", task
    assert task.details["values"]["matched"] == 0


# -- no reference text in any report -------------------------------------------------

LEAK_BY_NODE_ID = """
import pathlib

import pytest

LINES, inside = [], False
for line in pathlib.Path("module3_fast_ops/fast_ops.py").read_text().splitlines():
    if "BEGIN SOLUTION" in line:  # the edition shows where the solutions go
        inside = True
    elif "END SOLUTION" in line:
        inside = False
    elif inside and len(line.strip()) > 30:
        LINES.append(line.strip())


@pytest.mark.task0_2
@pytest.mark.parametrize("x", [0], ids=[" | ".join(LINES[:21])])
def test_leak(x):
    assert False
"""


def test_reference_text_never_reaches_a_report_through_a_node_id(tmp_path):
    """Task 0.2's base run holds every reference student file; a failure's node id
    carried 21 lines of the reference fast_ops.py into every report."""
    from kindling.regions import BEGIN

    task = grade_properties(tmp_path, LEAK_BY_NODE_ID)
    assert task.status == "failing" and task.points == 0
    text = (ROOT / "module3_fast_ops/fast_ops.py").read_text().splitlines()
    solution, inside = [], False
    for line in text:  # the lines of the solution regions only
        inside = (inside or bool(BEGIN.match(line))) and "END SOLUTION" not in line
        if inside and len(line.strip()) > 30:
            solution.append(line.strip())
    assert solution
    assert not [line for line in solution if line in task.message], task.message
