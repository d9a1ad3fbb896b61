"""``nn.LSTM(proj_size=P)`` (given, on Task 4.7's loop through time): each
hidden state is projected to ``P`` features by ``weight_hr_l{k}``, which the
next step, the next layer and ``h_n`` see. The parameters are PyTorch's (names,
shapes, order) and, with the same numbers, so are the outputs, final states and
gradients, compared with ``torch`` itself (skipping, with the install command,
where it is absent)."""

from __future__ import annotations

import numpy as np
import pytest

import module4_networks as kt
from module4_networks import nn
from tests.pytorch_reference import (
    assert_parameter_grads_match,
    copy_parameters,
    import_torch,
)

pytestmark = pytest.mark.task4_7


def test_parameters_and_checks_are_pytorchs():
    lstm = nn.LSTM(3, 5, num_layers=2, proj_size=2, bidirectional=True)
    shapes = dict((n, p.shape) for n, p in lstm.named_parameters())
    assert shapes["weight_hh_l0"] == (20, 2) and shapes["weight_hr_l0"] == (2, 5)
    assert shapes["weight_ih_l1"] == (20, 4)  # two directions of P = 2
    assert "proj_size=2" in repr(lstm)
    with pytest.raises(ValueError, match="smaller than hidden_size"):
        nn.LSTM(3, 5, proj_size=5)
    with pytest.raises(ValueError, match="only supported for LSTM"):
        nn.GRU(3, 5, proj_size=2)


@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("with_state", [False, True])
def test_projected_lstm_matches_pytorch(bidirectional, batch_first, with_state):
    torch = import_torch()
    options = dict(
        num_layers=2, proj_size=2, bidirectional=bidirectional, batch_first=batch_first
    )
    ours, theirs = nn.LSTM(3, 5, **options), torch.nn.LSTM(3, 5, **options).double()
    copy_parameters(ours, theirs)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 4, 3) if batch_first else (4, 2, 3))
    d = 2 if bidirectional else 1
    states = [rng.normal(size=(2 * d, 2, 2)), rng.normal(size=(2 * d, 2, 5))]
    ks = [kt.tensor(a, requires_grad=True) for a in [x, *states]]
    ts = [torch.tensor(a, requires_grad=True) for a in [x, *states]]
    if with_state:
        out, (h, c) = ours(ks[0], tuple(ks[1:]))
        t_out, (th, tc) = theirs(ts[0], tuple(ts[1:]))
    else:
        (out, (h, c)), (t_out, (th, tc)) = ours(ks[0]), theirs(ts[0])
    total, t_total = kt.tensor(0.0), torch.tensor(0.0, dtype=torch.float64)
    for a, b in ((out, t_out), (h, th), (c, tc)):
        np.testing.assert_allclose(a.to_numpy(), b.detach().numpy(), atol=1e-12)
        w = rng.normal(size=b.shape)
        total = total + (a * kt.tensor(w)).sum()
        t_total = t_total + (b * torch.tensor(w)).sum()
    total.backward()
    t_total.backward()
    for k, t in zip(ks, ts) if with_state else [(ks[0], ts[0])]:
        np.testing.assert_allclose(k.grad.to_numpy(), t.grad.numpy(), atol=1e-10)
    assert_parameter_grads_match(ours, theirs)
