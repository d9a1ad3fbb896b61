"""Helpers shared by the Module 3 tests: calling a kernel on :class:`Strided` arrays
and asking Numba what it compiled; running kernels in a child Python with a Numba
setting on (:func:`run_child`)."""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, Dict, List

import numpy as np
import pytest

from .strategies import Strided

ROOT = Path(__file__).resolve().parents[2]
#: Seconds a child of :func:`run_child` may take: compiling its kernels takes well
#: under one minute.
CHILD_TIMEOUT = 300


def run_map(kernel: Callable[..., None], out: Strided, a: Strided) -> np.ndarray:
    kernel(*out.args(), *a.args())
    return out.to_numpy()


def run_zip(kernel: Callable[..., None], out: Strided, a: Strided, b: Strided):
    kernel(*out.args(), *a.args(), *b.args())
    return out.to_numpy()


def run_reduce(
    kernel: Callable[..., None], a: Strided, dim: int, start: float, layout=()
) -> np.ndarray:
    shape = tuple(int(n) for n in a.shape)
    out_shape = shape[:dim] + (1,) + shape[dim + 1 :]
    out = Strided.empty(out_shape, layout, fill=start)
    kernel(*out.args(), *a.args(), dim)
    return out.to_numpy()


def run_cuda_reduce(
    kernel: Callable[..., None], a: Strided, dim: int, start: float, layout=()
) -> np.ndarray:
    """The CUDA reduce: ``start`` is an argument, and ``out`` starts as NaN, so a
    kernel that reads ``out`` instead of taking ``start`` gives NaN."""
    shape = tuple(int(n) for n in a.shape)
    out_shape = shape[:dim] + (1,) + shape[dim + 1 :]
    out = Strided.empty(out_shape, layout, fill=float("nan"))
    kernel(*out.args(), *a.args(), dim, start)
    return out.to_numpy()


def run_matmul(kernel: Callable[..., None], a: Strided, b: Strided, layout=()):
    """``a @ b`` by the kernel, into an output stored in ``layout`` order."""
    shape = np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2])) + (
        int(a.shape[-2]),
        int(b.shape[-1]),
    )
    out = Strided.empty(shape, layout)
    kernel(*out.args(), *a.args(), *b.args())
    return out.to_numpy()


#: The name Numba gives the function it makes of each parallel loop it keeps.
GUFUNC = re.compile(r"__numba_parfor_gufunc_0x[0-9a-f]+")


def parallel_loops(kernel: Any) -> int:
    """How many parallel (``prange``) loops Numba kept in the compiled kernel: 0 when
    it had to run every loop serially (for example because of a ``raise`` or a
    ``return`` inside the ``prange`` body).

    Read from the compiled code itself: Numba turns each parallel loop it keeps into
    a function named ``__numba_parfor_gufunc_...`` (loops it fuses into one). That
    takes milliseconds, also for a kernel loaded from the disk cache, which has no
    parfor diagnostics: asking for those compiles the kernel afresh (seconds; 7 to
    17 s for the matmul)."""
    counts = [0]
    for compiled in kernel.overloads.values():
        library = compiled.library
        # a kernel loaded from the cache keeps its symbols in the "shared" module
        module = getattr(library, "_shared_module", None) or getattr(
            library, "_final_module", None
        )
        if module is not None:
            counts.append(len(set(GUFUNC.findall(str(module)))))
            continue
        diagnostics = compiled.metadata.get("parfor_diagnostics")  # other Numbas
        if diagnostics is not None:
            counts.append(len(diagnostics.initial_parfors))
    return max(counts)


#: Set by the instructor's CI (``.ci/run``, ci.yml): there a resource test that cannot
#: run is a failure, not a skip.
REQUIRE_TOOLS = "KINDLING_REQUIRE_CUDA_TOOLS"


def require_cuda_tools() -> None:
    """Skip the calling resource test where NVIDIA's compilers are not installed (a
    student's ``.[dev]`` install, any Mac), saying how to get them; fail instead
    where ``KINDLING_REQUIRE_CUDA_TOOLS=1`` (CI must run every resource test)."""
    from kindling import kernels

    why = kernels.missing_tools()
    if why is None:
        return
    if os.environ.get(REQUIRE_TOOLS) == "1":
        pytest.fail(f"{REQUIRE_TOOLS}=1 but {why}")
    pytest.skip(f"a CUDA resource check needs NVIDIA's compilers; {why}")


@functools.lru_cache(maxsize=None)
def _measured(task: str) -> List[Dict[str, Any]]:
    from kindling import kernels

    return kernels.report([task], kernels.CCS)


def measured_resources(task: str) -> List[Dict[str, Any]]:
    """The rows of ``kindling kernels --task task`` (every kernel of the task compiled
    for sm_75, sm_80 and sm_90 in a child process), once per test run."""
    require_cuda_tools()
    return _measured(task)


#: (Numba setting, what a failure under it means) for :func:`run_child`.
CHILD_SETTINGS = {
    "NUMBA_BOUNDSCHECK": (
        "with Numba's bounds checks on, the kernel call after the check {call!r} "
        "failed (an IndexError is an index outside its array: a read before an "
        "empty shape, or through a slice too short for its loop)"
    ),
    "NUMBA_DISABLE_JIT": (
        "run as plain Python (NUMBA_DISABLE_JIT=1), the kernel call after the "
        "check {call!r} failed: compiled, it only works by luck (an IndexError "
        "is a read past the end of an array, which compiled code does not "
        "check; an UnboundLocalError a variable some path never assigns, which "
        "Numba reads as 0)"
    ),
}


def run_child(child: str, setting: str) -> None:
    """Run ``child`` (Python that calls kernels, printing a name before each check
    and ``every index inside its array`` at its end) in a fresh Python with the
    Numba ``setting`` on; fail with the call that broke."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env.update({setting: "1", "PYTHONPATH": str(ROOT)})
    try:
        run = subprocess.run(
            [sys.executable, "-c", child],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=CHILD_TIMEOUT,
        )
    except subprocess.TimeoutExpired as stopped:
        out = stopped.stdout or b""  # bytes, whatever text= says (subprocess docs)
        out = out.decode() if isinstance(out, bytes) else out
        calls = out.strip().splitlines() or ["(none)"]
        pytest.fail(
            f"the kernels did not finish in {CHILD_TIMEOUT} s (they compile in well "
            f"under a minute): the kernel call after the check {calls[-1]!r} "
            "loops for ever (a run of 0 entries, say, that never moves on)"
        )
    calls = run.stdout.strip().splitlines()
    if calls:
        what = CHILD_SETTINGS[setting].format(call=calls[-1])
    else:  # a stub, say: the traceback below names it
        what = f"with {setting}=1, the kernels failed before their first check"
    assert run.returncode == 0 and calls[-1:] == ["every index inside its array"], (
        what + ":\n" + run.stderr[-2000:]
    )
