"""The compilations of a run: a notice on stderr while kernels compile, and compile
helpers that compile the run's other kernels in parallel processes.

The first compilation of a run prints ``kindling: compiling kernels (first run
only; later runs load them from the cache) ...``; each kernel then shows ``[n/m]
name``, ``m`` being the kernels this run announced (:func:`expect`) that are not in
the disk cache (``kernel_cache``) yet; at exit one line sums up.
``KINDLING_QUIET=1`` silences it.

When cores are idle, that first compilation also starts *compile helpers*, one per
idle core (:func:`helper_count`): the command ``python -m
module3_fast_ops.precompile`` for the announced kernels neither cached nor compiling
here, which puts them in the disk cache while this process works
(``KINDLING_COMPILE_HELPER=0`` turns them off, ``=on`` starts one even on a busy
machine).
"""

import atexit
import contextlib
import os
import subprocess
import sys
import threading
import time
from typing import Any, Callable, Dict, List, Optional, Tuple


class KernelBusy(RuntimeError):
    """Raised in the compile helper for a kernel another process is compiling."""


def helper_mode() -> bool:
    """Whether this process is a compile helper (``precompile.warm_up``)."""
    return os.environ.get("KINDLING_IS_COMPILE_HELPER") == "1"


def expect(
    label: str, build: Callable[[], Any], warm: Callable[[Any], None], module: str
) -> None:
    """Announce a kernel that this run may compile later.

    ``build()`` returns it (made with ``kernel_cache.persist``); it is called
    only at the first compilation of the run, to count, in the compile notice,
    how many kernels may still compile (one that raises, a stub, is not counted).

    ``warm(kernel)`` calls the kernel once on small typical arguments, and
    ``module`` is the module whose import announces it: the first compilation of
    a run may start *compile helpers*, processes that import ``module`` and
    compile the run's other pending kernels into the disk cache while this one
    works (``precompile.warm_up``).
    """
    progress.expected.append((label, build, warm, module))


#: The command of the compile helper (``precompile.main``).
_COMMAND = "module3_fast_ops.precompile"

#: At most this many compile helpers at once (each is a Python with Numba loaded,
#: about 150 MB).
MAX_HELPERS = 8


def helper_count() -> int:
    """How many compile helpers the free cores allow: the cores less the busy ones,
    counting this process as busy (the load average includes it once it runs), at
    most :data:`MAX_HELPERS`. On a busy machine a helper only competes with this
    process, so 0; on an idle 8-core laptop 7 helpers compile 7 kernels at once."""
    with contextlib.suppress(OSError, AttributeError):  # (Windows: no getloadavg)
        busy = max(1.0, os.getloadavg()[0])
        return max(0, min(MAX_HELPERS, int((os.cpu_count() or 1) - busy)))
    return 0  # (no load average: no helper)


def _start_helper(current: str) -> None:
    """Start compile helpers for the kernels of this run that are neither cached
    nor being compiled here (once per process), one per idle core
    (:func:`helper_count`; ``KINDLING_COMPILE_HELPER=on`` starts at least one even
    on a busy machine, ``=0`` none)."""
    setting = os.environ.get("KINDLING_COMPILE_HELPER", "")
    jobs = max(1, helper_count()) if setting == "on" else helper_count()
    if helper_mode() or setting == "0" or jobs == 0:
        return
    by_module: Dict[str, List[str]] = {}
    for label, _, _, module in progress.expected:
        cache = progress.caches.get(label)
        if label == current or cache is None or not cache._enabled or cache.is_cached():
            continue
        by_module.setdefault(module, []).append(label)
    env = dict(os.environ, KINDLING_IS_COMPILE_HELPER="1", KINDLING_QUIET="1")
    for module, labels in by_module.items():
        try:
            helper = subprocess.Popen(
                [sys.executable, "-m", _COMMAND, "--jobs", str(jobs), module, *labels],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        except OSError:
            return
        # Stopped at exit (nothing for one that has finished): its work so far
        # stays in the cache, the rest is not needed now.
        atexit.register(helper.terminate)


# ---------------------------------------------------------------------------
# The compile notice
# ---------------------------------------------------------------------------


class CompileProgress:
    """Tells the user, on stderr, that kernels are compiling.

    The first compilation prints ``kindling: compiling kernels (first run only;
    later runs load them from the cache) ...``; each one then a line ``[n/m]
    compiling name ...`` (``m``: the kernels this run knows of that are not cached
    yet); at exit one line sums up. ``KINDLING_QUIET=1`` silences it.
    """

    def __init__(self) -> None:
        self.expected: List[Tuple[str, Callable[[], Any], Any, str]] = []
        self.caches: Dict[str, Any] = {}  # label -> its kernel_cache.KernelCache
        self.compiled: List[str] = []
        self.loaded_count = 0
        self.pending: Optional[int] = None
        self.seconds = 0.0
        self.started_at = 0.0  # when the compilation under way started
        self.stream: Any = None  # None: sys.stderr at the time of writing
        self.lock = threading.Lock()

    def _write(self, text: str) -> None:
        if os.environ.get("KINDLING_QUIET", "") in ("", "0"):
            with contextlib.suppress(OSError, ValueError):
                print(text, end="", file=self.stream or sys.stderr, flush=True)

    def started(self, label: str) -> None:
        with self.lock:
            self.started_at = time.perf_counter()
            if self.pending is None:
                # The kernels known to this run that have no cached code yet
                # (building one already built looks it up).
                for _, build, _, _ in self.expected:
                    with contextlib.suppress(Exception):  # a stub: not counted
                        build()
                self.pending = sum(not c.is_cached() for c in self.caches.values())
                _start_helper(label)
                atexit.register(self.summary)
                self._write(
                    "kindling: compiling kernels (first run only; later runs load "
                    "them from the cache) ...\n"
                )
            n = len(self.compiled) + 1
            self._write(f"  [{n}/{max(self.pending, n)}] compiling {label} ...\n")

    def finished(self, label: str) -> None:
        with self.lock:
            # (A save follows the miss that started the compilation.)
            self.seconds += time.perf_counter() - self.started_at
            self.compiled.append(label)

    def summary(self) -> None:
        """The closing line (registered with ``atexit`` at the first compile)."""
        if not self.compiled:
            return
        where = {c.cache_path for c in self.caches.values() if c._enabled}
        place = f" in {sorted(where)[0]}" if len(where) == 1 else ""
        self._write(
            f"kindling: compiled {len(self.compiled)} kernel(s) in "
            f"{self.seconds:.1f} s; they are cached{place} for the next runs\n"
        )


#: The process-wide compile notice.
progress = CompileProgress()
