"""Version counters (engine layer): PyTorch's guard against in-place changes of
values a backward pass needs. Every in-place operation bumps the counter of its
storage (:func:`bump_version`); ``Function.apply`` records each input's version
(:func:`version_of`) in its ``History``, and the backward pass checks them again
(:func:`check_versions`) before it uses the saved values.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any, Dict

if TYPE_CHECKING:
    from ..tensor import Tensor
    from .autograd import History

#: One counter per storage *root* (the NumPy array that owns the memory), so a
#: tensor and all its views share it. Only storages ever changed in place get an
#: entry; it is dropped when the array dies. While it is empty, every version is 0
#: and :func:`apply` records none.
versions: Dict[int, int] = {}


def storage_root(t: "Tensor") -> Any:
    """The array that owns ``t``'s memory (shared by all of its views)."""
    storage = t._tensor._storage
    base = getattr(storage, "base", None)
    return storage if base is None else base


def version_of(t: "Tensor") -> int:
    """How many in-place operations have changed ``t``'s storage (PyTorch's
    ``t._version``; views of one storage share the count)."""
    return versions.get(id(storage_root(t)), 0)


def bump_version(t: "Tensor") -> None:
    """Record one in-place change of ``t``'s storage."""
    root = storage_root(t)
    key = id(root)
    if key not in versions:
        weakref.finalize(root, versions.pop, key, None)  # (NumPy, Numba CUDA)
    versions[key] = versions.get(key, 0) + 1


def check_versions(h: History, op_name: str) -> None:
    """Raise PyTorch's error if a tensor ``h``'s backward needs (an input, or
    the result the forward saved) was changed in place since the forward. Only
    called once some storage has been changed in place (:data:`versions` not
    empty): before that every version is 0.

    Raises:
        RuntimeError: "modified by an inplace operation", naming the function,
            the tensor's shape and both versions.
    """
    seen_then = h.versions or [0] * len(h.parents)
    needed = [(x, seen, "input", "") for x, seen in zip(h.parents, seen_then)]
    if h.saved_output is not None and not h.ctx.freed:
        k, seen = h.saved_output
        note = " (saved for its backward)"
        needed.append((h.ctx.saved_values[k], seen, "output", note))
    for x, seen, what, note in needed:
        now = version_of(x)
        if now != seen:
            raise RuntimeError(
                f"one of the variables needed for gradient computation has been "
                f"modified by an inplace operation: the {what} of shape {x.shape} "
                f"of {op_name}{note} is at version {now}; expected version {seen} "
                f"instead"
            )
