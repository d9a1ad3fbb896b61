"""Higher-order gradients through Module 4's layers and losses: a gradient
penalty $\\|\\partial L / \\partial x\\|^2$ (WGAN-GP's) backpropagated to the
weights of an ``nn.Linear`` network with a cross-entropy loss, checked against
central differences and PyTorch; max-pooling's and the convolutions' recorded
backwards; and a function without a formula (``binary_cross_entropy``) raising
when differentiated twice. Layers (convolutions included) and losses are Task
4.6's (which builds on the kernels of 4.2 and 4.4); ``F.max_pool2d`` is Task
4.4's."""

from typing import List, Tuple

import numpy as np
import pytest

import module4_networks as kt
from module3_fast_ops import FastBackend
from module4_networks import nn
from tests.pytorch_reference import copy_parameters, import_torch

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
    copy_parameters(model, reference)
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


@pytest.mark.task4_6
@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("fast", [False, True], ids=["simple", "fast"])
def test_gelu_hessian_vector_product_matches_central_differences_and_pytorch(
    approximate: str, fast: bool
) -> None:
    """Exact GELU is one map each way (its recorded backward a formula of its
    own); the tanh form is composed of tensor operations."""
    backend = FastBackend if fast else None
    rng = np.random.default_rng(9)
    x0, v0 = rng.normal(size=(3, 4)) * 2.0, rng.normal(size=(3, 4))

    def gradient(values: np.ndarray, create_graph: bool = False) -> Tuple:
        x = kt.tensor(values, backend=backend, requires_grad=True)
        out = (F.gelu(x, approximate=approximate) ** 2).sum()
        return x, kt.autograd.grad(out, x, create_graph=create_graph)[0]

    x, g = gradient(x0, create_graph=True)
    (hv,) = kt.autograd.grad(g, x, grad_outputs=kt.tensor(v0, backend=backend))
    h = 1e-6
    numeric = gradient(x0 + h * v0)[1].to_numpy() - gradient(x0 - h * v0)[1].to_numpy()
    np.testing.assert_allclose(hv.to_numpy(), numeric / (2 * h), rtol=1e-5, atol=1e-7)
    torch = import_torch()
    tx = torch.tensor(x0, requires_grad=True)
    out = (torch.nn.functional.gelu(tx, approximate=approximate) ** 2).sum()
    (tg,) = torch.autograd.grad(out, tx, create_graph=True)
    (thv,) = torch.autograd.grad(tg, tx, grad_outputs=torch.tensor(v0))
    np.testing.assert_allclose(
        g.to_numpy(), tg.detach().numpy(), rtol=1e-10, atol=1e-15
    )
    np.testing.assert_allclose(hv.to_numpy(), thv.numpy(), rtol=1e-10, atol=1e-12)


def conv_model(spatial: int) -> nn.Module:
    kt.manual_seed(4)
    conv = nn.Conv1d if spatial == 1 else nn.Conv2d
    return nn.Sequential(
        conv(2, 3, 3, stride=2, padding=1), nn.Tanh(), conv(3, 2, 2, padding=1)
    )


@pytest.mark.task4_6
@pytest.mark.parametrize("spatial", [1, 2])
def test_convolution_gradient_penalty_matches_central_differences(
    spatial: int,
) -> None:
    model = conv_model(spatial)
    x0 = np.random.default_rng(9).normal(size=(2, 2) + (5,) * spatial)

    def conv_penalty(create_graph: bool) -> kt.Tensor:
        x = kt.tensor(x0, requires_grad=True)
        (gx,) = kt.autograd.grad((model(x) ** 2).sum(), x, create_graph=create_graph)
        return (gx**2).sum()

    conv_penalty(True).backward()
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
                values.append(conv_penalty(False).item())
            numeric[idx] = (values[0] - values[1]) / (2 * h)
        p.data = kt.tensor(original)
        np.testing.assert_allclose(p.grad.to_numpy(), numeric, rtol=1e-5, atol=1e-7)


@pytest.mark.task4_6
def test_convolution_second_derivatives_match_pytorch() -> None:
    torch = import_torch()
    model = conv_model(2)
    reference = torch.nn.Sequential(
        torch.nn.Conv2d(2, 3, 3, stride=2, padding=1),
        torch.nn.Tanh(),
        torch.nn.Conv2d(3, 2, 2, padding=1),
    ).double()
    copy_parameters(model, reference)
    rng = np.random.default_rng(10)
    x0, v0 = rng.normal(size=(2, 2, 5, 5)), rng.normal(size=(2, 2, 5, 5))
    x = kt.tensor(x0, requires_grad=True)
    (g,) = kt.autograd.grad((model(x) ** 2).sum(), x, create_graph=True)
    (hv,) = kt.autograd.grad(g, x, grad_outputs=kt.tensor(v0))
    tx = torch.tensor(x0, requires_grad=True)
    (tg,) = torch.autograd.grad((reference(tx) ** 2).sum(), tx, create_graph=True)
    (thv,) = torch.autograd.grad(tg, tx, grad_outputs=torch.tensor(v0))
    np.testing.assert_allclose(hv.to_numpy(), thv.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.task4_6
def test_a_function_without_a_formula_is_once_differentiable() -> None:
    x = kt.tensor(INPUTS[:, :2], requires_grad=True)
    target = kt.tensor(np.full((5, 2), 0.25))
    loss = F.binary_cross_entropy(x.sigmoid(), target)
    (gx,) = kt.autograd.grad(loss, x, create_graph=True)
    (plain,) = kt.autograd.grad(
        F.binary_cross_entropy(x.sigmoid(), target), x
    )  # the first derivative is right...
    np.testing.assert_allclose(gx.to_numpy(), plain.to_numpy())
    with pytest.raises(RuntimeError, match="BinaryCrossEntropy"):
        (gx**2).sum().backward()  # ... the second raises, naming the function


@pytest.mark.task4_6
def test_zero_grad_without_none_after_create_graph_detaches_in_place() -> None:
    # As PyTorch's: .grad of a create_graph backward has a history (a Linear
    # weight's is even a transposed view in Kindling); zero_grad(set_to_none=
    # False) detaches and zeroes that same tensor, and the next create_graph
    # backward records its sum anew. y = (a + b + c)^2 for x = (1, 1), so
    # dy/dw = 2 (a + b + c) (1, 1).
    model = nn.Linear(2, 1)
    expected = 2 * (model.weight.sum().item() + model.bias.item())
    for zero_grad in (model.zero_grad, kt.optim.SGD(model.parameters()).zero_grad):
        model(kt.ones(1, 2)).pow(2).sum().backward(create_graph=True)
        held = model.weight.grad
        assert held.requires_grad
        zero_grad(set_to_none=False)
        assert model.weight.grad is held and held.grad_fn is None
        assert not held.requires_grad and held.tolist() == [[0.0, 0.0]]
        model(kt.ones(1, 2)).pow(2).sum().backward(create_graph=True)
        np.testing.assert_allclose(model.weight.grad.tolist(), [[expected] * 2])
        assert model.weight.grad.requires_grad
        model.zero_grad()
