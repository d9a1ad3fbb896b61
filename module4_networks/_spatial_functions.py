"""Functions over the spatial dims of a feature map ``(N, C, *spatial)`` that no
task asks for (given; the facade ``nn.functional`` exports them, the layers of
``_spatial_layers.py`` call them): ``dropout2d`` (whole channels),
``max_pool1d`` and ``avg_pool1d`` (Task 4.4's 2-D pooling over a height of 1),
``max_pool1d_with_indices`` and ``max_pool2d_with_indices``,
``adaptive_max_pool2d``, ``adaptive_avg_pool1d`` and ``adaptive_max_pool1d``
(the 2-D ones over a height of 1), ``interpolate`` (``nearest``, ``linear``,
``bilinear``) and ``conv_transpose2d`` (a ``conv2d`` of a spread input), with
PyTorch's signatures and semantics, each from differentiable operations of
Modules 2 and 4.
"""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence, Tuple, Union

import numpy as np

from module0_fundamentals._exports import defined_here
from module2_tensors.tensor import Tensor, tensor

from . import functional as F
from ._conv_checks import IntPair, pair
from ._convolution import _dilate
from ._padding import pad


def dropout2d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zero whole channels of ``(N, C, H, W)``, each with probability ``p``, and
    scale the kept ones by $1 / (1 - p)$ (training only): ``input`` times
    ``F.dropout`` of ones of shape ``(N, C, 1, 1)``. As in PyTorch, the first two
    dims are always ``N, C`` (a 3-D input is ``(N, C, L)``, not ``(C, H, W)``)."""
    ones = input.new_ones(input.shape[:2] + (1,) * (input.dims - 2))
    mask = F.dropout(ones, p, training)  # (checks p also when not training)
    scale = input.mul_ if inplace else input.mul
    return scale(mask) if training else input


def dropout1d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """:func:`dropout2d` of ``(N, C, L)``, or of unbatched ``(C, L)`` as a batch
    of one: whole channels zeroed, each with probability ``p``."""
    if input.dims not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.dims}D input"
        )
    batched = input if input.dims == 3 else input.unsqueeze(0)
    out = dropout2d(batched, p, training, inplace)
    return out if input.dims == 3 else out.squeeze(0)


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """``F.pixel_shuffle``: ``(*, C r^2, H, W)`` to ``(*, C, H r, W r)``, each
    channel's $r^2$ sub-channels laid out as the $r \\times r$ pixels of a block
    (channel $c r^2 + i r + j$ gives pixel $(h r + i, w r + j)$ of channel $c$)."""
    *batch, c, h, w = input.shape
    r, n = upscale_factor, len(batch)
    if c % (r * r):
        raise RuntimeError(
            f"pixel_shuffle expects its input's 'channel' dimension to be divisible "
            f"by the square of upscale_factor, but input.size(-3)={c} is not "
            f"divisible by {r * r}"
        )
    blocks = input.reshape(*batch, c // (r * r), r, r, h, w)
    blocks = blocks.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return blocks.reshape(*batch, c // (r * r), h * r, w * r)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """``F.pixel_unshuffle``, the inverse of :func:`pixel_shuffle`: ``(*, C,
    H r, W r)`` to ``(*, C r^2, H, W)``."""
    *batch, c, h, w = input.shape
    r, n = downscale_factor, len(batch)
    if h % r or w % r:
        raise RuntimeError(
            f"pixel_unshuffle expects height and width to be divisible by "
            f"downscale_factor {r}, got {h} and {w}"
        )
    blocks = input.reshape(*batch, c, h // r, r, w // r, r)
    blocks = blocks.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return blocks.reshape(*batch, c * r * r, h // r, w // r)


def _pool1d(
    pool: Any, input: Tensor, kernel_size: Any, stride: Any, padding: Any, *rest: Any
) -> Tensor:
    """A 1-D pooling as the 2-D one over a height of 1, whose result (or its
    ``(values, indices)``, ``return_indices``) comes back without that dim."""
    # (Each an int or a 1-tuple.)
    k, q = (int(np.ravel(size)[0]) for size in (kernel_size, padding))
    s = k if stride is None else int(np.ravel(stride)[0])
    pooled = pool(input.unsqueeze(-2), (1, k), (1, s), (0, q), *rest)
    if isinstance(pooled, tuple):  # (values, indices)
        return tuple(t.squeeze(-2) for t in pooled)
    return pooled.squeeze(-2)


def max_pool1d(
    input: Tensor,
    kernel_size: Union[int, Sequence[int]],
    stride: Optional[Union[int, Sequence[int]]] = None,
    padding: Union[int, Sequence[int]] = 0,
    dilation: int = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Tensor:
    """The maximum over windows of ``(N, C, L)`` along ``L`` (PyTorch's order of
    arguments); ``return_indices``: also each maximum's position along ``L``
    (``int64``), as ``(values, indices)``."""
    options = (padding, (1, int(dilation)), ceil_mode, return_indices)
    return _pool1d(F.max_pool2d, input, kernel_size, stride, *options)


def max_pool1d_with_indices(input: Tensor, *args: Any, **kwargs: Any) -> Any:
    """``F.max_pool1d_with_indices``: :func:`max_pool1d` with
    ``return_indices=True`` (its arguments), ``(values, indices)``."""
    return max_pool1d(input, *args, **kwargs, return_indices=True)


def max_pool2d_with_indices(input: Tensor, *args: Any, **kwargs: Any) -> Any:
    """``F.max_pool2d_with_indices``: ``F.max_pool2d`` with
    ``return_indices=True`` (its arguments), ``(values, indices)``, each index
    into its ``(H, W)`` input plane flattened."""
    return F.max_pool2d(input, *args, **kwargs, return_indices=True)


def avg_pool1d(
    input: Tensor,
    kernel_size: Union[int, Sequence[int]],
    stride: Optional[Union[int, Sequence[int]]] = None,
    padding: Union[int, Sequence[int]] = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Tensor:
    """The mean over windows of ``(N, C, L)`` (or ``(C, L)``) along ``L``."""
    return _pool1d(
        F.avg_pool2d, input, kernel_size, stride, padding, ceil_mode, count_include_pad
    )


def adaptive_max_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """The maximum over windows sized to give ``output_size`` ``(oh, ow)`` (an
    int for a square; ``None`` keeps that size), as ``F.adaptive_max_pool2d``
    (not ``return_indices``): output row $i$ takes input rows $\\lfloor i H / oh
    \\rfloor$ to $\\lceil (i + 1) H / oh \\rceil - 1$ (windows may overlap), as
    ``F.adaptive_avg_pool2d`` averages them. The gradient goes to each window's
    first maximum (row-major order), or to its NaN, as PyTorch's."""
    return F._adaptive_pool("adaptive_max_pool2d", input, output_size, _first_max)


def _first_max(window: Tensor, dims: Tuple[int, int]) -> Tensor:
    """The maximum over the last two dims of ``window`` (``dims``: ``(-2, -1)``,
    as ``F._adaptive_pool`` passes them), its gradient to the first maximum (or
    first NaN; PyTorch's: the last of several) in row-major order, as PyTorch's."""
    return window.flatten(*dims).max(-1).values


def _adaptive1d(pool: Any, input: Tensor, output_size: Any) -> Tensor:
    """A 1-D adaptive pooling as the 2-D ``pool`` over a height of 1."""
    return pool(input.unsqueeze(-2), np.append(1, output_size)).squeeze(-2)


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    """``F.adaptive_avg_pool1d``: ``(N, C, L)`` (or ``(C, L)``) averaged over
    windows sized to give ``output_size`` (an int or a 1-tuple; ``None`` keeps
    ``L``), as ``adaptive_avg_pool2d`` over a height of 1."""
    return _adaptive1d(F.adaptive_avg_pool2d, input, output_size)


def adaptive_max_pool1d(input: Tensor, output_size: Any) -> Tensor:
    """``F.adaptive_max_pool1d`` (not ``return_indices``): the maximum over the
    windows of :func:`adaptive_avg_pool1d`."""
    return _adaptive1d(adaptive_max_pool2d, input, output_size)


def _sources(
    size_in: int, size_out: int, scale: Optional[float], mode: str, corners: bool
) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each output position along one dim: the two source positions and the
    weight of the second (``nearest`` reads the first only)."""
    # PyTorch's ratio: the inverse of scale_factor when one is given.
    ratio = 1.0 / scale if scale is not None else size_in / size_out
    if corners:  # (the first and last positions of each aligned)
        ratio = (size_in - 1) / max(size_out - 1, 1)
    # Linear modes without corners map cell centres (position + 1/2).
    shift = 0.0 if mode == "nearest" or corners else 0.5
    src = np.maximum((np.arange(size_out) + shift) * ratio - shift, 0.0)
    first = np.minimum(np.floor(src), size_in - 1).astype(np.int64)
    return first, np.minimum(first + 1, size_in - 1), src - first


def interpolate(
    input: Tensor,
    size: Optional[Union[int, Sequence[int]]] = None,
    scale_factor: Optional[Union[float, Sequence[float]]] = None,
    mode: str = "nearest",
    align_corners: Optional[bool] = None,
) -> Tensor:
    """Resize the spatial dims of ``(N, C, L)`` or ``(N, C, H, W)``: to ``size``,
    or by ``scale_factor`` (output size $\\lfloor n s \\rfloor$). ``nearest``
    takes source $\\lfloor i\\, r \\rfloor$; ``linear``/``bilinear`` interpolate
    between the two nearest sources at $(i + \\tfrac12) r - \\tfrac12$ (or
    $i (n_{in} - 1)/(n_{out} - 1)$ with ``align_corners=True``), $r$ the
    input-to-output ratio (``1 / scale_factor`` when given).

    Raises:
        ValueError: neither or both of ``size`` and ``scale_factor``, a mode this
            library does not have, or a mode that does not fit the input's dims.
    """
    spatial = input.dims - 2
    if (size is None) == (scale_factor is None):
        raise ValueError("only one of size or scale_factor should be defined")
    wanted = {"nearest": None, "linear": 1, "bilinear": 2}
    if mode not in wanted:
        raise ValueError(
            f"interpolate: mode {mode!r} is not supported here ({', '.join(wanted)})"
        )
    if wanted[mode] not in (None, spatial) or spatial not in (1, 2):
        raise ValueError(
            f"interpolate: mode {mode!r} does not fit an input of shape {input.shape}"
        )
    if mode == "nearest" and align_corners is not None:
        raise ValueError(
            "align_corners option can only be set with the interpolating modes: "
            "linear | bilinear | bicubic | trilinear"
        )
    # One size or scale per spatial dim (a single number serves them all).
    if size is not None:
        sizes, scales = np.broadcast_to(size, spatial).tolist(), [None] * spatial
    else:
        scales = np.broadcast_to(scale_factor, spatial).astype(float).tolist()
        sizes = [int(math.floor(n * s)) for n, s in zip(input.shape[2:], scales)]
    out = input
    for dim, (n, size, scale) in enumerate(zip(input.shape[2:], sizes, scales), 2):
        first, second, weight = _sources(n, size, scale, mode, bool(align_corners))
        # (Given indexing, not index_select: Task 2.6's, which these tests of
        # Task 2.4 must not need.)
        at = (slice(None),) * dim  # (the dims before dim, whole)
        a, b = (out[at + (tensor(i, backend=input.backend),)] for i in (first, second))
        w = out.new_tensor(weight.reshape((-1,) + (1,) * (out.dims - 1 - dim)))
        out = a if mode == "nearest" else a + (b - a) * w
    return out


def conv_transpose2d(
    input: Tensor,
    weight: Tensor,
    bias: Optional[Tensor] = None,
    stride: IntPair = 1,
    padding: IntPair = 0,
    output_padding: IntPair = 0,
    groups: int = 1,
    dilation: IntPair = 1,
) -> Tensor:
    """The transposed convolution (the gradient of ``conv2d`` with respect to its
    input), as ``F.conv_transpose2d``: weight ``(C_in, C_out / groups, kh, kw)``,
    output size $(n - 1) s - 2p + d (k - 1) + p_{out} + 1$ per spatial dim.

    Computed as a ``conv2d`` of the input with ``stride - 1`` zeros between its
    entries, padded by $d (k - 1) - p$ (and ``output_padding`` at the end), with
    the kernel flipped and its channel dims swapped.

    Raises:
        ValueError: ``output_padding`` not smaller than the stride or the dilation,
            or an input whose channels are not the weight's first size.
    """
    batched = input.dims == 4
    x = input if batched else input.unsqueeze(0)
    s, p = pair(stride, "stride"), pair(padding, "padding")
    d, op = pair(dilation, "dilation"), pair(output_padding, "output_padding")
    if any(o >= max(a, b) for o, a, b in zip(op, s, d)):
        raise ValueError(
            f"output padding must be smaller than either stride or dilation, got "
            f"output_padding={op}, stride={s}, dilation={d}"
        )
    c_in, c_out_g, kh, kw = weight.shape
    if x.shape[1] != c_in:  # (checked here: conv2d would name its own input)
        raise ValueError(
            f"conv_transpose2d: input has {x.shape[1]} channels but the weight "
            f"expects {c_in} (input shape {input.shape}, weight shape {weight.shape})"
        )
    edges = [d[k] * (size - 1) - p[k] for k, size in enumerate((kh, kw))]
    # (a negative width crops: padding beyond the kernel's reach)
    x = pad(_dilate(x, s), (edges[1], edges[1] + op[1], edges[0], edges[0] + op[0]))
    w = weight.reshape(groups, c_in // groups, c_out_g, kh, kw).transpose(1, 2)
    w = w.reshape(groups * c_out_g, c_in // groups, kh, kw).flip((2, 3))
    out = F.conv2d(x, w.contiguous(), bias, 1, 0, d, groups)
    return out if batched else out.squeeze(0)


# (last: the names defined above)
__all__ = defined_here(globals())
