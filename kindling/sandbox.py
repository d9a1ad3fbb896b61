"""The sandbox every graded pytest session runs in: bubblewrap (``bwrap``).

The grader runs code it must not trust. Each job (one task's tests, one mutant) runs
in a fresh bubblewrap sandbox (Debian's ``bubblewrap`` package, the sandbox of
Flatpak), never in a home-made one:

- its own **user** (uid/gid 65534 inside a new user namespace, every capability
  dropped, ``no_new_privs``), **PID** (the job cannot see or signal any other
  process; when the job's main process ends, the kernel kills everything it started,
  ``setsid`` included), **mount**, **network** (no network at all), IPC and UTS
  namespaces, and a new terminal session;
- a file system made of read-only binds only: the system's ``/usr`` (and the few
  ``/etc`` files the dynamic linker and Python read), the Python installation and
  the virtual environment the grader runs from, and the job's *tree* (the pristine
  tests with the submission's student files over them) at :data:`TREE`; a private
  ``/tmp`` and ``/dev/shm`` (sized) that vanish with the job; ``/``, ``/dev`` and
  ``/proc`` read-only. The instructor source, the grader's own
  files, other submissions, caches and ``$HOME`` are simply not there;
- a scrubbed environment (:func:`sandbox_env`): no token, no ``PYTHONPATH``;
- ``--die-with-parent``: nothing outlives the grader.

Which of these a machine allows is probed once (:func:`probe`): the strongest
configuration that runs is used and described (:attr:`Sandbox.description`), and
when ``bwrap`` is missing or no configuration runs, :func:`require` says why, and the
grader refuses to grade unless told ``--unsafe-no-sandbox``.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

TREE = "/kindling/tree"  # where the job's tree appears inside the sandbox
# Where trusted compiled kernels appear, read-only (``kindling grade --kernel-cache``).
KERNELS = "/kindling/kernels"
SANDBOX_UID = 65534  # "nobody": not the grader's uid
TMP_BYTES = 512 * 1024 * 1024  # the largest private /tmp of a job (in memory)
SHM_BYTES = 64 * 1024 * 1024  # the largest /dev/shm of a job (in memory)
# The /etc files a Python process and the dynamic linker read; nothing else of /etc.
ETC_FILES = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/nsswitch.conf",
    "/etc/alternatives",
    "/etc/passwd",
    "/etc/group",
)
# Variables a job may inherit from the grader (everything else is dropped).
PASSED_ENV = (
    "LANG",
    "LC_ALL",
    "NUMBA_NUM_THREADS",
    "KINDLING_THREAD_SHARE",  # (the tests' conftest: threads per process)
    "NUMBA_ENABLE_CUDASIM",
    "TZ",
)

# The configurations tried, strongest first: (name, bwrap options).
_NAMESPACES = ["--unshare-all", "--die-with-parent", "--new-session"]
_USER = [
    "--unshare-user",
    "--uid",
    str(SANDBOX_UID),
    "--gid",
    str(SANDBOX_UID),
    "--cap-drop",
    "ALL",
]
CONFIGURATIONS = (
    ("user, pid, mount, network, ipc and uts namespaces", _NAMESPACES + _USER),
    (
        "pid, mount, network, ipc and uts namespaces (no user namespace: "
        "the job keeps the grader's uid)",
        _NAMESPACES + ["--cap-drop", "ALL"],
    ),
)


class SandboxUnavailable(RuntimeError):
    """No sandbox can run here: bwrap is missing or the kernel refuses it."""


@dataclass(frozen=True)
class Sandbox:
    """A working bubblewrap configuration."""

    bwrap: str
    options: Sequence[str]
    description: str
    binds: Sequence[str] = field(default_factory=tuple)  # read-only system paths
    devices: Sequence[str] = field(default_factory=tuple)  # GPU device nodes

    def command(
        self,
        argv: Sequence[str],
        tree: Path,
        env: Dict[str, str],
        extra_binds: Sequence[tuple] = (),
        keep_fds: Sequence[int] = (),
        tmpfs_bytes: Tuple[int, int] = (TMP_BYTES, SHM_BYTES),
        ro_dirs: Sequence[Tuple[str, str]] = (),
    ) -> List[str]:
        """The bwrap command that runs ``argv`` in ``TREE`` (``tree``, read-only).

        ``extra_binds`` are ``(outside, inside)`` files bound read-only over paths
        of the tree (a mutant's ``operators.py``). ``env`` is the whole environment
        of the job. The descriptors ``keep_fds`` stay open (bwrap passes inherited
        descriptors on). ``tmpfs_bytes``: the sizes of ``/tmp`` and ``/dev/shm``, the
        only writable file systems (see :func:`tmpfs_sizes`). ``ro_dirs`` are
        ``(outside, inside)`` folders bound read-only at absolute paths outside the
        tree (the trusted kernel cache, under :data:`KERNELS`).
        """
        tmp, shm = tmpfs_bytes
        # /tmp lives in memory: its size is bounded like the job's own memory. It
        # is mounted before the binds, so that an interpreter (or a virtualenv)
        # that lives under /tmp stays visible on top of it instead of hidden.
        command = [self.bwrap, *self.options]
        command += ["--size", str(tmp), "--tmpfs", "/tmp"]
        command += [*self.binds, "--ro-bind", str(tree), TREE]
        for outside, inside in extra_binds:
            command += ["--ro-bind", str(outside), f"{TREE}/{inside}"]
        for outside, inside in ro_dirs:
            command += ["--ro-bind", str(outside), str(inside)]
        # A fresh procfs still shows the host's global files (/proc/sys, ...). Run
        # as root, the job's uid is the host's root outside the namespace, and the
        # kernel lets it write them (core_pattern: a program run as root at the
        # next crash). Read-only, every write there fails with EROFS, whoever runs
        # the grader; bwrap itself covers only /proc/irq and /proc/bus.
        command += ["--proc", "/proc", "--remount-ro", "/proc"]
        command += ["--dev", "/dev"]
        command += list(self.devices)  # after --dev, which would hide them
        # /dev and / are tmpfs without a size: writable, they would be memory
        # nobody counts. Only /tmp and /dev/shm (both sized) stay writable.
        command += ["--size", str(shm), "--tmpfs", "/dev/shm"]
        command += ["--remount-ro", "/dev", "--remount-ro", "/"]
        command += ["--chdir", TREE, "--clearenv"]
        for key, value in sorted(env.items()):
            command += ["--setenv", key, value]
        del keep_fds  # documented above: nothing to do, bwrap keeps them open
        return command + ["--", *argv]


def tmpfs_sizes(memory_mb: int) -> Tuple[int, int]:
    """The sizes of a job's ``/tmp`` and ``/dev/shm`` under a memory limit of
    ``memory_mb`` (0: none): at most a quarter and a sixteenth of it, so that what a
    job keeps there counts toward its limit (see kindling.grade_runner)."""
    if not memory_mb:
        return TMP_BYTES, SHM_BYTES
    limit = memory_mb * 1024 * 1024
    return min(TMP_BYTES, limit // 4), min(SHM_BYTES, limit // 16)


def _system_binds() -> List[str]:
    """Read-only binds of the system and of the running Python, and nothing else."""
    binds: List[str] = ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = Path("/") / name
        if path.is_symlink():
            binds += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            binds += ["--ro-bind", str(path), str(path)]
    for path in ETC_FILES:
        binds += ["--ro-bind-try", path, path]
    # The interpreter and its packages: the base installation and the environment.
    seen: List[Path] = []
    for prefix in (sys.base_prefix, sys.prefix, sys.exec_prefix):
        resolved = Path(prefix).resolve()
        if str(resolved).startswith("/usr/") or resolved == Path("/usr"):
            continue
        if any(resolved == s or s in resolved.parents for s in seen):
            continue
        seen.append(resolved)
        binds += ["--ro-bind", str(resolved), str(resolved)]
        if Path(prefix) != resolved:  # the path the interpreter knows itself by
            binds += ["--ro-bind", str(resolved), str(prefix)]
    return binds


def _gpu_devices() -> List[str]:
    """The NVIDIA device nodes, so that the CUDA tasks use a real GPU where one is
    (without them, the tests fall back to Numba's CUDA simulator)."""
    devices: List[str] = []
    for node in sorted(Path("/dev").glob("nvidia*")):
        devices += ["--dev-bind-try", str(node), str(node)]
    if devices and Path("/proc/driver/nvidia").is_dir():
        devices += ["--ro-bind-try", "/proc/driver/nvidia", "/proc/driver/nvidia"]
    return devices


def sandbox_env(extra: Dict[str, str]) -> Dict[str, str]:
    """The whole environment of a job: a few harmless variables and ``extra``."""
    env = {key: os.environ[key] for key in PASSED_ENV if key in os.environ}
    env.setdefault("LANG", "C.UTF-8")
    env.update(
        PATH=f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
        HOME="/tmp",
        TMPDIR="/tmp",
        PYTHONHASHSEED="0",
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONUNBUFFERED="1",
        NUMBA_CACHE_DIR="/tmp/numba-cache",
        MPLBACKEND="Agg",
        MPLCONFIGDIR="/tmp/matplotlib",
    )
    env.update(extra)
    return env


@functools.lru_cache(maxsize=None)
def probe() -> Optional[Sandbox]:
    """The strongest configuration that runs here, or None (see :func:`why_not`)."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return None
    binds, devices = tuple(_system_binds()), tuple(_gpu_devices())
    for description, options in CONFIGURATIONS:
        sandbox = Sandbox(bwrap, tuple(options), description, binds, devices)
        check = [sys.executable, "-S", "-c", "import os; print(os.getuid())"]
        command = sandbox.command(check, Path("/usr"), sandbox_env({}))
        try:
            done = subprocess.run(command, capture_output=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0:
            return sandbox
    return None


def why_not() -> str:
    """Why :func:`probe` found no sandbox, in words."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return (
            "bubblewrap (bwrap) is not installed: install it (Debian/Ubuntu: "
            "apt-get install bubblewrap)"
        )
    check = [bwrap, *CONFIGURATIONS[-1][1], "--ro-bind", "/", "/", "true"]
    try:
        done = subprocess.run(check, capture_output=True, text=True, timeout=60)
        reason = done.stderr.strip() or f"exit status {done.returncode}"
    except (OSError, subprocess.TimeoutExpired) as error:
        reason = repr(error)
    return f"bwrap cannot create namespaces here: {reason}"


def require() -> Sandbox:
    """The sandbox, or :class:`SandboxUnavailable` saying why there is none."""
    sandbox = probe()
    if sandbox is None:
        raise SandboxUnavailable(why_not())
    return sandbox
