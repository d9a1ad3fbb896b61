"""``nn.utils.parameters_to_vector`` and ``vector_to_parameters`` (given): all
parameters as one 1-D tensor in order and back, as ``torch.nn.utils``; the
vector is differentiable, so a loss of it sends gradients to each parameter.
Compared with PyTorch where it is installed."""

from __future__ import annotations

import numpy as np
import pytest

import module4_networks as kt
from module4_networks import nn
from tests.pytorch_reference import import_torch

pytestmark = pytest.mark.task4_6  # (the model is Task 4.6's Linear and Conv1d)


def _model(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.Conv1d(1, 2, 2))


def test_parameters_to_vector_flattens_in_order():
    model = _model(kt)
    vec = nn.utils.parameters_to_vector(model.parameters())
    expected = np.concatenate([p.to_numpy().ravel() for p in model.parameters()])
    assert vec.shape == (expected.size,)
    np.testing.assert_array_equal(vec.to_numpy(), expected)
    # Differentiable: d/dp sum(k * vec) is each parameter's slice of k.
    weights = np.arange(expected.size, dtype=float)
    (vec * kt.tensor(weights)).sum().backward()
    grads = np.concatenate([p.grad.to_numpy().ravel() for p in model.parameters()])
    np.testing.assert_array_equal(grads, weights)


def test_vector_to_parameters_round_trips():
    model = _model(kt)
    params = list(model.parameters())
    n = sum(p.size for p in params)
    vec = kt.tensor(np.arange(n, dtype=float))
    nn.utils.vector_to_parameters(vec, model.parameters())
    np.testing.assert_array_equal(
        nn.utils.parameters_to_vector(model.parameters()).to_numpy(), np.arange(n)
    )
    assert all(p.requires_grad for p in params)  # still trainable leaves
    assert model[0].weight.shape == (2, 3)
    np.testing.assert_array_equal(model[0].weight.to_numpy(), [[0, 1, 2], [3, 4, 5]])
    with pytest.raises(TypeError, match="expected torch.Tensor"):
        nn.utils.vector_to_parameters(list(range(n)), model.parameters())


def test_parameters_to_vector_matches_pytorch():
    torch = import_torch()
    ours = _model(kt)
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Conv1d(1, 2, 2))
    vec = np.random.default_rng(0).normal(size=sum(p.size for p in ours.parameters()))
    nn.utils.vector_to_parameters(kt.tensor(vec), ours.parameters())
    torch.nn.utils.vector_to_parameters(torch.tensor(vec).float(), theirs.parameters())
    for (name, p), (their_name, q) in zip(
        ours.named_parameters(), theirs.named_parameters()
    ):
        assert name == their_name and p.shape == tuple(q.shape)
        np.testing.assert_allclose(p.to_numpy(), q.detach().numpy(), rtol=1e-6)
