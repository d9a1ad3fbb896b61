"""Helpers the grading tests share: reference files, and student submissions made
from a released edition."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Dict

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
