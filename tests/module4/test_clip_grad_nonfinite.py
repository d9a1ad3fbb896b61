"""``nn.utils.clip_grad_norm_`` with a NaN or infinite gradient, as
``torch.nn.utils.clip_grad_norm_`` (``error_if_nonfinite=False``): it returns
the non-finite total and multiplies every gradient by ``min(max_norm / (total +
1e-6), 1)``, so a NaN total makes every gradient NaN and an infinite one makes
the finite entries 0 and the infinite ones NaN (inf * 0). Given code: no task
marker."""

from __future__ import annotations

import math

import numpy as np
import pytest

import module4_networks as kt
from module4_networks import nn
from tests.pytorch_reference import import_torch

NAN, INF = math.nan, math.inf


def _clip(lib, first, second, norm_type, **kwargs):
    a, b = lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(2))
    a.grad, b.grad = lib.tensor(first), lib.tensor(second)
    total = lib.nn.utils.clip_grad_norm_([a, b], 1.0, norm_type, **kwargs)
    return (
        float(total),
        np.asarray(a.grad.numpy(), dtype=float),
        np.asarray(b.grad.numpy(), dtype=float),
    )


CASES = {
    "nan": ([NAN, 1.0], [3.0, 4.0], (NAN, [NAN, NAN], [NAN, NAN])),
    "inf": ([INF, 1.0], [3.0, 4.0], (INF, [NAN, 0.0], [0.0, 0.0])),
    "nan_later": ([3.0, 1.0], [NAN, 4.0], (NAN, [NAN, NAN], [NAN, NAN])),
}


@pytest.mark.task2_6
@pytest.mark.parametrize("norm_type", [2.0, INF, 1.0])
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_nonfinite_gradient_gives_a_nonfinite_total_and_gradients(case, norm_type):
    first, second, (total, want_a, want_b) = CASES[case]
    got_total, got_a, got_b = _clip(kt, first, second, norm_type)
    np.testing.assert_array_equal([got_total], [total])
    np.testing.assert_array_equal(got_a, want_a)
    np.testing.assert_array_equal(got_b, want_b)


@pytest.mark.task2_6
def test_error_if_nonfinite_raises():
    with pytest.raises(RuntimeError, match="error_if_nonfinite"):
        _clip(kt, [NAN, 1.0], [3.0, 4.0], 2.0, error_if_nonfinite=True)


@pytest.mark.task2_6
def test_finite_gradients_are_still_scaled():
    # ||(3, 4, 0, 0)|| = 5: scaled by 1 / (5 + 1e-6).
    total, a, b = _clip(kt, [3.0, 4.0], [0.0, 0.0], 2.0)
    assert total == pytest.approx(5.0)
    np.testing.assert_allclose(a, [3.0 / (5 + 1e-6), 4.0 / (5 + 1e-6)])
    assert nn.utils.clip_grad_norm_(
        [nn.Parameter(kt.ones(1))], 1.0
    ).item() == pytest.approx(
        0.0
    )  # no gradients: 0


@pytest.mark.task2_6
@pytest.mark.parametrize("norm_type", [2.0, INF])
@pytest.mark.parametrize("case", sorted(CASES))
def test_nonfinite_clipping_matches_pytorch(case, norm_type):
    torch = import_torch()
    first, second, _ = CASES[case]
    ours, theirs = _clip(kt, first, second, norm_type), _clip(
        torch, first, second, norm_type
    )
    for mine, other in zip(ours, theirs):
        np.testing.assert_array_equal(mine, other)
