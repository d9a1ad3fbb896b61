"""The grader's sandbox (``kindling.sandbox``): what code inside it can see and do."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import kindling.sandbox as sandbox_module
from kindling.cli import main
from kindling.grade import GradeError, Grader
from kindling.sandbox import TREE, probe, sandbox_env, why_not

ROOT = Path(__file__).resolve().parents[2]
needs_sandbox = pytest.mark.skipif(probe() is None, reason=f"no sandbox: {why_not()}")

PROBE = r"""
import json, os, socket, sys

seen = {"uid": os.getuid(), "gid": os.getgid(), "pid": os.getpid(), "cwd": os.getcwd()}
seen["env"] = sorted(os.environ)
seen["root"] = sorted(os.listdir("/"))
home = sys.argv[1]
seen["home"] = sorted(os.listdir(home)) if os.path.isdir(home) else []
seen["source"] = os.path.isfile(sys.argv[2])
seen["processes"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
try:
    open("pyproject.toml", "a").close()
    seen["tree_writable"] = True
except OSError:
    seen["tree_writable"] = False
with open("/tmp/scratch", "w") as f:
    seen["tmp_writable"] = f.write("ok") == 2
try:
    socket.create_connection(("1.1.1.1", 80), timeout=2)
    seen["network"] = True
except OSError:
    seen["network"] = False
print(json.dumps(seen))
"""


@needs_sandbox
def test_code_inside_sees_only_its_tree_and_the_interpreter(tmp_path):
    import json

    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "pyproject.toml").write_text("")
    secret = ROOT / "kindling" / "grade.py"  # the grader's own source
    box = probe()
    argv = [sys.executable, "-c", PROBE, str(Path.home()), str(secret)]
    env = sandbox_env({"EXTRA": "1"})
    done = subprocess.run(
        box.command(argv, tree, env),
        env={**os.environ, "GITHUB_TOKEN": "tok"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["cwd"] == TREE
    assert not seen["source"]
    # $HOME holds at most the folders on the way to the interpreter (pyenv's).
    prefixes = {Path(p).resolve() for p in (sys.base_prefix, sys.prefix)}
    for name in seen["home"]:
        assert any(Path.home() / name in [q, *q.parents] for q in prefixes), name
    assert not seen["tree_writable"] and seen["tmp_writable"]
    assert not seen["network"]
    assert set(seen["env"]) <= set(env) | {"PWD"} and "GITHUB_TOKEN" not in seen["env"]
    assert seen["pid"] <= 3 and len(seen["processes"]) <= 3  # bwrap's init and us
    if "user" in box.description:
        assert (seen["uid"], seen["gid"]) == (65534, 65534)


def test_without_bubblewrap_the_grader_refuses_and_says_why(tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox_module.shutil, "which", lambda name: None)
    sandbox_module.probe.cache_clear()
    try:
        assert "bubblewrap" in why_not()
        with pytest.raises(GradeError, match="--unsafe-no-sandbox"):
            Grader(ROOT, ROOT, "0.1")
        code = main(["grade", f"--submission={ROOT}", f"--source={ROOT}"])
        assert code == 2
        Grader(ROOT, ROOT, "0.1", sandbox=False)  # told to: it will grade
    finally:
        sandbox_module.probe.cache_clear()


@needs_sandbox
def test_an_interpreter_under_tmp_stays_visible():
    """A checkout (and its .venv) under /tmp, as a CI clone may be: the sandbox's own
    /tmp must not hide the paths bound from under the real /tmp."""
    import dataclasses
    import tempfile

    outside = Path(tempfile.mkdtemp(dir="/tmp", prefix="kindling-venv-"))
    try:
        (outside / "marker.txt").write_text("visible")
        base = probe()
        sandbox = dataclasses.replace(
            base, binds=(*base.binds, "--ro-bind", str(outside), str(outside))
        )
        argv = ["/bin/cat", str(outside / "marker.txt")]
        command = sandbox.command(argv, ROOT, sandbox_env({}))
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert done.stdout == "visible"
    finally:
        (outside / "marker.txt").unlink()
        outside.rmdir()


# -- issue 30, item 1: nothing global writable, every byte and process counted ------

GLOBAL_PROC = r"""
import os

writable = []
for folder, dirs, files in os.walk("/proc"):
    if folder == "/proc":  # per-process folders are the job's own
        own = ("self", "thread-self")
        dirs[:] = [d for d in dirs if not d.isdigit() and d not in own]
    for name in files:
        path = os.path.join(folder, name)
        if os.access(path, os.W_OK):
            writable.append(path)
try:
    with open("/proc/sys/kernel/core_pattern", "r+") as f:  # the attack: as root,
        f.write(f.read())  # a pipe program here would run on the host as root
    writable.append("core_pattern written")
except OSError:
    pass
for path in ("/x", "/dev/x", "/proc/sysrq-trigger"):
    try:
        open(path, "w").close()
        writable.append(path)
    except OSError:
        pass
print("\n".join(writable))
"""


@needs_sandbox
def test_nothing_global_in_proc_nor_the_root_is_writable(tmp_path):
    """Run as root, the job's uid is root outside its namespace: a fresh procfs let
    it open /proc/sys/kernel/core_pattern for writing (issue 30)."""
    argv = [sys.executable, "-c", GLOBAL_PROC]
    command = probe().command(argv, tmp_path, sandbox_env({}))
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == []


def _job_tree(tmp_path: Path, test: str) -> Path:
    import shutil

    tree = tmp_path / "tree"
    # The job imports kindling (grade_runner, the plugin) from its tree, as it does
    # from a course tree.
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "kindling", tree / "kindling", ignore=ignore)
    (tree / "test_attack.py").write_text(test)
    return tree


def _run_attack(tmp_path: Path, test: str, memory_mb: int):
    """Run ``test`` (pytest, printing ``held N`` lines) as the grader runs a job."""
    from kindling.grade_runner import Job, Runner

    tree = _job_tree(tmp_path, test)
    args = ["-p", "kindling.grade_plugin", "-p", "no:cacheprovider", "-s", "-q"]
    job = Job([*args, "test_attack.py"], 120, memory_mb)
    with Runner(tree, probe(), tmp_path / "scratch") as runner:
        run = runner.run(job)
    lines = run.output.splitlines()
    held = [int(line.split()[1]) for line in lines if "held " in line]
    return run, max(held, default=0)


MB = 1024 * 1024
HOLD_IN_TMPFS = r"""
import os


def test_hold():
    held = 0
    for folder in ("/tmp", "/dev/shm", "/dev", "/"):
        for number in range(40):  # at most 40 x 16 MB in each
            try:
                with open(f"{folder}/hold-{number}", "wb") as f:
                    f.write(b"x" * (16 << 20))
            except OSError:
                break
            held += 16 << 20
            print("held", held, flush=True)
"""


@needs_sandbox
def test_tmpfs_pages_count_toward_the_memory_limit(tmp_path):
    """/tmp, /dev/shm, /dev and / were tmpfs a job could fill beyond its --memory
    (2.8 GB held with an RSS of 79 MB)."""
    run, held = _run_attack(tmp_path, HOLD_IN_TMPFS, memory_mb=384)
    assert 0 < held <= 384 * MB, run.output[-2000:]


HOLD_IN_MEMFD = r"""
import os


def test_hold():
    held, fds = 0, []
    for number in range(48):  # 48 x 16 MB, never mapped: no address space
        fd = os.memfd_create(f"hold-{number}")
        os.write(fd, b"x" * (16 << 20))
        fds.append(fd)
        held += 16 << 20
        print("held", held, flush=True)
"""


@needs_sandbox
def test_memfd_pages_count_toward_the_memory_limit(tmp_path):
    from kindling.grade_limits import available

    if available() is None:
        pytest.skip("no cgroup here: memfds are bounded by RLIMIT_FSIZE x NOFILE only")
    run, held = _run_attack(tmp_path, HOLD_IN_MEMFD, memory_mb=384)
    assert 0 < held <= 384 * MB, run.output[-2000:]
    assert run.out_of_memory


MANY_PROCESSES = r"""
import os
import time


def test_processes():
    started = 0
    for _ in range(1500):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:  # a child: wait for the sandbox to end
            time.sleep(60)
            os._exit(0)
        started += 1
    print("held", started, flush=True)
"""


@needs_sandbox
def test_a_job_cannot_start_unbounded_processes(tmp_path):
    """No process limit held for a grader run as root (the kernel exempts root from
    RLIMIT_NPROC): a fork bomb ran until the time limit."""
    from kindling.grade_limits import PIDS_MAX, available

    if available() is None and os.getuid() == 0:
        pytest.skip("root without cgroups: the kernel exempts root from RLIMIT_NPROC")
    run, started = _run_attack(tmp_path, MANY_PROCESSES, memory_mb=1024)
    assert 0 < started < PIDS_MAX, run.output[-2000:]


PRINT_MEGABYTES = r"""
def test_print():
    print("FIRST LINE", flush=True)
    for _ in range(40 * 1024):  # 40 MB
        print("y" * 1023, flush=False)
    print("LAST LINE", flush=True)
"""


@needs_sandbox
def test_a_jobs_output_is_read_through_a_bounded_buffer_never_kept_on_disk(tmp_path):
    """A task's output went to a file of up to 256 MB, kept until the grader ended
    (about 8 GB for a full grading, times --jobs)."""
    run, _ = _run_attack(tmp_path, PRINT_MEGABYTES, memory_mb=1024)
    assert "FIRST LINE" in run.output and "LAST LINE" in run.output
    assert "bytes of output cut" in run.output and len(run.output) < 10_000
    tree = tmp_path / "tree"
    kept = {
        path: path.stat().st_size
        for path in tmp_path.rglob("*")
        if path.is_file() and tree not in path.parents
    }
    assert all(size < 1 << 20 for size in kept.values()), kept
