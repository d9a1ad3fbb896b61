"""``init.trunc_normal_``, ``orthogonal_``, ``eye_`` and ``dirac_`` (given),
checked by the structure PyTorch documents for each: draws inside the bounds
with the truncated normal's moments, orthonormal rows or columns, the identity,
and a convolution that copies its input channels. Each fills in place and
returns its argument, as the other initialisers. Where PyTorch is installed the
deterministic ones are compared with it too."""

from __future__ import annotations

import math

import numpy as np
import pytest

import module4_networks as kt
from module4_networks import functional as F
from module4_networks import init, nn
from tests.pytorch_reference import import_torch

# Given code on tensor operations (Task 2.6); the convolution test runs Task
# 4.6's Conv2d too and carries its marker instead.


def _phi(x):
    return math.exp(-x * x / 2) / math.sqrt(2 * math.pi)


def _cdf(x):
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


@pytest.mark.task2_6
def test_trunc_normal_stays_in_its_bounds_with_the_truncated_moments():
    w = nn.Parameter(kt.zeros(200, 100))
    mean, std, a, b = 0.5, 2.0, -1.0, 3.0
    assert init.trunc_normal_(w, mean, std, a, b) is w
    values = w.to_numpy()
    assert values.min() >= a and values.max() <= b
    # The truncated normal's mean and variance (alpha, beta the standardised
    # bounds): mean + std (phi(alpha) - phi(beta)) / Z, Z = Phi(beta) - Phi(alpha).
    alpha, beta = (a - mean) / std, (b - mean) / std
    z = _cdf(beta) - _cdf(alpha)
    expected_mean = mean + std * (_phi(alpha) - _phi(beta)) / z
    expected_var = std**2 * (
        1
        + (alpha * _phi(alpha) - beta * _phi(beta)) / z
        - ((_phi(alpha) - _phi(beta)) / z) ** 2
    )
    # 20,000 draws: the standard error of the mean is about 0.008.
    assert abs(values.mean() - expected_mean) < 0.04
    assert abs(values.var() - expected_var) / expected_var < 0.05
    # The default bounds [-2, 2] are absolute, as in PyTorch.
    narrow = init.trunc_normal_(kt.zeros(1000), std=10.0).to_numpy()
    assert narrow.min() >= -2.0 and narrow.max() <= 2.0 and narrow.std() > 0.9


@pytest.mark.task2_6
def test_trunc_normal_follows_the_seed():
    kt.manual_seed(3)
    first = init.trunc_normal_(kt.zeros(50)).to_numpy()
    kt.manual_seed(3)
    np.testing.assert_array_equal(init.trunc_normal_(kt.zeros(50)).to_numpy(), first)


@pytest.mark.task2_6
@pytest.mark.parametrize("shape", [(3, 7), (7, 3), (5, 5), (4, 2, 3, 3), (6, 2, 2)])
def test_orthogonal_gives_orthonormal_rows_or_columns(shape):
    w = nn.Parameter(kt.zeros(*shape))
    assert init.orthogonal_(w, gain=2.0) is w
    m = w.to_numpy().reshape(shape[0], -1) / 2.0
    rows, cols = m.shape
    # Wide: W W^T = I (orthonormal rows); tall: W^T W = I (orthonormal columns).
    gram = m @ m.T if rows <= cols else m.T @ m
    np.testing.assert_allclose(gram, np.eye(min(rows, cols)), atol=1e-12)
    with pytest.raises(ValueError, match="2 or more dimensions"):
        init.orthogonal_(kt.zeros(3))


@pytest.mark.task2_6
def test_orthogonal_is_a_random_rotation_not_a_fixed_one():
    a = init.orthogonal_(kt.zeros(4, 4)).to_numpy()
    b = init.orthogonal_(kt.zeros(4, 4)).to_numpy()
    assert not np.allclose(a, b)


@pytest.mark.task2_6
@pytest.mark.parametrize("shape", [(3, 3), (2, 5), (5, 2)])
def test_eye_matches_pytorch(shape):
    w = kt.ones(*shape)
    assert init.eye_(w) is w
    np.testing.assert_array_equal(w.to_numpy(), np.eye(*shape))
    torch = import_torch()
    expected = torch.nn.init.eye_(torch.ones(*shape)).numpy()
    np.testing.assert_array_equal(w.to_numpy(), expected)


@pytest.mark.task2_6
def test_eye_needs_a_matrix():
    with pytest.raises(ValueError, match="2 dimensions"):
        init.eye_(kt.zeros(2, 2, 2))


@pytest.mark.task4_6
def test_dirac_makes_a_convolution_copy_its_input():
    conv = nn.Conv2d(3, 3, 3, padding=1, bias=False)
    assert init.dirac_(conv.weight) is conv.weight
    x = kt.tensor(np.random.default_rng(0).normal(size=(2, 3, 5, 5)))
    np.testing.assert_allclose(conv(x).to_numpy(), x.to_numpy(), atol=1e-12)
    # More outputs than inputs: the extra channels are 0; grouped: each group
    # copies its own inputs.
    w = init.dirac_(kt.zeros(4, 2, 3, 3), groups=2)
    y = F.conv2d(kt.tensor(np.ones((1, 4, 3, 3))), w, groups=2)
    np.testing.assert_array_equal(y.to_numpy()[0, :, 0, 0], [1, 1, 1, 1])


@pytest.mark.task2_6
@pytest.mark.parametrize(
    "shape, groups", [((4, 2, 3), 1), ((6, 2, 3, 3), 2), ((2, 4, 1, 3, 3), 1)]
)
def test_dirac_matches_pytorch(shape, groups):
    torch = import_torch()
    ours = init.dirac_(kt.ones(*shape), groups=groups).to_numpy()
    theirs = torch.nn.init.dirac_(torch.ones(*shape), groups=groups).numpy()
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.task2_6
def test_dirac_checks_its_shape():
    with pytest.raises(ValueError, match="3, 4, or 5 dimensions"):
        init.dirac_(kt.zeros(2, 2))
    with pytest.raises(ValueError, match="divisible by groups"):
        init.dirac_(kt.zeros(3, 1, 3), groups=2)
