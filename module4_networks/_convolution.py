"""Argument handling of ``F.conv1d`` and ``F.conv2d``, and the convolution as a
differentiable tensor operation (private: students never edit or need to read
this file).

PyTorch's convolutions accept ints or pairs, ``padding="same"``/``"valid"``,
dilation, groups and unbatched inputs. :func:`_conv` turns every such call into
what Tasks 4.1 and 4.2 implement: ``ConvFun`` with integer strides and paddings,
on a batched input: padding strings become explicit zeros, a dilated kernel
becomes a kernel with zeros between its taps, groups become separate convolutions
concatenated along the channels.

``ConvFun`` wraps the launchers of ``fast_conv.py`` (Tasks 4.1 and 4.2) as a
tensor ``Function``, or the kernels of ``cuda_conv`` on ``CudaBackend``.
"""

from __future__ import annotations

import warnings
from functools import partial
from typing import Any, Callable, Optional, Tuple, Union

from module2_tensors.engine.autograd import Context, Function
from module2_tensors.engine.higher_order import register
from module2_tensors.shape_functions import cat, pad
from module2_tensors.tensor import Tensor

from . import _padding
from ._conv_gemm import _view, recorded_backward
from ._conv_checks import IntPair, _check_groups, conv_output_shape, sizes
from .fast_conv import _launch


def _check_tensor(name: str, x: object) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{name} needs a Tensor, got {type(x).__name__}")


def _dim(dim: Optional[int], dims: int, name: str) -> int:
    """A dim in ``[-dims, dims)`` as a non-negative one (IndexError otherwise);
    ``None`` (the softmaxes'): PyTorch's implicit dim, 0 for a 0-, 1- or 3-D
    tensor, else 1, with PyTorch's warning."""
    if dim is None:
        dim = 0 if dims in (0, 1, 3) else 1
        warnings.warn(
            f"Implicit dimension choice for {name} has been deprecated", stacklevel=3
        )
    # (``max`` is shadowed in this module by F.max, so no builtins here.)
    if not -dims <= dim < (dims if dims else 1):
        raise IndexError(
            f"{name}: dim={dim} is out of range for a tensor of {dims} dimensions"
        )
    return dim % dims if dims else 0


# ----------------------------------------------------------- convolutions
def _conv(
    name: str,
    spatial: int,
    input: Tensor,
    weight: Tensor,
    bias: Optional[Tensor],
    stride: IntPair,
    padding: Union[IntPair, str],
    dilation: IntPair = 1,
    groups: int = 1,
    pad_by: Callable[..., Tensor] = pad,  # (a layer's padding_mode: F.pad's mode)
) -> Tensor:
    _check_tensor(f"{name} input", input)
    _check_tensor(f"{name} weight", weight)
    strides = sizes(name, "stride", stride, spatial)
    dilations = sizes(name, "dilation", dilation, spatial)
    if any(d < 1 for d in dilations):
        raise ValueError(f"{name}: dilation must be positive, got {dilation}")
    if isinstance(padding, str):
        # "valid": none; "same": the output as large as the input, stride 1 (an
        # odd total puts the extra zero on the right, as PyTorch).
        if padding not in ("same", "valid"):
            raise ValueError(
                f"{name}: padding must be an int, a pair, 'valid' or 'same', got "
                f"{padding!r}"
            )
        if padding == "same":
            if any(s != 1 for s in strides):
                raise ValueError(
                    f"{name}: padding='same' is not supported for strided convolutions"
                )
            totals = [d * (k - 1) for k, d in zip(weight.shape[2:], dilations)][::-1]
            # (last dim first, as F.pad)
            input = pad_by(input, [n for t in totals for n in (t // 2, t - t // 2)])
        return _conv(name, spatial, input, weight, bias, stride, 0, dilation, groups)
    paddings = sizes(name, "padding", padding, spatial)
    if pad_by is not pad:  # (padded by that mode first, then no padding, as PyTorch)
        input = pad_by(input, [p for p in paddings[::-1] for _ in range(2)])
        return _conv(name, spatial, input, weight, bias, stride, 0, dilation, groups)
    weight = _dilate(weight, dilations)  # (every dilation 1: the weight, contiguous)
    if groups != 1:
        # groups independent convolutions, each of C_in / groups input channels to
        # C_out / groups outputs, concatenated along the channels.
        channel = 1 if input.dims == spatial + 2 else 0
        _check_groups(name, input.shape[channel], weight.shape[0], groups)
        bs = [None] * groups if bias is None else list(bias.chunk(groups, 0))
        parts = zip(input.chunk(groups, channel), weight.chunk(groups, 0), bs)
        return cat([_conv(name, spatial, *p, stride, padding) for p in parts], channel)
    if bias is not None:
        _check_tensor(f"{name} bias", bias)
        if bias.shape != (weight.shape[0],):
            raise ValueError(
                f"{name}: bias must have shape ({weight.shape[0]},) to match the "
                f"weight's shape {weight.shape}, got {bias.shape}"
            )
    # PyTorch also takes one unbatched example, (channels, *spatial).
    unbatched = input.dims == spatial + 1
    x = input.unsqueeze(0) if unbatched else input
    # (On CudaBackend the same Functions run the GPU kernels of cuda_conv.)
    out = ConvFun.apply(x, weight, bias, strides, paddings)
    return out.squeeze(0) if unbatched else out


def _dilate(x: Tensor, dilations: Tuple[int, ...]) -> Tensor:
    """``x`` with ``d - 1`` zeros between neighbours along each spatial dim (2,
    3, ...; ``d`` from ``dilations``), differentiable: a dilated kernel (a dilated
    convolution is a convolution with it), or the spread input of a transposed
    convolution."""
    for axis, d in enumerate(dilations, start=2):
        if d > 1:
            n = x.shape[axis]
            zeros = x.new_zeros(x.shape[: axis + 1] + (d - 1,) + x.shape[axis + 1 :])
            spread = cat([x.unsqueeze(axis + 1), zeros], axis + 1)
            x = spread.flatten(axis, axis + 1).narrow(axis, 0, (n - 1) * d + 1)
    return x.contiguous()


# ------------------------------------------------------- the tensor Functions
class ConvFun(Function):
    """``conv1d`` and ``conv2d`` (given): ``apply(input, weight, bias_or_None,
    strides, paddings)`` with one stride and padding per spatial dim, the
    launchers of ``fast_conv.py`` as a differentiable tensor operation, the
    number of spatial dims read from the strides (forward) and the gradient
    (backward). The input and weight gradients are computed only when autodiff
    needs them. On the CPU they run as im2col + one matrix multiply
    (``_conv_gemm``, README section 3) wherever that agrees with your kernels,
    which are run and compared first; on ``CudaBackend``, the kernels of
    ``cuda_conv`` (imported only then, so that ``numba.cuda`` loads only when a
    CUDA tensor needs it)."""

    @staticmethod
    def forward(
        ctx: Context,
        input: Tensor,
        weight: Tensor,
        bias: Optional[Tensor],
        stride: Tuple[int, ...],
        padding: Tuple[int, ...],
    ) -> Tensor:
        spatial = len(stride)
        op = f"conv{spatial}d"
        shape = conv_output_shape(op, input.shape, weight.shape, stride, padding)
        if getattr(input.backend, "cuda", False):
            from .cuda_conv import conv_forward_fn

            return conv_forward_fn(ctx, shape, input, weight, bias, stride, padding)
        out = input.new_zeros(shape)
        triples = (out.tuple(), input.tuple(), weight.tuple())
        _launch("forward", spatial, *triples, stride, padding, fast=True)
        if bias is not None:  # ``out`` is fresh and contiguous: add it in place
            _view(out.tuple(), spatial)[...] += bias.to_numpy().reshape(-1, 1, 1)
        ctx.save_for_backward(input, weight, bias is not None, stride, padding)
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tuple[Optional[Tensor], ...]:
        if getattr(grad.backend, "cuda", False):
            from .cuda_conv import conv_backward_fn

            return conv_backward_fn(ctx, grad)
        input, weight, has_bias, stride, padding = ctx.saved_values
        needs = ctx.needs_input_grad
        spatial = grad.dims - 2

        def filled(name: str, like: Tensor, first: Tensor, second: Tensor) -> Tensor:
            """A gradient of ``like``'s shape, filled by the launcher ``name``."""
            out = like.new_zeros(like.shape)
            triples = (out.tuple(), first.tuple(), second.tuple())
            _launch(name, spatial, *triples, stride, padding, fast=True)
            return out

        d_input = filled("backward_input", input, grad, weight) if needs[0] else None
        d_weight = filled("backward_weight", weight, input, grad) if needs[1] else None
        d_bias = None
        if has_bias and needs[2]:
            # NumPy's pairwise sums over a view of ``grad``: the worked-example
            # kernel ``fast_conv._bias_backward`` unravels every position with
            # divisions: on the CNN's two gradients (32 x 8 and 32 x 16 x 28 x 28)
            # 1.6 + 2.8 ms a step, this 0.05 + 0.09 ms (one thread, best of 20, load
            # average 9).
            d_bias = grad.new_tensor(_view(grad.tuple(), spatial).sum((0, 2, 3)))
        return d_input, d_weight, d_bias


# backward(create_graph=True) through a convolution: its im2col backward recorded.
register(ConvFun)(recorded_backward)


def padding_mode(layer: Any, mode: str) -> None:
    """Set a convolution layer's ``padding_mode``, as PyTorch's: ``"zeros"``, or
    ``F.pad``'s ``"reflect"``, ``"replicate"`` or ``"circular"`` (then its ``conv``
    pads the input by that mode, and convolves without padding)."""
    if mode not in ("zeros", "reflect", "replicate", "circular"):
        raise ValueError(f"unknown padding_mode {mode!r}")
    layer.padding_mode = mode
    if mode != "zeros":
        pad_by = partial(_padding.pad, mode=mode)
        layer.conv = partial(_conv, layer.conv.__name__, layer.spatial, pad_by=pad_by)


def conv_repr(layer: Any) -> str:
    """A convolution layer's ``extra_repr``, as PyTorch's: the channels, the
    kernel size and stride, then the settings that differ from their defaults
    (``bias=False`` where there is none)."""
    text = f"{layer.in_channels}, {layer.out_channels}"
    defaults = dict(kernel_size=None, stride=None, padding=0, dilation=1)
    defaults.update(output_padding=0, groups=1, bias=True, padding_mode="zeros")
    for name, default in defaults.items():  # (None: shown always)
        value = getattr(layer, name, default)  # (output_padding: transposed only)
        value = value is not None if name == "bias" else value
        if value not in (default, (default,) * len(layer.kernel_size)):
            text += f", {name}={value}"
    return text
