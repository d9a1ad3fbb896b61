"""An optimizer's parameter groups hold PyTorch's keys: its hyperparameters and
the implementation switches ``foreach``, ``capturable``, ``differentiable`` and
``fused`` that each ``torch.optim`` class takes, with torch's defaults (so a
``state_dict`` has torch's layout). ``foreach`` is accepted and changes nothing
(in torch it changes only speed); asking for a capturable, differentiable or
fused update raises, as Kindling has none; a switch the class does not take is
a ``TypeError``, as in PyTorch. ``Adam(decoupled_weight_decay=True)`` is AdamW.

Building an optimizer runs given code only (no marker; a non-leaf tensor to
refuse is made by Task 2.3's forward, and carries its marker); the tests that step
Adam or AdamW run Task 4.6's update rules and carry its marker."""

from __future__ import annotations

import numpy as np
import pytest

import module4_networks as kt
from tests.pytorch_reference import import_torch

task4_6 = pytest.mark.task4_6

#: Each optimizer's switches, as ``torch.optim``'s signatures list them.
SWITCHES = {
    "SGD": ("foreach", "differentiable", "fused"),
    "Adagrad": ("foreach", "differentiable", "fused"),
    "Adam": ("foreach", "capturable", "differentiable", "fused"),
    "AdamW": ("foreach", "capturable", "differentiable", "fused"),
    "RMSprop": ("foreach", "capturable", "differentiable"),
    "RAdam": ("foreach", "capturable", "differentiable"),
    "NAdam": ("foreach", "capturable", "differentiable"),
    "Adamax": ("foreach", "capturable", "differentiable"),
    "Adadelta": ("foreach", "capturable", "differentiable"),
    "Rprop": ("foreach", "capturable", "differentiable"),
    "ASGD": ("foreach", "capturable", "differentiable"),
}
DEFAULTS = {"foreach": None, "capturable": False, "differentiable": False}


def _built(lib, name, **kwargs):
    return getattr(lib.optim, name)([lib.zeros(2, requires_grad=True)], **kwargs)


@pytest.mark.parametrize("name", sorted(SWITCHES))
def test_each_group_holds_the_switches_with_pytorchs_defaults(name):
    group = _built(kt, name).param_groups[0]
    assert {k: group[k] for k in SWITCHES[name]} == {
        k: DEFAULTS.get(k) for k in SWITCHES[name]  # fused: None
    }
    for absent in {"capturable", "fused"} - set(SWITCHES[name]):
        assert absent not in group


@pytest.mark.parametrize("name", sorted(SWITCHES))
def test_group_and_state_dict_keys_are_pytorchs(name):
    torch = import_torch()
    theirs = _built(torch, name)
    ours = _built(kt, name)
    assert set(ours.param_groups[0]) == set(theirs.param_groups[0])
    assert set(ours.state_dict()["param_groups"][0]) == set(
        theirs.state_dict()["param_groups"][0]
    )
    assert set(ours.defaults) == set(theirs.defaults)
    for key, value in theirs.param_groups[0].items():
        if key != "params":
            assert ours.param_groups[0][key] == value, key


@pytest.mark.parametrize("name", sorted(SWITCHES))
@pytest.mark.parametrize("switch", ["capturable", "differentiable", "fused"])
def test_asking_for_an_update_kindling_lacks_raises(name, switch):
    if switch in SWITCHES[name]:
        with pytest.raises(NotImplementedError, match=f"{switch}=True"):
            _built(kt, name, **{switch: True})
        _built(kt, name, **{switch: False})  # the default spelled out is fine
    else:  # torch's class has no such argument either
        with pytest.raises(TypeError, match=f"unexpected keyword argument '{switch}'"):
            _built(kt, name, **{switch: True})


def test_a_group_added_with_a_switch_is_checked_too():
    opt = _built(kt, "SGD")
    with pytest.raises(NotImplementedError, match="fused=True"):
        opt.add_param_group({"params": [kt.zeros(1, requires_grad=True)], "fused": 1})
    with pytest.raises(TypeError, match="unexpected keyword argument 'lr_decay'"):
        _built(kt, "SGD", lr_decay=0.1)  # Adagrad's, not SGD's: not swallowed


def _trained(make, steps=3):
    """The weight [1, -2] after ``steps`` steps of loss sum(w^2) under ``make``."""
    w = kt.nn.Parameter(kt.tensor([1.0, -2.0]))
    opt = make([w])
    for _ in range(steps):
        opt.zero_grad()
        (w * w).sum().backward()
        opt.step()
    return w.to_numpy()


@task4_6
def test_foreach_is_accepted_and_changes_nothing():
    for foreach in (True, False):
        np.testing.assert_array_equal(
            _trained(lambda ps: kt.optim.Adam(ps, lr=0.1, foreach=foreach)),
            _trained(lambda ps: kt.optim.Adam(ps, lr=0.1)),
        )


@task4_6
@pytest.mark.parametrize("amsgrad", [False, True])
def test_adam_with_decoupled_weight_decay_is_adamw(amsgrad):
    kw = dict(lr=0.1, weight_decay=0.5, amsgrad=amsgrad)
    decoupled = _trained(
        lambda ps: kt.optim.Adam(ps, decoupled_weight_decay=True, **kw)
    )
    np.testing.assert_allclose(
        decoupled, _trained(lambda ps: kt.optim.AdamW(ps, **kw)), rtol=1e-12
    )
    # By hand, one step: w (1 - lr wd) - lr sign(g) = [1 * 0.95 - 0.1, ...].
    one = _trained(lambda ps: kt.optim.Adam(ps, decoupled_weight_decay=True, **kw), 1)
    np.testing.assert_allclose(one, [0.85, -1.8], rtol=1e-6)
    coupled = _trained(lambda ps: kt.optim.Adam(ps, **kw))
    assert not np.allclose(decoupled, coupled)  # L2 decay is another rule
    assert kt.optim.AdamW([kt.zeros(1)]).param_groups[0]["decoupled_weight_decay"]


@pytest.mark.parametrize("name", sorted(SWITCHES))
def test_a_tensor_for_params_is_a_type_error_as_torchs(name):
    # Iterating a tensor gives its rows: views that never receive a .grad, so the
    # optimizer would silently train nothing. PyTorch raises; so does Kindling.
    for lib in (kt, import_torch()):
        with pytest.raises(TypeError, match="iterable of Tensors or dicts"):
            getattr(lib.optim, name)(lib.zeros(2, 3, requires_grad=True))


@pytest.mark.task2_3  # (w * 2.0: Task 2.3's forward)
@pytest.mark.parametrize("name", sorted(SWITCHES))
def test_a_non_leaf_tensor_is_refused_as_torchs(name):
    # A computed tensor (w * 2, w.to(...) of another dtype) never gets a .grad:
    # the optimizer silently trained nothing. PyTorch raises; so does Kindling.
    for lib in (kt, import_torch()):
        w = lib.zeros(2, requires_grad=True)
        with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
            getattr(lib.optim, name)([w * 2.0])
        with pytest.raises(ValueError, match="non-leaf"):
            getattr(lib.optim, name)([w]).add_param_group({"params": [w + 1.0]})


def test_invalid_settings_are_reported_in_pytorchs_order():
    for lib in (kt, import_torch()):
        w = lib.zeros(2, requires_grad=True)
        for name, kwargs, message in (
            ("SGD", dict(lr=-1, momentum=-1, weight_decay=-1), "learning rate: -1"),
            ("SGD", dict(momentum=-1, weight_decay=-1), "momentum value: -1"),
            ("Adam", dict(eps=-1, weight_decay=-1), "epsilon value: -1"),
            ("Adam", dict(weight_decay=-1), "weight_decay value: -1"),
        ):
            with pytest.raises(ValueError, match="Invalid " + message):
                getattr(lib.optim, name)([w], **{"lr": 0.1, **kwargs})


def test_adagrads_initial_sums_come_from_the_argument_as_torchs():
    # torch.optim.Adagrad fills every sum from its initial_accumulator_value
    # argument when built, a group's own value notwithstanding.
    for lib in (kt, import_torch()):
        a, b = lib.zeros(2, requires_grad=True), lib.zeros(1, requires_grad=True)
        groups = [{"params": [a]}, {"params": [b], "initial_accumulator_value": 3.0}]
        opt = lib.optim.Adagrad(groups, initial_accumulator_value=0.5)
        assert opt.state[a]["sum"].tolist() == [0.5, 0.5]
        assert opt.state[b]["sum"].tolist() == [0.5]
