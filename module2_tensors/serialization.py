"""``kt.save`` and ``kt.load``: ``torch.save``/``torch.load`` for state dicts,
tensors and anything else Python's ``pickle`` can write (given code).

A tensor pickles as its numbers (a NumPy array), its backend's name and its
``requires_grad`` flag; it comes back on the backend of that name (the default
backend if that one is not loaded). This also makes ``copy.deepcopy(model)``
work. Only load files you trust: unpickling can run code, as with ``torch.load``.
"""

from __future__ import annotations

import copyreg
import pickle
from pathlib import Path
from typing import IO, Any, Union

import numpy as np

from .tensor import Tensor, _candidates, get_default_backend, tensor
from .tensor_ops import SimpleBackend, TensorBackend

__all__ = ["save", "load"]

PathOrFile = Union[str, Path, IO[bytes]]


def backend_named(name: str) -> TensorBackend:
    """The loaded backend called ``name`` (``"simple"``, ``"fast"``, ...), or
    the default backend."""
    for backend in [SimpleBackend, get_default_backend()] + [b for b, _ in _candidates]:
        if backend.name == name:
            return backend
    try:  # CudaBackend registers no candidate: look for it where Module 3 keeps it
        import sys

        cuda = sys.modules.get("module3_fast_ops.cuda_ops")
        if cuda is not None and cuda.CudaBackend.name == name:
            return cuda.CudaBackend
    except AttributeError:
        pass
    return get_default_backend()


def rebuild_tensor(array: np.ndarray, backend: str, requires_grad: bool) -> Tensor:
    """The inverse of ``Tensor.__reduce__``."""
    return tensor(array, backend=backend_named(backend), requires_grad=requires_grad)


# Backends hold compiled kernels, which do not pickle: a module that keeps one
# in an attribute pickles it by name.
copyreg.pickle(TensorBackend, lambda b: (backend_named, (b.name,)))


def save(obj: Any, f: PathOrFile) -> None:
    """Write ``obj`` (e.g. ``model.state_dict()``) to a path or binary file."""
    if isinstance(f, (str, Path)):
        with open(f, "wb") as out:
            pickle.dump(obj, out, protocol=pickle.HIGHEST_PROTOCOL)
    else:
        pickle.dump(obj, f, protocol=pickle.HIGHEST_PROTOCOL)


def load(f: PathOrFile) -> Any:
    """Read what :func:`save` wrote."""
    if isinstance(f, (str, Path)):
        with open(f, "rb") as source:
            return pickle.load(source)
    return pickle.load(f)
