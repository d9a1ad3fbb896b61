"""Pooling as PyTorch does it (issue 13; each test carries the marker
of the task whose code it runs):
overlapping windows, padding, ``ceil_mode``, ``count_include_pad`` and adaptive
average pooling, against direct NumPy loops and central differences."""

from __future__ import annotations

import math

import numpy as np
import pytest

import module4_networks as kt
from module4_networks import functional as F
from module4_networks import nn


def pool_reference(x, k, s, p, ceil_mode, kind, count_include_pad=True):
    """PyTorch's pooling, written out: windows over the padded input; with
    ceil_mode a last partial window if it starts inside input or left padding."""
    n, c, h, w = x.shape
    fill = -np.inf if kind == "max" else 0.0
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])), constant_values=fill)

    def size(length, kk, ss, pp):
        span = length + 2 * pp - kk
        out = (math.ceil(span / ss) if ceil_mode else span // ss) + 1
        if ceil_mode and (out - 1) * ss >= length + pp:
            out -= 1
        return out

    oh, ow = size(h, k[0], s[0], p[0]), size(w, k[1], s[1], p[1])
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * s[0], j * s[1]
            r1, c1 = min(r0 + k[0], h + 2 * p[0]), min(c0 + k[1], w + 2 * p[1])
            window = xp[:, :, r0:r1, c0:c1]
            if kind == "max":
                out[:, :, i, j] = window.max(axis=(2, 3))
            elif count_include_pad:
                out[:, :, i, j] = window.sum(axis=(2, 3)) / ((r1 - r0) * (c1 - c0))
            else:
                rows = range(max(r0, p[0]), min(r1, h + p[0]))
                cols = range(max(c0, p[1]), min(c1, w + p[1]))
                out[:, :, i, j] = window.sum(axis=(2, 3)) / (len(rows) * len(cols))
    return out


CASES = [
    ((3, 3), (2, 2), (1, 1), False),
    ((3, 2), (1, 2), (0, 1), True),
    ((2, 2), (2, 2), (0, 0), True),
    ((3, 3), (2, 1), (1, 0), True),
]


@pytest.mark.task4_4
@pytest.mark.parametrize("k, s, p, ceil_mode", CASES)
def test_pooling_matches_pytorch_rules(k, s, p, ceil_mode):
    x = np.random.default_rng(0).standard_normal((2, 2, 7, 6))
    got = F.max_pool2d(kt.tensor(x), k, s, p, ceil_mode=ceil_mode)
    np.testing.assert_allclose(
        got.to_numpy(), pool_reference(x, k, s, p, ceil_mode, "max")
    )
    got = F.avg_pool2d(kt.tensor(x), k, s, p, ceil_mode)
    expected = pool_reference(x, k, s, p, ceil_mode, "avg")
    np.testing.assert_allclose(got.to_numpy(), expected)
    got = F.avg_pool2d(kt.tensor(x), k, s, p, ceil_mode, count_include_pad=False)
    expected = pool_reference(x, k, s, p, ceil_mode, "avg", count_include_pad=False)
    np.testing.assert_allclose(got.to_numpy(), expected)


@pytest.mark.task4_4
def test_pooling_gradients():
    x = kt.tensor(
        np.random.default_rng(1).standard_normal((1, 1, 5, 5)), requires_grad=True
    )
    kt.grad_check(lambda a: F.max_pool2d(a, 3, 2, 1, ceil_mode=True), x)
    kt.grad_check(lambda a: F.avg_pool2d(a, 2, 1, 1), x)
    kt.grad_check(lambda a: F.adaptive_avg_pool2d(a, (2, 3)), x)


@pytest.mark.task2_6
def test_adaptive_avg_pool_matches_its_windows():
    x = np.arange(2 * 5 * 7, dtype=np.float64).reshape(1, 2, 5, 7)
    got = nn.AdaptiveAvgPool2d((2, 3))(kt.tensor(x)).to_numpy()
    rows, cols = [(0, 3), (2, 5)], [(0, 3), (2, 5), (4, 7)]
    for i, (r0, r1) in enumerate(rows):
        for j, (c0, c1) in enumerate(cols):
            np.testing.assert_allclose(
                got[..., i, j], x[..., r0:r1, c0:c1].mean((2, 3))
            )
    assert nn.AdaptiveAvgPool2d(1)(kt.tensor(x)).shape == (1, 2, 1, 1)


@pytest.mark.task4_4
def test_pool_layers_take_the_options():
    x = kt.rand(1, 1, 6, 6)
    assert nn.MaxPool2d(3, stride=2, padding=1)(x).shape == (1, 1, 3, 3)
    assert nn.AvgPool2d(2, stride=1, ceil_mode=True)(x).shape == (1, 1, 5, 5)
