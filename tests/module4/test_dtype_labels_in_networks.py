"""Dtype labels of Module 4's functions that never disagree with PyTorch's:
``F.hardtanh`` and ``F.relu6`` of an integer tensor clamp it and stay
``int64``, as ``torch.nn.functional``'s do. Given code; each test carries the
marker of the task whose code it runs."""

from __future__ import annotations

import numpy as np
import pytest

import module4_networks as kt
from module4_networks import nn
from module4_networks.nn import functional as F


@pytest.mark.task2_6
def test_hardtanh_and_relu6_of_integers_stay_int64():
    x = kt.tensor([-3, 0, 4, 9])
    for out, expected in (
        (F.hardtanh(x), [-1, 0, 1, 1]),
        (F.hardtanh(x, -2.0, 5.0), [-2, 0, 4, 5]),
        (F.relu6(x), [0, 0, 4, 6]),
    ):
        assert out.dtype is kt.int64 and out.tolist() == expected
    floats = kt.tensor([-3.5, 7.0], dtype=kt.float32)
    assert F.relu6(floats).dtype is kt.float32
    assert F.relu6(floats).tolist() == [0.0, 6.0]


@pytest.mark.task4_6
def test_the_hardtanh_layers_of_integers_stay_int64():
    x = kt.tensor([-3, 2, 9])
    assert nn.ReLU6()(x).dtype is kt.int64 and nn.ReLU6()(x).tolist() == [0, 2, 6]
    assert nn.Hardtanh()(x).tolist() == [-1, 1, 1]


@pytest.mark.task2_6
def test_normalize_and_cosine_similarity_of_float32_stay_float32_with_gradients():
    # Both divide by a norm, whose recorded result reported float64.
    a = kt.tensor([[3.0, 4.0]], dtype=kt.float32, requires_grad=True)
    b = kt.tensor([[4.0, 3.0]], dtype=kt.float32)
    unit = F.normalize(a)
    assert unit.dtype is kt.float32
    np.testing.assert_allclose(unit.detach().to_numpy(), [[0.6, 0.8]])
    similarity = F.cosine_similarity(a, b)
    assert similarity.dtype is kt.float32
    np.testing.assert_allclose(similarity.detach().to_numpy(), [24.0 / 25.0])
    assert F.pairwise_distance(a, b).dtype is kt.float32


@pytest.mark.task2_6
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_of_float32_stays_float32_with_gradients(approximate):
    # Exact GELU is one recorded map (_Gelu), whose result reported float64.
    x = kt.tensor([1.0, -0.5], dtype=kt.float32, requires_grad=True)
    y = F.gelu(x, approximate=approximate)
    assert y.dtype is kt.float32
    assert nn.GELU(approximate)(x).dtype is kt.float32
    y.sum().backward()
    assert x.grad.dtype is kt.float32
    assert F.gelu(kt.tensor([1.0, -0.5])).dtype is kt.float64
