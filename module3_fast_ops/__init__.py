"""Module 3: fast tensor backends, Numba on the CPU (``FastOps``) and CUDA on the GPU
(``CudaOps``).

Re-exports Module 2's public API (and through it Modules 0 and 1), so
``import module3_fast_ops as kt`` gives everything built so far. ``CudaOps``,
``CudaBackend`` and ``cuda_ops`` are imported on first use, so that importing this
package neither needs numba-cuda nor fixes whether CUDA code runs on a GPU or in the
simulator (Numba decides that when ``numba.cuda`` is first imported).
"""

import importlib
from typing import Any

from module2_tensors import *

from module2_tensors import name_backend, register_backend

from . import fast_matmul, fast_ops
from .fast_ops import FastBackend, FastOps


def _fast_ops_written() -> bool:
    """Whether Tasks 3.1 and 3.2 are done: their kernel builders then return a
    kernel (compiled lazily) instead of raising ``NotImplementedError``."""
    from module0_fundamentals import operators

    fast_ops.tensor_map(operators.neg)
    fast_ops.tensor_zip(operators.add)
    fast_ops.tensor_reduce(operators.add)
    fast_matmul.tensor_matrix_multiply()
    return True


# The default backend of factories and layers is the fastest one written (see
# module2_tensors.get_default_backend); "cuda" is known by name, imported when named.
register_backend(FastBackend, _fast_ops_written)
name_backend("cuda", lambda: importlib.import_module(".cuda_ops", __name__).CudaBackend)


def __getattr__(name: str) -> Any:
    if name in ("CudaOps", "CudaBackend", "cuda_ops"):
        # import_module, not "from . import": that would call __getattr__ again.
        cuda_ops = importlib.import_module(".cuda_ops", __name__)
        return cuda_ops if name == "cuda_ops" else getattr(cuda_ops, name)
    raise AttributeError(f"module 'module3_fast_ops' has no attribute {name!r}")
