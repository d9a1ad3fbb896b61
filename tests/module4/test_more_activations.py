"""The activations ``selu``, ``celu``, ``softsign``, ``softmin``, ``hardsigmoid``,
``hardswish``, ``hardshrink``, ``softshrink``, ``tanhshrink``, ``threshold`` and
``glu`` (given, ``_activation_functions.py``) and their layers
(``_activation_layers.py``, with ``Softmax2d``): values and gradients as
``torch``'s, at the kinks too, gradients against central differences of NumPy
references (PyTorch's documented formulas), and the layers' reprs as PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import module4_networks as kt
from module4_networks import nn
from module4_networks.nn import functional as F
from tests.module4.helpers import check_grad
from tests.pytorch_reference import import_torch

task2_6 = pytest.mark.task2_6
RNG = np.random.default_rng(7)
X = RNG.normal(size=(3, 4, 6)) * 3.0
# The kinks: 0, the shrinkages' +-0.5, hardsigmoid's and hardswish's +-3, and
# threshold's 0.25, exactly.
KINKS = np.array([0.0, 0.5, -0.5, 3.0, -3.0, 0.25, 1.0, -1.0])
ALPHA, SCALE = 1.6732632423543772, 1.0507009873554805


def _softmin(x, dim):
    e = np.exp(-x - np.max(-x, axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


# name: (ours, torch's, the NumPy reference)
ACTIVATIONS = {
    "selu": (
        F.selu,
        lambda T, x: T.nn.functional.selu(x),
        lambda x: SCALE * np.where(x > 0, x, ALPHA * np.expm1(np.minimum(x, 0))),
    ),
    "celu": (
        lambda x: F.celu(x, 0.5),
        lambda T, x: T.nn.functional.celu(x, 0.5),
        lambda x: np.where(x > 0, x, 0.5 * np.expm1(np.minimum(x, 0) / 0.5)),
    ),
    "softsign": (
        F.softsign,
        lambda T, x: T.nn.functional.softsign(x),
        lambda x: x / (1 + np.abs(x)),
    ),
    "softmin": (
        lambda x: F.softmin(x, 0),
        lambda T, x: T.nn.functional.softmin(x, 0),
        lambda x: _softmin(x, 0),
    ),
    "hardsigmoid": (
        F.hardsigmoid,
        lambda T, x: T.nn.functional.hardsigmoid(x),
        lambda x: np.clip(x + 3, 0, 6) / 6,
    ),
    "hardswish": (
        F.hardswish,
        lambda T, x: T.nn.functional.hardswish(x),
        lambda x: x * np.clip(x + 3, 0, 6) / 6,
    ),
    "hardshrink": (
        F.hardshrink,
        lambda T, x: T.nn.functional.hardshrink(x),
        lambda x: np.where(np.abs(x) > 0.5, x, 0.0),
    ),
    "softshrink": (
        lambda x: F.softshrink(x, 0.5),
        lambda T, x: T.nn.functional.softshrink(x, 0.5),
        lambda x: np.sign(x) * np.maximum(np.abs(x) - 0.5, 0.0),
    ),
    "tanhshrink": (
        F.tanhshrink,
        lambda T, x: T.nn.functional.tanhshrink(x),
        lambda x: x - np.tanh(x),
    ),
    "threshold": (
        lambda x: F.threshold(x, 0.25, -2.0),
        lambda T, x: T.nn.functional.threshold(x, 0.25, -2.0),
        lambda x: np.where(x > 0.25, x, -2.0),
    ),
    "glu": (
        F.glu,
        lambda T, x: T.nn.functional.glu(x),
        lambda x: x[..., :3] * _sigmoid(x[..., 3:]),
    ),
    "glu_dim1": (
        lambda x: F.glu(x, 1),
        lambda T, x: T.nn.functional.glu(x, 1),
        lambda x: np.split(x, 2, 1)[0] * _sigmoid(np.split(x, 2, 1)[1]),
    ),
}


@task2_6
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activations_match_their_formulas_and_central_differences(name):
    ours, _, reference = ACTIVATIONS[name]
    check_grad(ours, [X[0]], reference=reference)


@task2_6
@pytest.mark.parametrize("at_kinks", [False, True])
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activations_match_pytorch(name, at_kinks):
    # Values and gradients, at the kinks (exactly 0, +-lambd, +-3) too.
    torch = import_torch()
    ours, theirs, _ = ACTIVATIONS[name]
    x = np.tile(KINKS, (3, 4, 1)) if at_kinks else X
    k, t = kt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    k_out, t_out = ours(k), theirs(torch, t)
    np.testing.assert_allclose(
        k_out.to_numpy(), t_out.detach().numpy(), rtol=1e-12, atol=1e-14
    )
    weights = np.random.default_rng(1).normal(size=k_out.shape)
    (k_out * kt.tensor(weights)).sum().backward()
    (t_out * torch.tensor(weights)).sum().backward()
    # (PyTorch's hardsigmoid backward multiplies by 1/6 rounded to float32)
    rtol = 1e-7 if name == "hardsigmoid" else 1e-12
    np.testing.assert_allclose(k.grad.to_numpy(), t.grad.numpy(), rtol=rtol, atol=1e-14)


@task2_6
@pytest.mark.parametrize("name", ["selu", "hardswish", "hardshrink", "threshold"])
def test_nan_stays_nan_as_in_pytorch(name):
    torch = import_torch()
    ours, theirs, _ = ACTIVATIONS[name]
    x = np.array([np.nan, 1.0, -1.0, np.nan])
    np.testing.assert_array_equal(
        ours(kt.tensor(x)).to_numpy(), theirs(torch, torch.tensor(x)).numpy()
    )


@task2_6
@pytest.mark.parametrize(
    "name, args",
    [("selu", ()), ("celu", (0.5,)), ("hardsigmoid", ()), ("hardswish", ())]
    + [("threshold", (0.1, 7.0))],
)
def test_inplace_writes_into_the_input_and_keeps_the_gradient(name, args):
    torch = import_torch()
    leaf = kt.tensor(X, requires_grad=True)
    x = leaf * 1.0
    out = getattr(F, name)(x, *args, inplace=True)
    assert out is x
    out.sum().backward()
    t_leaf = torch.tensor(X, requires_grad=True)
    t_out = getattr(torch.nn.functional, name)(t_leaf * 1.0, *args, inplace=True)
    t_out.sum().backward()
    np.testing.assert_allclose(x.to_numpy(), t_out.detach().numpy(), rtol=1e-12)
    rtol = 1e-7 if name == "hardsigmoid" else 1e-12  # (torch's float32 1/6)
    np.testing.assert_allclose(leaf.grad.to_numpy(), t_leaf.grad.numpy(), rtol=rtol)


@task2_6
def test_glu_needs_an_even_dimension():
    with pytest.raises(RuntimeError, match="even"):
        F.glu(kt.tensor(np.ones((2, 3))))


@task2_6
def test_activation_layers_are_their_functions():
    x = kt.tensor(X)
    for module, function in [
        (nn.SELU(), F.selu),
        (nn.CELU(0.5), lambda t: F.celu(t, 0.5)),
        (nn.Softsign(), F.softsign),
        (nn.Softmin(1), lambda t: F.softmin(t, 1)),
        (nn.Hardsigmoid(), F.hardsigmoid),
        (nn.Hardswish(), F.hardswish),
        (nn.Hardshrink(0.3), lambda t: F.hardshrink(t, 0.3)),
        (nn.Softshrink(0.3), lambda t: F.softshrink(t, 0.3)),
        (nn.Tanhshrink(), F.tanhshrink),
        (nn.Threshold(0.1, 20.0), lambda t: F.threshold(t, 0.1, 20.0)),
        (nn.GLU(1), lambda t: F.glu(t, 1)),
        (nn.Softmax2d(), lambda t: t.softmax(-3)),
    ]:
        np.testing.assert_array_equal(module(x).to_numpy(), function(x).to_numpy())


@task2_6
def test_softmax2d_matches_pytorch():
    torch = import_torch()
    x = RNG.normal(size=(2, 3, 4, 5))
    want = torch.nn.Softmax2d()(torch.tensor(x)).numpy()
    np.testing.assert_allclose(
        nn.Softmax2d()(kt.tensor(x)).to_numpy(), want, rtol=1e-12
    )


@task2_6
@pytest.mark.parametrize(
    "name, args, kwargs",
    [
        ("SELU", (), {}),
        ("SELU", (True,), {}),
        ("CELU", (0.5,), {}),
        ("CELU", (), {"inplace": True}),
        ("Softsign", (), {}),
        ("Softmin", (), {}),
        ("Softmin", (1,), {}),
        ("Hardsigmoid", (True,), {}),
        ("Hardswish", (), {"inplace": True}),
        ("Hardshrink", (), {}),
        ("Hardshrink", (0.25,), {}),
        ("Softshrink", (), {"lambd": 0.55}),
        ("Tanhshrink", (), {}),
        ("Threshold", (0.1, 20), {}),
        ("Threshold", (0.1, 20.0, True), {}),
        ("GLU", (), {}),
        ("GLU", (1,), {}),
        ("Softmax2d", (), {}),
    ],
)
def test_layers_print_as_pytorchs(name, args, kwargs):
    torch = import_torch()
    ours, theirs = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(
        *args, **kwargs
    )
    assert repr(ours) == repr(theirs)
