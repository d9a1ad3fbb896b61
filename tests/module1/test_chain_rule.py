"""Task 1.3: the chain-rule step, from a node's d_output to (input, derivative) pairs.

The functions here are defined in the test with known backwards, so these tests
need the forwards of Task 1.2 but none of the backwards of Task 1.4.
"""

import pytest
from hypothesis import given

from module1_scalar_autodiff.context import Context
from module1_scalar_autodiff.scalar import Scalar
from module1_scalar_autodiff.scalar_functions import ScalarFunction

from .strategies import seeds, small_floats

pytestmark = pytest.mark.task1_3


class Affine(ScalarFunction):
    """f(a, b) = 2a + 3b, so df/da = 2 and df/db = 3."""

    @staticmethod
    def forward(ctx: Context, a: float, b: float) -> float:
        return 2 * a + 3 * b

    @staticmethod
    def backward(ctx: Context, d_output: float):
        return 2 * d_output, 3 * d_output


class Square(ScalarFunction):
    """f(a) = a^2: a one-input function whose backward returns a plain float."""

    @staticmethod
    def forward(ctx: Context, a: float) -> float:
        ctx.save_for_backward(a)
        return a * a

    @staticmethod
    def backward(ctx: Context, d_output: float) -> float:
        (a,) = ctx.saved_values
        return 2 * a * d_output


@given(small_floats, small_floats, seeds)
def test_pairs_each_input_with_its_derivative(a: float, b: float, d: float) -> None:
    x, y = Scalar(a), Scalar(b)
    z = Affine.apply(x, y)
    pairs = list(z.chain_rule(d))
    assert len(pairs) == 2
    (v0, d0), (v1, d1) = pairs
    assert v0 is x and v1 is y
    assert d0 == pytest.approx(2 * d) and d1 == pytest.approx(3 * d)


@given(small_floats, seeds)
def test_one_input_function(a: float, d: float) -> None:
    x = Scalar(a)
    pairs = list(Square.apply(x).chain_rule(d))
    assert len(pairs) == 1
    assert pairs[0][0] is x
    assert pairs[0][1] == pytest.approx(2 * a * d)


@given(small_floats, seeds)
def test_constants_are_skipped(a: float, d: float) -> None:
    x = Scalar(a)
    left = list(Affine.apply(x, 5.0).chain_rule(d))
    assert len(left) == 1 and left[0][0] is x
    assert left[0][1] == pytest.approx(2 * d)
    right = list(Affine.apply(Scalar(7.0, requires_grad=False), x).chain_rule(d))
    assert len(right) == 1 and right[0][0] is x
    assert right[0][1] == pytest.approx(3 * d)


def test_the_same_input_twice_gives_two_pairs() -> None:
    x = Scalar(1.5)
    pairs = list(Affine.apply(x, x).chain_rule(1.0))
    assert [v is x for v, _ in pairs] == [True, True]
    # Both contributions are reported; adding them (2 + 3) is the engine's job.
    assert sorted(d for _, d in pairs) == [2.0, 3.0]


def test_derivatives_are_floats() -> None:
    x = Scalar(2.0)
    pairs = list(Affine.apply(x, 1.0).chain_rule(1))
    assert isinstance(pairs[0][1], float)


def test_chain_rule_needs_a_computed_value() -> None:
    with pytest.raises(RuntimeError, match="computed"):
        Scalar(1.0).chain_rule(1.0)
