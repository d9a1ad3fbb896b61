"""Grade a submission against the pristine tests of the course (``kindling grade``).

The grader trusts nothing in a submission but the files a student is meant to edit:

1. **Overlay.** A fresh copy of the *pristine tree* (the instructor source, hidden
   tests included, or a student edition) is made in a temporary directory, and only
   the student files named in the registry are copied over it from the submission. A
   student file the submission lacks becomes its stub, never the reference solution.
2. **Protected files.** Every other file of the submission is compared with the
   hashes of the edition (``.kindling-manifest.json``); edits are reported, and have
   no effect because the pristine copy is what runs.
3. **One process per task** (:mod:`kindling.grade_runner`): the task's tests
   (``pytest -m taskX_Y``) run in the overlay with a time limit, limits on memory and
   file size, Hypothesis derandomized and hash seeds fixed. A hang is ``timeout``; a
   process that dies before pytest finishes (``os._exit``, a segfault in a Numba
   kernel) is ``crashed``; either way the other tasks are still graded.
4. **Task 0.2** is graded by mutation testing (:mod:`kindling.mutation`).
5. **Reports** (:mod:`kindling.grade_reports`): a terminal table, JSON, Markdown,
   Gradescope ``results.json`` and JUnit XML, written whatever happened.

Statuses: ``done``, ``failing``, ``todo`` (the task's own stubs are still in place),
``blocked-by X.Y`` (the task's tests stop at the stub of another task), ``timeout``,
``crashed``, and ``no tests`` (no test carries the task's marker yet).

This module is also a small pytest plugin (``-p kindling.grade``), loaded into every
grading session: it records which tests the session collected, its collection
errors, the first failure, and, at the very end, that the session finished at all.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Tuple

from kindling.grade_runner import Job, Run, Runner
from kindling.registry import Registry, Task, parse_registry

DEFAULT_MEMORY_MB = 4096
COLLECT_TIMEOUT = 600
MESSAGE_CHARS = 1500  # a failure message is trimmed to about this many characters
STUB_IN_TEXT = re.compile(r"NotImplementedError: Task (\d+\.\d+)")
REGISTRY_FILE = Path("kindling") / "tasks.toml"
MANIFEST = ".kindling-manifest.json"
# Never copied into an overlay: version control, caches, environments, old results.
SKIPPED_PARTS = {
    ".git",
    ".venv",
    "venv",
    "__pycache__",
    ".pytest_cache",
    ".hypothesis",
    ".kindling",
    "node_modules",
}
# The options of every grading session.
PYTEST_OPTIONS = [
    "-q",
    "--tb=short",
    "--show-capture=no",  # what a test printed is not part of its grade
    "--color=no",
    "-p",
    "no:cacheprovider",
    "-p",
    "no:randomly",
    "-p",
    "kindling.grade",
    "--hypothesis-seed=0",
    "--kindling-json=",  # the progress plugin's results are read in-process
    "-W",
    "ignore::pytest.PytestAssertRewriteWarning",  # plugins imported by the runner
]


class GradeError(RuntimeError):
    """The grader cannot start: a missing directory, an unknown task, ..."""


# ---------------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------------


@dataclass
class TaskGrade:
    """The grade of one task."""

    id: str
    title: str
    marker: str
    scoring: str
    max_points: int
    points: float = 0.0
    status: str = "crashed"
    passed: int = 0
    failed: int = 0
    total: int = 0
    message: str = "not graded: the grader stopped before this task"
    details: Dict[str, object] = field(default_factory=dict)
    seconds: float = 0.0

    @classmethod
    def for_task(cls, task: Task) -> "TaskGrade":
        return cls(task.id, task.title, task.marker, task.scoring, task.points)

    def to_json(self) -> dict:
        data = asdict(self)
        del data["seconds"]  # timings live apart, so that results are reproducible
        return data


@dataclass
class GradeReport:
    """Everything one grading run found out."""

    source: str
    submission: str
    tasks: List[TaskGrade] = field(default_factory=list)
    modified: List[str] = field(default_factory=list)
    missing: List[str] = field(default_factory=list)
    errors: List[str] = field(default_factory=list)
    seconds: float = 0.0
    aborted: bool = False  # the grader could not grade at all (see errors)

    @property
    def score(self) -> float:
        return round(sum(t.points for t in self.tasks), 2)

    @property
    def max_score(self) -> int:
        return sum(t.max_points for t in self.tasks)

    def to_json(self) -> dict:
        return {
            "kindling_grade": 1,
            "score": self.score,
            "max_score": self.max_score,
            "tasks": [t.to_json() for t in self.tasks],
            "modified_protected_files": self.modified,
            "missing_protected_files": self.missing,
            "errors": self.errors,
            "source": self.source,
            "submission": self.submission,
            "timing": {
                "total_seconds": round(self.seconds, 2),
                "tasks": {t.id: round(t.seconds, 2) for t in self.tasks},
            },
        }


# ---------------------------------------------------------------------------------
# The trees and the overlay
# ---------------------------------------------------------------------------------


def is_course_tree(path: Path) -> bool:
    return (path / REGISTRY_FILE).is_file() and (path / "tests").is_dir()


def default_source() -> Path:
    """The tree the grader itself belongs to (the instructor source or an edition)."""
    here = Path(__file__).resolve().parents[1]
    for candidate in (here, Path.cwd()):
        if is_course_tree(candidate):
            return candidate
    raise GradeError("cannot find the course tree to grade against; pass --source")


def read_registry(root: Path) -> Registry:
    """The registry of a tree (not the cached one of the running package)."""
    path = root / REGISTRY_FILE
    return parse_registry(path.read_text(encoding="utf-8"), str(path))


def student_files(registry: Registry) -> List[str]:
    return sorted({f for task in registry for f in task.files})


def tree_files(root: Path) -> List[str]:
    """The files of a course tree, relative, without caches and environments."""
    from kindling.release import source_files

    files = []
    for path in source_files(root):
        relative = path.relative_to(root)
        if not set(relative.parts) & SKIPPED_PARTS:
            files.append(relative.as_posix())
    return files


def copy_tree(root: Path, dest: Path) -> List[str]:
    files = tree_files(root)
    for relative in files:
        target = dest / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / relative, target)
    return files


def _regular_file(path: Path) -> bool:
    # A symlink could point at a hidden test or a reference solution: never follow.
    return path.is_file() and not path.is_symlink()


def overlay_student_files(
    work: Path, source: Path, submission: Path, registry: Registry
) -> Dict[str, str]:
    """Copy the submission's student files over the pristine copy in ``work``.

    Returns where each student file came from: ``"submission"``, or ``"stub"`` when
    the submission lacks it (the student edition's stub of the source file: a missing
    file must never leave the reference solution in place).
    """
    from kindling.release import strip_regions

    origin: Dict[str, str] = {}
    for relative in student_files(registry):
        target, theirs = work / relative, submission / relative
        if _regular_file(theirs):
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(theirs, target)
            origin[relative] = "submission"
        elif (source / relative).is_file() and relative.endswith(".py"):
            text = (source / relative).read_text(encoding="utf-8")
            target.write_text(strip_regions(text, relative, registry)[0])
            origin[relative] = "stub"
        elif target.exists():
            target.unlink()
            origin[relative] = "missing"
    return origin


def expected_hashes(
    source: Path, submission: Path, registry: Registry, scratch: Path
) -> Dict[str, str]:
    """The sha256 of every protected file of the edition the submission comes from.

    A student edition carries its manifest. From the instructor source, the edition
    is cut again (with ``--through`` set to the last module the submission holds).
    """
    manifest = source / MANIFEST
    if manifest.is_file():
        return json.loads(manifest.read_text())["protected"]
    from kindling.release import release

    present = [
        int(match[1])
        for path in submission.iterdir()
        if path.is_dir() and (match := re.match(r"module(\d+)_", path.name))
    ]
    last = max(t.module for t in registry)
    through = max(present) if present and max(present) < last else None
    release(source, scratch, through=through, force=True, registry=registry)
    return json.loads((scratch / MANIFEST).read_text())["protected"]


def protected_changes(
    submission: Path, expected: Dict[str, str]
) -> Tuple[List[str], List[str]]:
    """(modified, missing) protected files of the submission."""
    from kindling.release import file_digest

    modified, missing = [], []
    for relative, digest in sorted(expected.items()):
        path = submission / relative
        if not _regular_file(path):
            missing.append(relative)
        elif file_digest(path) != digest:
            modified.append(relative)
    return modified, missing


def grading_env(root: Path) -> Dict[str, str]:
    """The environment of the grading processes: deterministic, and free of settings
    (``PYTEST_ADDOPTS``, ``PYTHONPATH``, ...) that could change what runs."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTEST_", "HYPOTHESIS_", "KINDLING_", "COV_CORE_"))
        and key not in ("PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "PYTHONINSPECT")
    }
    env.update(
        KINDLING_HYPOTHESIS_PROFILE="ci",  # derandomized: the same examples every run
        PYTHONHASHSEED="0",
        PYTHONDONTWRITEBYTECODE="1",  # files are swapped: never trust a .pyc
        PYTHONUNBUFFERED="1",  # keep the output written just before a crash
        NUMBA_CACHE_DIR=str(root / ".kindling" / "numba-cache"),
        MPLBACKEND="Agg",
    )
    return env


# ---------------------------------------------------------------------------------
# Which tests belong to which task
# ---------------------------------------------------------------------------------


@dataclass
class Collection:
    """The tests of the pristine tree, by task id."""

    tests: Dict[str, List[str]]  # task -> node ids
    ok: bool = True  # False: collection failed; every task then runs all of tests/
    broken: List[str] = field(default_factory=list)  # files that did not collect

    def files(self, task_id: str) -> List[str]:
        return sorted({nodeid.split("::")[0] for nodeid in self.tests.get(task_id, [])})


def _cache_dir() -> Path:
    base = os.environ.get("KINDLING_CACHE_DIR") or os.environ.get("XDG_CACHE_HOME")
    return Path(base) / "kindling" if base else Path.home() / ".cache" / "kindling"


def _tree_key(root: Path, files: Iterable[str]) -> str:
    import pytest

    from kindling.cudasim import gpu_present
    from kindling.release import file_digest

    digest = hashlib.sha256()
    environment = f"{sys.version}|{pytest.__version__}|{gpu_present()}"
    digest.update(f"{environment}|{os.environ.get('NUMBA_ENABLE_CUDASIM')}".encode())
    for relative in sorted(files):
        digest.update(f"{relative}:{file_digest(root / relative)}\n".encode())
    return digest.hexdigest()[:32]


def collect(runner: Runner, work: Path, files: List[str], scratch: Path) -> Collection:
    """Collect every test of the pristine tree once (cached by the tree's content)."""
    cached = _cache_dir() / f"collection-{_tree_key(work, files)}.json"
    try:
        return Collection(json.loads(cached.read_text()))
    except (OSError, ValueError):
        pass
    args = ["--collect-only", "--continue-on-collection-errors"]
    args += ["--ignore=tests/kindling", "tests"]
    run = runner.run(session_job(args, scratch, COLLECT_TIMEOUT, DEFAULT_MEMORY_MB))
    session = run.session
    if run.timed_out or session is None or session["exitstatus"] not in (0, 1, 2, 5):
        return Collection({}, ok=False)
    tests: Dict[str, List[str]] = {}
    for nodeid, task in session["items"]:
        if task is not None:
            tests.setdefault(task, []).append(nodeid)
    broken = sorted(error["nodeid"] for error in session["collection_errors"])
    if broken:  # the instructor's tests are broken: nothing worth caching
        return Collection(tests, broken=broken)
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(json.dumps(tests))
        os.replace(partial, cached)
    except OSError:
        pass  # a read-only home only costs time
    return Collection(tests)


def session_job(
    args: List[str],
    scratch: Path,
    timeout: float,
    memory_mb: int,
    cuda: bool = False,
    mutant: Optional[str] = None,
) -> Job:
    """A grading session's job: pytest ``args`` with the grading options."""
    scratch.mkdir(parents=True, exist_ok=True)
    out = scratch / "session.json"
    args = [*PYTEST_OPTIONS, f"--kindling-grade-out={out}", *args]
    output = str(scratch / "output.txt")
    return Job(args, str(out), output, timeout, memory_mb, cuda, mutant)


# ---------------------------------------------------------------------------------
# Grading one task
# ---------------------------------------------------------------------------------


def clean_message(text: str, work: Path, limit: int = MESSAGE_CHARS) -> str:
    """A failure message made reproducible (no temp paths, no addresses) and short."""
    for root in sorted({str(work), str(work.resolve())}, key=len, reverse=True):
        text = text.replace(root + os.sep, "").replace(root, ".")
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)
    text = re.sub(r"0x[0-9a-fA-F]{6,}", "0x...", text)
    text = re.sub(r"[\x00-\x08\x0b-\x1f\x7f]", "", text).strip()
    if len(text) > limit:
        keep = limit // 4
        text = f"{text[:keep]}\n[...]\n{text[-(limit - keep):]}"
    return text


def describe_death(run: Run) -> str:
    """Why a process ended without finishing its session, in words."""
    if run.returncode is not None and run.returncode < 0:
        number = -run.returncode
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        why = {
            "SIGSEGV": "a segmentation fault (SIGSEGV)",
            "SIGBUS": "a bus error (SIGBUS)",
            "SIGABRT": "an abort (SIGABRT)",
            "SIGKILL": "SIGKILL (out of memory?)",
            "SIGXFSZ": "writing a file over the size limit (SIGXFSZ)",
        }.get(name, name)
        text = f"the test process was killed by {why}"
    elif run.returncode is None:
        text = "the test process was lost"
    else:
        text = f"the test process exited with status {run.returncode} before pytest"
        text += " finished"
    running = [line[6:] for line in run.log if line.startswith("start ")]
    if running:
        text += f", while running {running[-1]}"
    return text


def still_stubbed(task: Task, work: Path) -> bool:
    """Whether a student file of ``task`` still raises the task's own stub."""
    quote = "[\"']"  # black keeps single quotes around a message holding a "
    stub = re.compile(
        rf"raise NotImplementedError\(\s*{quote}Task {re.escape(task.id)}:"
    )
    for relative in task.files:
        path = work / relative
        if path.is_file() and stub.search(path.read_text(errors="replace")):
            return True
    return False


def _points(task: Task, status: str, passed: int, total: int) -> float:
    if task.scoring == "proportional" and status not in ("timeout", "crashed"):
        return round(task.points * passed / total, 2) if total else 0.0
    return float(task.points) if status == "done" else 0.0


def judge(
    task: Task, run: Run, expected: int, work: Path, limit: Optional[float] = None
) -> TaskGrade:
    """Turn what a task's session did into the task's grade.

    ``expected`` is the number of tests the pristine tree has for the task (0 when
    unknown): tests that never ran count as failed, and a skipped test never passes.
    """
    from kindling.pytest_plugin import classify

    grade = TaskGrade.for_task(task)
    grade.seconds, grade.total = run.seconds, expected
    running = [line[6:] for line in run.log if line.startswith("start ")]
    if run.timed_out:
        grade.status = "timeout"
        within = f"{limit:g} s" if limit else "the time limit"
        grade.message = f"the tests did not finish within {within}"
        grade.message += f"; still running {running[-1]}" if running else ""
        return grade
    session = run.session
    if session is None or session["exitstatus"] in (3, 4):  # 3, 4: pytest broke
        grade.status = "crashed"
        if session is None:
            grade.message = describe_death(run)
        else:
            grade.message = f"pytest stopped with exit status {session['exitstatus']}"
        tail = clean_message(run.output[-4000:], work)
        grade.message += f"\n{tail}" if tail else ""
        grade.message = clean_message(grade.message, work)
        return grade

    counts = session["tasks"].get(task.id, {})
    passed, skipped = counts.get("passed", 0), counts.get("skipped", 0)
    failed = counts.get("failed", 0) + skipped
    stubs = list(counts.get("stubs", [])) + [""] * skipped
    message = session.get("first_failure") or ""
    errors = session.get("collection_errors", [])
    ran = passed + failed
    expected = max(expected, ran)
    if ran < expected:
        # Tests that never ran (their file did not import, pytest.exit, ...) failed.
        stub = STUB_IN_TEXT.search(errors[0]["message"]) if len(errors) == 1 else None
        stubs += [stub[1] if stub else ""] * (expected - ran)
        failed += expected - ran
        if errors and not message:
            message = f"{errors[0]['nodeid']} could not be collected:\n"
            message += errors[0]["message"]
        elif not message:
            message = f"{expected - ran} of the task's tests did not run"
    grade.passed, grade.failed, grade.total = passed, failed, expected
    if expected == 0:
        grade.status, grade.message = "no tests", "no test carries this task's marker"
        return grade
    grade.status = classify(task.id, passed, failed, stubs).replace(" by ", "-by ")
    if grade.status.startswith("blocked-by") and still_stubbed(task, work):
        # Blocked, but the task's own stubs are untouched too: it is still to do.
        grade.status = "todo"
    grade.points = _points(task, grade.status, passed, expected)
    if grade.status == "done":
        grade.message = ""
    elif grade.status == "todo" or grade.status.startswith("blocked-by"):
        grade.message = _stub_summary(message) or clean_message(message, work)
    else:
        grade.message = clean_message(message, work)
    return grade


def _stub_summary(failure: str) -> str:
    """``NotImplementedError: Task 0.1: implement neg (first met in <test>)``."""
    found = re.search(r"NotImplementedError: (Task \d+\.\d+:[^\n]*)", failure)
    if not found:
        return ""
    test = failure.split("\n", 1)[0]
    return f"{found[1].strip()} (first met in {test})"


def grade_task(
    task: Task,
    runner: Runner,
    work: Path,
    collection: Collection,
    scratch: Path,
    timeout: float,
    memory_mb: int,
) -> TaskGrade:
    """Run one task's tests in a process of their own and grade them."""
    if collection.ok:
        files = collection.files(task.id)
        expected = len(collection.tests.get(task.id, []))
        if not files:
            grade = TaskGrade.for_task(task)
            grade.status = "no tests"
            grade.message = "no test carries this task's marker"
            return grade
    else:
        files, expected = ["--ignore=tests/kindling", "tests"], 0
    args = ["--continue-on-collection-errors", "-m", task.marker, *files]
    job = session_job(args, scratch, timeout, memory_mb, task.cuda)
    return judge(task, runner.run(job), expected, work, timeout)


# ---------------------------------------------------------------------------------
# The whole run
# ---------------------------------------------------------------------------------


class Grader:
    """Grades one submission; ``report`` is complete even if ``run`` is cut short."""

    def __init__(
        self,
        submission: Path,
        source: Optional[Path] = None,
        tasks: str = "all",
        timeout: Optional[float] = None,
        memory_mb: int = DEFAULT_MEMORY_MB,
        echo: Callable[[str], None] = lambda line: None,
    ) -> None:
        self.source = Path(source).resolve() if source else default_source()
        self.submission = Path(submission).resolve()
        self.report = GradeReport(str(self.source), str(self.submission))
        self.timeout, self.memory_mb, self.echo = timeout, memory_mb, echo
        if not is_course_tree(self.source):
            raise GradeError(f"{self.source} is not a course tree (no {REGISTRY_FILE})")
        self.registry = read_registry(self.source)
        try:
            self.selected = self.registry.select(tasks)
        except KeyError as error:
            raise GradeError(str(error.args[0])) from None
        self.report.tasks = [TaskGrade.for_task(t) for t in self.selected]

    def run(self) -> GradeReport:
        start = time.monotonic()
        try:
            with tempfile.TemporaryDirectory(prefix="kindling-grade-") as tmp:
                self._run(Path(tmp))
        finally:
            self.report.seconds = time.monotonic() - start
        return self.report

    def _run(self, tmp: Path) -> None:
        work = tmp / "work"
        if not self.submission.is_dir():
            self._fail_all(f"the submission {self.submission} is not a directory")
            return
        try:
            files = copy_tree(self.source, work)
        except Exception as error:  # noqa: BLE001 - always leave a complete report
            self._fail_all(f"grader error while copying the source: {error!r}")
            return
        with Runner(work, grading_env(work), tmp / "runner.log") as runner:
            try:
                self.echo("collecting the tests of the pristine tree ...")
                collection = collect(runner, work, files, tmp / "collect")
                if not collection.ok:
                    self.report.errors.append(
                        "the pristine tests could not be collected; every task ran "
                        "over the whole tests/ directory"
                    )
                if collection.broken:
                    self.report.errors.append(
                        "pristine test files that could not be collected (their "
                        "tests were not graded): " + ", ".join(collection.broken)
                    )
                overlay_student_files(work, self.source, self.submission, self.registry)
                expected = expected_hashes(
                    self.source, self.submission, self.registry, tmp / "edition"
                )
                self.report.modified, self.report.missing = protected_changes(
                    self.submission, expected
                )
            except Exception as error:  # noqa: BLE001
                self._fail_all(f"grader error while preparing: {error!r}")
                return
            for index, task in enumerate(self.selected):
                self.echo(f"grading Task {task.id} ({task.title}) ...")
                try:
                    grade = self._grade(task, runner, work, collection, tmp)
                except Exception as error:  # noqa: BLE001 - grade every other task
                    grade = TaskGrade.for_task(task)
                    grade.message = f"grader error: {error!r}"
                self.report.tasks[index] = grade

    def _grade(
        self, task: Task, runner: Runner, work: Path, collection: Collection, tmp: Path
    ) -> TaskGrade:
        timeout = self.timeout or task.timeout
        scratch = tmp / "runs" / task.id
        if task.scoring != "mutation":
            return grade_task(
                task, runner, work, collection, scratch, timeout, self.memory_mb
            )
        from kindling.mutation import grade_by_mutation, reference_available

        has_reference = reference_available(self.source)

        def blocker() -> Optional[str]:
            # Without the reference, the student's own operators are the base of the
            # mutants: the tasks they come from must be done.
            if has_reference:
                return None
            graded = {g.id: g for g in self.report.tasks}
            for dependency in task.depends:
                grade = graded.get(dependency)
                if grade is None or grade.message.startswith("not graded"):
                    grade = grade_task(
                        self.registry[dependency],
                        runner,
                        work,
                        collection,
                        tmp / "runs" / f"{dependency}-for-{task.id}",
                        timeout,
                        self.memory_mb,
                    )
                if grade.status != "done":
                    return dependency
            return None

        source = self.source if has_reference else None
        return grade_by_mutation(
            task, work, source, scratch, timeout, self.memory_mb, blocker
        )

    def _fail_all(self, message: str) -> None:
        self.report.aborted = True
        self.report.errors.append(message)
        for grade in self.report.tasks:
            grade.status, grade.message = "crashed", message


def grade(
    submission: Path,
    source: Optional[Path] = None,
    tasks: str = "all",
    timeout: Optional[float] = None,
    memory_mb: int = DEFAULT_MEMORY_MB,
) -> GradeReport:
    """Grade ``submission`` against ``source`` (default: the tree of this grader)."""
    return Grader(submission, source, tasks, timeout, memory_mb).run()


# ---------------------------------------------------------------------------------
# The pytest plugin side (``-p kindling.grade``), inside every grading session
# ---------------------------------------------------------------------------------


class SessionRecorder:
    """Records a session for the grader: items, collection errors, first failure."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.items: List[Tuple[str, Optional[str]]] = []
        self.collection_errors: List[dict] = []
        self.first_failure = ""
        self.first_skip = ""  # a skipped test does not pass either

    def _log(self, line: str) -> None:
        # Appended and closed at once: the line survives an os._exit or a segfault.
        with open(str(self.path) + ".log", "a", encoding="utf-8") as log:
            log.write(line + "\n")

    def pytest_collectreport(self, report) -> None:
        if report.failed:
            self.collection_errors.append(
                {"nodeid": report.nodeid, "message": report.longreprtext[-4000:]}
            )

    def pytest_collection_finish(self, session) -> None:
        from kindling.pytest_plugin import task_of_item

        self.items = [(item.nodeid, task_of_item(item)) for item in session.items]

    def pytest_runtest_logstart(self, nodeid: str, location) -> None:
        self._log(f"start {nodeid}")

    def pytest_runtest_logreport(self, report) -> None:
        if report.failed and not self.first_failure:
            self.first_failure = f"{report.nodeid}\n{report.longreprtext}"
        elif report.skipped and not self.first_skip:
            self.first_skip = f"{report.nodeid}\nskipped: {report.longreprtext}"

    def pytest_sessionfinish(self, session, exitstatus) -> None:
        tasks = {}
        progress = session.config.pluginmanager.get_plugin("kindling-progress")
        if progress is not None:  # the course's progress plugin counts the outcomes
            tasks = {result.id: result.to_json() for result in progress.results()}
        data = {
            "exitstatus": int(exitstatus),
            "items": self.items,
            "collection_errors": self.collection_errors,
            "first_failure": (self.first_failure or self.first_skip)[-8000:],
            "tasks": tasks,
        }
        self.path.write_text(json.dumps(data))


def skip_explain_phase() -> None:
    """Drop Hypothesis's *explain* phase from the active profile.

    After a failure, that phase re-runs the test many times to say which parts of the
    example matter: about two seconds per failing test, minutes in a fresh edition
    where every test fails on a stub. Verdicts and shrunk examples stay the same.
    """
    try:
        from hypothesis import Phase, settings
    except ImportError:  # pragma: no cover - hypothesis is a course dependency
        return
    explain = getattr(Phase, "explain", None)
    phases = [phase for phase in settings.default.phases if phase is not explain]
    settings.register_profile(
        "kindling-grade", settings(settings.default, phases=phases)
    )
    settings.load_profile("kindling-grade")


def pytest_addoption(parser) -> None:
    parser.getgroup("kindling").addoption(
        "--kindling-grade-out",
        default=None,
        help="(used by kindling grade) where to record the session as JSON",
    )


def pytest_configure(config) -> None:
    path = config.getoption("--kindling-grade-out")
    if path:
        skip_explain_phase()  # conftest.py has loaded the course's profile by now
        config.pluginmanager.register(SessionRecorder(Path(path)), "kindling-grade")
