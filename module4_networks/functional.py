"""``module4_networks.functional``: the operations of a network, PyTorch-style.

Every function takes and returns tensors, is differentiable, and has PyTorch's
signature and semantics. Use them through ``torch.nn.functional``'s path,
``from module4_networks.nn import functional as F`` (a facade that adds the losses
and the given extras to the functions of this file):

* convolutions ``conv1d``, ``conv2d`` (Tasks 4.1 and 4.2 write their kernels);
* ``tile`` and ``avg_pool2d`` (Task 4.3): pooling by reshaping windows;
* ``max``, ``argmax``, ``softmax``, ``log_softmax``, ``max_pool2d``, ``dropout``
  (Task 4.4);
* given helpers: ``linear`` and ``embedding`` (its lookup, ``EmbeddingFun``, in
  ``_embedding.py``); the activations are in ``_activation_functions.py``.
"""

from __future__ import annotations

from typing import Any, Optional, Tuple, Union

import numpy as np

from module2_tensors.engine.autograd import Context, Function
from module2_tensors.function_forms import stack  # (promotes dtypes, as torch's)
from module2_tensors.tensor import Tensor, rand, tensor  # noqa: F401 (rand: Task 4.4)
from module2_tensors.tensor_api.dtype_device import kept_dtype
from module2_tensors.tensor_api.reductions import MaxResult

from . import _matmul_blas, _pool_fast, _pool_options
from ._embedding import EmbeddingFun
from ._padding import pad
from ._convolution import _check_tensor, _conv, _dim
from ._conv_checks import IntPair, pair

__all__ = [
    "conv1d",
    "conv2d",
    "tile",
    "avg_pool2d",
    "max",
    "argmax",
    "softmax",
    "log_softmax",
    "max_pool2d",
    "adaptive_avg_pool2d",
    "dropout",
    "linear",
    "embedding",
]


def conv1d(
    input: Tensor,
    weight: Tensor,
    bias: Optional[Tensor] = None,
    stride: int = 1,
    padding: Union[int, str] = 0,
    dilation: int = 1,
    groups: int = 1,
) -> Tensor:
    r"""1-D convolution (cross-correlation), as ``torch.nn.functional.conv1d``:

    $$\text{out}[b, o, t] = \text{bias}[o] + \sum_{c, k} x[b, c, t s + k - p]\,
    w[o, c, k].$$

    Shapes: input ``(batch, in_channels, width)`` (or ``(in_channels, width)``),
    weight ``(out_channels, in_channels, kernel)``, bias ``(out_channels,)``;
    output ``(batch, out_channels, (width + 2p - kernel) // s + 1)``.

    Raises:
        ValueError: shapes that do not fit (naming both), stride < 1, padding < 0.

    With ``dilation`` $d$ the taps are $d$ apart ($x[b, c, t s + k d - p]$);
    ``groups`` splits the channels into independent convolutions (weight
    ``(out_channels, in_channels / groups, kernel)``); ``padding`` may be
    ``"same"`` or ``"valid"``.
    """
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(
    input: Tensor,
    weight: Tensor,
    bias: Optional[Tensor] = None,
    stride: IntPair = 1,
    padding: Union[IntPair, str] = 0,
    dilation: IntPair = 1,
    groups: int = 1,
) -> Tensor:
    r"""2-D convolution (cross-correlation), as ``torch.nn.functional.conv2d``:

    $$\text{out}[b, o, i, j] = \text{bias}[o] + \sum_{c, k_i, k_j}
    x[b, c, i s_h + k_i - p_h, j s_w + k_j - p_w]\, w[o, c, k_i, k_j].$$

    Shapes: input ``(batch, in_channels, height, width)`` (or without batch), weight
    ``(out_channels, in_channels, kh, kw)``; ``stride`` and ``padding`` are an int
    or a pair ``(h, w)``. ``dilation``, ``groups`` and ``padding="same"`` /
    ``"valid"`` as for :func:`conv1d`.
    """
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


# --------------------------------------------------------- Task 4.3: pooling
def _pool_args(name: str, input: Tensor, kernel_size: IntPair) -> Tuple[int, int]:
    """Check a pooling call of non-overlapping windows (:func:`_general` sent the
    others to :func:`_pool_windows`); return the kernel ``(kh, kw)``."""
    _check_image(name, input)
    kh, kw = pair(kernel_size, "kernel_size")
    if kh < 1 or kw < 1 or kh > input.shape[2] or kw > input.shape[3]:
        raise ValueError(
            f"{name}: kernel {(kh, kw)} does not fit an input of shape {input.shape}"
        )
    return kh, kw


def tile(input: Tensor, kernel: Tuple[int, int]) -> Tuple[Tensor, int, int]:
    """Cut an image batch into non-overlapping ``kh x kw`` windows.

    Input ``(batch, channels, height, width)``; returns ``(tiled, new_height,
    new_width)`` where ``tiled`` has shape ``(batch, channels, new_height,
    new_width, kh * kw)`` and ``tiled[b, c, i, j]`` holds the window whose top-left
    corner is ``(i * kh, j * kw)``, read row by row. ``new_height = height // kh``
    and ``new_width = width // kw``: rows and columns that do not fill a window are
    dropped, as PyTorch's pooling does.

    Only views and one copy: split each spatial axis in two with ``view`` (height
    ``-> (new_height, kh)``), bring the two window axes together with ``permute``,
    then ``contiguous().view(...)`` merges them. Every step is differentiable, so
    the gradient flows back through the tiling for free.
    """
    # BEGIN SOLUTION 4.3: crop to whole windows, view, permute, contiguous, view
    batch, channels, height, width = input.shape
    kh, kw = kernel
    new_height, new_width = height // kh, width // kw
    x = input
    if new_height * kh != height:
        x = x.narrow(2, 0, new_height * kh)
    if new_width * kw != width:
        x = x.narrow(3, 0, new_width * kw)
    x = x.contiguous().view(batch, channels, new_height, kh, new_width, kw)
    x = x.permute(0, 1, 2, 4, 3, 5).contiguous()
    return (
        x.view(batch, channels, new_height, new_width, kh * kw),
        new_height,
        new_width,
    )
    # END SOLUTION


def _check_image(name: str, input: Tensor) -> None:
    _check_tensor(name, input)
    if input.dims != 4:
        raise ValueError(
            f"{name}: input must have 4 dims (batch, channels, height, width), got "
            f"shape {input.shape}"
        )


def _general(
    kernel_size: IntPair, stride: Optional[IntPair], padding: IntPair, ceil_mode: bool
) -> bool:
    """Whether a pooling call needs :func:`_pool_windows` (overlapping or padded
    windows, ``ceil_mode``) rather than Tasks 4.3/4.4's ``tile``."""
    return (
        (stride is not None and pair(stride, "stride") != pair(kernel_size, "k"))
        or pair(padding, "padding") != (0, 0)
        or ceil_mode
    )


def _pool_windows(
    name: str,
    input: Tensor,
    kernel_size: IntPair,
    stride: Optional[IntPair],
    padding: IntPair,
    ceil_mode: bool,
    fill: float,
    dilation: IntPair = 1,
) -> Tuple[Tensor, np.ndarray]:
    """PyTorch's general pooling windows (overlapping, padded, ``ceil_mode``,
    ``dilation``: a window's entries that far apart), gathered by indexing
    (given code): ``(windows, divisor)`` with windows of
    shape ``(N, C, out_h, out_w, kh * kw)``, padded with ``fill``, and
    ``divisor[i, j]`` the size of window ``(i, j)`` counting padding but not
    what ``ceil_mode`` adds past it (PyTorch's ``count_include_pad``)."""
    _check_image(name, input)
    kernel = pair(kernel_size, "kernel_size")
    steps = kernel if stride is None else pair(stride, "stride")
    pads, dilations = pair(padding, "padding"), pair(dilation, "dilation")
    counts, index, widths = [], [], []
    for n, k, s, p, d in zip(input.shape[2:], kernel, steps, pads, dilations):
        k, spacing = d * (k - 1) + 1, np.arange(k) * d  # (the window's extent)
        if k < 1 or s < 1 or p < 0 or 2 * p > k or d < 1:
            raise ValueError(
                f"{name}: pad should be at most half of the kernel and sizes "
                f"positive, got kernel {kernel}, stride {steps}, padding {pads}"
            )
        span = n + 2 * p - k
        if span < 0:
            raise ValueError(
                f"{name}: kernel {kernel} does not fit an input of shape "
                f"{input.shape} with padding {pads}"
            )
        out = (-(-span // s) if ceil_mode else span // s) + 1
        if ceil_mode and (out - 1) * s >= n + p:
            out -= 1  # the last window must start inside the input or left padding
        starts = np.arange(out) * s
        counts.append(np.minimum(starts + k, n + 2 * p) - starts)
        index.append(starts[:, None] + spacing[None, :])
        # ceil_mode's last window may reach past the padding: fill that part too.
        widths = [p, p + int(np.maximum(starts[-1] - span, 0))] + widths
    padded = pad(input, widths, value=fill)  # (widths: the last dim's first, as F.pad)
    windows = padded[:, :, index[0][:, None, :, None], index[1][None, :, None, :]]
    return windows.flatten(4), np.outer(counts[0], counts[1])  # (kh, kw) -> kh * kw


def avg_pool2d(
    input: Tensor,
    kernel_size: IntPair,
    stride: Optional[IntPair] = None,
    padding: IntPair = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: Optional[int] = None,
) -> Tensor:
    r"""Average over non-overlapping windows (``torch.nn.functional.avg_pool2d``):

    $$\text{out}[b, c, i, j] = \frac{1}{k_h k_w} \sum_{u < k_h,\, v < k_w}
    x[b, c, i k_h + u, j k_w + v].$$

    Shape ``(batch, channels, height, width) -> (batch, channels, height // kh,
    width // kw)``. Other ``stride``, ``padding``, ``ceil_mode`` and
    ``count_include_pad`` follow PyTorch, and ``divisor_override`` divides every
    window's sum by itself (given code: :func:`_pool_windows`).
    """
    if _general(kernel_size, stride, padding, ceil_mode) or divisor_override:
        options = (kernel_size, stride, padding, ceil_mode, 0.0)
        # (divisor: each window's size, a NumPy array; a tensor where it divides)
        windows, divisor = _pool_windows("avg_pool2d", input, *options)
        if not count_include_pad:  # (the windows' counts of entries inside)
            ones = input.new_ones((1, 1) + input.shape[2:])
            divisor = _pool_windows("avg_pool2d", ones, *options)[0].sum(dim=4)
        return windows.sum(dim=4) / (divisor_override or input.new_tensor(divisor))
    kh, kw = _pool_args("avg_pool2d", input, kernel_size)
    # BEGIN SOLUTION 4.3: tile, then the mean over the window dimension
    tiled, _, _ = tile(input, (kh, kw))
    return tiled.mean(dim=4)
    # END SOLUTION


# ------------------------------------------- Task 4.4: max, softmax, dropout
def _first_argmax(a: Tensor, dim: int) -> Tuple[Tensor, Tensor, Tensor]:
    """Along ``dim`` (kept with size 1): the maxima, the index of the *first*
    maximum (as a float), and the one-hot mask of that index (``a``'s shape).

    Works with the backend's kernels only (no autodiff): the maxima by
    ``max_reduce``; the first of several equal maxima is the smallest position
    among those that equal the maximum.
    """
    # BEGIN SOLUTION 4.4: max_reduce, then the smallest position equal to the max
    backend = a.backend
    n = a.shape[dim]
    values = backend.max_reduce(a, dim)
    is_max = backend.eq_zip(a, values)
    shape = [1] * a.dims
    shape[dim] = n
    positions = a.new_tensor(np.arange(n, dtype=np.float64)).view(*shape)
    # Where a is not the max, stand in position n (larger than any real one).
    candidates = backend.add_zip(
        backend.mul_zip(is_max, backend.add_zip(positions, a.new_tensor(-n))),
        a.new_tensor(float(n)),
    )
    first = backend.neg_map(backend.max_reduce(backend.neg_map(candidates), dim))
    one_hot = backend.eq_zip(positions, first)
    return values, first, one_hot
    # END SOLUTION


class MaxWithIndex(Function):
    r"""$\text{out} = \max_j a[\dots, j, \dots]$ along ``dim`` (kept with size 1).

    Backward: the whole gradient goes to the argmax, the *first* maximum when
    several entries tie (the one ``torch.max(x, dim)`` reports in ``indices``), so
    the result is deterministic: $\partial L / \partial a = G \cdot
    \text{one\_hot}(\arg\max)$.
    """

    @staticmethod
    def forward(ctx: Context, a: Tensor, dim: int) -> Tensor:
        # BEGIN SOLUTION 4.4: values by _first_argmax; save the one-hot mask
        values, _, one_hot = _first_argmax(a, dim)
        ctx.save_for_backward(one_hot)
        return values
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        # BEGIN SOLUTION 4.4: the gradient times the one-hot mask (broadcasting)
        (one_hot,) = ctx.saved_values
        return grad.backend.mul_zip(one_hot, grad)
        # END SOLUTION


def _reduce_input(
    name: str, input: Tensor, dim: Optional[int], keepdim: bool
) -> Tuple[Tensor, int, Tuple[int, ...]]:
    """``(tensor to reduce, dim, shape of the result)``; ``dim=None`` flattens."""
    _check_tensor(name, input)
    dim = dim if dim is None else _dim(dim, input.dims, name)
    if input.size == 0 and (dim is None or input.dims == 0 or not input.shape[dim]):
        raise ValueError(f"{name}() of an empty tensor of shape {input.shape}")
    if dim is None or input.dims == 0:  # (a 0-d tensor along its one dim, too)
        return input.reshape(-1), 0, (1,) * input.dims if keepdim else ()
    return input, dim, input.shape[:dim] + (1,) * keepdim + input.shape[dim + 1 :]


def max(
    input: Tensor, dim: Optional[int] = None, keepdim: bool = False
) -> Union[Tensor, MaxResult]:
    """The largest entry, like ``torch.max``.

    * ``max(x)``: a 0-d tensor, the largest entry overall;
    * ``max(x, dim)``: ``MaxResult(values, indices)`` along ``dim`` (removed unless
      ``keepdim``); ``indices`` (``int64``, no gradient) are those of the first
      maximum.

    The gradient goes to the first maximum only (see :class:`MaxWithIndex`).
    """
    x, d, shape = _reduce_input("max", input, dim, keepdim)
    values = kept_dtype(input, MaxWithIndex.apply(x, d).contiguous().view(shape))
    return values if dim is None else MaxResult(values, argmax(input, dim, keepdim))


def argmax(input: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> Tensor:
    """The index of the first maximum along ``dim`` (of the flattened tensor when
    ``dim`` is None), ``int64`` without gradient, like ``torch.argmax``."""
    x, d, shape = _reduce_input("argmax", input, dim, keepdim)
    return _first_argmax(x.detach(), d)[1].contiguous().view(shape).long()


def softmax(input: Tensor, dim: Optional[int] = None, dtype: Any = None) -> Tensor:
    r"""$\mathrm{softmax}(x)_i = e^{x_i - m} / \sum_j e^{x_j - m}$ along ``dim``.

    Subtracting $m = \max_j x_j$ changes nothing mathematically but keeps every
    exponent $\le 0$, so nothing overflows even for inputs of $\pm 1000$. $m$ is
    taken without gradient (``detach``): the result does not depend on it.
    """
    _check_tensor("softmax", input)
    input = input if dtype is None else input.to(dtype)  # (dtype: converted first)
    dim = _dim(dim, input.dims, "softmax")
    if input.numel() == 0:  # nothing to normalise: an empty result, as PyTorch
        return input * 1.0
    # BEGIN SOLUTION 4.4: shift by the (detached) max, exp, divide by the sum
    shift = input.detach().amax(dim, keepdim=True)
    e = (input - shift).exp()
    return e / e.sum(dim, keepdim=True)
    # END SOLUTION


def log_softmax(input: Tensor, dim: Optional[int] = None, dtype: Any = None) -> Tensor:
    r"""$\log \mathrm{softmax}(x)_i = (x_i - m) - \log \sum_j e^{x_j - m}$ along
    ``dim``, with $m = \max_j x_j$ (the log-sum-exp trick).

    Never computes ``log(softmax(x))``: for $x = (0, -1000)$ the softmax underflows
    to $(1, 0)$ and its log is $-\infty$, while the formula above gives the exact
    $-1000$.
    """
    _check_tensor("log_softmax", input)
    input = input if dtype is None else input.to(dtype)  # (dtype: converted first)
    dim = _dim(dim, input.dims, "log_softmax")
    if input.numel() == 0:  # nothing to normalise: an empty result, as PyTorch
        return input * 1.0
    # BEGIN SOLUTION 4.4: the log-sum-exp trick
    shifted = input - input.detach().amax(dim, keepdim=True)
    return shifted - shifted.exp().sum(dim, keepdim=True).log()
    # END SOLUTION


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """Average pooling to a fixed ``output_size`` ``(oh, ow)`` (an int for a
    square; ``None`` keeps that size), like ``torch.nn.functional.
    adaptive_avg_pool2d``: output row $i$ averages input rows $\\lfloor i H / oh
    \\rfloor$ to $\\lceil (i + 1) H / oh \\rceil - 1$ (windows may overlap)."""
    return _adaptive_pool("adaptive_avg_pool2d", input, output_size, Tensor.mean)


def _adaptive_pool(name: str, input: Tensor, output_size: Any, reduce: Any) -> Tensor:
    """The adaptive poolings (``adaptive_avg_pool2d``, ``_spatial_functions``'s
    ``adaptive_max_pool2d``): ``reduce(window, (-2, -1))`` (``Tensor.mean``,
    say) over each window of the last two dims."""
    _check_tensor(name, input)
    if input.dims not in (3, 4):
        raise ValueError(f"{name}: input must have 3 or 4 dims, got {input.shape}")
    h, w = input.shape[-2:]
    sizes = np.broadcast_to(output_size, 2).tolist()  # (an int: a square)
    oh, ow = (n if size is None else size for n, size in zip((h, w), sizes))
    rows, cols = (  # (the windows along each dim: slices that may overlap)
        [slice((i * n) // out, -(-((i + 1) * n) // out)) for i in range(out)]
        for n, out in ((h, oh), (w, ow))
    )
    cells = [reduce(input[..., r, c], (-2, -1)) for r in rows for c in cols]
    return stack(cells, dim=-1).view(*input.shape[:-2], oh, ow)


def max_pool2d(
    input: Tensor,
    kernel_size: IntPair,
    stride: Optional[IntPair] = None,
    padding: IntPair = 0,
    dilation: IntPair = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    r"""The maximum over non-overlapping windows (``torch.nn.functional.max_pool2d``):

    $$\text{out}[b, c, i, j] = \max_{u < k_h,\, v < k_w}
    x[b, c, i k_h + u, j k_w + v].$$

    The gradient of each window goes to its first maximum (as in PyTorch, which
    routes it to the index it recorded). Overlapping windows (``stride``),
    ``padding`` (with $-\infty$), ``ceil_mode``, ``dilation`` and
    ``return_indices`` (``(values, indices)``, each index into its input plane
    flattened) follow PyTorch (given code: :func:`_pool_windows`, in
    ``_pool_options.py``), in PyTorch's order of arguments.
    """
    options = (kernel_size, stride, padding, ceil_mode, dilation, return_indices)
    plain = not return_indices and pair(dilation, "dilation") == (1, 1)
    # Engine: one compiled pass where it agrees with this code (``_pool_fast``).
    fast = _pool_fast.max_pool2d(max_pool2d, input, *options[:4]) if plain else None
    if fast is not None:
        return fast
    if not plain or _general(kernel_size, stride, padding, ceil_mode):
        return _pool_options.max_pool2d(input, *options, _pool_windows, max)
    kh, kw = _pool_args("max_pool2d", input, kernel_size)
    # BEGIN SOLUTION 4.4: tile, then max over the window dimension
    tiled, _, _ = tile(input, (kh, kw))
    return max(tiled, dim=4).values
    # END SOLUTION


def dropout(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    r"""Inverted dropout, as ``torch.nn.functional.dropout``.

    In training, each entry is kept with probability $1 - p$ and scaled by
    $1 / (1 - p)$, or zeroed: $y = x \cdot m / (1 - p)$ with $m_i \sim
    \mathrm{Bernoulli}(1 - p)$. The scaling keeps $E[y] = x$, so evaluation
    (``training=False``) simply returns the input. ``p = 0`` returns the input;
    ``p = 1`` returns zeros (and a zero gradient). Random numbers come from
    ``rand`` (seed them with ``manual_seed``).
    ``inplace=True`` writes the result into ``input`` and returns it (given).

    Raises:
        ValueError: ``p`` outside $[0, 1]$.
    """
    _check_tensor("dropout", input)
    _check_probability(p)
    if inplace and training:  # (as the in-place methods: Tensor._in_place)
        return input._in_place("dropout_", lambda a, _: dropout(a, p, training), 0.0)
    # BEGIN SOLUTION 4.4: the edge cases, then a Bernoulli mask scaled by 1/(1-p)
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input * 0.0
    keep = rand(*input.shape, backend=input.backend) >= p
    return input * keep * (1.0 / (1.0 - p))
    # END SOLUTION


# ------------------------------------------------------------ given helpers
def _check_probability(p: float) -> None:
    """A dropout probability must lie in $[0, 1]$ (ValueError, PyTorch's message)."""
    if isinstance(p, bool) or not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def linear(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None) -> Tensor:
    r"""$y = x W^\top + b$: input ``(..., in)``, weight ``(out, in)``, bias
    ``(out,)``; output ``(..., out)`` (``torch.nn.functional.linear``; a 1-D
    weight ``(in,)`` gives ``(...)``, as PyTorch's)."""
    _check_tensor("linear input", input)
    _check_tensor("linear weight", weight)
    if weight.dims > 2 or input.dims < 1 or input.shape[-1:] != weight.shape[-1:]:
        raise ValueError(
            f"linear: input of shape {input.shape} does not fit a weight of shape "
            f"{weight.shape} (the last input size must be the weight's last)"
        )
    out = _matmul_blas.matmul(input, weight.T)  # input @ weight.T (engine: BLAS)
    return out if bias is None else out + bias


def embedding(
    input: Union[Tensor, np.ndarray], weight: Tensor, padding_idx: Optional[int] = None
) -> Tensor:
    """Look up rows of ``weight`` (``(num_embeddings, dim)``) for every index of
    ``input`` (any shape; an integer tensor or array, as a float index would be
    truncated silently: ``RuntimeError``); output ``(*input.shape, dim)``. Rows
    at ``padding_idx`` get no gradient (``torch.nn.functional.embedding``)."""
    _check_tensor("embedding weight", weight)
    if weight.dims != 2:
        raise ValueError(f"embedding: weight must be 2-D, got shape {weight.shape}")
    input = input if isinstance(input, Tensor) else tensor(np.asarray(input))
    if input.is_floating_point():
        raise RuntimeError("embedding: expected Long or Int indices, got floats")
    rows = input.to_numpy().astype(np.int64)
    bad = rows[(rows < 0) | (rows >= weight.shape[0])]  # (PyTorch: no negatives)
    if bad.size:
        raise IndexError(
            f"embedding: index {bad[0]} is out of range for {weight.shape[0]} "
            "embeddings"
        )
    skip = -1 if padding_idx is None else padding_idx % weight.shape[0]
    return EmbeddingFun.apply(weight, rows, skip)
