"""Higher-order gradients through Module 4's layers and losses: a gradient
penalty $\\|\\partial L / \\partial x\\|^2$ (WGAN-GP's) backpropagated to the
weights of an ``nn.Linear`` network with a cross-entropy loss, checked against
central differences and PyTorch; and the convolution, whose fast backward is
not recorded, raising when differentiated twice. The layers and the loss are
Task 4.6's; the convolution Task 4.1's."""

from typing import List

import numpy as np
import pytest

import module4_networks as kt
from module4_networks import nn
from tests.pytorch_reference import import_torch

F = nn.functional


def make_model() -> nn.Module:
    kt.manual_seed(3)
    return nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))


INPUTS = np.random.default_rng(5).normal(size=(5, 3))
LABELS = [0, 1, 1, 0, 1]


def penalty(model: nn.Module, create_graph: bool) -> kt.Tensor:
    x = kt.tensor(INPUTS, requires_grad=True)
    loss = F.cross_entropy(model(x), kt.tensor(LABELS))
    (gx,) = kt.autograd.grad(loss, x, create_graph=create_graph)
    return (gx**2).sum()


@pytest.mark.task4_6
def test_gradient_penalty_of_a_linear_network_matches_central_differences() -> None:
    model = make_model()
    penalty(model, create_graph=True).backward()
    h = 1e-6
    for p in model.parameters():
        original = p.to_numpy().copy()
        numeric = np.zeros(original.shape)
        for idx in np.ndindex(original.shape):
            values: List[float] = []
            for step in (h, -h):
                moved = original.copy()
                moved[idx] += step
                p.data = kt.tensor(moved)
                values.append(penalty(model, create_graph=False).item())
            numeric[idx] = (values[0] - values[1]) / (2 * h)
        p.data = kt.tensor(original)
        np.testing.assert_allclose(p.grad.to_numpy(), numeric, rtol=1e-5, atol=1e-8)


@pytest.mark.task4_6
def test_gradient_penalty_of_a_linear_network_matches_pytorch() -> None:
    torch = import_torch()
    model = make_model()
    reference = torch.nn.Sequential(
        torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2)
    ).double()
    with torch.no_grad():
        for p, q in zip(model.parameters(), reference.parameters()):
            q.copy_(torch.tensor(p.to_numpy()))
    penalty(model, create_graph=True).backward()
    x = torch.tensor(INPUTS, requires_grad=True)
    loss = torch.nn.functional.cross_entropy(reference(x), torch.tensor(LABELS))
    (gx,) = torch.autograd.grad(loss, x, create_graph=True)
    (gx**2).sum().backward()
    for p, q in zip(model.parameters(), reference.parameters()):
        np.testing.assert_allclose(p.grad.to_numpy(), q.grad.numpy(), rtol=1e-10)


@pytest.mark.task4_4
def test_max_pooling_hessian_vector_product_matches_central_differences() -> None:
    rng = np.random.default_rng(8)
    x0, v0 = rng.normal(size=(2, 1, 4, 5)), rng.normal(size=(2, 1, 4, 5))

    def gradient(x_values: np.ndarray) -> np.ndarray:
        x = kt.tensor(x_values, requires_grad=True)
        (g,) = kt.autograd.grad((F.max_pool2d(x, 2, 1) ** 3).sum(), x)
        return g.to_numpy()

    x = kt.tensor(x0, requires_grad=True)
    out = (F.max_pool2d(x, 2, 1) ** 3).sum()
    (g,) = kt.autograd.grad(out, x, create_graph=True)
    (hv,) = kt.autograd.grad(g, x, grad_outputs=kt.tensor(v0))
    h = 1e-6
    numeric = (gradient(x0 + h * v0) - gradient(x0 - h * v0)) / (2 * h)
    np.testing.assert_allclose(hv.to_numpy(), numeric, rtol=1e-5, atol=1e-7)


@pytest.mark.task4_1
def test_a_convolution_gradient_cannot_be_differentiated_again() -> None:
    conv = nn.Conv1d(1, 2, 2)
    x = kt.tensor(INPUTS.reshape(5, 1, 3), requires_grad=True)
    (gx,) = kt.autograd.grad((conv(x) ** 2).sum(), x, create_graph=True)
    (plain,) = kt.autograd.grad((conv(x) ** 2).sum(), x)
    np.testing.assert_allclose(gx.to_numpy(), plain.to_numpy())  # first order
    with pytest.raises(RuntimeError, match="Conv1d"):
        (gx**2).sum().backward()
