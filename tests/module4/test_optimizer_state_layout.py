"""An optimizer's state as PyTorch users read it: ``opt.state[p]`` keyed by the
parameter itself (``{}`` before its first step), a ``step`` count in the state
of RMSprop, Adam and Adagrad, and Adagrad's state filled when the optimizer is
built. Expected values are worked by hand from ``torch.optim``'s documented
update rules; where PyTorch is installed the same layouts are compared with it.

The tests that step SGD, RMSprop or Adam run Task 4.6's update rules and carry
its marker; the Adagrad ones check given code only."""

from __future__ import annotations

import numpy as np
import pytest

import module4_networks as kt
from tests.pytorch_reference import import_torch

task4_6 = pytest.mark.task4_6


def _stepped(lib, make, steps=2):
    """A weight [1, -2] with loss sum(w^2) stepped ``steps`` times by ``make``."""
    w = lib.nn.Parameter(lib.tensor([1.0, -2.0]))
    opt = make(lib.optim, [w])
    for _ in range(steps):
        opt.zero_grad()
        (w * w).sum().backward()
        opt.step()
    return w, opt


@task4_6
def test_state_is_keyed_by_the_parameter_itself():
    w, opt = _stepped(kt, lambda o, ps: o.Adam(ps, lr=0.1))
    state = opt.state[w]
    assert sorted(state) == ["exp_avg", "exp_avg_sq", "step"]
    assert state["step"] == 2
    # g_1 = 2 w = [2, -4], m_1 = 0.1 g_1; Adam's first step moves each weight by
    # lr = 0.1 against its sign (m / sqrt(v) = g / |g|), so g_2 = [1.8, -3.8] and
    # m_2 = 0.9 m_1 + 0.1 g_2 = [0.36, -0.74].
    np.testing.assert_allclose(state["exp_avg"].to_numpy(), [0.36, -0.74], rtol=1e-6)
    assert list(opt.state) == [w]
    fresh = kt.nn.Parameter(kt.zeros(2))
    assert opt.state[fresh] == {}  # never stepped: empty, as torch's defaultdict


@task4_6
def test_rmsprop_counts_its_steps():
    w, opt = _stepped(
        kt, lambda o, ps: o.RMSprop(ps, lr=0.01, momentum=0.5, centered=True), 3
    )
    state = opt.state[w]
    assert state["step"] == 3
    assert sorted(state) == ["grad_avg", "momentum_buffer", "square_avg", "step"]
    plain = _stepped(kt, lambda o, ps: o.RMSprop(ps, lr=0.01), 1)[1]
    assert sorted(plain.state[plain.param_groups[0]["params"][0]]) == [
        "square_avg",
        "step",
    ]


@pytest.mark.task2_6
def test_adagrad_fills_its_state_when_built():
    w = kt.nn.Parameter(kt.tensor([1.0, -2.0]))
    opt = kt.optim.Adagrad([w], lr=0.1, initial_accumulator_value=0.5)
    assert opt.state[w]["step"] == 0
    np.testing.assert_array_equal(opt.state[w]["sum"].to_numpy(), [0.5, 0.5])
    saved = opt.state_dict()["state"]  # a checkpoint before any step has it
    assert sorted(saved) == [0] and sorted(saved[0]) == ["step", "sum"]
    (w * w).sum().backward()
    opt.step()
    # sum = 0.5 + g^2 with g = 2 w = [2, -4]; w -= 0.1 g / sqrt(sum).
    assert opt.state[w]["step"] == 1
    np.testing.assert_allclose(opt.state[w]["sum"].to_numpy(), [4.5, 16.5])
    np.testing.assert_allclose(
        w.to_numpy(), [1 - 0.2 / np.sqrt(4.5), -2 + 0.4 / np.sqrt(16.5)]
    )


@pytest.mark.task2_6
def test_a_loaded_state_is_keyed_by_the_new_optimizers_parameters():
    w = kt.nn.Parameter(kt.tensor([1.0, -2.0]))
    opt = kt.optim.Adagrad([w], lr=0.1)
    (w * w).sum().backward()
    opt.step()
    v = kt.nn.Parameter(kt.tensor([1.0, -2.0]))
    other = kt.optim.Adagrad([v], lr=0.1)
    other.load_state_dict(opt.state_dict())
    assert list(other.state) == [v] and other.state[v]["step"] == 1
    np.testing.assert_allclose(other.state[v]["sum"].to_numpy(), [4.0, 16.0])


@pytest.mark.task2_1
def test_a_state_of_other_groups_or_group_sizes_is_refused():
    """As PyTorch's ``load_state_dict``: the saved groups and the number of
    parameters in each must match the optimizer's."""
    a, b = kt.nn.Parameter(kt.zeros(2)), kt.nn.Parameter(kt.zeros(2))
    saved = kt.optim.Adagrad([a, b]).state_dict()
    for groups in ([a], [{"params": [a]}, {"params": [b]}]):
        with pytest.raises(ValueError, match="different number of parameter groups"):
            kt.optim.Adagrad(groups).load_state_dict(saved)
    kt.optim.Adagrad([b, a]).load_state_dict(saved)  # the same sizes: accepted


LAYOUTS = {
    "sgd_momentum": lambda o, ps: o.SGD(ps, lr=0.1, momentum=0.9),
    "rmsprop": lambda o, ps: o.RMSprop(ps, lr=0.01),
    "rmsprop_centered_momentum": lambda o, ps: o.RMSprop(
        ps, lr=0.01, momentum=0.5, centered=True
    ),
    "adam": lambda o, ps: o.Adam(ps, lr=0.1),
    "adagrad": lambda o, ps: o.Adagrad(ps, lr=0.1),
}


@task4_6
@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_state_layouts_match_pytorch(name):
    torch = import_torch()
    w, opt = _stepped(kt, LAYOUTS[name])
    tw, topt = _stepped(torch, LAYOUTS[name])
    ours, theirs = opt.state[w], topt.state[tw]
    assert sorted(ours) == sorted(theirs)
    for key, value in theirs.items():
        if key == "step":  # torch keeps a float tensor, a count here
            assert ours[key] == int(value.item())
        else:
            np.testing.assert_allclose(
                ours[key].to_numpy(), value.detach().numpy(), rtol=1e-6
            )
    # Before any step: empty, except Adagrad's (filled when built).
    p, tp = kt.nn.Parameter(kt.ones(2)), torch.nn.Parameter(torch.ones(2))
    built, tbuilt = LAYOUTS[name](kt.optim, [p]), LAYOUTS[name](torch.optim, [tp])
    assert sorted(built.state[p]) == sorted(tbuilt.state[tp])


#: Every optimizer, as ``torch.optim`` spells it (Task 4.6 writes SGD's,
#: RMSprop's, Adam's and AdamW's updates; the others are given).
ALL = ("SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adamax", "Adadelta")
ALL += ("Rprop", "ASGD", "NAdam", "RAdam")


@task4_6
@pytest.mark.parametrize("name", ALL)
def test_the_state_of_a_float32_parameter_is_float32(name):
    # Rprop's step sizes grew from a float64 factor (its where of two Python
    # numbers), so they reported float64 beside a float32 parameter; torch's
    # buffers have the parameter's dtype. (Numbers kept as Python floats and
    # the step count are left out: torch keeps 0-d tensors.)
    kwargs = {"momentum": 0.9} if name in ("SGD", "RMSprop") else {}
    w = kt.nn.Parameter(kt.tensor([1.0, -2.0], dtype=kt.float32))
    opt = getattr(kt.optim, name)([w], lr=0.1, **kwargs)
    for grad in ([0.5, 0.5], [-0.5, 0.25]):  # (a sign flip for Rprop)
        w.grad = kt.tensor(grad, dtype=kt.float32)
        opt.step()
    buffers = {k: v for k, v in opt.state[w].items() if isinstance(v, kt.Tensor)}
    assert buffers and {k: v.dtype for k, v in buffers.items()} == dict.fromkeys(
        buffers, kt.float32
    )
    assert w.dtype is kt.float32
