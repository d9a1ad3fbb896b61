"""More of ``torch.nn``'s modules (private: the facade ``nn`` exports them): the loss
modules of :mod:`module4_networks._extra_functional`, ``CosineSimilarity``, and
layers of :mod:`module4_networks._extra_conv`."""

from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple, Union

from module0_fundamentals.module import Module
from module2_tensors.tensor import Tensor

from . import _extra_conv as XC
from . import _extra_functional as XF
from . import init
from ._parameters import _parameter, _uniform_fan_in
from .layers import AvgPool2d, MaxPool2d

__all__ = [
    "SmoothL1Loss",
    "HuberLoss",
    "KLDivLoss",
    "CosineSimilarity",
    "Dropout2d",
    "MaxPool1d",
    "AvgPool1d",
    "GroupNorm",
    "ConvTranspose2d",
    "Upsample",
]


class SmoothL1Loss(Module):
    """``F.smooth_l1_loss`` as a module: ``nn.SmoothL1Loss(reduction, beta)``."""

    def __init__(self, reduction: str = "mean", beta: float = 1.0) -> None:
        super().__init__()
        self.reduction, self.beta = reduction, beta

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return XF.smooth_l1_loss(input, target, self.reduction, self.beta)


class HuberLoss(Module):
    """``F.huber_loss`` as a module: ``nn.HuberLoss(reduction, delta)``."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__()
        self.reduction, self.delta = reduction, delta

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return XF.huber_loss(input, target, self.reduction, self.delta)


class KLDivLoss(Module):
    """``F.kl_div`` as a module: ``nn.KLDivLoss(reduction, log_target)``."""

    def __init__(self, reduction: str = "mean", log_target: bool = False) -> None:
        super().__init__()
        self.reduction, self.log_target = reduction, log_target

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return XF.kl_div(input, target, self.reduction, self.log_target)


class CosineSimilarity(Module):
    """``F.cosine_similarity`` as a module: ``nn.CosineSimilarity(dim, eps)``."""

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return XF.cosine_similarity(x1, x2, self.dim, self.eps)


class Dropout2d(Module):
    """``F.dropout2d(x, p, training=self.training)``: whole channels dropped."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(
                f"dropout probability has to be between 0 and 1, but got {p}"
            )
        self.p = p

    def forward(self, x: Tensor) -> Tensor:
        return XC.dropout2d(x, self.p, self.training)


class MaxPool1d(MaxPool2d):
    """``F.max_pool1d`` as a layer: ``MaxPool2d``'s settings, one spatial axis."""

    def forward(self, x: Tensor) -> Tensor:
        return XC.max_pool1d(
            x, self.kernel_size, self.stride, self.padding, self.ceil_mode
        )


class AvgPool1d(AvgPool2d):
    """``F.avg_pool1d`` as a layer: ``AvgPool2d``'s settings, one spatial axis."""

    def forward(self, x: Tensor) -> Tensor:
        return XC.avg_pool1d(
            x,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
        )


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
    ) -> None:
        super().__init__()
        if num_channels % num_groups:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps = num_groups, num_channels, eps
        if affine:
            self.weight = _parameter((num_channels,), backend)
            init.ones_(self.weight)
            self.bias = _parameter((num_channels,), backend)
        else:
            self.weight = self.bias = None

    def forward(self, x: Tensor) -> Tensor:
        return XC.group_norm(x, self.num_groups, self.weight, self.bias, self.eps)


class ConvTranspose2d(Module):
    """``F.conv_transpose2d`` as a layer: weight ``(in_channels, out_channels /
    groups, kh, kw)`` and bias initialised as PyTorch's, from $U(-b, b)$ with
    $b = 1 / \\sqrt{(\\text{out\\_channels} / \\text{groups})\\, k_h k_w}$."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Union[int, Tuple[int, int]],
        stride: Union[int, Tuple[int, int]] = 1,
        padding: Union[int, Tuple[int, int]] = 0,
        output_padding: Union[int, Tuple[int, int]] = 0,
        groups: int = 1,
        bias: bool = True,
        dilation: Union[int, Tuple[int, int]] = 1,
        backend: Any = None,
    ) -> None:
        super().__init__()
        if in_channels % groups or out_channels % groups:
            raise ValueError("in_channels and out_channels must be divisible by groups")
        kh, kw = XC._pair(kernel_size)
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = (kh, kw)
        self.stride, self.padding = stride, padding
        self.output_padding, self.groups, self.dilation = (
            output_padding,
            groups,
            dilation,
        )
        fan_in = (out_channels // groups) * kh * kw
        self.weight = _parameter((in_channels, out_channels // groups, kh, kw), backend)
        _uniform_fan_in(self.weight, fan_in)
        self.bias = None
        if bias:
            self.bias = _parameter((out_channels,), backend)
            _uniform_fan_in(self.bias, fan_in)

    def forward(self, x: Tensor) -> Tensor:
        return XC.conv_transpose2d(
            x,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            self.output_padding,
            self.groups,
            self.dilation,
        )


class Upsample(Module):
    """``F.interpolate`` as a layer: ``nn.Upsample(size=None, scale_factor=None,
    mode="nearest", align_corners=None)``."""

    def __init__(
        self,
        size: Optional[Union[int, Sequence[int]]] = None,
        scale_factor: Optional[Union[float, Sequence[float]]] = None,
        mode: str = "nearest",
        align_corners: Optional[bool] = None,
    ) -> None:
        super().__init__()
        self.size, self.scale_factor = size, scale_factor
        self.mode, self.align_corners = mode, align_corners

    def forward(self, x: Tensor) -> Tensor:
        return XC.interpolate(
            x, self.size, self.scale_factor, self.mode, self.align_corners
        )
