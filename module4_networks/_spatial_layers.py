"""Layers over the spatial dims of a feature map ``(N, C, *spatial)`` (given;
the facade ``nn`` exports them): pooling (``MaxPool2d``, ``AvgPool2d``,
``AdaptiveAvgPool2d`` over Task 4.3's and 4.4's functions;
``AdaptiveMaxPool2d``, ``MaxPool1d``, ``AvgPool1d``, ``AdaptiveAvgPool1d``,
``AdaptiveMaxPool1d``), ``Unfold`` (over ``F.unfold``), resizing (``Upsample``,
``UpsamplingNearest2d``, ``UpsamplingBilinear2d``, ``ConvTranspose2d``),
``Dropout2d`` (whole channels) and padding (``ZeroPad1d`` ... ``CircularPad3d``,
over ``F.pad``), over the functions of ``functional.py``,
``_spatial_functions.py`` and ``_padding.py``."""

from __future__ import annotations

from functools import partial
from typing import Any, Tuple, Union

from module0_fundamentals._exports import defined_here
from module0_fundamentals.module import Module
from module2_tensors.tensor import Tensor

from . import _spatial_functions as S, _unfold
from . import functional as F
from ._activation_layers import FunctionLayer
from ._conv_checks import _check_groups, pair, sizes
from ._convolution import conv_repr
from ._padding import pad
from ._parameters import _parameter, _uniform_fan_in, _value
from .layers import Dropout


class _Pool(FunctionLayer):
    """A pooling layer: its ``stride`` is ``kernel_size`` unless given, as
    PyTorch's layers store it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.stride = self.kernel_size if self.stride is None else self.stride


class MaxPool2d(_Pool):
    """``F.max_pool2d`` as a layer, its settings in ``nn.MaxPool2d``'s order:
    ``(kernel_size, stride, padding, dilation, return_indices, ceil_mode)`` (the
    function takes ``ceil_mode`` before ``return_indices``)."""

    function = staticmethod(F.max_pool2d)
    order = "kernel_size stride padding dilation return_indices ceil_mode"
    shown = "kernel_size stride padding dilation ceil_mode"


class AvgPool2d(_Pool):
    """``F.avg_pool2d(x, kernel_size, stride, padding, ceil_mode,
    count_include_pad)``."""

    function = staticmethod(F.avg_pool2d)
    shown = "kernel_size stride padding"


class AdaptiveAvgPool2d(FunctionLayer):
    """``F.adaptive_avg_pool2d(x, output_size)``: averages over windows sized to
    give an ``output_size`` output whatever the input's size."""

    function = staticmethod(F.adaptive_avg_pool2d)
    shown = "output_size"


class AdaptiveMaxPool2d(FunctionLayer):
    """``F.adaptive_max_pool2d(x, output_size)``: the maximum over windows sized
    to give an ``output_size`` output whatever the input's size."""

    function = staticmethod(S.adaptive_max_pool2d)
    shown = "output_size"


class AdaptiveAvgPool1d(AdaptiveAvgPool2d):
    """``F.adaptive_avg_pool1d(x, output_size)`` as a layer."""

    function = staticmethod(S.adaptive_avg_pool1d)


class AdaptiveMaxPool1d(AdaptiveMaxPool2d):
    """``F.adaptive_max_pool1d(x, output_size)`` as a layer (not
    ``return_indices``)."""

    function = staticmethod(S.adaptive_max_pool1d)


class MaxPool1d(MaxPool2d):
    """``F.max_pool1d`` as a layer: ``MaxPool2d``'s settings, one spatial axis."""

    function = staticmethod(S.max_pool1d)


class AvgPool1d(AvgPool2d):
    """``F.avg_pool1d`` as a layer: ``AvgPool2d``'s settings, one spatial axis."""

    function = staticmethod(S.avg_pool1d)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name in ("kernel_size", "stride", "padding"):  # 1-tuples, as PyTorch's
            setattr(self, name, sizes("AvgPool1d", name, getattr(self, name), 1))


class Unfold(FunctionLayer):
    """``F.unfold(x, kernel_size, dilation, padding, stride)`` as a layer: the
    sliding windows of ``(N, C, H, W)`` as the columns of ``(N, C k_h k_w,
    L)``."""

    function = staticmethod(_unfold.unfold)
    shown = "kernel_size dilation padding stride"


class ConvTranspose2d(Module):
    """``F.conv_transpose2d`` as a layer: weight ``(in_channels, out_channels /
    groups, kh, kw)`` and bias initialised as PyTorch's, from $U(-b, b)$ with
    $b = 1 / \\sqrt{(\\text{out\\_channels} / \\text{groups})\\, k_h k_w}$."""

    extra_repr, padding_mode = conv_repr, "zeros"  # (PyTorch's only mode for it)

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
        _check_groups("ConvTranspose2d", in_channels, out_channels, groups)
        kh, kw = pair(kernel_size, "kernel_size")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.groups = (kh, kw), groups
        self.stride, self.padding = pair(stride, "stride"), pair(padding, "padding")
        self.dilation = pair(dilation, "dilation")  # (pairs, as PyTorch's)
        self.output_padding = pair(output_padding, "output_padding")
        self.weight = _parameter((in_channels, out_channels // groups, kh, kw), backend)
        self.bias = _parameter((out_channels,), backend) if bias else None
        # (not through self.parameters(): Task 0.4's, which 4.2 needs not)
        for p in (self.weight, self.bias) if bias else (self.weight,):
            _uniform_fan_in(p, (out_channels // groups) * kh * kw)  # (fan_in)

    def forward(self, x: Tensor) -> Tensor:
        return S.conv_transpose2d(
            x,
            self.weight.value,
            _value(self.bias),
            self.stride,
            self.padding,
            self.output_padding,
            self.groups,
            self.dilation,
        )


class Upsample(FunctionLayer):
    """``F.interpolate`` as a layer: ``nn.Upsample(size=None, scale_factor=None,
    mode="nearest", align_corners=None)``."""

    function = staticmethod(S.interpolate)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        s = self.scale_factor  # floats, as PyTorch keeps them
        self.scale_factor = (
            tuple(map(float, s)) if isinstance(s, tuple) else float(s) if s else None
        )

    def extra_repr(self) -> str:
        shown = "size" if self.scale_factor is None else "scale_factor"
        return f"{shown}={getattr(self, shown)!r}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """``nn.UpsamplingNearest2d(size, scale_factor)``: ``Upsample`` with
    ``mode="nearest"`` (deprecated in PyTorch for ``F.interpolate``)."""

    order, mode = "size scale_factor", "nearest"


class UpsamplingBilinear2d(Upsample):
    """``nn.UpsamplingBilinear2d(size, scale_factor)``: ``F.interpolate(x, size,
    scale_factor, mode="bilinear", align_corners=True)`` (deprecated in PyTorch
    for ``F.interpolate``)."""

    function = staticmethod(partial(S.interpolate, mode="bilinear", align_corners=True))


class Dropout2d(Dropout):
    """``F.dropout2d(x, p, training=self.training)``: whole channels dropped."""

    _drop = staticmethod(S.dropout2d)

    def forward(self, x: Tensor) -> Tensor:
        return self._drop(x, self.p, self.training, self.inplace)


class Dropout1d(Dropout2d):
    """``F.dropout1d(x, p, training=self.training)``: whole channels of ``(N, C,
    L)`` (or ``(C, L)``) dropped."""

    _drop = staticmethod(S.dropout1d)


class PixelShuffle(FunctionLayer):
    """``F.pixel_shuffle(x, upscale_factor)``: ``(*, C r^2, H, W)`` to ``(*, C,
    H r, W r)``."""

    function = staticmethod(S.pixel_shuffle)
    shown = "upscale_factor"


class PixelUnshuffle(FunctionLayer):
    """``F.pixel_unshuffle(x, downscale_factor)``: its inverse."""

    function = staticmethod(S.pixel_unshuffle)
    shown = "downscale_factor"


class _Pad(Module):
    """``F.pad(x, padding, mode, value)`` of the last ``dims`` dimensions:
    ``padding`` an int (every side) or the ``2 * dims`` amounts, last dim first.
    A subclass names its ``mode`` and ``dims`` in its bases' keywords."""

    value = 0.0

    def __init_subclass__(cls, mode: str = "constant", dims: int = 1) -> None:
        cls.mode, cls.dims = mode, dims

    def __init__(self, padding: Any) -> None:
        super().__init__()
        whole = isinstance(padding, int)
        self.padding = (padding,) * (2 * self.dims) if whole else tuple(padding)

    def forward(self, input: Tensor) -> Tensor:
        return pad(input, self.padding, self.mode, self.value)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPad(_Pad):
    """Padding with ``value`` (required, as PyTorch's)."""

    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ZeroPad1d(_Pad):
    """Zeros on both ends of the last dimension."""


class ZeroPad2d(_Pad, dims=2):
    """Zeros around the last 2 dimensions."""


class ZeroPad3d(_Pad, dims=3):
    """Zeros around the last 3 dimensions."""


class ConstantPad1d(_ConstantPad):
    """``value`` on both ends of the last dimension."""


class ConstantPad2d(_ConstantPad, dims=2):
    """``value`` around the last 2 dimensions."""


class ConstantPad3d(_ConstantPad, dims=3):
    """``value`` around the last 3 dimensions."""


class ReflectionPad1d(_Pad, mode="reflect"):
    """The last dimension mirrored at its ends (the edge not repeated)."""


class ReflectionPad2d(_Pad, mode="reflect", dims=2):
    """The last 2 dimensions mirrored at their ends."""


class ReflectionPad3d(_Pad, mode="reflect", dims=3):
    """The last 3 dimensions mirrored at their ends."""


class ReplicationPad1d(_Pad, mode="replicate"):
    """The last dimension's edge entries repeated."""


class ReplicationPad2d(_Pad, mode="replicate", dims=2):
    """The last 2 dimensions' edge entries repeated."""


class ReplicationPad3d(_Pad, mode="replicate", dims=3):
    """The last 3 dimensions' edge entries repeated."""


class CircularPad1d(_Pad, mode="circular"):
    """The last dimension wrapped around."""


class CircularPad2d(_Pad, mode="circular", dims=2):
    """The last 2 dimensions wrapped around."""


class CircularPad3d(_Pad, mode="circular", dims=3):
    """The last 3 dimensions wrapped around."""


# (last: the names defined above)
__all__ = defined_here(globals())
