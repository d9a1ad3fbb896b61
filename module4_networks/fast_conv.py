"""Convolution as Numba parallel kernels over raw storage (Tasks 4.1 and 4.2).

A convolution layer (PyTorch's ``conv1d``/``conv2d``, which is really a
*cross-correlation*: the kernel is not flipped) slides a small weight over the input
and takes a dot product at every position. With stride $s$ and zero padding $p$,

$$\\text{out}[b, o, t] = \\sum_{c} \\sum_{k} x[b, c, t s + k - p]\\, w[o, c, k],$$

where an index outside $[0, L)$ reads a zero. Shapes: input $x$ is
``(batch, in_channels, width)``, weight $w$ is ``(out_channels, in_channels,
kernel_width)``, output is ``(batch, out_channels, out_width)`` with
$\\text{out\\_width} = \\lfloor (L + 2p - K) / s \\rfloor + 1$. In 2-D every spatial
index becomes a pair: $x[b, c, i s_h + k_i - p_h, j s_w + k_j - p_w]\\, w[o, c, k_i,
k_j]$.

The backward pass of a convolution is made of convolutions too. With $g =
\\partial L / \\partial \\text{out}$:

* **input gradient** -- every $x[b, c, i]$ was read by the outputs $t$ with
  $t s + k - p = i$, so
  $\\partial L / \\partial x[b, c, i] = \\sum_o \\sum_k g[b, o, (i + p - k)/s]\\,
  w[o, c, k]$ over the $k$ where $(i + p - k)/s$ is a whole number in range. For
  $s = 1$ this is the *full* correlation of $g$ (padded by $K - 1 - p$) with the
  weight flipped along $k$ and with its channel axes swapped: a transposed
  convolution.
* **weight gradient** -- the correlation of the input with the output gradient:
  $\\partial L / \\partial w[o, c, k] = \\sum_b \\sum_t x[b, c, t s + k - p]\\,
  g[b, o, t]$.
* **bias gradient** -- the output gradient summed over batch and positions.

Every kernel here works on *raw storage* like the kernels of Module 3: a flat
float64 array, a shape and strides (int64 arrays, in elements). Element
$(i_0, i_1, \\dots)$ lives at ``sum(index * strides)``. So a kernel reads a
transposed or sliced input without copying it first.

Each kernel comes from a *factory* (``_conv1d_forward_factory`` ...): the factory
compiles it on first use and :func:`kernel` keeps it. The launchers
(``conv1d_forward`` ...) check the shapes in Python, where a clear error can be
raised, and then run the compiled kernel.
"""

from __future__ import annotations

import functools
from typing import Callable

from numba import njit, prange

from module3_fast_ops import kernel_cache

from . import _conv_gemm
from ._conv_checks import (
    Index,
    IntPair,
    Storage,
    Strided,
    _as_strided,
    _check_storage,
    conv_output_shape,
    sizes,
)

__all__ = [
    "kernel",
    "conv1d_forward",
    "conv1d_backward_input",
    "conv1d_backward_weight",
    "conv2d_forward",
    "conv2d_backward_input",
    "conv2d_backward_weight",
]


# --------------------------------------------------- a worked example kernel
@njit(parallel=True, cache=True)
def _bias_backward(
    out: Storage,
    g: Storage,
    g_shape: Index,
    g_strides: Index,
) -> None:
    """``out[o] = sum over b and every position of g[b, o, ...]`` (any spatial dims).

    The pattern of every kernel in this file: ``prange`` over the entries of the
    output (independent, so the threads never write to the same place), a plain
    loop over what each entry sums, positions computed from the strides.
    """
    batch, channels = g_shape[0], g_shape[1]
    positions = 1
    for d in range(2, len(g_shape)):
        positions *= g_shape[d]
    for o in prange(channels):
        acc = 0.0
        for b in range(batch):
            for flat in range(positions):
                # Unravel the flat spatial position into g's strides.
                pos = b * g_strides[0] + o * g_strides[1]
                rest = flat
                for d in range(len(g_shape) - 1, 1, -1):
                    pos += (rest % g_shape[d]) * g_strides[d]
                    rest //= g_shape[d]
                acc += g[pos]
        out[o] = acc


# ------------------------------------------------------------ Task 4.1: conv1d
def _conv1d_forward_factory() -> Callable[..., None]:
    r"""Build the conv1d forward kernel.

    The kernel has the signature ``kernel(out, out_shape, out_strides, x, x_shape,
    x_strides, w, w_shape, w_strides, stride, padding) -> None`` and fills

    $$\text{out}[b, o, t] = \sum_{c} \sum_{k} x[b, c, t s + k - p]\, w[o, c, k]$$

    for every ``(b, o, t)`` of ``out_shape = (batch, out_channels, out_width)``,
    reading zero where $t s + k - p$ falls outside ``[0, x_shape[2])``. ``x`` has
    shape ``(batch, in_channels, width)``, ``w`` has shape ``(out_channels,
    in_channels, kernel_width)``; all three arrays are raw strided storage.
    """

    # BEGIN SOLUTION 4.1: the conv1d forward kernel (njit parallel, prange over out)
    @njit(parallel=True, cache=True)
    def conv1d_forward_kernel(
        out,
        out_shape,
        out_strides,
        x,
        x_shape,
        x_strides,
        w,
        w_shape,
        w_strides,
        stride,
        padding,
    ):
        out_channels, out_width = out_shape[1], out_shape[2]
        in_channels, width, kernel_width = x_shape[1], x_shape[2], w_shape[2]
        for flat in prange(out_shape[0] * out_channels * out_width):
            b = flat // (out_channels * out_width)
            o = (flat // out_width) % out_channels
            t = flat % out_width
            start = t * stride - padding
            # Only the taps that land inside the input: the padding reads zeros.
            k_lo = max(0, -start)
            k_hi = min(kernel_width, width - start)
            acc = 0.0
            for c in range(in_channels):
                x_base = b * x_strides[0] + c * x_strides[1]
                w_base = o * w_strides[0] + c * w_strides[1]
                for k in range(k_lo, k_hi):
                    acc += (
                        x[x_base + (start + k) * x_strides[2]]
                        * w[w_base + k * w_strides[2]]
                    )
            out[b * out_strides[0] + o * out_strides[1] + t * out_strides[2]] = acc

    return conv1d_forward_kernel
    # END SOLUTION


def _conv1d_backward_input_factory() -> Callable[..., None]:
    r"""Build the kernel for the input gradient of conv1d.

    Signature ``kernel(dx, dx_shape, dx_strides, g, g_shape, g_strides, w, w_shape,
    w_strides, stride, padding) -> None``; it fills, for every ``(b, c, i)`` of
    ``dx_shape = (batch, in_channels, width)``,

    $$dx[b, c, i] = \sum_{o} \sum_{k} g[b, o, t]\, w[o, c, k], \qquad
    t = \frac{i + p - k}{s},$$

    over the $k$ for which $t$ is a whole number in ``[0, g_shape[2])``. ``g`` is
    the output gradient, shape ``(batch, out_channels, out_width)``. For $s = 1$
    this is the full correlation of $g$ with the flipped, channel-transposed
    weight.
    """

    # BEGIN SOLUTION 4.1: the conv1d input-gradient kernel (a transposed conv)
    @njit(parallel=True, cache=True)
    def conv1d_backward_input_kernel(
        dx,
        dx_shape,
        dx_strides,
        g,
        g_shape,
        g_strides,
        w,
        w_shape,
        w_strides,
        stride,
        padding,
    ):
        in_channels, width = dx_shape[1], dx_shape[2]
        out_channels, out_width, kernel_width = g_shape[1], g_shape[2], w_shape[2]
        for flat in prange(dx_shape[0] * in_channels * width):
            b = flat // (in_channels * width)
            c = (flat // width) % in_channels
            i = flat % width
            acc = 0.0
            for k in range(kernel_width):
                # Output t read x[i] through tap k when t * s + k - p == i.
                shifted = i + padding - k
                if shifted < 0 or shifted % stride != 0:
                    continue
                t = shifted // stride
                if t >= out_width:
                    continue
                for o in range(out_channels):
                    acc += (
                        g[b * g_strides[0] + o * g_strides[1] + t * g_strides[2]]
                        * w[o * w_strides[0] + c * w_strides[1] + k * w_strides[2]]
                    )
            dx[b * dx_strides[0] + c * dx_strides[1] + i * dx_strides[2]] = acc

    return conv1d_backward_input_kernel
    # END SOLUTION


def _conv1d_backward_weight_factory() -> Callable[..., None]:
    r"""Build the kernel for the weight gradient of conv1d.

    Signature ``kernel(dw, dw_shape, dw_strides, x, x_shape, x_strides, g, g_shape,
    g_strides, stride, padding) -> None``; it fills, for every ``(o, c, k)`` of
    ``dw_shape = (out_channels, in_channels, kernel_width)``,

    $$dw[o, c, k] = \sum_{b} \sum_{t} x[b, c, t s + k - p]\, g[b, o, t],$$

    the correlation of the input with the output gradient (zero outside the input).
    """

    # BEGIN SOLUTION 4.1: the conv1d weight-gradient kernel (x correlated with g)
    @njit(parallel=True, cache=True)
    def conv1d_backward_weight_kernel(
        dw,
        dw_shape,
        dw_strides,
        x,
        x_shape,
        x_strides,
        g,
        g_shape,
        g_strides,
        stride,
        padding,
    ):
        in_channels, kernel_width = dw_shape[1], dw_shape[2]
        batch, width, out_width = x_shape[0], x_shape[2], g_shape[2]
        for flat in prange(dw_shape[0] * in_channels * kernel_width):
            o = flat // (in_channels * kernel_width)
            c = (flat // kernel_width) % in_channels
            k = flat % kernel_width
            acc = 0.0
            for b in range(batch):
                for t in range(out_width):
                    i = t * stride + k - padding
                    if 0 <= i < width:
                        acc += (
                            x[b * x_strides[0] + c * x_strides[1] + i * x_strides[2]]
                            * g[b * g_strides[0] + o * g_strides[1] + t * g_strides[2]]
                        )
            dw[o * dw_strides[0] + c * dw_strides[1] + k * dw_strides[2]] = acc

    return conv1d_backward_weight_kernel
    # END SOLUTION


# ------------------------------------------------------------ Task 4.2: conv2d
def _conv2d_forward_factory() -> Callable[..., None]:
    r"""Build the conv2d forward kernel.

    Signature ``kernel(out, out_shape, out_strides, x, x_shape, x_strides, w,
    w_shape, w_strides, stride_h, stride_w, padding_h, padding_w) -> None``; it
    fills, for every ``(b, o, i, j)`` of ``out_shape = (batch, out_channels,
    out_height, out_width)``,

    $$\text{out}[b, o, i, j] = \sum_{c} \sum_{k_i} \sum_{k_j}
    x[b, c, i s_h + k_i - p_h, j s_w + k_j - p_w]\, w[o, c, k_i, k_j],$$

    reading zero outside the input. ``x``: ``(batch, in_channels, height, width)``;
    ``w``: ``(out_channels, in_channels, kernel_height, kernel_width)``.
    """

    # BEGIN SOLUTION 4.2: the conv2d forward kernel (njit parallel, prange over out)
    @njit(parallel=True, cache=True)
    def conv2d_forward_kernel(
        out,
        out_shape,
        out_strides,
        x,
        x_shape,
        x_strides,
        w,
        w_shape,
        w_strides,
        stride_h,
        stride_w,
        padding_h,
        padding_w,
    ):
        out_channels, out_height, out_width = out_shape[1], out_shape[2], out_shape[3]
        in_channels, height, width = x_shape[1], x_shape[2], x_shape[3]
        kernel_height, kernel_width = w_shape[2], w_shape[3]
        for flat in prange(out_shape[0] * out_channels * out_height * out_width):
            j = flat % out_width
            i = (flat // out_width) % out_height
            o = (flat // (out_width * out_height)) % out_channels
            b = flat // (out_width * out_height * out_channels)
            top = i * stride_h - padding_h
            left = j * stride_w - padding_w
            # Clip the window to the input: the padding contributes zeros.
            ki_lo, ki_hi = max(0, -top), min(kernel_height, height - top)
            kj_lo, kj_hi = max(0, -left), min(kernel_width, width - left)
            acc = 0.0
            for c in range(in_channels):
                x_base = b * x_strides[0] + c * x_strides[1]
                w_base = o * w_strides[0] + c * w_strides[1]
                for ki in range(ki_lo, ki_hi):
                    x_row = x_base + (top + ki) * x_strides[2]
                    w_row = w_base + ki * w_strides[2]
                    for kj in range(kj_lo, kj_hi):
                        acc += (
                            x[x_row + (left + kj) * x_strides[3]]
                            * w[w_row + kj * w_strides[3]]
                        )
            at = b * out_strides[0] + o * out_strides[1] + i * out_strides[2]
            out[at + j * out_strides[3]] = acc

    return conv2d_forward_kernel
    # END SOLUTION


def _conv2d_backward_input_factory() -> Callable[..., None]:
    r"""Build the kernel for the input gradient of conv2d.

    Signature ``kernel(dx, dx_shape, dx_strides, g, g_shape, g_strides, w, w_shape,
    w_strides, stride_h, stride_w, padding_h, padding_w) -> None``; for every
    ``(b, c, y, x)`` of ``dx_shape``,

    $$dx[b, c, y, x] = \sum_{o} \sum_{k_i} \sum_{k_j} g[b, o, u, v]\,
    w[o, c, k_i, k_j], \quad u = \frac{y + p_h - k_i}{s_h},\;
    v = \frac{x + p_w - k_j}{s_w},$$

    over the taps where $u$ and $v$ are whole numbers inside ``g_shape[2:]``.
    """

    # BEGIN SOLUTION 4.2: the conv2d input-gradient kernel (a transposed conv)
    @njit(parallel=True, cache=True)
    def conv2d_backward_input_kernel(
        dx,
        dx_shape,
        dx_strides,
        g,
        g_shape,
        g_strides,
        w,
        w_shape,
        w_strides,
        stride_h,
        stride_w,
        padding_h,
        padding_w,
    ):
        in_channels, height, width = dx_shape[1], dx_shape[2], dx_shape[3]
        out_channels, out_height, out_width = g_shape[1], g_shape[2], g_shape[3]
        kernel_height, kernel_width = w_shape[2], w_shape[3]
        for flat in prange(dx_shape[0] * in_channels * height * width):
            x_ = flat % width
            y = (flat // width) % height
            c = (flat // (width * height)) % in_channels
            b = flat // (width * height * in_channels)
            acc = 0.0
            for ki in range(kernel_height):
                rows = y + padding_h - ki
                if rows < 0 or rows % stride_h != 0 or rows // stride_h >= out_height:
                    continue
                u = rows // stride_h
                for kj in range(kernel_width):
                    cols = x_ + padding_w - kj
                    if cols < 0 or cols % stride_w != 0:
                        continue
                    v = cols // stride_w
                    if v >= out_width:
                        continue
                    # g[b, o, u, v] and w[o, c, ki, kj] for o = 0 (o steps below)
                    g_at = b * g_strides[0] + u * g_strides[2] + v * g_strides[3]
                    w_at = c * w_strides[1] + ki * w_strides[2] + kj * w_strides[3]
                    for o in range(out_channels):
                        acc += g[g_at + o * g_strides[1]] * w[w_at + o * w_strides[0]]
            at = b * dx_strides[0] + c * dx_strides[1] + y * dx_strides[2]
            dx[at + x_ * dx_strides[3]] = acc

    return conv2d_backward_input_kernel
    # END SOLUTION


def _conv2d_backward_weight_factory() -> Callable[..., None]:
    r"""Build the kernel for the weight gradient of conv2d.

    Signature ``kernel(dw, dw_shape, dw_strides, x, x_shape, x_strides, g, g_shape,
    g_strides, stride_h, stride_w, padding_h, padding_w) -> None``; for every
    ``(o, c, k_i, k_j)`` of ``dw_shape``,

    $$dw[o, c, k_i, k_j] = \sum_{b} \sum_{u} \sum_{v}
    x[b, c, u s_h + k_i - p_h, v s_w + k_j - p_w]\, g[b, o, u, v].$$
    """

    # BEGIN SOLUTION 4.2: the conv2d weight-gradient kernel (x correlated with g)
    @njit(parallel=True, cache=True)
    def conv2d_backward_weight_kernel(
        dw,
        dw_shape,
        dw_strides,
        x,
        x_shape,
        x_strides,
        g,
        g_shape,
        g_strides,
        stride_h,
        stride_w,
        padding_h,
        padding_w,
    ):
        in_channels, kernel_height, kernel_width = dw_shape[1], dw_shape[2], dw_shape[3]
        batch, height, width = x_shape[0], x_shape[2], x_shape[3]
        out_height, out_width = g_shape[2], g_shape[3]
        for flat in prange(dw_shape[0] * in_channels * kernel_height * kernel_width):
            kj = flat % kernel_width
            ki = (flat // kernel_width) % kernel_height
            c = (flat // (kernel_width * kernel_height)) % in_channels
            o = flat // (kernel_width * kernel_height * in_channels)
            acc = 0.0
            for b in range(batch):
                for u in range(out_height):
                    y = u * stride_h + ki - padding_h
                    if y < 0 or y >= height:
                        continue
                    x_row = b * x_strides[0] + c * x_strides[1] + y * x_strides[2]
                    g_row = b * g_strides[0] + o * g_strides[1] + u * g_strides[2]
                    for v in range(out_width):
                        x_ = v * stride_w + kj - padding_w
                        if 0 <= x_ < width:
                            acc += (
                                x[x_row + x_ * x_strides[3]]
                                * g[g_row + v * g_strides[3]]
                            )
            at = o * dw_strides[0] + c * dw_strides[1] + ki * dw_strides[2]
            dw[at + kj * dw_strides[3]] = acc

    return conv2d_backward_weight_kernel
    # END SOLUTION


@functools.lru_cache(maxsize=None)
def kernel(name: str) -> Callable[..., None]:
    """The compiled kernel ``name`` (``"conv1d_forward"`` ...), built by its
    factory ``_{name}_factory`` once per process and kept on disk across
    processes by Module 3's kernel cache (keyed by the sources it is built from;
    it also announces its compilation)."""
    return kernel_cache.persist(globals()[f"_{name}_factory"](), name)


# ------------------------------------------------------------------ launchers
# A launcher takes each array as a ``Strided`` triple ``(storage, shape, strides)``,
# checks the arguments in Python (where an error message can reach the user) and
# runs the kernel. The result array may be any strided storage; the tensor
# Functions pass fresh contiguous ones.
def _launch(
    name: str,
    spatial: int,
    result: Strided,
    first: Strided,
    second: Strided,
    stride: IntPair = 1,
    padding: IntPair = 0,
    fast: bool = False,
) -> None:
    """Check the arguments and run the kernel ``conv{spatial}d_{name}``. With
    ``fast`` (the tensor Functions), run it as im2col + matmul where that agrees
    with the kernel (see ``_conv_gemm``)."""
    op = f"conv{spatial}d"
    strides = sizes(op, "stride", stride, spatial)
    paddings = sizes(op, "padding", padding, spatial)
    result, first, second = (_as_strided(op, t) for t in (result, first, second))
    # Which triple holds the input, the weight and the output of the forward conv.
    roles = {
        "forward": (first, second, result),
        "backward_input": (result, second, first),
        "backward_weight": (first, result, second),
    }[name]
    x_shape, w_shape, out_shape = (r[1] for r in roles)
    expected = conv_output_shape(op, x_shape, w_shape, strides, paddings)
    got = tuple(int(n) for n in out_shape)
    if got != expected:
        where = op if name == "forward" else f"{op} backward"
        raise ValueError(f"{where}: out has shape {got}, expected {expected}")
    for label, triple in zip(("input", "weight", "output"), roles):
        _check_storage(f"{op} {label}", *triple)

    def reference() -> None:
        kernel(f"{op}_{name}")(*result, *first, *second, *strides, *paddings)

    if not fast:
        return reference()
    _conv_gemm.run(name, spatial, reference, result, roles, strides, paddings)


# The launchers the tests and the tensor Functions call, one per kernel:
# ``conv1d_forward(out, x, w, stride=1, padding=0)`` fills ``out`` with conv1d(x,
# w); ``conv1d_backward_input(dx, g, w, stride, padding)`` fills ``dx`` with its
# input gradient (a transposed convolution); ``conv1d_backward_weight(dw, x, g,
# stride, padding)`` fills ``dw`` with its weight gradient (x correlated with g);
# and the same for conv2d, whose stride and padding may also be pairs.
conv1d_forward = functools.partial(_launch, "forward", 1)
conv1d_backward_input = functools.partial(_launch, "backward_input", 1)
conv1d_backward_weight = functools.partial(_launch, "backward_weight", 1)
conv2d_forward = functools.partial(_launch, "forward", 2)
conv2d_backward_input = functools.partial(_launch, "backward_input", 2)
conv2d_backward_weight = functools.partial(_launch, "backward_weight", 2)
