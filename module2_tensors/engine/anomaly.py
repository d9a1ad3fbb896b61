"""Where an error points, and anomaly mode's checks (engine layer: students never
edit or need to read this file; it imports nothing of the library).

* :func:`user_call`: the operation the user's code called (``log``, ``/``) and
  its file and line, for the messages of ``engine/autograd.py`` (mixed backends)
  and of anomaly mode;
* :func:`check_forward`, :func:`check_backward`: anomaly mode
  (``kt.autograd.detect_anomaly()``; ``autograd.MODES.anomaly``) raises at the
  first forward, or backward, that turns finite numbers into nan or inf.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Tuple

import numpy as np

# Operator methods, as the user wrote them (a reflected one, __rsub__, as __sub__).
_OPERATORS = {
    "__add__": "+",
    "__sub__": "-",
    "__mul__": "*",
    "__truediv__": "/",
    "__pow__": "**",
    "__matmul__": "@",
    "__neg__": "-",
    "__getitem__": "[]",
}


def _in_library(filename: str) -> bool:
    # The library's packages are module0_fundamentals ... module4_networks and
    # their subpackages (engine/): the file's folder or the one above it is one.
    # The tests' folders, tests/module2, are the user's code.
    dirs = os.path.abspath(filename).split(os.sep)[-3:-1]
    return any(d[:6] == "module" and d[6:7].isdigit() and d[7:8] == "_" for d in dirs)


def user_call() -> Tuple[str, str]:
    """``(operation, "file:line")``: the library function the user's code called
    (``log``, ``/``, ``cross_entropy``) and where, found by walking the stack out
    to the first frame outside the library's ``module*`` packages."""
    frame = sys._getframe(1)
    entry = None
    while frame is not None and _in_library(frame.f_code.co_filename):
        entry, frame = frame, frame.f_back
    name = "?" if entry is None else entry.f_code.co_name
    if name == "__call__" and entry is not None and "self" in entry.f_locals:
        name = type(entry.f_locals["self"]).__name__  # a layer: Linear(...)
    name = _OPERATORS.get(name.replace("__r", "__", 1), name)
    where = "?" if frame is None else f"{frame.f_code.co_filename}:{frame.f_lineno}"
    return name, where


def _finite(t: Any) -> bool:
    return bool(np.isfinite(t.to_numpy()).all())


def check_forward(cls: type, ctx: Any, args: Tuple, out: Any, tensor: type) -> None:
    """Anomaly mode: remember where this function was called; raise if it made a
    nan/inf from finite inputs (the arguments of class ``tensor``)."""
    tensors = [x for x in args if isinstance(x, tensor)]
    op, where = user_call()
    ctx.anomaly_origin = (op, where, tuple(x.shape for x in tensors))
    if not _finite(out) and all(_finite(x) for x in tensors):
        shapes = ", ".join(str(x.shape) for x in tensors)
        raise FloatingPointError(
            f"anomaly: {op} produced nan/inf from finite inputs of shapes {shapes} "
            f"(function {cls.__name__}), called at {where}"
        )


def check_backward(cls: type, ctx: Any, grad: Any, grads: Tuple, tensor: type) -> None:
    """Anomaly mode: raise if ``cls.backward`` returned nan/inf (in a gradient of
    class ``tensor``) for a finite incoming gradient, naming the operation and
    where the forward was called."""
    for k, g in enumerate(grads):
        if isinstance(g, tensor) and not _finite(g) and _finite(grad):
            op, where, shapes = getattr(ctx, "anomaly_origin", ("?", "?", ()))
            raise FloatingPointError(
                f"anomaly: the backward of {op} (function {cls.__name__}, inputs "
                f"of shapes {', '.join(map(str, shapes))}) returned nan/inf in its "
                f"gradient {k}; the {op} was called at {where}"
            )
