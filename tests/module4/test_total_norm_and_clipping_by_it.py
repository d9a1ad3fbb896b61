"""``nn.utils.get_total_norm`` and ``nn.utils.clip_grads_with_norm_``, the two
halves of ``clip_grad_norm_`` as PyTorch 2.6+ gives them: the norm of many
tensors together, and the gradients scaled by ``min(max_norm / (total + 1e-6),
1)``. Values against hand-worked norms and against PyTorch. Given code."""

from __future__ import annotations

import math

import numpy as np
import pytest

import module4_networks as kt
from tests.pytorch_reference import import_torch

pytestmark = pytest.mark.task2_6


def test_total_norm_by_hand():
    three_four, twelve = kt.tensor([3.0, 4.0]), kt.tensor([[12.0]])
    # sqrt(9 + 16 + 144) = 13; |3| + |4| + |12| = 19; max = 12
    assert kt.nn.utils.get_total_norm([three_four, twelve]).item() == 13.0
    assert kt.nn.utils.get_total_norm([three_four, twelve], 1).item() == 19.0
    assert kt.nn.utils.get_total_norm([three_four, twelve], math.inf).item() == 12.0
    assert kt.nn.utils.get_total_norm(three_four).item() == 5.0  # one tensor
    assert kt.nn.utils.get_total_norm([]).item() == 0.0
    assert kt.nn.utils.get_total_norm([kt.zeros(0)]).item() == 0.0
    floats = kt.nn.utils.get_total_norm(kt.tensor([3.0, 4.0], dtype=kt.float32))
    assert floats.dtype == kt.float32


def test_total_norm_of_a_nan_is_nan_or_raises():
    nan = [kt.tensor([math.nan, 1.0])]
    assert math.isnan(kt.nn.utils.get_total_norm(nan).item())
    with pytest.raises(RuntimeError, match="error_if_nonfinite"):
        kt.nn.utils.get_total_norm(nan, error_if_nonfinite=True)


def test_clip_grads_with_norm_scales_by_the_given_total():
    p = kt.nn.Parameter(kt.zeros(2))
    p.grad = kt.tensor([3.0, 4.0])
    kt.nn.utils.clip_grads_with_norm_([p], 1.0, kt.tensor(10.0))  # total given
    np.testing.assert_allclose(p.grad.to_numpy(), [0.3, 0.4], rtol=1e-6)
    kt.nn.utils.clip_grads_with_norm_(p, 1.0, 0.1)  # below max_norm: unchanged
    np.testing.assert_allclose(p.grad.to_numpy(), [0.3, 0.4], rtol=1e-6)


@pytest.mark.parametrize("norm_type", [2.0, 1.0, math.inf, 3.0])
def test_the_two_halves_match_pytorch(norm_type):
    torch = import_torch()
    rng = np.random.default_rng(5)
    grads = [rng.normal(size=(3, 2)), rng.normal(size=4)]
    ours = [kt.nn.Parameter(kt.zeros(*g.shape)) for g in grads]
    theirs = [
        torch.nn.Parameter(torch.zeros(g.shape, dtype=torch.float64)) for g in grads
    ]
    for p, q, g in zip(ours, theirs, grads):
        p.grad, q.grad = kt.tensor(g), torch.tensor(g)
    total = kt.nn.utils.get_total_norm([p.grad for p in ours], norm_type)
    expected = torch.nn.utils.get_total_norm([q.grad for q in theirs], norm_type)
    assert total.item() == pytest.approx(expected.item(), rel=1e-12)
    kt.nn.utils.clip_grads_with_norm_(iter(ours), 0.5, total)
    torch.nn.utils.clip_grads_with_norm_(iter(theirs), 0.5, expected)
    for p, q in zip(ours, theirs):
        np.testing.assert_allclose(p.grad.to_numpy(), q.grad.numpy(), rtol=1e-12)
