"""Compiled CUDA kernels that persist across processes (private: students never
edit or need to read this file).

On a GPU, numba-cuda compiles each kernel in every new process (NVVM, then linking):
issue 40 measured 9 of an MNIST run's 12 seconds compiling 10 kernels. numba-cuda's
own ``cache=True`` keeps the machine code, but its key hashes the kernel's bytecode
and pickles its closure: an edit of a scalar function compiled into the kernel
(Module 0's ``exp``, Module 2's index helpers) would go unnoticed, so a student
could run stale code.

:func:`persist` gives a CUDA kernel (a numba-cuda dispatcher) a disk cache keyed as
the CPU kernels are (``kernel_key.kernel_key``: the code of every function the
kernel reaches, scalar and device functions included, their options and the
constants they read), in the same folders (``kernel_cache._cache_path``: under
``$KINDLING_CACHE_DIR`` when set). Each entry is numba-cuda's own serialised kernel
(PTX and cubin per compute capability), indexed by signature, compute capability,
numba-cuda version and that key. The first process that compiles a kernel says so
on stderr (``KINDLING_QUIET=1`` silences it); the next ones load it.

In the simulator nothing compiles, so :func:`persist` leaves kernels as they are.
"""

from __future__ import annotations

import contextlib
import functools
import os
from typing import Any, Callable, Tuple

from . import compile_progress, kernel_cache
from .kernel_key import kernel_key


@functools.lru_cache(maxsize=None)
def _cache_class() -> Any:
    """The cache class, defined on numba-cuda's classes at first use."""
    # Imported here: this module loads with the simulator too.
    from numba.cuda.core.caching import IndexDataCacheFile
    from numba.cuda.dispatcher import CUDACache, CUDACacheImpl

    class _Impl(kernel_cache.KeyedImpl, CUDACacheImpl):  # type: ignore[misc]
        """numba-cuda's cache implementation, located by key."""

    class _CudaKernelCache(kernel_cache.KeyedCache, CUDACache):  # type: ignore[misc]
        """numba-cuda's kernel cache, keyed by ``kernel_key.kernel_key``."""

        #: Whether this process has said that it compiles CUDA kernels.
        announced = False

        def __init__(
            self, py_func: Callable[..., Any], label: str, key: Tuple[str, str]
        ) -> None:
            # Not CUDACache.__init__ (it would locate by file stamp).
            self._launch_config_key = self._launch_config_sensitive_flag = None
            self._locate(py_func, label, key, _Impl, IndexDataCacheFile)
            self._launch_config_marker_path = os.path.join(
                self._cache_path, f"{self._impl.filename_base}.lcs"
            )

        def _index_key(self, sig: Any, codegen: Any) -> Any:
            # numba-cuda's key pickles the closure (device functions carry
            # per-process state) and hashes the kernel's bytecode only; the stamp
            # covers everything the kernel compiles in.
            import numba_cuda

            key = (sig, codegen.magic_tuple(), numba_cuda.__version__, self._stamp)
            if self._launch_config_key is None:
                return key
            return key + (("launch_config", self._launch_config_key),)

        def load_overload(self, sig: Any, target_context: Any) -> Any:
            kernel = self._load(sig, target_context)
            if kernel is None and not _CudaKernelCache.announced:
                # One line on stderr at the first CUDA compilation of a process
                # (the compile notice's writer: KINDLING_QUIET=1 silences it).
                _CudaKernelCache.announced = True
                compile_progress.progress._write(
                    f"kindling: compiling CUDA kernels, {self.label} first "
                    "(first run only; later runs load them from the cache)\n"
                )
            return kernel

    return _CudaKernelCache


def persist(kernel: Any, label: str) -> Any:
    """Give the ``@cuda.jit`` kernel ``kernel`` a disk cache keyed by everything
    compiled into it, under the name ``label`` (shown when it compiles), and
    return it. A simulated kernel, one already compiled, or one whose code cannot
    be described for a key is returned unchanged (compiled in memory as before)."""
    if not hasattr(kernel, "_cache") or kernel.overloads:
        return kernel
    key = kernel_key(kernel.py_func, kernel.targetoptions)
    # A numba-cuda whose cache classes moved (tests/module3/test_cuda_kernel_cache.py
    # names what): no disk cache.
    if key is not None:
        with contextlib.suppress(Exception):
            kernel._cache = _cache_class()(kernel.py_func, label, key)
    return kernel
