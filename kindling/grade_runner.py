"""Run the grader's pytest sessions, each in its own process, under limits.

Starting Python, pytest, its plugins, NumPy and Numba costs seconds of CPU, more than
most tasks' tests. So the grader starts one *runner* per tree
(``python -m kindling.grade_runner``, in the overlay, with the grading environment)
that imports all of that once. Every job (one task's tests, one mutant) is then a
child forked from the warm runner: a process of its own, in its own process group,
with its own limits (address space, file size, no core dumps), its output in its
own file, and a time limit after which its whole group is killed. A child that
segfaults or calls ``os._exit`` takes nothing else down.

The runner reads jobs as JSON lines on stdin and answers on stdout. Where ``fork``
does not exist, each job is a fresh ``python -m kindling.grade_runner --job ...``
subprocess instead: slower, with the same results.
"""

from __future__ import annotations

import gc
import json
import os
import select
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Dict, List, Optional

FILE_SIZE_MB = 256  # the largest file a job may write, its own output included
RESPONSE_MARGIN = 60.0  # seconds the runner may take beyond a job's own limit


@dataclass
class Job:
    """One pytest session to run in ``cwd``."""

    args: List[str]  # pytest's arguments
    out: str  # where the session records itself (--kindling-grade-out)
    output: str  # the file that receives the session's stdout and stderr
    timeout: float
    memory_mb: int = 0  # address-space limit, 0 for none
    cuda: bool = False  # may touch a real GPU: no address-space limit then
    mutant: Optional[str] = None  # plant this kindling.mutation mutant first


@dataclass
class Run:
    """What one job did."""

    returncode: Optional[int]
    timed_out: bool
    seconds: float
    output: str  # the output, its middle cut when long
    session: Optional[dict]  # what the plugin recorded; None if it never finished
    log: List[str]  # "start <nodeid>" lines, to name the test that hung or crashed


def read_trimmed(path: Path, head: int = 2000, tail: int = 4000) -> str:
    """A file's text, its middle cut out when it is long (a test may print MBs)."""
    try:
        size = path.stat().st_size
        with open(path, "rb") as f:
            if size <= head + tail:
                return f.read().decode("utf-8", "replace")
            start = f.read(head).decode("utf-8", "replace")
            f.seek(size - tail)
            end = f.read().decode("utf-8", "replace")
    except OSError:
        return ""
    return f"{start}\n[... {size - head - tail} bytes of output cut ...]\n{end}"


def collect_run(job: Job, returncode: Optional[int], timed_out: bool, seconds: float):
    """The ``Run`` of a finished job, from the files it left behind."""
    session = None
    try:
        session = json.loads(Path(job.out).read_text())
    except (OSError, ValueError):
        pass
    log = Path(job.out + ".log")
    lines = log.read_text(errors="replace").splitlines() if log.is_file() else []
    output = read_trimmed(Path(job.output))
    return Run(returncode, timed_out, seconds, output, session, lines)


# ---------------------------------------------------------------------------------
# Inside the job's own process
# ---------------------------------------------------------------------------------


def apply_limits(memory_mb: int, cuda: bool) -> None:
    """Limit this process: address space, file size, and no core dumps."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not POSIX: only the time limit holds
        return
    from kindling.cudasim import gpu_present

    # A real GPU's driver maps far more address space than it uses: no RLIMIT_AS.
    if memory_mb and not (cuda and gpu_present()):
        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    size = FILE_SIZE_MB * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))


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


def execute(job: Job) -> int:
    """Run the job's pytest session in this process; return pytest's exit code."""
    import pytest

    seed_global_generators()
    args, plugins = list(job.args), []
    if job.mutant is not None:
        from kindling.mutation import plant

        extra_args, plugin = plant(job.mutant, Path(job.out))
        args, plugins = extra_args + args, [plugin]
    return int(pytest.main(args, plugins=plugins))


def _child(job: Job, protocol: int) -> None:
    """The forked child: its own group, limits and output, then the session."""
    code = 3
    try:
        os.close(protocol)  # the runner's answers are not the job's to write
        os.setpgid(0, 0)
        fd = os.open(job.output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
        quiet = os.open(os.devnull, os.O_RDONLY)
        os.dup2(quiet, 0)  # a test that reads stdin must not read the runner's jobs
        os.close(quiet)
        apply_limits(job.memory_mb, job.cuda)
        code = execute(job)
    except BaseException:  # noqa: BLE001 - report, then leave at once
        import traceback

        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _wait(pid: int, limit: float):
    """Wait for a child up to ``limit`` seconds: (exit code, timed out)."""
    deadline = time.monotonic() + limit
    pause = 0.002
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            _kill_group(pid)  # anything the job left running
            return os.waitstatus_to_exitcode(status), False
        if time.monotonic() > deadline:
            _kill_group(pid)
            _, status = os.waitpid(pid, 0)
            return os.waitstatus_to_exitcode(status), True
        time.sleep(pause)
        pause = min(pause * 1.5, 0.05)


def preload() -> None:
    """Import, once, what every job needs: pytest, its plugins, Hypothesis, NumPy,
    Numba (``pyproject.toml`` names a Numba warning class, so pytest imports Numba to
    read its configuration). Never the course's own packages: the jobs import those
    fresh. A failure here is left for the jobs to meet and report."""
    from importlib.metadata import entry_points

    from kindling.cudasim import configure_cuda_simulator

    configure_cuda_simulator()  # before Numba reads its configuration, as conftest
    import pytest  # noqa: F401

    for plugin in entry_points(group="pytest11"):
        try:
            plugin.load()
        except Exception:  # noqa: BLE001
            pass
    for name in ("hypothesis", "numpy", "numba", "kindling.grade"):
        try:
            __import__(name)
        except Exception:  # noqa: BLE001
            pass
    gc.freeze()  # the jobs' garbage collections then skip all of this


def serve() -> None:
    """The runner's loop: a job per line on stdin, its answer on stdout."""
    protocol = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # nothing but answers may reach the protocol
    preload()

    def answer(data: dict) -> None:
        os.write(protocol, (json.dumps(data) + "\n").encode())

    for line in sys.stdin:
        job = Job(**json.loads(line))
        start = time.monotonic()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _child(job, protocol)
        answer({"pid": pid})
        returncode, timed_out = _wait(pid, job.timeout)
        seconds = time.monotonic() - start
        answer({"returncode": returncode, "timed_out": timed_out, "seconds": seconds})


# ---------------------------------------------------------------------------------
# The grader's side
# ---------------------------------------------------------------------------------


def _preexec(memory_mb: int, cuda: bool):
    if sys.platform == "win32":  # pragma: no cover
        return None
    return lambda: apply_limits(memory_mb, cuda)


class Runner:
    """Runs jobs in ``root`` with ``env``; a context manager."""

    def __init__(self, root: Path, env: Dict[str, str], log: Path) -> None:
        self.root, self.env, self.log = Path(root), env, Path(log)
        self.process: Optional[subprocess.Popen] = None
        # KINDLING_GRADE_NO_FORK=1 forces the plain subprocesses (for debugging).
        no_fork = os.environ.get("KINDLING_GRADE_NO_FORK") == "1"
        self.forking = hasattr(os, "fork") and not no_fork
        self.pending = b""  # bytes read from the runner beyond the last answer

    def __enter__(self) -> "Runner":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self.process is not None:
            _kill_group(self.process.pid)
            self.process.wait()
            self.process = None
            self.pending = b""

    def _start(self) -> subprocess.Popen:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log, "ab") as log:
            return subprocess.Popen(
                [sys.executable, "-m", "kindling.grade_runner", "--serve"],
                cwd=self.root,
                env=self.env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                bufsize=0,
                start_new_session=True,
            )

    def run(self, job: Job) -> Run:
        """Run one job; never raises because of what the job's code did."""
        for stale in (job.out, job.out + ".log"):
            Path(stale).unlink(missing_ok=True)
        Path(job.output).parent.mkdir(parents=True, exist_ok=True)
        if self.forking:
            return self._run_forked(job)
        return self._run_subprocess(job)

    def _run_forked(self, job: Job) -> Run:
        if self.process is None or self.process.poll() is not None:
            self.process = self._start()
        start = time.monotonic()
        process = self.process
        process.stdin.write((json.dumps(asdict(job)) + "\n").encode())
        started = self._answer(process, RESPONSE_MARGIN * 2)  # includes the preload
        answer = None
        if started is not None:
            answer = self._answer(process, job.timeout + RESPONSE_MARGIN)
        if answer is None:  # the runner itself died or hung: start afresh next time
            if started is not None:
                _kill_group(started["pid"])
            self.close()
            seconds = time.monotonic() - start
            run = collect_run(job, None, seconds >= job.timeout, seconds)
            run.output = run.output or read_trimmed(self.log)  # why the runner died
            return run
        return collect_run(
            job, answer["returncode"], answer["timed_out"], answer["seconds"]
        )

    def _answer(self, process: subprocess.Popen, limit: float) -> Optional[dict]:
        """The runner's next answer line, or None if none comes within ``limit``."""
        deadline = time.monotonic() + limit
        fd = process.stdout.fileno()
        while b"\n" not in self.pending:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:  # the runner is gone
                return None
            self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        try:
            return json.loads(line)
        except ValueError:
            return None

    def _run_subprocess(self, job: Job) -> Run:
        command = [sys.executable, "-m", "kindling.grade_runner", "--job"]
        command.append(json.dumps(asdict(job)))
        start = time.monotonic()
        timed_out = False
        with open(job.output, "wb") as output:
            process = subprocess.Popen(
                command,
                cwd=self.root,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_preexec(job.memory_mb, job.cuda),
            )
            try:
                process.wait(timeout=job.timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                process.kill()
                process.wait()
        return collect_run(job, process.returncode, timed_out, time.monotonic() - start)


def main(argv: Optional[List[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--serve"]:
        serve()
        return 0
    if argv[:1] == ["--job"] and len(argv) == 2:
        return execute(Job(**json.loads(argv[1])))
    print(
        "usage: python -m kindling.grade_runner --serve | --job JSON", file=sys.stderr
    )
    return 2


if __name__ == "__main__":
    sys.exit(main())
