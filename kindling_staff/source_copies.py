"""Copies of the instructor source, and runs of one task's tests in them: what
``kindling marks``, ``kindling mistakes`` and ``kindling mutants`` share."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Dict, List, Optional

from kindling.regions import source_files


def copy_source(root: Path, destination: Path) -> None:
    """The instructor source (git's view of it) under ``destination``."""
    for path in source_files(root):
        target = destination / path.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)


def _environment() -> Dict[str, str]:
    """The environment of a checking run: this one, less what a surrounding
    pytest (xdist worker, options) would leak into it."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PYTEST_", "COV_CORE_")) and k != "PYTHONPATH"
    }
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # a mistake's .pyc must not outlive it
    return env


def run_marker(
    copy: Path,
    marker: str,
    timeout: float,
    *options: str,
    python: str = sys.executable,
    stall: Optional[float] = None,
) -> Optional["subprocess.CompletedProcess[str]"]:
    """``pytest -m marker`` in a fresh process whose working directory is ``copy``
    (no cache folder, no progress file; ``options`` added): its result, or
    ``None`` when it ran past ``timeout`` seconds, or (``stall`` given) printed
    nothing for ``stall`` seconds: pytest prints a mark per test, so a silent run
    is stuck in one test, such as a mutated kernel whose loop never ends. Shared
    by ``kindling mistakes``, ``kindling marks`` and ``kindling mutants``."""
    command = [python, "-m", "pytest", "-m", marker, "-q", *options]
    command += ["-p", "no:cacheprovider", "--kindling-json", ""]
    if stall is not None:
        return _run_watched(command, copy, timeout, stall)
    try:
        return subprocess.run(
            command,
            cwd=copy,
            env=_environment(),
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return None


def _run_watched(
    command: List[str], cwd: Path, timeout: float, stall: float
) -> Optional["subprocess.CompletedProcess[str]"]:
    """``command`` with its output read as it comes: ``None`` (killed) when it runs
    past ``timeout`` seconds or prints nothing for ``stall`` seconds."""
    env = dict(_environment(), PYTHONUNBUFFERED="1")  # each mark as it is printed
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    chunks: Dict[str, List[bytes]] = {"out": [], "err": []}
    heard = [time.monotonic()]

    def listen(stream: "IO[bytes]", into: List[bytes]) -> None:
        for chunk in iter(lambda: os.read(stream.fileno(), 4096), b""):
            into.append(chunk)
            heard[0] = time.monotonic()

    readers = [
        threading.Thread(target=listen, args=(process.stdout, chunks["out"])),
        threading.Thread(target=listen, args=(process.stderr, chunks["err"])),
    ]
    for reader in readers:
        reader.daemon = True
        reader.start()
    started = time.monotonic()
    while process.poll() is None:
        now = time.monotonic()
        if now - started > timeout or now - heard[0] > stall:
            process.kill()
            process.wait()
            return None
        time.sleep(0.2)
    for reader in readers:
        reader.join()

    def text(parts: List[bytes]) -> str:
        return b"".join(parts).decode("utf-8", "replace")

    return subprocess.CompletedProcess(
        command, process.returncode, text(chunks["out"]), text(chunks["err"])
    )


def copy_trusted_kernels(kernels: Path, copy: Path) -> int:
    """Copy the compiled kernels of the trusted tree ``kernels`` (the ``*.nbi`` and
    ``*.nbc`` files of its packages' ``__pycache__`` folders) into the folders the
    kernel cache will read for the same packages of ``copy`` (the grader's rule,
    ``grade_kernels.kernel_cache_folder``); return how many files were copied.
    Copies, not links: a kernel the run compiles afresh must not overwrite the
    trusted tree's file."""
    from kindling.grade_kernels import (
        KERNEL_SUFFIXES,
        kernel_cache_folder,
        trusted_kernel_dirs,
    )

    copied = 0
    for folder, package in trusted_kernel_dirs(kernels):
        target = (copy / package).is_dir() and kernel_cache_folder(str(copy / package))
        if not target:
            continue
        for name in sorted(Path(folder).iterdir()):
            if name.name.endswith(KERNEL_SUFFIXES):
                shutil.copyfile(name, Path(target) / name.name)
                copied += 1
    return copied
