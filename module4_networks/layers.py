"""The layers of ``module4_networks.nn``, as ``torch.nn`` (Task 4.6).

A layer is a :class:`~module0_fundamentals.module.Module` that owns
:class:`~module0_fundamentals.module.Parameter`s (a parameter of a tensor is
itself a tensor) and computes its ``forward`` with
:mod:`module4_networks.functional`.

The ``.value`` contract: every ``forward`` reads a parameter as
``self.weight.value`` (``self.bias.value``, ...), never as ``self.weight``.
``p.value`` is ``p`` itself until ``p.update(t)`` is given a tensor ``t`` that
records gradients (Module 1's optimizer step, a gradient check substituting its
inputs); from then on ``p.value`` is ``t``, and the gradient of a forward must
reach ``t``. A forward that reads ``self.weight`` sends it to the parameter
instead, and ``t.grad`` stays ``None`` (Task 4.6's tests check every layer).
Layers are built on a tensor backend (``backend=``; by default the one factories
use too, :func:`~module2_tensors.get_default_backend`: ``FastBackend`` once
Module 3 is written, settable with ``set_default_backend``); their inputs must
live on the same backend.

Shapes follow PyTorch: ``Linear`` maps ``(..., in) -> (..., out)``; ``Conv1d`` maps
``(N, C_in, L) -> (N, C_out, L_out)``; ``Conv2d`` maps ``(N, C_in, H, W) -> (N,
C_out, H_out, W_out)``; ``Embedding`` maps indices ``(...) -> (..., dim)``;
``BatchNorm1d`` takes ``(N, C)`` or ``(N, C, L)``, ``BatchNorm2d`` takes ``(N, C, H,
W)``; ``LayerNorm(shape)`` normalises over the trailing dims ``shape``.

The other layers of ``nn`` are given, by concept: activations
(``_activation_layers.py``), loss modules (``_loss_layers.py``), pooling and
resizing (``_spatial_layers.py``), group and instance norm
(``_normalization_layers.py``).
"""

from __future__ import annotations

import math
from typing import Any, Callable, Optional, Sequence, Tuple, Union

import numpy as np

from module0_fundamentals.module import Module
from module2_tensors._backend import TensorBackend
from module2_tensors.shape_functions import no_grad  # noqa: F401 (Task 4.6)
from module2_tensors.engine.dtypes import int64
from module2_tensors.tensor import Tensor, ones, tensor, zeros

from . import functional as F, weight_init as init
from ._activation_layers import FunctionLayer
from ._conv_checks import IntPair, _check_groups, sizes as _sizes
from ._convolution import conv_repr as _conv_repr, padding_mode as _padding_mode
from ._parameters import _parameter, _scale_and_shift, _uniform_fan_in, _value

__all__ = [
    "Linear",
    "Conv1d",
    "Conv2d",
    "Embedding",
    "BatchNorm1d",
    "BatchNorm2d",
    "LayerNorm",
    "Dropout",
    "Identity",
    "Flatten",
    "Unflatten",
]


class Linear(Module):
    r"""$y = x W^\top + b$ with ``weight`` ``(out_features, in_features)`` and
    ``bias`` ``(out_features,)``, both drawn from $U(-k, k)$, $k = 1 /
    \sqrt{\text{in\_features}}$ (PyTorch's default)."""

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        backend: Optional[TensorBackend] = None,
    ) -> None:
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        # BEGIN SOLUTION 4.6: weight (out, in) and optional bias, PyTorch's init
        self.weight = _parameter((out_features, in_features), backend)
        init.kaiming_uniform_(self.weight, a=math.sqrt(5.0))
        self.bias = _parameter((out_features,), backend) if bias else None
        if self.bias is not None:
            _uniform_fan_in(self.bias, in_features)
        # END SOLUTION

    def forward(self, x: Tensor) -> Tensor:
        # BEGIN SOLUTION 4.6
        return F.linear(x, self.weight.value, _value(self.bias))
        # END SOLUTION

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


class _ConvNd(Module):
    """What Conv1d and Conv2d share: PyTorch's arguments (``kernel_size``,
    ``stride``, ``padding`` and ``dilation`` an int, the same along every spatial
    dim, or one int per dim; ``padding`` also ``"same"`` or ``"valid"``), the
    parameters, their initialisation, and ``forward``: ``self.conv`` (``F.conv1d``
    or ``F.conv2d``) of the input with them."""

    spatial: int = 1
    conv: Callable[..., Tensor]  # a staticmethod of the subclass

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: IntPair,
        stride: IntPair = 1,
        padding: Union[IntPair, str] = 0,
        dilation: IntPair = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        backend: Optional[TensorBackend] = None,
    ) -> None:
        super().__init__()
        _check_groups(type(self).__name__, in_channels, out_channels, groups)
        _padding_mode(self, padding_mode)  # (given: PyTorch's; "zeros" as before)

        def sizes(value: Any, label: str) -> Any:
            if isinstance(value, str):  # padding="same" or "valid"
                return value
            return _sizes(type(self).__name__, label, value, self.spatial)

        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = kernel_size = sizes(kernel_size, "kernel_size")
        self.stride, self.padding = sizes(stride, "stride"), sizes(padding, "padding")
        self.dilation, self.groups = sizes(dilation, "dilation"), groups
        # BEGIN SOLUTION 4.6: weight (out, in // groups, *kernel), bias, init
        # Each output channel sees in_channels / groups inputs (all of them for the
        # usual groups=1).
        fan_in_channels = in_channels // groups
        self.weight = _parameter((out_channels, fan_in_channels, *kernel_size), backend)
        init.kaiming_uniform_(self.weight, a=math.sqrt(5.0))
        self.bias = _parameter((out_channels,), backend) if bias else None
        if self.bias is not None:
            fan_in, _ = init.calculate_fan_in_and_fan_out(self.weight)
            _uniform_fan_in(self.bias, fan_in)
        # END SOLUTION

    def forward(self, x: Tensor) -> Tensor:
        """``self.conv(x, weight, bias, stride, padding, dilation, groups)``, the
        parameters read through ``.value`` (``bias`` None without one)."""
        # BEGIN SOLUTION 4.6
        settings = (self.stride, self.padding, self.dilation, self.groups)
        return self.conv(x, self.weight.value, _value(self.bias), *settings)
        # END SOLUTION

    extra_repr = _conv_repr  # (given: PyTorch's)


class Conv1d(_ConvNd):
    """1-D convolution layer: ``F.conv1d(x, weight, bias, stride, padding,
    dilation, groups)`` with ``weight`` ``(out_channels, in_channels / groups,
    kernel_size)``."""

    conv = staticmethod(F.conv1d)


class Conv2d(_ConvNd):
    """2-D convolution layer: ``F.conv2d(x, weight, bias, stride, padding,
    dilation, groups)`` with ``weight`` ``(out_channels, in_channels / groups, kh,
    kw)``; ``kernel_size``, ``stride``, ``padding`` and ``dilation`` are an int or a
    pair."""

    spatial = 2
    conv = staticmethod(F.conv2d)


class Embedding(Module):
    """A table of ``num_embeddings`` learned vectors of size ``embedding_dim``,
    drawn from $N(0, 1)$; ``padding_idx``'s row starts at zero and gets no
    gradient. ``forward(indices)`` returns ``(*indices.shape, embedding_dim)``."""

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        padding_idx: Optional[int] = None,
        backend: Optional[TensorBackend] = None,
    ) -> None:
        super().__init__()
        valid = range(-num_embeddings, num_embeddings)
        if padding_idx is not None and padding_idx not in valid:
            raise ValueError(
                f"padding_idx {padding_idx} must be within num_embeddings "
                f"{num_embeddings}"
            )
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.padding_idx = None if padding_idx is None else padding_idx % num_embeddings
        # BEGIN SOLUTION 4.6: N(0, 1) table; zero the padding row (under no_grad)
        self.weight = _parameter((num_embeddings, embedding_dim), backend)
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight.value[self.padding_idx] = 0.0
        # END SOLUTION

    @classmethod
    def from_pretrained(
        cls,
        embeddings: Any,
        freeze: bool = True,
        padding_idx: Optional[int] = None,
        backend: Optional[TensorBackend] = None,
    ) -> "Embedding":
        """A layer holding ``embeddings`` (a 2-D tensor or array); ``freeze`` stops
        its training (``requires_grad`` off)."""
        rows, dim = embeddings.shape
        layer = cls(rows, dim, padding_idx, backend)
        layer.weight.update(tensor(embeddings, backend))  # (in its dtype)
        layer.weight.value.requires_grad_(not freeze)
        return layer

    def forward(self, indices: Any) -> Tensor:
        # BEGIN SOLUTION 4.6
        return F.embedding(indices, self.weight.value, self.padding_idx)
        # END SOLUTION

    def extra_repr(self) -> str:
        pad = "" if self.padding_idx is None else f", padding_idx={self.padding_idx}"
        return f"{self.num_embeddings}, {self.embedding_dim}{pad}"


# --------------------------------------------------------------- normalisation
class _BatchNorm(Module):
    r"""Batch normalisation over every dim but the channels (dim 1):

    $$y = \frac{x - \mu}{\sqrt{\sigma^2 + \epsilon}}\, \gamma + \beta .$$

    In training $\mu, \sigma^2$ are the batch's mean and *biased* variance, and
    the running estimates move towards them: $r \leftarrow (1 - m) r + m\, s$ with
    ``momentum`` $m$ (``momentum=None``: $m = 1/k$ for the $k$-th batch, the
    cumulative average), using the *unbiased* variance for ``running_var``. In
    evaluation (``.eval()``) the running estimates are used instead, so one
    example's output does not depend on the rest of its batch; where there are
    none (``running_mean is None``), the batch's statistics, as PyTorch's. Only
    the running estimates decide this, not ``track_running_stats``: PyTorch's
    BatchNorm keeps using them when the flag is switched off after construction.

    Raises:
        ValueError: an input whose dims or channels do not fit; and, whenever the
            batch's statistics are used (training, or ``track_running_stats=False``),
            a batch with only 1 value per channel, which has no variance: the
            message names the input's shape, as PyTorch's does.
    """

    dims_allowed: Tuple[int, ...] = ()
    # Checkpoints of PyTorch before 0.4.1 have no num_batches_tracked: load them.
    _optional_state = ("num_batches_tracked",)

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: Optional[float] = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        backend: Optional[TensorBackend] = None,
    ) -> None:
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.weight, self.bias = _scale_and_shift(num_features, backend, affine)
        # Buffers: state that is not trained by the optimizer, but saved. Without
        # track_running_stats there is none (PyTorch's state dict has no keys).
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, backend=backend))
            self.register_buffer("running_var", ones(num_features, backend=backend))
            # (a 0-d int64 tensor, as PyTorch's: it is saved and moved with the rest)
            count = zeros((), backend=backend, dtype=int64)
            self.register_buffer("num_batches_tracked", count)
        else:
            self.running_mean = self.running_var = self.num_batches_tracked = None

    def forward(self, x: Tensor) -> Tensor:
        if x.dims not in self.dims_allowed or x.shape[1] != self.num_features:
            raise ValueError(
                f"{type(self).__name__}({self.num_features}) expects an input of "
                f"{' or '.join(map(str, self.dims_allowed))} dims with "
                f"{self.num_features} channels in dim 1, got shape {x.shape}"
            )
        # BEGIN SOLUTION 4.6: batch or running statistics, update the running ones
        shape = [1] * x.dims
        shape[1] = self.num_features
        reduce = tuple(d for d in range(x.dims) if d != 1)
        use_batch = self.training or self.running_mean is None
        if use_batch:
            count = x.size // self.num_features
            if count < 2:
                raise ValueError(
                    f"expected more than 1 value per channel when training, got "
                    f"input of shape {x.shape}"
                )
            mean = x.mean(dim=reduce, keepdim=True)
            var = ((x - mean) * (x - mean)).mean(dim=reduce, keepdim=True)
            if self.training and self.track_running_stats:
                with no_grad():
                    m = self.momentum
                    if m is None:  # a cumulative average: the k-th batch weighs 1/k
                        m = 1.0 / (self.num_batches_tracked + 1)
                    unbiased = var.detach().view(self.num_features) * (
                        count / (count - 1)
                    )
                    self.running_mean.copy_(
                        (1 - m) * self.running_mean
                        + m * mean.detach().view(self.num_features)
                    )
                    self.running_var.copy_((1 - m) * self.running_var + m * unbiased)
                    self.num_batches_tracked += 1
        else:
            mean = self.running_mean.view(*shape)
            var = self.running_var.view(*shape)
        y = (x - mean) / (var + self.eps).sqrt()
        if self.affine:
            y = y * self.weight.value.view(*shape) + self.bias.value.view(*shape)
        return y
        # END SOLUTION

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, bias={self.bias is not None}, "
            f"track_running_stats={self.track_running_stats}"
        )


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of ``(N, C)`` or ``(N, C, L)`` inputs (per channel)."""

    dims_allowed = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of ``(N, C, H, W)`` inputs (per channel)."""

    dims_allowed = (4,)


class LayerNorm(Module):
    r"""Normalise each example over its trailing ``normalized_shape`` dims:
    $y = (x - \mu) / \sqrt{\sigma^2 + \epsilon} \cdot \gamma + \beta$, with the
    mean and biased variance of those dims. Same in training and evaluation.
    ``bias=False`` leaves out $\beta$ (``self.bias`` is ``None``)."""

    def __init__(
        self,
        normalized_shape: Union[int, Sequence[int]],
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        backend: Optional[TensorBackend] = None,
    ) -> None:
        super().__init__()
        # (an int or a sequence, as F.layer_norm reads it)
        self.normalized_shape = shape = tuple(np.ravel(normalized_shape).tolist())
        self.eps, self.elementwise_affine = eps, elementwise_affine
        self.weight, self.bias = _scale_and_shift(shape, backend, elementwise_affine)
        self.bias = self.bias if bias else None

    def forward(self, x: Tensor) -> Tensor:
        k = len(self.normalized_shape)
        if x.shape[x.dims - k :] != self.normalized_shape:
            raise ValueError(
                f"LayerNorm{self.normalized_shape} expects the input's last dims to "
                f"be {self.normalized_shape}, got shape {x.shape}"
            )
        # BEGIN SOLUTION 4.6: mean and biased variance over the last k dims
        dims = tuple(range(x.dims - k, x.dims))
        mean = x.mean(dim=dims, keepdim=True)
        var = ((x - mean) * (x - mean)).mean(dim=dims, keepdim=True)
        y = (x - mean) / (var + self.eps).sqrt()
        if self.elementwise_affine:
            y = y * self.weight.value
            if self.bias is not None:
                y = y + self.bias.value
        return y
        # END SOLUTION

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine="
            f"{self.elementwise_affine}, bias={self.bias is not None}"
        )


# ------------------------------------------------------ parameter-free layers
class Dropout(Module):
    """``F.dropout(x, p, training=self.training)``: active only in training."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        F._check_probability(p)
        self.p, self.inplace = p, inplace

    def forward(self, x: Tensor) -> Tensor:
        return F.dropout(x, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Identity(Module):
    """Returns its input (any arguments are ignored, as ``torch.nn.Identity``'s
    are, so it can stand in for a layer: ``nn.Identity(54, unused=1)``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, x: Tensor) -> Tensor:
        return x


class Flatten(FunctionLayer):
    """``x.flatten(start_dim, end_dim)``: merge dims ``start_dim .. end_dim`` (by
    default all but the batch dim)."""

    function = staticmethod(Tensor.flatten)
    shown = "start_dim end_dim"

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__(start_dim, end_dim)  # (the batch dim kept, as PyTorch's)


class Unflatten(Module):
    """``nn.Unflatten(dim, unflattened_size)``: dim ``dim`` split into the
    dims ``unflattened_size`` (one of them may be -1), Flatten's inverse."""

    def __init__(self, dim: int, unflattened_size: Sequence[int]) -> None:
        super().__init__()
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, x: Tensor) -> Tensor:
        return x.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
