"""``F.rms_norm`` and ``nn.RMSNorm`` (PyTorch 2.4+): $x / \\sqrt{\\overline{x^2}
+ \\epsilon}\\, \\gamma$ over the trailing dims. Values and gradients against
PyTorch's and central differences; a hand-worked case; the layer's parameters,
repr and ``eps=None`` (the dtype's machine epsilon). Given code."""

from __future__ import annotations

import numpy as np
import pytest

import module4_networks as kt
from module4_networks import nn
from module4_networks.nn import functional as F
from tests.pytorch_reference import assert_same_function, import_torch

pytestmark = pytest.mark.task4_6

RNG = np.random.default_rng(4)


def test_rms_norm_by_hand():
    # [3, 4]: mean square 12.5, so y = x / sqrt(12.5 + eps)
    y = F.rms_norm(kt.tensor([[3.0, 4.0]]), (2,), eps=0.0)
    np.testing.assert_allclose(y.to_numpy(), [[3 / 12.5**0.5, 4 / 12.5**0.5]])
    w = kt.tensor([2.0, -1.0])
    y = F.rms_norm(kt.tensor([[3.0, 4.0]]), 2, w, eps=3.5)  # sqrt(16) = 4
    np.testing.assert_allclose(y.to_numpy(), [[1.5, -1.0]])


@pytest.mark.parametrize("shape, eps", [((4,), None), ((3, 4), 1e-3), ((4,), 0.5)])
def test_rms_norm_matches_pytorch(shape, eps):
    torch = import_torch()
    x, w = RNG.normal(size=(2, 3, 4)), RNG.normal(size=shape)
    assert_same_function(
        lambda a, b: F.rms_norm(a, shape, b, eps),
        lambda a, b: torch.nn.functional.rms_norm(a, shape, b, eps),
        x,
        w,
        rng=RNG,
        rtol=1e-10,
    )


def test_eps_none_is_the_dtypes_machine_epsilon():
    zeros = kt.zeros(1, 2)
    # 0 / sqrt(0 + eps) is 0 whatever eps, so read eps off 1e-9 instead
    tiny = kt.full((1, 2), 1e-9, dtype=kt.float32)
    expected = 1e-9 / np.sqrt(1e-18 + np.finfo(np.float32).eps)
    np.testing.assert_allclose(F.rms_norm(tiny, 2).to_numpy(), expected, rtol=1e-6)
    assert F.rms_norm(zeros, 2).tolist() == [[0.0, 0.0]]


def test_the_layer_matches_pytorch():
    torch = import_torch()
    ours, theirs = nn.RMSNorm([3, 4]), torch.nn.RMSNorm([3, 4], dtype=torch.float64)
    assert (
        repr(ours)
        == repr(theirs)
        == "RMSNorm((3, 4), eps=None, elementwise_affine=True)"
    )
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["weight"]
    w = RNG.normal(size=(3, 4))
    ours.weight.value = kt.tensor(w)
    with torch.no_grad():
        theirs.weight.copy_(torch.tensor(w))
    x = RNG.normal(size=(2, 3, 4))
    np.testing.assert_allclose(
        ours(kt.tensor(x)).to_numpy(),
        theirs(torch.tensor(x)).detach().numpy(),
        rtol=1e-12,
    )
    plain = nn.RMSNorm(4, eps=1e-6, elementwise_affine=False)
    assert plain.weight is None and list(plain.parameters()) == []
    assert repr(plain) == repr(torch.nn.RMSNorm(4, 1e-6, elementwise_affine=False))


def test_a_shape_that_is_not_the_inputs_trailing_shape_raises():
    with pytest.raises(ValueError, match="rms_norm: normalized_shape"):
        F.rms_norm(kt.zeros(2, 3, 4), (3,))
    with pytest.raises(ValueError, match="layer_norm: normalized_shape"):
        F.layer_norm(kt.zeros(2, 3, 4), (3,))
