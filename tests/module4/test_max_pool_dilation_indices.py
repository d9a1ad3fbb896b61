"""``F.max_pool2d`` and ``nn.MaxPool2d`` with PyTorch's ``dilation`` and
``return_indices`` (given code on Task 4.4's ``max``): the maxima of dilated
windows and where each came from (``h * W + w`` in its input plane), against a
direct NumPy loop, central differences, and ``torch`` where installed."""

from __future__ import annotations

import math

import numpy as np
import pytest

import module4_networks as kt
from module4_networks import functional as F
from module4_networks import nn
from tests.module4.helpers import check_grad
from tests.pytorch_reference import import_torch

pytestmark = pytest.mark.task4_4
X = np.random.default_rng(0).normal(size=(2, 3, 7, 8))

# (kernel, stride, padding, dilation, ceil_mode)
CASES = [
    ((2, 2), (2, 2), (0, 0), (2, 2), False),
    ((3, 3), (2, 2), (1, 1), (2, 2), True),
    ((2, 3), (1, 2), (0, 1), (1, 2), False),
    ((2, 2), (2, 2), (0, 0), (1, 1), True),  # no dilation: only the indices
]


def reference(x, k, s, p, d, ceil_mode):
    """Dilated max pooling written out: values and flat input indices."""
    n, c, h, w = x.shape
    xp = np.pad(
        x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])), constant_values=-np.inf
    )

    def size(length, kk, ss, pp, dd):
        span = length + 2 * pp - (dd * (kk - 1) + 1)
        out = (math.ceil(span / ss) if ceil_mode else span // ss) + 1
        return out - 1 if ceil_mode and (out - 1) * ss >= length + pp else out

    oh, ow = size(h, k[0], s[0], p[0], d[0]), size(w, k[1], s[1], p[1], d[1])
    values, where = np.zeros((n, c, oh, ow)), np.zeros((n, c, oh, ow), dtype=int)
    for i in range(oh):
        for j in range(ow):
            best = np.full((n, c), -np.inf)
            for u in range(k[0]):
                for v in range(k[1]):
                    r, q = i * s[0] + u * d[0], j * s[1] + v * d[1]
                    if r >= xp.shape[2] or q >= xp.shape[3]:
                        continue
                    better = xp[:, :, r, q] > best
                    best = np.where(better, xp[:, :, r, q], best)
                    flat = (r - p[0]) * w + (q - p[1])
                    where[:, :, i, j] = np.where(better, flat, where[:, :, i, j])
            values[:, :, i, j] = best
    return values, where


@pytest.mark.parametrize("case", CASES)
def test_dilated_max_pool_values_indices_and_gradient(case):
    k, s, p, d, ceil_mode = case
    values, indices = F.max_pool2d(
        kt.tensor(X), k, s, p, d, ceil_mode, return_indices=True
    )
    want_values, want_indices = reference(X, k, s, p, d, ceil_mode)
    np.testing.assert_array_equal(values.to_numpy(), want_values)
    np.testing.assert_array_equal(indices.to_numpy(), want_indices)
    assert indices.dtype == kt.int64
    check_grad(
        lambda a: F.max_pool2d(a, k, s, p, d, ceil_mode),
        [X[:1, :2]],
        reference=lambda a: reference(a, k, s, p, d, ceil_mode)[0],
    )


@pytest.mark.parametrize("case", CASES)
def test_max_pool_options_match_pytorch(case):
    torch = import_torch()
    k, s, p, d, ceil_mode = case
    ours = nn.MaxPool2d(k, s, p, d, True, ceil_mode)  # PyTorch's positions
    theirs = torch.nn.MaxPool2d(
        k, s, p, dilation=d, return_indices=True, ceil_mode=ceil_mode
    )
    x, t = kt.tensor(X, requires_grad=True), torch.tensor(X, requires_grad=True)
    (v, i), (tv, ti) = ours(x), theirs(t)
    np.testing.assert_array_equal(v.to_numpy(), tv.detach().numpy())
    np.testing.assert_array_equal(i.to_numpy(), ti.numpy())
    weights = np.random.default_rng(1).normal(size=tv.shape)
    (v * kt.tensor(weights)).sum().backward()
    (tv * torch.tensor(weights)).sum().backward()
    np.testing.assert_array_equal(x.grad.to_numpy(), t.grad.numpy())


def test_pad_may_be_half_the_dilated_window():
    # kernel 2, dilation 3: the window spans 4 entries, so padding 2 is allowed.
    out = F.max_pool2d(kt.tensor(X), 2, padding=2, dilation=3)
    assert out.shape == reference(X, (2, 2), (2, 2), (2, 2), (3, 3), False)[0].shape
    with pytest.raises(ValueError, match="at most half"):
        F.max_pool2d(kt.tensor(X), 2, padding=3, dilation=3)
