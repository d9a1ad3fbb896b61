"""The numeric policy of tensors: IEEE scalar functions (given code).

Tensor operations follow IEEE arithmetic and PyTorch: they give inf, -inf and nan,
never an exception or a warning, identically on every backend. Module 0's
operators work on Python floats and raise on math domain errors (``log(0)``,
``inv(0)``, ``exp(1000)``), which is right for a scalar calculator and wrong for a
tensor library: one bad entry would stop a whole batch, and Numba cannot raise
from a parallel loop anyway. So the backends use the versions below wherever IEEE
and Module 0 differ; ``set_detect_anomaly`` (Module 2's autograd) turns a nan or
inf into an error for those who want one.

They are plain arithmetic with no exceptions and no calls to each other, so
Module 3 compiles them with Numba like the operators (Numba's default error model
would raise on a division by zero: every division here is guarded).
"""

from __future__ import annotations

import math

#: The largest x with a finite e**x in float64 (math.exp raises past it).
EXP_MAX = 709.782712893384


def exp(x: float) -> float:
    """$e^x$; $+\\infty$ past :data:`EXP_MAX` (``math.exp`` would raise)."""
    return math.exp(x) if x <= EXP_MAX else (math.inf if x == x else x)


def log(x: float) -> float:
    """$\\ln x$; $-\\infty$ at $0$, NaN for $x < 0$ (as PyTorch)."""
    return math.log(x) if x > 0.0 else -math.inf if x == 0.0 else math.nan


def inv(x: float) -> float:
    """$1 / x$; $\\pm\\infty$ at $\\pm 0$."""
    return 1.0 / x if x != 0.0 else math.copysign(math.inf, x)


def sin(x: float) -> float:
    """$\\sin x$; NaN at $\\pm\\infty$ (``math.sin`` would raise)."""
    return math.nan if math.isinf(x) else math.sin(x)


def cos(x: float) -> float:
    """$\\cos x$; NaN at $\\pm\\infty$."""
    return math.nan if math.isinf(x) else math.cos(x)


def relu(x: float) -> float:
    """$\\max(x, 0)$ that keeps NaN: $\\mathrm{relu}(\\mathrm{nan}) =
    \\mathrm{nan}$, as PyTorch (``x if x > 0 else 0`` would give 0)."""
    return 0.0 if x <= 0.0 else x


def maximum(x: float, y: float) -> float:
    """The larger argument, NaN if either is NaN (``torch.maximum``), so a ``max``
    reduction propagates a NaN wherever it is in the row."""
    return x if x != x or x > y else y


def log_back(x: float, d: float) -> float:
    """Backward of :func:`log`: $d / x$ in IEEE arithmetic: $\\pm\\infty$ for
    $d \\ne 0$ over $\\pm 0$ (the sign of $d / x$), NaN for $0 / 0$ and NaN
    inputs."""
    if x != 0.0:
        return d / x
    if d != d or d == 0.0:
        return math.nan
    return math.copysign(math.inf, d) * math.copysign(1.0, x)


def inv_back(x: float, d: float) -> float:
    """Backward of :func:`inv`: $-d / x^2$ (IEEE, as :func:`log_back`)."""
    square = x * x
    if square != 0.0:
        return -d / square
    return math.nan if d != d or d == 0.0 else math.copysign(math.inf, -d)


def sqrt(x: float) -> float:
    """$\\sqrt{x}$; NaN for $x < 0$ (as PyTorch), instead of Python's error."""
    return math.sqrt(x) if x >= 0.0 else math.nan


def power(x: float, p: float) -> float:
    """$x^p$ as a real number, as PyTorch: NaN for $x < 0$ with a non-integer
    $p$; $\\pm\\infty$ for $0^p$ with $p < 0$ and on overflow, where Python would
    return a complex number or raise."""
    if p == 0.5:  # as PyTorch (and NumPy): sqrt(-0.0) = -0.0, sqrt(-inf) = nan
        return math.sqrt(x) if x >= 0.0 else math.nan
    # (%, not math.floor: floor raises at inf, and Numba's returns an int64.)
    integer = p == p and not math.isinf(p) and p % 1.0 == 0.0
    odd = integer and p % 2.0 == 1.0
    finite_x = not math.isinf(x)
    if x < 0.0 and finite_x and not integer and not math.isinf(p):  # (p NaN: x**p)
        return math.nan
    if x == 0.0 and p < 0.0:
        return math.copysign(math.inf, x) if odd else math.inf
    if x != 0.0 and finite_x:
        # |x^p| = e^t: Python's ** raises where it overflows.
        t = p * math.log(abs(x))
        if t > 2.0 * EXP_MAX - 2.0:
            return -math.inf if x < 0.0 and odd else math.inf
        if t > EXP_MAX - 1.0:
            # Near overflow: |x|^(p/2) is finite, and a float product gives inf
            # instead of raising.
            half = abs(x) ** (0.5 * p)
            return -(half * half) if x < 0.0 and odd else half * half
    return x**p


def select(condition: float, x: float) -> float:
    """$x$ where ``condition`` is non-zero, else $0$ (never $0 \\cdot x$, so an
    infinite or NaN $x$ that is not selected does not leak out). The building
    block of ``where``."""
    return x if condition != 0.0 else 0.0
