"""The grading plugin inside the sandbox (``kindling.grade_plugin``): the session's
Hypothesis settings are the grader's, and what pristine tests decorate stays."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# A parametrized Hypothesis test with a function-scoped fixture, as in Module 2's
# tests: its own @settings suppress a health check, and Hypothesis's pytest plugin
# wraps those settings again for every parameter.
PARAMETRIZED = """
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

wide = settings(suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture
def thing(request):
    return request.param


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("thing", [1, 2], indirect=True)
@given(x=st.integers())
@wide
def test_p(thing, n, x):
    assert thing in (1, 2)
"""


def run_session(tmp_path: Path, test: str) -> list:
    (tmp_path / "test_p.py").write_text(test)
    read, write = os.pipe()
    options = ["-p", "hypothesispytest", "-p", "kindling.grade_plugin", "-q"]
    options += ["-p", "no:cacheprovider", f"--kindling-grade-fd={write}"]
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *options, "test_p.py"],
        cwd=tmp_path,
        env=env,
        pass_fds=(write,),
        capture_output=True,
        text=True,
        timeout=120,
    )
    os.close(write)
    with os.fdopen(read, "rb") as events:
        data = events.read()
    assert done.returncode in (0, 1), done.stdout + done.stderr
    return [json.loads(line) for line in data.splitlines() if line.strip()]


def test_a_pristine_decorator_survives_hypothesis_own_rewrapping(tmp_path):
    """Rebuilt from the profile before each test, a parametrized test lost its own
    suppressed health check from the second parameter on (Tasks 2.3, 2.4, 3.1
    failed on the reference solutions)."""
    events = run_session(tmp_path, PARAMETRIZED)
    reports = [e for e in events if e["event"] == "report" and e["when"] == "call"]
    assert len(reports) == 6 and all(e["outcome"] == "passed" for e in reports)
    assert not [e for e in events if e["event"] == "settings"]  # nothing changed


WEAKENED = PARAMETRIZED.replace(
    "wide = settings(",
    'settings.register_profile("quick", max_examples=1)\n'
    'settings.load_profile("quick")\n'
    "wide = settings(",
)


def test_a_profile_loaded_before_the_tests_is_undone_and_reported(tmp_path):
    events = run_session(tmp_path, WEAKENED)
    changes = [c for e in events if e["event"] == "settings" for c in e["changes"]]
    assert any(c.startswith("max_examples=1") for c in changes), events
