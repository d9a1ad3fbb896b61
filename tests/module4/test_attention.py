"""Task 4.8: masks, scaled dot-product attention, additive and multiplicative
attention, multi-head attention and the Transformer block, against NumPy oracles of
PyTorch's equations (weights given explicitly), with gradients by central
differences."""

from __future__ import annotations

import math
from typing import Optional

import numpy as np
import pytest

from module2_tensors import no_grad, tensor
from module4_networks import attention as A
from module4_networks import transformer as T

from .helpers import BACKEND, check_grad

pytestmark = pytest.mark.task4_8


def t(a) -> object:
    return tensor(np.asarray(a, dtype=np.float64), backend=BACKEND)


# ------------------------------------------------------------------ NumPy oracles
def np_softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def np_attention(q, k, v, allowed: Optional[np.ndarray] = None, additive=None):
    """softmax(q k^T / sqrt(E)) v with 1 = may attend; rows with no allowed key
    give zero weights."""
    scores = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])
    if additive is not None:
        scores = scores + additive
    if allowed is None:
        w = np_softmax(scores)
    else:
        allowed = np.broadcast_to(allowed, scores.shape).astype(bool)
        s = np.where(allowed, scores, -np.inf)
        rows = allowed.any(axis=-1, keepdims=True)
        s = np.where(rows, s, 0.0)
        w = np.where(allowed, np_softmax(s), 0.0)
    return w @ v, w


def np_layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * weight + bias


def np_mha(query, key, value, p, num_heads, kpm=None, not_allowed=None):
    """PyTorch's multi-head attention on batch-first inputs (N, L, E)."""
    E = query.shape[-1]
    d = E // num_heads
    w, b = p["in_proj_weight"], p.get("in_proj_bias", np.zeros(3 * E))
    q = query @ w[:E].T + b[:E]
    k = key @ w[E : 2 * E].T + b[E : 2 * E]
    v = value @ w[2 * E :].T + b[2 * E :]
    n, L, S = query.shape[0], query.shape[1], key.shape[1]

    def split(x, T_):
        return x.reshape(n, T_, num_heads, d).transpose(0, 2, 1, 3)

    allowed = np.ones((n, num_heads, L, S), dtype=bool)
    if kpm is not None:
        allowed &= ~kpm.astype(bool)[:, None, None, :]
    if not_allowed is not None:
        allowed &= ~np.broadcast_to(not_allowed.astype(bool), allowed.shape)
    out, wts = np_attention(split(q, L), split(k, S), split(v, S), allowed)
    out = out.transpose(0, 2, 1, 3).reshape(n, L, E)
    out = out @ p["out_proj.weight"].T + p.get("out_proj.bias", 0.0)
    return out, wts


def params_of(module):
    return {name: p.value.to_numpy() for name, p in module.named_parameters()}


def randomize(module, rng, scale=0.5):
    for _, p in module.named_parameters():
        p.update(tensor(rng.uniform(-scale, scale, p.value.shape), backend=BACKEND))


# -------------------------------------------------------------------------- masks
def test_causal_mask_is_lower_triangular() -> None:
    np.testing.assert_array_equal(
        A.causal_mask(4, backend=BACKEND).to_numpy(), np.tril(np.ones((4, 4)))
    )
    np.testing.assert_array_equal(
        A.causal_mask(3, 5, backend=BACKEND).to_numpy(), np.tril(np.ones((3, 5)))
    )


def test_padding_mask_marks_the_real_tokens() -> None:
    got = A.padding_mask([3, 1, 4], 4, backend=BACKEND).to_numpy()
    np.testing.assert_array_equal(got, [[1, 1, 1, 0], [1, 0, 0, 0], [1, 1, 1, 1]])


# ---------------------------------------------------- scaled dot-product attention
def test_sdpa_without_mask_matches_numpy() -> None:
    rng = np.random.default_rng(0)
    q, k, v = (
        rng.normal(size=(2, 3, 4)),
        rng.normal(size=(2, 5, 4)),
        rng.normal(size=(2, 5, 6)),
    )
    got = A.scaled_dot_product_attention(t(q), t(k), t(v)).to_numpy()
    np.testing.assert_allclose(got, np_attention(q, k, v)[0], rtol=1e-12)
    # scale= replaces 1 / sqrt(E): the same as the default on q * scale * sqrt(E)
    got = A.scaled_dot_product_attention(t(q), t(k), t(v), scale=0.3).to_numpy()
    want = np_attention(q * 0.3 * np.sqrt(4.0), k, v)[0]
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_sdpa_boolean_mask_gives_exact_zeros_and_no_nan() -> None:
    rng = np.random.default_rng(1)
    q, k, v = rng.normal(size=(3, 4)), rng.normal(size=(3, 4)), rng.normal(size=(3, 2))
    allowed = np.array([[1, 0, 1], [0, 0, 0], [1, 1, 1]], dtype=float)
    scores = t(q @ k.T / 2.0)
    w = A.attention_weights(scores, t(allowed)).to_numpy()
    assert not np.isnan(w).any()
    assert np.all(w[allowed == 0] == 0.0), "masked keys must get exactly zero weight"
    np.testing.assert_array_equal(w[1], 0.0)
    np.testing.assert_allclose(w.sum(-1), [1.0, 0.0, 1.0], rtol=1e-12)
    got = A.scaled_dot_product_attention(t(q), t(k), t(v), attn_mask=t(allowed))
    want, _ = np_attention(q, k, v, allowed)
    np.testing.assert_allclose(got.to_numpy(), want, rtol=1e-12)
    np.testing.assert_array_equal(got.to_numpy()[1], 0.0)


def test_sdpa_causal_equals_the_causal_mask() -> None:
    rng = np.random.default_rng(2)
    q, k, v = (
        rng.normal(size=(2, 4, 3)),
        rng.normal(size=(2, 4, 3)),
        rng.normal(size=(2, 4, 3)),
    )
    got = A.scaled_dot_product_attention(t(q), t(k), t(v), is_causal=True).to_numpy()
    want, _ = np_attention(q, k, v, np.tril(np.ones((4, 4))))
    np.testing.assert_allclose(got, want, rtol=1e-12)
    # Output i depends on inputs <= i only.
    k2, v2 = k.copy(), v.copy()
    k2[:, 3], v2[:, 3] = 9.0, -9.0
    got2 = A.scaled_dot_product_attention(t(q), t(k2), t(v2), is_causal=True)
    np.testing.assert_array_equal(got2.to_numpy()[:, :3], got[:, :3])
    # 2 queries, 4 keys: torch's is_causal mask is ones(L, S).tril(), (2, 4)
    short = A.scaled_dot_product_attention(t(q[:, :2]), t(k), t(v), is_causal=True)
    want, _ = np_attention(q[:, :2], k, v, np.tril(np.ones((2, 4))))
    np.testing.assert_allclose(short.to_numpy(), want, rtol=1e-12)


def test_sdpa_additive_float_mask() -> None:
    rng = np.random.default_rng(3)
    q, k, v = rng.normal(size=(3, 2)), rng.normal(size=(4, 2)), rng.normal(size=(4, 2))
    bias = rng.normal(size=(3, 4))
    got = A.scaled_dot_product_attention(t(q), t(k), t(v), attn_mask=t(bias))
    np.testing.assert_allclose(
        got.to_numpy(), np_attention(q, k, v, additive=bias)[0], rtol=1e-12
    )


def test_sdpa_rejects_mismatched_shapes() -> None:
    with pytest.raises(ValueError, match=r"\(3, 4\).*\(5, 3\)"):
        A.scaled_dot_product_attention(
            t(np.zeros((3, 4))), t(np.zeros((5, 3))), t(np.zeros((5, 2)))
        )


def test_sdpa_gradients_with_a_mask() -> None:
    rng = np.random.default_rng(4)
    allowed = t([[1, 1, 0], [0, 1, 1], [0, 0, 0]])

    def f(q, k, v):
        return A.scaled_dot_product_attention(q, k, v, attn_mask=allowed)

    check_grad(
        f, [rng.normal(size=(3, 2)), rng.normal(size=(3, 2)), rng.normal(size=(3, 2))]
    )


# ---------------------------------------------------- additive and multiplicative
def test_additive_attention_matches_numpy_and_its_gradients() -> None:
    rng = np.random.default_rng(5)
    att = A.AdditiveAttention(3, 2, 4, backend=BACKEND)
    randomize(att, rng)
    p = params_of(att)
    q, k, v = (
        rng.normal(size=(2, 3, 3)),
        rng.normal(size=(2, 4, 2)),
        rng.normal(size=(2, 4, 2)),
    )
    mask = np.array([1, 1, 0, 1], dtype=float)
    context, weights = att(t(q), t(k), t(v), t(mask))
    scores = (
        np.tanh(
            (q @ p["query_proj.weight"].T)[:, :, None, :]
            + (k @ p["key_proj.weight"].T)[:, None, :, :]
        )
        @ p["score.weight"].T
    )[..., 0]
    want_ctx, want_w = np_attention_from_scores(scores, v, mask)
    np.testing.assert_allclose(weights.to_numpy(), want_w, rtol=1e-12)
    np.testing.assert_allclose(context.to_numpy(), want_ctx, rtol=1e-12)

    def f(q, k, v):
        return att(q, k, v, t(mask))[0]

    check_grad(f, [q[:1, :2], k[:1], v[:1]])


def np_attention_from_scores(scores, v, allowed=None):
    if allowed is None:
        w = np_softmax(scores)
    else:
        allowed = np.broadcast_to(allowed, scores.shape).astype(bool)
        w = np.where(allowed, np_softmax(np.where(allowed, scores, -np.inf)), 0.0)
    return w @ v, w


@pytest.mark.parametrize("scaled", [False, True])
def test_multiplicative_attention_matches_numpy(scaled: bool) -> None:
    rng = np.random.default_rng(6)
    att = A.MultiplicativeAttention(3, 2, scaled=scaled, backend=BACKEND)
    w = params_of(att)["weight"]
    assert w.shape == (3, 2)
    q, k, v = (
        rng.normal(size=(2, 3, 3)),
        rng.normal(size=(2, 4, 2)),
        rng.normal(size=(2, 4, 5)),
    )
    scores = q @ w @ np.swapaxes(k, 1, 2) / (math.sqrt(2) if scaled else 1.0)
    context, weights = att(t(q), t(k), t(v))
    want_ctx, want_w = np_attention_from_scores(scores, v)
    np.testing.assert_allclose(weights.to_numpy(), want_w, rtol=1e-12)
    np.testing.assert_allclose(context.to_numpy(), want_ctx, rtol=1e-12)

    def f(q, k, v):
        return att(q, k, v)[0]

    check_grad(f, [q[:1], k[:1], v[:1, :, :2]])


# -------------------------------------------------------------- multi-head attention
def test_multihead_parameters_follow_pytorch() -> None:
    mha = A.MultiheadAttention(8, 2, backend=BACKEND)
    assert [(n, p.value.shape) for n, p in mha.named_parameters()] == [
        ("in_proj_weight", (24, 8)),
        ("in_proj_bias", (24,)),
        ("out_proj.weight", (8, 8)),
        ("out_proj.bias", (8,)),
    ]
    p = params_of(mha)
    bound = math.sqrt(6.0 / (24 + 8))  # xavier_uniform_ on (3E, E)
    assert np.abs(p["in_proj_weight"]).max() <= bound
    np.testing.assert_array_equal(p["in_proj_bias"], 0.0)
    np.testing.assert_array_equal(p["out_proj.bias"], 0.0)
    with pytest.raises(ValueError, match="divisible"):
        A.MultiheadAttention(6, 4, backend=BACKEND)


@pytest.mark.parametrize("batch_first", [True, False])
def test_multihead_matches_numpy_with_masks(batch_first: bool) -> None:
    rng = np.random.default_rng(7)
    mha = A.MultiheadAttention(4, 2, batch_first=batch_first, backend=BACKEND)
    randomize(mha, rng)
    p = params_of(mha)
    q, k, v = (
        rng.normal(size=(2, 3, 4)),
        rng.normal(size=(2, 5, 4)),
        rng.normal(size=(2, 5, 4)),
    )
    kpm = np.array([[0, 0, 0, 1, 1], [0, 1, 0, 0, 0]], dtype=float)  # 1 = ignore
    not_allowed = np.triu(np.ones((3, 5)), 1)  # 1 = not allowed
    feed = (lambda a: a) if batch_first else (lambda a: a.transpose(1, 0, 2))
    out, w = mha(
        t(feed(q)),
        t(feed(k)),
        t(feed(v)),
        key_padding_mask=t(kpm),
        attn_mask=t(not_allowed),
    )
    want, want_w = np_mha(q, k, v, p, 2, kpm, not_allowed)
    np.testing.assert_allclose(out.to_numpy(), feed(want), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w.to_numpy(), want_w.mean(1), rtol=1e-10, atol=1e-12)
    _, per_head = mha(
        t(feed(q)),
        t(feed(k)),
        t(feed(v)),
        key_padding_mask=t(kpm),
        average_attn_weights=False,
    )
    assert per_head.shape == (2, 2, 3, 5)
    none = mha(t(feed(q)), t(feed(k)), t(feed(v)), need_weights=False)[1]
    assert none is None


def test_multihead_unbatched_and_float_mask() -> None:
    rng = np.random.default_rng(8)
    mha = A.MultiheadAttention(4, 1, backend=BACKEND)
    randomize(mha, rng)
    x = rng.normal(size=(3, 4))
    out, w = mha(t(x), t(x), t(x))
    want, want_w = np_mha(x[None], x[None], x[None], params_of(mha), 1)
    np.testing.assert_allclose(out.to_numpy(), want[0], rtol=1e-10)
    assert w.shape == (3, 3)
    bias = rng.normal(size=(3, 3))
    out_b, _ = mha(t(x), t(x), t(x), attn_mask=t(bias))
    pp = params_of(mha)
    qkv = x @ pp["in_proj_weight"].T + pp["in_proj_bias"]
    o, _ = np_attention(qkv[:, :4], qkv[:, 4:8], qkv[:, 8:], additive=bias)
    want_b = o @ pp["out_proj.weight"].T + pp["out_proj.bias"]
    np.testing.assert_allclose(out_b.to_numpy(), want_b, rtol=1e-10)


def test_multihead_fully_padded_sequence_gives_zeros_not_nan() -> None:
    mha = A.MultiheadAttention(4, 2, batch_first=True, backend=BACKEND)
    randomize(mha, np.random.default_rng(9))
    x = t(np.ones((1, 3, 4)))
    out, w = mha(x, x, x, key_padding_mask=t([[1, 1, 1]]))
    assert not np.isnan(out.to_numpy()).any()
    np.testing.assert_array_equal(w.to_numpy(), 0.0)
    # The output is then the output projection's bias alone.
    np.testing.assert_allclose(out.to_numpy()[0, 0], params_of(mha)["out_proj.bias"])


def test_multihead_gradients() -> None:
    rng = np.random.default_rng(10)
    mha = A.MultiheadAttention(4, 2, batch_first=True, backend=BACKEND)
    names = [n for n, _ in mha.named_parameters()]
    weights = [rng.uniform(-0.5, 0.5, p.value.shape) for _, p in mha.named_parameters()]
    kpm = t([[0, 0, 1]])

    def f(x, *ws):
        for name, w in zip(names, ws):
            module, _, attr = name.rpartition(".")
            getattr(getattr(mha, module) if module else mha, attr).update(w)
        return mha(x, x, x, key_padding_mask=kpm)[0]

    check_grad(f, [rng.normal(size=(1, 3, 4))] + weights)


# ------------------------------------------------------------ positional encoding
def test_sinusoidal_encoding_formula() -> None:
    table = T.sinusoidal_encoding(7, 6)
    for p in range(7):
        for i in range(3):
            angle = p / 10000 ** (2 * i / 6)
            assert table[p, 2 * i] == pytest.approx(math.sin(angle), abs=1e-12)
            assert table[p, 2 * i + 1] == pytest.approx(math.cos(angle), abs=1e-12)
    pe = T.PositionalEncoding(6, max_len=10, backend=BACKEND)
    x = np.random.default_rng(11).normal(size=(2, 7, 6))
    np.testing.assert_allclose(pe(t(x)).to_numpy(), x + table, rtol=1e-12)
    with pytest.raises(ValueError, match="max_len"):
        pe(t(np.zeros((1, 11, 6))))


# ----------------------------------------------------------------- the block
def np_block(x, p, num_heads, norm_first, act, kpm=None, not_allowed=None):
    def sa(y):
        return np_mha(
            y,
            y,
            y,
            {k[10:]: v for k, v in p.items() if k.startswith("self_attn.")},
            num_heads,
            kpm,
            not_allowed,
        )[0]

    def ff(y):
        h = act(y @ p["linear1.weight"].T + p["linear1.bias"])
        return h @ p["linear2.weight"].T + p["linear2.bias"]

    def n1(y):
        return np_layer_norm(y, p["norm1.weight"], p["norm1.bias"])

    def n2(y):
        return np_layer_norm(y, p["norm2.weight"], p["norm2.bias"])

    if norm_first:
        x = x + sa(n1(x))
        return x + ff(n2(x))
    x = n1(x + sa(x))
    return n2(x + ff(x))


@pytest.mark.parametrize("norm_first", [False, True])
def test_encoder_layer_matches_numpy(norm_first: bool) -> None:
    rng = np.random.default_rng(12)
    layer = T.TransformerEncoderLayer(
        4, 2, 8, dropout=0.0, batch_first=True, norm_first=norm_first, backend=BACKEND
    )
    randomize(layer, rng)
    names = [n for n, _ in layer.named_parameters()]
    assert names == [
        "self_attn.in_proj_weight",
        "self_attn.in_proj_bias",
        "self_attn.out_proj.weight",
        "self_attn.out_proj.bias",
        "linear1.weight",
        "linear1.bias",
        "linear2.weight",
        "linear2.bias",
        "norm1.weight",
        "norm1.bias",
        "norm2.weight",
        "norm2.bias",
    ]
    x = rng.normal(size=(2, 3, 4))
    kpm = np.array([[0, 0, 1], [0, 0, 0]], dtype=float)
    got = layer(t(x), src_key_padding_mask=t(kpm)).to_numpy()
    want = np_block(
        x, params_of(layer), 2, norm_first, lambda h: np.maximum(h, 0.0), kpm
    )
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def test_encoder_layer_gradients() -> None:
    rng = np.random.default_rng(13)
    layer = T.TransformerEncoderLayer(
        4,
        2,
        6,
        dropout=0.0,
        batch_first=True,
        norm_first=True,
        activation="relu",
        backend=BACKEND,
    )
    randomize(layer, rng)
    causal = t(np.triu(np.ones((3, 3)), 1))

    def f(x):
        return layer(x, src_mask=causal)

    check_grad(f, [rng.normal(size=(1, 3, 4))])


def test_encoder_stacks_independent_copies() -> None:
    rng = np.random.default_rng(14)
    layer = T.TransformerEncoderLayer(
        4, 2, 8, dropout=0.0, batch_first=True, backend=BACKEND
    )
    enc = T.TransformerEncoder(layer, 2)
    names = [n for n, _ in enc.named_parameters()]
    assert names[0] == "layers.0.self_attn.in_proj_weight"
    assert sum(n.startswith("layers.1.") for n in names) == 12
    randomize(enc, rng)
    a = enc.layers[0].linear1.weight.value.to_numpy()
    b = enc.layers[1].linear1.weight.value.to_numpy()
    assert not np.array_equal(a, b), "each layer must own its parameters"
    x = t(rng.normal(size=(1, 3, 4)))
    np.testing.assert_allclose(
        enc(x).to_numpy(), enc.layers[1](enc.layers[0](x)).to_numpy(), rtol=1e-12
    )


# ------------------------------------------------------------------- the models
def test_language_model_is_causal() -> None:
    """Logits at position t depend on tokens <= t only."""
    kt_backend = BACKEND
    model = T.TransformerLM(
        12, d_model=8, nhead=2, num_layers=2, max_len=8, dropout=0.0, backend=kt_backend
    )
    model.eval()
    a = np.array([[1, 5, 7, 2, 9, 3]])
    b = a.copy()
    b[0, 4:] = [0, 11]
    la = model(tensor(a, backend=BACKEND)).to_numpy()
    lb = model(tensor(b, backend=BACKEND)).to_numpy()
    assert la.shape == (1, 6, 12)
    np.testing.assert_array_equal(la[:, :4], lb[:, :4])
    assert np.abs(la[:, 4:] - lb[:, 4:]).max() > 1e-6
    out = model.generate(t(a[:, :3]), 4, temperature=0.5, rng=np.random.default_rng(0))
    assert out.shape == (1, 7)
    np.testing.assert_array_equal(out.to_numpy()[:, :3], a[:, :3])
    assert set(out.to_numpy().ravel()) <= set(range(12))


def test_generate_samples_from_the_softmax_of_the_last_logits() -> None:
    # A head of zero weights and bias log p: every position's logits are log p,
    # so each sampled token is drawn from p (at temperature 1) or from p^2
    # renormalised (at temperature 0.5).
    model = T.TransformerLM(
        3, d_model=4, nhead=1, num_layers=1, max_len=4, backend=BACKEND
    )
    p = np.array([0.2, 0.3, 0.5])
    with no_grad():
        model.head.weight.value.copy_(tensor(np.zeros((3, 4)), backend=BACKEND))
        model.head.bias.value.copy_(tensor(np.log(p), backend=BACKEND))
    start = tensor(np.zeros((4000, 1)), backend=BACKEND)
    for temperature, expected in ((1.0, p), (0.5, p**2 / (p**2).sum())):
        rng = np.random.default_rng(1)
        out = model.generate(start, 1, temperature, rng).to_numpy()[:, 1]
        counts = np.bincount(out.astype(int), minlength=3) / len(out)
        np.testing.assert_allclose(counts, expected, atol=0.03)


def test_classifier_ignores_padding() -> None:
    model = T.TransformerClassifier(
        10, 2, d_model=8, nhead=2, num_layers=1, max_len=8, dropout=0.0, backend=BACKEND
    )
    model.eval()
    x = np.array([[3, 4, 5, 0, 0], [3, 4, 5, 7, 8]])
    y = x.copy()
    y[0, 3:] = [9, 6]  # other padding tokens: no effect on the first row
    lx = model(tensor(x, backend=BACKEND), [3, 5]).to_numpy()
    ly = model(tensor(y, backend=BACKEND), [3, 5]).to_numpy()
    np.testing.assert_allclose(lx, ly, rtol=1e-12)
    assert lx.shape == (2, 2)


def test_attention_learns_to_reverse_a_sequence() -> None:
    """The synthetic task of the guide: one pre-norm block reverses sequences of 6
    digits, 100% on 500 fresh sequences after 150 steps (seconds once the fast
    backend's kernels are compiled and cached). Adam at 1e-2 reaches 100% by step
    100 and stays there (measured every 25 steps to 150); at 3e-3 it took 175 of
    the 250 steps this test used to run (issue 25: the same check in three fifths
    of the steps)."""
    import module4_networks as kt
    from module4_networks.nn import functional as F
    from module4_networks import nn, optim

    fast = kt.FastBackend
    kt.manual_seed(0)
    rng = np.random.default_rng(0)
    length, vocab, width = 6, 10, 32
    embed = nn.Embedding(vocab, width, backend=fast)
    pos = T.PositionalEncoding(width, 16, backend=fast)
    block = T.TransformerEncoderLayer(
        width, 2, 64, dropout=0.0, batch_first=True, norm_first=True, backend=fast
    )
    head = nn.Linear(width, vocab, backend=fast)
    model = nn.Sequential(embed, pos, block, head)
    opt = optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(150):
        x = rng.integers(0, vocab, size=(64, length))
        logits = model(kt.tensor(x, backend=fast))
        target = kt.tensor(x[:, ::-1].reshape(-1), backend=fast)
        loss = F.cross_entropy(logits.view(64 * length, vocab), target)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    test = rng.integers(0, vocab, size=(500, length))
    with kt.no_grad():
        pred = model(kt.tensor(test, backend=fast)).to_numpy().argmax(-1)
    assert (pred == test[:, ::-1]).mean() == 1.0


def test_multihead_attention_runs_on_the_cuda_backend() -> None:
    import module3_fast_ops

    rng = np.random.default_rng(15)
    x = rng.normal(size=(1, 3, 4))
    values = [rng.uniform(-0.5, 0.5, s) for s in [(12, 4), (12,), (4, 4), (4,)]]
    results = []
    for backend in (BACKEND, module3_fast_ops.CudaBackend):
        mha = A.MultiheadAttention(4, 2, batch_first=True, backend=backend)
        for (_, p), v in zip(mha.named_parameters(), values):
            p.update(tensor(v, backend=backend))
        tx = tensor(x, backend=backend, requires_grad=True)
        pad = tensor(np.array([[0.0, 0.0, 1.0]]), backend=backend)
        out, _ = mha(tx, tx, tx, key_padding_mask=pad)
        out.sum().backward()
        results.append((out.to_numpy(), tx.grad.to_numpy()))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-12)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-12)
