"""``kt.autograd``: PyTorch's ``torch.autograd`` helpers (given code).

* anomaly detection: :func:`set_detect_anomaly` / :class:`detect_anomaly` make
  the first operation whose forward or backward turns finite numbers into nan or
  inf raise ``FloatingPointError``, naming the operation as the user wrote it
  (``log``, ``/``, ``sqrt``), the shapes, and the file and line that called it.
  Without it, tensor operations follow IEEE (``inf``, ``nan``) silently, as in
  PyTorch;
* :func:`grad`: the gradients of outputs with respect to chosen inputs, without
  touching any ``.grad``; with ``create_graph=True`` they can be differentiated
  again (higher-order gradients: ``engine/higher_order.py``).
"""

from __future__ import annotations

from typing import Any, List, Optional
from module0_fundamentals._exports import defined_here

from .engine.grad_modes import MODES


def set_detect_anomaly(mode: bool) -> None:
    """Switch anomaly detection on or off for everything that follows."""
    MODES.anomaly = bool(mode)


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is on."""
    return MODES.anomaly


class detect_anomaly:
    """Context manager with anomaly detection on (as PyTorch's, not a decorator)::

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


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: Optional[bool] = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: Optional[bool] = None,
    materialize_grads: bool = False,
) -> tuple:
    """``torch.autograd.grad``: $\\partial (\\sum_k \\langle g_k, y_k \\rangle) /
    \\partial x$ for each input $x$, where $y_k$ are ``outputs`` and $g_k$ the
    ``grad_outputs`` (ones for a one-element output). Returns a tuple with one
    gradient per input (``None`` for an unused input when ``allow_unused``,
    zeros of its shape when ``materialize_grads``); every ``.grad`` is left as
    it was.

    With ``create_graph=True`` the backward pass is recorded: each gradient has
    a history (through the inputs, and ``grad_outputs`` that require grad), so
    it can be differentiated again, e.g. a Hessian-vector product
    $H v = \\partial \\langle \\nabla f, v \\rangle / \\partial x$ or a
    gradient penalty $\\|\\nabla_x L\\|^2$ backpropagated to the weights.
    ``retain_graph`` defaults to ``create_graph``, as in PyTorch;
    ``only_inputs`` is ignored (deprecated in PyTorch too).

    Raises:
        RuntimeError: an input does not require grad, or is unused and
            ``allow_unused`` is false; the graph was freed by an earlier pass
            (no ``retain_graph``).
    """
    allow_unused = materialize_grads if allow_unused is None else allow_unused
    if materialize_grads and not allow_unused:
        raise ValueError(
            "grad: materialize_grads=True needs allow_unused=True (or left unset)"
        )
    from module1_scalar_autodiff.autodiff import topological_sort

    outs = _listed(outputs)
    ins = _listed(inputs)
    seeds = [None] * len(outs) if grad_outputs is None else _listed(grad_outputs)
    if not all(x.requires_grad for x in ins):
        raise RuntimeError("grad: one of the inputs does not require grad")
    # Run the ordinary backward pass, with every .grad it would write (of the
    # leaves and retaining tensors behind the outputs, and of the inputs) saved
    # and restored around it (a tensor listed twice is saved twice, with the same
    # values), and non-leaf inputs made to retain their gradient meanwhile.
    behind = [
        n for y in outs for n in topological_sort(y) if n.is_leaf or n.retains_grad
    ]
    saved = [(t, t.grad, t.retains_grad) for t in ins + behind]
    try:
        for t, _, _ in saved:
            t.grad = None
        for x in ins:
            x.retains_grad = not x.is_leaf
        for k, (y, g) in enumerate(zip(outs, seeds)):
            keep = retain_graph if k == len(outs) - 1 else True  # (the last frees)
            y.backward(g, retain_graph=keep, create_graph=create_graph)
        result = tuple(x.grad for x in ins)
    finally:
        for t, g, retains in saved:
            t.grad, t.retains_grad = g, retains
    for x, g in zip(ins, result):
        if g is None and not allow_unused:
            raise RuntimeError(
                f"grad: an input of shape {x.shape} was not used to compute the "
                f"outputs (pass allow_unused=True)"
            )
    return tuple(
        x.new_zeros(x.shape) if g is None and materialize_grads else g
        for x, g in zip(ins, result)
    )


def _listed(x: Any) -> List[Any]:
    """A list or tuple as a list; anything else as a list of one."""
    return list(x) if isinstance(x, (list, tuple)) else [x]


# (last: the names defined above)
__all__ = defined_here(globals())
