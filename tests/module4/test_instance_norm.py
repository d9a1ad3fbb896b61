"""``nn.InstanceNorm1d``/``InstanceNorm2d`` and ``F.instance_norm`` (given):
each example's channel normalised over its positions, as PyTorch's, with the
affine parameters, running statistics (updated in training, used in
evaluation), and unbatched inputs. Values and gradients against a NumPy
reference with central differences, and against ``torch`` where installed."""

from __future__ import annotations

import numpy as np
import pytest

import module4_networks as kt
from module4_networks import nn
from module4_networks.nn import functional as F
from tests.module4.helpers import check_grad
from tests.pytorch_reference import import_torch

X = np.random.default_rng(0).normal(size=(2, 3, 4, 5)) * 2.0 + 1.0


def _reference(x, w, b, eps=1e-5):
    axes = tuple(range(2, x.ndim))
    mean = x.mean(axes, keepdims=True)
    var = x.var(axes, keepdims=True)
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return (x - mean) / np.sqrt(var + eps) * w.reshape(shape) + b.reshape(shape)


@pytest.mark.task2_6
def test_instance_norm_matches_its_formula_and_central_differences():
    w, b = np.array([1.0, 2.0, -0.5]), np.array([0.0, 0.1, 0.3])
    check_grad(
        lambda x, w, b: F.instance_norm(x, weight=w, bias=b),
        [X[:, :, :2, :3], w, b],
        reference=_reference,
    )


@pytest.mark.task4_6  # (layers: Task 0.4's Module)
@pytest.mark.parametrize("affine", [False, True])
@pytest.mark.parametrize("track", [False, True])
@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (3, 4, 5), (2, 3, 7), (3, 7)])
def test_instance_norm_layers_match_pytorch(affine, track, shape):
    torch = import_torch()
    x = X.reshape(-1)[: int(np.prod(shape))].reshape(shape)
    two_d = len(shape) in (3, 4) and shape[-2:] == (4, 5)
    name = "InstanceNorm2d" if two_d else "InstanceNorm1d"
    ours = getattr(nn, name)(3, affine=affine, track_running_stats=track, momentum=0.3)
    theirs = getattr(torch.nn, name)(
        3, affine=affine, track_running_stats=track, momentum=0.3
    ).double()
    assert [n for n, _ in ours.named_parameters()] == [
        n for n, _ in theirs.named_parameters()
    ]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    if affine:
        w, b = np.array([1.5, -1.0, 0.5]), np.array([0.2, 0.0, -0.3])
        with kt.no_grad():
            ours.weight.copy_(kt.tensor(w))
            ours.bias.copy_(kt.tensor(b))
        with torch.no_grad():
            theirs.weight.copy_(torch.tensor(w))
            theirs.bias.copy_(torch.tensor(b))
    weights = np.random.default_rng(1).normal(size=shape)
    for step in range(2):  # training: twice, so the running statistics move
        k = kt.tensor(x + step, requires_grad=True)
        t = torch.tensor(x + step, requires_grad=True)
        k_out, t_out = ours(k), theirs(t)
        np.testing.assert_allclose(k_out.to_numpy(), t_out.detach().numpy(), atol=1e-12)
        (k_out * kt.tensor(weights)).sum().backward()
        (t_out * torch.tensor(weights)).sum().backward()
        np.testing.assert_allclose(k.grad.to_numpy(), t.grad.numpy(), atol=1e-10)
    if affine:
        np.testing.assert_allclose(ours.weight.grad.to_numpy(), theirs.weight.grad)
        np.testing.assert_allclose(ours.bias.grad.to_numpy(), theirs.bias.grad)
    if track:
        for buffer in ("running_mean", "running_var"):
            np.testing.assert_allclose(
                getattr(ours, buffer).to_numpy(), getattr(theirs, buffer).numpy()
            )
    ours.eval(), theirs.eval()
    np.testing.assert_allclose(
        ours(kt.tensor(x)).to_numpy(), theirs(torch.tensor(x)).detach().numpy()
    )


@pytest.mark.task2_6
def test_instance_norm_checks_the_input_rank():
    with pytest.raises(ValueError, match="expected 3D or 4D input"):
        nn.InstanceNorm2d(3)(kt.zeros(3, 4))


@pytest.mark.task4_6  # (layers: Task 0.4's Module)
def test_instance_norm_momentum_none_leaves_the_running_statistics():
    # torch's InstanceNorm takes momentum=None as 0: tracked, never moved
    layer = nn.InstanceNorm1d(2, momentum=None, track_running_stats=True)
    x = np.array([[[1.0, 2.0, 4.0], [3.0, 6.0, 0.0]]])
    layer(kt.tensor(x))
    np.testing.assert_array_equal(layer.running_mean.to_numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(layer.running_var.to_numpy(), [1.0, 1.0])
    layer.eval()
    np.testing.assert_allclose(layer(kt.tensor(x)).to_numpy(), x / np.sqrt(1 + 1e-5))
