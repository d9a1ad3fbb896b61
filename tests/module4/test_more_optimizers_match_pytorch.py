"""Adamax, Adadelta, Rprop and ASGD (given), and ``maximize`` on RMSprop,
Adagrad and NAdam, RAdam and NAdam's ``decoupled_weight_decay``, against
``torch.optim`` itself: the same gradients fed to
both give the same parameters and the same state entries under PyTorch's
names (``opt.state[p]``), and a ``state_dict`` saved mid-run and loaded into a
fresh optimizer resumes the run. Skips, saying how to install PyTorch, where it
is absent. The optimizers' update rules are given code built from tensor
operations (Task 2.6's marker), except RMSprop's (Task 4.6's)."""

from __future__ import annotations

import numpy as np
import pytest

import module4_networks as kt
from tests.pytorch_reference import import_torch


def _cases():
    """Each case with its task's marker: RMSprop's update is Task 4.6's, the
    others given code on tensor operations (Task 2.6)."""
    return [
        pytest.param(
            name,
            marks=(
                pytest.mark.task4_6
                if name.startswith("rmsprop")
                else pytest.mark.task2_6
            ),
        )
        for name in sorted(CASES)
    ]


# name -> (class name, keyword arguments), each run by both libraries.
CASES = {
    "adamax": ("Adamax", dict(lr=0.05, betas=(0.8, 0.9), weight_decay=0.1)),
    "adamax_maximize": ("Adamax", dict(lr=0.05, maximize=True)),
    "adadelta": ("Adadelta", dict(lr=0.7, rho=0.8, eps=1e-4, weight_decay=0.05)),
    "adadelta_maximize": ("Adadelta", dict(maximize=True)),
    "rprop": ("Rprop", dict(lr=0.03, etas=(0.4, 1.5), step_sizes=(1e-3, 0.1))),
    "rprop_maximize": ("Rprop", dict(maximize=True)),
    "asgd": ("ASGD", dict(lr=0.05, lambd=0.1, alpha=0.6, t0=2, weight_decay=0.01)),
    "asgd_maximize": ("ASGD", dict(lr=0.05, t0=1, maximize=True)),
    "rmsprop_maximize": ("RMSprop", dict(lr=0.01, momentum=0.5, maximize=True)),
    "adagrad_maximize": ("Adagrad", dict(lr=0.1, lr_decay=0.1, maximize=True)),
    "nadam_maximize": ("NAdam", dict(lr=0.01, weight_decay=0.1, maximize=True)),
    "nadam_decoupled": (
        "NAdam",
        dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True),
    ),
    "radam": ("RAdam", dict(lr=0.01, weight_decay=0.1, maximize=True)),
    "radam_decoupled": (
        "RAdam",
        dict(lr=0.01, betas=(0.5, 0.6), weight_decay=0.1, decoupled_weight_decay=True),
    ),
}

START = np.random.default_rng(0).normal(size=(3, 4))
# Gradients that change sign between steps (Rprop's rule sees both cases).
GRADS = np.random.default_rng(1).normal(size=(6, 3, 4))


def _run(lib, name, grads, opt=None, p=None):
    """Step ``CASES[name]`` with each of ``grads``; the parameter and optimizer."""
    cls, kwargs = CASES[name]
    if p is None:
        p = lib.nn.Parameter(lib.tensor(START.copy()))
        opt = getattr(lib.optim, cls)([p], **kwargs)
    for g in grads:
        p.grad = lib.tensor(g)
        opt.step()
    return p, opt


def _numpy(value):
    return value.detach().numpy() if hasattr(value, "numpy") else np.asarray(value)


def _value(value):
    """A state entry as a NumPy array (torch keeps numbers in tensors)."""
    if isinstance(value, kt.Tensor):
        return value.to_numpy()
    return np.asarray(value.detach().numpy() if hasattr(value, "detach") else value)


@pytest.mark.parametrize("name", _cases())
def test_parameters_and_state_match_pytorch(name):
    torch = import_torch()
    torch.set_default_dtype(torch.float64)
    try:
        tp, topt = _run(torch, name, GRADS)
    finally:
        torch.set_default_dtype(torch.float32)
    kp, kopt = _run(kt, name, GRADS)
    np.testing.assert_allclose(kp.to_numpy(), _numpy(tp), rtol=1e-9, atol=1e-12)
    theirs, ours = topt.state[tp], kopt.state[kp]
    assert sorted(ours) == sorted(theirs)
    for key in theirs:
        np.testing.assert_allclose(
            _value(ours[key]), _value(theirs[key]), rtol=1e-9, err_msg=key
        )
    assert kopt.param_groups[0]["maximize"] == topt.param_groups[0]["maximize"]


@pytest.mark.parametrize("name", _cases())
def test_a_state_dict_round_trip_resumes_the_run(name):
    straight, _ = _run(kt, name, GRADS)
    p, opt = _run(kt, name, GRADS[:3])
    saved = opt.state_dict()
    cls, kwargs = CASES[name]
    fresh = getattr(kt.optim, cls)([p], **{**kwargs, "lr": 123.0})
    fresh.load_state_dict(saved)
    assert fresh.param_groups[0]["lr"] == kwargs.get("lr", opt.defaults["lr"])
    resumed, _ = _run(kt, name, GRADS[3:], fresh, p)
    np.testing.assert_allclose(resumed.to_numpy(), straight.to_numpy(), rtol=1e-12)


@pytest.mark.task2_6
def test_adamax_first_step_by_hand():
    # m_1 = (1 - b1) g, u_1 = |g| + eps, lr_t = lr / (1 - b1): the first step
    # moves each entry by lr * sign(g) (up to eps).
    p = kt.nn.Parameter(kt.tensor([1.0, -2.0]))
    opt = kt.optim.Adamax([p], lr=0.1, eps=0.0)
    p.grad = kt.tensor([3.0, -0.5])
    opt.step()
    np.testing.assert_allclose(p.to_numpy(), [0.9, -1.9])
    assert opt.state[p]["step"] == 1


@pytest.mark.task2_6
def test_rprop_grows_and_shrinks_its_steps_by_hand():
    # Same sign twice: step 0.1 then 0.1 * 1.2; a sign flip: 0.12 * 0.5 and no move.
    p = kt.nn.Parameter(kt.tensor([0.0]))
    opt = kt.optim.Rprop([p], lr=0.1)
    moves = []
    for g in (1.0, 1.0, -1.0, -1.0):
        before = p.item()
        p.grad = kt.tensor([g])
        opt.step()
        moves.append(p.item() - before)
    np.testing.assert_allclose(moves, [-0.1, -0.12, 0.0, 0.06])


@pytest.mark.task2_6
def test_bad_rprop_and_adadelta_arguments_raise():
    p = kt.nn.Parameter(kt.zeros(1))
    with pytest.raises(ValueError, match="eta"):
        kt.optim.Rprop([p], etas=(1.5, 1.2))
    with pytest.raises(ValueError, match="rho"):
        kt.optim.Adadelta([p], rho=1.5)


@pytest.mark.task2_6
def test_radam_takes_pytorchs_arguments_not_adams():
    """As ``torch.optim.RAdam``: no ``amsgrad`` (it was taken and ignored), and
    ``decoupled_weight_decay`` fifth after ``params``."""
    p = kt.nn.Parameter(kt.zeros(2))
    with pytest.raises(TypeError, match="amsgrad"):
        kt.optim.RAdam([p], amsgrad=True)
    opt = kt.optim.RAdam([p], 0.1, (0.9, 0.99), 1e-8, 0.5, True)
    assert opt.param_groups[0]["decoupled_weight_decay"] is True
