"""Task 0.2: property tests for the operators of Task 0.1.

You write these tests. Each test below has its inputs (the ``@given`` decorator draws
them from the named strategies of ``tests/module0/strategies.py``) and a docstring
saying which property of the operators it checks; write the body that checks it.
Call the operators through the module, as in ``ops.mul(x, y)``, never through a
copy (``from ...operators import mul``): the grader swaps the operators for buggy
versions behind your back.

How they are graded (mutation testing): your tests must pass on correct operators,
and each planted bug (a flipped sign, a sigmoid with the wrong branch for negative
inputs, a relu that leaks negative numbers, ``lt`` and ``eq`` swapped, ...) must make
at least one of them fail. A test that asserts too little catches nothing.

Floating point: ``a + b`` and ``b + a`` are exactly equal, but ``(a + b) + c`` and
``a + (b + c)`` may differ in the last bits, so compare those with
``pytest.approx(expected, rel=..., abs=...)``.

Run them with ``pytest -m task0_2``.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import example, given

from module0_fundamentals import operators as ops  # noqa: F401 (your tests use it)
from tests.module0.strategies import (
    derivatives,
    exponents,
    gaps,
    moderate_floats,
    nonpositive_floats,
    nonzero_floats,
    positive_floats,
    small_floats,
    wide_floats,
)

pytestmark = pytest.mark.task0_2


def central_difference(f: Callable[[float], float], x: float, h: float = 1e-6) -> float:
    r"""The slope of ``f`` at ``x``: $\frac{f(x + h) - f(x - h)}{2h}$.

    Compare a derivative you know, or a ``*_back`` function, against it; allow a
    relative error of about ``1e-4``.
    """
    return (f(x + h) - f(x - h)) / (2.0 * h)


# -- mul, add, neg, id ----------------------------------------------------------------


@given(small_floats, small_floats)
def test_mul_commutative(x: float, y: float) -> None:
    """mul is commutative: $x y = y x$."""
    # BEGIN SOLUTION 0.2
    assert ops.mul(x, y) == ops.mul(y, x)
    # END SOLUTION


@given(small_floats)
def test_mul_one_and_zero(x: float) -> None:
    r"""1 is the identity of mul and 0 annihilates: $x \cdot 1 = x$, $x \cdot 0 = 0$."""
    # BEGIN SOLUTION 0.2
    assert ops.mul(x, 1.0) == x
    assert ops.mul(1.0, x) == x
    assert ops.mul(x, 0.0) == 0.0
    # END SOLUTION


@given(small_floats, small_floats, small_floats)
def test_mul_associative(x: float, y: float, z: float) -> None:
    r"""mul is associative, up to rounding: $(x y) z \approx x (y z)$."""
    # BEGIN SOLUTION 0.2
    left = ops.mul(ops.mul(x, y), z)
    right = ops.mul(x, ops.mul(y, z))
    assert left == pytest.approx(right, rel=1e-12, abs=1e-12)
    # END SOLUTION


@given(small_floats, small_floats, small_floats)
def test_mul_distributes_over_add(x: float, y: float, z: float) -> None:
    r"""mul distributes over add, up to rounding: $z (x + y) \approx z x + z y$."""
    # BEGIN SOLUTION 0.2
    left = ops.mul(z, ops.add(x, y))
    right = ops.add(ops.mul(z, x), ops.mul(z, y))
    assert left == pytest.approx(right, rel=1e-9, abs=1e-9)
    # END SOLUTION


@given(small_floats, small_floats)
def test_add_commutative(x: float, y: float) -> None:
    """add is commutative: $x + y = y + x$."""
    # BEGIN SOLUTION 0.2
    assert ops.add(x, y) == ops.add(y, x)
    # END SOLUTION


@given(small_floats, small_floats, small_floats)
def test_add_associative(x: float, y: float, z: float) -> None:
    r"""add is associative, up to rounding: $(x + y) + z \approx x + (y + z)$."""
    # BEGIN SOLUTION 0.2
    left = ops.add(ops.add(x, y), z)
    right = ops.add(x, ops.add(y, z))
    assert left == pytest.approx(right, rel=1e-12, abs=1e-12)
    # END SOLUTION


@given(small_floats)
def test_add_zero(x: float) -> None:
    """0 is the identity of add: $x + 0 = 0 + x = x$."""
    # BEGIN SOLUTION 0.2
    assert ops.add(x, 0.0) == x
    assert ops.add(0.0, x) == x
    # END SOLUTION


@given(small_floats, gaps)
def test_add_grows_with_a_positive_term(x: float, gap: float) -> None:
    """Adding a positive number makes a number larger: $x + g > x$ for $g > 0$."""
    # BEGIN SOLUTION 0.2
    assert ops.add(x, gap) > x
    assert ops.add(gap, x) > x
    # END SOLUTION


@given(small_floats)
def test_id(x: float) -> None:
    r"""id returns its input unchanged: $\mathrm{id}(x) = x$."""
    # BEGIN SOLUTION 0.2
    assert ops.id(x) == x
    # END SOLUTION


@given(small_floats)
def test_neg_involution(x: float) -> None:
    """Negating twice gives the number back: $-(-x) = x$."""
    # BEGIN SOLUTION 0.2
    assert ops.neg(ops.neg(x)) == x
    # END SOLUTION


@given(small_floats)
def test_neg_is_the_additive_inverse(x: float) -> None:
    """A number plus its negation is zero: $x + (-x) = 0$."""
    # BEGIN SOLUTION 0.2
    assert ops.add(x, ops.neg(x)) == 0.0
    assert ops.neg(0.0) == 0.0
    # END SOLUTION


# -- lt, eq, max, is_close ----------------------------------------------------------


@given(small_floats, gaps)
def test_lt_orders_by_size(x: float, gap: float) -> None:
    r"""lt says 1.0 when the first number is the smaller one and 0.0 otherwise.

    With $g > 0$: $\mathrm{lt}(x, x + g) = 1$ and $\mathrm{lt}(x + g, x) = 0$.
    """
    # BEGIN SOLUTION 0.2
    bigger = x + gap
    assert ops.lt(x, bigger) == 1.0
    assert ops.lt(bigger, x) == 0.0
    # END SOLUTION


@given(small_floats, small_floats)
def test_lt_antisymmetric_and_irreflexive(x: float, y: float) -> None:
    """Never both $x < y$ and $y < x$; never $x < x$."""
    # BEGIN SOLUTION 0.2
    assert ops.lt(x, y) + ops.lt(y, x) <= 1.0
    assert ops.lt(x, x) == 0.0
    # END SOLUTION


@given(small_floats, small_floats, small_floats)
def test_lt_transitive(x: float, y: float, z: float) -> None:
    """lt is transitive: if $a < b$ and $b < c$ then $a < c$.

    Hint: sort the three numbers first, so the premise holds often.
    """
    # BEGIN SOLUTION 0.2
    a, b, c = sorted([x, y, z])
    if ops.lt(a, b) == 1.0 and ops.lt(b, c) == 1.0:
        assert ops.lt(a, c) == 1.0
    # END SOLUTION


@given(small_floats, small_floats)
def test_trichotomy(x: float, y: float) -> None:
    """Exactly one of $x < y$, $y < x$, $x = y$ holds, and each says 1.0 or 0.0."""
    # BEGIN SOLUTION 0.2
    answers = [ops.lt(x, y), ops.lt(y, x), ops.eq(x, y)]
    assert all(answer in (0.0, 1.0) for answer in answers)
    assert answers.count(1.0) == 1
    # END SOLUTION


@given(small_floats, gaps)
def test_eq_exact_reflexive_symmetric(x: float, gap: float) -> None:
    r"""eq is exact equality: $x = x$, and $x \ne x + g$ for $g > 0$, both ways."""
    # BEGIN SOLUTION 0.2
    assert ops.eq(x, x) == 1.0
    assert ops.eq(x, x + gap) == 0.0
    assert ops.eq(x + gap, x) == 0.0
    # END SOLUTION


@given(small_floats, small_floats)
def test_max_is_the_larger_argument(x: float, y: float) -> None:
    r"""$\max(x, y) \ge x$, $\max(x, y) \ge y$, it is one of them, in any order."""
    # BEGIN SOLUTION 0.2
    m = ops.max(x, y)
    assert m >= x and m >= y
    assert m in (x, y)
    assert ops.max(y, x) == m
    # END SOLUTION


@given(small_floats)
def test_is_close_tolerance(x: float) -> None:
    r"""is_close allows an absolute error below $10^{-2}$, symmetrically, and no more.

    Close: $x$ and $x$; $x$ and $x \pm 0.005$. Not close: $x$ and $x \pm 0.02$.
    """
    # BEGIN SOLUTION 0.2
    assert ops.is_close(x, x)
    assert ops.is_close(x, x + 0.005) and ops.is_close(x + 0.005, x)
    assert ops.is_close(x, x - 0.005)
    assert not ops.is_close(x, x + 0.02) and not ops.is_close(x + 0.02, x)
    assert not ops.is_close(x, x - 0.02)
    # END SOLUTION


# -- sigmoid, relu --------------------------------------------------------------------


@given(wide_floats)
@example(1000.0)
@example(-1000.0)
def test_sigmoid_symmetry(x: float) -> None:
    r"""Sigmoid is symmetric about $(0, \frac12)$: $\sigma(-x) = 1 - \sigma(x)$.

    It must also work for $|x|$ up to 1000 (no ``OverflowError``).
    """
    # BEGIN SOLUTION 0.2
    assert ops.sigmoid(-x) == pytest.approx(1.0 - ops.sigmoid(x), abs=1e-12)
    # END SOLUTION


@given(wide_floats)
@example(1000.0)
@example(-1000.0)
def test_sigmoid_bounds(x: float) -> None:
    r"""$0 \le \sigma(x) \le 1$, $\sigma(0) = \frac12$, and the sign of $x$
    decides the side: $\sigma(x) \ge \frac12$ for $x > 0$, $\le \frac12$ for
    $x < 0$. (Strictly, in floating point, only once $|x|$ is large enough to
    move $\sigma(x)$ off $\frac12$: below about $10^{-16}$ it rounds to exactly
    $\frac12$, and Hypothesis finds such an $x$.)"""
    # BEGIN SOLUTION 0.2
    s = ops.sigmoid(x)
    assert 0.0 <= s <= 1.0
    assert ops.sigmoid(0.0) == 0.5
    # (Within |x| ~ 1e-16 of 0, sigmoid rounds to exactly 0.5: stay clear of it.)
    if x > 1e-6:
        assert s > 0.5
    if x < -1e-6:
        assert s < 0.5
    # END SOLUTION


@given(wide_floats, gaps)
def test_sigmoid_monotone(x: float, gap: float) -> None:
    r"""Sigmoid is increasing: $\sigma(x) \le \sigma(x + g)$ for $g > 0$ (strictly
    while $|x| < 20$, before it rounds to 0 or 1)."""
    # BEGIN SOLUTION 0.2
    assert ops.sigmoid(x) <= ops.sigmoid(x + gap)
    if abs(x) < 20 and abs(x + gap) < 20:
        assert ops.sigmoid(x) < ops.sigmoid(x + gap)
    # END SOLUTION


@given(moderate_floats)
def test_sigmoid_derivative(x: float) -> None:
    r"""The slope of sigmoid is $\sigma'(x) = \sigma(x) (1 - \sigma(x))$
    (compare with ``central_difference``)."""
    # BEGIN SOLUTION 0.2
    s = ops.sigmoid(x)
    slope = central_difference(ops.sigmoid, x)
    assert slope == pytest.approx(s * (1.0 - s), rel=1e-4, abs=1e-9)
    # END SOLUTION


@given(wide_floats)
@example(0.0)
def test_relu_nonnegative_and_idempotent(x: float) -> None:
    r"""$\mathrm{relu}(x) \ge 0$ and $\mathrm{relu}(\mathrm{relu}(x)) =
    \mathrm{relu}(x)$."""
    # BEGIN SOLUTION 0.2
    r = ops.relu(x)
    assert r >= 0.0
    assert ops.relu(r) == r
    # END SOLUTION


@given(wide_floats)
def test_relu_splits_x_into_parts(x: float) -> None:
    r"""A number is its positive part minus its negative part:
    $\mathrm{relu}(x) - \mathrm{relu}(-x) = x$, and one of the two parts is 0."""
    # BEGIN SOLUTION 0.2
    assert ops.relu(x) - ops.relu(-x) == x
    assert ops.relu(x) * ops.relu(-x) == 0.0
    # END SOLUTION


# -- log, exp, inv --------------------------------------------------------------------


@given(positive_floats, exponents)
def test_exp_and_log_are_inverses(x: float, a: float) -> None:
    r"""$e^{\ln x} \approx x$ for $x > 0$ and $\ln e^{a} \approx a$."""
    # BEGIN SOLUTION 0.2
    assert ops.exp(ops.log(x)) == pytest.approx(x, rel=1e-9)
    assert ops.log(ops.exp(a)) == pytest.approx(a, rel=1e-9, abs=1e-12)
    # END SOLUTION


@given(positive_floats, positive_floats)
def test_log_turns_products_into_sums(x: float, y: float) -> None:
    r"""$\ln(x y) \approx \ln x + \ln y$, and $\ln 1 = 0$."""
    # BEGIN SOLUTION 0.2
    left = ops.log(ops.mul(x, y))
    assert left == pytest.approx(ops.log(x) + ops.log(y), rel=1e-9, abs=1e-12)
    assert ops.log(1.0) == 0.0
    # END SOLUTION


@given(exponents, exponents)
def test_exp_turns_sums_into_products(a: float, b: float) -> None:
    r"""$e^{a + b} \approx e^{a} e^{b}$, and $e^{0} = 1$."""
    # BEGIN SOLUTION 0.2
    assert ops.exp(a + b) == pytest.approx(ops.exp(a) * ops.exp(b), rel=1e-9)
    assert ops.exp(0.0) == 1.0
    # END SOLUTION


@given(exponents)
def test_exp_derivative(a: float) -> None:
    r"""$e^x$ is its own slope: ``central_difference(exp, a)`` $\approx e^{a}$."""
    # BEGIN SOLUTION 0.2
    assert central_difference(ops.exp, a) == pytest.approx(ops.exp(a), rel=1e-4)
    # END SOLUTION


@given(nonpositive_floats)
@example(0.0)
def test_log_rejects_nonpositive(x: float) -> None:
    r"""``log`` (and ``log_back``) of $x \le 0$ raise a ValueError naming the
    operator (``pytest.raises(ValueError, match=...)``)."""
    # BEGIN SOLUTION 0.2
    with pytest.raises(ValueError, match="log"):
        ops.log(x)
    with pytest.raises(ValueError, match="log_back"):
        ops.log_back(x, 1.0)
    # END SOLUTION


@given(nonzero_floats)
def test_inv_involution_and_product(x: float) -> None:
    r"""For $x \ne 0$: $\frac{1}{1/x} \approx x$ and $x \cdot \frac{1}{x} \approx 1$."""
    # BEGIN SOLUTION 0.2
    assert ops.inv(ops.inv(x)) == pytest.approx(x, rel=1e-12)
    assert ops.mul(x, ops.inv(x)) == pytest.approx(1.0, rel=1e-12)
    # END SOLUTION


def test_inv_rejects_zero() -> None:
    """``inv(0.0)`` and ``inv_back(0.0, d)`` raise a ValueError naming the operator."""
    # BEGIN SOLUTION 0.2
    with pytest.raises(ValueError, match="inv"):
        ops.inv(0.0)
    with pytest.raises(ValueError, match="inv_back"):
        ops.inv_back(0.0, 1.0)
    # END SOLUTION


# -- sin, cos, tanh -----------------------------------------------------------------


@given(small_floats)
def test_sin_cos_pythagoras(x: float) -> None:
    r"""$\sin^2 x + \cos^2 x \approx 1$."""
    # BEGIN SOLUTION 0.2
    s, c = ops.sin(x), ops.cos(x)
    assert s * s + c * c == pytest.approx(1.0, abs=1e-12)
    # END SOLUTION


@given(small_floats)
def test_sin_odd_cos_even(x: float) -> None:
    r"""$\sin(-x) = -\sin x$ and $\cos(-x) = \cos x$."""
    # BEGIN SOLUTION 0.2
    assert ops.sin(-x) == pytest.approx(-ops.sin(x), abs=1e-12)
    assert ops.cos(-x) == pytest.approx(ops.cos(x), abs=1e-12)
    # END SOLUTION


@given(small_floats)
def test_sin_cos_derivatives(x: float) -> None:
    r"""$\sin' = \cos$ and $\cos' = -\sin$ (compare with ``central_difference``)."""
    # BEGIN SOLUTION 0.2
    assert central_difference(ops.sin, x) == pytest.approx(ops.cos(x), abs=1e-6)
    assert central_difference(ops.cos, x) == pytest.approx(-ops.sin(x), abs=1e-6)
    # END SOLUTION


@given(wide_floats)
@example(1000.0)
@example(-1000.0)
def test_tanh_odd_and_bounded(x: float) -> None:
    r"""$\tanh(-x) = -\tanh x$ and $-1 \le \tanh x \le 1$, even for large $|x|$."""
    # BEGIN SOLUTION 0.2
    t = ops.tanh(x)
    assert ops.tanh(-x) == pytest.approx(-t, abs=1e-12)
    assert -1.0 <= t <= 1.0
    # END SOLUTION


@given(moderate_floats)
def test_tanh_is_a_scaled_sigmoid(x: float) -> None:
    r"""$\tanh x = 2 \sigma(2x) - 1$, and $\tanh' = 1 - \tanh^2$."""
    # BEGIN SOLUTION 0.2
    t = ops.tanh(x)
    assert t == pytest.approx(2.0 * ops.sigmoid(2.0 * x) - 1.0, abs=1e-12)
    assert central_difference(ops.tanh, x) == pytest.approx(1.0 - t * t, abs=1e-6)
    # END SOLUTION


# -- the backs ------------------------------------------------------------------------


@given(positive_floats, derivatives)
def test_log_back_matches_central_difference(x: float, d: float) -> None:
    r"""``log_back(x, d)`` $\approx d \cdot$ ``central_difference(log, x)``."""
    # BEGIN SOLUTION 0.2
    expected = d * central_difference(ops.log, x)
    assert ops.log_back(x, d) == pytest.approx(expected, rel=1e-4, abs=1e-6)
    # END SOLUTION


@given(nonzero_floats, derivatives)
def test_inv_back_matches_central_difference(x: float, d: float) -> None:
    r"""``inv_back(x, d)`` $\approx d \cdot$ ``central_difference(inv, x)``."""
    # BEGIN SOLUTION 0.2
    expected = d * central_difference(ops.inv, x)
    assert ops.inv_back(x, d) == pytest.approx(expected, rel=1e-4, abs=1e-6)
    # END SOLUTION


@given(nonzero_floats, derivatives)
@example(0.0, 1.0)
def test_relu_back_matches_central_difference(x: float, d: float) -> None:
    r"""``relu_back(x, d)`` $\approx d \cdot$ ``central_difference(relu, x)`` away
    from the kink; at $x = 0$ it is 0 by convention."""
    # BEGIN SOLUTION 0.2
    if x == 0.0:
        assert ops.relu_back(x, d) == 0.0
    else:
        expected = d * central_difference(ops.relu, x)
        assert ops.relu_back(x, d) == pytest.approx(expected, rel=1e-4, abs=1e-6)
    # END SOLUTION
