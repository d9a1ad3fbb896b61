"""Task 4.6: the optimizers, step by step against their update equations written
out in NumPy."""

from __future__ import annotations

from typing import Callable, Dict, List

import numpy as np
import pytest

from module0_fundamentals import Parameter
from module4_networks import nn, optim
from tests.module4.helpers import make
from tests.module4.reference import adam_ref, rmsprop_ref, sgd_ref

pytestmark = pytest.mark.task4_6

STEPS = 4


def gradients(seed: int, shape=(2, 3)) -> List[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.normal(size=shape) for _ in range(STEPS)]


def run(make_optimizer: Callable, p0: np.ndarray, grads: List[np.ndarray]):
    """Apply ``optimizer.step()`` with the given gradient sequence; return the
    parameter after each step."""
    p = make(p0, requires_grad=True)
    opt = make_optimizer([p])
    values = []
    for g in grads:
        opt.zero_grad()
        assert p.grad is None
        p.grad = make(g)
        opt.step()
        values.append(p.to_numpy())
    return values


CASES: Dict[str, tuple] = {
    "sgd": (optim.SGD, sgd_ref, dict(lr=0.1)),
    "sgd_momentum": (optim.SGD, sgd_ref, dict(lr=0.1, momentum=0.9)),
    "sgd_dampening_decay": (
        optim.SGD,
        sgd_ref,
        dict(lr=0.05, momentum=0.8, dampening=0.3, weight_decay=0.1),
    ),
    # weight decay alone, and exactly 1.0: not only the usual small values
    "sgd_decay_only": (optim.SGD, sgd_ref, dict(lr=0.05, weight_decay=1.0)),
    "sgd_nesterov": (
        optim.SGD,
        sgd_ref,
        dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01),
    ),
    "rmsprop": (optim.RMSprop, rmsprop_ref, dict(lr=0.01)),
    "rmsprop_decay_only": (
        optim.RMSprop,
        rmsprop_ref,
        dict(lr=0.01, weight_decay=1.0),
    ),
    "rmsprop_centered_momentum": (
        optim.RMSprop,
        rmsprop_ref,
        dict(lr=0.01, alpha=0.9, centered=True, momentum=0.5, weight_decay=0.1),
    ),
    "adam": (optim.Adam, adam_ref, dict(lr=0.01)),
    "adam_l2": (
        optim.Adam,
        adam_ref,
        dict(lr=0.02, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1),
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_steps_follow_the_update_equations(case):
    cls, reference, kwargs = CASES[case]
    p0 = np.random.default_rng(0).normal(size=(2, 3))
    grads = gradients(1)
    got = run(lambda params: cls(params, **kwargs), p0, grads)
    expected = reference(p0, grads, **kwargs)
    for step, (a, b) in enumerate(zip(got, expected), start=1):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14, err_msg=f"step {step}")


def test_adamw_decouples_weight_decay_from_the_gradient_statistics():
    p0 = np.random.default_rng(2).normal(size=(3,))
    grads = gradients(3, shape=(3,))
    got = run(lambda ps: optim.AdamW(ps, lr=0.01, weight_decay=0.5), p0, grads)
    expected = adam_ref(p0, grads, lr=0.01, weight_decay=0.5, decoupled=True)
    np.testing.assert_allclose(got[-1], expected[-1], rtol=1e-12)
    coupled = adam_ref(p0, grads, lr=0.01, weight_decay=0.5)
    assert not np.allclose(got[-1], coupled[-1])
    assert optim.AdamW([make(p0, requires_grad=True)]).defaults["weight_decay"] == 0.01


def test_adam_first_step_is_lr_times_the_sign_of_the_gradient():
    # Bias correction makes m_hat = g and v_hat = g^2 at step 1.
    p0, g = np.zeros(3), np.array([0.001, -20.0, 3.0])
    (got,) = run(lambda ps: optim.Adam(ps, lr=0.1, eps=0.0), p0, [g])
    np.testing.assert_allclose(got, -0.1 * np.sign(g))


def test_parameters_are_updated_in_place_and_ones_without_grad_are_skipped():
    a = Parameter(make(np.ones(2)))
    b = Parameter(make(np.ones(2)))
    before = a.value
    opt = optim.SGD([a, b], lr=0.5)
    a.value.grad = make(np.array([1.0, 2.0]))
    opt.step()
    assert a.value is before
    np.testing.assert_allclose(a.value.to_numpy(), [0.5, 0.0])
    np.testing.assert_allclose(b.value.to_numpy(), [1.0, 1.0])
    opt.zero_grad()
    assert a.value.grad is None


def test_param_groups_carry_their_own_options_and_lr_can_change():
    a, b = make(np.ones(1), requires_grad=True), make(np.ones(1), requires_grad=True)
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 1.0}], lr=0.1)
    a.grad, b.grad = make(np.ones(1)), make(np.ones(1))
    opt.step()
    assert a.item() == pytest.approx(0.9) and b.item() == pytest.approx(0.0)
    opt.param_groups[0]["lr"] = 0.5
    opt.step()
    assert a.item() == pytest.approx(0.4)


def test_a_real_backward_pass_feeds_the_optimizer():
    # Minimise (p - 3)^2 from p = 0: the gradient comes from autodiff.
    p = make(np.zeros(1), requires_grad=True)
    opt = optim.SGD([p], lr=0.1, momentum=0.5)
    for _ in range(60):
        opt.zero_grad()
        ((p - 3.0) * (p - 3.0)).sum().backward()
        opt.step()
    assert p.item() == pytest.approx(3.0, abs=1e-3)


def test_the_momentum_buffer_keeps_its_numbers_when_the_gradient_is_zeroed():
    # zero_grad(set_to_none=False) zeroes .grad in place: a first momentum buffer
    # that is the gradient tensor itself (not a copy) would be zeroed with it.
    # Minimise p.sum() from p = [1, 2], lr 0.1, momentum 0.9: g = 1 each step,
    # b = 1 then 0.9 * 1 + 1 = 1.9, so p = [0.9, 1.9] then [0.71, 1.71].
    p = make(np.array([1.0, 2.0]), requires_grad=True)
    opt = optim.SGD([p], lr=0.1, momentum=0.9)
    p.sum().backward()
    opt.step()
    opt.zero_grad(set_to_none=False)
    np.testing.assert_allclose(opt.state[p]["momentum_buffer"].to_numpy(), [1.0, 1.0])
    p.sum().backward()
    opt.step()
    np.testing.assert_allclose(p.to_numpy(), [0.71, 1.71])


def test_zero_grad_without_none_zeroes_the_gradient_in_place():
    # As PyTorch's: the gradient tensor itself becomes zeros (a reference to it
    # sees them), through a model's zero_grad as through an optimizer's.
    model = nn.Linear(2, 1)
    for zero_grad in (model.zero_grad, optim.SGD(model.parameters()).zero_grad):
        model(model.weight.new_ones(3, 2)).pow(2).sum().backward()
        held = model.weight.grad
        zero_grad(set_to_none=False)
        assert model.weight.grad is held
        np.testing.assert_array_equal(held.to_numpy(), [[0.0, 0.0]])
        np.testing.assert_array_equal(model.bias.grad.to_numpy(), [0.0])
