"""``torch.nn.functional.unfold`` (im2col; private: the facade ``nn.functional``
exports it; no task asks a student to read it). It imports Module 2 and
``_conv_checks``'s ``pair``."""

from __future__ import annotations

from typing import Any

import numpy as np

from module2_tensors import indexing_functions as ixf
from module2_tensors import shape_functions as sf
from module2_tensors.tensor import Tensor

from ._conv_checks import pair


def unfold(
    input: Tensor,
    kernel_size: Any,
    dilation: Any = 1,
    padding: Any = 0,
    stride: Any = 1,
) -> Tensor:
    """The sliding ``kernel_size`` windows of a ``(N, C, H, W)`` input (or
    ``(C, H, W)``) as columns, as ``torch.nn.functional.unfold``: the result
    is ``(N, C * kh * kw, L)`` with $L = o_h o_w$ windows, row $c k_h k_w + i
    k_w + j$ holding $x[c, s_h r + d_h i - p_h, s_w q + d_w j - p_w]$ for
    window $(r, q)$ (zero outside), where $o = \\lfloor (n + 2p - d(k - 1) -
    1) / s \\rfloor + 1$. ``conv2d`` is ``weight.view(out, -1) @ unfold(x)``.
    Differentiable: one ``index_select`` of the padded, flattened input (an
    entry read by several windows gets the sum of their gradients).

    Raises:
        ValueError: not 3-D or 4-D, a bad size, or no whole window fits.
    """
    if input.dims not in (3, 4):
        raise ValueError(f"unfold expects a 3-D or 4-D input, got shape {input.shape}")
    (kh, kw), (dh, dw) = pair(kernel_size, "kernel_size"), pair(dilation, "dilation")
    (ph, pw), (sh, sw) = pair(padding, "padding"), pair(stride, "stride")
    *batch, c, h, w = input.shape  # (batch: [N], or [] for a 3-D input)
    h, w = h + 2 * ph, w + 2 * pw
    # (a stride below 1 divides by 1 here, and the check below names it)
    oh = (h - dh * (kh - 1) - 1) // max(sh, 1) + 1
    ow = (w - dw * (kw - 1) - 1) // max(sw, 1) + 1
    if min(kh, kw, dh, dw, sh, sw) < 1 or min(ph, pw) < 0 or min(oh, ow) < 1:
        raise ValueError(
            f"unfold: no window of kernel {(kh, kw)} (dilation {(dh, dw)}, stride "
            f"{(sh, sw)}, padding {(ph, pw)}) fits the padded {(h, w)} input"
        )
    # Position in the padded, flattened image of kernel entry (i, j), window (r, q).
    rows = np.arange(kh)[:, None, None, None] * dh + np.arange(oh)[:, None] * sh
    cols = np.arange(kw)[:, None, None] * dw + np.arange(ow) * sw  # (j, r, q)
    padded = sf.pad(input, (pw, pw, ph, ph)).contiguous().view(*batch, c, h * w)
    # (i, j, r, q), row-major
    picked = ixf.index_select(padded, -1, (rows * w + cols).reshape(-1).tolist())
    return picked.view(*batch, c * kh * kw, oh * ow)
