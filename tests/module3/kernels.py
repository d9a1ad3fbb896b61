"""Helpers shared by the Module 3 tests: calling a kernel on :class:`Strided` arrays
and asking Numba what it compiled."""

from __future__ import annotations

import functools
import os
import re
from typing import Any, Callable, Dict, List

import numpy as np
import pytest

from .strategies import Strided


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
