"""Convolution options of PyTorch (issue 13; each test carries
the marker of the task whose code it runs):
``dilation``, ``groups``, ``padding="same"``/``"valid"``, checked against a
direct NumPy sum and by central differences."""

from __future__ import annotations

import numpy as np
import pytest

import module4_networks as kt
from module4_networks import functional as F
from module4_networks import nn


def conv2d_reference(x, w, b, stride, pads, dilation, groups):
    """out[n, o, i, j] = b[o] + sum over the group's channels and taps."""
    (sh, sw), (dh, dw) = stride, dilation
    top, bottom, left, right = pads
    x = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    oh = (h - dh * (kh - 1) - 1) // sh + 1
    ow = (wd - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, o, oh, ow))
    per_group = o // groups
    for oc in range(o):
        g = oc // per_group
        for i in range(oh):
            for j in range(ow):
                patch = x[
                    :,
                    g * cg : (g + 1) * cg,
                    i * sh : i * sh + dh * (kh - 1) + 1 : dh,
                    j * sw : j * sw + dw * (kw - 1) + 1 : dw,
                ]
                out[:, oc, i, j] = (patch * w[oc]).sum(axis=(1, 2, 3)) + b[oc]
    return out


CASES = [
    # stride, padding, dilation, groups, pads of the reference
    ((1, 1), (1, 0), (2, 1), 1, (1, 1, 0, 0)),
    ((2, 1), (0, 1), (1, 2), 2, (0, 0, 1, 1)),
    ((1, 1), "same", (2, 2), 2, (2, 2, 1, 1)),
    ((1, 1), "valid", (1, 1), 4, (0, 0, 0, 0)),
]


@pytest.mark.task4_2
@pytest.mark.parametrize("stride, padding, dilation, groups, pads", CASES)
def test_conv2d_options_match_numpy(stride, padding, dilation, groups, pads):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4, 6, 5))
    w = rng.standard_normal((4, 4 // groups, 3, 2))
    b = rng.standard_normal(4)
    expected = conv2d_reference(x, w, b, stride, pads, dilation, groups)
    got = F.conv2d(
        kt.tensor(x), kt.tensor(w), kt.tensor(b), stride, padding, dilation, groups
    )
    np.testing.assert_allclose(got.to_numpy(), expected, atol=1e-12)


@pytest.mark.task4_1
def test_conv_options_have_gradients():
    rng = np.random.default_rng(1)
    x = kt.tensor(rng.standard_normal((1, 2, 5)), requires_grad=True)
    w = kt.tensor(rng.standard_normal((2, 1, 3)), requires_grad=True)
    kt.grad_check(lambda a, k: F.conv1d(a, k, None, 1, "same", 2, 2), x, w)


@pytest.mark.task4_6
def test_same_padding_keeps_the_size_and_layers_take_the_options():
    layer = nn.Conv2d(4, 6, 3, padding="same", dilation=2, groups=2)
    assert layer.weight.value.shape == (6, 2, 3, 3)
    assert layer(kt.rand(1, 4, 7, 7)).shape == (1, 6, 7, 7)
    assert "groups=2" in repr(layer)
    assert nn.Conv1d(2, 2, 4, padding="same")(kt.rand(1, 2, 9)).shape == (1, 2, 9)
    with pytest.raises(ValueError, match="divisible by groups"):
        nn.Conv2d(3, 6, 3, groups=2)
    with pytest.raises(ValueError, match="strided"):
        F.conv1d(kt.rand(1, 2, 9), kt.rand(2, 2, 3), stride=2, padding="same")


@pytest.mark.parametrize(
    "conv, spatial",
    [
        pytest.param(F.conv1d, 1, marks=pytest.mark.task4_1),
        pytest.param(F.conv2d, 2, marks=pytest.mark.task4_2),
    ],
)
@pytest.mark.parametrize("stride, padding", [(1, 0), (2, 1)])
def test_a_batch_of_zero_gives_an_empty_output_and_zero_gradients(
    conv, spatial, stride, padding
):
    """As PyTorch's: an input of batch 0 gives an output of batch 0 whose other
    sizes are the usual ones ((5 + 2p - 2) // s + 1 = 4, or 3 with s=2, p=1), and
    the weight and bias gradients are zero (there are no examples)."""
    x = kt.tensor(np.zeros((0, 2) + (5,) * spatial), requires_grad=True)
    w = kt.tensor(np.ones((3, 2) + (2,) * spatial), requires_grad=True)
    b = kt.tensor(np.ones(3), requires_grad=True)
    out = conv(x, w, b, stride=stride, padding=padding)
    assert out.shape == (0, 3) + ((5 + 2 * padding - 2) // stride + 1,) * spatial
    out.sum().backward()
    assert x.grad.shape == x.shape
    np.testing.assert_array_equal(w.grad.to_numpy(), np.zeros(w.shape))
    np.testing.assert_array_equal(b.grad.to_numpy(), np.zeros(3))
