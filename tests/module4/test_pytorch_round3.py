"""PyTorch fidelity, round 3 (issue 27), Module 4: losses, attention masks,
optimizers, schedulers and layers as PyTorch 2.13 gives them. Expected values come
from the math or NumPy. Tests of a task's own function carry its marker; given
code carries none."""

from __future__ import annotations

import math

import numpy as np
import pytest

import module4_networks as kt
from module4_networks import functional as F
from module4_networks import nn


def _t(values, requires_grad=False):
    return kt.tensor(np.asarray(values, dtype=np.float64), requires_grad=requires_grad)


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


# ------------------------------------------------------------------- losses


@pytest.mark.task4_6
@pytest.mark.parametrize("how", ["cross_entropy", "nll_loss"])
def test_a_class_masked_with_minus_inf_gives_a_finite_loss(how):
    logits = np.array([[-np.inf, 1.0, 2.0], [0.5, -np.inf, -1.0]])
    target = [1, 0]
    x = _t(logits, requires_grad=True)
    if how == "cross_entropy":
        loss = F.cross_entropy(x, kt.tensor(target))
    else:
        loss = F.nll_loss(F.log_softmax(x, 1), kt.tensor(target))
    p = _softmax(logits)  # exp(-inf) = 0: the masked class has probability 0
    want = -np.mean(np.log(p[[0, 1], target]))
    assert math.isfinite(loss.item())
    np.testing.assert_allclose(loss.item(), want, rtol=1e-14)
    loss.backward()
    onehot = np.eye(3)[target]
    np.testing.assert_allclose(x.grad.to_numpy(), (p - onehot) / 2, atol=1e-15)


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_a_loss_whose_targets_are_all_ignored_sends_zero_gradient(reduction):
    x = _t([[1.0, 2.0], [0.0, 3.0]], requires_grad=True)
    loss = F.cross_entropy(x, kt.tensor([-100, -100]), reduction=reduction)
    # PyTorch: the mean of no examples is nan, the sum 0; the gradient is 0.
    if reduction == "mean":
        assert math.isnan(loss.item())
    else:
        assert loss.item() == 0.0
    loss.backward()
    assert x.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]


# ---------------------------------------------------------------- attention


def _np_mha_additive(x, p, heads, additive):
    """PyTorch's self-attention (batch first) with a float key_padding_mask
    (N, S) added to every head's scores."""
    n, L, E = x.shape
    d = E // heads
    w, b = p["in_proj_weight"], p["in_proj_bias"]
    q, k, v = (x @ w[i * E : (i + 1) * E].T + b[i * E : (i + 1) * E] for i in range(3))

    def split(a):
        return a.reshape(n, L, heads, d).transpose(0, 2, 1, 3)

    scores = split(q) @ split(k).transpose(0, 1, 3, 2) / math.sqrt(d)
    weights = _softmax(scores + additive[:, None, None, :])
    out = (weights @ split(v)).transpose(0, 2, 1, 3).reshape(n, L, E)
    return out @ p["out_proj.weight"].T + p["out_proj.bias"]


@pytest.mark.parametrize("pad", [[0.0, -np.inf, 0.0, 0.0], [0.0, -1.5, 0.3, 2.0]])
def test_multihead_attention_adds_a_float_key_padding_mask(pad):
    rng = np.random.default_rng(3)
    mha = nn.MultiheadAttention(4, 2, batch_first=True)
    params = {name: q.value.to_numpy() for name, q in mha.named_parameters()}
    x = rng.normal(size=(2, 4, 4))
    pad = np.array([pad, [0.0, 0.0, -np.inf, 0.5]])
    out, _ = mha(_t(x), _t(x), _t(x), key_padding_mask=_t(pad))
    want = _np_mha_additive(x, params, 2, pad)
    assert np.isfinite(out.to_numpy()).all()
    np.testing.assert_allclose(out.to_numpy(), want, atol=1e-12)
