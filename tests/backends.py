"""Run one tensor test on every backend, each variant graded under the right task.

A Module 2 test written once runs on the pure-Python ``simple`` backend (graded under
its own Module 2 task), on Numba's ``fast`` backend (graded under Task 3.1) and,
when asked, on the ``cuda`` backend (Task 3.3, the CUDA simulator without a GPU).
Backends whose module is not in this edition are left out.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any, List

import pytest

# backend name -> (module holding the kernels, attribute of the backend, task)
_BACKENDS = {
    "simple": ("module2_tensors.tensor_ops", "module2_tensors:SimpleBackend", None),
    "fast": ("module3_fast_ops.fast_ops", "module3_fast_ops:FastBackend", "3.1"),
    "cuda": ("module3_fast_ops.cuda_ops", "module3_fast_ops:CudaBackend", "3.3"),
}


def _present(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def _mark(task: str) -> Any:
    return getattr(pytest.mark, "task" + task.replace(".", "_"))


#: A test that multiplies matrices needs the backend's matmul kernel: Task 3.2's on
#: ``fast``, Task 3.4's on ``cuda`` (``kindling marks`` checks that a test passes
#: with only its task and what that depends on solved).
_MATMUL_OWNERS = {"fast": "3.2", "cuda": "3.4"}


def backend_params(
    task: str, fast: bool = True, cuda: bool = False, matmul: bool = False
) -> List[Any]:
    """Parameters for ``@pytest.mark.parametrize("backend", ..., indirect=True)``.

    ``task`` is the Module 2 task the ``simple`` variant belongs to; with
    ``matmul=True`` (the test multiplies matrices) the ``fast`` and ``cuda``
    variants belong to the tasks of those backends' matmul kernels.
    """
    chosen = ["simple"] + (["fast"] if fast else []) + (["cuda"] if cuda else [])
    params = []
    for name in chosen:
        kernels, _, owner = _BACKENDS[name]
        if not _present(kernels):
            continue
        if matmul and name in _MATMUL_OWNERS:
            owner = _MATMUL_OWNERS[name]
        params.append(pytest.param(name, marks=_mark(owner or task), id=name))
    return params


def resolve_backend(name: str) -> Any:
    """The backend object for a backend name."""
    module, attribute = _BACKENDS[name][1].split(":")
    return getattr(importlib.import_module(module), attribute)
