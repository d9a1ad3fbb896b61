"""A class at once: ``kindling grade --batch DIR --jobs N [--shard K/N]`` and
``kindling grade merge``.

Each submission of a batch is graded by a grader process of its own (``kindling
grade --submission ... --json ...``), ``jobs`` at a time, so that one
submission's grading shares nothing writable with another's (each has its own
temporary tree and sandboxes) and a grader that fails fails alone. The grades are
the same as one after another: the same code grades each submission; only Numba's
thread count is divided among the jobs (``NUMBA_NUM_THREADS``), which changes no
result. The batch's reports are rewritten as each submission finishes.

A *shard* ``K/N`` is the part of the batch whose names hash to ``K - 1`` modulo
``N`` (sha256 of the folder's name): disjoint, covering, and stable when students
are added or removed, so that a job array (Slurm) or a CI matrix grades a class in
``N`` parts whose JSON files :func:`merge` joins into the batch's result.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

from kindling.grade import GradeError, Grader, GradeReport, TaskGrade
from kindling.grade_reports import valid_text, write_atomically
from kindling.grade_values import SEED_ENV, draw_seed


def parse_shard(text: str) -> Tuple[int, int]:
    """``"2/4"`` -> ``(2, 4)``; a :class:`GradeError` for anything else."""
    try:
        k, n = (int(part) for part in text.split("/"))
    except ValueError:
        raise GradeError(f"--shard {text!r}: expected K/N, such as 1/4") from None
    if not 1 <= k <= n:
        raise GradeError(f"--shard {text!r}: K must be between 1 and N")
    return k, n


def in_shard(name: str, shard: Optional[Tuple[int, int]]) -> bool:
    if shard is None:
        return True
    k, n = shard
    return int(hashlib.sha256(name.encode()).hexdigest(), 16) % n == k - 1


def submissions(
    folder: Path,
    shard: Optional[Tuple[int, int]] = None,
    echo: Callable[[str], None] = lambda line: None,
) -> List[Path]:
    """The submissions of a batch folder (its subdirectories, by name), of a shard."""
    folder = Path(folder)
    if not folder.is_dir():
        raise GradeError(f"the batch folder {folder} is not a directory")
    found = []
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith(".") or not entry.is_dir():
            continue
        if entry.is_symlink():
            echo(f"{entry.name}: a symbolic link, refused")
            continue
        if in_shard(entry.name, shard):
            found.append(entry)
    return found


def report_from_json(data: dict) -> GradeReport:
    """A report as :meth:`GradeReport.to_json` wrote it (for shards and jobs)."""
    report = GradeReport(str(data.get("source", "")), str(data.get("submission", "")))
    fields = TaskGrade.__dataclass_fields__
    timing = data.get("timing") or {}
    for entry in data.get("tasks", []):
        grade = TaskGrade(**{k: v for k, v in entry.items() if k in fields})
        grade.seconds = float((timing.get("tasks") or {}).get(grade.id, 0.0))
        report.tasks.append(grade)
    report.modified = list(data.get("modified_protected_files", []))
    report.missing = list(data.get("missing_protected_files", []))
    report.errors = list(data.get("errors", []))
    report.refused = list(data.get("refused_paths", []))
    report.interrupted = bool(data.get("interrupted", False))
    report.sandbox = str(data.get("sandbox", ""))
    report.version = str(data.get("grader_version", ""))
    report.partial = bool(data.get("partial", False))
    report.date = str(timing.get("date", ""))
    report.seconds = float(timing.get("total_seconds", 0.0))
    seed = timing.get("values_seed")  # hook: kindling/grade_values.py's seed
    report.values_seed = seed if isinstance(seed, int) else None
    return report


# How a child grader starts. ``python -I`` (isolated mode) puts neither the working
# directory nor the script's folder on ``sys.path``, and ignores ``PYTHONPATH``,
# every other ``PYTHON*`` variable and the user's site-packages: a batch graded
# from inside its own folder (``kindling grade --batch .``) would otherwise let a
# submission folder named ``kindling`` (with a ``__main__.py``), ``json``,
# ``random``, ... run in place of the grader, outside every sandbox. What is put
# back, by name, is this grader's own import path (:func:`child_path`): the folder
# its ``kindling`` package came from first, then the parent's ``sys.path`` (its
# ``PYTHONPATH`` and user site-packages, where the course's dependencies may be),
# without the working directory or anything inside the batch; and the child runs
# in a private, empty working directory besides.
_BOOT = (
    "import json, sys; sys.path[:0] = json.loads(sys.argv.pop(1)); "
    "from kindling.cli import main; sys.exit(main(sys.argv[1:]))"
)


def package_root() -> str:
    """The folder this grader's ``kindling`` package was imported from."""
    import kindling

    return str(Path(kindling.__file__).resolve().parent.parent)


def child_path(batch: Optional[Path] = None) -> List[str]:
    """The import path of a child grader: :func:`package_root`, then this
    process's ``sys.path`` without its working directory (``""``, or the folder
    itself), unless that is the package root, and without anything inside
    ``batch``."""
    root = package_root()
    cwd = Path.cwd().resolve()
    unsafe = [cwd] if str(cwd) != root else []
    if batch is not None:
        unsafe.append(Path(batch).resolve())
    path = [root]
    for entry in sys.path:
        if not entry or entry in path:
            continue
        resolved = Path(entry).resolve()
        if any(resolved == u or u in resolved.parents for u in unsafe):
            continue
        path.append(entry)
    return path


def _command(entry: Path, out: Path, options: dict) -> List[str]:
    batch = Path(entry).absolute().parent
    command = [sys.executable, "-I", "-c", _BOOT, json.dumps(child_path(batch))]
    command.append("grade")
    # Absolute paths only: the child's working directory is its own.
    command.append(f"--submission={Path(entry).absolute()}")
    command.append(f"--json={Path(out).absolute()}")
    source = options.get("source")
    if source is None:
        from kindling.grade import default_source

        source = default_source()
    command.append(f"--source={Path(source).resolve()}")
    command.append(f"--tasks={options.get('tasks', 'all')}")
    if options.get("timeout") is not None:
        command.append(f"--timeout={options['timeout']}")
    if options.get("memory_mb") is not None:
        command.append(f"--memory={options['memory_mb']}")
    if options.get("partial"):
        command.append("--partial")
    if not options.get("sandbox", True):
        command.append("--unsafe-no-sandbox")
    if options.get("kernel_cache") is not None:
        command.append(f"--kernel-cache={Path(options['kernel_cache']).resolve()}")
    return command


def timed_out_tasks(report: GradeReport) -> List[str]:
    """The tasks of ``report`` that ran out of time: a task's own time limit, or
    one of Task 0.2's runs (``details.timed_out``)."""
    return [
        t.id
        for t in report.tasks
        if t.status == "timeout" or (t.details or {}).get("timed_out")
    ]


def grade_parallel(
    entries: List[Path],
    jobs: int,
    echo: Callable[[str], None] = lambda line: None,
    on_report: Callable[[str, GradeReport], None] = lambda name, report: None,
    **options,
) -> Dict[str, GradeReport]:
    """Grade ``entries`` with ``jobs`` grader processes at once; ``on_report`` is
    called as each finishes. SIGTERM or Ctrl-C stops every grader (each leaves its
    partial report, marked ``interrupted``).

    Each job's sandboxes have an equal CPU share (:mod:`kindling.grade_limits`),
    but time limits are wall-clock: a task that ran out of time while another
    job was running is graded again, alone, once every job is done, and that
    grade replaces the first (so that a neighbour, however busy, never turns a
    task into a time-out; a time-out stays a time-out, never a kill)."""
    jobs = max(1, jobs)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    env = dict(os.environ)
    env.setdefault("NUMBA_NUM_THREADS", str(max(1, cores // jobs)))
    reports: Dict[str, GradeReport] = {}
    waiting = list(entries)
    by_name = {entry.name: entry for entry in entries}
    running: Dict[str, Tuple[subprocess.Popen, Path, object]] = {}
    beside: set = set()  # the submissions graded while another job was running
    counter = itertools.count()
    with tempfile.TemporaryDirectory(prefix="kindling-batch-") as scratch:

        def start(entry: Path, settings: dict) -> Tuple[subprocess.Popen, Path, object]:
            number = next(counter)
            out = Path(scratch) / f"{number}.json"
            log = open(Path(scratch) / f"{number}.log", "wb")
            # A private, empty working directory (see _BOOT above).
            home = Path(scratch) / f"{number}.cwd"
            home.mkdir()
            process = subprocess.Popen(
                _command(entry, out, settings),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
                cwd=home,
            )
            return process, out, log

        try:
            while waiting or running:
                while waiting and len(running) < jobs:
                    entry = waiting.pop(0)
                    echo(f"grading {entry.name} ...")
                    running[entry.name] = start(entry, options)
                if len(running) > 1:
                    beside.update(running)
                for name, (process, out, log) in list(running.items()):
                    if process.poll() is None:
                        continue
                    log.close()
                    del running[name]
                    reports[name] = _read_result(name, out, process.returncode)
                    echo(f"{name}: {reports[name].score:g}/{reports[name].max_score}")
                    on_report(name, reports[name])
                time.sleep(0.05)
            for name in sorted(beside & set(reports)):
                again = timed_out_tasks(reports[name])
                if not again or reports[name].interrupted:
                    continue
                echo(
                    f"{name}: Task {', '.join(again)} ran out of time beside another "
                    "job: graded again, alone ..."
                )
                running[name] = start(
                    by_name[name], {**options, "tasks": ",".join(again)}
                )
                process, out, log = running[name]
                process.wait()
                log.close()
                del running[name]
                alone = _read_result(name, out, process.returncode)
                if alone.interrupted:
                    break
                if not alone.aborted:
                    _replace_tasks(reports[name], alone)
                echo(f"{name}: {reports[name].score:g}/{reports[name].max_score}")
                on_report(name, reports[name])
        finally:
            for process, _, log in running.values():
                process.terminate()  # the grader leaves a partial report
            for name, (process, out, log) in running.items():
                process.wait()
                log.close()
                if name not in reports:  # (a regrading leaves the first grade)
                    reports[name] = _read_result(name, out, process.returncode)
    return {name: reports[name] for name in sorted(reports)}


def _replace_tasks(report: GradeReport, alone: GradeReport) -> None:
    """Put the grades of ``alone`` (some tasks graded again) into ``report``."""
    graded = {
        t.id: t
        for t in alone.tasks
        if not t.message.startswith(("not graded", "grader error"))
    }
    report.tasks = [graded.get(t.id, t) for t in report.tasks]


def _read_result(name: str, out: Path, returncode: int) -> GradeReport:
    try:
        return report_from_json(json.loads(out.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError, KeyError) as error:
        report = GradeReport("", name, aborted=True)
        report.errors.append(
            f"the grader of {name} left no report (exit status {returncode}): {error!r}"
        )
        return report


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def report_problems(data: object) -> List[str]:
    """What is wrong with one student's report as a shard holds it (empty: nothing):
    points between 0 and the task's maximum, tests passed between 0 and the total,
    numbers that are numbers. A report that cannot be true was edited, or comes
    from another grader, and is never merged."""
    if not isinstance(data, dict):
        return ["not a report of kindling grade"]
    tasks = data.get("tasks", [])
    if not isinstance(tasks, list):
        return ["its tasks are not a list"]
    problems = []
    for entry in tasks:
        if not isinstance(entry, dict):
            problems.append("a task that is not a task")
            continue
        task = str(entry.get("id", "?"))[:20]
        fields = ("max_points", "points", "passed", "failed", "total")
        if not all(_number(entry.get(key, 0)) for key in fields):
            problems.append(f"Task {task}: points or counts that are not numbers")
            continue
        points, most = entry.get("points", 0), entry.get("max_points", 0)
        passed, total = entry.get("passed", 0), entry.get("total", 0)
        if not 0 <= points <= most:
            problems.append(f"Task {task}: {points} points of at most {most}")
        if not 0 <= passed <= total or not 0 <= entry.get("failed", 0) <= total:
            problems.append(f"Task {task}: {passed} tests passed of {total}")
    return problems


def merge(paths: List[Path]) -> Dict[str, GradeReport]:
    """Join batch JSON files (shards) into one batch.

    Every input is checked first, and any of these is an error that says what is
    wrong and where: a name in two files, a report whose points or counts cannot
    be true (see :func:`report_problems`), and shards graded against different
    sources or by different graders (``source`` and ``grader_version``; a report
    its grader left unwritten, with no tasks, names neither).
    """
    merged: Dict[str, GradeReport] = {}
    origins: Dict[Tuple[str, str], str] = {}  # (source, version) -> where first seen
    for path in paths:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise GradeError(f"cannot read {path}: {error}") from None
        if not isinstance(data, dict):
            raise GradeError(f"{path} is not a batch result of kindling grade")
        for name, report in data.items():
            if name in merged:
                raise GradeError(f"{name} is in two of the files merged ({path})")
            problems = report_problems(report)
            if problems:
                raise GradeError(f"{path}: {name}: " + "; ".join(problems[:5]))
            if report.get("tasks"):
                origin = (
                    str(report.get("source", "")),
                    str(report.get("grader_version", "")),
                )
                origins.setdefault(origin, f"{path} ({name})")
                if len(origins) > 1:
                    (first, where), (other, _) = list(origins.items())[:2]
                    raise GradeError(
                        f"{path}: {name} was graded against {other[0]} by kindling "
                        f"{other[1]}, {where} against {first[0]} by kindling "
                        f"{first[1]}: shards of one batch come from one source and "
                        "one grader"
                    )
            try:
                merged[name] = report_from_json(report)
            except (TypeError, ValueError, AttributeError) as error:
                raise GradeError(f"{path}: {name}: not a report: {error}") from None
    return {name: merged[name] for name in sorted(merged)}


def grade_batch(
    folder: Path,
    echo: Callable[[str], None] = lambda line: None,
    jobs: int = 1,
    shard: Optional[Tuple[int, int]] = None,
    on_report: Callable[[str, GradeReport], None] = lambda name, report: None,
    **options,
) -> Dict[str, GradeReport]:
    """Grade every submission (each subdirectory) of ``folder`` (of ``shard``
    ``(K, N)`` only), each task of each in a sandbox of its own: one after another
    in this process (``jobs`` 1), or ``jobs`` grader processes at once
    (:func:`grade_parallel`). ``on_report`` is called as each finishes.
    Symlinked entries are refused."""
    entries = submissions(Path(folder), shard, echo)
    # One probe seed for the whole batch (its child graders inherit it), so the
    # reference's values are computed once (kindling/grade_values.py).
    shared = SEED_ENV not in os.environ
    if shared:
        os.environ[SEED_ENV] = str(draw_seed())
    try:
        if jobs > 1:
            return grade_parallel(entries, jobs, echo, on_report, **options)
        reports: Dict[str, GradeReport] = {}
        for entry in entries:
            echo(f"grading {entry.name} ...")
            reports[entry.name] = Grader(entry, echo=echo, **options).run()
            on_report(entry.name, reports[entry.name])
            if reports[entry.name].interrupted:  # SIGTERM/SIGINT stops the batch
                break
        return reports
    finally:
        if shared:
            os.environ.pop(SEED_ENV, None)


# ---------------------------------------------------------------------------------
# The batch's files: one CSV row per submission, every report in one JSON file
# ---------------------------------------------------------------------------------


def _csv_cell(value: object) -> object:
    """A CSV cell a spreadsheet shows as text, never runs as a formula."""
    if isinstance(value, str):
        value = valid_text(value)
        if value[:1] in ("=", "+", "-", "@", "\t", "\r"):
            return "'" + value
    return value


def batch_rows(reports: Dict[str, GradeReport]) -> List[dict]:
    """One row per submission: its name, score and each task's points and status."""
    rows = []
    for name, report in reports.items():
        row = {"submission": name, "score": report.score, "max": report.max_score}
        for t in report.tasks:
            row[f"{t.id} points"] = t.points
            row[f"{t.id} status"] = t.status
        row["errors"] = "; ".join(report.errors + report.refused)
        rows.append({key: _csv_cell(value) for key, value in row.items()})
    return rows


def write_batch(
    reports: Dict[str, GradeReport],
    csv_path: Optional[Path] = None,
    json_path: Optional[Path] = None,
) -> None:
    """The grades of a batch: one CSV row per submission, and every report as JSON."""
    import csv
    import io

    rows = batch_rows(reports)
    if csv_path is not None:
        buffer = io.StringIO()
        fields = list(rows[0]) if rows else ["submission", "score", "max"]
        writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        write_atomically(Path(csv_path), buffer.getvalue())
    if json_path is not None:
        data = {name: report.to_json() for name, report in reports.items()}
        write_atomically(Path(json_path), json.dumps(data, indent=2) + "\n")
