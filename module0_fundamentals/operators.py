"""Scalar operators (Task 0.1) and higher-order functions (Task 0.3).

Everything the later modules compute is built from these few functions of plain Python
floats: a ``Scalar`` (Module 1) calls them in its forward and backward passes, and a
``Tensor`` (Module 2) applies them to every entry with ``map``, ``zip`` and ``reduce``.

Only the ``math`` module is used: no NumPy here.
"""

from __future__ import annotations

import math  # noqa: F401 (only your solutions use it)
from collections.abc import Callable, Iterable

# ---------------------------------------------------------------------------
# Task 0.1: scalar operators
# ---------------------------------------------------------------------------

#: Absolute tolerance of :func:`is_close`.
CLOSE_TOLERANCE = 1e-2


def _domain_error(name: str, x: float, requirement: str) -> ValueError:
    """The error an operator raises for input outside its domain.

    ``_domain_error("log", -1.0, "x > 0")`` gives
    ``ValueError("log: expected x > 0, got -1.0")``: it names the operator and the value
    so that a failing computation deep inside a network says where it went wrong.
    """
    return ValueError(f"{name}: expected {requirement}, got {x!r}")


def mul(x: float, y: float) -> float:
    """Multiply: $f(x, y) = x y$."""
    # BEGIN SOLUTION 0.1
    return x * y
    # END SOLUTION


def id(x: float) -> float:
    """The identity: $f(x) = x$."""
    # BEGIN SOLUTION 0.1
    return x
    # END SOLUTION


def add(x: float, y: float) -> float:
    """Add: $f(x, y) = x + y$."""
    # BEGIN SOLUTION 0.1
    return x + y
    # END SOLUTION


def neg(x: float) -> float:
    """Negate: $f(x) = -x$."""
    # BEGIN SOLUTION 0.1
    return -x
    # END SOLUTION


def lt(x: float, y: float) -> float:
    """Less than, as a float: $f(x, y) = 1$ if $x < y$ else $0$.

    Returns the floats ``1.0`` and ``0.0`` (not ``True``/``False``), so that a
    comparison is a number like every other operator's result.
    """
    # BEGIN SOLUTION 0.1
    return 1.0 if x < y else 0.0
    # END SOLUTION


def eq(x: float, y: float) -> float:
    """Equality, as a float: $f(x, y) = 1$ if $x = y$ else $0$.

    Exact equality (compare :func:`is_close`); returns ``1.0`` or ``0.0``.
    """
    # BEGIN SOLUTION 0.1
    return 1.0 if x == y else 0.0
    # END SOLUTION


def max(x: float, y: float) -> float:
    """The larger argument: $f(x, y) = x$ if $x > y$ else $y$."""
    # BEGIN SOLUTION 0.1
    return x if x > y else y
    # END SOLUTION


def is_close(x: float, y: float) -> bool:
    """Whether two numbers are close: $|x - y| < 10^{-2}$.

    An *absolute* tolerance of ``CLOSE_TOLERANCE = 1e-2``: good enough to compare
    hand-computed values in the exercises, too coarse for numerical analysis.
    Returns a ``bool``.
    """
    # BEGIN SOLUTION 0.1
    return abs(x - y) < CLOSE_TOLERANCE
    # END SOLUTION


def sigmoid(x: float) -> float:
    r"""The logistic sigmoid: $\sigma(x) = \frac{1}{1 + e^{-x}}$.

    Numerically stable for every finite ``x``. The formula above overflows for large
    negative ``x`` (``math.exp(1000)`` raises ``OverflowError``), so compute it in two
    branches that only ever exponentiate a number $\le 0$:

    - for $x \ge 0$: $\sigma(x) = \frac{1}{1 + e^{-x}}$;
    - for $x < 0$: $\sigma(x) = \frac{e^{x}}{1 + e^{x}}$ (multiply the top and the
      bottom by $e^{x}$).
    """
    # BEGIN SOLUTION 0.1: sigmoid, stable for large |x| (two branches)
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)
    # END SOLUTION


def relu(x: float) -> float:
    r"""The rectified linear unit: $\mathrm{relu}(x) = x$ if $x > 0$ else $0$."""
    # BEGIN SOLUTION 0.1
    return x if x > 0.0 else 0.0
    # END SOLUTION


def log(x: float) -> float:
    r"""The natural logarithm: $f(x) = \ln x$, defined for $x > 0$.

    Raises:
        ValueError: for $x \le 0$, naming the operator and the value:
            ``raise _domain_error("log", x, "x > 0")``.
    """
    # BEGIN SOLUTION 0.1: log, with a ValueError for x <= 0
    if x <= 0.0:
        raise _domain_error("log", x, "x > 0")
    return math.log(x)
    # END SOLUTION


def exp(x: float) -> float:
    """The exponential: $f(x) = e^x$ (``math.exp``; overflows past $x \\approx 709$)."""
    # BEGIN SOLUTION 0.1
    return math.exp(x)
    # END SOLUTION


def inv(x: float) -> float:
    r"""The reciprocal: $f(x) = \frac{1}{x}$, defined for $x \ne 0$.

    Raises:
        ValueError: for $x = 0$: ``raise _domain_error("inv", x, "x != 0")``.
    """
    # BEGIN SOLUTION 0.1: inv, with a ValueError for x == 0
    if x == 0.0:
        raise _domain_error("inv", x, "x != 0")
    return 1.0 / x
    # END SOLUTION


def sin(x: float) -> float:
    r"""The sine: $f(x) = \sin x$ (radians)."""
    # BEGIN SOLUTION 0.1
    return math.sin(x)
    # END SOLUTION


def cos(x: float) -> float:
    r"""The cosine: $f(x) = \cos x$ (radians)."""
    # BEGIN SOLUTION 0.1
    return math.cos(x)
    # END SOLUTION


def tanh(x: float) -> float:
    r"""The hyperbolic tangent: $f(x) = \frac{e^{x} - e^{-x}}{e^{x} + e^{-x}}$.

    ``math.tanh`` is fine: it is stable for large $|x|$, the formula is not.
    """
    # BEGIN SOLUTION 0.1
    return math.tanh(x)
    # END SOLUTION


# The "backs" below are the backward steps of the chain rule that Module 1 needs: each
# takes the input x of the forward and the derivative d of the final output with
# respect to f(x), and returns the derivative with respect to x, $d \cdot f'(x)$.


def log_back(x: float, d: float) -> float:
    r"""Backward of :func:`log`: $d \cdot \frac{d}{dx} \ln x = \frac{d}{x}$.

    Raises:
        ValueError: for $x \le 0$ (outside the domain of ``log``):
            ``raise _domain_error("log_back", x, "x > 0")``.
    """
    # BEGIN SOLUTION 0.1: log_back, with a ValueError for x <= 0
    if x <= 0.0:
        raise _domain_error("log_back", x, "x > 0")
    return d / x
    # END SOLUTION


def inv_back(x: float, d: float) -> float:
    r"""Backward of :func:`inv`: $d \cdot \frac{d}{dx} \frac{1}{x} = -\frac{d}{x^2}$.

    Raises:
        ValueError: for $x = 0$: ``raise _domain_error("inv_back", x, "x != 0")``.
    """
    # BEGIN SOLUTION 0.1: inv_back, with a ValueError for x == 0
    if x == 0.0:
        raise _domain_error("inv_back", x, "x != 0")
    return -d / (x * x)
    # END SOLUTION


def relu_back(x: float, d: float) -> float:
    r"""Backward of :func:`relu`: $d$ if $x > 0$ else $0$.

    At $x = 0$, where relu has no derivative, we use $0$ (as PyTorch does).
    """
    # BEGIN SOLUTION 0.1
    return d if x > 0.0 else 0.0
    # END SOLUTION


# ---------------------------------------------------------------------------
# Task 0.3: higher-order functions
# ---------------------------------------------------------------------------
# Each of these takes a function and returns a new function. Module 2 builds every
# tensor operation the same way: tensor_map(fn), tensor_zip(fn), tensor_reduce(fn).
# (They shadow Python's built-in map and sum inside this module, on purpose: the
# point is to write them yourself.)


def map(fn: Callable[[float], float]) -> Callable[[Iterable[float]], list[float]]:
    r"""Lift a one-argument function to lists.

    ``map(fn)`` is the function $[x_1, \dots, x_n] \mapsto [fn(x_1), \dots, fn(x_n)]$.
    It accepts any iterable and always returns a new ``list``.

    >>> map(neg)([1.0, -2.0])
    [-1.0, 2.0]
    """

    # BEGIN SOLUTION 0.3
    def apply(xs: Iterable[float]) -> list[float]:
        return [fn(x) for x in xs]

    return apply
    # END SOLUTION


def zip_with(
    fn: Callable[[float, float], float],
) -> Callable[[Iterable[float], Iterable[float]], list[float]]:
    r"""Lift a two-argument function to pairs of lists, entry by entry.

    ``zip_with(fn)`` is the function
    $([x_1, \dots, x_n], [y_1, \dots, y_n]) \mapsto
    [fn(x_1, y_1), \dots, fn(x_n, y_n)]$.

    The returned function raises ``ValueError`` when the two inputs have different
    lengths, naming both lengths in order, e.g. ``"zip_with: lengths 3 and 5 differ"``
    (Python's ``zip`` would silently drop the extra entries: a classic silent bug).
    """

    # BEGIN SOLUTION 0.3
    def apply(xs: Iterable[float], ys: Iterable[float]) -> list[float]:
        # Lists first, so that generators can be measured.
        xs, ys = list(xs), list(ys)
        if len(xs) != len(ys):
            raise ValueError(f"zip_with: lengths {len(xs)} and {len(ys)} differ")
        return [fn(x, y) for x, y in zip(xs, ys)]

    return apply
    # END SOLUTION


def reduce(
    fn: Callable[[float, float], float], start: float
) -> Callable[[Iterable[float]], float]:
    r"""Fold a list into one number from the left, starting from ``start``.

    ``reduce(fn, start)`` is the function
    $[x_1, \dots, x_n] \mapsto fn(\dots fn(fn(start, x_1), x_2) \dots, x_n)$:
    the running value is the *first* argument of ``fn``. The empty list gives
    ``start``.

    >>> reduce(add, 0.0)([1.0, 2.0, 3.0])
    6.0
    """

    # BEGIN SOLUTION 0.3
    def apply(xs: Iterable[float]) -> float:
        total = start
        for x in xs:
            total = fn(total, x)
        return total

    return apply
    # END SOLUTION


def neg_list(ls: Iterable[float]) -> list[float]:
    """Negate every entry: $[-x_1, \\dots, -x_n]$. Use :func:`map` and :func:`neg`."""
    # BEGIN SOLUTION 0.3
    return map(neg)(ls)
    # END SOLUTION


def add_lists(ls1: Iterable[float], ls2: Iterable[float]) -> list[float]:
    """Add entry by entry: $[x_1 + y_1, \\dots, x_n + y_n]$.

    Use :func:`zip_with` and :func:`add` (so lists of different lengths raise
    ``ValueError``).
    """
    # BEGIN SOLUTION 0.3
    return zip_with(add)(ls1, ls2)
    # END SOLUTION


def sum(ls: Iterable[float]) -> float:
    r"""Sum of the entries: $\sum_i x_i$ ($0$ for the empty list).

    Use :func:`reduce` and :func:`add`.
    """
    # BEGIN SOLUTION 0.3
    return reduce(add, 0.0)(ls)
    # END SOLUTION


def prod(ls: Iterable[float]) -> float:
    r"""Product of the entries: $\prod_i x_i$ ($1$ for the empty list).

    Use :func:`reduce` and :func:`mul`.
    """
    # BEGIN SOLUTION 0.3
    return reduce(mul, 1.0)(ls)
    # END SOLUTION
