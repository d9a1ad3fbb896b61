"""Learning-rate schedulers chain as PyTorch 2.x's do: a chainable schedule
multiplies the *current* rate at each step, so two schedulers on one optimizer
compose, a warm-up before another schedule is kept, a rate set by hand in
``param_groups`` is scaled from where it was set, and a state_dict resume goes
on where it stopped. Expected values are worked by hand from the step-by-step
forms in PyTorch's documentation; where PyTorch is installed every case is also
compared with it. Given code; each test carries
the marker of the task whose code it runs."""

from __future__ import annotations

import math
from contextlib import nullcontext

import numpy as np
import pytest

import module4_networks as kt
from tests.pytorch_reference import import_torch


def _opt(lib, lr=0.1):
    return lib.optim.SGD([lib.nn.Parameter(lib.zeros(1))], lr=lr)


def _run(lib, build, steps, lr=0.1, hand=None):
    """Rates of one SGD group: after construction and after each step. ``build``
    returns the schedulers to step (in order); ``hand`` maps a step index to a
    rate set by hand in ``param_groups`` just before that step."""
    opt = _opt(lib, lr)
    schedulers = build(lib.optim.lr_scheduler, opt)
    rates = [opt.param_groups[0]["lr"]]
    for k in range(steps):
        opt.step()
        if hand and k in hand:
            opt.param_groups[0]["lr"] = hand[k]
        for scheduler in schedulers:
            scheduler.step()
        rates.append(opt.param_groups[0]["lr"])
    return rates


def _exp_and_multistep(s, o):
    return [s.ExponentialLR(o, 0.95), s.MultiStepLR(o, [2, 4], 0.5)]


def _warmup_then_step(s, o):
    return [s.LinearLR(o, 0.25, 1.0, total_iters=3), s.StepLR(o, 2, 0.5)]


def _cosine_and_exp(s, o):
    return [s.CosineAnnealingLR(o, T_max=4, eta_min=0.01), s.ExponentialLR(o, 0.9)]


def _chained(s, o):
    return [s.ChainedScheduler([s.ConstantLR(o, 0.5, 2), s.ExponentialLR(o, 0.9)])]


def _polynomial_and_multiplicative(s, o):
    return [
        s.PolynomialLR(o, total_iters=4, power=2.0),
        s.MultiplicativeLR(o, lambda t: 0.9),
    ]


CASES = {
    "exp_and_multistep": (_exp_and_multistep, 6, None),
    "warmup_then_step": (_warmup_then_step, 6, None),
    "cosine_and_exp": (_cosine_and_exp, 10, None),
    "chained": (_chained, 4, None),
    "polynomial_and_multiplicative": (_polynomial_and_multiplicative, 6, None),
    "step_by_hand": (lambda s, o: [s.StepLR(o, 3, 0.5)], 7, {4: 0.5}),
    "exp_by_hand": (lambda s, o: [s.ExponentialLR(o, 0.5)], 4, {1: 1.0}),
    "cosine_by_hand": (lambda s, o: [s.CosineAnnealingLR(o, 4)], 4, {1: 1.0}),
    "step_gamma_0_by_hand": (lambda s, o: [s.StepLR(o, 2, 0.0)], 5, {2: 0.3}),
    "multistep_gamma_0_by_hand": (
        lambda s, o: [s.MultiStepLR(o, [2, 5], 0.0)],
        6,
        {2: 0.3},
    ),
    "exp_gamma_0_by_hand": (lambda s, o: [s.ExponentialLR(o, 0.0)], 4, {2: 0.3}),
}


def _by_hand_cosine():
    """CosineAnnealingLR(T_max=4, eta_min=0.01) and ExponentialLR(0.9) stepped
    together: the cosine step scales the distance to eta_min by the ratio of
    consecutive (1 + cos) terms (the 0/0 step past T_max adds back a fixed
    amount), then the exponential one multiplies by 0.9."""
    low, lr, out = 0.01, 0.1, [0.1]
    for t in range(1, 11):
        if (t - 1 - 4) % 8 == 0:
            lr = lr + (0.1 - low) * (1 - math.cos(math.pi / 4)) / 2
        else:
            ratio = (1 + math.cos(math.pi * t / 4)) / (
                1 + math.cos(math.pi * (t - 1) / 4)
            )
            lr = low + (lr - low) * ratio
        lr *= 0.9
        out.append(lr)
    return out


def _by_hand_polynomial():
    """(1 - t/4)^2 ratios up to step 4 (then the rate is 0), times 0.9 a step."""
    lr, out = 0.1, [0.1]
    for t in range(1, 7):
        if t <= 4:
            lr *= ((1 - t / 4) / (1 - (t - 1) / 4)) ** 2
        lr *= 0.9
        out.append(lr)
    return out


EXPECTED = {
    # 0.95 every step; 0.5 more at steps 2 and 4.
    "exp_and_multistep": [
        0.1 * 0.95**t * 0.5 ** sum(m <= t for m in (2, 4)) for t in range(7)
    ],
    # Warm-up factors 0.25, 0.5, 0.75, 1 (steps 0-3), halved at steps 2, 4, 6.
    "warmup_then_step": [
        0.025,
        0.05,
        0.0375,
        0.05,
        0.025,
        0.025,
        0.0125,
    ],
    "cosine_and_exp": _by_hand_cosine(),
    # ConstantLR halves for 2 steps, then restores; 0.9 a step on top.
    "chained": [0.05, 0.045, 0.081, 0.0729, 0.06561],
    "polynomial_and_multiplicative": _by_hand_polynomial(),
    # Set to 0.5 before step 5: kept, then halved at step 6 (6 % 3 == 0).
    "step_by_hand": [0.1, 0.1, 0.1, 0.05, 0.05, 0.5, 0.25, 0.25],
    # Set to 1.0 before step 2: 0.5 from there.
    "exp_by_hand": [0.1, 0.05, 0.5, 0.25, 0.125],
    # Set to 1.0 before step 2 (T_max 4, eta_min 0): scaled by
    # (1 + cos(pi/2)) / (1 + cos(pi/4)), then (1 + cos(3pi/4)) / (1 + cos(pi/2)).
    "cosine_by_hand": [
        0.1,
        0.1 * (1 + math.cos(math.pi / 4)) / 2,
        1.0 / (1 + math.cos(math.pi / 4)),
        (1 + math.cos(3 * math.pi / 4)) / (1 + math.cos(math.pi / 4)),
        0.0,
    ],
    # gamma 0: a boundary zeroes the rate, also one set by hand after an
    # earlier boundary had zeroed it (a ratio f(t) / f(t - 1) would be 0 / 0).
    "step_gamma_0_by_hand": [0.1, 0.1, 0.0, 0.3, 0.0, 0.0],
    "multistep_gamma_0_by_hand": [0.1, 0.1, 0.0, 0.3, 0.3, 0.0, 0.0],
    "exp_gamma_0_by_hand": [0.1, 0.0, 0.0, 0.0, 0.0],
}


@pytest.mark.task2_6
@pytest.mark.parametrize("name", sorted(CASES))
def test_chained_schedules_multiply_the_current_rate(name):
    build, steps, hand = CASES[name]
    np.testing.assert_allclose(
        _run(kt, build, steps, hand=hand), EXPECTED[name], rtol=1e-9, atol=1e-15
    )


@pytest.mark.task2_6
@pytest.mark.parametrize("name", sorted(CASES))
def test_chained_schedules_match_pytorch(name):
    torch = import_torch()
    build, steps, hand = CASES[name]
    np.testing.assert_allclose(
        _run(kt, build, steps, hand=hand),
        _run(torch, build, steps, hand=hand),
        rtol=1e-12,
        atol=1e-15,
    )


@pytest.mark.task2_1
def test_step_with_an_epoch_jumps_to_the_closed_form():
    opt = _opt(kt)
    sched = kt.optim.lr_scheduler.MultiStepLR(opt, [2, 5, 5], 0.5)
    sched.step(6)  # 0.1 * 0.5^3: three milestones <= 6
    assert opt.param_groups[0]["lr"] == pytest.approx(0.0125)
    sched.step()  # step 7: no milestone, the rate stays
    assert opt.param_groups[0]["lr"] == pytest.approx(0.0125)


@pytest.mark.task2_1
def test_schedulers_that_hold_others_refuse_reduce_on_plateau():
    """As PyTorch: ``ReduceLROnPlateau.step`` needs a metric, so neither
    ``SequentialLR`` nor ``ChainedScheduler`` takes one."""
    S = kt.optim.lr_scheduler
    opt = _opt(kt)
    schedulers = [S.StepLR(opt, 2), S.ReduceLROnPlateau(opt)]
    with pytest.raises(ValueError, match="does not support `ReduceLROnPlateau`"):
        S.SequentialLR(opt, schedulers, milestones=[3])
    with pytest.raises(ValueError, match="does not support `ReduceLROnPlateau`"):
        S.ChainedScheduler(schedulers)


def _resume(lib, make, before, after):
    """Rates after ``before`` steps, a save, a fresh optimizer and scheduler
    (built, then both states loaded), and ``after`` more steps."""
    opt = _opt(lib)
    sched = make(lib.optim.lr_scheduler, opt)
    for _ in range(before):
        opt.step()
        sched.step()
    saved_opt, saved_sched = opt.state_dict(), sched.state_dict()
    opt = _opt(lib)
    sched = make(lib.optim.lr_scheduler, opt)
    opt.load_state_dict(saved_opt)
    sched.load_state_dict(saved_sched)
    rates = [opt.param_groups[0]["lr"]]
    for _ in range(after):
        opt.step()
        sched.step()
        rates.append(opt.param_groups[0]["lr"])
    return rates


RESUMES = {
    "exponential": lambda s, o: s.ExponentialLR(o, 0.5),
    "step": lambda s, o: s.StepLR(o, 2, 0.5),
    "linear": lambda s, o: s.LinearLR(o, 0.2, 1.0, total_iters=4),
    "cosine": lambda s, o: s.CosineAnnealingLR(o, T_max=5),
    "sequential": lambda s, o: s.SequentialLR(
        o, [s.LinearLR(o, 0.5, total_iters=2), s.ExponentialLR(o, 0.5)], [2]
    ),
}

RESUMED = {
    "exponential": [0.1 * 0.5**t for t in range(3, 7)],
    "step": [0.1 * 0.5 ** (t // 2) for t in range(3, 7)],
    "linear": [0.1 * (0.2 + 0.8 * min(t, 4) / 4) for t in range(3, 7)],
    "cosine": [0.05 * (1 + math.cos(math.pi * t / 5)) for t in range(3, 7)],
    # Warm-up 0.05, 0.075, then 0.1 halved a step from step 2.
    "sequential": [0.05, 0.025, 0.0125, 0.00625],
}


@pytest.mark.task2_6
@pytest.mark.parametrize("name", sorted(RESUMES))
def test_a_resumed_schedule_goes_on_where_it_stopped(name):
    np.testing.assert_allclose(
        _resume(kt, RESUMES[name], 3, 3), RESUMED[name], rtol=1e-12, atol=1e-15
    )


@pytest.mark.task2_6
@pytest.mark.parametrize("name", sorted(RESUMES))
def test_a_resumed_schedule_matches_pytorch(name):
    torch = import_torch()
    np.testing.assert_allclose(
        _resume(kt, RESUMES[name], 3, 3),
        _resume(torch, RESUMES[name], 3, 3),
        rtol=1e-12,
        atol=1e-15,
    )


JUMPS = {
    "cosine": lambda s, o: s.CosineAnnealingLR(o, T_max=5, eta_min=0.01),
    "exponential": lambda s, o: s.ExponentialLR(o, 0.5),
    "linear": lambda s, o: s.LinearLR(o, 0.2, 1.0, total_iters=4),
    "polynomial": lambda s, o: s.PolynomialLR(o, total_iters=5, power=2.0),
    "lambda": lambda s, o: s.LambdaLR(o, lambda t: 1.0 / (t + 1)),
}

#: The rate after step(), step(), step(epoch=4), step(), from the closed form at
#: each step (the jump and what follows it).
JUMPED = {
    "cosine": [0.01 + 0.045 * (1 + math.cos(math.pi * t / 5)) for t in (1, 2, 4, 5)],
    "exponential": [0.1 * 0.5**t for t in (1, 2, 4, 5)],
    "linear": [0.1 * (0.2 + 0.8 * min(t, 4) / 4) for t in (1, 2, 4, 5)],
    "polynomial": [0.1 * (1 - t / 5) ** 2 for t in (1, 2, 4, 5)],
    "lambda": [0.1 / (t + 1) for t in (1, 2, 4, 5)],
}


def _jump(lib, make):
    opt = _opt(lib)
    sched = make(lib.optim.lr_scheduler, opt)
    rates = []
    for epoch in (None, None, 4, None):
        opt.step()
        # (PyTorch warns that the epoch argument is deprecated.)
        with pytest.warns(UserWarning) if epoch and lib is not kt else nullcontext():
            sched.step(epoch)
        rates.append(opt.param_groups[0]["lr"])
    return rates


@pytest.mark.task2_6  # (the optimizer's step: no_grad)
@pytest.mark.parametrize("name", sorted(JUMPS))
def test_step_with_an_epoch_jumps_to_the_closed_form_of_each_schedule(name):
    # step(epoch) sets the rate the schedule gives at that step from the initial
    # rate (the closed form; LambdaLR has only that), then step() goes on from it.
    np.testing.assert_allclose(_jump(kt, JUMPS[name]), JUMPED[name], rtol=1e-12)
    torch = import_torch()
    np.testing.assert_allclose(
        _jump(kt, JUMPS[name]), _jump(torch, JUMPS[name]), rtol=1e-12, atol=1e-15
    )


def _built_resumed(lib, make, rate):
    """Rates of a scheduler built with ``last_epoch=3`` on a group whose
    ``initial_lr`` is 0.1 and whose rate is ``rate`` (a resume without a
    state_dict): at construction, then after three steps."""
    opt = _opt(lib, rate)
    opt.param_groups[0]["initial_lr"] = 0.1
    sched = make(lib.optim.lr_scheduler, opt, 3)
    rates = [opt.param_groups[0]["lr"]]
    for _ in range(3):
        opt.step()
        sched.step()
        rates.append(opt.param_groups[0]["lr"])
    return rates


BUILT_RESUMED = {
    # Keeps the loaded rate at construction, then multiplies it.
    "exponential": (lambda s, o, t: s.ExponentialLR(o, 0.5, last_epoch=t)),
    "linear": (lambda s, o, t: s.LinearLR(o, 0.2, 1.0, 8, last_epoch=t)),
    # Recomputes from the initial rate at construction (its recursive form).
    "cosine": (lambda s, o, t: s.CosineAnnealingLR(o, T_max=6, last_epoch=t)),
}


@pytest.mark.task2_6  # (the optimizer's step: no_grad)
@pytest.mark.parametrize("name", sorted(BUILT_RESUMED))
def test_a_schedule_built_with_last_epoch_resumes_as_pytorchs(name):
    ours = _built_resumed(kt, BUILT_RESUMED[name], 0.0125)
    if name == "exponential":
        np.testing.assert_allclose(ours, [0.0125 * 0.5**k for k in range(4)])
    torch = import_torch()
    np.testing.assert_allclose(
        ours, _built_resumed(torch, BUILT_RESUMED[name], 0.0125), rtol=1e-12
    )
    with pytest.raises(KeyError, match="initial_lr"):
        BUILT_RESUMED[name](kt.optim.lr_scheduler, _opt(kt), 3)


BAD = {
    "constant factor > 1": lambda s, lib: s.ConstantLR(_opt(lib), factor=1.5),
    "linear start 0": lambda s, lib: s.LinearLR(_opt(lib), start_factor=0.0),
    "linear end > 1": lambda s, lib: s.LinearLR(_opt(lib), end_factor=2.0),
    "lambda not callable": lambda s, lib: s.LambdaLR(_opt(lib), 3),
    "sequential of none": lambda s, lib: s.SequentialLR(_opt(lib), [], []),
    "chained, two optimizers": lambda s, lib: s.ChainedScheduler(
        [s.StepLR(_opt(lib), 2), s.StepLR(_opt(lib), 2)]
    ),
    "plateau mode": lambda s, lib: s.ReduceLROnPlateau(_opt(lib), mode="avg"),
    "plateau threshold": lambda s, lib: s.ReduceLROnPlateau(
        _opt(lib), threshold_mode=""
    ),
}


@pytest.mark.task2_1
@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_scheduler_arguments_raise_as_pytorchs(name):
    with pytest.raises((ValueError, TypeError)) as ours:
        BAD[name](kt.optim.lr_scheduler, kt)
    torch = import_torch()
    with pytest.raises((ValueError, TypeError)) as theirs:
        BAD[name](torch.optim.lr_scheduler, torch)
    assert ours.type is theirs.type, (ours.value, theirs.value)
