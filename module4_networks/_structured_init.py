"""More of ``torch.nn.init`` (private: the facade ``init/__init__.py`` exports
them beside the initialisers of ``weight_init.py``; given code):
``trunc_normal_``, ``orthogonal_``, ``eye_`` and ``dirac_``, with PyTorch's
signatures. As the other initialisers they fill in place without recording
gradients, draw their numbers from ``randn`` (so ``manual_seed`` and
``generator=`` work) and return their argument."""

from __future__ import annotations

from typing import Any

import numpy as np

from module2_tensors.tensor import randn

from .weight_init import Generator, _fill, _tensor_of

__all__ = ["trunc_normal_", "orthogonal_", "eye_", "dirac_"]


def trunc_normal_(
    x: Any,
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
    generator: Generator = None,
) -> Any:
    """Fill with $N(\\text{mean}, \\text{std}^2)$ conditioned on $[a, b]$
    (``a`` and ``b`` are absolute bounds, as PyTorch's): draws outside are
    drawn again until every entry falls inside."""
    t = _tensor_of(x)
    out = np.full(t.shape, np.nan)  # (nan: no draw in [a, b] there yet)
    while np.isnan(out).any():
        draws = randn(*t.shape, generator=generator).to_numpy() * std + mean
        out = np.where(np.isnan(out) & (draws >= a) & (draws <= b), draws, out)
    return _fill(x, out)


def orthogonal_(x: Any, gain: float = 1.0, generator: Generator = None) -> Any:
    """Fill with a (semi-)orthogonal matrix times ``gain``: the tensor read as
    ``(rows, numel / rows)`` has orthonormal rows when it is wide and
    orthonormal columns when it is tall ($Q$ of the QR factorisation of a
    Gaussian matrix, signs fixed by $R$'s diagonal so it is uniformly
    distributed, as PyTorch's)."""
    t = _tensor_of(x)
    if t.dims < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    rows = t.shape[0]
    cols = t.size // rows if rows else 0
    flat = randn(rows, cols, generator=generator).to_numpy()
    wide = rows < cols
    q, r = np.linalg.qr(flat.T if wide else flat)
    q = q * np.sign(np.diag(r))
    return _fill(x, gain * (q.T if wide else q).reshape(t.shape))


def eye_(x: Any) -> Any:
    """Fill a 2-D tensor with the identity (ones on the main diagonal)."""
    t = _tensor_of(x)
    if t.dims != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _fill(x, np.eye(*t.shape))


def dirac_(x: Any, groups: int = 1) -> Any:
    """Fill a 3-, 4- or 5-D convolution weight ``(out, in, *kernel)`` with the
    Dirac delta: in each of ``groups`` groups, output channel ``d`` copies
    input channel ``d`` at the kernel's centre, so the convolution preserves
    as many channels as it can."""
    t = _tensor_of(x)
    if t.dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    if t.shape[0] % groups:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = t.shape[0] // groups
    values = np.zeros((groups, per_group, *t.shape[1:]))  # (group, d, in, *kernel)
    d = np.arange(min(per_group, t.shape[1]))  # (output d of every group)
    values[(slice(None), d, d, *(k // 2 for k in t.shape[2:]))] = 1.0  # (centre)
    return _fill(x, values.reshape(t.shape))
