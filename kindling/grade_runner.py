"""Run the grader's pytest sessions, each in a sandbox of its own, under limits.

Every job (one task's tests, one mutant, the collection of the pristine tests) is a
fresh ``python -m kindling.grade_runner --job JSON`` process inside a bubblewrap
sandbox (:mod:`kindling.sandbox`) with the job's tree mounted read-only, limits on
address space and file size, and a time limit after which the sandbox is killed
(its PID namespace takes every process the job started with it).

**What the grader reads, and what it never trusts.** The session inside reports
its events (tests collected, each test's outcome, the end of the session) as JSON
lines on a pipe whose write end only the job holds: nothing is read back from a file
the sandbox could write, and nothing a job does after its sandbox is gone can reach
the grader. The events are *claims* of a process that imports student code: the
grader parses them defensively (:class:`Session`; a malformed or impossible stream
is a ``problem``, never an exception) and :mod:`kindling.grade_verdict` checks them
against what it knows itself (the tests it collected from the pristine tree). What
such claims can still forge, passes, bounds no points of a probed task: those come
from values (:mod:`kindling.grade_values`).

Without bubblewrap (``--unsafe-no-sandbox``), the same command runs as a plain
subprocess in its own session: every other defence holds, but the job runs with the
grader's uid and can see the machine.
"""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

from kindling.grade_kernels import (
    KERNELS_FD,
    SUBMISSION_KERNELS,
    TRUSTED_KERNELS,
    Received,
    SubmissionKernels,
    link_submission_kernels,
    link_trusted_kernels,
    send_compiled_kernels,
    trusted_kernel_dirs,
)
from kindling.grade_limits import JobCgroup, available
from kindling.sandbox import KERNELS, TREE, Sandbox, sandbox_env, tmpfs_sizes
from kindling.served import FDS

FILE_SIZE_MB = 256  # the largest file a job may write (in its /tmp, or a memfd)
OPEN_FILES = 1024  # descriptors per process (each memfd is one, see apply_limits)
PROTOCOL_LIMIT = 64 * 1024 * 1024  # bytes of events a job may send
DRAIN_SECONDS = 2.0  # how long to read events after the job's main process ended
EVENTS = {"start", "report", "collected", "collection_error", "finish", "settings"}
EVENT_LIMIT = 200_000  # events per session (a test sends 4: start, 3 reports)
EVENT_BYTES = 1 << 20  # bytes per event (a failure record is some kilobytes)
RECORD_BYTES = 16 << 20  # bytes of failure records kept per session, in all
TASK_ID = re.compile(r"\d{1,3}\.\d{1,3}")


# The options of every grading session. Plugins are not loaded from entry points
# (the job's environment sets PYTEST_DISABLE_PLUGIN_AUTOLOAD, see
# kindling.grade_runner): the only third-party plugin the tests need is Hypothesis's,
# named here by its entry point (so that it is not registered twice where autoloading
# is on). Autoloaded plugins cost about 0.4 s per session, mostly because pytest
# rewrites the asserts of every module of a plugin's distribution (all of
# Hypothesis) afresh in a read-only sandbox, where no rewritten bytecode is cached.
PYTEST_OPTIONS = [
    "-p",
    "hypothesispytest",
    "-q",
    "--tb=short",
    "--show-capture=no",  # what a test printed is not part of its grade
    "--color=no",
    "-p",
    "no:cacheprovider",
    "-p",
    "no:randomly",
    "-p",
    "kindling.grade_plugin",
    "--hypothesis-seed=0",
    "--kindling-json=",  # the progress plugin writes no file (the tree is read-only)
    "-W",
    "ignore::pytest.PytestAssertRewriteWarning",
]


def session_job(
    args: List[str],
    scratch: Path,
    timeout: float,
    memory_mb: int,
    cuda: bool = False,
    binds: Optional[List[Tuple[str, str]]] = None,
) -> Job:
    """A grading session's job: pytest ``args`` with the grading options."""
    scratch.mkdir(parents=True, exist_ok=True)
    args = [*PYTEST_OPTIONS, *args]
    return Job(args, timeout, memory_mb, cuda, list(binds or []))


@dataclass
class Job:
    """One pytest session to run in ``tree``."""

    args: List[str]  # pytest's arguments
    timeout: float
    memory_mb: int = 0  # address-space limit, 0 for none
    cuda: bool = False  # may touch a real GPU: no address-space limit then
    # (file outside, path inside the tree): bound read-only over the tree's file
    binds: List[Tuple[str, str]] = field(default_factory=list)
    # Hook for values checked outside the sandbox (kindling/grade_values.py): the
    # module run as ``python -m ENTRY --job JSON`` in the sandbox, and the parser of
    # what it sends (an object with ``feed(bytes) -> bool`` and ``close()``).
    entry: str = "kindling.grade_runner"
    stream: Optional[Callable[[], Any]] = None
    # Functions the job calls and the grader runs (kindling/served.py: Task 0.2's
    # operators): an object with ``start(requests_fd, replies_fd)`` and ``join()``.
    service: Optional[Any] = None


@dataclass
class Outcome:
    """What the session claims about one test."""

    outcome: str  # "passed", "failed" or "skipped"
    stub: str = ""  # the task whose stub a failure came from, "" if none
    message: Optional[dict] = None  # see kindling.grade_plugin.failure_record


@dataclass
class Session:
    """The events of one session, parsed; ``problem`` names what did not parse."""

    exitstatus: Optional[int] = None  # None: the session never said it finished
    items: List[Tuple[str, Optional[str]]] = field(default_factory=list)
    collected: bool = False
    outcomes: Dict[str, Outcome] = field(default_factory=dict)
    collection_errors: List[dict] = field(default_factory=list)
    started: List[str] = field(default_factory=list)
    problem: Optional[str] = None
    settings: List[str] = field(default_factory=list)  # Hypothesis settings changed

    @property
    def finished(self) -> bool:
        return self.exitstatus is not None


@dataclass
class Run:
    """What one job did."""

    returncode: Optional[int]
    timed_out: bool
    seconds: float
    output: str  # the output, its middle cut when long (for messages only)
    session: Session
    out_of_memory: bool = False  # the job's cgroup saw the kernel kill for memory


class HeadTail:
    """A job's output (stdout and stderr), read from its pipe as it comes: only the
    first ``head`` and the last ``tail`` bytes are kept, so that a test printing
    gigabytes costs the grader a few kilobytes of memory and nothing on disk."""

    def __init__(self, head: int = 2000, tail: int = 4000) -> None:
        self.head_bytes, self.tail_bytes = head, tail
        self.head, self.tail = bytearray(), bytearray()
        self.size = 0

    def feed(self, chunk: bytes) -> None:
        self.size += len(chunk)
        room = self.head_bytes - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk[-self.tail_bytes :]
            del self.tail[: max(0, len(self.tail) - self.tail_bytes)]

    def text(self) -> str:
        """The output, its middle cut out when it is long (for messages only)."""
        start = self.head.decode("utf-8", "replace")
        end = self.tail.decode("utf-8", "replace")
        cut = self.size - len(self.head) - len(self.tail)
        if cut <= 0:
            return start + end
        return f"{start}\n[... {cut} bytes of output cut ...]\n{end}"


# ---------------------------------------------------------------------------------
# Parsing the events (the grader's side: nothing here may raise)
# ---------------------------------------------------------------------------------


def _text(value: object, limit: int = 20000) -> str:
    return value[:limit] if isinstance(value, str) else ""


# A lone surrogate escape (not half of a pair): JSON allows it, UTF-8 cannot encode
# it, and a report holding one could not be written.
_LONE_SURROGATE = re.compile(
    rb"(\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    rb"|\\u[dD][89a-fA-F][0-9a-fA-F]{2}"
)


def _valid_unicode(raw: bytes) -> bytes:
    if b"\\u" not in raw and b"\\U" not in raw:
        return raw
    return _LONE_SURROGATE.sub(lambda m: m[1] or rb"\ufffd", raw)


class BoundedLines:
    """A pipe read as lines as they arrive, under limits: nothing is held but the
    line being received (at most :attr:`line_bytes`; a longer line is skipped as
    it arrives, never kept whole, and reported once by :meth:`too_long`), and
    reading stops (:attr:`full`) once more than :attr:`total_bytes` came
    (:meth:`overflow`) or a subclass says so. Each ended line (blank ones too)
    goes to :meth:`ended_line`. Nothing here raises, whatever the pipe sends."""

    line_bytes: int
    total_bytes: int

    def __init__(self) -> None:
        self.received = 0  # bytes
        self.lines = 0  # lines ended (blank ones included)
        self.full = False  # a limit was reached: read no more
        self._line = bytearray()  # the line being received
        self._skipping = False  # the line being received is already too long

    def feed(self, chunk: bytes) -> bool:
        """Take the next bytes of the pipe; False once no more should be read."""
        if self.full:
            return False
        self.received += len(chunk)
        start = 0
        while not self.full:
            end = chunk.find(b"\n", start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            if not self._skipping:
                if len(self._line) + len(piece) > self.line_bytes:
                    self.too_long(self.lines + 1)
                    self._skipping = True
                    self._line.clear()
                else:
                    self._line += piece
            if end < 0:
                break
            self._end_line()
            start = end + 1
        if self.received > self.total_bytes and not self.full:
            self.overflow()
            self.full = True
        return not self.full

    def flush(self) -> None:
        """The pipe is closed: a last line without its newline counts."""
        if (self._line or self._skipping) and not self.full:
            self._end_line()

    def _end_line(self) -> None:
        raw, skipped = bytes(self._line), self._skipping
        self._line.clear()
        self._skipping = False
        self.lines += 1
        self.ended_line(self.lines, raw, skipped)

    def too_long(self, number: int) -> None:
        """Line ``number`` is longer than :attr:`line_bytes`."""

    def overflow(self) -> None:
        """More than :attr:`total_bytes` came."""

    def ended_line(self, number: int, raw: bytes, skipped: bool) -> None:
        """Line ``number`` ended: ``raw`` (empty when it was ``skipped``)."""


class EventStream(BoundedLines):
    """A session's events, parsed as they arrive from its pipe, under the limits:
    lines of at most :data:`EVENT_BYTES`, reading stops at the
    :data:`EVENT_LIMIT`-th line or at :data:`PROTOCOL_LIMIT` bytes. The failure
    records kept are bounded too (:data:`RECORD_BYTES` in all; later failures keep
    their outcome without their record). Nesting deeper than JSON's parser allows
    is "not JSON"."""

    line_bytes = EVENT_BYTES
    total_bytes = PROTOCOL_LIMIT - 1

    def __init__(self) -> None:
        super().__init__()
        self.session = Session()
        self._records = 0  # bytes of the events whose failure record was kept

    def problem(self, text: str) -> None:
        self.session.problem = self.session.problem or text

    def too_long(self, number: int) -> None:
        self.problem(f"message {number} is longer than any test's report can be")

    def overflow(self) -> None:
        self.problem("the session sent more messages than any test run can")

    def close(self) -> Session:
        """The session, once the pipe is closed."""
        self.flush()
        return self.session

    def ended_line(self, number: int, raw: bytes, skipped: bool) -> None:
        if number > EVENT_LIMIT:  # blank lines count: each costs a step
            self.problem("the session sent more messages than any test run can")
            self.full = True
            return
        if skipped or not raw.strip():
            return
        self._event(number, raw)

    def _event(self, number: int, raw: bytes) -> None:
        session, problem = self.session, self.problem
        try:
            event = json.loads(_valid_unicode(raw))
        except (ValueError, RecursionError):
            problem(f"message {number} is not JSON")
            return
        if not isinstance(event, dict) or event.get("event") not in EVENTS:
            problem(f"message {number} is not an event")
            return
        if session.finished:
            problem("messages after the end of the session")
            return
        kind = event["event"]
        nodeid = event.get("nodeid")
        if kind == "settings":  # a student file changed the Hypothesis settings
            changes = event.get("changes")
            if isinstance(changes, list):
                for change in changes[:20]:
                    if isinstance(change, str) and change[:200] not in session.settings:
                        session.settings.append(change[:200])
            return
        if kind not in ("finish", "collected") and not isinstance(nodeid, str):
            problem(f"message {number} names no test")
            return
        if kind == "start":
            session.started.append(nodeid)
        elif kind == "collection_error":
            message = _text(event.get("message"))
            session.collection_errors.append({"nodeid": nodeid, "message": message})
        elif kind == "collected":
            items = event.get("items")
            valid = isinstance(items, list) and all(
                isinstance(item, list)
                and len(item) == 2
                and isinstance(item[0], str)
                and (item[1] is None or isinstance(item[1], str))
                for item in items
            )
            if not valid or session.collected:
                problem("a malformed or repeated list of collected tests")
                return
            session.items = [(item[0], item[1]) for item in items]
            session.collected = True
        elif kind == "report":
            keep = self._records + len(raw) <= RECORD_BYTES
            if _add_report(session, event, problem, keep):
                self._records += len(raw)
        elif kind == "finish":
            status = event.get("exitstatus")
            if not isinstance(status, int) or isinstance(status, bool):
                problem("a malformed end of the session")
                return
            session.exitstatus = status


def parse_events(data: bytes) -> Session:
    """The session described by ``data`` (all of a pipe's bytes), read as
    :class:`EventStream` reads a pipe; never raises, whatever ``data`` holds."""
    stream = EventStream()
    view = memoryview(data)
    for start in range(0, len(data), 1 << 16):
        if not stream.feed(bytes(view[start : start + (1 << 16)])):
            break
    return stream.close()


def _add_report(session: Session, event: dict, problem, keep: bool = True) -> bool:
    """Add one report event; ``keep``: whether a failure's record may be kept.
    True when a failure record was kept."""
    nodeid, when, outcome = event["nodeid"], event.get("when"), event.get("outcome")
    if when not in ("setup", "call", "teardown") or outcome not in (
        "passed",
        "failed",
        "skipped",
    ):
        problem(f"a malformed report of {nodeid}")
        return False
    message = event.get("message")
    stub = event.get("stub") if isinstance(event.get("stub"), str) else ""
    if not TASK_ID.fullmatch(stub):  # a label is a task id ("0.1"), or nothing
        stub = ""
    previous = session.outcomes.get(nodeid)
    if previous is not None and previous.outcome == "failed":
        return False  # a failure in setup or call is not undone by teardown
    if outcome == "failed":
        record = message if isinstance(message, dict) and keep else None
        session.outcomes[nodeid] = Outcome("failed", stub, record)
        return record is not None
    if outcome == "skipped":
        session.outcomes[nodeid] = Outcome("skipped", "", None)
    elif when == "call":
        if previous is not None and previous.outcome == "passed":
            problem(f"two passing reports of {nodeid}")
            return False
        session.outcomes[nodeid] = Outcome("passed")
    return False


# ---------------------------------------------------------------------------------
# Inside the job's own process
# ---------------------------------------------------------------------------------


def apply_limits(
    memory_mb: int, cuda: bool, cgroup: Optional[JobCgroup] = None
) -> None:
    """Limit this process (the job's, before it execs): its cgroup, address space,
    file size, open files, processes, and no core dumps.

    With a cgroup, the cgroup bounds the job's memory as a whole (tmpfs and memfd
    pages included) and its process count. Without one, what the job keeps in its
    sized ``/tmp`` and ``/dev/shm`` is taken off its address space, a memfd is a file
    (``RLIMIT_FSIZE`` bounds each, ``RLIMIT_NOFILE`` their number), and
    ``RLIMIT_NPROC`` bounds processes (except for root, whom the kernel exempts).
    """
    if cgroup is not None:
        cgroup.enter()
    try:
        import resource
    except ImportError:  # pragma: no cover - not POSIX: only the time limit holds
        return
    from kindling.cudasim import gpu_present
    from kindling.grade_limits import PIDS_MAX

    # A real GPU's driver maps far more address space than it uses: no RLIMIT_AS.
    if memory_mb and not (cuda and gpu_present()):
        limit = memory_mb * 1024 * 1024
        if cgroup is None:
            limit = max(limit - sum(tmpfs_sizes(memory_mb)), limit // 2)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    size = FILE_SIZE_MB * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    _lower(resource, resource.RLIMIT_NOFILE, OPEN_FILES)
    if cgroup is None:
        _lower(resource, resource.RLIMIT_NPROC, PIDS_MAX + _own_processes())


def _lower(resource, which: int, value: int) -> None:
    """Lower a limit to ``value`` (never raise it)."""
    soft, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(which, (value, value))


def _own_processes() -> int:
    """About how many threads this uid already runs (RLIMIT_NPROC counts them all)."""
    uid, count = os.getuid(), 0
    try:
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                try:
                    if entry.stat().st_uid == uid:
                        count += len(os.listdir(f"/proc/{entry.name}/task"))
                except OSError:
                    continue
    except OSError:
        return 4096
    return count


def seed_global_generators() -> None:
    """Fix the seeds of the global random generators a test might use unseeded, so
    that grading the same submission twice gives the same results."""
    import random

    random.seed(0)
    try:
        import numpy
    except ImportError:  # pragma: no cover - numpy is a course dependency
        return
    numpy.random.seed(0)


def execute(args: List[str]) -> int:
    """Run a pytest session in this process; return pytest's exit code."""
    import pytest

    seed_global_generators()
    # Before any course module is imported: the kernels compiled already (the
    # submission's earlier jobs', then the trusted cache's), see grade_kernels.
    link_submission_kernels(os.environ.get(SUBMISSION_KERNELS))
    link_trusted_kernels(os.environ.get(TRUSTED_KERNELS))
    code = int(pytest.main(list(args)))
    send_compiled_kernels(os.environ.pop(KERNELS_FD, None))
    return code


# ---------------------------------------------------------------------------------
# The grader's side
# ---------------------------------------------------------------------------------


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class Runner:
    """Runs jobs over ``tree``, in ``sandbox`` (None: unsandboxed, see above)."""

    def __init__(
        self,
        tree: Path,
        sandbox: Optional[Sandbox],
        scratch: Path,
        kernel_cache: Optional[Path] = None,
        share_kernels: bool = False,
    ) -> None:
        self.tree, self.sandbox, self.scratch = Path(tree), sandbox, Path(scratch)
        self.process: Optional[subprocess.Popen] = None
        # The trusted kernel cache's folders (see trusted_kernel_dirs), read-only.
        self.kernels = trusted_kernel_dirs(kernel_cache) if kernel_cache else []
        # The kernels this runner's jobs compiled, offered to its later jobs: one
        # submission's tasks (never its Task 0.2 runs, which must not be able to
        # leave anything for each other). Without a sandbox the jobs share a
        # writable home, and with it the kernel cache, already.
        self.compiled: Optional[SubmissionKernels] = None
        if share_kernels and sandbox is not None:
            self.compiled = SubmissionKernels(self.scratch / "compiled-kernels")

    def __enter__(self) -> "Runner":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Kill the job in progress, if any (the grader is being interrupted)."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            _kill_group(process.pid)
            process.wait()

    def command(
        self, job: Job, fd: int, kernels_fd: int = -1, served: str = ""
    ) -> Tuple[List[str], Optional[Dict[str, str]]]:
        """The job's command line, and its environment when it is not in ``argv``
        (bwrap sets the sandbox's own environment). ``kernels_fd``: where the job
        sends the kernels it compiled (see grade_kernels), -1 for nowhere;
        ``served``: the descriptors of its served calls (see kindling.served)."""
        pytest_args = [*job.args, f"--kindling-grade-fd={fd}"]
        argv = [sys.executable, "-s", "-m", job.entry, "--job"]
        argv.append(json.dumps(pytest_args))
        # Only the plugins named in the arguments (see PYTEST_OPTIONS above).
        extra = {
            "KINDLING_HYPOTHESIS_PROFILE": "ci",
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        }
        if served:
            extra[FDS] = served
        env = sandbox_env(extra)
        if self.sandbox is None:
            env["NUMBA_CACHE_DIR"] = str(self.scratch / "numba-cache")
            env["HOME"] = env["TMPDIR"] = str(self.scratch)
            if self.kernels:
                pairs = [[k, str(self.tree / p)] for k, p in self.kernels]
                env[TRUSTED_KERNELS] = json.dumps(pairs)
            return argv, env
        binds = [(outside, inside) for outside, inside in job.binds]
        sizes = tmpfs_sizes(job.memory_mb)
        ro_dirs = [(k, f"{KERNELS}/{p}") for k, p in self.kernels]
        if ro_dirs:
            pairs = [
                [inside, f"{TREE}/{p}"]
                for (_, inside), (_, p) in zip(ro_dirs, self.kernels)
            ]
            env[TRUSTED_KERNELS] = json.dumps(pairs)
        if self.compiled is not None:
            store = self.compiled.bind()
            ro_dirs += store
            if store:
                env[SUBMISSION_KERNELS] = SubmissionKernels.INSIDE
            if kernels_fd >= 0:
                env[KERNELS_FD] = str(kernels_fd)
        command = self.sandbox.command(argv, self.tree, env, binds, (), sizes, ro_dirs)
        return command, None

    def run(self, job: Job) -> Run:
        """Run one job; never raises because of what the job's code did."""
        read, write = os.pipe()
        # The job's output comes through a pipe of its own, read into a bounded
        # head-and-tail buffer: nothing of it is ever written to disk.
        out_read, out_write = os.pipe()
        swapped = self._swap_in(job) if self.sandbox is None else []
        memory = job.memory_mb * 1024 * 1024
        cgroup = JobCgroup.create(memory) if available() else None
        start = time.monotonic()
        stream, output = (job.stream or EventStream)(), HeadTail()
        # The kernels the job compiled come out through a third pipe (see
        # grade_kernels), for the submission's later jobs.
        kernels_read, kernels_write = os.pipe() if self.compiled else (-1, -1)
        received = Received()
        # A service's calls: requests from the job, replies to it.
        unused = (-1, -1)
        calls, replies = (os.pipe(), os.pipe()) if job.service else (unused, unused)
        served = f"{calls[1]},{replies[0]}" if job.service else ""
        try:
            argv, env = self.command(job, write, kernels_write, served)
            self.process = subprocess.Popen(
                argv,
                cwd=self.tree,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out_write,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                pass_fds=tuple(
                    fd for fd in (write, kernels_write, calls[1], replies[0]) if fd >= 0
                ),
                preexec_fn=lambda: apply_limits(job.memory_mb, job.cuda, cgroup),
            )
            for fd in (write, out_write, kernels_write, calls[1], replies[0]):
                if fd >= 0:
                    os.close(fd)
            write = out_write = kernels_write = -1
            if job.service:
                job.service.start(calls[0], replies[1])  # the service closes them
            calls = replies = (-1, -1)
            sinks = {out_read: output.feed, kernels_read: received.feed}
            timed_out = self._read(read, sinks, job.timeout, stream)
            process, self.process = self.process, None
            _kill_group(process.pid)  # whatever the job left running
            returncode = process.wait()
            if self.compiled is not None and not timed_out:
                self.compiled.receive(received)
        finally:
            fds = (read, write, out_read, out_write, kernels_read, kernels_write)
            for fd in (*fds, *calls, *replies):
                if fd >= 0:
                    os.close(fd)
            if job.service:
                job.service.join()
            self.close()
            self._swap_out(swapped)
            out_of_memory = cgroup is not None and cgroup.out_of_memory()
            if cgroup is not None:
                cgroup.remove()
        seconds = time.monotonic() - start
        session = stream.close()
        return Run(
            returncode, timed_out, seconds, output.text(), session, out_of_memory
        )

    def _read(
        self,
        events: int,
        sinks: Dict[int, Callable[[bytes], Any]],
        limit: float,
        stream: EventStream,
    ) -> bool:
        """Read the events (into ``stream``, as they arrive) and the other pipes
        (each into its sink: the output, the kernels) until the job is gone; True
        when it ran out of time."""
        deadline = time.monotonic() + limit
        ended: Optional[float] = None  # when the main process ended
        sinks = {fd: sink for fd, sink in sinks.items() if fd >= 0}
        reading = [events, *sinks]
        while True:
            now = time.monotonic()
            if ended is None and self.process.poll() is not None:
                ended = now
            if not reading:  # every writer is gone
                left = max(deadline - now, 0.01)
                try:
                    self.process.wait(timeout=left)
                except subprocess.TimeoutExpired:
                    return True
                return False
            if ended is not None and now - ended > DRAIN_SECONDS:
                return False  # something else holds the pipes: cut
            if now > deadline:
                return ended is None
            wait = min(deadline - now, 0.2)
            for fd in select.select(reading, [], [], wait)[0]:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    reading.remove(fd)
                elif fd in sinks:
                    sinks[fd](chunk)
                elif not stream.feed(chunk):
                    return False  # past the limits: nothing more is read

    def _swap_in(self, job: Job) -> List[Tuple[Path, Path]]:
        """Without a sandbox, a bind is a copy over the tree's file (undone after)."""
        swapped = []
        for outside, inside in job.binds:
            target = self.tree / inside
            keep = target.with_name(target.name + ".kindling-original")
            shutil.copyfile(target, keep)
            shutil.copyfile(outside, target)
            swapped.append((keep, target))
        return swapped

    @staticmethod
    def _swap_out(swapped: List[Tuple[Path, Path]]) -> None:
        for keep, target in swapped:
            os.replace(keep, target)


def tree_path(path: str, tree: Path) -> str:
    """A path a job reported, relative to its tree (inside or outside the sandbox)."""
    for root in (TREE, str(tree), str(Path(tree).resolve())):
        if path.startswith(root + "/"):
            return path[len(root) + 1 :]
    return path


def main(argv: Optional[List[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--job"] and len(argv) == 2:
        return execute(json.loads(argv[1]))
    print("usage: python -m kindling.grade_runner --job JSON", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
