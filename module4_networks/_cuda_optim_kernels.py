"""The GPU kernels of the fused optimizer steps (``_fused_optim``): one thread per
entry of a parameter, the update of Task 4.6's formulas with the same
floating-point operations in the same order.

Interface: ``sgd`` and ``adam`` (the ``@cuda.jit`` kernels, launched with blocks of
``THREADS_PER_BLOCK`` threads) and :data:`KERNEL_SPECS` (``kindling kernels --task
optim`` and the resource test). Importing this module imports ``numba.cuda``, so
``_fused_optim`` imports it only for a parameter on a CUDA backend.
"""

from __future__ import annotations

import math

import numba

from module3_fast_ops._cuda_runtime import cuda
from module3_fast_ops._cuda_specs import given_kernels
from module3_fast_ops.cuda_ops import THREADS_PER_BLOCK
from module3_fast_ops.cuda_positions import two_positions


# ------------------------------------------------------------------ kernels
@cuda.jit
def sgd(p, g, buf, packed, same, size, lr, wd, momentum, dampening, nesterov, first):
    """Entry ``i`` (row-major) of SGD in place: ``g += wd p``; ``buf = g`` (first
    step) or ``momentum buf + (1 - dampening) g``; ``g = g + momentum buf``
    (Nesterov) or ``buf``; ``p -= lr g``. ``buf`` (row-major, unused without
    momentum) is this module's own; ``p`` and ``g`` are read through their strides
    (``packed``: the ``layout`` of ``p`` and ``g``, as ``two_positions`` reads it;
    position ``i`` in both when ``same``, both row-major). A parameter and its
    gradient may have different layouts: a weight's gradient from a matmul's
    backward is a transposed view."""
    i = cuda.grid(1)
    if i < size:
        p_at, g_at = (i, i) if same else two_positions(i, packed)
        gi = g[g_at]
        if wd != 0.0:
            gi = gi + wd * p[p_at]
        if momentum != 0.0:
            buf[i] = b = gi if first else momentum * buf[i] + (1.0 - dampening) * gi
            gi = gi + momentum * b if nesterov else b
        p[p_at] = p[p_at] - lr * gi


@cuda.jit
def adam(p, g, m, v, packed, same, size, lr, beta1, beta2, eps, wd, decay, inv1, inv2):
    """Entry ``i`` (row-major) of Adam/AdamW in place. ``wd``: Adam's L2 term
    (``g += wd p``); ``decay``: AdamW's factor ``1 - lr wd`` on ``p`` (1.0 for
    Adam, which leaves ``p`` exact: the two are never both in use);
    ``inv1 = 1 / (1 - beta1^t)``, ``inv2 = 1 / (1 - beta2^t)``; then
    ``m = beta1 m + (1 - beta1) g``, ``v = beta2 v + (1 - beta2) g^2``, ``p -= lr
    (m inv1) / (sqrt(v inv2) + eps)``. ``m`` and ``v`` are row-major; ``p`` and
    ``g`` as in :func:`sgd`."""
    i = cuda.grid(1)
    if i < size:
        p_at, g_at = (i, i) if same else two_positions(i, packed)
        pi = p[p_at] * decay
        gi = g[g_at]
        if wd != 0.0:
            gi = gi + wd * pi
        m[i] = mi = beta1 * m[i] + (1.0 - beta1) * gi
        v[i] = vi = beta2 * v[i] + (1.0 - beta2) * gi * gi
        denom = math.sqrt(vi * inv2) + eps
        p[p_at] = pi - lr * (mi * inv1) * (1.0 / denom)


# ------------------------------------------------------------ resource check
_f64, _x, _flag = numba.float64[::1], numba.float64, numba.boolean
_packed = (numba.int64[::1], _flag, numba.int64)  # the layout of p and g, same, size
#: The two kernels with their argument types and block size, for ``kindling
#: kernels`` and the resource test (on a GPU, kept on disk for the next processes).
_KERNELS = {
    "sgd_step": (sgd, (_f64, _f64, _f64, *_packed, _x, _x, _x, _x, _flag, _flag)),
    "adam_step": (adam, (_f64, _f64, _f64, _f64, *_packed) + (_x,) * 8),
}
KERNEL_SPECS = given_kernels("optim", THREADS_PER_BLOCK, _KERNELS)
