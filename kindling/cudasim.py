"""Decide, before Numba is imported, whether CUDA code runs on a GPU or the simulator.

Numba reads ``NUMBA_ENABLE_CUDASIM`` once, when ``numba.cuda`` is first imported, so the
decision has to be made without importing Numba: we look for the NVIDIA driver library
and a device node instead of asking the CUDA runtime.

With the simulator on, it is also made safe for the course's kernels: the simulator
runs every thread of a block as a Python thread, and ``cuda.shared.array`` looks up,
then creates, the block's array without a lock. Two threads that both miss the lookup
get two different "shared" arrays, and a reduce or matmul block computes garbage.
Python's default 5 ms switch interval makes this rare; the 1 us hand-over
``cuda_ops.launch`` sets while a simulated kernel runs made it frequent (1 wrong result
in 25 runs of a CUDA backward test; none in 25 with :func:`make_simulator_thread_safe`).
The fix is installed when the simulator is first imported: importing it eagerly would
cost every run that never touches CUDA a quarter of a second.
"""

from __future__ import annotations

import ctypes.util
import importlib.abc
import importlib.util
import os
import sys
import threading
from types import ModuleType
from typing import Any, Callable, Optional, Sequence

SIMULATOR_VARIABLE = "NUMBA_ENABLE_CUDASIM"


def gpu_present() -> bool:
    """True when an NVIDIA driver library and a GPU device node are both present.

    Windows has no device nodes: its driver library, ``nvcuda.dll``, is installed
    with the GPU's driver. No Mac has had an NVIDIA driver since macOS 10.13."""
    if sys.platform == "darwin":
        return False
    if os.name == "nt":
        return ctypes.util.find_library("nvcuda") is not None
    has_node = os.path.exists("/dev/nvidiactl") or os.path.exists("/dev/nvidia0")
    return has_node and ctypes.util.find_library("cuda") is not None


def configure_cuda_simulator() -> bool:
    """Turn the CUDA simulator on when no GPU is present; return whether it is on.

    An explicit ``NUMBA_ENABLE_CUDASIM`` (``0`` or ``1``) set by the user always wins.
    """
    if SIMULATOR_VARIABLE not in os.environ and not gpu_present():
        os.environ[SIMULATOR_VARIABLE] = "1"
    on = os.environ.get(SIMULATOR_VARIABLE) == "1"
    if on:
        make_simulator_thread_safe()
    return on


#: The simulator's module that defines ``cuda.shared``.
KERNELAPI = "numba.cuda.simulator.kernelapi"


def make_simulator_thread_safe() -> None:
    """Thread-safe shared arrays in the simulator, now or when it is imported."""
    if KERNELAPI in sys.modules:
        atomic_shared_arrays(sys.modules[KERNELAPI])
    elif not any(isinstance(f, _AfterImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport(KERNELAPI, atomic_shared_arrays))


def atomic_shared_arrays(kernelapi: ModuleType) -> None:
    """Replace ``FakeCUDAShared.array`` by one whose lookup-or-create is atomic.

    Arrays are still identified, as the simulator does, by the file and line that
    asks for them; dynamic shared memory (``shape == 0``) needs no lookup and is
    left to the original."""
    shared = kernelapi.FakeCUDAShared
    if getattr(shared.array, "atomic", False):
        return
    import numpy as np
    from numba.core import types
    from numba.np import numpy_support

    original = shared.array
    lock = threading.Lock()

    def array(self: Any, shape: Any, dtype: Any, alignment: Any = None) -> Any:
        if alignment is not None or shape == 0:
            return original(self, shape, dtype, alignment)
        caller = sys._getframe(1)
        key = (caller.f_code.co_filename, caller.f_lineno)
        with lock:
            found = self._allocations.get(key)
            if found is None:
                if isinstance(dtype, types.Type):
                    dtype = numpy_support.as_dtype(dtype)
                found = self._allocations[key] = np.empty(shape, dtype)
        return found

    array.atomic = True  # type: ignore[attr-defined]
    shared.array = array


class _AfterImport(importlib.abc.MetaPathFinder):
    """Calls ``patch(module)`` right after the module ``name`` is first imported."""

    def __init__(self, name: str, patch: Callable[[ModuleType], None]) -> None:
        self.name, self.patch = name, patch

    def find_spec(
        self, fullname: str, path: Optional[Sequence[str]], target: Any = None
    ) -> Any:
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)  # find the real module with the other finders
        spec = importlib.util.find_spec(fullname)
        if spec is not None and spec.loader is not None:
            spec.loader = _PatchingLoader(spec.loader, self.patch)
        return spec


class _PatchingLoader(importlib.abc.Loader):
    def __init__(self, loader: Any, patch: Callable[[ModuleType], None]) -> None:
        self.loader, self.patch = loader, patch

    def create_module(self, spec: Any) -> Optional[ModuleType]:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.loader.exec_module(module)
        self.patch(module)


#: float64 throughput as a share of float32, by compute capability (NVIDIA's CUDA
#: C++ Programming Guide, "Arithmetic Instructions"): data-centre GPUs (P100, V100,
#: A100, H100) do half as many float64 operations; consumer and inference GPUs (T4 and
#: the GeForce RTX cards, L4) a 32nd or a 64th.
FLOAT64_SHARE = {
    (6, 0): 2,
    (6, 1): 32,
    (7, 0): 2,
    (7, 5): 32,
    (8, 0): 2,
    (8, 6): 64,
    (8, 7): 64,
    (8, 9): 64,
    (9, 0): 2,
    (12, 0): 64,
}


def float64_note(major: int, minor: int) -> str:
    """What float64 costs on a GPU of compute capability ``major.minor``: the
    course's tensors are float64, so its CUDA rows run at this share of the GPU's
    advertised (float32) speed, as PyTorch's float64 does."""
    share = FLOAT64_SHARE.get((major, minor))
    if share is None:
        return f"float64 speed of compute capability {major}.{minor}: not recorded"
    kind = "a data-centre GPU" if share == 2 else "a consumer or inference GPU"
    return (
        f"float64 at 1/{share} of float32 ({kind}): the course's float64 kernels, "
        "and PyTorch's float64 beside them, run at that share of the GPU's "
        "advertised speed"
    )
