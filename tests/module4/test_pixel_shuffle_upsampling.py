"""``F.pixel_shuffle``/``F.pixel_unshuffle``, ``nn.PixelShuffle``,
``nn.PixelUnshuffle``, ``nn.UpsamplingNearest2d``, ``nn.UpsamplingBilinear2d``
and ``nn.Unfold`` (given, ``_spatial_functions.py`` and ``_spatial_layers.py``):
values, reprs and gradients against ``torch``, gradients against central
differences."""

from __future__ import annotations

import numpy as np
import pytest

import module4_networks as kt
from module4_networks import nn
from module4_networks.nn import functional as F
from tests.module4.helpers import check_grad
from tests.pytorch_reference import import_torch

RNG = np.random.default_rng(9)


def _matches_torch(ours, theirs, x, torch):
    """Output and input gradient of ``ours`` and ``theirs`` at ``x``."""
    a, b = kt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out, t_out = ours(a), theirs(b)
    np.testing.assert_allclose(out.to_numpy(), t_out.detach().numpy(), atol=1e-12)
    g = RNG.normal(size=out.shape)
    (out * kt.tensor(g)).sum().backward()
    t_out.backward(torch.tensor(g))
    np.testing.assert_allclose(a.grad.to_numpy(), b.grad.numpy(), atol=1e-12)


@pytest.mark.task2_6
@pytest.mark.parametrize("shape", [(2, 8, 3, 2), (8, 2, 3), (2, 1, 12, 2, 1)])
def test_pixel_shuffle_and_unshuffle_match_pytorch(shape):
    torch = import_torch()
    x = RNG.normal(size=shape)
    TF = torch.nn.functional
    _matches_torch(
        lambda t: F.pixel_shuffle(t, 2), lambda t: TF.pixel_shuffle(t, 2), x, torch
    )
    y = RNG.normal(size=shape[:-2] + (4, 6))
    _matches_torch(
        lambda t: F.pixel_unshuffle(t, 2),
        lambda t: TF.pixel_unshuffle(t, 2),
        y,
        torch,
    )
    back = F.pixel_shuffle(F.pixel_unshuffle(kt.tensor(y), 2), 2)
    np.testing.assert_array_equal(back.to_numpy(), y)


@pytest.mark.task2_6
def test_pixel_shuffle_gradients_against_central_differences():
    check_grad(lambda x: F.pixel_shuffle(x, 2), [RNG.normal(size=(1, 4, 2, 3))])
    check_grad(lambda x: F.pixel_unshuffle(x, 2), [RNG.normal(size=(1, 2, 4, 2))])


@pytest.mark.task4_6
def test_layers_match_pytorch():
    torch = import_torch()
    x = RNG.normal(size=(2, 4, 4, 6))
    layers = [
        (nn.PixelShuffle(2), torch.nn.PixelShuffle(2)),
        (nn.PixelUnshuffle(2), torch.nn.PixelUnshuffle(2)),
        (nn.UpsamplingNearest2d(scale_factor=2), torch.nn.UpsamplingNearest2d(None, 2)),
        (nn.UpsamplingNearest2d((5, 9)), torch.nn.UpsamplingNearest2d((5, 9))),
        (
            nn.UpsamplingBilinear2d(scale_factor=3),
            torch.nn.UpsamplingBilinear2d(None, 3),
        ),
        (nn.UpsamplingBilinear2d(size=(7, 5)), torch.nn.UpsamplingBilinear2d((7, 5))),
        (nn.Unfold(2), torch.nn.Unfold(2)),
        (nn.Unfold((2, 3), 2, 1, (1, 2)), torch.nn.Unfold((2, 3), 2, 1, (1, 2))),
    ]
    for ours, theirs in layers:
        assert repr(ours) == repr(theirs)
        _matches_torch(ours, theirs, x, torch)


@pytest.mark.task4_6
def test_layer_gradients_against_central_differences():
    x = RNG.normal(size=(1, 2, 3, 2))
    for layer in (nn.UpsamplingBilinear2d(scale_factor=2), nn.Unfold(2, padding=1)):
        check_grad(layer, [x])
