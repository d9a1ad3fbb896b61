"""The autograd switches of the process (engine layer): :data:`MODES`, the one
object holding them (gradient recording, retain-graph, anomaly detection,
create-graph), and the given switches of gradient recording
(:class:`set_grad_enabled`, :class:`enable_grad`, :func:`is_grad_enabled`;
``no_grad`` and ``inference_mode`` are Task 2.6's, in ``autograd.py`` of the
package). ``engine/autograd.py`` reads them on every ``Function.apply`` and
backward pass.
"""

from __future__ import annotations

import functools
from typing import Any, Callable


class Modes:
    """The autograd switches of this process, in one object:

    * ``grad``: functions applied now record a history (``no_grad`` turns it off;
      ``tensor_functions.is_grad_enabled`` reads it);
    * ``retain_graph``: set by ``Tensor.backward(retain_graph=...)`` while a
      backward pass runs; without it each function's saved tensors are freed once
      used, as in PyTorch;
    * ``anomaly``: anomaly detection (``kt.autograd.set_detect_anomaly``) checks
      every forward;
    * ``anomaly_backward``: set by ``Tensor.backward`` while it runs in anomaly
      mode, which then checks each backward as a whole;
    * ``create_graph``: set by ``Tensor.backward(create_graph=True)`` while the
      pass runs: the pass is recorded (``engine/higher_order.py``).
    """

    __slots__ = ("grad", "retain_graph", "anomaly", "anomaly_backward", "create_graph")

    def __init__(self) -> None:
        self.grad, self.create_graph = True, False
        self.retain_graph = self.anomaly = self.anomaly_backward = False


MODES = Modes()


class set_grad_enabled:
    """Switch gradient recording on or off (``torch.set_grad_enabled``): at once
    when called, ``kt.set_grad_enabled(False)``; and, used as a context manager
    (``with kt.set_grad_enabled(phase == "train"):``) or a decorator, only
    inside the block or the function, restoring the previous mode afterwards.
    """

    def __init__(self, mode: bool) -> None:
        self.mode, self._previous = bool(mode), MODES.grad
        MODES.grad = self.mode

    def __enter__(self) -> "set_grad_enabled":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        MODES.grad = self._previous

    def __call__(self, fn: Any) -> Any:
        # As a decorator, the mode applies inside ``fn`` only (as in PyTorch).
        MODES.grad = self._previous
        return run_inside(lambda: set_grad_enabled(self.mode), fn)


class enable_grad(set_grad_enabled):
    """Context manager (and decorator) that switches gradient recording *on*,
    even inside ``no_grad()`` (``torch.enable_grad``): on entering the block (or
    calling the function), not when made. (Given.)"""

    def __init__(self) -> None:
        self.mode, self._previous = True, MODES.grad

    def __enter__(self) -> "enable_grad":
        self._previous, MODES.grad = MODES.grad, True
        return self


def is_grad_enabled() -> bool:
    """Whether functions applied now record a history (PyTorch's
    ``torch.is_grad_enabled``; ``no_grad()`` switches it off)."""
    return MODES.grad


def run_inside(
    context: Callable[[], Any], fn: Callable[..., Any]
) -> Callable[..., Any]:
    """``fn`` run inside a fresh ``context()`` at every call: a context manager
    used as a decorator (``@no_grad()``, ``@set_grad_enabled(False)``)."""

    @functools.wraps(fn)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        with context():
            return fn(*args, **kwargs)

    return wrapped
