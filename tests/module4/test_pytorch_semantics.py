"""Module 4 behaviour a PyTorch user would notice (issue 13). Forward values are
checked against NumPy/math references, gradients by central differences
(``grad_check``). Given code; each test carries
the marker of the task whose code it runs."""

from __future__ import annotations

import math

import numpy as np
import pytest

import module4_networks as kt
from module4_networks import nn
from module4_networks.nn import functional as F

ERF = np.vectorize(math.erf)


def _t(values, requires_grad=False):
    return kt.tensor(np.asarray(values, dtype=np.float64), requires_grad=requires_grad)


# ------------------------------------------------------------- activations

POINTS = np.array([-3.0, -0.7, -0.1, 0.2, 0.9, 25.0])
ACTIVATIONS = {
    "gelu": (F.gelu, nn.GELU(), lambda x: 0.5 * x * (1 + ERF(x / math.sqrt(2)))),
    "gelu_tanh": (
        lambda t: F.gelu(t, approximate="tanh"),
        nn.GELU("tanh"),
        lambda x: 0.5
        * x
        * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))),
    ),
    "silu": (F.silu, nn.SiLU(), lambda x: x / (1 + np.exp(-x))),
    "leaky_relu": (
        lambda t: F.leaky_relu(t, 0.2),
        nn.LeakyReLU(0.2),
        lambda x: np.where(x > 0, x, 0.2 * x),
    ),
    "elu": (
        lambda t: F.elu(t, 1.5),
        nn.ELU(1.5),
        lambda x: np.where(x > 0, x, 1.5 * np.expm1(np.minimum(x, 0))),
    ),
    "softplus": (
        lambda t: F.softplus(t, beta=2.0),
        nn.Softplus(beta=2.0),
        lambda x: np.where(2 * x > 20, x, np.log1p(np.exp(2 * x)) / 2),
    ),
}


@pytest.mark.task2_6
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activations_match_numpy_and_central_differences(name):
    fn, module, reference = ACTIVATIONS[name]
    np.testing.assert_allclose(fn(_t(POINTS)).to_numpy(), reference(POINTS), rtol=1e-12)
    np.testing.assert_allclose(module(_t(POINTS)).to_numpy(), reference(POINTS))
    kt.grad_check(fn, _t(POINTS, requires_grad=True))


@pytest.mark.task2_6
def test_softplus_gradient_at_zero_is_one_half():
    x = _t([0.0], requires_grad=True)
    F.softplus(x).sum().backward()
    assert x.grad.item() == pytest.approx(0.5)


@pytest.mark.task2_6
def test_softplus_family_second_derivatives_at_zero():
    # Hessians at a zero logit (a zero-initialised head, Newton's method from
    # w = 0): softplus(x; b)'' = b s(bx)(1 - s(bx)), b / 4 at 0; logsigmoid'' =
    # -1/4; weighted BCE with logits w (1 + (p - 1) y) s'(x), w (1 + (p - 1) y) / 4.
    def second(f):
        x = kt.tensor([0.0], requires_grad=True)
        (g,) = kt.autograd.grad(f(x), x, create_graph=True)
        (h,) = kt.autograd.grad(g.sum(), x)
        return h.item()

    assert second(lambda x: F.softplus(x).sum()) == pytest.approx(0.25)
    assert second(lambda x: F.softplus(x, beta=2.0).sum()) == pytest.approx(0.5)
    assert second(lambda x: F.logsigmoid(x).sum()) == pytest.approx(-0.25)
    for y, expected in ((1.0, 3 * 2.0 / 4), (0.0, 2.0 / 4)):
        loss = lambda x: F.binary_cross_entropy_with_logits(  # noqa: E731
            x, kt.tensor([y]), weight=kt.tensor([2.0]), pos_weight=kt.tensor([3.0])
        )
        assert second(loss) == pytest.approx(expected)


@pytest.mark.task2_6
def test_elementwise_extras_match_numpy():
    x = np.array([-2.5, -0.5, 0.0, 0.5, 1.5, 2.5])
    t = _t(x)
    np.testing.assert_allclose(t.erf().to_numpy(), ERF(x))
    np.testing.assert_array_equal(t.round().to_numpy(), np.round(x))  # half to even
    np.testing.assert_array_equal(t.floor().to_numpy(), np.floor(x))
    np.testing.assert_array_equal(t.sign().to_numpy(), np.sign(x))
    # torch.sign: 0 (not NaN, not -0) at NaN and -0, so |x|'s gradient there is 0
    edges = _t([math.nan, -0.0], requires_grad=True)
    assert edges.sign().tolist() == [0.0, 0.0]
    assert not np.signbit(edges.sign().to_numpy()).any()
    edges.abs().sum().backward()
    assert edges.grad.tolist() == [0.0, 0.0]
    np.testing.assert_allclose(_t([1e-10]).log1p().item(), np.log1p(1e-10), rtol=1e-15)
    np.testing.assert_allclose(_t([1e-10]).expm1().item(), np.expm1(1e-10), rtol=1e-15)
    np.testing.assert_allclose(_t([4.0]).rsqrt().item(), 0.5)
    np.testing.assert_array_equal(t.clamp(-1.0, 1.0).to_numpy(), np.clip(x, -1, 1))
    np.testing.assert_array_equal((t % 2.0).to_numpy(), np.mod(x, 2.0))
    np.testing.assert_array_equal((t // 2.0).to_numpy(), np.floor_divide(x, 2.0))
    np.testing.assert_allclose((2.0**t).to_numpy(), 2.0**x)
    other = np.array([1.0, -1.0, 0.0, 2.0, 1.5, -3.0])
    np.testing.assert_array_equal(t.maximum(_t(other)).to_numpy(), np.maximum(x, other))
    np.testing.assert_array_equal(t.minimum(_t(other)).to_numpy(), np.minimum(x, other))
    assert math.isnan(_t([math.nan]).maximum(_t([1.0])).item())


@pytest.mark.task2_6
def test_elementwise_extras_have_gradients():
    x = _t([0.3, -0.6, 2.0], requires_grad=True)
    for fn in [
        lambda a: a.erf(),
        lambda a: a.log1p(),
        lambda a: a.expm1(),
        lambda a: (a * a + 1.0).rsqrt(),
        lambda a: a.clamp(-1.0, 1.0),
        lambda a: a % 0.7,
        lambda a: 3.0**a,
        lambda a: a.maximum(_t([0.0, 0.0, 1.0])),
    ]:
        kt.grad_check(fn, x)
    base = _t([1.5, 0.5], requires_grad=True)
    exponent = _t([2.0, -1.5], requires_grad=True)
    kt.grad_check(lambda a, b: a**b, base, exponent)
    tie = _t([1.0], requires_grad=True)
    tie.maximum(_t([1.0])).sum().backward()
    assert tie.grad.item() == 0.5  # torch.maximum splits a tie


@pytest.mark.task2_6
def test_masked_fill_and_mask_logic():
    x = _t([[1.0, -2.0], [3.0, -4.0]], requires_grad=True)
    mask = x < 0
    y = x.masked_fill(mask, -1e9)
    assert y.tolist() == [[1.0, -1e9], [3.0, -1e9]]
    y.sum().backward()
    assert x.grad.tolist() == [[1.0, 0.0], [1.0, 0.0]]
    assert (~mask).tolist() == [[1.0, 0.0], [1.0, 0.0]]
    assert (mask & (x < -3)).tolist() == [[0.0, 0.0], [0.0, 1.0]]
    assert (mask | (x > 2)).tolist() == [[0.0, 1.0], [1.0, 1.0]]


# ------------------------------------------------------------------- losses


@pytest.mark.task4_6
def test_bce_with_logits_gradient_at_zero_is_sigmoid_minus_target():
    x = _t([0.0, 0.0], requires_grad=True)
    F.binary_cross_entropy_with_logits(x, _t([1.0, 0.0]), reduction="sum").backward()
    assert x.grad.tolist() == [-0.5, 0.5]


def _log_softmax(x):
    m = x.max(axis=1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=1, keepdims=True))


LOGITS = np.array([[1.0, -0.5, 2.0], [0.3, 0.1, -1.0], [-2.0, 1.0, 0.5]])


@pytest.mark.task4_6
def test_cross_entropy_ignore_index_and_weight_follow_torch():
    logp = _log_softmax(LOGITS)
    w = np.array([1.0, 2.0, 0.5])
    target = [2, -100, 1]  # torch's default ignore_index is -100
    got = F.cross_entropy(_t(LOGITS), target)
    assert got.item() == pytest.approx(-(logp[0, 2] + logp[2, 1]) / 2)
    got = F.cross_entropy(_t(LOGITS), target, weight=_t(w))
    expected = -(w[2] * logp[0, 2] + w[1] * logp[2, 1]) / (w[2] + w[1])
    assert got.item() == pytest.approx(expected)
    got = F.cross_entropy(_t(LOGITS), [0, 1, 2], ignore_index=1, reduction="none")
    np.testing.assert_allclose(got.to_numpy(), [-logp[0, 0], 0.0, -logp[2, 2]])
    kt.grad_check(lambda x: F.cross_entropy(x, target, weight=_t(w)), _t(LOGITS, True))


@pytest.mark.task4_6
def test_an_ignored_entry_counts_for_nothing_even_at_minus_infinity():
    # A padding class masked with -inf and ignored (a language model's pad
    # token), or a row of nan that is ignored: torch's loss leaves them out, so
    # the loss and gradient are those of row 0 alone, never 0 * -inf = nan.
    logits = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, -math.inf]])
    logp, probabilities = _log_softmax(logits[:1]), np.exp(_log_softmax(logits[:1]))
    x = _t(logits, True)
    loss = F.cross_entropy(x, [0, 2], ignore_index=2)
    loss.backward()
    assert loss.item() == pytest.approx(-logp[0, 0])
    expected = np.vstack([probabilities - [1.0, 0.0, 0.0], np.zeros((1, 3))])
    np.testing.assert_allclose(x.grad.to_numpy(), expected, atol=1e-12)
    logq = np.log([[0.5, 0.25, 0.25], [0.5, 0.5, 1.0]]) - [0.0, 0.0, math.inf]
    got = F.nll_loss(_t(logq), [1, 2], ignore_index=2)
    assert got.item() == pytest.approx(math.log(4.0))
    for ignored in ([0.0, 0.0, -math.inf], [0.0, math.nan, 0.0]):
        x = _t(np.vstack([logits[:1], [ignored]]))
        got = F.cross_entropy(x, [0, -100], label_smoothing=0.1)
        smooth = -(0.9 * logp[0, 0] + 0.1 * logp[0].mean())
        assert got.item() == pytest.approx(smooth)


@pytest.mark.task4_6
def test_cross_entropy_label_smoothing_and_probability_targets():
    logp = _log_softmax(LOGITS)
    eps, target = 0.1, np.array([2, 0, 1])
    soft = np.full((3, 3), eps / 3) + (1 - eps) * np.eye(3)[target]
    expected = -(soft * logp).sum(axis=1).mean()
    got = F.cross_entropy(_t(LOGITS), list(target), label_smoothing=eps)
    assert got.item() == pytest.approx(expected)
    probabilities = np.array([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0], [0.1, 0.8, 0.1]])
    got = F.cross_entropy(_t(LOGITS), _t(probabilities))
    assert got.item() == pytest.approx(-(probabilities * logp).sum(axis=1).mean())
    kt.grad_check(lambda x: F.cross_entropy(x, _t(probabilities)), _t(LOGITS, True))


@pytest.mark.task4_6
def test_cross_entropy_errors_name_cross_entropy():
    with pytest.raises(ValueError, match="^cross_entropy: target of shape"):
        F.cross_entropy(_t(LOGITS), kt.tensor(np.zeros((3, 2), dtype=np.int64)))
    with pytest.raises(IndexError, match="^cross_entropy: target 3 is out of bounds"):
        F.cross_entropy(_t(LOGITS), [0, 1, 3])


# ---------------------------------------------------------------- BatchNorm


@pytest.mark.task4_6
def test_batchnorm_momentum_none_is_a_cumulative_average():
    bn = nn.BatchNorm1d(2, momentum=None)
    batches = [np.array([[1.0, 2.0], [3.0, 6.0]]), np.array([[5.0, 0.0], [9.0, 2.0]])]
    for batch in batches:
        bn(kt.tensor(batch, backend=bn.weight.value.backend))
    means = np.mean([b.mean(axis=0) for b in batches], axis=0)
    variances = np.mean([b.var(axis=0, ddof=1) for b in batches], axis=0)
    np.testing.assert_allclose(bn.running_mean.to_numpy(), means)
    np.testing.assert_allclose(bn.running_var.to_numpy(), variances)


# ------------------------------------------------------------ default backend


def test_factories_and_layers_share_one_default_backend():
    assert kt.get_default_backend() is kt.FastBackend  # the fastest written
    out = nn.Linear(3, 2)(kt.rand(5, 3))
    assert out.shape == (5, 2) and out.backend is kt.FastBackend
    previous = kt.get_default_backend()
    try:
        kt.set_default_backend(kt.SimpleBackend)
        layer = nn.Linear(3, 2)
        assert layer.weight.value.backend is kt.SimpleBackend
        assert layer(kt.ones(1, 3)).backend is kt.SimpleBackend
    finally:
        kt.set_default_backend(previous)
    with pytest.raises(ValueError, match=r"move one with t\.to\(other\.backend\)"):
        nn.Linear(3, 2)(kt.rand(5, 3, backend=kt.SimpleBackend))


@pytest.mark.task4_6
def test_wrong_channel_count_is_reported_as_such():
    with pytest.raises(ValueError, match="channel"):
        nn.Conv2d(3, 4, 3)(kt.rand(1, 2, 5, 5))


# ---------------------------------------------------------- anomaly detection


@pytest.mark.task4_6
def test_detect_anomaly_names_the_operation_and_the_line():
    x = kt.tensor([0.0, 1.0], requires_grad=True)
    assert math.isinf(x.log().to_numpy()[0])  # off: IEEE, no error
    with kt.autograd.detect_anomaly():
        with pytest.raises(FloatingPointError, match=r"log .*\(2,\).*test_pytorch_sem"):
            x.log()
        with pytest.raises(FloatingPointError, match=r"anomaly: / produced"):
            1.0 / x
        y = x.sqrt().sum()  # finite forward; the backward at 0 is infinite
        with pytest.raises(FloatingPointError, match=r"backward of sqrt"):
            y.backward()
    kt.autograd.set_detect_anomaly(True)
    try:
        assert kt.autograd.is_anomaly_enabled()
        with pytest.raises(FloatingPointError, match="anomaly: mse_loss produced"):
            F.mse_loss(kt.tensor([1e200]), kt.tensor([-1e200]))  # (2e200)^2 = inf
        masked = kt.tensor([1.0, 2.0]).masked_fill(kt.tensor([1.0, 0.0]), -math.inf)
        F.softmax(masked, dim=0)  # an infinite input is not an anomaly
    finally:
        kt.autograd.set_detect_anomaly(False)


@pytest.mark.task2_4
def test_autograd_grad_of_chosen_inputs():
    a = kt.tensor([1.0, 2.0], requires_grad=True)
    b = kt.tensor([3.0, -1.0], requires_grad=True)
    h = a * b
    (ga,) = kt.autograd.grad((h * h).sum(), a, retain_graph=True)
    np.testing.assert_allclose(ga.to_numpy(), 2 * np.array([3.0, -2.0]) * [3.0, -1.0])
    assert a.grad is None and b.grad is None
    gh, gb = kt.autograd.grad((h * h).sum(), [h, b])
    np.testing.assert_allclose(gh.to_numpy(), [6.0, -4.0])
    np.testing.assert_allclose(gb.to_numpy(), 2 * np.array([3.0, -2.0]) * [1.0, 2.0])
