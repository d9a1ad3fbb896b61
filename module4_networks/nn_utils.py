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

from module0_fundamentals._exports import defined_here
from module2_tensors.engine.dtypes import result_type
from module2_tensors.function_forms import cat
from module2_tensors.shape_functions import no_grad
from module2_tensors.tensor import Tensor, tensor

from .weight_init import _tensor_of


def _listed(parameters: Union[Any, Iterable[Any]]) -> List[Any]:
    """``parameters`` (Parameters or tensors; one or many) as a list."""
    one = isinstance(parameters, Tensor) or hasattr(parameters, "value")
    return [parameters] if one else list(parameters)


def _gradients(parameters: Union[Any, Iterable[Any]]) -> List[Tensor]:
    """The ``.grad`` tensors of ``parameters`` (see :func:`_listed`), skipping
    those without a gradient."""
    return [t.grad for t in map(_tensor_of, _listed(parameters)) if t.grad is not None]


def get_total_norm(
    tensors: Union[Tensor, Iterable[Tensor]],
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
) -> Tensor:
    """$(\\sum_t \\lVert t \\rVert_q^q)^{1/q}$: the norm of every entry of
    ``tensors`` together (``q = norm_type``; ``inf`` for the largest absolute
    entry), as a 0-d tensor; a NaN entry makes it NaN, as torch's.

    Raises:
        RuntimeError: the norm is nan or inf and ``error_if_nonfinite``.
    """
    tensors = _listed(tensors)
    if not tensors:
        return tensor(0.0)
    entries = np.concatenate([t.to_numpy().ravel() for t in tensors])
    total = float(np.linalg.norm(entries, float(norm_type)) if entries.size else 0)
    if error_if_nonfinite and not math.isfinite(total):
        raise RuntimeError(
            f"the total norm of order {norm_type} of the gradients is {total}; "
            f"pass error_if_nonfinite=False to clip anyway"
        )
    return tensor(total, backend=tensors[0].backend, dtype=result_type(*tensors))


def clip_grads_with_norm_(
    parameters: Union[Any, Iterable[Any]], max_norm: float, total_norm: Any
) -> None:
    """Scale all gradients by $\\min(1, \\text{max\\_norm} / (\\text{total\\_norm}
    + 10^{-6}))$, in place (``total_norm``: :func:`get_total_norm` of them)."""
    # As torch: the gradients times min(scale, 1) (NaN for a NaN norm: min
    # keeps its first argument), so a NaN norm makes every gradient NaN and
    # an infinite one makes the finite entries 0 (an infinite entry, inf * 0,
    # NaN): the step that follows shows the problem.
    scale = min(max_norm / (float(total_norm) + 1e-6), 1.0)
    with no_grad():
        for g in _gradients(parameters):
            g.mul_(scale)


def clip_grad_norm_(
    parameters: Union[Any, Iterable[Any]],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
) -> Tensor:
    """:func:`clip_grads_with_norm_` with the :func:`get_total_norm` of the
    gradients (``norm_type``, ``error_if_nonfinite``: see there).

    Returns:
        the total norm before clipping, as a 0-d tensor.
    """
    parameters = _listed(parameters)
    total = get_total_norm(_gradients(parameters), norm_type, error_if_nonfinite)
    clip_grads_with_norm_(parameters, max_norm, total)
    return total


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


# (last: the names defined above)
__all__ = defined_here(globals())
