"""PyTorch fidelity at the edges, Module 4: losses, attention masks,
optimizers, schedulers and layers as PyTorch 2.13 gives them. Expected values come
from the math or NumPy. Tests of a task's own function carry its marker; given
code carries none."""

from __future__ import annotations

import math

import numpy as np
import pytest

import module4_networks as kt
from module4_networks import nn
from module4_networks.nn import functional as F


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


@pytest.mark.task4_6
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


@pytest.mark.task4_6
def test_binary_cross_entropy_at_zero_and_one_has_pytorchs_gradient():
    p = _t([0.0, 1.0, 0.0, 1.0, 0.25], requires_grad=True)
    y = _t([0.0, 1.0, 1.0, 0.0, 1.0], requires_grad=True)
    loss = F.binary_cross_entropy(p, y, reduction="sum")
    # Each log clamped at -100: two confident mistakes cost 100 each.
    np.testing.assert_allclose(loss.item(), 200.0 - np.log(0.25), rtol=1e-14)
    loss.backward()
    # (p - y) / max(p (1 - p), 1e-12): 0 where right, -+1e12 where wrong.
    want = [0.0, 0.0, -1e12, 1e12, (0.25 - 1.0) / (0.25 * 0.75)]
    np.testing.assert_allclose(p.grad.to_numpy(), want, rtol=1e-14)
    # d/dy = log(1 - p) - log(p), not clamped (PyTorch): infinite at 0 and 1.
    want_y = [np.inf, -np.inf, np.inf, -np.inf, np.log(0.75 / 0.25)]
    np.testing.assert_allclose(y.grad.to_numpy(), want_y, rtol=1e-14)


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


@pytest.mark.task4_6
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


# -------------------------------------------------------------- activations


@pytest.mark.task2_6
def test_leaky_relu_and_elu_have_pytorchs_gradient_at_zero():
    x = _t([0.0, -2.0, 3.0], requires_grad=True)
    F.leaky_relu(x, 0.1).sum().backward()
    np.testing.assert_allclose(x.grad.to_numpy(), [0.1, 0.1, 1.0], rtol=1e-15)
    x = _t([0.0, -2.0, 3.0], requires_grad=True)
    out = F.elu(x, alpha=2.0)
    np.testing.assert_allclose(out.to_numpy(), [0.0, 2 * np.expm1(-2.0), 3.0])
    out.sum().backward()  # alpha e^x for x <= 0: alpha at exactly 0
    np.testing.assert_allclose(
        x.grad.to_numpy(), [2.0, 2 * np.exp(-2.0), 1.0], rtol=1e-15
    )


@pytest.mark.task2_3
@pytest.mark.parametrize("fn", [F.softmax, F.log_softmax])
def test_softmax_over_an_empty_dim_is_empty(fn):
    assert fn(kt.zeros(2, 0), 1).shape == (2, 0)
    assert fn(kt.zeros(0, 3), 1).shape == (0, 3)


# ------------------------------------------------------------------- layers


@pytest.mark.task2_1
def test_identity_ignores_its_arguments():
    x = _t([1.0, 2.0])
    assert nn.Identity(3, unused="x")(x) is x


@pytest.mark.task4_6
def test_transformer_layer_without_bias_has_no_layer_norm_bias():
    layer = nn.TransformerEncoderLayer(8, 2, 16, bias=False)
    names = [name for name, _ in layer.named_parameters()]
    assert not any(name.endswith("bias") for name in names)
    assert "norm1.weight" in names and "norm2.weight" in names
    assert nn.LayerNorm(4, bias=False).bias is None
    x = np.random.default_rng(0).normal(size=(2, 4))
    got = nn.LayerNorm(4, bias=False)(_t(x)).to_numpy()
    want = (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.task4_6
def test_batch_norm_without_running_stats_keeps_none():
    bn = nn.BatchNorm1d(3, track_running_stats=False)
    assert list(bn.state_dict()) == ["weight", "bias"]
    assert bn.running_mean is None and bn.running_var is None
    x = np.random.default_rng(1).normal(size=(5, 3))
    bn.eval()  # batch statistics in both modes
    want = (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5)
    np.testing.assert_allclose(bn(_t(x)).to_numpy(), want, rtol=1e-12)


# --------------------------------------------------- optimizers, schedulers


def _weights():
    return [kt.tensor([1.0, 2.0], requires_grad=True)]


@pytest.mark.task2_1
def test_a_param_group_may_carry_extra_keys():
    opt = kt.optim.SGD([{"params": _weights(), "name": "encoder"}], lr=0.1)
    assert opt.param_groups[0]["name"] == "encoder"


@pytest.mark.task2_1
def test_a_parameter_in_two_groups_is_refused():
    w = _weights()
    with pytest.raises(ValueError, match="more than one parameter group"):
        kt.optim.SGD([{"params": w}, {"params": w}], lr=0.1)


@pytest.mark.task2_6
def test_rebuilding_a_scheduler_keeps_the_resumed_rate():
    w = _weights()
    opt = kt.optim.SGD(w, lr=0.1)
    sched = kt.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
    for _ in range(7):
        opt.step()
        sched.step()
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1 * 0.5**2)
    saved_opt, saved_sched = opt.state_dict(), sched.state_dict()
    # Resume: a fresh optimizer and scheduler, then their saved states.
    opt = kt.optim.SGD(w, lr=0.1)
    opt.load_state_dict(saved_opt)
    sched = kt.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
    assert opt.param_groups[0]["lr"] == pytest.approx(0.025)  # not reset to 0.1
    sched.load_state_dict(saved_sched)
    rates = []
    for _ in range(2):
        opt.step()
        sched.step()
        rates.append(opt.param_groups[0]["lr"])
    assert rates == pytest.approx([0.025, 0.0125])  # epochs 8 and 9 of 0.1 * 0.5^(t//3)
    with pytest.raises(KeyError, match="initial_lr"):
        kt.optim.lr_scheduler.StepLR(kt.optim.SGD(_weights()), 3, last_epoch=6)


@pytest.mark.task2_6
def test_one_cycle_takes_its_last_step():
    opt = kt.optim.SGD(_weights(), lr=0.1, momentum=0.9)
    sched = kt.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10)
    rates = [opt.param_groups[0]["lr"]]
    for _ in range(10):  # one step per batch: total_steps of them
        opt.step()
        sched.step()
        rates.append(opt.param_groups[0]["lr"])

    def cos(start, end, pct):
        return end + (start - end) / 2 * (math.cos(math.pi * pct) + 1)

    lo, hi, end = 1.0 / 25, 1.0, 1.0 / 25 / 1e4
    rise = 0.3 * 10 - 1
    want = [cos(lo, hi, t / rise) if t <= rise else 0.0 for t in range(11)]
    want[3:] = [cos(hi, end, (t - rise) / (9 - rise)) for t in range(3, 11)]
    np.testing.assert_allclose(rates, want, rtol=1e-12)
    with pytest.raises(ValueError, match="total steps"):
        sched.step()


# ------------------------------------------------------------------ devices


@pytest.mark.task3_3
def test_cuda_without_a_gpu_names_the_simulator_switch():
    from numba import cuda

    if cuda.is_available():
        x = kt.tensor([1.0, 2.0], requires_grad=True)
        y = x.cuda()
        assert y.device.type == "cuda" and y.is_cuda and y.cpu().device.type == "cpu"
        (y * 2.0).sum().backward()
        assert x.grad.tolist() == [2.0, 2.0]
    else:
        with pytest.raises(RuntimeError, match="NUMBA_ENABLE_CUDASIM"):
            kt.tensor([1.0]).cuda()
        with pytest.raises(RuntimeError, match="NUMBA_ENABLE_CUDASIM"):
            kt.zeros(2, device="cuda")


@pytest.mark.task2_6
@pytest.mark.parametrize(
    "fn",
    [
        lambda x: F.leaky_relu(x, 0.2),
        lambda x: F.elu(x),
        lambda x: F.softplus(x, beta=2.0),
        lambda x: F.hardtanh(x),
        lambda x: F.relu6(x),
        lambda x: F.mish(x),
        lambda x: F.huber_loss(x, x * 0.5),
        lambda x: F.smooth_l1_loss(x, x * 0.5),
    ],
)
def test_activations_and_losses_of_float32_report_float32(fn):
    """As PyTorch's: a float32 input gives a float32 result (their selects
    promote the dtypes of both branches)."""
    x = _t([-1.5, 0.5, 7.0]).float()
    assert fn(x).dtype is kt.float32 and fn(x.double()).dtype is kt.float64


@pytest.mark.parametrize(
    "fn",
    [
        pytest.param(lambda x: F.cross_entropy(x, [0, 2]), marks=pytest.mark.task4_6),
        pytest.param(
            lambda x: F.cross_entropy(x, [0, 2], weight=_t([1.0, 2.0, 0.5])),
            marks=pytest.mark.task4_6,
        ),
        pytest.param(
            lambda x: F.nll_loss(x, [1, 2], reduction="none"), marks=pytest.mark.task4_6
        ),
        pytest.param(
            lambda x: F.binary_cross_entropy(x.sigmoid(), (x > 0).float()),
            marks=pytest.mark.task4_6,
        ),
        pytest.param(lambda x: F.max_pool1d(x[None], 2), marks=pytest.mark.task4_4),
        pytest.param(
            lambda x: F.max_pool2d(x[None, None], 1), marks=pytest.mark.task4_4
        ),
        pytest.param(
            lambda x: F.max_pool2d(x[None, None], 2, 1, return_indices=True)[0],
            marks=pytest.mark.task4_4,
        ),
        pytest.param(
            lambda x: F.adaptive_avg_pool2d(x[None, None], 1), marks=pytest.mark.task4_3
        ),
    ],
)
def test_losses_and_pools_of_float32_report_float32(fn):
    """As PyTorch's: a float32 input gives a float32 result, with the values of
    the float64 one (every tensor stores float64)."""
    x = _t([[1.0, -2.0, 3.0], [0.5, 5.0, -6.0]])
    single, double = fn(x.float()), fn(x)
    assert single.dtype is kt.float32 and double.dtype is kt.float64
    np.testing.assert_array_equal(single.to_numpy(), double.to_numpy())


@pytest.mark.task4_7
@pytest.mark.parametrize("layer", [nn.RNN, nn.LSTM, nn.GRU])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_recurrent_layers_of_float32_report_float32(layer, bidirectional):
    """``layer(...).float()`` on a float32 sequence: the output and every final
    state are float32, as in PyTorch."""
    module = layer(3, 2, num_layers=2, bidirectional=bidirectional).float()
    output, state = module(_t([[[1.0, -2.0, 3.0]], [[0.5, 5.0, -6.0]]]).float())
    states = state if isinstance(state, tuple) else (state,)
    assert [t.dtype for t in (output, *states)] == [kt.float32] * (1 + len(states))


@pytest.mark.task4_8
@pytest.mark.parametrize(
    "options",
    [{"is_causal": True}, {"attn_mask": np.tril(np.ones((3, 3)))}, {}],
)
def test_attention_of_float32_reports_float32(options):
    """``scaled_dot_product_attention`` (a boolean mask selects with ``where``)
    and ``MultiheadAttention``: float32 in, float32 out, as in PyTorch."""
    q = _t(np.arange(12.0).reshape(1, 3, 4) / 10)
    mask = options.get("attn_mask")
    single = F.scaled_dot_product_attention(q.float(), q.float(), q.float(), **options)
    double = F.scaled_dot_product_attention(q, q, q, **options)
    assert single.dtype is kt.float32 and double.dtype is kt.float64
    np.testing.assert_array_equal(single.to_numpy(), double.to_numpy())
    attention = nn.MultiheadAttention(4, 2, batch_first=True).float()
    out, weights = attention(q.float(), q.float(), q.float(), attn_mask=mask)
    assert out.dtype is kt.float32 and weights.dtype is kt.float32


@pytest.mark.task4_6
def test_clip_grad_norm_and_parameters_to_vector_of_float32_report_float32():
    """As PyTorch's: the total norm and the vector have the parameters' dtype
    (the total norm of mixed float32 and float64 gradients is float64)."""
    single, double = nn.Linear(3, 2).float(), nn.Linear(3, 2)
    for model in (single, double):
        model(_t([[1.0, 2.0, 3.0]]).to(model.weight.dtype)).sum().backward()
    assert nn.utils.clip_grad_norm_(single.parameters(), 1.0).dtype is kt.float32
    assert nn.utils.parameters_to_vector(single.parameters()).dtype is kt.float32
    both = list(single.parameters()) + list(double.parameters())
    assert nn.utils.clip_grad_norm_(both, 1.0).dtype is kt.float64


@pytest.mark.task4_4
@pytest.mark.parametrize(
    "pool, shape, expected",
    [
        (lambda x: F.max_pool2d(x, 2), (0, 3, 4, 4), (0, 3, 2, 2)),
        (lambda x: F.max_pool2d(x, 3, 2, 1), (0, 3, 5, 5), (0, 3, 3, 3)),
        (lambda x: F.max_pool1d(x, 2), (0, 3, 5), (0, 3, 2)),
        (lambda x: F.max(x, 1).values, (0, 3), (0,)),
    ],
)
def test_max_pooling_of_a_batch_of_zero_is_empty(pool, shape, expected):
    """As PyTorch's: a batch of 0 pools to a batch of 0 of the usual other sizes
    (max reduces a dim that is not empty); backward runs."""
    x = _t(np.zeros(shape), requires_grad=True)
    out = pool(x)
    assert out.shape == expected
    out.sum().backward()
    assert x.grad.shape == shape


@pytest.mark.task4_7
@pytest.mark.parametrize("layer", [nn.RNN, nn.LSTM, nn.GRU])
def test_recurrent_layers_take_a_batch_of_zero_and_refuse_an_empty_sequence(layer):
    """As PyTorch's: a batch of 0 gives outputs of batch 0 (and zero weight
    gradients); a sequence of length 0 raises, naming the sequence length."""
    module = layer(3, 2, num_layers=2, bidirectional=True)
    x = _t(np.zeros((4, 0, 3)), requires_grad=True)
    output, state = module(x)
    h_n = state[0] if isinstance(state, tuple) else state
    assert output.shape == (4, 0, 4) and h_n.shape == (4, 0, 2)
    output.sum().backward()
    np.testing.assert_array_equal(module.weight_ih_l0.grad.to_numpy(), 0.0)
    with pytest.raises(ValueError, match="sequence length larger than 0"):
        module(_t(np.zeros((0, 2, 3))))


@pytest.mark.task2_6
def test_group_norm_of_a_batch_of_zero_is_empty():
    """As PyTorch's: ``(0, C, *)`` in, ``(0, C, *)`` out, and backward runs."""
    x = _t(np.zeros((0, 4, 3)), requires_grad=True)
    out = nn.GroupNorm(2, 4)(x)
    assert out.shape == (0, 4, 3)
    out.sum().backward()
    assert x.grad.shape == (0, 4, 3)
