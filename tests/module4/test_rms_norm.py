"""``nn.RMSNorm`` and ``F.rms_norm`` (given, ``_normalization_layers.py`` and
``_normalization_functions.py``): values, gradients, ``eps=None`` (the dtype's
machine epsilon), the repr and the shape check, against ``torch`` (2.4+) and
central differences."""

from __future__ import annotations

import numpy as np
import pytest

import module4_networks as kt
from module4_networks import nn
from module4_networks.nn import functional as F
from tests.module4.helpers import check_grad
from tests.pytorch_reference import import_torch

RNG = np.random.default_rng(7)
task4_6 = pytest.mark.task4_6


def _reference(x, w, eps):
    axes = tuple(range(x.ndim - w.ndim, x.ndim))
    return x / np.sqrt((x * x).mean(axes, keepdims=True) + eps) * w


@pytest.mark.task2_6
@pytest.mark.parametrize("shape", [(4,), (3, 4)])
def test_rms_norm_gradients_against_central_differences(shape):
    x, w = RNG.normal(size=(2,) + shape), RNG.normal(size=shape)
    check_grad(
        lambda x, w: F.rms_norm(x, shape, w, 1e-3),
        [x, w],
        reference=lambda x, w: _reference(x, w, 1e-3),
    )
    check_grad(lambda x: F.rms_norm(x, shape[-1]), [x])


@pytest.mark.task2_6
@pytest.mark.parametrize("eps", [None, 1e-2])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rms_norm_matches_pytorch_values_and_gradients(eps, dtype):
    torch = import_torch()
    # tiny entries: mean(x^2) is below float32's epsilon, so eps=None shows
    x, w = RNG.normal(size=(2, 3, 4)) * 1e-4, RNG.normal(size=(3, 4))
    ours = [kt.tensor(a.astype(dtype), requires_grad=True) for a in (x, w)]
    theirs = [torch.tensor(a.astype(dtype), requires_grad=True) for a in (x, w)]
    got = F.rms_norm(ours[0], [3, 4], ours[1], eps)
    want = torch.nn.functional.rms_norm(theirs[0], [3, 4], theirs[1], eps)
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(got.to_numpy(), want.detach().numpy(), rtol=tol)
    assert got.dtype.name == dtype
    g = RNG.normal(size=x.shape)
    (got * kt.tensor(g)).sum().backward()
    want.backward(torch.tensor(g.astype(dtype)))
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.grad.to_numpy(), b.grad.numpy(), rtol=tol * 10)


@task4_6
def test_rms_norm_layer_matches_pytorch():
    torch = import_torch()
    for args in [((4,),), ([3, 4], 1e-6, False), (4, 0.1)]:
        ours, theirs = nn.RMSNorm(*args), torch.nn.RMSNorm(*args)
        assert repr(ours) == repr(theirs)
        assert list(ours.state_dict()) == list(theirs.state_dict())
        if ours.weight is not None:
            w = RNG.normal(size=ours.weight.shape)
            ours.weight.value = kt.tensor(w)
            theirs.weight.data = torch.tensor(w)
        x = RNG.normal(size=(2, 3, 4))
        np.testing.assert_allclose(
            ours(kt.tensor(x)).to_numpy(),
            theirs(torch.tensor(x)).detach().numpy(),
            rtol=1e-12,
        )


@task4_6
def test_rms_norm_refuses_a_shape_that_is_not_the_last_dims():
    with pytest.raises(ValueError, match="normalized_shape"):
        F.rms_norm(kt.tensor(np.ones((2, 3))), [2])
    with pytest.raises(ValueError, match="normalized_shape"):
        nn.RMSNorm([2, 3])(kt.tensor(np.ones((2, 4))))
