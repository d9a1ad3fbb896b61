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

from ._backend import TensorBackend
from .engine.devices import backend_named

# Pickles written before these two functions moved name them here:
# rebuild_tensor (of a tensor) and backend_named (of a backend, see below).
from .tensor import rebuild_tensor  # noqa: F401

__all__ = ["save", "load"]

PathOrFile = Union[str, Path, IO[bytes]]

# Backends hold compiled kernels, which do not pickle: a module that keeps one
# in an attribute pickles it by name.
copyreg.pickle(TensorBackend, lambda b: (backend_named, (b.name,)))


def save(obj: Any, f: PathOrFile) -> None:
    """Write ``obj`` (e.g. ``model.state_dict()``) to a path or binary file."""
    if isinstance(f, (str, Path)):
        with open(f, "wb") as out:
            return save(obj, out)
    pickle.dump(obj, f, protocol=pickle.HIGHEST_PROTOCOL)


def load(f: PathOrFile) -> Any:
    """Read what :func:`save` wrote."""
    if isinstance(f, (str, Path)):
        with open(f, "rb") as source:
            return pickle.load(source)
    return pickle.load(f)
