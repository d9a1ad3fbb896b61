"""The PyTorch API additions of issue 13 (given code; each test carries the
marker of the task whose code it runs): each
against a NumPy or closed-form reference, with gradients by central
differences where PyTorch has them."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest

import module4_networks as kt
from module4_networks import nn, optim
from module4_networks.optim import lr_scheduler


def _opt(lr=1.0, **kwargs):
    return optim.SGD([kt.zeros(2, requires_grad=True)], lr=lr, **kwargs)


# ------------------------------------------------------------- schedulers


def _rates(scheduler, steps):
    rates = [scheduler.get_last_lr()[0]]
    for _ in range(steps):
        scheduler.optimizer.step()
        scheduler.step()
        rates.append(scheduler.optimizer.param_groups[0]["lr"])
    return rates


@pytest.mark.task2_6
def test_step_cosine_and_lambda_schedules_follow_their_formulas():
    rates = _rates(lr_scheduler.StepLR(_opt(0.8), step_size=3, gamma=0.5), 7)
    np.testing.assert_allclose(rates, [0.8 * 0.5 ** (t // 3) for t in range(8)])
    rates = _rates(lr_scheduler.CosineAnnealingLR(_opt(1.0), T_max=4, eta_min=0.2), 4)
    expected = [0.2 + 0.8 * (1 + math.cos(math.pi * t / 4)) / 2 for t in range(5)]
    np.testing.assert_allclose(rates, expected)
    rates = _rates(lr_scheduler.LambdaLR(_opt(0.5), lambda t: 1 / (t + 1)), 3)
    np.testing.assert_allclose(rates, [0.5, 0.25, 0.5 / 3, 0.125])


@pytest.mark.task2_1
def test_one_cycle_rises_then_anneals_and_cycles_momentum():
    opt = _opt(0.1, momentum=0.9)
    scheduler = lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10)
    rates, momenta = [opt.param_groups[0]["lr"]], [opt.param_groups[0]["momentum"]]
    for _ in range(9):
        scheduler.step()
        rates.append(opt.param_groups[0]["lr"])
        momenta.append(opt.param_groups[0]["momentum"])

    # Phase 1 ends at step 0.3 * 10 - 1 = 2 (cosine from 1/25 up to 1), phase 2
    # ends at step 9 (cosine down to 1/25/1e4), as torch's formula.
    def cos(start, end, pct):
        return end + (start - end) / 2 * (math.cos(math.pi * pct) + 1)

    expected = [cos(0.04, 1.0, t / 2) for t in range(3)]
    expected += [cos(1.0, 0.04 / 1e4, (t - 2) / 7) for t in range(3, 10)]
    np.testing.assert_allclose(rates, expected)
    assert momenta[0] == pytest.approx(0.95) and momenta[2] == pytest.approx(0.85)
    assert momenta[9] == pytest.approx(0.95)
    # PyTorch allows step total_steps itself (the last scheduler.step() of a loop
    # that calls it once per batch); only the step after it raises.
    scheduler.step()
    assert opt.param_groups[0]["lr"] == pytest.approx(cos(1.0, 0.04 / 1e4, 8 / 7))
    with pytest.raises(ValueError, match="Tried to step 11 times"):
        scheduler.step()


# ------------------------------------------------------------- optimizers


@pytest.mark.task4_6
def test_optimizer_state_dict_round_trip():
    w = kt.tensor([1.0, -2.0], requires_grad=True)
    opt = optim.Adam([w], lr=0.1)
    for _ in range(2):
        opt.zero_grad()
        (w * w).sum().backward()
        opt.step()
    state = opt.state_dict()
    assert state["param_groups"][0]["params"] == [0] and state["state"][0]["step"] == 2
    w2 = kt.tensor(w.to_numpy(), requires_grad=True)
    opt2 = optim.Adam([w2], lr=0.5)
    opt2.load_state_dict(state)
    assert opt2.param_groups[0]["lr"] == 0.1
    for o, p in ((opt, w), (opt2, w2)):
        o.zero_grad()
        (p * p).sum().backward()
        o.step()
    np.testing.assert_allclose(w2.to_numpy(), w.to_numpy())


@pytest.mark.task2_6
def test_adagrad_matches_its_formula():
    x0 = np.array([1.0, -3.0])
    w = kt.tensor(x0, requires_grad=True)
    opt = optim.Adagrad([w], lr=0.5, lr_decay=0.1, weight_decay=0.01)
    p, total = x0.copy(), np.zeros(2)
    for t in range(1, 4):
        opt.zero_grad()
        (w * w * w).sum().backward()
        opt.step()
        g = 3 * p**2 + 0.01 * p
        total += g * g
        p = p - 0.5 / (1 + (t - 1) * 0.1) * g / (np.sqrt(total) + 1e-10)
    np.testing.assert_allclose(w.to_numpy(), p)


# ----------------------------------------------------------- loss modules


@pytest.mark.task4_6
@pytest.mark.parametrize(
    "module, function",
    [
        (nn.MSELoss(), lambda a, b: ((a - b) ** 2).mean()),
        (nn.L1Loss(reduction="sum"), lambda a, b: np.abs(a - b).sum()),
        (
            nn.BCEWithLogitsLoss(),
            lambda a, b: np.mean(np.logaddexp(0, a) - a * b),
        ),
    ],
)
def test_loss_modules_match_numpy(module, function):
    a, b = np.array([[0.3, -1.2], [2.0, 0.1]]), np.array([[1.0, 0.0], [1.0, 1.0]])
    got = module(kt.tensor(a), kt.tensor(b)).item()
    assert got == pytest.approx(function(a, b))


@pytest.mark.task4_6
def test_cross_entropy_and_nll_modules():
    logits = np.array([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]])
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    got = nn.CrossEntropyLoss(ignore_index=2)(kt.tensor(logits), [1, 2]).item()
    assert got == pytest.approx(-logp[0, 1])
    got = nn.NLLLoss(reduction="sum")(kt.tensor(logp), [0, 2]).item()
    assert got == pytest.approx(-logp[0, 0] - logp[1, 2])


# ----------------------------------------------------------- tensor API


@pytest.mark.task2_1
def test_factories_match_numpy():
    np.testing.assert_array_equal(kt.eye(2, 3).to_numpy(), np.eye(2, 3))
    np.testing.assert_allclose(kt.linspace(0, 1, 5).to_numpy(), np.linspace(0, 1, 5))
    t = kt.ones(2, 3)
    assert kt.full_like(t, 7.0).tolist() == [[7.0] * 3] * 2
    assert kt.rand_like(t).shape == (2, 3) and kt.randn_like(t).shape == (2, 3)
    r = kt.randint(3, 6, (100,), seed=1).to_numpy()
    assert r.min() >= 3 and r.max() < 6 and np.all(r == np.round(r))
    assert sorted(kt.randperm(5, seed=2).tolist()) == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert kt.from_numpy(np.arange(3)).tolist() == [0.0, 1.0, 2.0]


@pytest.mark.task2_6
def test_function_forms_and_small_methods():
    a = kt.tensor([[1.0, -2.0], [3.0, 0.5]], requires_grad=True)
    np.testing.assert_allclose(kt.exp(a).detach().numpy(), np.exp(a.to_numpy()))
    assert kt.sum(a, 1).tolist() == [-1.0, 3.5] and kt.mean(a).item() == 0.625
    np.testing.assert_allclose(kt.matmul(a, a).to_numpy(), a.to_numpy() @ a.to_numpy())
    assert kt.clamp(a, max=1.0).tolist() == [[1.0, -2.0], [1.0, 0.5]]
    assert a.t().tolist() == [[1.0, 3.0], [-2.0, 0.5]]
    assert kt.ones(2).expand_as(a).shape == (2, 2)
    assert kt.ones(4).view_as(a).shape == (2, 2)
    c = a.clone()
    assert c._tensor._storage is not a._tensor._storage and not c.is_leaf
    (c * 2).sum().backward()
    assert a.grad.tolist() == [[2.0, 2.0], [2.0, 2.0]]
    with pytest.raises(RuntimeError, match="detach"):
        a.numpy()
    assert kt.tensor([-1.7, 2.9]).long().tolist() == [-1.0, 2.0]


@pytest.mark.task2_6
def test_grad_modes():
    w = kt.tensor([1.0], requires_grad=True)
    with kt.no_grad():
        with kt.enable_grad():
            assert (w * 2).requires_grad
        assert not (w * 2).requires_grad
    with kt.inference_mode():
        assert not (w * 2).requires_grad
    assert (w * 2).requires_grad


@pytest.mark.task4_6
def test_save_load_and_deepcopy(tmp_path):
    model = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
    model(kt.randn(4, 3))  # moves the running statistics
    kt.save(model.state_dict(), tmp_path / "m.pt")
    state = kt.load(tmp_path / "m.pt")
    assert list(state) == [
        "0.weight",
        "0.bias",
        "1.weight",
        "1.bias",
        "1.running_mean",
        "1.running_var",
        "1.num_batches_tracked",
    ]
    other = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
    other.load_state_dict(state)
    for (name, a), b in zip(model.state_dict().items(), other.state_dict().values()):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=name)
    twin = copy.deepcopy(model)
    assert twin[0].weight.value is not model[0].weight.value
    np.testing.assert_array_equal(
        twin[0].weight.value.to_numpy(), model[0].weight.value.to_numpy()
    )
    with pytest.raises(RuntimeError, match="size mismatch for 0.weight"):
        nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2)).load_state_dict(state)


def _run(optimizer_class, steps, **options):
    x0 = np.array([1.0, -3.0, 0.5])
    w = kt.tensor(x0, requires_grad=True)
    opt = optimizer_class([w], **options)
    for _ in range(steps):
        opt.zero_grad()
        (w * w * w).sum().backward()
        opt.step()
    return x0, w.to_numpy()


def _grad(p, wd):
    return 3 * p**2 + wd * p


@pytest.mark.task2_6
def test_radam_matches_its_formula():
    lr, (b1, b2), eps, wd = 0.1, (0.9, 0.99), 1e-8, 0.01
    x0, got = _run(optim.RAdam, 8, lr=lr, betas=(b1, b2), weight_decay=wd)
    p, m, v = x0.copy(), 0.0, 0.0
    rho_inf = 2 / (1 - b2) - 1
    for t in range(1, 9):  # rho_t passes 5 at step 6 with beta2 = 0.99
        g = _grad(p, wd)
        m, v = b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g * g
        m_hat = m / (1 - b1**t)
        rho = rho_inf - 2 * t * b2**t / (1 - b2**t)
        if rho > 5:
            r = np.sqrt(
                (rho - 4) * (rho - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho)
            )
            p = p - lr * m_hat * r * np.sqrt(1 - b2**t) / (np.sqrt(v) + eps)
        else:
            p = p - lr * m_hat
    np.testing.assert_allclose(got, p)


@pytest.mark.task2_6
def test_nadam_matches_its_formula():
    lr, (b1, b2), eps, psi = 0.05, (0.9, 0.999), 1e-8, 4e-3
    x0, got = _run(optim.NAdam, 4, lr=lr)
    p, m, v, product = x0.copy(), 0.0, 0.0, 1.0
    for t in range(1, 5):
        g = _grad(p, 0.0)
        mu = b1 * (1 - 0.5 * 0.96 ** (t * psi))
        mu_next = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * psi))
        product *= mu
        m, v = b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g * g
        denom = np.sqrt(v / (1 - b2**t)) + eps
        p = p - lr * (1 - mu) / (1 - product) * g / denom
        p = p - lr * mu_next / (1 - product * mu_next) * m / denom
    np.testing.assert_allclose(got, p)


@pytest.mark.task2_6
def test_one_cycle_three_phase_and_linear():
    opt = _opt(0.1)
    scheduler = lr_scheduler.OneCycleLR(
        opt,
        max_lr=1.0,
        epochs=2,
        steps_per_epoch=5,
        three_phase=True,
        anneal_strategy="linear",
        cycle_momentum=False,
    )
    rates = _rates(scheduler, 9)
    # Phases end at steps 2 (0.04 -> 1), 4 (1 -> 0.04) and 9 (0.04 -> 4e-6).
    expected = [0.04 + 0.96 * t / 2 for t in range(3)]
    expected += [1.0 - 0.96 * (t - 2) / 2 for t in range(3, 5)]
    expected += [0.04 + (4e-6 - 0.04) * (t - 4) / 5 for t in range(5, 10)]
    np.testing.assert_allclose(rates, expected)
