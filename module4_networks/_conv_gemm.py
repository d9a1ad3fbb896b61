"""Convolution as im2col + one matrix multiply: the fast path of the conv layers.

Interface: :func:`run` (used by the launchers of ``fast_conv``) and
:func:`recorded_backward` (``ConvFun``'s backward for ``create_graph=True``).

The students' kernels of Tasks 4.1 and 4.2 compute every output as its own dot
product, which is simple and correct but reads each input number ``K*K*out_channels``
times from scattered places: about 1.5 GFLOP/s on the Task 4.5 CNN (issue 29).
CPU libraries do it differently: *im2col* copies every receptive field into one row
of a matrix ``cols`` of shape ``(batch * out_positions, in_channels * K_h * K_w)``,
so that the whole convolution becomes one matrix product with the weight viewed as
``(out_channels, in_channels * K_h * K_w)``:

* forward: $\\text{out} = \\text{cols}\\, W^\\top$, ``(N, out_channels)``,
  then reordered to ``(batch, out_channels, *out_spatial)``;
* weight gradient: $dW = G^\\top \\text{cols}$ with $G$ the output gradient as
  ``(N, out_channels)``, ``cols`` built again from the input;
* input gradient: $d\\text{cols} = G W$, then *col2im* adds every row back onto the
  input positions it was copied from (the transpose of im2col).

The products run in NumPy's BLAS (one thread under ``kindling bench --threads 1``),
which is cache-blocked and vectorised. Measured on the Task 4.5 CNN (one thread,
profile of 10 steps, load average 6-8; ``module3_fast_ops/BENCHMARKS.md``): the
three conv kernels took 3.15 s, 56% of the step; this path 0.72 s.

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

from ._conv_checks import Strided, pair_2d
from .engine import agrees, fast_path, host_array

__all__ = ["run", "recorded_backward"]

#: Per signature: does the fast path agree with the student's kernel there?
PATH = fast_path("conv_gemm", "the conv kernels of fast_conv.py (Tasks 4.1, 4.2)")


def _view(triple: Strided, spatial: int) -> np.ndarray:
    """A 4-D NumPy view ``(batch, channels, height, width)`` of a strided triple
    (1-D: height 1). No copy."""
    view = host_array(triple)
    return view[:, :, None] if spatial == 1 else view


@njit(cache=True)
def _im2col(x, cols, kh, kw, sh, sw, ph, pw, oh, ow, back):  # type: ignore
    """``cols[(b*oh + i)*ow + j, (c*kh + ki)*kw + kj] = x[b, c, i*sh + ki - ph,
    j*sw + kj - pw]`` for the positions inside ``x`` (``cols`` starts at zero);
    ``back``: its transpose, col2im, adds every entry of ``cols`` onto the input
    position it was copied from (``x`` starts at zero)."""
    batch, channels, height, width = x.shape
    for b in range(batch):
        for i in range(oh):
            for j in range(ow):
                row = (b * oh + i) * ow + j
                for c in range(channels):
                    for ki in range(kh):
                        y = i * sh + ki - ph
                        for kj in range(kw):
                            xx = j * sw + kj - pw
                            if 0 <= y < height and 0 <= xx < width:
                                col = (c * kh + ki) * kw + kj
                                if back:
                                    x[b, c, y, xx] += cols[row, col]
                                else:
                                    cols[row, col] = x[b, c, y, xx]


def _im2col_of(x: np.ndarray, w_shape: tuple, strides: tuple, paddings: tuple, out_hw):
    (kh, kw), (oh, ow) = w_shape[2:], out_hw
    cols = np.zeros((x.shape[0] * oh * ow, x.shape[1] * kh * kw))
    _im2col(x, cols, kh, kw, *strides, *paddings, oh, ow, False)
    return cols


def _fast(
    name: str,
    spatial: int,
    result: Strided,
    first: Strided,
    second: Strided,
    strides: Tuple[int, int],
    paddings: Tuple[int, int],
) -> np.ndarray:
    """The result of ``name`` as a new ``(B, C, H, W)`` array."""
    r, a, b = (_view(t, spatial) for t in (result, first, second))
    if name == "forward":  # result = out, first = x, second = w
        out_channels, oh, ow = r.shape[1], r.shape[2], r.shape[3]
        cols = _im2col_of(a, b.shape, strides, paddings, (oh, ow))
        w_matrix = b.reshape(out_channels, -1)  # copies only if w is strided
        product = cols @ w_matrix.T  # (N, out_channels)
        return product.reshape(r.shape[0], oh, ow, out_channels).transpose(0, 3, 1, 2)
    if name == "backward_weight":  # result = dw, first = x, second = g
        out_channels, oh, ow = b.shape[1], b.shape[2], b.shape[3]
        cols = _im2col_of(a, r.shape, strides, paddings, (oh, ow))
        g_matrix = b.transpose(0, 2, 3, 1).reshape(-1, out_channels)
        return (g_matrix.T @ cols).reshape(r.shape)
    # backward_input: result = dx, first = g, second = w
    out_channels, oh, ow = a.shape[1], a.shape[2], a.shape[3]
    g_matrix = a.transpose(0, 2, 3, 1).reshape(-1, out_channels)
    dcols = g_matrix @ b.reshape(out_channels, -1)
    dx = np.zeros(r.shape)
    _im2col(dx, dcols, b.shape[2], b.shape[3], *strides, *paddings, oh, ow, True)
    return dx


def run(
    name: str,
    spatial: int,
    reference: Callable[[], None],
    result: Strided,
    first: Strided,
    second: Strided,
    strides: Tuple[int, ...],
    paddings: Tuple[int, ...],
) -> None:
    """Fill ``result`` with the convolution ``name`` (``forward``,
    ``backward_input``, ``backward_weight``; the triples in the order of
    ``fast_conv``'s launchers, arguments already checked) by im2col + matmul where
    that agrees with ``reference()`` (the student's kernel filling ``result``),
    else by ``reference()``."""
    s, p = pair_2d(strides, 1), pair_2d(paddings, 0)
    # Shapes *and* strides: a kernel that ignores strides agrees on contiguous
    # inputs only, and must keep running (and failing) on the others.
    key = (name, spatial, s, p) + tuple(
        (t[1].tobytes(), t[2].tobytes()) for t in (result, first, second)
    )
    checked: list = []

    def check() -> bool:
        # The first call with this signature: the student's kernel decides, and
        # fills ``result`` itself.
        checked.append(_fast(name, spatial, result, first, second, s, p))
        reference()
        return agrees(_view(result, spatial), checked[0])

    serve = not PATH.checking and PATH.verdict(key, check)
    # (After a check, result holds the reference's values, equal where it serves.)
    if serve and not checked:
        _view(result, spatial)[...] = _fast(name, spatial, result, first, second, s, p)
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
    need_x, need_w, need_b = ctx.needs_input_grad[:3] or (True, True, True)
    spatial = x.dims - 2
    n, cout = x.shape[0], w.shape[0]
    inner = (slice(None),) * 2 + tuple(
        slice(p, p + s) for p, s in zip(padding, x.shape[2:])
    )
    padded = x.shape[:2] + tuple(s + 2 * p for s, p in zip(x.shape[2:], padding))
    taps = np.indices(w.shape[1:]).reshape(1 + spatial, 1, 1, -1)  # (c, *k)
    at = np.indices(out.shape[2:]).reshape(spatial, 1, -1, 1)  # output positions
    key = (np.arange(n).reshape(n, 1, 1), taps[0]) + tuple(
        at[d] * stride[d] + taps[1 + d] for d in range(spatial)
    )
    cols = AdvancedIndex.apply(EmbedInZeros.apply(x, padded, inner), key)
    g = grad.reshape(n, cout, -1).permute(0, 2, 1)  # (batch, positions, cout)
    wm = w.reshape(cout, -1)
    grad_x = grad_w = grad_b = None
    if need_x:
        grad_x = AdvancedIndex.apply(EmbedInZeros.apply(g @ wm, padded, key), inner)
    if need_w:
        grad_w = (g.mT @ cols).sum(0).reshape(w.shape)
    if need_b and b is not None:
        grad_b = grad.sum((0,) + tuple(range(2, grad.dims)))
    return grad_x, grad_w, grad_b
