"""Task 4.6: the fused optimizer steps (``module4_networks/_fused_optim.py``, issue
29) give the same parameters and buffers as the update formulas, to the last bit,
over several steps; they take over only from formulas that agree with them."""

from __future__ import annotations

import numpy as np
import pytest

from module2_tensors.engine import versions
from module3_fast_ops import FastBackend
from module4_networks import _fused_optim, optim
from tests.module4.helpers import FUSED_SETTINGS, make, reference_class
from tests.module4.reference import adam_ref, sgd_ref

pytestmark = pytest.mark.task4_6

STEPS = 6

SETTINGS = FUSED_SETTINGS


def _train(cls, kwargs, seed=0, shapes=((3, 4), (5,))):
    rng = np.random.default_rng(seed)
    params = [
        make(rng.normal(size=s), requires_grad=True, backend=FastBackend)
        for s in shapes
    ]
    opt = cls(params, **kwargs)
    history = []
    for _ in range(STEPS):
        opt.zero_grad()
        for p in params:
            p.grad = make(rng.normal(size=p.shape), backend=FastBackend)
        opt.step()
        history.append([p.to_numpy() for p in params])
    return opt, params, history


def _equations(cls, group, seed=0, shapes=((3, 4), (5,))):
    """What :func:`_train` should give, from the update equations in NumPy
    (``reference.py``), on the same starting values and gradients."""
    rng = np.random.default_rng(seed)
    starts = [rng.normal(size=s) for s in shapes]
    grads = [[rng.normal(size=s) for s in shapes] for _ in range(STEPS)]
    per_param = []
    for k, p0 in enumerate(starts):
        g = [step[k] for step in grads]
        if issubclass(cls, optim.SGD):
            keys = ("momentum", "dampening", "weight_decay", "nesterov")
            per_param.append(sgd_ref(p0, g, group["lr"], **{k: group[k] for k in keys}))
        else:
            per_param.append(
                adam_ref(
                    p0,
                    g,
                    group["lr"],
                    group["betas"],
                    group["eps"],
                    group["weight_decay"],
                    decoupled=issubclass(cls, optim.AdamW),
                )
            )
    return [[values[t] for values in per_param] for t in range(STEPS)]


def _first_difference(got, want, rtol=1e-12, atol=1e-15):
    """``(step, parameter, index, got, want)`` of the first entry that differs,
    or ``None``."""
    for t, (step_got, step_want) in enumerate(zip(got, want)):
        for k, (a, b) in enumerate(zip(step_got, step_want)):
            wrong = np.argwhere(~np.isclose(a, b, rtol=rtol, atol=atol))
            if wrong.size:
                at = tuple(int(i) for i in wrong[0])
                return t + 1, k, at, float(a[at]), float(b[at])
    return None


@pytest.mark.parametrize("cls,kwargs", SETTINGS)
def test_fused_steps_give_the_formulas_parameters_to_the_last_bit(cls, kwargs):
    opt, params, fused = _train(cls, kwargs)
    ref_opt, ref_params, reference = _train(reference_class(cls), kwargs)
    # The student's update first: the fused step takes over only from an update
    # that agrees with it, so a wrong one is named here, not by the engine.
    name = f"optim.{cls.__name__}.update ({kwargs})"
    wrong = _first_difference(reference, _equations(cls, ref_opt.param_groups[0]))
    assert wrong is None, (
        "{}: after step {}, parameter {} at {} is {!r}, its update equations give "
        "{!r}".format(name, *wrong)
    )
    verdict = _fused_optim._VERDICTS.get(opt, {})
    assert verdict.get("ok"), (
        f"{name} agrees with its equations, but the fused step did not take over "
        "from it (the course's fused step disagrees: a bug in the course)"
    )
    assert all(
        n == _fused_optim.CHECKED_STEPS for n in verdict["checked"].values()
    ), f"the fused {cls.__name__} step took over before checking every parameter"
    for t, (step_fused, step_ref) in enumerate(zip(fused, reference), start=1):
        for k, (a, b) in enumerate(zip(step_fused, step_ref)):
            assert np.array_equal(a, b), (
                f"{cls.__name__}, step {t}, parameter {k}: the fused step differs "
                f"from {name} by up to {np.abs(a - b).max()}"
            )
    # The buffers too (momentum, the two Adam moments, the step count).
    for p, q in zip(params, ref_params):
        mine, theirs = opt.state[p], ref_opt.state[q]
        # (keyed by the parameter itself, as in PyTorch; plain SGD keeps none)
        assert bool(theirs) == (cls is not optim.SGD or "momentum" in kwargs)
        assert sorted(mine) == sorted(theirs)
        for key, value in theirs.items():
            if hasattr(value, "to_numpy"):
                assert np.array_equal(mine[key].to_numpy(), value.to_numpy())
            else:
                assert mine[key] == value


def test_a_fused_step_writes_in_place_and_counts_a_version():
    opt, params, _ = _train(optim.Adam, dict(lr=1e-2))
    p = params[0]
    before, storage = versions.version_of(p), p._tensor._storage
    p.grad = make(np.ones(p.shape), backend=FastBackend)
    opt.step()
    assert p._tensor._storage is storage
    assert versions.version_of(p) == before + 1


def test_wrong_formulas_keep_running_instead_of_the_fused_step(monkeypatch):
    """An update that disagrees (here: Adam without the bias correction) is never
    replaced, so a student's bug shows in their training."""

    def uncorrected(self, p, g, state, group):
        beta1, beta2 = group["betas"]
        m = beta1 * state.get("exp_avg", p * 0.0) + (1.0 - beta1) * g
        v = beta2 * state.get("exp_avg_sq", p * 0.0) + (1.0 - beta2) * g * g
        state.update(step=state.get("step", 0) + 1, exp_avg=m, exp_avg_sq=v)
        return p - group["lr"] * m / (v.sqrt() + group["eps"])

    monkeypatch.setattr(optim.Adam, "update", uncorrected)
    opt, params, history = _train(optim.Adam, dict(lr=1e-2))
    assert not _fused_optim._VERDICTS[opt]["ok"], (
        "an Adam update without bias correction disagrees with the fused step: it "
        "must keep running (the fused step must not replace it)"
    )
    # NumPy: the uncorrected rule, step by step, on the same gradients.
    rng = np.random.default_rng(0)
    p = [rng.normal(size=s) for s in ((3, 4), (5,))]
    m = [np.zeros_like(a) for a in p]
    v = [np.zeros_like(a) for a in p]
    for step in range(STEPS):
        for i in range(2):
            g = rng.normal(size=p[i].shape)
            m[i] = 0.9 * m[i] + 0.1 * g
            v[i] = 0.999 * v[i] + 0.001 * g * g
            p[i] = p[i] - 1e-2 * m[i] / (np.sqrt(v[i]) + 1e-8)
        for got, want in zip(history[step], p):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_a_stub_update_still_raises(monkeypatch):
    def stub(self, p, g, state, group):
        raise NotImplementedError("Task 4.6: the bias-corrected Adam step")

    monkeypatch.setattr(optim.Adam, "update", stub)
    with pytest.raises(NotImplementedError, match="Task 4.6"):
        _train(optim.Adam, dict(lr=1e-2))


def test_state_dict_round_trip_after_fused_steps_continues_like_the_formulas():
    opt, params, _ = _train(optim.AdamW, dict(lr=1e-2, weight_decay=0.1))
    ref_opt, ref_params, _ = _train(
        reference_class(optim.AdamW), dict(lr=1e-2, weight_decay=0.1)
    )
    restored = optim.AdamW(params, lr=1e-2, weight_decay=0.1)
    restored.load_state_dict(opt.state_dict())
    rng = np.random.default_rng(9)
    for _ in range(3):
        grads = [rng.normal(size=p.shape) for p in params]
        for o, ps in ((restored, params), (ref_opt, ref_params)):
            for p, g in zip(ps, grads):
                p.grad = make(g, backend=FastBackend)
            o.step()
    for p, q in zip(params, ref_params):
        assert np.array_equal(p.to_numpy(), q.to_numpy())
