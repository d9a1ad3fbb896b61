"""Scheduler options no other test runs, against ``torch`` itself:
``CyclicLR(cycle_momentum=False)`` over several cycles (the rates cycle, the
momentum is left alone) and ``CyclicLR`` with its default
``cycle_momentum=True`` on SGD with momentum (both rates and momenta), and
``ReduceLROnPlateau``'s ``eps`` (a reduction smaller than ``eps`` is skipped)
and its ``in_cooldown`` property over a sequence of metrics. Skips, with the
install command, where PyTorch is absent."""

from __future__ import annotations

import numpy as np
import pytest

import module4_networks as kt
from tests.pytorch_reference import import_torch

pytestmark = pytest.mark.task2_6  # (the schedulers' tests: the step is no_grad)


def _cyclic_trace(lib, steps, **options):
    """The rate and momentum after construction and after each step."""
    param = lib.nn.Parameter(lib.zeros(1, dtype=lib.float64))
    opt = lib.optim.SGD([param], lr=1.0, momentum=0.8)
    scheduler = lib.optim.lr_scheduler.CyclicLR(opt, **options)
    rows = [(opt.param_groups[0]["lr"], opt.param_groups[0]["momentum"])]
    for _ in range(steps):
        opt.step()
        scheduler.step()
        rows.append((opt.param_groups[0]["lr"], opt.param_groups[0]["momentum"]))
    return np.array(rows)


@pytest.mark.parametrize("mode", ["triangular", "triangular2", "exp_range"])
def test_cyclic_lr_without_cycle_momentum_matches_pytorch_over_cycles(mode):
    torch = import_torch()
    options = dict(
        base_lr=0.1,
        max_lr=0.5,
        step_size_up=2,
        step_size_down=3,
        mode=mode,
        gamma=0.9,
        cycle_momentum=False,
    )
    ours = _cyclic_trace(kt, 16, **options)  # a little over three cycles
    theirs = _cyclic_trace(torch, 16, **options)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(ours[:, 1], 0.8)  # the momentum left as it is
    assert ours[:, 0].max() > 0.4 and ours[:, 0].min() == pytest.approx(0.1)


def test_cyclic_lr_cycles_sgd_momentum_by_default_as_pytorch():
    torch = import_torch()
    options = dict(
        base_lr=0.01, max_lr=0.1, step_size_up=3, base_momentum=0.7, max_momentum=0.95
    )
    ours = _cyclic_trace(kt, 14, **options)
    theirs = _cyclic_trace(torch, 14, **options)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-15)
    lrs, momenta = ours[:, 0], ours[:, 1]
    assert momenta[0] == pytest.approx(0.95)  # the momentum starts at its max
    assert momenta[3] == pytest.approx(0.7)  # and is lowest where the rate peaks
    assert lrs[3] == pytest.approx(0.1)


def _plateau_trace(lib, metrics, **options):
    """The rate, the number of bad epochs and ``in_cooldown`` after each step."""
    param = lib.nn.Parameter(lib.zeros(1, dtype=lib.float64))
    opt = lib.optim.SGD([param], lr=options.pop("lr"))
    scheduler = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **options)
    rows = [
        (opt.param_groups[0]["lr"], scheduler.num_bad_epochs, scheduler.in_cooldown)
    ]
    for metric in metrics:
        scheduler.step(metric)
        rows.append(
            (opt.param_groups[0]["lr"], scheduler.num_bad_epochs, scheduler.in_cooldown)
        )
    return rows


FLAT = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]


@pytest.mark.parametrize(
    "lr, eps",
    [(1e-3, 1e-8), (1e-3, 1e-3), (1e-3, 5e-4), (2e-8, 1e-8), (1.0, 0.95)],
    ids=[
        "reduces",
        "reduction_below_eps",
        "reduction_equal_to_eps",
        "tiny_rate",
        "large_eps",
    ],
)
def test_reduce_on_plateau_skips_a_reduction_smaller_than_eps_as_pytorch(lr, eps):
    torch = import_torch()
    options = dict(lr=lr, factor=0.5, patience=1, eps=eps)
    ours = _plateau_trace(kt, FLAT, **dict(options))
    theirs = _plateau_trace(torch, FLAT, **dict(options))
    assert [row[:2] for row in ours] == [row[:2] for row in theirs]


def test_reduce_on_plateau_eps_keeps_the_rate_when_the_step_is_too_small():
    rows = _plateau_trace(kt, FLAT, lr=1e-3, factor=0.5, patience=1, eps=1e-3)
    assert {row[0] for row in rows} == {1e-3}
    rows = _plateau_trace(kt, FLAT, lr=1e-3, factor=0.5, patience=1, eps=1e-8)
    assert rows[-1][0] < 1e-3


@pytest.mark.parametrize("cooldown", [0, 1, 2, 3])
def test_reduce_on_plateau_in_cooldown_follows_pytorch(cooldown):
    torch = import_torch()
    metrics = [5.0, 4.0, 4.0, 4.0, 4.0, 3.0, 3.0, 3.0, 3.0, 3.0, 2.0, 2.5, 2.5]
    options = dict(lr=1.0, factor=0.5, patience=1, cooldown=cooldown)
    ours = _plateau_trace(kt, metrics, **dict(options))
    theirs = _plateau_trace(torch, metrics, **dict(options))
    assert ours == theirs
    assert any(row[2] for row in ours) == (cooldown > 0)
