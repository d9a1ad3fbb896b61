"""Task 4.6: on the CPU backends an optimizer step runs the student's ``update``
at every step, for every parameter, and gives the update equations' parameters
(the fused CPU loops of issue 29 were deleted, ``docs/DESIGN.md`` section 2; the
fused steps are the GPU's, ``test_fused_optim_cuda.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from module3_fast_ops import FastBackend
from module4_networks import _fused_optim, optim
from tests.module4.helpers import FUSED_SETTINGS, make
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
                    decoupled=group.get("decoupled_weight_decay", False),
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
def test_cpu_steps_run_the_students_update_and_give_the_equations(
    cls, kwargs, monkeypatch
):
    calls = []
    update = cls.update

    def counted(self, p, g, state, group):
        calls.append(p.shape)
        return update(self, p, g, state, group)

    monkeypatch.setattr(cls, "update", counted)
    opt, params, history = _train(cls, kwargs)
    assert len(calls) == STEPS * len(params), (
        f"{cls.__name__}.update ran {len(calls)} times in {STEPS} steps of "
        f"{len(params)} parameters: on the CPU nothing may stand in for it"
    )
    assert opt not in _fused_optim._VERDICTS
    name = f"optim.{cls.__name__}.update ({kwargs})"
    wrong = _first_difference(history, _equations(cls, opt.param_groups[0]))
    assert wrong is None, (
        "{}: after step {}, parameter {} at {} is {!r}, its update equations give "
        "{!r}".format(name, *wrong)
    )


def test_a_stub_update_still_raises(monkeypatch):
    def stub(self, p, g, state, group):
        raise NotImplementedError("Task 4.6: the bias-corrected Adam step")

    monkeypatch.setattr(optim.Adam, "update", stub)
    with pytest.raises(NotImplementedError, match="Task 4.6"):
        _train(optim.Adam, dict(lr=1e-2))
