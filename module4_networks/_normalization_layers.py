"""The normalization layers of ``nn`` that no task asks for (given; the facade
``nn`` exports them): ``GroupNorm``, ``InstanceNorm1d`` and ``InstanceNorm2d``,
with learned $\\gamma, \\beta$ and PyTorch's running statistics, over the
functions of ``_normalization_functions.py``. (``BatchNorm`` and ``LayerNorm``
are Task 4.6's, in ``layers.py``.)"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

import numpy as np

from module0_fundamentals.module import Module
from module2_tensors.tensor import Tensor

from ._normalization_functions import group_norm, instance_norm, rms_norm
from ._parameters import _scale_and_shift, _value
from .layers import _BatchNorm

__all__ = ["GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "RMSNorm"]


class GroupNorm(Module):
    """``F.group_norm`` with learned per-channel $\\gamma$ (ones) and $\\beta$
    (zeros) when ``affine``."""

    def __init__(
        self,
        num_groups: int,
        num_channels: int,
        eps: float = 1e-5,
        affine: bool = True,
        backend: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        if num_channels % num_groups:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps = num_groups, num_channels, eps
        self.affine = affine
        self.weight, self.bias = _scale_and_shift(num_channels, backend, affine)
        self.bias = self.bias if bias else None

    def extra_repr(self) -> str:
        return (
            f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
            f"affine={self.affine}, bias={self.bias is not None}"
        )

    def forward(self, x: Tensor) -> Tensor:
        w, b = _value(self.weight), _value(self.bias)
        return group_norm(x, self.num_groups, w, b, self.eps)


class _InstanceNorm(_BatchNorm):
    """``F.instance_norm`` as a layer, with BatchNorm's parameters and buffers:
    learned $\\gamma, \\beta$ (ones, zeros) with ``affine``; running statistics
    (buffers ``running_mean``, ``running_var``, ``num_batches_tracked``), used in
    evaluation mode, with ``track_running_stats``. Input ``(N, C, *spatial)`` or,
    unbatched, ``(C, *spatial)``."""

    _spatial = 1

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float = 0.1,
        affine: bool = False,
        track_running_stats: bool = False,
        backend: Any = None,
    ) -> None:
        super().__init__(
            num_features, eps, momentum, affine, track_running_stats, backend
        )

    def forward(self, x: Tensor) -> Tensor:
        dims = self._spatial + 2
        if x.dims not in (dims - 1, dims):
            raise ValueError(
                f"expected {dims - 1}D or {dims}D input (got {x.dims}D input)"
            )
        out = instance_norm(
            x if x.dims == dims else x.unsqueeze(0),  # (a batch of one, unbatched)
            self.running_mean,
            self.running_var,
            _value(self.weight),
            _value(self.bias),
            self.training or not self.track_running_stats,
            self.momentum or 0.0,  # (None: no update, as PyTorch's)
            self.eps,
        )
        return out if x.dims == dims else out.squeeze(0)


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of ``(N, C, L)`` (or ``(C, L)``)."""


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of ``(N, C, H, W)`` (or ``(C, H, W)``)."""

    _spatial = 2


class RMSNorm(Module):
    """``F.rms_norm`` over the trailing ``normalized_shape`` dims, with a learned
    $\\gamma$ (ones) when ``elementwise_affine``."""

    def __init__(
        self,
        normalized_shape: Union[int, Sequence[int]],
        eps: Optional[float] = None,
        elementwise_affine: bool = True,
        backend: Any = None,
    ) -> None:
        super().__init__()
        self.normalized_shape = shape = tuple(np.ravel(normalized_shape).tolist())
        self.eps, self.elementwise_affine = eps, elementwise_affine
        self.weight = _scale_and_shift(shape, backend, elementwise_affine)[0]

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, "
            f"elementwise_affine={self.elementwise_affine}"
        )

    def forward(self, x: Tensor) -> Tensor:
        return rms_norm(x, self.normalized_shape, _value(self.weight), self.eps)
