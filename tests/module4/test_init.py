"""Task 4.6: initialisers, fans and gains."""

from __future__ import annotations

import math

import numpy as np
import pytest

from module0_fundamentals import Parameter
from module4_networks import init
from tests.messages import assert_names
from tests.module4.helpers import make

pytestmark = pytest.mark.task4_6


@pytest.mark.parametrize(
    "name, param, gain",
    [
        ("linear", None, 1.0),
        ("conv1d", None, 1.0),
        ("conv2d", None, 1.0),
        ("conv3d", None, 1.0),
        ("conv_transpose1d", None, 1.0),
        ("conv_transpose3d", None, 1.0),
        ("sigmoid", None, 1.0),
        ("tanh", None, 5.0 / 3.0),
        ("relu", None, math.sqrt(2.0)),
        ("leaky_relu", None, math.sqrt(2.0 / (1 + 0.01**2))),
        ("leaky_relu", 0.2, math.sqrt(2.0 / 1.04)),
        ("leaky_relu", math.sqrt(5.0), math.sqrt(1.0 / 3.0)),
        ("selu", None, 0.75),
    ],
)
def test_calculate_gain(name, param, gain):
    assert init.calculate_gain(name, param) == pytest.approx(gain, rel=1e-12)


def test_calculate_gain_rejects_unknown_nonlinearities():
    # Any wording that names it; PyTorch's is "Unsupported nonlinearity swish".
    with pytest.raises(ValueError) as error:
        init.calculate_gain("swish")
    assert_names(error.value, "swish")


@pytest.mark.parametrize(
    "shape, fans",
    [((5, 3), (3, 5)), ((4, 2, 3), (6, 12)), ((8, 3, 2, 5), (30, 80))],
)
def test_fan_in_and_fan_out(shape, fans):
    assert init.calculate_fan_in_and_fan_out(make(np.zeros(shape))) == fans
    assert init.calculate_fan_in_and_fan_out(Parameter(make(np.zeros(shape)))) == fans


def test_fans_need_two_dims():
    with pytest.raises(ValueError, match=r"fewer than 2 dimensions"):
        init.calculate_fan_in_and_fan_out(make(np.zeros(4)))


def assert_uniform(values: np.ndarray, bound: float) -> None:
    """Inside [-bound, bound], spread to its edges, variance bound^2 / 3."""
    assert np.all(np.abs(values) <= bound)
    assert np.abs(values).max() > 0.95 * bound
    se = bound**2 * math.sqrt(4.0 / 45.0 / values.size)  # std error of the variance
    assert abs(values.var() - bound**2 / 3.0) < 5 * se
    assert abs(values.mean()) < 5 * bound / math.sqrt(3.0 * values.size)


def assert_normal(values: np.ndarray, std: float) -> None:
    assert abs(values.std() - std) < 5 * std / math.sqrt(2.0 * values.size)
    assert abs(values.mean()) < 5 * std / math.sqrt(values.size)


SHAPE = (60, 20, 3)  # fan_in 60, fan_out 180, 3600 entries


def test_xavier_uniform_and_normal():
    rng = np.random.default_rng(0)
    t = make(np.zeros(SHAPE))
    assert init.xavier_uniform_(t, gain=2.0, generator=rng) is t
    assert_uniform(t.to_numpy(), 2.0 * math.sqrt(6.0 / (60 + 180)))
    init.xavier_normal_(t, gain=0.5, generator=rng)
    assert_normal(t.to_numpy(), 0.5 * math.sqrt(2.0 / (60 + 180)))


def test_kaiming_uniform_and_normal():
    rng = np.random.default_rng(1)
    t = make(np.zeros(SHAPE))
    init.kaiming_uniform_(t, generator=rng)
    gain = math.sqrt(2.0 / (1 + 0.01**2))  # the default: leaky_relu, a = 0
    assert_uniform(t.to_numpy(), math.sqrt(3.0) * gain / math.sqrt(60))
    init.kaiming_uniform_(t, a=math.sqrt(5.0), generator=rng)
    assert_uniform(t.to_numpy(), 1.0 / math.sqrt(60))  # PyTorch's Linear default
    init.kaiming_normal_(t, mode="fan_out", nonlinearity="relu", generator=rng)
    assert_normal(t.to_numpy(), math.sqrt(2.0) / math.sqrt(180))
    with pytest.raises(ValueError, match=r"mode must be 'fan_in' or 'fan_out'"):
        init.kaiming_normal_(t, mode="fan_avg")


def test_initialisers_fill_in_place_without_recording_gradients():
    p = Parameter(make(np.zeros((4, 5)), requires_grad=True))
    value = p.value
    assert init.kaiming_normal_(p) is p
    assert p.value is value and p.value.is_leaf and p.value.grad is None
    assert np.count_nonzero(p.value.to_numpy()) == 20
    init.zeros_(p)
    assert not p.value.to_numpy().any()
    init.constant_(p.value, 0.25)
    np.testing.assert_array_equal(p.value.to_numpy(), 0.25)


def test_the_same_generator_seed_gives_the_same_weights():
    a, b = make(np.zeros((6, 7))), make(np.zeros((6, 7)))
    init.xavier_uniform_(a, generator=np.random.default_rng(5))
    init.xavier_uniform_(b, generator=np.random.default_rng(5))
    np.testing.assert_array_equal(a.to_numpy(), b.to_numpy())
