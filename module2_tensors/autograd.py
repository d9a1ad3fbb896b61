"""``kt.autograd``: PyTorch's ``torch.autograd`` helpers (given code).

* anomaly detection: :func:`set_detect_anomaly` / :class:`detect_anomaly` make
  the first operation whose forward or backward turns finite numbers into nan or
  inf raise ``FloatingPointError``, naming the operation as the user wrote it
  (``log``, ``/``, ``sqrt``), the shapes, and the file and line that called it.
  Without it, tensor operations follow IEEE (``inf``, ``nan``) silently, as in
  PyTorch;
* :func:`grad`: the gradients of outputs with respect to chosen inputs, without
  touching any ``.grad``.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, List, Optional, Sequence, Union

from .engine.autograd import MODES

__all__ = [
    "set_detect_anomaly",
    "is_anomaly_enabled",
    "detect_anomaly",
    "grad",
]


def set_detect_anomaly(mode: bool) -> None:
    """Switch anomaly detection on or off for everything that follows."""
    MODES.anomaly = bool(mode)


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is on."""
    return MODES.anomaly


class detect_anomaly:
    """Context manager (and decorator) with anomaly detection on::

    with kt.autograd.detect_anomaly():
        loss = model(x).log().sum()     # FloatingPointError at the log
        loss.backward()
    """

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan

    def __enter__(self) -> "detect_anomaly":
        self._previous = MODES.anomaly
        MODES.anomaly = self.check_nan
        return self

    def __exit__(self, *exc_info: Any) -> None:
        MODES.anomaly = self._previous

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            with detect_anomaly(self.check_nan):
                return fn(*args, **kwargs)

        return wrapped


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: Optional[bool] = None,
    allow_unused: bool = False,
) -> tuple:
    """``torch.autograd.grad``: $\\partial (\\sum_k \\langle g_k, y_k \\rangle) /
    \\partial x$ for each input $x$, where $y_k$ are ``outputs`` and $g_k$ the
    ``grad_outputs`` (ones for a one-element output). Returns a tuple with one
    gradient per input (``None`` for an unused input when ``allow_unused``);
    every ``.grad`` is left as it was.

    Raises:
        RuntimeError: an input does not require grad, or is unused and
            ``allow_unused`` is false.
    """
    from .tensor import Tensor

    outs: List[Tensor] = (
        list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    )
    ins: List[Tensor] = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    if grad_outputs is None:
        seeds: Sequence[Union[None, Tensor]] = [None] * len(outs)
    elif isinstance(grad_outputs, (list, tuple)):
        seeds = list(grad_outputs)
    else:
        seeds = [grad_outputs]
    for x in ins:
        if not x.requires_grad:
            raise RuntimeError("grad: one of the inputs does not require grad")
    # Run the ordinary backward pass, with every .grad saved and restored around
    # it, and non-leaf inputs made to retain their gradient meanwhile.
    saved = [(x, x.grad, x.retains_grad) for x in ins]
    others = _leaves_behind(outs)
    saved_others = [(t, t.grad) for t in others]
    try:
        for x in ins:
            x.grad = None
            if not x.is_leaf:
                x.retains_grad = True
        for t in others:
            t.grad = None
        for k, (y, g) in enumerate(zip(outs, seeds)):
            last = k == len(outs) - 1
            y.backward(g, retain_graph=True if not last else retain_graph)
        result = tuple(x.grad for x in ins)
    finally:
        for x, g, retains in saved:
            x.grad, x.retains_grad = g, retains
        for t, g in saved_others:
            if all(t is not x for x in ins):
                t.grad = g
    for x, g in zip(ins, result):
        if g is None and not allow_unused:
            raise RuntimeError(
                f"grad: an input of shape {x.shape} was not used to compute the "
                f"outputs (pass allow_unused=True)"
            )
    return result


def _leaves_behind(outputs: List[Any]) -> List[Any]:
    """The leaves (and retaining tensors) that a backward from ``outputs`` would
    write ``.grad`` into."""
    from module1_scalar_autodiff.autodiff import topological_sort

    found = {}
    for y in outputs:
        for node in topological_sort(y):
            if node.is_leaf or node.retains_grad:
                found[node.unique_id] = node
    return list(found.values())
