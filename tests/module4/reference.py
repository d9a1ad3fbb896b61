"""Independent NumPy references and checking helpers for the Module 4 tests.

Nothing here calls the library: these are the oracles. Convolutions are written
from their definition (pad with zeros, slide the window, take a dot product);
gradients come from central differences of the reference, entry by entry.
"""

from __future__ import annotations

from typing import Callable, Sequence, Tuple

import numpy as np


def conv1d_ref(
    x: np.ndarray, w: np.ndarray, stride: int = 1, padding: int = 0
) -> np.ndarray:
    """out[b, o, t] = sum_{c, k} xpad[b, c, t*stride + k] * w[o, c, k]."""
    _, _, width = x.shape
    kernel = w.shape[2]
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding)))
    out_width = (width + 2 * padding - kernel) // stride + 1
    out = np.empty((x.shape[0], w.shape[0], out_width))
    for t in range(out_width):
        window = xp[:, :, t * stride : t * stride + kernel]
        out[:, :, t] = np.einsum("bck,ock->bo", window, w)
    return out


def conv2d_ref(
    x: np.ndarray,
    w: np.ndarray,
    stride: Tuple[int, int] = (1, 1),
    padding: Tuple[int, int] = (0, 0),
) -> np.ndarray:
    """out[b, o, i, j] = sum xpad[b, c, i*sh + ki, j*sw + kj] * w[o, c, ki, kj]."""
    (sh, sw), (ph, pw) = stride, padding
    _, _, height, width = x.shape
    kh, kw = w.shape[2:]
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    oh = (height + 2 * ph - kh) // sh + 1
    ow = (width + 2 * pw - kw) // sw + 1
    out = np.empty((x.shape[0], w.shape[0], oh, ow))
    for i in range(oh):
        for j in range(ow):
            window = xp[:, :, i * sh : i * sh + kh, j * sw : j * sw + kw]
            out[:, :, i, j] = np.einsum("bcyx,ocyx->bo", window, w)
    return out


def numeric_grad(
    f: Callable[..., np.ndarray],
    args: Sequence[np.ndarray],
    g: np.ndarray,
    which: int,
    eps: float = 1e-6,
) -> np.ndarray:
    """d/d args[which] of sum(f(*args) * g), by central differences on every entry."""
    args = [np.array(a, dtype=np.float64) for a in args]
    target = args[which]
    grad = np.zeros_like(target)
    for idx in np.ndindex(target.shape):
        original = target[idx]
        target[idx] = original + eps
        up = float(np.sum(f(*args) * g))
        target[idx] = original - eps
        down = float(np.sum(f(*args) * g))
        target[idx] = original
        grad[idx] = (up - down) / (2 * eps)
    return grad


def strided(a: np.ndarray, order: Sequence[int] | None = None):
    """``a`` as raw ``(storage, shape, strides)``, stored in a permuted layout.

    With ``order`` the storage holds ``a.transpose(order)`` contiguously, so the
    triple describes ``a`` through non-contiguous strides (a kernel must honour
    them). Strides are in elements.
    """
    a = np.asarray(a, dtype=np.float64)
    if order is None:
        order = range(a.ndim)
    order = list(order)
    base = np.ascontiguousarray(a.transpose(order))
    inverse = np.argsort(order)
    view = base.transpose(inverse)
    assert np.shares_memory(view, base) and np.array_equal(view, a)
    return (
        base.ravel(),
        np.array(view.shape, dtype=np.int64),
        np.array(view.strides, dtype=np.int64) // 8,
    )


def empty_strided(shape: Sequence[int], order: Sequence[int] | None = None):
    """A zero array of ``shape`` as a strided triple, and a function reading it
    back as an ndarray of ``shape``."""
    triple = strided(np.zeros(shape), order)
    storage, shape_arr, strides_arr = triple

    def read() -> np.ndarray:
        return np.lib.stride_tricks.as_strided(
            storage, shape=tuple(shape_arr), strides=tuple(8 * strides_arr)
        ).copy()

    return triple, read


def conv2d_grads_ref(
    x: np.ndarray,
    w: np.ndarray,
    g: np.ndarray,
    stride: Tuple[int, int] = (1, 1),
    padding: Tuple[int, int] = (0, 0),
) -> Tuple[np.ndarray, np.ndarray]:
    """The input and weight gradients of ``sum(conv2d_ref(x, w) * g)``, written from
    the forward's definition: each output entry ``(i, j)`` read the window
    ``xpad[:, :, i*sh : i*sh + kh, j*sw : j*sw + kw]`` through ``w``, so

    dw[o, c, ki, kj] = sum_{b, i, j} xpad[b, c, i*sh + ki, j*sw + kj] g[b, o, i, j]

    and ``g[b, o, i, j] * w[o]`` is added back into that window of ``dxpad``
    (``dx`` is ``dxpad`` without its padding). Shapes: x ``(B, C, H, W)``, w
    ``(O, C, kh, kw)``, g ``(B, O, oh, ow)``. Fast enough for large batches,
    where central differences are not."""
    (sh, sw), (ph, pw) = stride, padding
    _, _, height, width = x.shape
    kh, kw = w.shape[2:]
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w, dtype=np.float64)
    for i in range(g.shape[2]):
        for j in range(g.shape[3]):
            rows = slice(i * sh, i * sh + kh)
            cols = slice(j * sw, j * sw + kw)
            dw += np.einsum("bcyx,bo->ocyx", xp[:, :, rows, cols], g[:, :, i, j])
            dxp[:, :, rows, cols] += np.einsum("bo,ocyx->bcyx", g[:, :, i, j], w)
    return dxp[:, :, ph : ph + height, pw : pw + width], dw


# ------------------------------------------------------------------ optimizers
# Each returns the parameter after each step, from its update equations (PyTorch's
# documented ones) applied to the gradient sequence ``grads``.
def sgd_ref(
    p, grads, lr, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False
):
    out, buf = [], None
    for g in grads:
        g = g + weight_decay * p
        if momentum:
            buf = g.copy() if buf is None else momentum * buf + (1 - dampening) * g
            g = g + momentum * buf if nesterov else buf
        p = p - lr * g
        out.append(p)
    return out


def rmsprop_ref(
    p, grads, lr, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0, centered=False
):
    out = []
    v, gbar, buf = np.zeros_like(p), np.zeros_like(p), np.zeros_like(p)
    for g in grads:
        g = g + weight_decay * p
        v = alpha * v + (1 - alpha) * g * g
        if centered:
            gbar = alpha * gbar + (1 - alpha) * g
            denom = np.sqrt(v - gbar * gbar) + eps
        else:
            denom = np.sqrt(v) + eps
        if momentum:
            buf = momentum * buf + g / denom
            p = p - lr * buf
        else:
            p = p - lr * g / denom
        out.append(p)
    return out


def adam_ref(
    p, grads, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, decoupled=False
):
    out = []
    m, v = np.zeros_like(p), np.zeros_like(p)
    b1, b2 = betas
    for t, g in enumerate(grads, start=1):
        if decoupled:
            p = p * (1 - lr * weight_decay)
        else:
            g = g + weight_decay * p
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        m_hat, v_hat = m / (1 - b1**t), v / (1 - b2**t)
        p = p - lr * m_hat / (np.sqrt(v_hat) + eps)
        out.append(p)
    return out
