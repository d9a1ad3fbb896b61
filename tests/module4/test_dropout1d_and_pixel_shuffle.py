"""``F.dropout1d``/``nn.Dropout1d`` (whole channels of ``(N, C, L)`` or ``(C,
L)``) and ``F.pixel_shuffle``/``pixel_unshuffle`` with their layers: values
against PyTorch and by hand, the dropout's channel masks, reprs and errors.
Given code."""

from __future__ import annotations

import numpy as np
import pytest

import module4_networks as kt
from module4_networks import nn
from module4_networks.nn import functional as F
from tests.pytorch_reference import import_torch

pytestmark = pytest.mark.task4_6

RNG = np.random.default_rng(48)


@pytest.mark.parametrize("shape", [(4, 60, 7), (60, 7)])
def test_dropout1d_drops_whole_channels(shape):
    kt.manual_seed(0)
    out = F.dropout1d(kt.ones(*shape), 0.5).to_numpy().reshape(-1, shape[-1])
    assert set(np.unique(out)) == {0.0, 2.0}  # kept ones scaled by 1 / (1 - p)
    assert all(len(set(row)) == 1 for row in out)  # a channel is all kept or not
    assert 0.25 < (out[:, 0] == 0).mean() < 0.75
    x = kt.ones(*shape)
    assert F.dropout1d(x, 0.5, training=False).tolist() == x.tolist()


def test_dropout1d_layer():
    torch = import_torch()
    layer = nn.Dropout1d(0.3)
    assert (
        repr(layer)
        == repr(torch.nn.Dropout1d(0.3))
        == "Dropout1d(p=0.3, inplace=False)"
    )
    x = kt.tensor(RNG.normal(size=(2, 3, 4)))
    layer.eval()
    assert layer(x).tolist() == x.tolist()
    with pytest.raises(RuntimeError, match="Expected 2D or 3D input"):
        F.dropout1d(kt.ones(2, 3, 4, 5))


def test_pixel_shuffle_by_hand():
    # channel c r^2 + i r + j goes to pixel (h r + i, w r + j)
    x = kt.arange(4.0).reshape(1, 4, 1, 1)
    assert F.pixel_shuffle(x, 2).tolist() == [[[[0.0, 1.0], [2.0, 3.0]]]]
    assert F.pixel_unshuffle(F.pixel_shuffle(x, 2), 2).tolist() == x.tolist()


@pytest.mark.parametrize(
    "shape, r", [((2, 8, 3, 4), 2), ((9, 2, 2), 3), ((1, 2, 8, 2, 3), 2)]
)
def test_pixel_shuffle_matches_pytorch(shape, r):
    torch = import_torch()
    x = RNG.normal(size=shape)
    ours = kt.tensor(x, requires_grad=True)
    theirs = torch.tensor(x, requires_grad=True)
    got, expected = nn.PixelShuffle(r)(ours), torch.nn.PixelShuffle(r)(theirs)
    assert got.shape == tuple(expected.shape)
    np.testing.assert_array_equal(got.to_numpy(), expected.detach().numpy())
    g = RNG.normal(size=tuple(expected.shape))
    got.backward(kt.tensor(g))
    expected.backward(torch.tensor(g))
    np.testing.assert_array_equal(ours.grad.to_numpy(), theirs.grad.numpy())
    y = expected.detach().numpy()
    back = nn.PixelUnshuffle(r)(kt.tensor(y)).to_numpy()
    np.testing.assert_array_equal(
        back, torch.nn.PixelUnshuffle(r)(torch.tensor(y)).numpy()
    )
    assert repr(nn.PixelShuffle(r)) == repr(torch.nn.PixelShuffle(r))
    assert repr(nn.PixelUnshuffle(r)) == repr(torch.nn.PixelUnshuffle(r))


def test_pixel_shuffle_errors():
    with pytest.raises(RuntimeError, match="divisible by the square of upscale_factor"):
        F.pixel_shuffle(kt.ones(1, 3, 2, 2), 2)
    with pytest.raises(RuntimeError, match="divisible by downscale_factor"):
        F.pixel_unshuffle(kt.ones(1, 3, 3, 2), 2)
