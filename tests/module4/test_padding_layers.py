"""The padding layers ``ZeroPad1d/2d/3d``, ``ConstantPad1d/2d/3d``,
``ReflectionPad1d/2d/3d``, ``ReplicationPad1d/2d/3d`` and ``CircularPad1d/2d/3d``
(given, ``_spatial_layers.py``, over ``F.pad``): values and gradients as
``torch``'s, the gradients against central differences, and reprs as PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import module4_networks as kt
from module4_networks import nn
from tests.module4.helpers import check_grad
from tests.pytorch_reference import import_torch

task2_6 = pytest.mark.task2_6
RNG = np.random.default_rng(3)
KINDS = ["Zero", "Constant", "Reflection", "Replication", "Circular"]
PADDINGS = {1: [2, (1, 2)], 2: [1, (1, 2, 0, 2)], 3: [1, (2, 1, 0, 1, 1, 0)]}


def _make(module, kind, dims, padding):
    args = (padding, 2.5) if kind == "Constant" else (padding,)
    return getattr(module, f"{kind}Pad{dims}d")(*args)


@task2_6
@pytest.mark.parametrize("batched", [False, True])
@pytest.mark.parametrize("dims", [1, 2, 3])
@pytest.mark.parametrize("kind", KINDS)
def test_padding_layers_match_pytorch(kind, dims, batched):
    torch = import_torch()
    x = RNG.normal(size=(2,) * batched + (2,) + (3,) * dims)  # ([N,] C, *spatial)
    for padding in PADDINGS[dims]:
        ours, theirs = _make(nn, kind, dims, padding), _make(
            torch.nn, kind, dims, padding
        )
        assert repr(ours) == repr(theirs)
        assert ours.padding == theirs.padding and ours.value == getattr(
            theirs, "value", 0.0
        )
        k, t = kt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        k_out, t_out = ours(k), theirs(t)
        np.testing.assert_array_equal(k_out.to_numpy(), t_out.detach().numpy())
        weights = RNG.normal(size=k_out.shape)
        (k_out * kt.tensor(weights)).sum().backward()
        (t_out * torch.tensor(weights)).sum().backward()
        np.testing.assert_allclose(k.grad.to_numpy(), t.grad.numpy(), rtol=1e-12)


@task2_6
@pytest.mark.parametrize("kind", KINDS)
def test_padding_layers_gradients_match_central_differences(kind):
    layer = _make(nn, kind, 2, (1, 2, 2, 1))
    check_grad(layer, [RNG.normal(size=(2, 3, 4))])


@task2_6
def test_padding_layers_take_their_settings_as_pytorchs():
    assert nn.ZeroPad2d(1).padding == (1, 1, 1, 1) and nn.ZeroPad2d(1).value == 0.0
    assert nn.ConstantPad1d(2, 3).value == 3
    with pytest.raises(TypeError):
        nn.ConstantPad2d(1)  # (value is required, as PyTorch's)
    out = nn.ConstantPad1d((1, 0), -1.0)(kt.tensor([[1.0, 2.0]]))
    np.testing.assert_array_equal(out.to_numpy(), [[-1.0, 1.0, 2.0]])
    out = nn.ReflectionPad1d(2)(kt.tensor([[[1.0, 2.0, 3.0]]]))
    np.testing.assert_array_equal(
        out.to_numpy(), [[[3.0, 2.0, 1.0, 2.0, 3.0, 2.0, 1.0]]]
    )
