"""Helpers the grading tests share: reference files, student submissions made
from a released edition, and a short list of planted bugs for Task 0.2."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Dict, List

import pytest

ROOT = Path(__file__).resolve().parents[2]


def reference(relative: str) -> str:
    """The instructor source's text of ``relative`` (a file with solutions)."""
    return (ROOT / relative).read_text()


def submission(edition: Path, where: Path, files: Dict[str, str]) -> Path:
    """A student's checkout: the edition with ``files`` written over it."""
    out = where / "submission"
    shutil.copytree(edition, out)
    for relative, text in files.items():
        (out / relative).write_text(text)
    return out


# Three of kindling.mutation.PRACTICE_MUTANTS, one of them caught by a test of neg
# alone.
FEW_MUTANTS = ("neg_keeps_sign", "sigmoid_negative_branch", "relu_leaks_negatives")


def plant_few_mutants(monkeypatch: pytest.MonkeyPatch) -> List:
    """Let the grader plant only :data:`FEW_MUTANTS` (each mutant costs a sandboxed
    run), in place of its draw: enough for claims about scoring and about telling
    mutant runs apart. A full draw is planted by
    ``test_the_reference_property_tests_kill_every_mutant``.
    """
    from kindling import mutation

    few = tuple(m for m in mutation.PRACTICE_MUTANTS if m.name in FEW_MUTANTS)
    assert len(few) == len(FEW_MUTANTS)
    monkeypatch.setattr(mutation, "graded_mutants", lambda text, seed, ref: few)
    return list(few)


#: Appended to a student file: every test of the session "passes" (pytest's
#: reports rewritten in the process that runs the tests), the forger's attack.
FORGE_REPORTS = """

import _pytest.reports as _reports

_made = _reports.TestReport.from_item_and_call.__func__


def _always_passed(cls, item, call):  # every test "passes"
    report = _made(cls, item, call)
    report.outcome, report.longrepr = "passed", None
    return report


_reports.TestReport.from_item_and_call = classmethod(_always_passed)
"""
