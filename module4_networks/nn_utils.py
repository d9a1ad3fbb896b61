"""``nn.utils``: gradient clipping and the parameters as one vector, as
``torch.nn.utils`` (given code).

Recurrent networks multiply the gradient by the same Jacobian once per time step, so
it can grow exponentially (*exploding gradients*). Clipping rescales the gradients
of all parameters together when their joint norm is too large, which keeps the
direction of the step and bounds its length.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, List, Union

import numpy as np

from module2_tensors.engine.dtypes import result_type
from module2_tensors.function_forms import cat
from module2_tensors.shape_functions import no_grad
from module2_tensors.tensor import Tensor, tensor

from .weight_init import _tensor_of

__all__ = [
    "clip_grad_norm_",
    "clip_grad_value_",
    "parameters_to_vector",
    "vector_to_parameters",
]


def _gradients(parameters: Union[Any, Iterable[Any]]) -> List[Tensor]:
    """The ``.grad`` tensors of ``parameters`` (Parameters or tensors; one or many),
    skipping those without a gradient."""
    if isinstance(parameters, Tensor) or hasattr(parameters, "value"):
        parameters = [parameters]
    return [t.grad for t in map(_tensor_of, parameters) if t.grad is not None]


def clip_grad_norm_(
    parameters: Union[Any, Iterable[Any]],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
) -> Tensor:
    """Scale all gradients by $\\min(1, \\text{max\\_norm} / (\\lVert g \\rVert +
    10^{-6}))$, in place, where $\\lVert g \\rVert = (\\sum_p \\lVert g_p
    \\rVert_q^q)^{1/q}$ is the norm of all gradients together (``q = norm_type``;
    ``inf`` for the largest absolute entry).

    Returns:
        the total norm before clipping, as a 0-d tensor.

    Raises:
        RuntimeError: the total norm is nan or inf and ``error_if_nonfinite``.
    """
    grads = _gradients(parameters)
    if not grads:
        return tensor(0.0)
    with no_grad():
        # The norm of every entry together (NumPy's, which a NaN wins, as torch's)
        entries = np.concatenate([g.to_numpy().ravel() for g in grads])
        total = float(np.linalg.norm(entries, float(norm_type)) if entries.size else 0)
        if error_if_nonfinite and not math.isfinite(total):
            raise RuntimeError(
                f"the total norm of order {norm_type} of the gradients is {total}; "
                f"pass error_if_nonfinite=False to clip anyway"
            )
        # As torch: the gradients times min(scale, 1) (NaN for a NaN norm: min
        # keeps its first argument), so a NaN norm makes every gradient NaN and
        # an infinite one makes the finite entries 0 (an infinite entry, inf * 0,
        # NaN): the step that follows shows the problem.
        scale = min(max_norm / (total + 1e-6), 1.0)
        for g in grads:
            g.mul_(scale)
    return tensor(total, backend=grads[0].backend, dtype=result_type(*grads))


def clip_grad_value_(parameters: Union[Any, Iterable[Any]], clip_value: float) -> None:
    """Clamp every gradient entry into ``[-clip_value, clip_value]``, in place
    (``clamp_``, as torch's; a NaN stays NaN)."""
    with no_grad():
        for g in _gradients(parameters):
            g.clamp_(-clip_value, clip_value)


def parameters_to_vector(parameters: Iterable[Any]) -> Tensor:
    """Every parameter flattened and concatenated, in order, into one 1-D
    tensor (differentiable: a loss of it sends gradients to the parameters)."""
    return cat([p.reshape(p.size) for p in map(_tensor_of, parameters)])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Any]) -> None:
    """Copy consecutive slices of the 1-D ``vec`` into the parameters, in
    order, each reshaped to its parameter's shape (in place, without a graph;
    PyTorch instead makes each parameter a view of ``vec``).

    Raises:
        TypeError: ``vec`` is not a tensor.
    """
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    start = 0
    with no_grad():
        for p in map(_tensor_of, parameters):
            p.copy_(vec[start : start + p.size].reshape(p.shape))
            start += p.size
