"""The normalizations of ``torch.nn.functional`` that no task asks for (given;
the facade ``nn.functional`` exports them, the layers of
``_normalization_layers.py`` call them): ``normalize`` and ``cosine_similarity``
(vectors scaled to unit norm), ``layer_norm``, ``group_norm``,
``instance_norm`` and ``batch_norm`` (activations scaled to zero mean and unit
variance), with PyTorch's signatures and semantics, from differentiable tensor
operations of Module 2 (which is all this file imports)."""

from __future__ import annotations

from typing import Optional, Sequence, Tuple, Union

import numpy as np

from module0_fundamentals._exports import defined_here
from module2_tensors.shape_functions import no_grad
from module2_tensors.tensor import Tensor


def normalize(
    input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12
) -> Tensor:
    """$x / \\max(\\lVert x \\rVert_p, \\epsilon)$ along ``dim``."""
    return input / input.norm(p, dim, keepdim=True).clamp(min=eps)


def cosine_similarity(
    x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8
) -> Tensor:
    """$\\sum_d \\frac{x_1}{\\max(\\lVert x_1 \\rVert, \\epsilon)} \\cdot
    \\frac{x_2}{\\max(\\lVert x_2 \\rVert, \\epsilon)}$ along ``dim`` (PyTorch
    2's form: each input is normalised first), after broadcasting the two."""
    shape = np.broadcast_shapes(x1.shape, x2.shape)
    x1, x2 = x1.expand(*shape), x2.expand(*shape)
    return (normalize(x1, 2.0, dim, eps) * normalize(x2, 2.0, dim, eps)).sum(dim)


def layer_norm(
    input: Tensor,
    normalized_shape: Union[int, Sequence[int]],
    weight: Optional[Tensor] = None,
    bias: Optional[Tensor] = None,
    eps: float = 1e-5,
) -> Tensor:
    """$(x - \\mu) / \\sqrt{\\sigma^2 + \\epsilon}\\, \\gamma + \\beta$ over the last
    ``len(normalized_shape)`` dims ($\\sigma^2$ biased), as ``F.layer_norm``.

    Raises:
        ValueError: ``normalized_shape`` is not the input's trailing shape.
    """
    dims, shape = _trailing("layer_norm", input, normalized_shape)
    return _affine(_standardized(input, dims, eps), weight, bias, shape)


def rms_norm(
    input: Tensor,
    normalized_shape: Union[int, Sequence[int]],
    weight: Optional[Tensor] = None,
    eps: Optional[float] = None,
) -> Tensor:
    """$x / \\sqrt{\\overline{x^2} + \\epsilon}\\, \\gamma$, the mean square over
    the last ``len(normalized_shape)`` dims, as ``F.rms_norm`` (``eps=None``:
    the machine epsilon of the input's dtype).

    Raises:
        ValueError: ``normalized_shape`` is not the input's trailing shape.
    """
    dims, shape = _trailing("rms_norm", input, normalized_shape)
    eps = np.finfo(input.dtype.name).eps if eps is None else eps
    rms = (input.square().mean(dims, keepdim=True) + eps).rsqrt()
    return _affine(input * rms, weight, None, shape)


def _trailing(
    name: str, input: Tensor, normalized_shape: Union[int, Sequence[int]]
) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
    """The last dims of ``input``, which ``normalized_shape`` (an int or a
    sequence) must give the sizes of, and that shape as a tuple."""
    shape = tuple(np.ravel(normalized_shape).tolist())
    if tuple(input.shape[input.dims - len(shape) :]) != shape or len(shape) == 0:
        raise ValueError(
            f"{name}: normalized_shape {list(shape)} does not match the "
            f"trailing dims of an input of shape {input.shape}"
        )
    return tuple(range(input.dims - len(shape), input.dims)), shape


def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Optional[Tensor] = None,
    bias: Optional[Tensor] = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise each example's channels in ``num_groups`` groups over the group's
    channels and positions (biased variance), then $\\gamma_c, \\beta_c$ per
    channel: input ``(N, C, *)``.

    Raises:
        ValueError: ``C`` not divisible by ``num_groups``.
    """
    if input.shape[1] % num_groups:
        raise ValueError(
            f"Expected number of channels in input to be divisible by num_groups, "
            f"but got input of shape {input.shape} and num_groups={num_groups}"
        )
    group = int(np.prod(input.shape[1:])) // num_groups  # (not -1: no examples)
    grouped = _standardized(input.reshape(input.shape[0], num_groups, group), (2,), eps)
    return _affine(grouped.reshape(*input.shape), weight, bias)


def instance_norm(
    input: Tensor,
    running_mean: Optional[Tensor] = None,
    running_var: Optional[Tensor] = None,
    weight: Optional[Tensor] = None,
    bias: Optional[Tensor] = None,
    use_input_stats: bool = True,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """``F.instance_norm``: each example's channel normalised over its
    positions (``group_norm`` with one channel a group), then $\\gamma_c,
    \\beta_c$; input ``(N, C, *)``. With running statistics given they move
    towards the batch's average instance mean and unbiased variance by
    ``momentum`` (in place, as PyTorch); ``use_input_stats=False`` normalises
    with them instead."""
    # PyTorch's way: batch_norm of one example of N * C channels, with the
    # running statistics repeated per example, then averaged back.
    n, c = input.shape[0], input.shape[1]
    stats = [s if s is None else s.repeat(n) for s in (running_mean, running_var)]
    flat = input.reshape(1, n * c, -1)
    out = batch_norm(flat, *stats, None, None, use_input_stats, momentum, eps)
    with no_grad():
        for stat, moved in zip((running_mean, running_var), stats):
            if stat is not None:
                stat.copy_(moved.view(n, c).mean(0))
    return _affine(out.reshape(*input.shape), weight, bias)


def batch_norm(
    input: Tensor,
    running_mean: Optional[Tensor],
    running_var: Optional[Tensor],
    weight: Optional[Tensor] = None,
    bias: Optional[Tensor] = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """``F.batch_norm``: each channel of ``(N, C, *)`` normalised over the batch
    and positions (biased variance) when ``training``, the running statistics
    then moving towards the batch's mean and unbiased variance by ``momentum``
    (in place, as PyTorch); otherwise normalised with the running statistics.
    Then $\\gamma_c, \\beta_c$."""
    per_channel = (1, input.shape[1]) + (1,) * (input.dims - 2)
    if not training:
        mean, var = running_mean.view(*per_channel), running_var.view(*per_channel)
        return _affine((input - mean) / (var + eps).sqrt(), weight, bias, per_channel)
    dims = (0,) + tuple(range(2, input.dims))
    if running_mean is not None and running_var is not None:
        with no_grad():  # (r + m (s - r) = (1 - m) r + m s)
            running_mean.lerp_(input.mean(dims), momentum)
            running_var.lerp_(input.var(dims, unbiased=True), momentum)
    return _affine(_standardized(input, dims, eps), weight, bias, per_channel)


def _standardized(x: Tensor, dims: Tuple[int, ...], eps: float) -> Tensor:
    """$(x - \\mu) / \\sqrt{\\sigma^2 + \\epsilon}$, mean and biased variance
    over ``dims``."""
    centred = x - x.mean(dims, keepdim=True)
    return centred / (centred.square().mean(dims, keepdim=True) + eps).sqrt()


def _affine(
    x: Tensor, weight: Optional[Tensor], bias: Optional[Tensor], shape: Tuple = ()
) -> Tensor:
    """$x \\gamma + \\beta$ with ``weight`` and ``bias`` (each optional) viewed
    as ``shape`` (by default one per channel, dim 1, of ``x``)."""
    shape = shape or (1, x.shape[1]) + (1,) * (x.dims - 2)
    x = x if weight is None else x * weight.view(*shape)
    return x if bias is None else x + bias.view(*shape)


# (last: the names defined above)
__all__ = defined_here(globals())
