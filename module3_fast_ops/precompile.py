"""Compile kernels into the disk cache now, in parallel processes.

    python -m module3_fast_ops.precompile              # every FastOps kernel
    python -m module3_fast_ops.precompile --jobs 2     # in two processes
    python -m module3_fast_ops.precompile MODULE [LABEL ...]

Later runs then load the kernels instead of compiling them (for instance once after
editing ``fast_ops.py``, or in CI before the tests). The compile helpers that a run
starts on idle cores (``compile_progress``) are this command, one job per idle core.
"""

import contextlib
import importlib
import os
import subprocess
import sys
import time
from typing import Optional, Sequence

from module3_fast_ops import compile_progress


def warm_up(module: str, labels: Sequence[str] = ()) -> None:
    """Compile the kernels ``labels`` (default: all) announced by ``module`` into
    the disk cache, in that order, skipping those another process is compiling.
    The compile helper runs this, and so does ``python -m
    module3_fast_ops.precompile``."""
    importlib.import_module(module)
    wanted = {label: (b, w) for label, b, w, _ in compile_progress.progress.expected}
    for label in labels or list(wanted):
        # Unknown, busy elsewhere, a stub: on to the next one.
        with contextlib.suppress(Exception):
            build, warm = wanted[label]
            warm(build())


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``python -m module3_fast_ops.precompile [--jobs N] [MODULE [LABEL ...]]``:
    compile the kernels of ``MODULE`` (default ``module3_fast_ops.fast_ops``: every
    FastOps kernel) into the disk cache now, in ``N`` processes (default: one per
    core). Later runs then start without compiling. The compile helper is this
    command with one job and the labels a run still lacks."""
    import argparse

    parser = argparse.ArgumentParser(prog=f"python -m {compile_progress._COMMAND}")
    parser.add_argument("module", nargs="?", default="module3_fast_ops.fast_ops")
    parser.add_argument("labels", nargs="*")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    # Every process skips a kernel another one is compiling (its lock is held).
    os.environ["KINDLING_IS_COMPILE_HELPER"] = "1"
    importlib.import_module(args.module)
    progress = compile_progress.progress
    labels = list(args.labels) or [label for label, *_ in progress.expected]
    jobs = max(1, min(args.jobs, len(labels)))
    # Each process starts its list at another place: this one first, then children.
    orders = [list(dict.fromkeys(labels[job::jobs] + labels)) for job in range(jobs)]
    command = [sys.executable, "-m", compile_progress._COMMAND, "--jobs", "1"]
    started = time.perf_counter()
    children = [subprocess.Popen(command + [args.module, *o]) for o in orders[1:]]
    warm_up(args.module, orders[0])
    for child in children:
        child.wait()
    cached = sum(progress.caches[k].is_cached() for k in labels if k in progress.caches)
    print(
        f"kindling: {cached} of {len(labels)} kernels of {args.module} are in the "
        f"cache ({time.perf_counter() - started:.1f} s, {jobs} process(es))"
    )
    return 0 if cached == len(labels) else 1


if __name__ == "__main__":
    sys.exit(main())
