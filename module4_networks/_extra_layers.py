"""More of ``torch.nn``'s modules (private: the facade ``nn`` exports them): the loss
modules and activations of :mod:`module4_networks._extra_functional`,
``CosineSimilarity``, ``Unflatten``, ``ParameterDict``, and layers of
:mod:`module4_networks._extra_conv`."""

from __future__ import annotations

from typing import Any, Iterator, Mapping, Optional, Sequence, Tuple, Union

from module0_fundamentals.module import Module, Parameter
from module2_tensors.engine.devices import get_default_backend
from module2_tensors.tensor import Tensor, ones, zeros

from . import _extra_conv as XC
from . import _extra_functional as XF
from . import weight_init as init
from ._parameters import _parameter, _uniform_fan_in
from .weight_init import constant_
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
    "InstanceNorm1d",
    "InstanceNorm2d",
    "ConvTranspose2d",
    "Upsample",
    "Unflatten",
    "Hardtanh",
    "ReLU6",
    "Mish",
    "PReLU",
    "ParameterDict",
    "MarginRankingLoss",
    "CosineEmbeddingLoss",
    "GaussianNLLLoss",
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
    """``F.max_pool1d`` as a layer: ``MaxPool2d``'s settings, one spatial axis
    (without ``return_indices``)."""

    def forward(self, x: Tensor) -> Tensor:
        if self.return_indices:
            raise NotImplementedError("MaxPool1d: return_indices")
        return XC.max_pool1d(
            x,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            self.ceil_mode,
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


class _InstanceNorm(Module):
    """``F.instance_norm`` as a layer: learned $\\gamma, \\beta$ (ones, zeros)
    with ``affine``; running statistics (buffers ``running_mean``,
    ``running_var``), used in evaluation mode, with ``track_running_stats``.
    Input ``(N, C, *spatial)`` or, unbatched, ``(C, *spatial)``."""

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
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.weight = self.bias = None
        if affine:
            self.weight = _parameter((num_features,), backend)
            init.ones_(self.weight)
            self.bias = _parameter((num_features,), backend)
        self.running_mean = self.running_var = None
        if track_running_stats:
            backend = backend or get_default_backend()
            self.register_buffer("running_mean", zeros(num_features, backend=backend))
            self.register_buffer("running_var", ones(num_features, backend=backend))
            self.register_buffer("num_batches_tracked", 0)  # (as BatchNorm's)

    def forward(self, x: Tensor) -> Tensor:
        dims = self._spatial + 2
        if x.dims not in (dims - 1, dims):
            raise ValueError(
                f"expected {dims - 1}D or {dims}D input (got {x.dims}D input)"
            )
        batched = x if x.dims == dims else x.unsqueeze(0)
        out = XC.instance_norm(
            batched,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            self.training or not self.track_running_stats,
            self.momentum,
            self.eps,
        )
        return out if x.dims == dims else out.squeeze(0)


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of ``(N, C, L)`` (or ``(C, L)``)."""


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of ``(N, C, H, W)`` (or ``(C, H, W)``)."""

    _spatial = 2


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


class Unflatten(Module):
    """``nn.Unflatten(dim, unflattened_size)``: dim ``dim`` split into the
    dims ``unflattened_size`` (one of them may be -1), Flatten's inverse."""

    def __init__(self, dim: int, unflattened_size: Sequence[int]) -> None:
        super().__init__()
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, x: Tensor) -> Tensor:
        dim = self.dim % x.dims
        shape = (*x.shape[:dim], *self.unflattened_size, *x.shape[dim + 1 :])
        return x.reshape(*shape)


class Hardtanh(Module):
    """``F.hardtanh(x, min_val, max_val)``: $x$ clamped to the range."""

    def __init__(
        self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False
    ) -> None:
        super().__init__()
        if min_val > max_val:
            raise ValueError("min_val cannot be greater than max_val")
        self.min_val, self.max_val = min_val, max_val

    def forward(self, x: Tensor) -> Tensor:
        return XF.hardtanh(x, self.min_val, self.max_val)


class ReLU6(Hardtanh):
    """``F.relu6``: $\\min(\\max(x, 0), 6)$."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0)


class Mish(Module):
    """``F.mish``: $x \\tanh(\\operatorname{softplus}(x))$."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()

    def forward(self, x: Tensor) -> Tensor:
        return XF.mish(x)


class PReLU(Module):
    """``F.prelu`` with a learned slope: ``weight`` of shape
    ``(num_parameters,)`` (1, or the number of channels), filled with
    ``init``."""

    def __init__(
        self, num_parameters: int = 1, init: float = 0.25, backend: Any = None
    ) -> None:
        super().__init__()
        self.num_parameters = num_parameters
        self.weight = _parameter((num_parameters,), backend)
        constant_(self.weight, init)

    def forward(self, x: Tensor) -> Tensor:
        return XF.prelu(x, self.weight)


class ParameterDict(Module):
    """A dict of parameters the tree sees, named by their keys, as
    ``nn.ParameterDict``: ``pd["w"] = Parameter(t)`` (a plain value is wrapped),
    ``pd["w"]``, ``del``, ``len``, ``in``, iteration over the keys, ``keys``,
    ``values``, ``items``, ``update``, ``get`` and ``pop``."""

    def __init__(self, parameters: Optional[Mapping[str, Any]] = None) -> None:
        super().__init__()
        self.update(parameters or {})

    def __getitem__(self, key: str) -> Parameter:
        return self._parameters[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.register_parameter(
            key, value if isinstance(value, Parameter) else Parameter(value)
        )

    def __delitem__(self, key: str) -> None:
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._parameters))

    def __contains__(self, key: object) -> bool:
        return key in self._parameters

    def keys(self) -> list:
        return list(self._parameters)

    def values(self) -> list:
        return list(self._parameters.values())

    def items(self) -> list:
        return list(self._parameters.items())

    def update(self, parameters: Any) -> None:
        pairs = parameters.items() if hasattr(parameters, "items") else parameters
        for key, value in pairs:
            self[key] = value

    def get(self, key: str, default: Any = None) -> Any:
        return self._parameters.get(key, default)

    def pop(self, key: str) -> Parameter:
        value = self[key]
        del self[key]
        return value


class MarginRankingLoss(Module):
    """``F.margin_ranking_loss`` as a module: ``(input1, input2, target)``."""

    def __init__(self, margin: float = 0.0, reduction: str = "mean") -> None:
        super().__init__()
        self.margin, self.reduction = margin, reduction

    def forward(self, input1: Tensor, input2: Tensor, target: Any) -> Tensor:
        return XF.margin_ranking_loss(
            input1, input2, target, self.margin, self.reduction
        )


class CosineEmbeddingLoss(MarginRankingLoss):
    """``F.cosine_embedding_loss`` as a module: ``(input1, input2, target)``."""

    def forward(self, input1: Tensor, input2: Tensor, target: Any) -> Tensor:
        return XF.cosine_embedding_loss(
            input1, input2, target, self.margin, self.reduction
        )


class GaussianNLLLoss(Module):
    """``F.gaussian_nll_loss`` as a module: ``(input, target, var)``."""

    def __init__(
        self, full: bool = False, eps: float = 1e-6, reduction: str = "mean"
    ) -> None:
        super().__init__()
        self.full, self.eps, self.reduction = full, eps, reduction

    def forward(self, input: Tensor, target: Any, var: Any) -> Tensor:
        return XF.gaussian_nll_loss(
            input, target, var, self.full, self.eps, self.reduction
        )
