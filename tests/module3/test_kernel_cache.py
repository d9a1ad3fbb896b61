"""Compiled kernels persist across processes (``module3_fast_ops.kernel_cache``).

The cross-process tests run small generated modules in subprocesses, each with its
own temporary cache folder: a kernel factory shaped like ``tensor_map`` (a closure
that inlines a scalar function and calls a helper from another file), so they do
not depend on any student task. Reuse is read from Numba's cache statistics, never
from timings.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, Dict, List

import numpy as np
import pytest
from numba import njit

from module3_fast_ops import compile_progress, kernel_cache, kernel_key, precompile

ROOT = Path(__file__).resolve().parents[2]

PROBE_FN = """
def plus_one(x):
    return x + 1.0


def minus_one(x):
    return x - 1.0
"""

PROBE_HELPERS = """
from numba import njit


@njit
def scale(y):
    return 2.0 * y
"""

PROBE_KERNEL = """
from numba import njit, prange

import probe_helpers


def make(fn):
    f = njit(inline="always")(fn)

    @njit
    def run(lo, hi, out, x):
        for i in range(lo, hi):
            out[i] = probe_helpers.scale(f(x[i]))

    def kernel(out, x):
        n = len(out)
        for w in prange(2):
            run(w * n // 2, (w + 1) * n // 2, out, x)

    return njit(parallel=True)(kernel)
"""

RUN = """
import json
import sys

import numpy as np

import probe_fn
import probe_kernel
from module3_fast_ops import kernel_cache

report = {}
for name in sys.argv[1:]:
    kernel = kernel_cache.persist(
        probe_kernel.make(getattr(probe_fn, name)), f"probe({name})"
    )
    out = np.zeros(4)
    kernel(out, np.arange(4.0))
    report[name] = {
        "out": out.tolist(),
        "hits": sum(kernel.stats.cache_hits.values()),
        "misses": sum(kernel.stats.cache_misses.values()),
    }
print(json.dumps(report))
"""


@pytest.fixture
def probe(tmp_path: Path) -> Path:
    """A folder with the generated modules (and a cache folder beside them)."""
    for name, text in [
        ("probe_fn.py", PROBE_FN),
        ("probe_helpers.py", PROBE_HELPERS),
        ("probe_kernel.py", PROBE_KERNEL),
        ("run.py", RUN),
    ]:
        (tmp_path / name).write_text(textwrap.dedent(text))
    return tmp_path


def _run(folder: Path, *names: str) -> Dict[str, Any]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(folder), str(ROOT)])
    env["KINDLING_CACHE_DIR"] = str(folder / "cache")
    env["NUMBA_NUM_THREADS"] = "1"
    done = subprocess.run(
        [sys.executable, str(folder / "run.py"), *names],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    report["stderr"] = done.stderr
    return report


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_a_second_process_reuses_the_kernel_until_a_source_it_uses_changes(
    probe: Path,
) -> None:
    """A second process loads the machine code the first compiled. Numba's own
    cache checks only the file a function is defined in; here the scalar function
    and the helper live in other files, and editing either one must recompile the
    kernel (the new code runs)."""
    first = _run(probe, "plus_one")
    assert first["plus_one"] == {"out": [2.0, 4.0, 6.0, 8.0], "hits": 0, "misses": 1}
    assert "compiling kernels (first run only" in first["stderr"]
    assert "probe(plus_one)" in first["stderr"]
    second = _run(probe, "plus_one")
    assert second["plus_one"] == {"out": [2.0, 4.0, 6.0, 8.0], "hits": 1, "misses": 0}
    assert "compiling" not in second["stderr"]
    _edit(probe / "probe_fn.py", "return x + 1.0", "return x + 10.0")
    edited_fn = _run(probe, "plus_one")["plus_one"]
    assert edited_fn == {"out": [20.0, 22.0, 24.0, 26.0], "hits": 0, "misses": 1}
    _edit(probe / "probe_helpers.py", "return 2.0 * y", "return 3.0 * y")
    edited_helper = _run(probe, "plus_one")["plus_one"]
    assert edited_helper == {"out": [30.0, 33.0, 36.0, 39.0], "hits": 0, "misses": 1}
    again = _run(probe, "plus_one")["plus_one"]
    assert again == {"out": [30.0, 33.0, 36.0, 39.0], "hits": 1, "misses": 0}


def test_an_edit_elsewhere_in_the_files_keeps_the_kernel(probe: Path) -> None:
    """The key covers the functions a kernel runs, not whole files: editing another
    function of the same files, adding one, or moving the kernel's own lines
    leaves the cached kernel in use (Task 3.2's matmul must not recompile every
    map and zip of ``fast_ops.py``)."""
    assert _run(probe, "plus_one")["plus_one"]["misses"] == 1
    _edit(probe / "probe_fn.py", "return x - 1.0", "return x - 2.0")
    _edit(probe / "probe_fn.py", "def plus_one", "# moved down\n\n\ndef plus_one")
    _edit(
        probe / "probe_helpers.py",
        "@njit\ndef scale",
        "def unused():\n    return 1\n\n\n@njit\ndef scale",
    )
    after = _run(probe, "plus_one", "minus_one")
    assert after["plus_one"] == {"out": [2.0, 4.0, 6.0, 8.0], "hits": 1, "misses": 0}
    # The edited function's kernel runs its new code.
    assert after["minus_one"]["out"] == [-4.0, -2.0, 0.0, 2.0]


def test_closures_of_one_factory_cached_apart_do_not_mix(probe: Path) -> None:
    """Two kernels from one factory, compiled in two processes, then loaded into a
    third: each runs its own code (their machine-code names must differ)."""
    _run(probe, "plus_one")
    _run(probe, "minus_one")
    both = _run(probe, "plus_one", "minus_one")
    assert both["plus_one"] == {"out": [2.0, 4.0, 6.0, 8.0], "hits": 1, "misses": 0}
    assert both["minus_one"] == {"out": [-2.0, 0.0, 2.0, 4.0], "hits": 1, "misses": 0}


# ----------------------------------------------------------------- in process
def _tiny_kernel(scale: float = 3.0) -> Any:
    def triple(out: np.ndarray, x: np.ndarray) -> None:
        for i in range(len(out)):
            out[i] = scale * x[i]

    return njit(triple)


@pytest.fixture
def notice(monkeypatch: pytest.MonkeyPatch) -> io.StringIO:
    """A fresh compile notice writing into a string."""
    fresh = compile_progress.CompileProgress()
    fresh.stream = io.StringIO()
    monkeypatch.setattr(compile_progress, "progress", fresh)
    monkeypatch.delenv("KINDLING_QUIET", raising=False)
    return fresh.stream


def test_the_compile_notice_names_the_kernel_once(
    notice: io.StringIO, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KINDLING_CACHE_DIR", str(tmp_path))
    for scale in (3.0, 4.0):
        kernel = kernel_cache.persist(_tiny_kernel(scale), f"times{scale:.0f}")
        out = np.zeros(2)
        kernel(out, np.array([1.0, 2.0]))
        np.testing.assert_array_equal(out, [scale, 2 * scale])
    text = notice.getvalue()
    assert text.count("compiling kernels (first run only") == 1
    assert "[1/1] compiling times3" in text
    compile_progress.progress.summary()
    assert "compiled 2 kernel(s)" in notice.getvalue()


def test_quiet_silences_the_notice(
    notice: io.StringIO, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KINDLING_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("KINDLING_QUIET", "1")
    kernel = kernel_cache.persist(_tiny_kernel(), "triple")
    kernel(np.zeros(1), np.ones(1))
    compile_progress.progress.summary()
    assert notice.getvalue() == ""


def test_a_read_only_install_falls_back_to_the_user_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "install" / "kernels.py"
    monkeypatch.delenv("KINDLING_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    writable: List[str] = []

    def only_user_cache(path: str) -> bool:
        writable.append(path)
        return path.startswith(str(tmp_path / "xdg"))

    monkeypatch.setattr(kernel_cache, "_writable", only_user_cache)
    path = kernel_cache._cache_path(str(source))
    assert writable[0] == str(tmp_path / "install" / "__pycache__")
    assert path is not None and path.startswith(str(tmp_path / "xdg" / "kindling"))


def test_no_writable_folder_still_runs_the_kernel(
    notice: io.StringIO, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(kernel_cache, "_writable", lambda path: False)
    kernel = kernel_cache.persist(_tiny_kernel(), "triple")
    out = np.zeros(1)
    kernel(out, np.ones(1))
    assert out[0] == 3.0
    assert not kernel._cache.is_cached()


def test_the_key_covers_every_file_and_constant_the_kernel_reads() -> None:
    kernel = _tiny_kernel()
    identity, stamp = kernel_key.kernel_key(kernel.py_func)
    describer = kernel_key._Describer()
    describer.function(kernel.py_func)
    assert {fn.__module__ for fn in describer.seen} == {__name__}
    assert kernel_key.kernel_key(_tiny_kernel().py_func) == (identity, stamp)
    # A closure's number is frozen into the machine code: same kernel, new stamp.
    other_identity, other_stamp = kernel_key.kernel_key(_tiny_kernel(4.0).py_func)
    assert other_identity == identity and other_stamp != stamp


def test_the_key_follows_the_kernels_own_options() -> None:
    """``parallel`` or ``fastmath`` change the machine code of the same function."""
    py_func = _tiny_kernel().py_func
    plain = kernel_key.kernel_key(py_func, {"nopython": True})
    fast = kernel_key.kernel_key(py_func, {"nopython": True, "fastmath": True})
    assert plain is not None and fast is not None
    assert plain[0] == fast[0] and plain[1] != fast[1]


def test_a_kernel_that_reads_a_class_of_ours_is_keyed_by_its_whole_file() -> None:
    """A class's methods are not followed one by one: its file stands for it."""

    def reads_a_class(out: np.ndarray) -> None:
        out[0] = len(kernel_cache.KernelCache.__name__)

    key = kernel_key.kernel_key(reads_a_class)
    describer = kernel_key._Describer()
    describer.function(reads_a_class)
    assert key is not None
    assert any(
        f.startswith("file module3_fast_ops.kernel_cache ") for f in describer.facts
    )


KEY_OF_A_FASTMATH_KERNEL = """
from numba import njit
from module3_fast_ops import kernel_key


def make():
    @njit(fastmath={"reassoc", "contract", "nsz", "arcp"})
    def dot(x, y):
        return x * y

    def kernel(out, x):
        out[0] = dot(x[0], x[1])

    return kernel


print(kernel_key.kernel_key(make()))
"""


def test_the_key_is_the_same_in_every_process(tmp_path: Path) -> None:
    """Sets (``fastmath``) are ordered by the per-process hash seed; the key must
    not be, or a second process would never find the cached kernel."""
    script = tmp_path / "key.py"
    script.write_text(textwrap.dedent(KEY_OF_A_FASTMATH_KERNEL))
    keys = set()
    for seed in ("1", "2", "3"):
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=str(ROOT))
        done = subprocess.run(
            [sys.executable, str(script)], env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        keys.add(done.stdout.strip())
    assert len(keys) == 1


HOLD_THE_LOCK = """
import sys
import time

from module3_fast_ops import kernel_cache


class Held(kernel_cache.KernelCache):
    def __init__(self, path):
        self.path = path

    def _lock_path(self):
        return self.path


assert Held(sys.argv[1])._try_lock()
print("held", flush=True)
time.sleep(120)
"""


def test_a_kernel_locked_by_a_live_process_waits_and_its_death_frees_it(
    notice: io.StringIO, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While another process holds a kernel's lock (it compiles the kernel), a
    compile helper skips the kernel; the lock goes with that process, however it
    ends, and a lock file left behind blocks no one."""
    monkeypatch.setenv("KINDLING_CACHE_DIR", str(tmp_path))
    kernel = kernel_cache.persist(_tiny_kernel(5.0), "times5")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_THE_LOCK, kernel._cache._lock_path()],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        monkeypatch.setenv("KINDLING_IS_COMPILE_HELPER", "1")
        with pytest.raises(compile_progress.KernelBusy):
            kernel(np.zeros(1), np.ones(1))
    finally:
        holder.kill()
        holder.wait()
    monkeypatch.setenv("KINDLING_IS_COMPILE_HELPER", "0")
    assert Path(kernel._cache._lock_path()).exists()
    out = np.zeros(1)
    kernel(out, np.ones(1))
    assert out[0] == 5.0 and kernel._cache.is_cached()


def test_warm_up_compiles_announced_kernels_into_the_cache(
    notice: io.StringIO, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the compile helper does in its own process, here in this one."""
    monkeypatch.setenv("KINDLING_CACHE_DIR", str(tmp_path))
    built: Dict[str, Any] = {}

    def build() -> Any:
        if "k" not in built:
            built["k"] = kernel_cache.persist(_tiny_kernel(6.0), "times6")
        return built["k"]

    def warm(kernel: Any) -> None:
        kernel(np.zeros(1), np.ones(1))

    compile_progress.expect("times6", build, warm, __name__)
    precompile.warm_up(__name__, ["times6", "unknown"])  # (unknown: skipped)
    assert built["k"]._cache.is_cached()


def test_the_precompile_command_fills_the_cache(
    notice: io.StringIO,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture,
) -> None:
    """``python -m module3_fast_ops.precompile MODULE``, here in this process."""
    monkeypatch.setenv("KINDLING_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("KINDLING_IS_COMPILE_HELPER", "0")  # restored afterwards
    built: Dict[str, Any] = {}

    def build() -> Any:
        if "k" not in built:
            built["k"] = kernel_cache.persist(_tiny_kernel(7.0), "times7")
        return built["k"]

    compile_progress.expect(
        "times7", build, lambda k: k(np.zeros(1), np.ones(1)), __name__
    )
    assert precompile.main(["--jobs", "1", __name__]) == 0
    assert "1 of 1 kernels of" in capsys.readouterr().out
    assert built["k"]._cache.is_cached()


@pytest.mark.parametrize(
    "cores, load, helpers",
    [(1, 0.0, 0), (2, 0.3, 1), (2, 1.5, 0), (8, 1.0, 7), (8, 6.5, 1), (64, 0.0, 8)],
)
def test_one_compile_helper_per_idle_core(
    monkeypatch: pytest.MonkeyPatch, cores: int, load: float, helpers: int
) -> None:
    """This process counts as one busy core even before the load average shows
    it; a busy machine gets no helper; never more than MAX_HELPERS (8)."""
    monkeypatch.setattr(compile_progress.os, "cpu_count", lambda: cores)
    monkeypatch.setattr(compile_progress.os, "getloadavg", lambda: (load, load, load))
    assert compile_progress.MAX_HELPERS == 8
    assert compile_progress.helper_count() == helpers


def test_no_compile_helper_without_a_load_average(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Windows' os has no getloadavg: no helper, and no error."""
    monkeypatch.setattr(compile_progress.os, "cpu_count", lambda: 8)
    monkeypatch.delattr(compile_progress.os, "getloadavg")
    assert compile_progress.helper_count() == 0


def test_the_helpers_share_the_pending_kernels_over_the_idle_cores(
    notice: io.StringIO, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an idle 8-core machine the first compilation starts the precompile
    command with 7 jobs for the kernels still to compile (not the one compiling
    here, not a cached one)."""
    monkeypatch.setenv("KINDLING_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("KINDLING_IS_COMPILE_HELPER", raising=False)
    monkeypatch.delenv("KINDLING_COMPILE_HELPER", raising=False)
    monkeypatch.setattr(compile_progress.os, "cpu_count", lambda: 8)
    monkeypatch.setattr(compile_progress.os, "getloadavg", lambda: (0.5, 0.5, 0.5))
    started: List[List[str]] = []

    class Recorded:
        def __init__(self, command: List[str], **_: Any) -> None:
            started.append(command)

        def poll(self) -> int:
            return 0

        def terminate(self) -> None:
            """(called at exit)"""

    monkeypatch.setattr(compile_progress.subprocess, "Popen", Recorded)
    for scale in (5, 6, 8):
        kernel = kernel_cache.persist(_tiny_kernel(scale), f"times{scale}")
        compile_progress.expect(
            f"times{scale}", lambda k=kernel: k, lambda k: None, "m"
        )
        if scale == 5:
            kernel(np.zeros(1), np.ones(1))  # compiled: in the cache now
    started.clear()  # (what that compilation started)
    compile_progress._start_helper("times6")
    assert started == [
        [sys.executable, "-m", compile_progress._COMMAND, "--jobs", "7", "m", "times8"]
    ]
