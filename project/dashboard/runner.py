"""Running the course's tests from the dashboard, and reading their results.

The course's pytest plugin (``kindling/pytest_plugin.py``) keeps the latest result of
every task in ``.kindling/progress.json``: passed, failed, a status (``done``,
``todo``, ``blocked by X.Y``, ``failing``), its time, and digests of the student
files it was measured on (:mod:`kindling.progress`). The Progress page shows those
records; :func:`run_tests` adds new ones by running pytest in a subprocess, with a
progress bar fed by pytest's ``[ 42%]`` line endings.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import streamlit as st

from kindling.progress import PROGRESS_FILE, next_task, read_progress
from project.dashboard.common import ROOT

__all__ = ["PROGRESS", "next_task", "read_results", "run_tests", "status_label"]

PROGRESS = ROOT / PROGRESS_FILE
PERCENT = re.compile(r"\[\s*(\d+)%\]\s*$")
COLLECTED = re.compile(r"collected (\d+) items?(?: / (\d+) deselected)?")
# Symbols every system font has (emoji are missing on many Linux desktops).
STATUS_ICONS = {
    "done": "✔ done",
    "todo": "✎ todo",
    "failing": "✘ failing",
    "no tests": "– no tests",
    "not run": "○ not run",
}


# ------------------------------------------------------------------ results
def read_results(path: Path, root: Path = ROOT) -> Dict[str, dict]:
    """``{task id: result}`` from the plugin's results file (or ``{}``); each result
    says in ``stale_files`` which student files changed since it was measured."""
    tasks = read_progress(path, root)["tasks"]
    return dict(tasks) if isinstance(tasks, dict) else {}


def last_run_tasks(path: Path) -> List[str]:
    """The tasks the latest pytest run reported, in its order."""
    last = read_progress(path)["last_run"]
    return list(last.get("tasks", [])) if isinstance(last, dict) else []


def status_label(status: str, stale: bool = False) -> str:
    """The status with a symbol every font has; ``stale`` adds a warning that the
    student's files changed since the result was measured."""
    if status.startswith("blocked by"):
        label = f"⋯ {status}"
    else:
        label = STATUS_ICONS.get(status, status)
    return f"{label} (stale)" if stale else label


def earned(task: Any, result: Optional[dict]) -> float:
    """Points of a task from one run: all of them when done, a share when the task
    is scored in proportion to its tests; 0 otherwise. A task scored by mutation
    (Task 0.2) earns nothing here: only ``kindling grade`` runs its mutants."""
    if result is None or task.scoring == "mutation":
        return 0.0
    if result.get("status") == "done":
        return float(task.points)
    if task.scoring == "proportional" and result.get("total"):
        return task.points * result.get("passed", 0) / result["total"]
    return 0.0


# ---------------------------------------------------------------- the runner
def test_files(task_ids: Sequence[str], root: Path = ROOT) -> List[str]:
    """The test files that can hold the tests of ``task_ids``, relative to ``root``.

    A file is chosen when it mentions a task's marker (``task2_3``). Tasks graded
    through backend variants (named as ``"3.1"`` in ``tests/backends.py``) also take
    every file that parametrizes tests by backend. Collecting only these files is
    what makes ``pytest -m task0_1`` from here quick; an empty list means "all".
    """
    tests = root / "tests"
    if not tests.is_dir():
        return []
    markers = {"task" + t.replace(".", "_") for t in task_ids}
    backends = tests / "backends.py"
    variant = backends.is_file() and any(
        f'"{t}"' in backends.read_text(encoding="utf-8") for t in task_ids
    )
    chosen = []
    for path in sorted(tests.rglob("test_*.py")):
        try:
            text = path.read_text(encoding="utf-8")
        except OSError:
            continue
        if any(re.search(rf"\b{m}\b", text) for m in markers) or (
            variant and "backend_params(" in text
        ):
            chosen.append(path.relative_to(root).as_posix())
    return chosen


def pytest_command(
    selection: str, json_path: Path, files: Sequence[str] = ()
) -> List[str]:
    """The pytest command line: the marker expression ``selection`` (``""`` for
    every test) over ``files`` (none: the whole suite), its results added to
    ``json_path``."""
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-o",
        "console_output_style=progress",
        f"--kindling-json={json_path}",
        *files,
    ]
    if selection:
        command += ["-m", selection]
    return command


def run_tests(
    selection: str, files: Sequence[str] = (), timeout: float = 1800.0
) -> Dict[str, Any]:
    """Run pytest on this checkout with a progress bar; return its results.

    The subprocess is killed if the page is stopped or rerun meanwhile (Streamlit
    interrupts the script with an exception, and ``finally`` cleans up).
    """
    bar = st.progress(0.0, text="Starting pytest…")
    # The run adds to this checkout's results file, as a run in a terminal does;
    # a run that reports nothing leaves it as it was.
    json_path = PROGRESS
    before = json_path.stat().st_mtime_ns if json_path.exists() else None
    # pytest writes UTF-8 (a stub's line has a dash) whatever the system's code page.
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONIOENCODING="utf-8")
    process = subprocess.Popen(
        pytest_command(selection, json_path, files),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        encoding="utf-8",
        errors="replace",
        env=env,
    )
    lines: List[str] = []
    started = time.monotonic()
    code: Optional[int] = None
    try:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line.rstrip("\n"))
            elapsed = time.monotonic() - started
            match = PERCENT.search(line)
            if match:
                bar.progress(
                    int(match[1]) / 100,
                    text=f"{match[1]}% of the tests ({elapsed:.0f} s)",
                )
            elif COLLECTED.search(line):
                bar.progress(0.0, text=line.strip())
            if elapsed > timeout:
                lines.append(f"(stopped after {timeout:.0f} s)")
                break
    finally:
        if process.poll() is None:
            process.kill()
        code = process.wait()
    seconds = time.monotonic() - started
    bar.progress(1.0, text=f"pytest finished in {seconds:.1f} s")
    changed = json_path.exists() and json_path.stat().st_mtime_ns != before
    every = read_results(json_path) if changed else {}
    reported = last_run_tasks(json_path) if changed else []
    return {
        "results": {t: every[t] for t in reported if t in every},
        "returncode": code,
        "log": "\n".join(lines[-400:]),
        "selection": selection,
        "files": list(files),
        "seconds": seconds,
        "when": time.strftime("%H:%M:%S"),
    }
