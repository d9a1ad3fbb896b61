"""``optim.lr_scheduler.CyclicLR`` (given), stepped once per batch: the
triangular, triangular2 and exp_range policies and a custom ``scale_fn``,
asymmetric cycles, per-group rates, the momentum cycled the other way (SGD's
``momentum`` or Adam's ``beta1``), a ``state_dict`` resume, and use beside
other schedulers as PyTorch's (it sets the rate from its cycle position, so a
chained multiplicative schedule scales what it set). Expected values are worked
by hand from PyTorch's documented formula; where PyTorch is installed every
configuration is compared with it too."""

from __future__ import annotations

import numpy as np
import pytest

import module4_networks as kt
from tests.pytorch_reference import import_torch

pytestmark = pytest.mark.task2_6

CONFIGS = {
    "triangular": dict(base_lr=0.1, max_lr=0.5, step_size_up=2),
    "triangular2": dict(base_lr=0.1, max_lr=0.5, step_size_up=2, mode="triangular2"),
    "exp_range": dict(
        base_lr=0.1, max_lr=0.5, step_size_up=3, mode="exp_range", gamma=0.9
    ),
    "asymmetric": dict(base_lr=0.01, max_lr=0.1, step_size_up=1, step_size_down=4),
    "custom_cycle": dict(
        base_lr=0.1, max_lr=0.3, step_size_up=2, scale_fn=lambda c: 1.0 / c
    ),
    "custom_iterations": dict(
        base_lr=0.1,
        max_lr=0.3,
        step_size_up=2,
        scale_fn=lambda t: 0.95**t,
        scale_mode="iterations",
    ),
    "two_groups": dict(base_lr=[0.1, 0.2], max_lr=[1.0, 0.4], step_size_up=2),
    "momentum_lists": dict(
        base_lr=0.1,
        max_lr=0.5,
        step_size_up=2,
        base_momentum=[0.5, 0.6],
        max_momentum=[0.9, 0.95],
    ),
}


def _trace(lib, config, steps=12, optimizer="SGD", extra=None):
    """Each group's lr and momentum (or beta1) after construction and after each
    step, for two groups of one optimizer."""
    a, b = lib.nn.Parameter(lib.zeros(1)), lib.nn.Parameter(lib.zeros(1))
    if optimizer == "SGD":
        opt = lib.optim.SGD([{"params": [a]}, {"params": [b]}], lr=1.0, momentum=0.9)
    else:
        opt = lib.optim.Adam([{"params": [a]}, {"params": [b]}], lr=1.0)
    schedulers = [lib.optim.lr_scheduler.CyclicLR(opt, **config)]
    if extra is not None:
        schedulers.append(extra(lib.optim.lr_scheduler, opt))

    def read():
        key = "momentum" if optimizer == "SGD" else "betas"
        return [
            (g["lr"], g[key] if key == "momentum" else g[key][0])
            for g in opt.param_groups
        ]

    rows = [read()]
    for _ in range(steps):
        opt.step()
        for scheduler in schedulers:
            scheduler.step()
        rows.append(read())
    return np.array(rows)


def test_triangular_by_hand():
    lrs = _trace(kt, CONFIGS["triangular"], steps=8)[:, 0, 0]
    np.testing.assert_allclose(lrs, [0.1, 0.3, 0.5, 0.3, 0.1, 0.3, 0.5, 0.3, 0.1])


def test_triangular2_halves_each_cycle_by_hand():
    lrs = _trace(kt, CONFIGS["triangular2"], steps=12)[:, 0, 0]
    expected = [0.1, 0.3, 0.5, 0.3, 0.1, 0.2, 0.3, 0.2, 0.1, 0.15, 0.2, 0.15, 0.1]
    np.testing.assert_allclose(lrs, expected)


def test_exp_range_scales_by_gamma_to_the_step_by_hand():
    lrs = _trace(kt, CONFIGS["exp_range"], steps=6)[:, 0, 0]
    position = [0, 1 / 3, 2 / 3, 1, 2 / 3, 1 / 3, 0]
    expected = [0.1 + 0.4 * x * 0.9**t for t, x in enumerate(position)]
    np.testing.assert_allclose(lrs, expected)


def test_momentum_moves_against_the_rate_by_hand():
    trace = _trace(kt, CONFIGS["triangular"], steps=4)
    # Momentum max_momentum (0.9) at the lowest rate, base_momentum (0.8) at the peak.
    np.testing.assert_allclose(trace[:, 0, 1], [0.9, 0.85, 0.8, 0.85, 0.9])
    adam = _trace(kt, CONFIGS["triangular"], steps=2, optimizer="Adam")
    np.testing.assert_allclose(adam[:, 0, 1], [0.9, 0.85, 0.8])


@pytest.mark.parametrize("name", sorted(CONFIGS))
@pytest.mark.parametrize("optimizer", ["SGD", "Adam"])
def test_cyclic_lr_matches_pytorch(name, optimizer):
    torch = import_torch()
    ours = _trace(kt, CONFIGS[name], optimizer=optimizer)
    theirs = _trace(torch, CONFIGS[name], optimizer=optimizer)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_chained_with_a_multiplicative_schedule_as_pytorch():
    def exponential(s, o):
        return s.ExponentialLR(o, 0.5)

    ours = _trace(kt, CONFIGS["triangular"], extra=exponential)[:, :, 0]
    # CyclicLR sets its rate, then ExponentialLR halves what it set.
    np.testing.assert_allclose(ours[:5, 0], [0.1, 0.15, 0.25, 0.15, 0.05])
    torch = import_torch()
    theirs = _trace(torch, CONFIGS["triangular"], extra=exponential)[:, :, 0]
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_a_state_dict_resume_goes_on_where_it_stopped():
    config = CONFIGS["triangular2"]
    p = kt.nn.Parameter(kt.zeros(1))
    opt = kt.optim.SGD([p], lr=1.0, momentum=0.9)
    scheduler = kt.optim.lr_scheduler.CyclicLR(opt, **config)
    for _ in range(5):
        opt.step()
        scheduler.step()
    saved_opt, saved = opt.state_dict(), scheduler.state_dict()
    rest = []
    for _ in range(4):
        opt.step()
        scheduler.step()
        rest.append(opt.param_groups[0]["lr"])
    opt2 = kt.optim.SGD([p], lr=1.0, momentum=0.9)
    opt2.load_state_dict(saved_opt)
    resumed = kt.optim.lr_scheduler.CyclicLR(opt2, **config, last_epoch=4)
    resumed.load_state_dict(saved)
    again = []
    for _ in range(4):
        opt2.step()
        resumed.step()
        again.append(opt2.param_groups[0]["lr"])
    np.testing.assert_allclose(again, rest)


def test_bad_arguments_raise_pytorchs_errors():
    opt = kt.optim.SGD([kt.nn.Parameter(kt.zeros(1))], lr=1.0)
    S = kt.optim.lr_scheduler
    with pytest.raises(ValueError, match="mode is invalid"):
        S.CyclicLR(opt, 0.1, 1.0, mode="square")
    with pytest.raises(ValueError, match="must support momentum"):
        S.CyclicLR(kt.optim.Adagrad(opt.param_groups[0]["params"]), 0.1, 1.0)
    with pytest.raises(ValueError, match="same length"):
        S.CyclicLR(opt, [0.1, 0.2], 1.0)
