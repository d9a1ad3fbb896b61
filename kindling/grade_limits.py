"""Limits on a whole job, not one process: a control group (cgroup) per job.

``RLIMIT_AS`` bounds one process's address space, and nothing else: pages kept in a
tmpfs (``/tmp``, ``/dev/shm``) or in a ``memfd`` that is written but never mapped
count toward no process, a job may start many processes, and ``RLIMIT_NPROC`` is
never enforced for the host's root (which a sandboxed job *is*, outside its user
namespace, when the grader runs as root). A memory cgroup charges every page a job
touches (anonymous memory, tmpfs and memfd pages, page cache) to the job, and a pids
cgroup counts its processes and threads, so where the grader may create cgroups
(root on cgroup v1 or v2, or a delegated v2 subtree), each job gets one:

- ``memory.limit_in_bytes`` (v1) / ``memory.max`` (v2) = the job's ``--memory``;
- ``pids.max`` = :data:`PIDS_MAX`;
- an equal CPU share, where the CPU controller is there: ``cpu.shares`` (v1) /
  ``cpu.weight`` (v2), the same for every job. The scheduler shares the CPU between
  cgroups first and between a cgroup's processes second, so a job that starts 24
  busy processes gets what a job with one gets, and cannot slow the job of
  another submission (``--jobs N``) below its share.

The grader's child process enters the cgroup before it execs bwrap
(:meth:`JobCgroup.enter`, from ``preexec_fn``), so nothing the job starts is ever
outside it. Where no cgroup can be made, :func:`available` is None and the job has
rlimits only (see ``docs/GRADING.md``, "What the grader trusts").
"""

from __future__ import annotations

import functools
import itertools
import os
import signal
import time
from pathlib import Path
from typing import Dict, List, Optional

PIDS_MAX = 512  # processes and threads of one job (Numba's pool included)
CPU_SHARES = 1024  # every job's cgroup v1 cpu.shares (the same for all: equal)
CPU_WEIGHT = 100  # every job's cgroup v2 cpu.weight (the same for all: equal)
V1_CONTROLLERS = ("memory", "pids", "cpu")
_COUNTER = itertools.count()


def _mounts() -> Dict[str, Path]:
    """Where each cgroup hierarchy of this process lives: {"memory": dir, "pids":
    dir, "cpu": dir} for v1 controllers, {"unified": dir} for v2
    (this process's own cgroup)."""
    try:
        mountinfo = Path("/proc/self/mountinfo").read_text().splitlines()
        own = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return {}
    paths: Dict[str, str] = {}  # controller (or "") -> this process's cgroup path
    for line in own:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        for controller in parts[1].split(",") if parts[1] else [""]:
            paths[controller] = parts[2]
    found: Dict[str, Path] = {}
    for line in mountinfo:
        fields = line.split()
        if " - " not in line or len(fields) < 5:
            continue
        after = line.split(" - ", 1)[1].split()
        fstype, options = after[0], after[2].split(",") if len(after) > 2 else []
        root, point = fields[3], fields[4]
        if fstype == "cgroup2" and "" in paths:
            key, wanted = "unified", paths[""]
        elif fstype == "cgroup":
            names = [c for c in V1_CONTROLLERS if c in options]
            if not names:
                continue
            key, wanted = names[0], paths.get(names[0], "")
        else:
            continue
        if not wanted.startswith(root):
            continue
        relative = wanted[len(root) :].lstrip("/")
        found.setdefault(key, Path(point) / relative)
        if fstype == "cgroup":  # one hierarchy may hold several ("cpu,cpuacct")
            for name in names[1:]:
                found.setdefault(name, Path(point) / relative)
    return found


class JobCgroup:
    """One job's cgroup(s): made with limits, entered by the job, removed after."""

    def __init__(self, folders: List[Path], version: int) -> None:
        self.folders, self.version = folders, version

    @classmethod
    def create(cls, memory_bytes: int, pids: int = PIDS_MAX) -> Optional["JobCgroup"]:
        """A fresh cgroup with these limits (``memory_bytes`` 0: none), or None."""
        mounts = _mounts()
        name = f"kindling-{os.getpid()}-{next(_COUNTER)}"
        made: List[Path] = []
        try:
            if "memory" in mounts and "pids" in mounts:  # cgroup v1
                memory, tasks = mounts["memory"] / name, mounts["pids"] / name
                for folder in (memory, tasks):
                    folder.mkdir()
                    made.append(folder)
                if memory_bytes:
                    _write(memory / "memory.limit_in_bytes", str(memory_bytes))
                    # No swap either, where swap accounting exists.
                    swap = memory / "memory.memsw.limit_in_bytes"
                    if swap.exists():
                        _write(swap, str(memory_bytes))
                _write(tasks / "pids.max", str(pids))
                if "cpu" in mounts:  # an equal share (optional: never refused)
                    try:
                        share = mounts["cpu"] / name
                        share.mkdir()
                        made.append(share)
                        _write(share / "cpu.shares", str(CPU_SHARES))
                    except OSError:
                        pass
                return cls(made, 1)
            if "unified" in mounts:  # cgroup v2: needs memory and pids delegated
                parent = mounts["unified"]
                enabled = (parent / "cgroup.subtree_control").read_text().split()
                if not {"memory", "pids"} <= set(enabled):
                    _write(parent / "cgroup.subtree_control", "+memory +pids")
                if "cpu" not in enabled:  # an equal share, where it is delegated
                    try:
                        _write(parent / "cgroup.subtree_control", "+cpu")
                    except OSError:
                        pass
                folder = parent / name
                folder.mkdir()
                made.append(folder)
                if memory_bytes:
                    _write(folder / "memory.max", str(memory_bytes))
                    _write(folder / "memory.swap.max", "0")
                _write(folder / "pids.max", str(pids))
                if (folder / "cpu.weight").exists():
                    _write(folder / "cpu.weight", str(CPU_WEIGHT))
                return cls(made, 2)
        except OSError:
            cls(made, 0).remove()
        return None

    def enter(self) -> None:
        """Move the calling process into the cgroup (in the job's child, before it
        execs: everything the job starts is born inside)."""
        for folder in self.folders:
            _write(folder / "cgroup.procs", str(os.getpid()))

    @property
    def shares_cpu(self) -> bool:
        """Whether the job has a CPU share of its own (cpu.shares / cpu.weight)."""
        return any(
            (folder / name).exists()
            for folder in self.folders
            for name in ("cpu.shares", "cpu.weight")
        )

    def out_of_memory(self) -> bool:
        """Whether the kernel killed something of the job for memory."""
        for folder in self.folders:
            for name in ("memory.events", "memory.oom_control"):
                try:
                    text = (folder / name).read_text()
                except OSError:
                    continue
                for line in text.splitlines():
                    key, _, value = line.partition(" ")
                    if key == "oom_kill" and value.strip() not in ("", "0"):
                        return True
        return False

    def remove(self) -> None:
        """Kill whatever is left in the cgroup and remove it."""
        for folder in self.folders:
            for _ in range(50):
                try:
                    pids = (folder / "cgroup.procs").read_text().split()
                except OSError:
                    break
                for pid in pids:
                    try:
                        os.kill(int(pid), signal.SIGKILL)
                    except (OSError, ValueError):
                        pass
                try:
                    folder.rmdir()
                    break
                except OSError:
                    time.sleep(0.02)  # the killed processes are still exiting


def _write(path: Path, text: str) -> None:
    with open(path, "w") as out:
        out.write(text)


@functools.lru_cache(maxsize=None)
def available() -> Optional[str]:
    """How jobs are limited as a whole here, in words, or None (rlimits only)."""
    probe = JobCgroup.create(64 * 1024 * 1024)
    if probe is None:
        return None
    cpu = ", an equal CPU share" if probe.shares_cpu else ""
    probe.remove()
    return f"cgroup v{probe.version} (memory and process count per task{cpu})"
