"""Task 1.1: central and forward differences, and their orders of accuracy."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from module1_scalar_autodiff.differences import (
    StepSizeStudy,
    central_difference,
    forward_difference,
    step_size_study,
)

from .strategies import small_floats

pytestmark = pytest.mark.task1_1

step_sizes = st.floats(1e-3, 1e-1)


def _f(x: float, y: float, z: float) -> float:
    return x * x * y + math.sin(z) * x


@given(small_floats)
def test_central_difference_of_sin_is_cos(x: float) -> None:
    assert central_difference(math.sin, x) == pytest.approx(math.cos(x), abs=1e-8)


@given(small_floats)
def test_forward_difference_of_sin_is_cos(x: float) -> None:
    # First order with h = 1e-6: the error is about h/2 |sin x| <= 5e-7.
    assert forward_difference(math.sin, x) == pytest.approx(math.cos(x), abs=2e-6)


@given(small_floats, small_floats, small_floats)
def test_arg_picks_the_argument(x: float, y: float, z: float) -> None:
    exact = [2 * x * y + math.sin(z), x * x, math.cos(z) * x]
    scale = 1e-6 * max(1.0, abs(_f(x, y, z)))
    for arg in range(3):
        assert central_difference(_f, x, y, z, arg=arg) == pytest.approx(
            exact[arg], abs=scale + 1e-7
        )
    assert central_difference(_f, x, y, z, arg=-1) == pytest.approx(
        exact[2], abs=scale + 1e-7
    )


@given(small_floats, step_sizes)
def test_central_difference_is_exact_for_quadratics(x: float, h: float) -> None:
    # The h^2 term of the error involves f''', which is 0 for a quadratic: even a
    # large step gives the derivative up to rounding. The forward difference does
    # not: its error is exactly 3h for this f (h/2 * f'' = h/2 * 6).
    def f(t: float) -> float:
        return 3 * t * t - 2 * t + 1

    exact = 6 * x - 2
    assert central_difference(f, x, epsilon=h) == pytest.approx(exact, abs=1e-8 / h)
    assert forward_difference(f, x, epsilon=h) - exact == pytest.approx(
        3 * h, rel=1e-4, abs=1e-8 / h
    )


def _order(method, f, df, x: float, h1: float, h2: float) -> float:
    """The slope of log(error) against log(h) between two step sizes."""
    e1 = abs(method(f, x, epsilon=h1) - df(x))
    e2 = abs(method(f, x, epsilon=h2) - df(x))
    return math.log(e1 / e2) / math.log(h1 / h2)


@pytest.mark.parametrize(
    "f, df, x",
    [(math.exp, math.exp, 0.5), (math.sin, math.cos, 1.0), (math.tanh, None, 0.3)],
)
def test_orders_of_accuracy(f, df, x: float) -> None:
    if df is None:
        df = lambda t: 1 - math.tanh(t) ** 2  # noqa: E731
    # Where truncation dominates (h between 1e-2 and 1e-3), the error of the central
    # difference falls like h^2 and that of the forward difference like h.
    assert _order(central_difference, f, df, x, 1e-2, 1e-3) == pytest.approx(2, abs=0.2)
    assert _order(forward_difference, f, df, x, 1e-2, 1e-3) == pytest.approx(1, abs=0.2)


def test_step_size_study_shows_both_error_regimes() -> None:
    study = step_size_study(math.exp, math.exp, 1.0)
    assert isinstance(study, StepSizeStudy)
    n = len(study.steps)
    assert n == len(study.central_errors) == len(study.forward_errors) >= 10
    best_central = study.best_step("central")
    best_forward = study.best_step("forward")
    # Truncation error O(h^2) against rounding O(eps / h): best near eps^(1/3).
    assert 1e-7 <= best_central <= 1e-3
    # O(h) against O(eps / h): best near eps^(1/2) = 1e-8.
    assert 1e-10 <= best_forward <= 1e-6
    assert best_forward < best_central
    errors = dict(zip(study.steps, study.central_errors))
    # Both sides of the optimum are worse: too big a step and too small a step.
    assert errors[max(study.steps)] > 100 * min(study.central_errors)
    assert errors[min(study.steps)] > 100 * min(study.central_errors)
    for h, ec, ef in zip(study.steps, study.central_errors, study.forward_errors):
        assert ec == pytest.approx(
            abs(central_difference(math.exp, 1.0, epsilon=h) - math.e)
        )
        assert ef == pytest.approx(
            abs(forward_difference(math.exp, 1.0, epsilon=h) - math.e)
        )


def test_step_size_study_with_given_steps() -> None:
    steps = [1e-1, 1e-2, 1e-3]
    study = step_size_study(math.sin, math.cos, 0.7, steps=steps)
    assert study.steps == steps
    # Truncation regime: each tenfold smaller step is ~100x (central), ~10x
    # (forward) more accurate.
    for k in range(2):
        assert study.central_errors[k] / study.central_errors[k + 1] == pytest.approx(
            100, rel=0.1
        )
        assert study.forward_errors[k] / study.forward_errors[k + 1] == pytest.approx(
            10, rel=0.2
        )


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="epsilon"):
        central_difference(math.sin, 1.0, epsilon=0.0)
    with pytest.raises(ValueError, match="epsilon"):
        forward_difference(math.sin, 1.0, epsilon=-1e-3)
    with pytest.raises(IndexError, match="arg=2"):
        central_difference(_f, 1.0, 2.0, arg=2)
    with pytest.raises(ValueError, match="at least one"):
        central_difference(math.sin)
    with pytest.raises(ValueError, match="method"):
        step_size_study(math.sin, math.cos, 0.0).best_step("backward")
