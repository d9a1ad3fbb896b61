"""PyTorch fidelity, round 3 (issue 27): a parameter *is* a tensor, and modules
move with ``.to(device)``. Given code (Module 0's ``Module``, the tensor
``Parameter``); each test carries the marker of the task whose code it
runs. Expected values come from NumPy.
"""

from __future__ import annotations

import copy
import io

import numpy as np
import pytest

import module4_networks as kt
from module0_fundamentals.module import Module
from module0_fundamentals.module import Parameter as ModuleParameter
from module4_networks import functional as F
from module4_networks import nn, optim


def _mlp() -> nn.Sequential:
    kt.manual_seed(3)
    return nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))


def _numpy_grads(model, x, y):
    """The gradients of ``((model(x) - y)**2).sum()`` for the weights, by hand."""
    w1, b1 = model[0].weight.to_numpy(), model[0].bias.to_numpy()
    w2, b2 = model[2].weight.to_numpy(), model[2].bias.to_numpy()
    h = np.tanh(x @ w1.T + b1)
    out = h @ w2.T + b2
    d_out = 2 * (out - y)
    d_pre = (d_out @ w2) * (1 - h**2)
    return {
        "w2": d_out.T @ h,
        "b2": d_out.sum(0),
        "w1": d_pre.T @ x,
        "b1": d_pre.sum(0),
    }


@pytest.mark.task4_6
def test_parameters_are_tensors_with_the_tensor_api():
    model = _mlp()
    params = list(model.parameters())
    assert len(params) == 4
    for p in params:
        assert isinstance(p, kt.Tensor) and isinstance(p, nn.Parameter)
        assert p.is_leaf and p.requires_grad
        assert p.numel() == int(np.prod(p.shape))
        assert p.value is p  # Module 0's spelling still works
    assert model[0].weight.shape == (4, 3)
    x = np.random.default_rng(0).normal(size=(5, 3))
    w, b = model[0].weight.to_numpy(), model[0].bias.to_numpy()
    out = F.linear(kt.tensor(x), model[0].weight, model[0].bias)
    np.testing.assert_allclose(out.to_numpy(), x @ w.T + b, rtol=1e-13)


@pytest.mark.task4_6
def test_operations_on_a_parameter_give_ordinary_tensors():
    p = nn.Linear(3, 2).weight
    for result in (p * 2.0, p.T, p.view(6), p.detach(), p.data, p.sum(), p[0]):
        assert type(result) is kt.Tensor


@pytest.mark.task4_6
def test_p_data_shares_the_numbers_and_updates_without_a_graph():
    p = nn.Linear(2, 2).weight
    before = p.to_numpy()
    p.grad = kt.ones(2, 2)
    p.data -= 0.5 * p.grad  # the old SGD idiom
    np.testing.assert_allclose(p.to_numpy(), before - 0.5)
    assert p.is_leaf and type(p) is not kt.Tensor


@pytest.mark.task4_6
def test_gradients_reach_the_parameters_themselves():
    model = _mlp()
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=(6, 3)), rng.normal(size=(6, 2))
    ((model(kt.tensor(x)) - kt.tensor(y)) ** 2).sum().backward()
    want = _numpy_grads(model, x, y)
    np.testing.assert_allclose(model[0].weight.grad.to_numpy(), want["w1"], rtol=1e-12)
    np.testing.assert_allclose(model[2].bias.grad.to_numpy(), want["b2"], rtol=1e-12)


@pytest.mark.task4_6
@pytest.mark.parametrize("how", ["attribute", "method", "module"])
def test_freezing_a_layer_stops_its_training(how):
    """The issue's silent wrong answer: ``p.requires_grad = False`` did nothing."""
    model = _mlp()
    if how == "attribute":
        for p in model[0].parameters():
            p.requires_grad = False
    elif how == "method":
        for p in model[0].parameters():
            p.requires_grad_(False)
    else:
        model[0].requires_grad_(False)
    frozen = [p.to_numpy() for p in model[0].parameters()]
    w2 = model[2].weight.to_numpy()
    rng = np.random.default_rng(2)
    x, y = rng.normal(size=(6, 3)), rng.normal(size=(6, 2))
    want = _numpy_grads(model, x, y)
    opt = optim.SGD(model.parameters(), lr=0.1, weight_decay=0.01)
    opt.zero_grad()
    ((model(kt.tensor(x)) - kt.tensor(y)) ** 2).sum().backward()
    opt.step()
    for p, before in zip(model[0].parameters(), frozen):
        assert p.grad is None
        np.testing.assert_array_equal(p.to_numpy(), before)
    np.testing.assert_allclose(
        model[2].weight.to_numpy(), w2 - 0.1 * (want["w2"] + 0.01 * w2), rtol=1e-12
    )


@pytest.mark.task2_6
def test_nn_parameter_of_a_tensor_is_a_leaf_on_its_numbers():
    t = kt.tensor([1.0, 2.0])
    p = nn.Parameter(t)
    assert isinstance(p, kt.Tensor) and p.requires_grad and not t.requires_grad
    t[0] = 5.0  # shared numbers, as torch.nn.Parameter(t)
    assert p.tolist() == [5.0, 2.0]
    assert not nn.Parameter(t, requires_grad=False).requires_grad
    assert repr(p).startswith("Parameter containing:\ntensor([5., 2.]")


def test_module_0_parameters_of_plain_values_stay_wrappers():
    p = ModuleParameter(2.0)
    assert not isinstance(p, kt.Tensor) and p.value == 2.0
    p.update(3.0)
    assert p.value == 3.0


@pytest.mark.task4_6
def test_a_custom_module_registers_tensor_parameters():
    class Scale(Module):
        def __init__(self):
            super().__init__()
            self.alpha = nn.Parameter(kt.tensor([2.0, 3.0]))

        def forward(self, x):
            return self.alpha * x

    m = Scale()
    assert [name for name, _ in m.named_parameters()] == ["alpha"]
    m(kt.tensor([1.0, 10.0])).sum().backward()
    assert m.alpha.grad.tolist() == [1.0, 10.0]
    assert m.alpha.name == "alpha"


@pytest.mark.task4_6
def test_state_dict_round_trip_keeps_the_parameter_objects():
    model, other = _mlp(), nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    held = list(other.parameters())
    other.load_state_dict(model.state_dict())
    assert all(a is b for a, b in zip(held, other.parameters()))
    for a, b in zip(model.parameters(), other.parameters()):
        np.testing.assert_array_equal(a.to_numpy(), b.to_numpy())
    assert all(type(v) is kt.Tensor for v in model.state_dict().values())


@pytest.mark.task4_6
def test_saving_and_copying_keep_parameters_and_frozen_flags():
    model = _mlp()
    model[0].weight.requires_grad = False
    buffer = io.BytesIO()
    kt.save(model, buffer)
    buffer.seek(0)
    for clone in (kt.load(buffer), copy.deepcopy(model)):
        w = clone[0].weight
        assert isinstance(w, nn.Parameter) and isinstance(w, kt.Tensor)
        assert not w.requires_grad and clone[0].bias.requires_grad
        np.testing.assert_array_equal(w.to_numpy(), model[0].weight.to_numpy())
        assert w is not model[0].weight


# ------------------------------------------------------------- devices, dtypes


@pytest.mark.task4_6
def test_model_to_cpu_keeps_the_parameters_an_optimizer_holds():
    model = _mlp()
    opt = optim.SGD(model.parameters(), lr=0.1)
    held = list(model.parameters())
    assert model.to("cpu") is model and model.cpu() is model
    assert model.to(kt.device("cpu")) is model
    assert all(a is b for a, b in zip(held, model.parameters()))
    assert all(p.device.type == "cpu" for p in model.parameters())
    assert opt.param_groups[0]["params"][0] is held[0]


@pytest.mark.task4_6
def test_model_to_another_backend_moves_parameters_and_buffers():
    model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
    weight = model[0].weight
    before = weight.to_numpy()
    model.to(kt.SimpleBackend)
    assert weight.backend is kt.SimpleBackend and model[0].weight is weight
    assert model[1].running_mean.backend is kt.SimpleBackend
    np.testing.assert_array_equal(weight.to_numpy(), before)
    out = model(kt.tensor([[1.0, 2.0], [0.0, -1.0]], backend=kt.SimpleBackend))
    assert out.backend is kt.SimpleBackend


@pytest.mark.task4_6
def test_model_float_and_double_report_the_dtype():
    model = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    assert model.float() is model
    assert {p.dtype for p in model.parameters()} == {kt.float32}
    assert model[1].running_var.dtype is kt.float32
    model.to(kt.float64)
    assert {p.dtype for p in model.parameters()} == {kt.float64}
    model.double()
    assert model[0].weight.dtype is kt.float64


@pytest.mark.task4_6
def test_model_cuda_without_a_gpu_names_the_simulator_switch():
    from numba import cuda

    model = nn.Linear(2, 2)
    if cuda.is_available():
        model.cuda()
        assert model.weight.is_cuda and model.weight.device.type == "cuda"
        model.cpu()
        assert model.weight.device.type == "cpu"
    else:
        with pytest.raises(RuntimeError, match="NUMBA_ENABLE_CUDASIM"):
            model.cuda()
        with pytest.raises(RuntimeError, match="NUMBA_ENABLE_CUDASIM"):
            model.to("cuda")


@pytest.mark.task4_6
def test_a_checkpoint_without_num_batches_tracked_loads_strictly():
    bn = nn.BatchNorm1d(2)
    bn(kt.tensor([[1.0, 2.0], [3.0, 5.0]]))
    state = bn.state_dict()
    del state["num_batches_tracked"]
    fresh = nn.BatchNorm1d(2)
    result = fresh.load_state_dict(state)
    assert result.missing_keys == [] and result.unexpected_keys == []
    np.testing.assert_allclose(fresh.running_mean.to_numpy(), [0.2, 0.35])
    nested = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    state = nested.state_dict()
    del state["1.num_batches_tracked"]
    assert nested.load_state_dict(state).missing_keys == []
    del state["1.running_mean"]  # a real buffer missing is still an error
    with pytest.raises(RuntimeError, match="running_mean"):
        nested.load_state_dict(state)


@pytest.mark.task4_6
def test_update_keeps_module_0s_meaning():
    """``p.update(v)``: p takes v's numbers; a v that records gradients is what
    p.value stands for (gradients reach v); a value computed from p keeps p's
    gradient, any other value starts without one."""
    layer = nn.Linear(2, 1)
    w = kt.tensor([[2.0, -1.0]], requires_grad=True)
    layer.weight.update(w)
    assert layer.weight.value is w and layer.weight.tolist() == [[2.0, -1.0]]
    layer(kt.tensor([[1.0, 3.0]])).sum().backward()
    assert w.grad.tolist() == [[1.0, 3.0]] and layer.weight.grad is None
    layer.weight.update(kt.tensor([[0.5, 0.5]]))  # a plain value: p is itself again
    assert layer.weight.value is layer.weight
    layer(kt.tensor([[1.0, 3.0]])).sum().backward()
    assert layer.weight.grad.tolist() == [[1.0, 3.0]]
    layer.to(kt.float32)  # computed from the parameter: the gradient stays
    assert layer.weight.grad.tolist() == [[1.0, 3.0]]
    layer.weight.update(kt.tensor([[1.0, 1.0]]))  # a new value: no gradient yet
    assert layer.weight.grad is None


@pytest.mark.task4_6
def test_a_parameter_on_the_right_of_matmul_and_a_numpy_array_on_the_left():
    layer = nn.Linear(3, 2)
    x = np.arange(6.0).reshape(2, 3)
    want = x @ layer.weight.to_numpy().T
    np.testing.assert_allclose((x @ layer.weight.T).to_numpy(), want, rtol=1e-13)
    np.testing.assert_allclose(
        (kt.tensor(x) @ layer.weight.T).to_numpy(), want, rtol=1e-13
    )


def test_cuda_is_available_only_with_a_real_gpu():
    from numba import config, cuda

    real = cuda.is_available() and not config.ENABLE_CUDASIM
    assert kt.cuda.is_available() is real
    assert kt.cuda.device_count() == int(real)
