"""``Dropout1d``, ``AlphaDropout`` and ``F.alpha_dropout`` (given,
``_spatial_layers.py`` and ``_spatial_functions.py``, over Task 4.4's
``F.dropout``): eval and the edge cases as ``torch``'s, the random training mode
by its statistics (PyTorch's draws are not ours), the gradient against central
differences under a fixed seed."""

from __future__ import annotations

import math

import numpy as np
import pytest

import module4_networks as kt
from module4_networks import nn
from module4_networks.nn import functional as F
from tests.module4.helpers import check_grad
from tests.pytorch_reference import import_torch

task4_4 = pytest.mark.task4_4
task4_6 = pytest.mark.task4_6
RNG = np.random.default_rng(5)
LA = 1.0507009873554805 * 1.6732632423543772  # SELU's lambda * alpha


def _alpha_constants(p):
    a = 1.0 / math.sqrt((LA * LA * p + 1.0) * (1.0 - p))
    return a, a * p * LA, a * (p - 1.0) * LA  # scale, kept shift, dropped value


@task4_4
@pytest.mark.parametrize("p", [0.1, 0.5])
def test_alpha_dropout_keeps_the_mean_and_variance_of_selu_outputs(p):
    torch = import_torch()
    x = RNG.normal(size=(400, 500))
    out = F.alpha_dropout(kt.tensor(x), p, training=True).to_numpy()
    a, kept, dropped = _alpha_constants(p)
    is_dropped = np.isclose(out, dropped, rtol=0, atol=1e-12)
    np.testing.assert_allclose(out[~is_dropped], a * x[~is_dropped] + kept)
    assert abs(is_dropped.mean() - p) < 0.005
    # zero mean and unit variance kept, as PyTorch's own draws keep them
    theirs = torch.nn.functional.alpha_dropout(torch.tensor(x), p, True).numpy()
    for values in (out, theirs):
        assert abs(values.mean()) < 0.01 and abs(values.var() - 1.0) < 0.01
    # (the same dropped value, as often)
    assert abs(np.isclose(theirs, dropped, rtol=0, atol=1e-12).mean() - p) < 0.005


@task4_4
def test_alpha_dropout_edge_cases_match_pytorch():
    torch = import_torch()
    x = RNG.normal(size=(3, 4))
    T = torch.nn.functional.alpha_dropout
    for p, training in [(0.5, False), (0.0, True), (1.0, True), (0.3, False)]:
        ours = F.alpha_dropout(kt.tensor(x), p, training).to_numpy()
        np.testing.assert_array_equal(ours, T(torch.tensor(x), p, training).numpy())
    np.testing.assert_array_equal(F.alpha_dropout(kt.tensor(x)).to_numpy(), x)
    with pytest.raises(ValueError, match="probability"):
        F.alpha_dropout(kt.tensor(x), 1.5)


@task4_4
def test_alpha_dropout_gradient_matches_central_differences():
    def seeded(x):
        kt.manual_seed(3)  # (the same draw at every evaluation)
        return F.alpha_dropout(x, 0.4, True)

    check_grad(seeded, [RNG.normal(size=(4, 5))])
    x = kt.tensor(RNG.normal(size=(30, 40)), requires_grad=True)
    out = F.alpha_dropout(x, 0.4, True)
    out.sum().backward()
    a, _, dropped = _alpha_constants(0.4)
    is_dropped = np.isclose(out.to_numpy(), dropped, rtol=0, atol=1e-12)
    np.testing.assert_allclose(x.grad.to_numpy(), np.where(is_dropped, 0.0, a))


@task4_4
def test_alpha_dropout_inplace_writes_into_its_input():
    x = kt.tensor(RNG.normal(size=(50, 60)))
    before = x.to_numpy().copy()
    out = F.alpha_dropout(x, 0.2, True, True)
    assert out is x
    a, kept, dropped = _alpha_constants(0.2)
    after = x.to_numpy()
    is_dropped = np.isclose(after, dropped, rtol=0, atol=1e-12)
    np.testing.assert_allclose(after[~is_dropped], a * before[~is_dropped] + kept)
    assert 0.1 < is_dropped.mean() < 0.3


@task4_6
@pytest.mark.parametrize("shape", [(20, 30, 7), (30, 7)])
def test_dropout1d_drops_whole_channels(shape):
    x = RNG.normal(size=shape) + 5.0  # (no zero of its own)
    layer = nn.Dropout1d(0.4)
    out = layer(kt.tensor(x)).to_numpy()
    assert out.shape == x.shape
    zeroed = (out == 0.0).all(axis=-1)
    assert ((out == 0.0).any(axis=-1) == zeroed).all()  # a channel: all or none
    np.testing.assert_allclose(out[~zeroed], x[~zeroed] / 0.6)
    assert 0.25 < zeroed.mean() < 0.55
    layer.eval()
    np.testing.assert_array_equal(layer(kt.tensor(x)).to_numpy(), x)


@task4_6
def test_alpha_dropout_layer_trains_and_evaluates():
    x = RNG.normal(size=(100, 100))
    layer = nn.AlphaDropout(0.3)
    out = layer(kt.tensor(x)).to_numpy()
    _, _, dropped = _alpha_constants(0.3)
    assert 0.25 < np.isclose(out, dropped, rtol=0, atol=1e-12).mean() < 0.35
    layer.eval()
    np.testing.assert_array_equal(layer(kt.tensor(x)).to_numpy(), x)


@task4_6
@pytest.mark.parametrize("name", ["Dropout1d", "AlphaDropout"])
def test_dropout_layers_print_as_pytorchs(name):
    torch = import_torch()
    for args in [(), (0.2,), (0.3, True)]:
        ours, theirs = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
        assert repr(ours) == repr(theirs)
