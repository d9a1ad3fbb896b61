"""Compiled kernels a grading job may load instead of compiling them.

Most of a Module 3 or 4 task's time is Numba compiling kernels: cold, the whole
course's kernels take minutes, and every task's sandbox starts with an empty
``/tmp``. Two sources of compiled kernels are offered to a job, both *read-only*:

- **The trusted kernel cache** (``kindling grade --kernel-cache DIR``): a folder
  of kernels compiled on the host by a trusted run (CI's own test run of the
  instructor source, say), bound read-only into every sandbox of every submission.
- **The submission's own kernels**: what the earlier tasks of the *same*
  submission compiled. A job sends the kernels it compiled out through a pipe when
  its session ends (:func:`send_compiled_kernels`); the grader keeps them, bounded
  in size and checked by name, in a folder of that submission's grading
  (:class:`SubmissionKernels`) and binds it read-only into the submission's later
  jobs (a full grading's time with and without it: ``docs/GRADING.md``).

Neither can make a job run code that is not the code it grades:
module3_fast_ops.kernel_cache keys every kernel by the code of every function it
runs (and the options and constants compiled in), so a kernel is loaded only where
the graded code is that code. A submission's kernels come from its own sandboxes,
so they are exactly as trusted as the submission: they are offered to that
submission's jobs and to no one else's (another student, the reference's values),
and the grader itself only copies them (it never reads or unpickles a kernel).

The cache code wants a writable folder (it writes a kernel it had to compile, and
its lock files); the job gets one in its own ``/tmp``, filled with symbolic links to
the read-only files: a kernel compiled there replaces its link in the job's /tmp
(and is sent out at the end), and is gone with the job.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
import tarfile
from pathlib import Path
from typing import List, Optional, Tuple

__all__ = [
    "TRUSTED_KERNELS",
    "SUBMISSION_KERNELS",
    "KERNELS_FD",
    "KERNEL_SUFFIXES",
    "trusted_kernel_dirs",
    "kernels_root",
    "kernel_cache_folder",
    "link_trusted_kernels",
    "link_submission_kernels",
    "send_compiled_kernels",
    "Received",
    "SubmissionKernels",
]

TRUSTED_KERNELS = "KINDLING_TRUSTED_KERNELS"  # the job's [[kernels, package], ...]
SUBMISSION_KERNELS = "KINDLING_SUBMISSION_KERNELS"  # the job's read-only store
KERNELS_FD = "KINDLING_KERNELS_FD"  # where the job sends what it compiled
KERNEL_SUFFIXES = (".nbi", ".nbc")  # Numba's index and data files
# A kernel folder (``<package>_<sha1>``) or file name: no path, no hidden file.
SAFE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]{0,254}\Z")
# What a submission may keep: the whole course's kernels are about 6 MB in 62
# files (a CI test run of the instructor source).
SENT_BYTES = 32 << 20  # per job
STORE_BYTES = 64 << 20  # per submission
STORE_FILES = 4096
_SKIPPED = {"node_modules", "site-packages"}


def trusted_kernel_dirs(root: Path) -> List[Tuple[str, str]]:
    """``(folder of compiled kernels, package folder relative to root)`` for every
    ``__pycache__`` under ``root`` that holds Numba index files (``*.nbi``), as
    module3_fast_ops.kernel_cache writes them beside a kernel's source file."""
    found = []
    root = Path(root).resolve()
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED)
        if Path(folder).name == "__pycache__" and any(
            f.endswith(".nbi") for f in files
        ):
            package = Path(folder).parent.relative_to(root).as_posix()
            if package != ".":
                found.append((folder, package))
    return found


def kernels_root() -> str:
    """The folder of module3_fast_ops.kernel_cache's per-package kernel folders in
    this process (``<cache root>/kernels``). Computed here, not imported: importing
    the course's package would run student code before the session starts."""
    explicit = os.environ.get("KINDLING_CACHE_DIR")
    root = explicit or os.path.join(
        os.environ.get("XDG_CACHE_HOME")
        or os.path.join(os.path.expanduser("~"), ".cache"),
        "kindling",
    )
    return os.path.join(root, "kernels")


def _writable_folder(path: str) -> bool:
    try:
        os.makedirs(path, exist_ok=True)
        probe = os.path.join(path, f".kindling-probe-{os.getpid()}")
        with open(probe, "wb"):
            pass
        os.unlink(probe)
        return True
    except OSError:
        return False


def kernel_cache_folder(package: str) -> Optional[str]:
    """Where module3_fast_ops.kernel_cache keeps the kernels of the source files in
    the folder ``package`` in this process (its ``_cache_path`` rule: the folder's
    ``__pycache__`` if writable, else ``<cache root>/kernels/<name>_<sha1>``);
    ``None`` when neither is writable."""
    folder = os.path.abspath(package)
    sub = f"{os.path.basename(folder)}_{hashlib.sha1(folder.encode()).hexdigest()}"
    candidates = [os.path.join(kernels_root(), sub)]
    if not os.environ.get("KINDLING_CACHE_DIR"):
        candidates.insert(0, os.path.join(folder, "__pycache__"))
    for path in candidates:
        if _writable_folder(path):
            return path
    return None


def _link_files(source: str, target: str) -> int:
    """Link the kernel files of ``source`` into ``target``; existing files are
    kept (a kernel compiled here, or linked from an earlier source)."""
    linked = 0
    for name in sorted(os.listdir(source)):
        if not name.endswith(KERNEL_SUFFIXES):
            continue
        try:
            os.symlink(os.path.join(source, name), os.path.join(target, name))
            linked += 1
        except OSError:  # already there
            continue
    return linked


def link_trusted_kernels(spec: Optional[str]) -> int:
    """Link the trusted kernels named by ``spec`` (the job's
    :data:`TRUSTED_KERNELS`) into the folders the kernel cache will read; return
    how many files were linked."""
    try:
        pairs = json.loads(spec) if spec else []
    except ValueError:
        return 0
    linked = 0
    for kernels, package in pairs:
        target = kernel_cache_folder(package)
        if target is not None and os.path.isdir(kernels):
            linked += _link_files(kernels, target)
    return linked


def link_submission_kernels(store: Optional[str]) -> int:
    """Link the kernels of the submission's store (the job's
    :data:`SUBMISSION_KERNELS`: one folder per kernel folder, by name) into this
    process's kernel folders; return how many files were linked. Called before
    :func:`link_trusted_kernels`: a store's index file is a superset of the
    trusted one it started from (Numba adds to the index it found)."""
    if not store or not os.path.isdir(store):
        return 0
    linked = 0
    for sub in sorted(os.listdir(store)):
        target = os.path.join(kernels_root(), sub)
        if SAFE_NAME.match(sub) and _writable_folder(target):
            linked += _link_files(os.path.join(store, sub), target)
    return linked


def send_compiled_kernels(fd: Optional[str]) -> int:
    """Send the kernels this job compiled (the regular ``*.nbi``/``*.nbc`` files of
    its kernel folders; links are what it was given) on ``fd`` (the job's
    :data:`KERNELS_FD`) as a tar stream; return how many files were sent. Runs
    in the sandbox, after the session: what it sends is the student's, and is
    checked by :meth:`SubmissionKernels.receive`."""
    try:
        out = os.fdopen(int(fd), "wb") if fd else None
    except (OSError, ValueError):
        return 0
    if out is None:
        return 0
    sent, root = 0, kernels_root()
    with out, tarfile.open(fileobj=out, mode="w|") as archive:
        subs = sorted(os.listdir(root)) if os.path.isdir(root) else []
        for sub in subs:
            folder = os.path.join(root, sub)
            for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
                path = os.path.join(folder, name)
                if name.endswith(KERNEL_SUFFIXES) and not os.path.islink(path):
                    archive.add(path, arcname=f"{sub}/{name}", recursive=False)
                    sent += 1
    return sent


class Received:
    """What a job sent on its kernels pipe: kept up to :data:`SENT_BYTES`, then
    read and dropped (a job blocked on a full pipe would only run out of time)."""

    def __init__(self, limit: int = SENT_BYTES) -> None:
        self.data, self.limit, self.overflow = bytearray(), limit, False

    def feed(self, chunk: bytes) -> None:
        if len(self.data) + len(chunk) > self.limit:
            self.overflow, self.data = True, bytearray()
        elif not self.overflow:
            self.data += chunk


class SubmissionKernels:
    """The kernels one submission's jobs compiled, kept between its jobs in
    ``folder`` (on the grader's side; read-only in every sandbox)."""

    INSIDE = "/kindling/submission-kernels"  # where a job sees the store

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.bytes = self.files = 0

    def bind(self) -> List[Tuple[str, str]]:
        """The store's read-only bind, once it holds anything."""
        return [(str(self.folder), self.INSIDE)] if self.files else []

    def receive(self, received: Received) -> int:
        """Keep the kernel files of what a job sent (a tar stream); return how many
        were kept. Only regular files named ``<folder>/<name>.nbi|.nbc`` by safe
        names are kept, within the store's limits; anything else is ignored, and
        an archive that does not parse is dropped whole."""
        if received.overflow or not received.data:
            return 0
        try:
            archive = tarfile.open(fileobj=io.BytesIO(bytes(received.data)), mode="r:")
            members = archive.getmembers()
        except (tarfile.TarError, EOFError, OSError):
            return 0
        kept = 0
        for member in members:
            parts = member.name.split("/")
            if not (
                member.isfile()
                and len(parts) == 2
                and all(SAFE_NAME.match(part) for part in parts)
                and parts[1].endswith(KERNEL_SUFFIXES)
                and self.bytes + member.size <= STORE_BYTES
                and self.files < STORE_FILES
            ):
                continue
            source = archive.extractfile(member)
            if source is None:
                continue
            target = self.folder / parts[0] / parts[1]
            target.parent.mkdir(parents=True, exist_ok=True)
            partial = target.with_name(target.name + ".partial")
            with source, open(partial, "wb") as out:
                shutil.copyfileobj(source, out)
            os.replace(partial, target)
            self.bytes += member.size
            self.files += 1
            kept += 1
        return kept
