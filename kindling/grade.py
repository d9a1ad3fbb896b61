"""Grade a submission against the pristine tests of the course (``kindling grade``).

The grader is the authority on a student's marks, so it trusts nothing a submission
holds but the text of the files a student is meant to edit, and nothing a process
that imports student code says without checking it (``docs/GRADING.md``):

1. **Overlay.** A fresh copy of the *pristine tree* (the instructor source, hidden
   tests included, or a student edition) is made in a temporary directory, and only
   the student files named in the registry are copied over it from the submission:
   regular files whose path, fully resolved, stays inside the submission; a symlink
   anywhere on the path is refused and reported. A student file the submission
   lacks becomes its stub, never the reference solution.
2. **Protected files.** Every other file of the submission is compared with the
   hashes of the edition (``.kindling-manifest.json``); edits are reported, and have
   no effect because the pristine copy is what runs.
3. **The pristine tests are collected first**, before any student file is in the
   tree: the grader knows which tests each task has (cached where no student code
   can write, keyed by the tree's content and signed).
4. **One sandbox per task** (:mod:`kindling.sandbox`, :mod:`kindling.grade_runner`):
   the task's tests run in bubblewrap, the tree read-only, with a time limit, limits
   on memory and file size, Hypothesis derandomized and hash seeds fixed. A hang is
   ``timeout``; a process that dies before pytest finishes is ``crashed``.
5. **Verdicts from outside.** The session reports each test's outcome on a pipe;
   the grader counts them itself against the tests it collected: a result for a
   test that does not exist marks the task ``tampered``; malformed results (a
   second result for one test included) mark it ``crashed``. Those claims can
   still be forged upwards, so for every task but 0.2 the points are bounded by
   values checked outside the sandbox (:mod:`kindling.grade_values`); the tests
   (hidden ones included) can only take points away.
6. **Task 0.2** is graded by mutation testing (:mod:`kindling.mutation`).
7. **Feedback** shown to the student is cut to test names, exception messages and
   traceback lines in student files; a line of a file the student edition does not
   ship never reaches it.
8. **Reports** (:mod:`kindling.grade_reports`) are rewritten after every task.

Statuses: ``done``, ``failing``, ``todo`` (the task's own stubs are still in place),
``blocked-by X.Y`` (the task's tests stop at the stub of another task), ``timeout``,
``crashed``, ``tampered`` and ``no tests`` (no test carries the task's marker).

The pytest plugin loaded into every grading session is :mod:`kindling.grade_plugin`
(it runs inside the sandbox and imports none of this); the verdict, pure functions
from a session's claims to a grade, is :mod:`kindling.grade_verdict`.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import shutil
import signal
import stat
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Set, Tuple

from kindling.grade_cache import (
    cache_dir,
    cache_secret,
    sign,
    copy_tree,
    load_signed,
    store_signed,
    tree_key,
)
from kindling.grade_runner import (  # noqa: F401 - re-exported
    PYTEST_OPTIONS,
    Job,
    Run,
    Runner,
    Session,
    session_job,
)
from kindling.grade_verdict import (  # noqa: F401 - the grader's verdict, re-exported
    MESSAGE_CHARS,
    SECRET_KEY,
    STUB_IN_TEXT,
    Feedback,
    TaskGrade,
    _points,
    _stub_summary,
    clean_message,
    describe_death,
    feedback,
    judge,
    secret_lines,
    tampering,
)
from kindling.registry import Registry, Task, parse_registry

DEFAULT_MEMORY_MB = 4096
COLLECT_TIMEOUT = 600
REGISTRY_FILE = Path("kindling") / "tasks.toml"
MANIFEST = ".kindling-manifest.json"
TMP_PREFIX = "kindling-grade-"
# Never copied into an overlay: version control, caches, environments, old results.


class GradeError(RuntimeError):
    """The grader cannot start: a missing directory, an unknown task, ..."""


# ---------------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------------


@dataclass
class GradeReport:
    """Everything one grading run found out."""

    source: str
    submission: str
    tasks: List[TaskGrade] = field(default_factory=list)
    modified: List[str] = field(default_factory=list)
    missing: List[str] = field(default_factory=list)
    errors: List[str] = field(default_factory=list)
    refused: List[str] = field(default_factory=list)  # paths of the submission refused
    seconds: float = 0.0
    aborted: bool = False  # the grader could not grade at all (see errors)
    interrupted: bool = False  # SIGTERM/SIGINT: only some tasks were graded
    sandbox: str = ""  # how the tasks were confined, in words
    version: str = ""  # the grader's version
    date: str = ""  # when the grading started (UTC)
    partial: bool = False  # --partial: proportional points for every task
    values_seed: Optional[int] = None  # the probes' seed (kindling/grade_values.py)

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
            "refused_paths": self.refused,
            "interrupted": self.interrupted,
            "sandbox": self.sandbox,
            "grader_version": self.version,
            "partial": self.partial,
            "source": self.source,
            "submission": self.submission,
            "timing": {  # everything that changes from run to run
                "date": self.date,
                "total_seconds": round(self.seconds, 2),
                "tasks": {t.id: round(t.seconds, 2) for t in self.tasks},
                "values_seed": self.values_seed,
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


# ---------------------------------------------------------------------------------
# Submission paths: regular files inside the submission, never through a symlink
# ---------------------------------------------------------------------------------


def safe_file(submission: Path, relative: str) -> Tuple[Optional[Path], str]:
    """``(path, "")`` for a regular file at ``relative`` inside ``submission``, else
    ``(None, why)``: ``why`` is ``""`` when the file simply is not there.

    Every component is checked with ``lstat`` (a symlink anywhere on the path is
    refused, not followed), and the resolved path must stay inside the submission.
    """
    parts = Path(relative).parts
    if Path(relative).is_absolute() or ".." in parts:
        return None, f"{relative}: not a path inside the submission"
    current = submission
    for number, part in enumerate(parts):
        current = current / part
        try:
            info = os.lstat(current)
        except FileNotFoundError:
            return None, ""
        except OSError as error:
            return None, f"{relative}: {error.strerror}"
        if stat.S_ISLNK(info.st_mode):
            where = "/".join(parts[: number + 1])
            return None, f"{relative}: {where} is a symbolic link (refused)"
        last = number == len(parts) - 1
        if last and not stat.S_ISREG(info.st_mode):
            return None, f"{relative}: not a regular file (refused)"
        if last and info.st_size > PROTECTED_BYTES:
            return None, f"{relative}: larger than {PROTECTED_BYTES >> 20} MB (refused)"
        if not last and not stat.S_ISDIR(info.st_mode):
            return None, ""
    resolved = current.resolve()
    if submission.resolve() not in resolved.parents:
        return None, f"{relative}: resolves outside the submission (refused)"
    return current, ""


def _copy_regular(path: Path, target: Path) -> None:
    """Copy a regular file without following a symlink swapped in meanwhile."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as source, open(target, "wb") as out:
        if not stat.S_ISREG(os.fstat(source.fileno()).st_mode):
            raise OSError(f"{path} is not a regular file")
        shutil.copyfileobj(source, out)


def overlay_student_files(
    work: Path, source: Path, submission: Path, registry: Registry
) -> Tuple[Dict[str, str], List[str]]:
    """Copy the submission's student files over the pristine copy in ``work``.

    Returns where each student file came from (``"submission"``, or ``"stub"`` when
    the submission lacks it: the student edition's stub of the source file, so that
    a missing file never leaves the reference solution in place) and the paths
    refused, with why.
    """
    from kindling.regions import strip_regions

    origin: Dict[str, str] = {}
    refused: List[str] = []
    for relative in student_files(registry):
        target = work / relative
        theirs, why = safe_file(submission, relative)
        if why:
            refused.append(why)
        if theirs is not None:
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.exists():
                target.unlink()
            _copy_regular(theirs, target)
            origin[relative] = "submission"
        elif (source / relative).is_file() and relative.endswith(".py"):
            text = (source / relative).read_text(encoding="utf-8")
            target.write_text(strip_regions(text, relative, registry)[0])
            origin[relative] = "stub"
        elif target.exists():
            target.unlink()
            origin[relative] = "missing"
    return origin, refused


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
    from kindling import plugins
    from kindling.regions import file_digest, source_files

    # Cutting an edition is the staff package's (kindling_staff.release), found
    # by its entry point: this package never imports the staff one.
    release = plugins.load(plugins.GRADING, "edition")
    if release is None:
        raise GradeError(
            f"{source} has no {MANIFEST}: grading from the instructor source "
            "needs the staff package (kindling_staff), which cuts its edition"
        )

    present = [
        int(match[1])
        for path in submission.iterdir()
        if path.is_dir()
        and not path.is_symlink()
        and (match := re.match(r"module(\d+)_", path.name))
    ]
    last = max(t.module for t in registry)
    through = max(present) if present and max(present) < last else None
    # Cutting the edition takes most of a second; a batch grades every student
    # against the same source: remember the hashes by the source's content.
    digest = hashlib.sha256(f"{through}|{registry!r}".encode())
    for path in source_files(source):
        digest.update(f"{path.relative_to(source)}:{file_digest(path)}\n".encode())
    key = digest.hexdigest()
    if key not in _EDITION_HASHES:
        # On disk too (signed like the collection): the grader processes of a
        # parallel batch, or the next run, do not cut the same edition again.
        protected = load_signed(f"edition-{key[:32]}.json", key)
        if protected is None:
            release(source, scratch, through=through, force=True, registry=registry)
            protected = json.loads((scratch / MANIFEST).read_text())["protected"]
            store_signed(f"edition-{key[:32]}.json", key, protected)
        while len(_EDITION_HASHES) >= 8:
            _EDITION_HASHES.pop(next(iter(_EDITION_HASHES)))
        _EDITION_HASHES[key] = protected
    return dict(_EDITION_HASHES[key])


# The protected files' hashes of the editions cut by expected_hashes, by the
# content of their source (see there).
_EDITION_HASHES: Dict[str, Dict[str, str]] = {}


def protected_changes(
    submission: Path, expected: Dict[str, str], source: Optional[Path] = None
) -> Tuple[List[str], List[str]]:
    """(modified, missing) protected files of the submission. A file is as
    expected when it is the edition's, or the ``source``'s own (the instructor
    source graded as a submission keeps its README and pyproject, which an
    edition rewrites)."""
    modified, missing = [], []
    for relative, digest in sorted(expected.items()):
        path, why = safe_file(submission, relative)
        if path is None:  # refused (a link, too large) is there, and not the file
            (modified if why else missing).append(relative)
            continue
        found = capped_digest(path)
        if found == digest:
            continue
        original = safe_file(source, relative)[0] if source is not None else None
        if found is None or original is None or capped_digest(original) != found:
            modified.append(relative)
    return modified, missing


PROTECTED_BYTES = 16 * 1024 * 1024  # no file of an edition is near this size


def capped_digest(path: Path, limit: int = PROTECTED_BYTES) -> Optional[str]:
    """The sha256 of a file read in chunks, or None (modified) when it is larger
    than ``limit``: a 1 GB sparse README costs neither memory nor time."""
    try:
        with open(path, "rb") as f:
            if os.fstat(f.fileno()).st_size > limit:
                return None
            digest, left = hashlib.sha256(), limit + 1
            while left > 0:
                chunk = f.read(min(1 << 20, left))
                if not chunk:
                    return digest.hexdigest()
                digest.update(chunk)
                left -= len(chunk)
    except OSError:
        return None
    return None  # grew past the limit while being read


# ---------------------------------------------------------------------------------
# Which tests belong to which task (collected from the pristine tree)
# ---------------------------------------------------------------------------------


@dataclass
class Collection:
    """The tests of the pristine tree, by task id."""

    tests: Dict[str, List[str]]  # task -> node ids
    ok: bool = True  # False: collection failed; every task then runs all of tests/
    broken: List[str] = field(default_factory=list)  # files that did not collect

    def files(self, task_id: str) -> List[str]:
        return sorted({nodeid.split("::")[0] for nodeid in self.tests.get(task_id, [])})

    def all_ids(self) -> Set[str]:
        return {nodeid for ids in self.tests.values() for nodeid in ids}


def load_cached_collection(work: Path, key: str) -> Optional[Collection]:
    """A verified cache entry: signed with this user's key, for exactly this tree,
    naming only test files the tree has. Anything else is ignored."""
    folder = cache_dir()
    try:
        entry = json.loads((folder / f"collection-{key[:32]}.json").read_text())
        secret = cache_secret(folder)
        tests, mac = entry["tests"], entry["mac"]
        if entry["key"] != key or not hmac.compare_digest(
            mac, sign(secret, key, tests)
        ):
            return None
        for nodeids in tests.values():
            for nodeid in nodeids:
                if not (work / nodeid.split("::")[0]).is_file():
                    return None
        return Collection({str(k): list(v) for k, v in tests.items()})
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def store_collection(key: str, tests: Dict[str, List[str]]) -> None:
    folder = cache_dir()
    try:
        secret = cache_secret(folder)
        entry = {"key": key, "tests": tests, "mac": sign(secret, key, tests)}
        cached = folder / f"collection-{key[:32]}.json"
        partial = cached.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(json.dumps(entry))
        os.replace(partial, cached)
    except OSError:
        pass  # a read-only home only costs time


def collect(runner: Runner, work: Path, files: List[str], scratch: Path) -> Collection:
    """Collect every test of the pristine tree once (no student file is in it yet).

    The result is cached by the tree's content, signed with this user's key.
    """
    key = tree_key(work, files)
    cached = load_cached_collection(work, key)
    if cached is not None:
        return cached
    args = ["--collect-only", "--continue-on-collection-errors"]
    args += ["--ignore=tests/kindling", "tests"]
    run = runner.run(session_job(args, scratch, COLLECT_TIMEOUT, DEFAULT_MEMORY_MB))
    session = run.session
    if (
        run.timed_out
        or session.problem
        or not session.collected
        or session.exitstatus not in (0, 1, 2, 5)
    ):
        return Collection({}, ok=False)
    tests: Dict[str, List[str]] = {}
    for nodeid, task in session.items:
        if task is not None:
            tests.setdefault(task, []).append(nodeid)
    broken = sorted(error["nodeid"] for error in session.collection_errors)
    if broken:  # the instructor's tests are broken: nothing worth caching
        return Collection(tests, broken=broken)
    store_collection(key, tests)
    return Collection(tests)


# ---------------------------------------------------------------------------------
# Grading one task
# ---------------------------------------------------------------------------------


@dataclass
class Plan:
    """What the grader knows before any student code runs."""

    collection: Collection
    context: Feedback
    partial: bool = False
    shipped: Set[str] = field(default_factory=set)  # what a student edition ships


def grade_task(
    task: Task,
    runner: Runner,
    plan: Plan,
    scratch: Path,
    timeout: float,
    memory_mb: int,
) -> TaskGrade:
    """Run one task's tests in a sandbox of their own and grade them."""
    collection = plan.collection
    if collection.ok:
        files = collection.files(task.id)
        expected: Optional[List[str]] = collection.tests.get(task.id, [])
        if not files:
            grade = TaskGrade.for_task(task)
            grade.status = "no tests"
            grade.message = "no test carries this task's marker"
            return grade
    else:
        files, expected = ["--ignore=tests/kindling", "tests"], None
    args = ["--continue-on-collection-errors", "-m", task.marker, *files]
    job = session_job(args, scratch, timeout, memory_mb, task.cuda)
    run = runner.run(job)
    grade = judge(
        task,
        run,
        expected,
        plan.context,
        timeout,
        collection.all_ids(),
        plan.partial,
    )
    return grade


# ---------------------------------------------------------------------------------
# The whole run
# ---------------------------------------------------------------------------------


class GradingInterrupted(KeyboardInterrupt):
    """SIGTERM (or SIGINT) arrived: stop, clean up, leave a valid partial report."""


def _interrupt(signum, frame) -> None:
    raise GradingInterrupted(signal.Signals(signum).name)


def remove_stale_trees() -> None:
    """Remove the temporary trees of graders that died without cleaning up."""
    base = Path(tempfile.gettempdir())
    for folder in base.glob(f"{TMP_PREFIX}*"):
        try:
            if folder.is_symlink() or folder.stat().st_uid != os.getuid():
                continue
            pid = int((folder / "grader.pid").read_text())
            os.kill(pid, 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except (OSError, ValueError):
            continue


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
        sandbox: bool = True,
        partial: bool = False,
        on_update: Callable[[GradeReport], None] = lambda report: None,
        kernel_cache: Optional[Path] = None,
    ) -> None:
        from kindling import __version__
        from kindling.sandbox import SandboxUnavailable, require

        self.submission = Path(submission).absolute()
        if not self.submission.is_dir():
            raise GradeError(f"the submission {submission} is not a directory")
        self.source = Path(source).resolve() if source else default_source()
        if not is_course_tree(self.source):
            raise GradeError(f"{self.source} is not a course tree (no {REGISTRY_FILE})")
        self.registry = read_registry(self.source)
        try:
            self.selected = self.registry.select(tasks)
        except KeyError as error:
            raise GradeError(str(error.args[0])) from None
        if sandbox:
            try:
                self.sandbox = require()
            except SandboxUnavailable as error:
                raise GradeError(
                    f"cannot sandbox the student's code: {error}. Refusing to grade; "
                    "--unsafe-no-sandbox grades without a sandbox (student code then "
                    "runs as you, sees your files and can forge its results)"
                ) from None
            where = f"bubblewrap ({self.sandbox.description})"
        else:
            self.sandbox, where = None, "none (--unsafe-no-sandbox)"
        from kindling.grade_limits import available

        where += f"; limits: {available() or 'per-process rlimits only (no cgroup)'}"
        self.report = GradeReport(str(self.source), str(self.submission))
        self.report.sandbox, self.report.version = where, __version__
        self.report.partial = partial
        self.report.date = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        self.timeout, self.memory_mb, self.echo = timeout, memory_mb, echo
        self.partial, self.on_update = partial, on_update
        # Trusted compiled kernels every sandbox may read (docs/GRADING.md, "The
        # trusted kernel cache"); None: every task compiles its kernels afresh.
        self.kernel_cache = Path(kernel_cache).resolve() if kernel_cache else None
        if self.kernel_cache is not None:
            if not self.kernel_cache.is_dir():
                raise GradeError(f"the kernel cache {kernel_cache} is not a directory")
            where += f"; trusted kernel cache (read-only): {self.kernel_cache}"
            self.report.sandbox = where
        self.report.tasks = [TaskGrade.for_task(t) for t in self.selected]
        # Hook: values checked outside the sandbox (kindling/grade_values.py).
        from kindling.grade_values import ValuesCheck

        self.values = ValuesCheck(
            self.source, self.registry, self.sandbox, self.kernel_cache
        )
        self.report.sandbox += f"; {self.values.summary}"
        # The seed is reported where it decides something: the probes' inputs, or
        # Task 0.2's planted mutants (kindling/mutation.py: graded_mutants).
        mutation = any(t.scoring == "mutation" for t in self.selected)
        if mutation or self.values.tasks & {t.id for t in self.selected}:
            self.report.values_seed = self.values.seed

    def run(self) -> GradeReport:
        """Grade every selected task. SIGTERM and SIGINT stop it cleanly: the report
        says which tasks were graded, and the temporary tree is removed."""
        start = time.monotonic()
        handlers = {}
        for signum in (signal.SIGTERM, signal.SIGINT):
            try:
                handlers[signum] = signal.signal(signum, _interrupt)
            except ValueError:  # not the main thread: no handlers
                pass
        remove_stale_trees()
        tmp = Path(tempfile.mkdtemp(prefix=TMP_PREFIX))
        try:
            (tmp / "grader.pid").write_text(str(os.getpid()))
            self._run(tmp)
        except KeyboardInterrupt as error:
            self.report.interrupted = True
            self.report.errors.append(f"grading interrupted ({error or 'SIGINT'})")
            for grade in self.report.tasks:
                if grade.message.startswith("not graded"):
                    grade.message = "not graded: the grading was interrupted"
        finally:
            for signum, handler in handlers.items():
                signal.signal(signum, handler)
            self.report.seconds = time.monotonic() - start
            shutil.rmtree(tmp, ignore_errors=True)
        return self.report

    def _run(self, tmp: Path) -> None:
        work = tmp / "work"
        try:
            files = copy_tree(self.source, work)
        except Exception as error:  # noqa: BLE001 - always leave a complete report
            self._fail_all(f"grader error while copying the source: {error!r}")
            return
        runner_scratch = tmp / "runner"
        # One runner for the submission's tasks: each may load the kernels the
        # earlier ones compiled (share_kernels; kindling/grade_kernels.py).
        runner = Runner(work, self.sandbox, runner_scratch, self.kernel_cache, True)
        with runner:
            try:
                plan = self._prepare(runner, work, files, tmp)
            except Exception as error:  # noqa: BLE001
                self._fail_all(f"grader error while preparing: {error!r}")
                return
            self._update()
            for index, task in enumerate(self.selected):
                self.echo(f"grading Task {task.id} ({task.title}) ...")
                try:
                    grade = self._grade(task, runner, work, plan, tmp)
                except Exception as error:  # noqa: BLE001 - grade every other task
                    grade = TaskGrade.for_task(task)
                    grade.message = f"grader error: {error!r}"
                self.report.tasks[index] = grade
                self._update()

    def _update(self) -> None:
        """Tell ``on_update`` (which writes the reports); a failure there is an
        error of the report, never the end of the grading."""
        try:
            self.on_update(self.report)
        except Exception as error:  # noqa: BLE001 - grade every other task
            message = f"grader error while writing the reports: {error!r}"
            if message not in self.report.errors:
                self.report.errors.append(message)

    def _prepare(self, runner: Runner, work: Path, files: List[str], tmp: Path) -> Plan:
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
        expected = expected_hashes(
            self.source, self.submission, self.registry, tmp / "edition"
        )
        student = set(student_files(self.registry))
        shipped = set(expected) | student
        secrets = secret_lines(work, files, shipped)
        _, self.report.refused = overlay_student_files(
            work, self.source, self.submission, self.registry
        )
        self.report.modified, self.report.missing = protected_changes(
            self.submission, expected, self.source
        )
        ids = {t.id for t in self.registry}
        context = Feedback(work, student, secrets, task_ids=ids)
        return Plan(collection, context, self.partial, shipped)

    def _grade(
        self, task: Task, runner: Runner, work: Path, plan: Plan, tmp: Path
    ) -> TaskGrade:
        timeout = self.timeout or task.timeout
        scratch = tmp / "runs" / task.id
        if task.scoring != "mutation":
            grade = grade_task(task, runner, plan, scratch, timeout, self.memory_mb)
            # Hook: the values bound the points (kindling/grade_values.py).
            return self.values.check(
                task,
                grade,
                runner,
                lambda tree, where: Runner(
                    tree, self.sandbox, where, self.kernel_cache
                ),
                scratch,
                timeout,
                self.memory_mb,
                self.partial,
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
                        plan,
                        tmp / "runs" / f"{dependency}-for-{task.id}",
                        timeout,
                        self.memory_mb,
                    )
                if grade.status != "done":
                    return dependency
            return None

        source = self.source if has_reference else None
        return grade_by_mutation(
            task,
            work,
            source,
            scratch,
            timeout,
            self.memory_mb,
            blocker,
            sandbox=self.sandbox,
            context=plan.context,
            shipped=plan.shipped or None,
            # The grading's seed draws the planted mutants: a batch's jobs and
            # shards share it, so they plant the same.
            seed=self.values.seed,
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
    sandbox: bool = True,
    partial: bool = False,
) -> GradeReport:
    """Grade ``submission`` against ``source`` (default: the tree of this grader)."""
    return Grader(
        submission, source, tasks, timeout, memory_mb, sandbox=sandbox, partial=partial
    ).run()
