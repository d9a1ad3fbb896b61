"""Shared test configuration for every module of the course.

The thread counts and the CUDA simulator switch have to be set before anything
imports Numba (or NumPy's BLAS), so they come first. The progress summary (the
per-task table printed after every run) lives in ``kindling.pytest_plugin``.
"""

import os
from typing import Any, List

from kindling.cudasim import configure_cuda_simulator

THREAD_VARIABLES = (
    "NUMBA_NUM_THREADS",
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
)
# Each process runs on its share of the cores: under ``pytest -n N`` a worker gets
# cores // N for Numba's and BLAS's threads. With a full set each, 2 workers x 2
# spinning OpenMP threads fought over 2 cores: a Numba training test took 22 s
# instead of 2 s. A count the user (or ``kindling grade --jobs``) set is kept, and
# passed on to the processes the tests start (KINDLING_THREAD_SHARE).
_workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 1)
_cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
SHARE = int(
    os.environ.get("KINDLING_THREAD_SHARE")
    or os.environ.get("NUMBA_NUM_THREADS")
    or max(1, _cores // _workers)
)
os.environ["KINDLING_THREAD_SHARE"] = str(SHARE)
for _variable in THREAD_VARIABLES:
    os.environ.setdefault(_variable, str(SHARE))
# But Numba's pool always has at least two threads: the race tests (fixture
# ``every_thread``) run parallel kernels on all of them, since on one thread a
# prange loop whose workers share scratch space can never go wrong. Every other
# test runs on the share (``numba.set_num_threads`` below).
os.environ["NUMBA_NUM_THREADS"] = str(max(2, SHARE))

configure_cuda_simulator()  # (with shared arrays the simulated threads agree on)

if SHARE < 2:
    import numba  # noqa: E402

    numba.set_num_threads(SHARE)

import pytest  # noqa: E402
from hypothesis import HealthCheck, Phase, settings  # noqa: E402

pytest_plugins = ["kindling.pytest_plugin"]

# Grading must be deterministic: the default profile is derandomized. Use
# KINDLING_HYPOTHESIS_PROFILE=dev for fresh random examples while developing, or
# =thorough before a release.
_SLOW_OK = [HealthCheck.too_slow, HealthCheck.data_too_large]
# The explain phase costs seconds per failing test, and in a student edition every test
# of an unfinished task fails: leave it out of the default profile.
_NO_EXPLAIN = [p for p in Phase if p.name != "explain"]
settings.register_profile(
    "ci",
    derandomize=True,
    phases=_NO_EXPLAIN,
    max_examples=25,
    deadline=None,
    suppress_health_check=_SLOW_OK,
    print_blob=True,
)
settings.register_profile(
    "dev", max_examples=50, deadline=None, suppress_health_check=_SLOW_OK
)
settings.register_profile(
    "thorough", max_examples=500, deadline=None, suppress_health_check=_SLOW_OK
)
settings.load_profile(os.environ.get("KINDLING_HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture
def every_thread() -> Any:
    """Run the test on every thread of Numba's pool (at least two, see above),
    then return to the share: for tests that catch races in parallel kernels."""
    import numba

    before = numba.get_num_threads()
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    yield numba.get_num_threads()
    numba.set_num_threads(before)


def pytest_collection_modifyitems(items: List[pytest.Item]) -> None:
    """Start the long tests (marked ``browser`` or ``long``: 15 s or more) first,
    in their order, the others after them in theirs. Under ``pytest -n 2`` the
    tests sent out last decide when the run ends: the half-minute browser test,
    collected near the end, kept one worker busy long after the other had run out
    of tests, and so did the grader's 30-45 s tests, collected last in
    ``tests/kindling``: with them first (and the probed tasks' 70 s test split by
    task) a run took 709 s instead of 752 s, one run each, this 2-core VM idle."""
    items.sort(key=lambda item: not starts_first(item))


def starts_first(item: pytest.Item) -> bool:
    """Whether ``item`` is one of the long tests that a run starts with."""
    return any(item.get_closest_marker(name) for name in ("browser", "long"))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: Any, log: Any) -> Any:
    """Under ``pytest -n N``, a worker that runs out of tests takes half of another's
    queue (xdist's ``worksteal``; ``--dist`` chooses otherwise). With the default
    ``load`` scheduling the tests were dealt out once, and a worker that drew the
    slow grading tests ran on for 15 s after the other had finished."""
    if config.getoption("dist") != "load":
        return None  # the user chose a scheduling
    from xdist.scheduler import WorkStealingScheduling

    return WorkStealingScheduling(config, log)


@pytest.fixture
def backend(request):
    """The tensor backend named by ``backend_params`` (see ``tests/backends.py``)."""
    from tests.backends import resolve_backend

    return resolve_backend(request.param)
