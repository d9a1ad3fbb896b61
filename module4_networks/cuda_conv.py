"""Convolution on the GPU: ``conv1d`` and ``conv2d``, forward and backward, for tensors
on ``CudaBackend`` (given code; ``_convolution.ConvFun`` runs it there).

The arithmetic is that of ``fast_conv`` (Tasks 4.1 and 4.2); the GPU patterns are
those of Task 3.3:

- **forward** and **input gradient**: one thread per entry of the result, as in a
  map. Thread ``flat`` peels its index ``(b, o, i, j)`` off its number and sums its
  window; neighbouring threads compute neighbouring ``j`` and read neighbouring
  inputs.
- **weight gradient**: every entry is a sum over the whole batch and all positions,
  so a thread per entry would leave most of the GPU idle (a 3 x 3 weight of 32 x 1
  channels has 288 entries). As in the reduce, one *block* per entry: its threads
  stride over ``(b, u, v)``, then combine their partial sums in a tree in shared
  memory.
- **bias gradient**: the output gradient summed over all but its channels, by
  the backend's own reduce (Task 3.3).

``conv1d`` runs the ``conv2d`` kernels on a view with a height of 1 (stride 0 along
it), so there are three kernels in all. Every kernel reads raw strided storage
(``(storage, shape, strides)``, like Module 3's), so transposed or sliced inputs need
no copy; the 4-D shapes and strides of all its tensors come in ONE int64 array
(``layout``: ``[shape, strides]`` of each tensor in turn, 8 entries per tensor).

Why given code and not a task: what a student would write is the loop nest of
Tasks 4.1/4.2 inside the thread and block patterns of Task 3.3; a third copy of the
same exercise would cost grading time and teach nothing new. Students read this file
(and ``kindling kernels --task conv``) instead.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple

import numba
import numpy as np

from module2_tensors.engine.autograd import Context
from module2_tensors.tensor import Tensor
from module3_fast_ops._cuda_runtime import _size, cuda, launch
from module3_fast_ops._cuda_specs import count, f64, flag, given_kernels, i64
from module3_fast_ops.cuda_ops import THREADS_PER_BLOCK
from module3_fast_ops.cuda_positions import blocks_for

from ._conv_checks import Strided, pair_2d

__all__ = ["conv_forward_fn", "conv_backward_fn", "KERNEL_SPECS"]


# ---------------------------------------------------------------- the kernels
@cuda.jit(device=True)
def index4(flat, shape):  # type: ignore
    """The index ``(b, c, y, x)`` of entry number ``flat`` of a row-major tensor of
    4-D ``shape``."""
    x = flat % shape[3]
    y = (flat // shape[3]) % shape[2]
    c = (flat // (shape[3] * shape[2])) % shape[1]
    return flat // (shape[3] * shape[2] * shape[1]), c, y, x


@cuda.jit(device=True)
def at4(strides, b, c, y, x):  # type: ignore
    """The storage position of index ``(b, c, y, x)`` under 4-D ``strides``."""
    return b * strides[0] + c * strides[1] + y * strides[2] + x * strides[3]


@cuda.jit(device=True)
def block_sum(partial, value):  # type: ignore
    """The sum of ``value`` over the threads of a block (a power of two of them),
    returned to thread 0: each thread writes its value into the shared array
    ``partial`` (an entry per thread), then half the threads add the other half's
    entries to theirs, and again with a quarter, ... (a tree, as Task 3.3's
    reduce). Every thread of the block must call it."""
    t = cuda.threadIdx.x
    partial[t] = value
    cuda.syncthreads()
    half = cuda.blockDim.x // 2
    while half > 0:
        if t < half:
            partial[t] += partial[t + half]
        cuda.syncthreads()
        half //= 2
    return partial[0]


@cuda.jit
def _forward(out, x, w, layout, bias, bias_stride, has_bias, sh, sw, ph, pw):
    out_shape, out_strides = layout[0:4], layout[4:8]
    x_shape, x_strides = layout[8:12], layout[12:16]
    w_shape, w_strides = layout[16:20], layout[20:24]
    # out[b, o, i, j] = bias[o] + sum_c,ki,kj x[b, c, i sh + ki - ph, j sw + kj - pw]
    #                                          w[o, c, ki, kj]
    flat = cuda.grid(1)
    if flat >= out_shape[0] * out_shape[1] * out_shape[2] * out_shape[3]:
        return
    in_channels, height, width = x_shape[1], x_shape[2], x_shape[3]
    kernel_height, kernel_width = w_shape[2], w_shape[3]
    b, o, i, j = index4(flat, out_shape)
    top, left = i * sh - ph, j * sw - pw  # the window's corner in the input
    # Only the taps inside the input: the padding adds zeros.
    ki_lo, ki_hi = max(0, -top), min(kernel_height, height - top)
    kj_lo, kj_hi = max(0, -left), min(kernel_width, width - left)
    acc = bias[o * bias_stride] if has_bias else 0.0
    for c in range(in_channels):
        x_base = b * x_strides[0] + c * x_strides[1]
        w_base = o * w_strides[0] + c * w_strides[1]
        for ki in range(ki_lo, ki_hi):
            x_row = x_base + (top + ki) * x_strides[2]
            w_row = w_base + ki * w_strides[2]
            for kj in range(kj_lo, kj_hi):
                acc += (
                    x[x_row + (left + kj) * x_strides[3]] * w[w_row + kj * w_strides[3]]
                )
    out[at4(out_strides, b, o, i, j)] = acc


@cuda.jit
def _backward_input(dx, g, w, layout, sh, sw, ph, pw):
    dx_shape, dx_strides = layout[0:4], layout[4:8]
    g_shape, g_strides = layout[8:12], layout[12:16]
    w_shape, w_strides = layout[16:20], layout[20:24]
    # dx[b, c, y, x] = sum_o,ki,kj g[b, o, u, v] w[o, c, ki, kj] over the taps with
    # u = (y + ph - ki) / sh and v = (x + pw - kj) / sw whole numbers inside g.
    flat = cuda.grid(1)
    if flat >= dx_shape[0] * dx_shape[1] * dx_shape[2] * dx_shape[3]:
        return
    out_channels, out_height, out_width = g_shape[1], g_shape[2], g_shape[3]
    kernel_height, kernel_width = w_shape[2], w_shape[3]
    b, c, y, xx = index4(flat, dx_shape)
    acc = 0.0
    for ki in range(kernel_height):
        rows = y + ph - ki
        if rows < 0 or rows % sh != 0 or rows // sh >= out_height:
            continue
        u = rows // sh
        for kj in range(kernel_width):
            cols = xx + pw - kj
            if cols < 0 or cols % sw != 0 or cols // sw >= out_width:
                continue
            v = cols // sw
            g_at = b * g_strides[0] + u * g_strides[2] + v * g_strides[3]
            w_at = c * w_strides[1] + ki * w_strides[2] + kj * w_strides[3]
            for o in range(out_channels):
                acc += g[g_at + o * g_strides[1]] * w[w_at + o * w_strides[0]]
    dx[at4(dx_strides, b, c, y, xx)] = acc


@cuda.jit
def _backward_weight(dw, x, g, layout, sh, sw, ph, pw):
    dw_shape, dw_strides = layout[0:4], layout[4:8]
    x_shape, x_strides = layout[8:12], layout[12:16]
    g_shape, g_strides = layout[16:20], layout[20:24]
    # Block e computes dw's entry e, dw[o, c, ki, kj] = sum_b,u,v x[b, c, u sh + ki
    # - ph, v sw + kj - pw] g[b, o, u, v]: its threads stride over (b, u, v).
    partial = cuda.shared.array(THREADS_PER_BLOCK, numba.float64)
    t = cuda.threadIdx.x
    o, c, ki, kj = index4(cuda.blockIdx.x, dw_shape)
    height, width = x_shape[2], x_shape[3]
    out_height, out_width = g_shape[2], g_shape[3]
    acc = 0.0
    for k in range(t, g_shape[0] * out_height * out_width, cuda.blockDim.x):
        v = k % out_width
        u = (k // out_width) % out_height
        b = k // (out_width * out_height)
        y = u * sh + ki - ph
        xx = v * sw + kj - pw
        if 0 <= y < height and 0 <= xx < width:
            acc += x[at4(x_strides, b, c, y, xx)] * g[at4(g_strides, b, o, u, v)]
    total = block_sum(partial, acc)
    if t == 0:
        dw[at4(dw_strides, o, c, ki, kj)] = total


_pairs = (count, count, count, count)  # strides and paddings
#: The three kernels with their argument types and block size, for ``kindling
#: kernels`` and the resource test (on a GPU, each is compiled once and kept on
#: disk for the next processes).
_KERNELS = {
    "conv_forward": (_forward, (f64, f64, f64, i64, f64, count, flag, *_pairs)),
    "conv_back_input": (_backward_input, (f64, f64, f64, i64, *_pairs)),
    "conv_back_weight": (_backward_weight, (f64, f64, f64, i64, *_pairs)),
}
KERNEL_SPECS = given_kernels("conv", THREADS_PER_BLOCK, _KERNELS)


# ------------------------------------------------------------------ launchers
def _as_2d(tensor: Tensor) -> Strided:
    """The tensor's raw storage as a 4-D ``(storage, shape, strides)``: conv1d's
    ``(B, C, L)`` becomes ``(B, C, 1, L)``."""
    storage, shape, strides = tensor.tuple()  # (int64 arrays)
    if len(shape) == 3:
        shape, strides = np.insert(shape, 2, 1), np.insert(strides, 2, 0)
    return storage, shape, strides


def _launch_over(
    kernel: Any, tensors: Sequence[Tensor], *args: Any, per_block: bool = False
) -> None:
    """Launch ``kernel`` over the entries of ``tensors[0]`` (the result): a thread
    per entry, or with ``per_block`` a block per entry. Its arguments: the
    tensors' storages, then their 4-D shapes and strides (:func:`_as_2d`) in ONE
    int64 array, ``[shape, strides]`` of each in turn (a device constant, cached
    by content: each array argument is 7 kernel parameters and Python work per
    launch on a GPU), then ``args``."""
    views = [_as_2d(t) for t in tensors]
    size = _size(views[0][1])
    if size:
        grid = size if per_block else blocks_for(size, THREADS_PER_BLOCK)
        layout = np.concatenate([v for t in views for v in t[1:]])
        launch(kernel, grid, THREADS_PER_BLOCK, *(t[0] for t in views), layout, *args)


# ------------------------------------------------------- the tensor Functions
def conv_forward_fn(
    ctx: Context,
    shape: Tuple[int, ...],
    input: Tensor,
    weight: Tensor,
    bias: Optional[Tensor],
    stride: Tuple[int, ...],
    padding: Tuple[int, ...],
) -> Tensor:
    """``ConvFun``'s forward on ``CudaBackend``, into a new
    ``out`` of ``shape`` (checked by the caller)."""
    strides, paddings = pair_2d(stride, 1), pair_2d(padding, 0)
    out = input.new_zeros(shape)  # the bias in the kernel
    b, _, b_strides = (np.zeros(1), 0, (0,)) if bias is None else bias.tuple()
    more = (int(b_strides[0]), bias is not None, *strides, *paddings)
    _launch_over(_forward, (out, input, weight), b, *more)
    ctx.save_for_backward(input, weight, bias is not None, strides, paddings)
    return out


def conv_backward_fn(
    ctx: Context, grad: Tensor
) -> Tuple[Optional[Tensor], Optional[Tensor], Optional[Tensor]]:
    input, weight, has_bias, strides, paddings = ctx.saved_values
    needs = ctx.needs_input_grad
    d_input = d_weight = None
    if needs[0]:
        d_input = input.new_zeros(input.shape)
        _launch_over(_backward_input, (d_input, grad, weight), *strides, *paddings)
    if needs[1]:
        d_weight = weight.new_zeros(weight.shape)
        tensors = (d_weight, input, grad)
        _launch_over(_backward_weight, tensors, *strides, *paddings, per_block=True)
    # The bias gradient: g summed over all but dimension 1, as (O,).
    d_bias = grad.sum((0, *range(2, grad.dims))) if has_bias and needs[2] else None
    return d_input, d_weight, d_bias
