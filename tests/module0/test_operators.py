"""Task 0.1: the scalar operators, checked against the ``math`` module."""

from __future__ import annotations

import math
import re
from collections.abc import Callable

import pytest
from hypothesis import given

from module0_fundamentals import operators as ops
from tests.module0.strategies import (
    derivatives,
    nonpositive_floats,
    nonzero_floats,
    positive_floats,
    small_floats,
    wide_floats,
)

pytestmark = pytest.mark.task0_1

# Hand-picked inputs: zero of both signs, a fraction, integers, large magnitudes.
POINTS = [0.0, -0.0, 0.25, -0.25, 1.0, -1.0, 3.0, -7.5, 123.456, -1e6]
PAIRS = [(x, y) for x in POINTS[::2] for y in POINTS[1::2]] + [(2.0, 2.0), (-3, -3)]


def stable_sigmoid(x: float) -> float:
    r"""An independent sigmoid: $\sigma(x) = \frac{1}{2}(1 + \tanh\frac{x}{2})$."""
    return 0.5 * (1.0 + math.tanh(x / 2.0))


def central_difference(f: Callable[[float], float], x: float, h: float = 1e-6) -> float:
    r"""The slope of ``f`` at ``x``: $\frac{f(x + h) - f(x - h)}{2h}$."""
    return (f(x + h) - f(x - h)) / (2.0 * h)


def re_number(x: float) -> str:
    """A pattern matching ``repr(x)`` inside an error message."""
    return re.escape(repr(x))


@pytest.mark.parametrize("x, y", PAIRS)
def test_binary_operators_on_examples(x: float, y: float) -> None:
    assert ops.mul(x, y) == x * y
    assert ops.add(x, y) == x + y
    assert ops.max(x, y) == (x if x > y else y)
    assert ops.lt(x, y) == (1.0 if x < y else 0.0)
    assert ops.eq(x, y) == (1.0 if x == y else 0.0)


@given(small_floats, small_floats)
def test_binary_operators(x: float, y: float) -> None:
    assert ops.mul(x, y) == x * y
    assert ops.add(x, y) == x + y
    assert ops.max(x, y) == max(x, y)
    assert ops.lt(x, y) == float(x < y)
    assert ops.eq(x, y) == float(x == y)
    assert ops.is_close(x, y) == (abs(x - y) < 1e-2)


@pytest.mark.parametrize("x", POINTS)
def test_unary_operators_on_examples(x: float) -> None:
    assert ops.id(x) == x
    assert ops.neg(x) == -x
    assert ops.relu(x) == (x if x > 0 else 0.0)
    assert ops.sin(x) == pytest.approx(math.sin(x), abs=1e-12)
    assert ops.cos(x) == pytest.approx(math.cos(x), abs=1e-12)
    assert ops.tanh(x) == pytest.approx(math.tanh(x), abs=1e-12)
    assert ops.sigmoid(x) == pytest.approx(stable_sigmoid(x), rel=1e-12, abs=1e-15)


@given(small_floats)
def test_unary_operators(x: float) -> None:
    assert ops.id(x) == x
    assert ops.neg(x) == -x
    assert ops.relu(x) == (x if x > 0 else 0.0)
    assert ops.exp(x) == pytest.approx(math.exp(x), rel=1e-12)
    assert ops.sin(x) == pytest.approx(math.sin(x), abs=1e-12)
    assert ops.cos(x) == pytest.approx(math.cos(x), abs=1e-12)
    assert ops.tanh(x) == pytest.approx(math.tanh(x), abs=1e-12)


def test_comparisons_return_floats() -> None:
    # 1.0/0.0, not True/False: a comparison is a number like every other result.
    for result in (
        ops.lt(1.0, 2.0),
        ops.lt(2.0, 1.0),
        ops.eq(1.0, 1.0),
        ops.eq(1.0, 2),
    ):
        assert type(result) is float
    assert (
        ops.lt(1.0, 2.0) == 1.0 and ops.lt(2.0, 1.0) == 0.0 and ops.lt(1.0, 1.0) == 0.0
    )
    assert ops.eq(1.0, 1.0) == 1.0 and ops.eq(1.0, 1.5) == 0.0


def test_max_of_equal_arguments() -> None:
    assert ops.max(2.5, 2.5) == 2.5
    assert ops.max(-1.0, -3.0) == -1.0


def test_is_close_uses_an_absolute_tolerance_of_one_hundredth() -> None:
    assert ops.is_close(1.0, 1.009) is True
    assert ops.is_close(1.009, 1.0) is True
    assert ops.is_close(1.0, 1.011) is False
    assert ops.is_close(-5.0, -5.011) is False
    # Absolute, not relative: large numbers get no extra slack.
    assert ops.is_close(1e6, 1e6 + 0.5) is False


@pytest.mark.parametrize("x, y", [(0.0, 0.01), (0.01, 0.0), (-0.01, 0.0), (0.0, -0.01)])
def test_is_close_is_strict_at_the_tolerance(x: float, y: float) -> None:
    # The docstring's |x - y| < 1e-2: a gap of exactly CLOSE_TOLERANCE is not close.
    assert abs(x - y) == ops.CLOSE_TOLERANCE
    assert ops.is_close(x, y) is False, (
        f"is_close({x}, {y}) must be False: the tolerance is strict, "
        "|x - y| < 1e-2 (use <, not <=)"
    )


LARGE = [1e3, -1e3, 4096.5, -65536.0, 1e6, -3.5e12, 1e300]


@pytest.mark.parametrize("x", LARGE)
@pytest.mark.parametrize("y", [0.5, -3.0, 1e3])
def test_mul_and_add_are_exact_for_large_magnitudes(x: float, y: float) -> None:
    # Both arguments take any magnitude (a clipped or rounded operand fails here).
    for a, b in ((x, y), (y, x)):
        assert ops.mul(a, b) == a * b, f"mul({a}, {b}) must be {a * b}"
        assert ops.add(a, b) == a + b, f"add({a}, {b}) must be {a + b}"


@given(wide_floats)
def test_sigmoid_matches_an_independent_formula(x: float) -> None:
    assert ops.sigmoid(x) == pytest.approx(stable_sigmoid(x), rel=1e-9, abs=1e-15)


@pytest.mark.parametrize(
    "x, expected",
    [
        (0.0, 0.5),
        (1000.0, 1.0),
        (-1000.0, 0.0),
        (1e308, 1.0),
        (-1e308, 0.0),
        (2.0, 1.0 / (1.0 + math.exp(-2.0))),
        (-2.0, math.exp(-2.0) / (1.0 + math.exp(-2.0))),
        # Far left, sigmoid(x) ~ e^x: the stable branch keeps all its digits.
        (-700.0, math.exp(-700.0)),
    ],
)
def test_sigmoid_is_finite_and_right_for_large_inputs(
    x: float, expected: float
) -> None:
    value = ops.sigmoid(x)
    assert math.isfinite(value)
    assert value == pytest.approx(expected, rel=1e-12, abs=0.0)


def test_relu_returns_a_float_zero_for_negatives() -> None:
    assert ops.relu(-3.0) == 0.0 and type(ops.relu(-3.0)) is float
    assert ops.relu(0.0) == 0.0
    assert ops.relu(2.0) == 2.0


@given(positive_floats)
def test_log_and_exp(x: float) -> None:
    assert ops.log(x) == pytest.approx(math.log(x), rel=1e-12, abs=1e-15)
    assert ops.exp(ops.log(x)) == pytest.approx(x, rel=1e-9)


@given(nonzero_floats)
def test_inv(x: float) -> None:
    assert ops.inv(x) == pytest.approx(1.0 / x, rel=1e-12)


@pytest.mark.parametrize("x", [0.0, -0.0, -2.5, -1e-12])
def test_log_rejects_nonpositive_input(x: float) -> None:
    with pytest.raises(ValueError, match=rf"^log\b.*{re_number(x)}"):
        ops.log(x)
    with pytest.raises(ValueError, match=rf"^log_back\b.*{re_number(x)}"):
        ops.log_back(x, 1.0)


@pytest.mark.parametrize("x", [0.0, -0.0])
def test_inv_rejects_zero(x: float) -> None:
    with pytest.raises(ValueError, match=rf"^inv\b.*{re_number(x)}"):
        ops.inv(x)
    with pytest.raises(ValueError, match=rf"^inv_back\b.*{re_number(x)}"):
        ops.inv_back(x, 1.0)


@given(positive_floats, derivatives)
def test_log_back(x: float, d: float) -> None:
    assert ops.log_back(x, d) == pytest.approx(d / x, rel=1e-12)
    numeric = d * central_difference(math.log, x)
    assert ops.log_back(x, d) == pytest.approx(numeric, rel=1e-4, abs=1e-6)


@given(nonzero_floats, derivatives)
def test_inv_back(x: float, d: float) -> None:
    assert ops.inv_back(x, d) == pytest.approx(-d / (x * x), rel=1e-12)
    numeric = d * central_difference(lambda v: 1.0 / v, x)
    assert ops.inv_back(x, d) == pytest.approx(numeric, rel=1e-4, abs=1e-6)


@given(nonzero_floats, derivatives)
def test_relu_back(x: float, d: float) -> None:
    assert ops.relu_back(x, d) == (d if x > 0 else 0.0)
    numeric = d * central_difference(lambda v: v if v > 0 else 0.0, x)
    assert ops.relu_back(x, d) == pytest.approx(numeric, rel=1e-6, abs=1e-9)


@pytest.mark.parametrize("d", [1.0, -2.5, 0.0])
def test_relu_back_at_the_kink_is_zero(d: float) -> None:
    assert ops.relu_back(0.0, d) == 0.0


@given(nonpositive_floats)
def test_relu_back_of_nonpositive_is_zero(x: float) -> None:
    assert ops.relu_back(x, 3.0) == 0.0
