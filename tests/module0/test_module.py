"""Task 0.4: the Module / Parameter tree, Sequential and ModuleList."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from module0_fundamentals import Module, ModuleList, Parameter, Sequential

pytestmark = pytest.mark.task0_4


# -- small modules used throughout --------------------------------------------------


class Affine(Module):
    """$f(x) = w x + b$ with two parameters."""

    def __init__(self, w: float = 2.0, b: float = 0.5) -> None:
        super().__init__()
        self.weight = Parameter(w)
        self.bias = Parameter(b)

    def forward(self, x: float) -> float:
        return self.weight.value * x + self.bias.value


class Inner(Module):
    def __init__(self) -> None:
        super().__init__()
        self.gain = Parameter(3.0)
        self.affine = Affine()


class Net(Module):
    """Net -> (scale, layer1: Affine, layer2: Inner -> (gain, affine: Affine))."""

    def __init__(self) -> None:
        super().__init__()
        self.scale = Parameter(1.0)
        self.layer1 = Affine()
        self.layer2 = Inner()
        self.note = "not registered"


class Shift(Module):
    def __init__(self, by: float) -> None:
        super().__init__()
        self.by = by

    def forward(self, x: float) -> float:
        return x + self.by


class Double(Module):
    def forward(self, x: float) -> float:
        return 2.0 * x


class NoForward(Module):
    pass


class Skipped(Module):
    def __init__(self) -> None:  # forgets super().__init__()
        self.weight = Parameter(1.0)


NET_PARAMETERS = [
    "scale",
    "layer1.weight",
    "layer1.bias",
    "layer2.gain",
    "layer2.affine.weight",
    "layer2.affine.bias",
]


# -- Parameter and registration (given plumbing, tested here too) -------------------


def test_parameter_holds_a_value_and_updates() -> None:
    p = Parameter(1.5)
    assert p.value == 1.5 and p.name is None
    p.update(-2.0)
    assert p.value == -2.0
    assert repr(Parameter(0.25, name="w")) == "Parameter(0.25, name='w')"


def test_parameter_switches_on_gradient_tracking() -> None:
    class Tracked:
        def __init__(self) -> None:
            self.requires_grad = False

        def requires_grad_(self, flag: bool = True) -> None:
            self.requires_grad = flag

    p = Parameter(Tracked())
    assert p.value.requires_grad
    fresh = Tracked()
    p.update(fresh)
    assert fresh.requires_grad


def test_attributes_are_registered_in_order() -> None:
    net = Net()
    assert list(net._parameters) == ["scale"]
    assert list(net._modules) == ["layer1", "layer2"]
    assert net.layer1.weight.value == 2.0
    assert net.scale.name == "scale"
    assert net.note == "not registered"


def test_add_parameter() -> None:
    m = Module()
    p = m.add_parameter("alpha", 0.1)
    assert isinstance(p, Parameter) and p.name == "alpha" and p.value == 0.1
    assert m.alpha is p
    assert list(m.named_parameters()) == [("alpha", p)]


def test_assigning_a_number_over_a_parameter_is_an_error() -> None:
    net = Net()
    with pytest.raises(TypeError, match=r"parameter 'scale'.*update"):
        net.scale = 0.3


def test_forgetting_super_init_is_a_clear_error() -> None:
    with pytest.raises(RuntimeError, match=r"Skipped.*super\(\).__init__\(\)"):
        Skipped()


def test_deleting_an_attribute_unregisters_it() -> None:
    net = Net()
    del net.layer1
    del net.scale
    assert [name for name, _ in net.named_parameters()] == NET_PARAMETERS[3:]
    with pytest.raises(AttributeError, match="layer1"):
        net.layer1


def test_call_runs_forward() -> None:
    assert Affine(w=3.0, b=1.0)(2.0) == 7.0


def test_missing_forward_is_a_clear_error_not_a_stub() -> None:
    with pytest.raises(RuntimeError, match=r"NoForward has no forward\(\) method"):
        NoForward()(1.0)


def test_repr_is_a_tree() -> None:
    expected = "\n".join(
        [
            "Net(",
            "  (layer1): Affine()",
            "  (layer2): Inner(",
            "    (affine): Affine()",
            "  )",
            ")",
        ]
    )
    assert repr(Net()) == expected
    assert repr(Sequential(Double(), Shift(1.0))) == (
        "Sequential(\n  (0): Double()\n  (1): Shift()\n)"
    )


def test_repr_shows_extra_repr() -> None:
    class Scaled(Shift):
        def extra_repr(self) -> str:
            return f"by={self.by}"

    assert repr(Scaled(2.0)) == "Scaled(by=2.0)"
    outer = Module()
    outer.inner = Scaled(1.0)
    assert repr(outer) == "Module(\n  (inner): Scaled(by=1.0)\n)"


# -- the walks ------------------------------------------------------------------------


def test_children_are_direct_only() -> None:
    net = Net()
    assert net.children() == [net.layer1, net.layer2]
    assert net.named_children() == [("layer1", net.layer1), ("layer2", net.layer2)]
    assert Affine().children() == []


def test_modules_are_pre_order_and_include_self() -> None:
    net = Net()
    expected = [net, net.layer1, net.layer2, net.layer2.affine]
    assert [id(m) for m in net.modules()] == [id(m) for m in expected]
    leaf = Affine()
    assert leaf.modules() == [leaf]


def test_named_modules_have_dotted_names() -> None:
    net = Net()
    assert [(name, id(m)) for name, m in net.named_modules()] == [
        ("", id(net)),
        ("layer1", id(net.layer1)),
        ("layer2", id(net.layer2)),
        ("layer2.affine", id(net.layer2.affine)),
    ]


def test_named_parameters_have_dotted_names() -> None:
    net = Net()
    named = list(net.named_parameters())
    assert [name for name, _ in named] == NET_PARAMETERS
    assert named[4][1] is net.layer2.affine.weight
    assert list(net.layer2.named_parameters())[1][0] == "affine.weight"


def test_parameters_are_iterators_as_in_pytorch() -> None:
    # The PyTorch idioms next(model.parameters()) and one pass of a for loop.
    net = Net()
    assert next(net.parameters()) is net.scale
    assert next(net.named_parameters()) == ("scale", net.scale)
    params = net.parameters()
    assert len(list(params)) == len(NET_PARAMETERS) and list(params) == []


def test_parameters_are_the_objects_not_copies() -> None:
    net = Net()
    params = list(net.parameters())
    assert [id(p) for p in params] == [id(p) for _, p in net.named_parameters()]
    params[1].update(10.0)
    assert net.layer1.weight.value == 10.0
    assert net.layer1(1.0) == 10.5


def test_shared_modules_and_parameters_are_listed_once() -> None:
    shared = Affine()
    net = Module()
    net.first = shared
    net.second = shared
    net.tied = shared.weight
    assert [name for name, _ in net.named_modules()] == ["", "first"]
    assert [name for name, _ in net.named_parameters()] == [
        "tied",
        "first.bias",
    ]
    assert len(list(net.parameters())) == 2


def test_train_and_eval_reach_every_module() -> None:
    net = Net()
    assert all(m.training for m in net.modules())
    assert net.eval() is net
    assert [m.training for m in net.modules()] == [False] * 4
    assert net.train() is net
    assert [m.training for m in net.modules()] == [True] * 4
    net.train(False)
    assert not net.layer2.affine.training
    net.layer2.train()
    assert [m.training for m in net.modules()] == [False, False, True, True]


def test_train_calls_each_childs_own_train() -> None:
    """PyTorch's ``train(mode)`` calls ``child.train(mode)``: a module that
    overrides ``train`` (here, to keep a part frozen in evaluation mode) runs its
    own, also when it is deep in the tree."""

    class FrozenInside(Module):
        def __init__(self) -> None:
            super().__init__()
            self.frozen, self.free = Net(), Net()

        def train(self, mode: bool = True) -> "FrozenInside":
            super().train(mode)
            self.frozen.eval()
            return self

    outer = Net()
    outer.layer2 = FrozenInside()
    outer.eval()
    outer.train()
    inside = outer.layer2
    assert inside.training and all(m.training for m in inside.free.modules())
    assert not any(m.training for m in inside.frozen.modules())
    assert outer.training and outer.layer1.training


# -- Sequential and ModuleList --------------------------------------------------------


def test_sequential_applies_modules_in_order() -> None:
    seq = Sequential(Double(), Shift(1.0), Double())
    assert seq(3.0) == 14.0  # ((3 * 2) + 1) * 2, not any other order
    assert Sequential(Shift(1.0), Double())(3.0) == 8.0
    assert Sequential()(5.0) == 5.0


def test_sequential_is_indexable_like_a_list() -> None:
    a, b, c = Affine(), Double(), Shift(1.0)
    seq = Sequential(a, b, c)
    assert len(seq) == 3
    assert seq[0] is a and seq[2] is c and seq[-1] is c and seq[-3] is a
    assert list(seq) == [a, b, c]
    tail = seq[1:]
    assert isinstance(tail, Sequential) and list(tail) == [b, c]
    with pytest.raises(IndexError, match=r"index 3 .*length 3"):
        seq[3]
    with pytest.raises(IndexError, match=r"index -4"):
        seq[-4]


def test_sequential_names_its_children_by_position() -> None:
    seq = Sequential(Affine(), Double(), Affine())
    assert [name for name, _ in seq.named_parameters()] == [
        "0.weight",
        "0.bias",
        "2.weight",
        "2.bias",
    ]


def test_sequential_rejects_non_modules() -> None:
    with pytest.raises(TypeError, match="expected a Module, got function"):
        Sequential(lambda x: x)


def test_module_list_registers_its_modules() -> None:
    class Stack(Module):
        def __init__(self) -> None:
            super().__init__()
            self.layers = ModuleList([Affine(), Affine()])

        def forward(self, x: float) -> float:
            for layer in self.layers:
                x = layer(x)
            return x

    stack = Stack()
    assert [name for name, _ in stack.named_parameters()] == [
        "layers.0.weight",
        "layers.0.bias",
        "layers.1.weight",
        "layers.1.bias",
    ]
    assert stack(1.0) == 2.0 * (2.0 * 1.0 + 0.5) + 0.5


def test_module_list_append_extend_index() -> None:
    a, b, c = Affine(), Double(), Shift(2.0)
    layers = ModuleList()
    assert len(layers) == 0 and list(layers) == []
    assert layers.append(a) is layers
    layers.append(b)
    assert layers.extend([c]) is layers
    assert len(layers) == 3
    assert [name for name, _ in layers.named_children()] == ["0", "1", "2"]
    assert layers[1] is b and layers[-1] is c
    assert list(layers[:2]) == [a, b]
    with pytest.raises(IndexError, match="index 5"):
        layers[5]
    with pytest.raises(TypeError, match="expected a Module"):
        layers.append(3.0)


def test_module_list_has_no_forward() -> None:
    with pytest.raises(RuntimeError, match="ModuleList has no forward"):
        ModuleList([Double()])(1.0)


# -- random trees -------------------------------------------------------------------


@dataclass(frozen=True)
class TreeSpec:
    """A module with ``n_params`` parameters and the given children."""

    n_params: int
    children: tuple[TreeSpec, ...]


tree_specs = st.recursive(
    st.builds(TreeSpec, st.integers(0, 3), st.just(())),
    lambda kids: st.builds(
        TreeSpec, st.integers(0, 3), st.lists(kids, max_size=3).map(tuple)
    ),
    max_leaves=12,
)


def build(spec: TreeSpec) -> Module:
    """A module tree shaped like ``spec``; attributes ``p0, p1, ...`` and ``c0, ...``.

    Children are assigned before parameters, to check that the order of
    named_parameters does not depend on the order of assignment across kinds.
    """
    module = Module()
    for j, child in enumerate(spec.children):
        setattr(module, f"c{j}", build(child))
    for i in range(spec.n_params):
        setattr(module, f"p{i}", Parameter(float(i)))
    return module


def expected_modules(spec: TreeSpec, name: str = "") -> list[str]:
    names = [name]
    for j, child in enumerate(spec.children):
        names += expected_modules(child, f"{name}.c{j}" if name else f"c{j}")
    return names


def expected_parameters(spec: TreeSpec, name: str = "") -> list[str]:
    prefix = f"{name}." if name else ""
    names = [f"{prefix}p{i}" for i in range(spec.n_params)]
    for j, child in enumerate(spec.children):
        names += expected_parameters(child, f"{prefix}c{j}")
    return names


def count(spec: TreeSpec) -> tuple[int, int]:
    """(modules, parameters) in the tree."""
    modules, params = 1, spec.n_params
    for child in spec.children:
        m, p = count(child)
        modules, params = modules + m, params + p
    return modules, params


@given(tree_specs)
def test_random_trees_counts_and_names(spec: TreeSpec) -> None:
    root = build(spec)
    n_modules, n_params = count(spec)
    assert len(root.modules()) == n_modules
    assert len(list(root.parameters())) == n_params
    assert [name for name, _ in root.named_modules()] == expected_modules(spec)
    assert [name for name, _ in root.named_parameters()] == expected_parameters(spec)
    assert len(root.children()) == len(spec.children)
    for name, parameter in root.named_parameters():
        target: Any = root
        for part in name.split("."):
            target = getattr(target, part)
        assert target is parameter


@given(tree_specs, st.booleans())
def test_random_trees_train_and_eval(spec: TreeSpec, start_in_eval: bool) -> None:
    root = build(spec)
    if start_in_eval:
        root.eval()
        assert not any(m.training for m in root.modules())
    root.train()
    assert all(m.training for m in root.modules())
    root.eval()
    assert not any(m.training for m in root.modules())
