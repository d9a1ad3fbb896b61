"""Numba's CUDA simulator, made safe to run the tests on.

The simulator runs every thread of a block as a Python thread, and
``cuda.shared.array`` looks up, then creates, the block's array without a lock. Two
threads that both miss the lookup get two different "shared" arrays, and a reduce or
matmul block then computes garbage. Python's default 5 ms switch interval makes this
rare; the 1 us hand-over ``cuda_ops.launch`` sets while a simulated kernel runs makes it
frequent (1 wrong result in 25 runs of ``test_backward_on_tiny_tensors[cuda]``, none in
25 with this fix). :func:`prepare` makes the lookup atomic as soon as the simulator is
imported (importing it eagerly would cost every test run that never touches CUDA a
quarter of a second).
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
import threading
from types import ModuleType
from typing import Any, Callable, Optional, Sequence

#: The simulator's module that defines ``cuda.shared``.
KERNELAPI = "numba.cuda.simulator.kernelapi"


def prepare() -> None:
    """Thread-safe shared arrays in the simulator, now or when it is imported."""
    if KERNELAPI in sys.modules:
        atomic_shared_arrays(sys.modules[KERNELAPI])
    else:
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
