"""The idioms of ordinary PyTorch training scripts run unchanged:
``next(model.parameters())``, ``m.bias = None``, ``@no_grad`` without
parentheses, ``x.new_zeros(2, 3)``, ``nn.init.constant_(w, val=...)``, and
``.item()``/``.tolist()`` giving Python numbers of the tensor's dtype
(``names[labels[i].item()]``). Expected values are PyTorch's documented
behaviour; where PyTorch is installed the same lines run on it too. Given
code; each test carries the marker of the task whose code it runs."""

from __future__ import annotations

import numpy as np
import pytest

import module4_networks as kt
from module4_networks import nn
from tests.pytorch_reference import import_torch


def _torch():
    return import_torch()


@pytest.mark.task4_6
@pytest.mark.parametrize("lib_name", ["kt", "torch"])
def test_next_of_parameters_and_named_parameters(lib_name):
    lib = kt if lib_name == "kt" else _torch()
    model = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.ReLU(), lib.nn.Linear(2, 1))
    first = next(model.parameters())
    assert first is model[0].weight and tuple(first.shape) == (2, 3)
    name, weight = next(model.named_parameters())
    assert name == "0.weight" and weight is model[0].weight
    params = model.parameters()
    assert len(list(params)) == 4 and list(params) == []  # an iterator: one pass


@pytest.mark.task4_6
@pytest.mark.parametrize("lib_name", ["kt", "torch"])
def test_assigning_none_to_a_parameter_removes_it(lib_name):
    lib = kt if lib_name == "kt" else _torch()
    layer = lib.nn.Linear(2, 3)
    layer.bias = None
    assert layer.bias is None
    assert [name for name, _ in layer.named_parameters()] == ["weight"]
    assert list(layer.state_dict()) == ["weight"]
    out = layer(lib.ones(4, 2))  # y = x W^T, no bias
    np.testing.assert_allclose(
        np.asarray(out.detach().numpy()),
        np.ones((4, 2)) @ np.asarray(layer.weight.detach().numpy()).T,
    )
    with pytest.raises(TypeError):
        layer.weight = 0.5  # only a Parameter (or None) replaces a parameter


@pytest.mark.task4_6
def test_a_parameter_set_to_none_can_come_back():
    layer = nn.Linear(2, 3)
    layer.bias = None
    layer.bias = nn.Parameter(kt.zeros(3))
    assert [name for name, _ in layer.named_parameters()] == ["weight", "bias"]


@pytest.mark.task2_6
def test_no_grad_decorates_with_or_without_parentheses():
    x = kt.ones(2, requires_grad=True)

    @kt.no_grad
    def bare(v):
        return v * 2

    @kt.no_grad()
    def called(v):
        return v * 2

    assert not bare(x).requires_grad and not called(x).requires_grad
    assert bare.__name__ == "bare"
    assert (x * 2).requires_grad  # the mode is back on afterwards

    @kt.inference_mode
    def inferred(v):
        return v * 2

    assert not inferred(x).requires_grad


@pytest.mark.task2_1
def test_new_zeros_and_new_ones_take_sizes_or_a_tuple():
    x = kt.ones(4)
    for made in (x.new_zeros(2, 3), x.new_zeros((2, 3)), x.new_zeros([2, 3])):
        assert made.shape == (2, 3) and not made.to_numpy().any()
    np.testing.assert_array_equal(x.new_ones(2, 1).to_numpy(), [[1.0], [1.0]])
    assert x.new_zeros(()).shape == ()


@pytest.mark.task2_6
def test_init_constant_takes_pytorchs_val_keyword():
    w = nn.Parameter(kt.zeros(2, 2))
    nn.init.constant_(w, val=0.25)
    np.testing.assert_array_equal(w.to_numpy(), np.full((2, 2), 0.25))
    assert kt.nn.init.constant_ is nn.init.constant_  # torch.nn.init's path


@pytest.mark.task2_6
def test_item_and_tolist_give_numbers_of_the_tensors_dtype():
    labels = kt.tensor([2, 0, 1])
    names = ["cat", "dog", "bird"]
    assert [names[labels[i].item()] for i in range(3)] == ["bird", "cat", "dog"]
    value = labels[0].item()
    assert type(value) is int and value == 2
    assert labels.tolist() == [2, 0, 1] and type(labels.tolist()[0]) is int
    mask = labels > 0
    assert mask.tolist() == [True, False, True]
    assert type(mask.tolist()[0]) is bool and mask[1].item() is False
    assert kt.tensor([[1, 2], [3, 4]]).long().tolist() == [[1, 2], [3, 4]]
    floats = kt.tensor([1.5, 2.0])
    assert type(floats[1].item()) is float and floats.tolist() == [1.5, 2.0]
    assert type(float(labels[0])) is float and int(labels[0]) == 2
    assert kt.tensor(3.7).long().item() == 3  # truncation, then an int


@pytest.mark.task2_6
def test_item_and_tolist_types_match_pytorch():
    torch = _torch()
    for lib in (kt, torch):
        labels = lib.tensor([2, 0, 1])
        got = [
            labels[0].item(),
            labels.tolist(),
            (labels > 0).tolist(),
            (labels > 0)[0].item(),
            lib.tensor([1.5])[0].item(),
            lib.tensor([2.9, -2.9]).long().tolist(),
        ]
        types = [type(labels[0].item()), type((labels > 0)[0].item())]
        if lib is kt:
            ours, our_types = got, types
    assert ours == got and our_types == types
