"""PyTorch's optimizer features a porting user meets: ``zero_grad(set_to_none=)``,
``step(closure)``, ``add_param_group`` and ``maximize`` (values worked out by hand
or with NumPy)."""

from __future__ import annotations

import numpy as np
import pytest

import module4_networks as kt
from module4_networks import optim

pytestmark = pytest.mark.task4_6


def _param(values):
    return kt.Parameter(kt.tensor(values, requires_grad=True))


def test_zero_grad_sets_none_by_default_or_zeros_in_place():
    p = _param([1.0, 2.0])
    opt = optim.SGD([p], lr=0.1)
    (p * p).sum().backward()
    grad = p.grad
    opt.zero_grad(set_to_none=False)
    assert p.grad is grad  # the same tensor, a held reference stays valid
    np.testing.assert_array_equal(grad.to_numpy(), [0.0, 0.0])
    opt.zero_grad()
    assert p.grad is None


def test_step_with_a_closure_returns_its_loss_and_records_gradients():
    p = _param([3.0])
    opt = optim.SGD([p], lr=0.25)
    calls = []

    def closure():
        opt.zero_grad()
        loss = ((p - 1.0) ** 2).sum()  # gradient 2 (p - 1) = 4 at p = 3
        loss.backward()
        calls.append(loss.item())
        return loss

    with kt.no_grad():  # the closure records gradients all the same
        loss = opt.step(closure)
    assert calls == [4.0] and loss.item() == 4.0
    np.testing.assert_allclose(p.to_numpy(), [3.0 - 0.25 * 4.0])
    assert opt.step() is None


def test_add_param_group_steps_a_new_group_with_its_own_and_default_settings():
    a, b = _param([1.0]), _param([1.0])
    opt = optim.SGD([a], lr=0.1, momentum=0.5)
    opt.add_param_group({"params": [b], "lr": 0.01})
    assert opt.param_groups[1]["momentum"] == 0.5  # filled from the defaults
    (a * 2.0 + b * 2.0).sum().backward()  # both gradients are 2
    opt.step()
    np.testing.assert_allclose(a.to_numpy(), [1.0 - 0.1 * 2.0])
    np.testing.assert_allclose(b.to_numpy(), [1.0 - 0.01 * 2.0])
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [a]})
    with pytest.raises(ValueError, match="learning rate"):
        opt.add_param_group({"params": [_param([0.0])], "lr": -1.0})


def _adam_numpy(p, grads, lr, betas=(0.9, 0.999), eps=1e-8):
    m = v = np.zeros_like(p)
    for t, g in enumerate(grads, start=1):
        m = betas[0] * m + (1 - betas[0]) * g
        v = betas[1] * v + (1 - betas[1]) * g * g
        p = p - lr * (m / (1 - betas[0] ** t)) / (
            np.sqrt(v / (1 - betas[1] ** t)) + eps
        )
    return p


@pytest.mark.parametrize("make", ["sgd", "adam", "adamw"])
def test_maximize_ascends_as_descending_on_the_negated_gradient(make):
    # f(p) = -(p - 2)^2 has its maximum at 2; its gradient is -2 (p - 2).
    p = _param([0.0, 5.0])
    factory = {
        "sgd": lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9, maximize=True),
        "adam": lambda ps: optim.Adam(ps, lr=0.1, maximize=True),
        "adamw": lambda ps: optim.AdamW(ps, lr=0.1, weight_decay=0.0, maximize=True),
    }[make]
    opt = factory([p])
    values, grads = np.array([0.0, 5.0]), []
    buffer = None
    for _ in range(5):
        opt.zero_grad()
        (-((p - 2.0) ** 2)).sum().backward()
        g = -2.0 * (values - 2.0)
        grads.append(-g)  # maximize: descend on -g
        if make == "sgd":
            buffer = -g if buffer is None else 0.9 * buffer + (-g)
            values = values - 0.1 * buffer
        else:
            values = _adam_numpy(np.array([0.0, 5.0]), grads, lr=0.1)
        opt.step()
        np.testing.assert_allclose(p.to_numpy(), values, rtol=1e-12, atol=1e-12)
    assert np.all(np.abs(values - 2.0) < np.array([2.0, 3.0]))  # moved uphill
    assert opt.state_dict()["param_groups"][0]["maximize"] is True


@pytest.mark.parametrize("make", ["adam", "adamw"])
def test_amsgrad_divides_by_the_largest_second_moment_so_far(make):
    # Gradients that shrink: v falls, so the maximum of v (AMSGrad) differs from v.
    grads = [np.array([4.0, -3.0]), np.array([0.5, 0.1]), np.array([0.2, -0.1])]
    lr, b1, b2, eps, wd = 0.1, 0.9, 0.999, 1e-8, 0.01
    p = _param([1.0, -1.0])
    opt = (optim.Adam if make == "adam" else optim.AdamW)(
        [p], lr=lr, weight_decay=wd, amsgrad=True
    )
    value = np.array([1.0, -1.0])
    m = v = v_max = np.zeros(2)
    for t, g in enumerate(grads, start=1):
        opt.zero_grad()
        (p * kt.tensor(g)).sum().backward()
        opt.step()
        if make == "adam":
            g = g + wd * value
        else:
            value = value * (1 - lr * wd)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        v_max = np.maximum(v_max, v)
        denominator = np.sqrt(v_max / (1 - b2**t)) + eps
        value = value - lr * (m / (1 - b1**t)) / denominator
        np.testing.assert_allclose(p.to_numpy(), value, rtol=1e-12)
    assert opt.state_dict()["state"][0]["max_exp_avg_sq"] is not None
