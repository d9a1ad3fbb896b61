"""The third round of attacks on ``kindling grade`` (issue 30), as real submissions.

Each test grades a student edition with one attacking student file, and only the
cheap Module 0 tasks. They need bubblewrap, which the grader itself requires.
"""

from pathlib import Path

import pytest

from kindling.grade import grade
from kindling.release import release
from kindling.sandbox import probe, why_not
from tests.kindling.editions import reference, submission

ROOT = Path(__file__).resolve().parents[2]
OPERATORS = "module0_fundamentals/operators.py"

pytestmark = pytest.mark.skipif(probe() is None, reason=f"no sandbox: {why_not()}")


@pytest.fixture(scope="module")
def edition(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("round3") / "edition"
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
