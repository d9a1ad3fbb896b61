"""Convolution as im2col + one matrix multiply: the fast path of the conv layers.

Interface: :func:`run` (used by the launchers of ``fast_conv``) and
:func:`recorded_backward` (``ConvFun``'s backward for ``create_graph=True``).

The students' kernels of Tasks 4.1 and 4.2 compute every output as its own dot
product, which is simple and correct but reads each input number ``K*K*out_channels``
times from scattered places: about 1.5 GFLOP/s on the Task 4.5 CNN (issue 29).
CPU libraries do it differently: *im2col* copies every receptive field into one
column of a matrix ``cols`` of shape ``(in_channels * K_h * K_w, N)``, ``N = batch *
out_positions``, so that the whole convolution becomes one matrix product with the
weight viewed as $W$, ``(out_channels, in_channels * K_h * K_w)``:

* forward: $\\text{out} = W \\text{cols}$, ``(out_channels, N)``, then reordered
  to ``(batch, out_channels, *out_spatial)``;
* weight gradient: $dW = G \\text{cols}^\\top$ with $G$ the output gradient as
  ``(out_channels, N)``, ``cols`` built again from the input;
* input gradient: $d\\text{cols} = W^\\top G$, then *col2im* adds every column
  back onto the input positions it was copied from (the transpose of im2col).

The products run in NumPy's BLAS (one thread under ``kindling bench --threads 1``),
which is cache-blocked and vectorised. Measured on the Task 4.5 CNN (one thread,
profile of 10 steps, load average 6-8; ``module3_fast_ops/BENCHMARKS.md``): the
three conv kernels took 3.15 s, 56% of the step; this path 0.72 s. ``cols`` is
built a block of images at a time (:data:`BLOCK`), and a row of it holds one
kernel tap over consecutive output positions, so that im2col copies runs of
consecutive numbers (with ``cols`` the other way round, ``(N, in * K)``, and the
whole batch at once, im2col and col2im took 19 of the CNN step's 41 ms on the
twenty-fourth session's VM; 7 ms after the change, the step 26-35 ms).

A student's kernel stays the definition. For each new signature (operation,
shapes and memory layouts, strides, paddings) the first call runs the student's
kernel *and* this path and compares them; the fast path is used for that
signature only when they agree (within float64 rounding: the sums run in another
order), so a student's bug still shows in their own training, and a stub still
raises. 1-D convolutions run as 2-D ones of height 1.
"""

from __future__ import annotations

from typing import Any, Callable, Tuple

import numpy as np
from numba import njit

from module2_tensors.engine.indexing import AdvancedIndex, EmbedInZeros
from module2_tensors.engine.layout import host_view

from ._conv_checks import Strided, pair_2d
from .engine import agrees, fast_path

#: Per signature: does the fast path agree with the student's kernel there?
PATH = fast_path("conv_gemm", "the conv kernels of fast_conv.py (Tasks 4.1, 4.2)")


def _view(triple: Strided, spatial: int) -> np.ndarray:
    """A 4-D NumPy view ``(batch, channels, height, width)`` of a strided triple
    (1-D: height 1). No copy."""
    view = host_view(*triple)
    return view[:, :, None] if spatial == 1 else view


@njit(cache=True)
def _im2col(x, cols, kh, kw, sh, sw, ph, pw, oh, ow, back):  # type: ignore
    """``cols[(c*kh + ki)*kw + kj, (b*oh + i)*ow + j] = x[b, c, i*sh + ki - ph,
    j*sw + kj - pw]`` for the positions inside ``x`` (``cols`` starts at zero);
    ``back``: its transpose, col2im, adds every entry of ``cols`` onto the input
    position it was copied from (``x`` starts at zero). A row of ``cols`` is one
    tap of the kernel over every output position, so the innermost loop reads
    and writes consecutive numbers (stride 1), with its bounds worked out before
    it instead of a test per number."""
    batch, channels, height, width = x.shape
    for kj in range(kw):
        # the output columns j whose input column j*sw + kj - pw lies in [0, width)
        j_lo = min(ow, max(0, (pw - kj + sw - 1) // sw))
        j_hi = max(j_lo, min(ow, (width - 1 + pw - kj) // sw + 1))
        for c in range(channels):
            for ki in range(kh):
                col = (c * kh + ki) * kw + kj
                for b in range(batch):
                    for i in range(oh):
                        y = i * sh + ki - ph
                        if 0 <= y < height:
                            row = (b * oh + i) * ow
                            for j in range(j_lo, j_hi):
                                if back:
                                    x[b, c, y, j * sw + kj - pw] += cols[col, row + j]
                                else:
                                    cols[col, row + j] = x[b, c, y, j * sw + kj - pw]


#: Numbers in one block of ``cols`` (512 KiB of float64, a quarter of a core's L2
#: here): the batch runs in blocks of whole images, so that each block is built
#: and multiplied while it is in cache. On the Task 4.5 CNN's second conv (one
#: thread, median of 30 calls, idle 2-core Xeon VM): the forward 5.2 -> 3.4 ms
#: and the weight gradient 5.0 -> 3.3 ms against one ``cols`` for the whole
#: batch (14 MiB, written to memory and read back).
BLOCK = 2**16


def _fast(
    name: str,
    spatial: int,
    roles: Tuple[Strided, Strided, Strided],
    strides: Tuple[int, int],
    paddings: Tuple[int, int],
) -> np.ndarray:
    """The result of ``name`` as a new ``(B, C, H, W)`` array; ``roles``: the
    triples of the forward convolution's input, weight and output (``fast_conv``'s
    launcher names them)."""
    # x (batch, in, H, W), w (out, in, K_h, K_w), g (batch, out, oh, ow): the
    # result is g (forward), x (backward_input) or w (backward_weight); the
    # others are read.
    x, w, g = (_view(t, spatial) for t in roles)
    (out_channels, kh, kw), (oh, ow) = (w.shape[0], *w.shape[2:]), g.shape[2:]
    w_matrix = w.reshape(out_channels, -1) if name != "backward_weight" else None
    geometry = (kh, kw, *strides, *paddings, oh, ow)
    value = np.zeros({"forward": g, "backward_input": x}.get(name, w).shape)
    per = max(1, BLOCK // (kh * kw * x.shape[1] * oh * ow))  # images in a block
    # Every block writes the same entries of cols (where the field lies inside
    # the input), so the others stay zero from one block to the next.
    cols = np.zeros((kh * kw * x.shape[1], per * oh * ow))
    for lo in range(0, x.shape[0], per):
        images = slice(lo, lo + per)
        n = len(x[images])
        block = cols[:, : n * oh * ow]  # (in * K, n * positions)
        if name == "forward":  # out = W cols
            _im2col(x[images], block, *geometry, False)
            product = (w_matrix @ block).reshape(out_channels, n, oh, ow)
            value[images] = product.transpose(1, 0, 2, 3)
            continue
        g_block = g[images].transpose(1, 0, 2, 3).reshape(out_channels, -1)
        if name == "backward_input":  # dcols = W^T G, added back by col2im
            _im2col(value[images], w_matrix.T @ g_block, *geometry, True)
        else:  # dW = G cols^T, summed over the blocks
            _im2col(x[images], block, *geometry, False)
            value += (g_block @ block.T).reshape(w.shape)
    return value


def run(
    name: str,
    spatial: int,
    reference: Callable[[], None],
    result: Strided,
    roles: Tuple[Strided, Strided, Strided],
    strides: Tuple[int, ...],
    paddings: Tuple[int, ...],
) -> None:
    """Fill ``result`` with the convolution ``name`` (``forward``,
    ``backward_input``, ``backward_weight``; ``roles``: the triples of its forward
    input, weight and output, one of them ``result``, arguments already checked)
    by im2col + matmul where that agrees with ``reference()`` (the student's
    kernel filling ``result``), else by ``reference()``."""
    s, p = pair_2d(strides, 1), pair_2d(paddings, 0)
    # Shapes *and* strides: a kernel that ignores strides agrees on contiguous
    # inputs only, and must keep running (and failing) on the others.
    key = (name, spatial, s, p) + tuple((t[1].tobytes(), t[2].tobytes()) for t in roles)
    checked: list = []

    def check() -> bool:
        # The first call with this signature: the student's kernel decides, and
        # fills ``result`` itself.
        checked.append(_fast(name, spatial, roles, s, p))
        reference()
        return agrees(_view(result, spatial), checked[0])

    serve = not PATH.checking and PATH.verdict(key, check)
    # (After a check, result holds the reference's values, equal where it serves.)
    if serve and not checked:
        _view(result, spatial)[...] = _fast(name, spatial, roles, s, p)
    elif not checked:
        reference()


def recorded_backward(ctx: Any, grad: Any, inputs: Tuple, out: Any) -> Tuple:
    """The backward of ``ConvFun`` (``apply(input, weight, bias, stride,
    padding)``, which registers it) as recorded tensor operations, for
    ``create_graph=True`` (``module2_tensors/engine/higher_order.py``): the
    im2col product above, written with differentiable steps. ``cols`` picks every
    receptive field of the zero-padded input, shape ``(batch, positions,
    in_channels * K)``; with $G$ as ``(batch, positions, out_channels)``,
    $dW = \\sum_{batch} G^\\top \\text{cols}$, $d\\text{cols} = G W$, added
    back onto the padded input (col2im) and cropped; $db = \\sum G$."""
    x, w, b, stride, padding = inputs
    need_x, need_w, need_b = ctx.needs_input_grad[:3]  # (input, weight, bias)
    spatial = x.dims - 2
    n, cout = x.shape[0], w.shape[0]
    inner = (..., *(slice(p, p + s) for p, s in zip(padding, x.shape[2:])))
    padded = x.shape[:2] + tuple(s + 2 * p for s, p in zip(x.shape[2:], padding))
    taps = np.indices(w.shape[1:]).reshape(1 + spatial, 1, 1, -1)  # (c, *k)
    at = np.indices(out.shape[2:]).reshape(spatial, 1, -1, 1)  # output positions
    corners = at * np.reshape(stride, (spatial, 1, 1, 1))  # (of their fields)
    key = (np.arange(n).reshape(n, 1, 1), taps[0], *(corners + taps[1:]))
    cols = AdvancedIndex.apply(EmbedInZeros.apply(x, padded, inner), key)
    g = grad.reshape(n, cout, -1).permute(0, 2, 1)  # (batch, positions, cout)
    dcols = EmbedInZeros.apply(g @ w.reshape(cout, -1), padded, key) if need_x else None
    grad_x = None if dcols is None else AdvancedIndex.apply(dcols, inner)
    grad_w = (g.mT @ cols).sum(0).reshape(w.shape) if need_w else None
    grad_b = grad.sum((0, *range(2, grad.dims))) if need_b and b is not None else None
    return grad_x, grad_w, grad_b
