"""Compiled CUDA kernels persist across processes (``_cuda_cache``), keyed by
everything compiled into them, as the CPU kernels are.

The simulator compiles nothing, so these tests compile for a GPU with the simulator
off, in child processes, as ``kindling kernels`` does. Where no GPU is present the
child stands in for the three driver calls of a compilation (the current device's
compute capability, twice, and loading the machine code, which would also make the
cubin): the kernel then caches its PTX for sm_75, and numba-cuda's own dispatcher
saves and loads it through the cache under test. A second process loads the kernel
instead of compiling it; an edit of a scalar function compiled into the kernel
compiles it again.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from .kernels import require_cuda_tools

ROOT = Path(__file__).resolve().parents[2]

CHILD = textwrap.dedent("""
    import json, sys
    from kindling import kernels
    from kindling.cudasim import gpu_present

    cuda = kernels._cuda_compiler((7, 5))
    import numba
    if not gpu_present():
        from numba.cuda import codegen, dispatcher

        codegen.JITCUDACodegen.magic_tuple = lambda self: (
            "nvptx64-nvidia-cuda", (7, 5), ""
        )
        codegen.CUDACodeLibrary._ensure_cc = lambda self, cc: cc or (7, 5)
        dispatcher._Kernel.bind = lambda self: self._codelibrary.get_asm_str()

    sys.path.insert(0, sys.argv[1])
    import scalar
    from module3_fast_ops import cuda_ops
    from module3_fast_ops._cuda_runtime import compiled, kernel_in

    kernel = kernel_in(compiled(cuda_ops.tensor_map, scalar.twice))
    f64, i64 = numba.float64[::1], numba.int64[::1]
    sig = (f64, numba.int64, numba.boolean, i64, f64)
    ptx = kernel.compile(sig)._codelibrary.get_asm_str((7, 5))
    # The attributes numba-cuda's cache constructors set (ours sets them itself).
    import ast, inspect, textwrap
    from numba.cuda.core.caching import Cache
    from numba.cuda.dispatcher import CUDACache

    def assigned(method):
        tree = ast.parse(textwrap.dedent(inspect.getsource(method)))
        return sorted(
            node.attr for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
            and isinstance(node.value, ast.Name) and node.value.id == "self"
        )

    print(json.dumps({
        "hits": sum(kernel._cache_hits.values()),
        "misses": sum(kernel._cache_misses.values()),
        "ptx": ptx,
        "cache": type(kernel._cache).__name__,
        "theirs": assigned(CUDACache.__init__) + assigned(Cache.__init__),
        "ours": sorted(vars(kernel._cache)),
    }))
    """)


def _compile_in_a_new_process(folder: Path, cache: Path, quiet: bool = True) -> dict:
    """What the child prints (and, as ``"stderr"``, what it says on stderr)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env.update(
        NUMBA_ENABLE_CUDASIM="0",
        KINDLING_CACHE_DIR=str(cache),
        KINDLING_QUIET="1" if quiet else "0",
        PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]),
    )
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(folder)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "stderr": done.stderr}


def _write_scalar(folder: Path, body: str) -> None:
    (folder / "scalar.py").write_text(f"def twice(x: float) -> float:\n    {body}\n")


@pytest.mark.task3_3
def test_a_second_process_loads_the_cuda_kernel_and_an_edit_recompiles_it(tmp_path):
    require_cuda_tools()
    folder, cache = tmp_path / "code", tmp_path / "cache"
    folder.mkdir()
    _write_scalar(folder, "return 2.0 * x")
    first = _compile_in_a_new_process(folder, cache)
    # numba-cuda's constructors are skipped: every attribute they set is set.
    assert first["cache"] == "_CudaKernelCache"
    assert set(first["theirs"]) <= set(first["ours"]), first["theirs"]
    assert (first["hits"], first["misses"]) == (0, 1)
    assert list(cache.rglob("*.nbi")), "no index file was written"
    second = _compile_in_a_new_process(folder, cache)
    assert (second["hits"], second["misses"]) == (1, 0)  # loaded, not compiled
    assert second["ptx"] == first["ptx"]
    # numba-cuda's own key hashes the kernel's bytecode and closure, which this
    # edit leaves alone; the scalar function is compiled into the kernel.
    _write_scalar(folder, "return 3.0 * x")
    third = _compile_in_a_new_process(folder, cache)
    assert (third["hits"], third["misses"]) == (0, 1)
    assert "0d4008000000000000" in third["ptx"]  # 3.0 as a PTX double
    assert "0d4008000000000000" not in first["ptx"]


@pytest.mark.task3_3
def test_the_first_run_says_it_compiles_and_the_next_one_is_silent(tmp_path):
    """Issue 40: the first run says when it compiles (a run that seems to hang
    for seconds is compiling); a run that loads every kernel says nothing."""
    require_cuda_tools()
    folder, cache = tmp_path / "code", tmp_path / "cache"
    folder.mkdir()
    _write_scalar(folder, "return 2.0 * x")
    first = _compile_in_a_new_process(folder, cache, quiet=False)
    assert "kindling: compiling CUDA kernels, map(twice) first" in first["stderr"]
    assert first["stderr"].count("compiling CUDA kernels") == 1
    second = _compile_in_a_new_process(folder, cache, quiet=False)
    assert (second["hits"], second["misses"]) == (1, 0)
    assert "compiling CUDA kernels" not in second["stderr"]
