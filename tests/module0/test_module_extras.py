"""PyTorch's Module conveniences (given code): buffers, state dicts,
``zero_grad``, ``apply``, ``requires_grad_``, ``ModuleDict`` and ``ParameterList``.
They walk the tree with Task 0.4's ``named_modules``, so they carry its marker."""

from __future__ import annotations

import pytest

from module0_fundamentals import (
    Module,
    ModuleDict,
    Parameter,
    ParameterList,
    Sequential,
)


class Scaler(Module):
    def __init__(self, w: float) -> None:
        super().__init__()
        self.weight = Parameter(w)
        self.register_buffer("count", 0)
        self.register_buffer("scratch", 1.5, persistent=False)

    def forward(self, x: float) -> float:
        self.count = self.count + 1  # stays a buffer
        return self.weight.value * x


@pytest.mark.task0_4
def test_buffers_are_registered_and_saved():
    net = Sequential(Scaler(2.0), Scaler(3.0))
    assert net(1.0) == 6.0
    assert net.named_buffers() == [
        ("0.count", 1),
        ("0.scratch", 1.5),
        ("1.count", 1),
        ("1.scratch", 1.5),
    ]
    state = net.state_dict()
    assert list(state) == ["0.weight", "0.count", "1.weight", "1.count"]
    assert state["1.weight"] == 3.0 and state["0.count"] == 1


@pytest.mark.task0_4
def test_a_none_buffer_is_a_slot_and_a_parameter_replaces_a_buffer():
    # As PyTorch's: register_buffer(name, None) reserves the name, but neither
    # named_buffers() nor state_dict() lists it (a checkpoint need not hold it)
    # until it holds a value; a Parameter assigned to a buffer's name replaces it.
    net = Scaler(2.0)
    net.register_buffer("mask", None)
    assert net.mask is None
    assert [name for name, _ in net.named_buffers()] == ["count", "scratch"]
    assert list(net.state_dict()) == ["weight", "count"]
    assert net.load_state_dict({"weight": 1.0, "count": 0}).missing_keys == []
    net.mask = 3.0
    assert list(net.state_dict()) == ["weight", "count", "mask"]
    net.count = Parameter(5.0)
    assert [name for name, _ in net.named_buffers()] == ["scratch", "mask"]
    assert net.state_dict()["count"] == 5.0 and len(list(net.parameters())) == 2


@pytest.mark.task0_4
def test_load_state_dict_restores_values_and_checks_keys():
    net = Sequential(Scaler(2.0), Scaler(3.0))
    other = Sequential(Scaler(0.0), Scaler(0.0))
    result = other.load_state_dict(net.state_dict())
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert other(1.0) == 6.0 and other[0].count == 1
    with pytest.raises(RuntimeError, match=r"missing keys \['1.count'\]"):
        other.load_state_dict({"0.weight": 1.0, "0.count": 0, "1.weight": 1.0})
    partial = other.load_state_dict({"0.weight": 5.0, "x": 1}, strict=False)
    assert partial.unexpected_keys == ["x"] and "1.weight" in partial.missing_keys
    assert other[0].weight.value == 5.0


@pytest.mark.task0_4
def test_apply_visits_children_first_then_self():
    net = Sequential(Scaler(1.0), Sequential(Scaler(2.0)))
    seen = []
    assert net.apply(lambda m: seen.append(type(m).__name__)) is net
    assert seen == ["Scaler", "Scaler", "Sequential", "Sequential"]


class _Value:
    """A stand-in for a tensor: gradient and tracking switch."""

    def __init__(self) -> None:
        self.grad = 1.0
        self.requires_grad = True

    def requires_grad_(self, flag: bool = True) -> "_Value":
        self.requires_grad = flag
        return self


@pytest.mark.task0_4
def test_zero_grad_and_requires_grad_reach_every_parameter():
    net = Sequential(Scaler(1.0), Scaler(2.0))
    net[0].weight = Parameter(_Value())
    net[1].weight = Parameter(_Value())
    net.zero_grad()
    assert all(p.value.grad is None for p in net.parameters())
    assert net.requires_grad_(False) is net
    assert not any(p.value.requires_grad for p in net.parameters())


@pytest.mark.task0_4
def test_module_dict_and_parameter_list():
    heads = ModuleDict({"a": Scaler(2.0)})
    heads["b"] = Scaler(5.0)
    assert list(heads) == ["a", "b"] and len(heads) == 2 and "b" in heads
    assert heads["b"](1.0) == 5.0
    assert [name for name, _ in heads.named_parameters()] == ["a.weight", "b.weight"]
    heads.update([("c", Scaler(1.0))])  # pairs or a mapping, as torch's update
    heads.update({"a": Scaler(3.0)})
    assert list(heads) == ["a", "b", "c"] and heads["a"](1.0) == 3.0
    weights = ParameterList([1.0, Parameter(2.0)])
    weights.append(3.0)
    assert [p.value for p in weights] == [1.0, 2.0, 3.0] and weights[-1].value == 3.0
    assert [name for name, _ in weights.named_parameters()] == ["0", "1", "2"]
    with pytest.raises(IndexError):
        weights[3]


@pytest.mark.task0_4
def test_registered_attributes_stay_in_step_with_the_registries():
    # Parameters and submodules are also plain attributes (a fast lookup in
    # forward); assigning, replacing and deleting keep both views the same.
    net = Module()
    net.w = Parameter(1.0)
    assert net.w is net._parameters["w"] and "w" in vars(net)
    net.w = Scaler(2.0)  # a module replaces the parameter
    assert "w" not in net._parameters and net.w is net._modules["w"]
    del net.w
    with pytest.raises(AttributeError):
        net.w
    net.forward = Parameter(3.0)  # a name the class defines keeps its meaning
    assert callable(net.forward) and net._parameters["forward"].value == 3.0
    md = ModuleDict({"a": Scaler(1.0)})
    assert md.a is md["a"]
    del md["a"]
    with pytest.raises(AttributeError):
        md.a
    assert [name for name, _ in net.named_parameters()] == ["forward"]
