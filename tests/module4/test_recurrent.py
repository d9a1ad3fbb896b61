"""Task 4.7: RNN, LSTM and GRU cells and layers against a NumPy oracle (PyTorch's
equations, written independently below), with every gradient checked by central
differences, and PyTorch's parameter names, shapes and initialisation."""

from __future__ import annotations

import math
from typing import Dict, List, Optional, Tuple

import numpy as np
import pytest

from module2_tensors import cat, tensor
from module4_networks import nn_utils
from module4_networks import recurrent as R

from .helpers import BACKEND, check_grad

pytestmark = pytest.mark.task4_7

GATES = {"RNN": 1, "LSTM": 4, "GRU": 3}


# ------------------------------------------------------------------ the NumPy oracle
def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def np_cell(
    kind: str,
    x: np.ndarray,
    state,
    w_ih: np.ndarray,
    w_hh: np.ndarray,
    b_ih: Optional[np.ndarray],
    b_hh: Optional[np.ndarray],
    nonlinearity: str = "tanh",
):
    """One step, PyTorch's documented equations; state is h, or (h, c) for LSTM."""
    h = state[0] if kind == "LSTM" else state
    gi = x @ w_ih.T + (0.0 if b_ih is None else b_ih)
    gh = h @ w_hh.T + (0.0 if b_hh is None else b_hh)
    H = w_hh.shape[1]
    if kind == "RNN":
        pre = gi + gh
        return np.tanh(pre) if nonlinearity == "tanh" else np.maximum(pre, 0.0)
    if kind == "LSTM":
        pre = gi + gh
        i, f = _sigmoid(pre[..., :H]), _sigmoid(pre[..., H : 2 * H])
        g, o = np.tanh(pre[..., 2 * H : 3 * H]), _sigmoid(pre[..., 3 * H :])
        c = f * state[1] + i * g
        return (o * np.tanh(c), c)
    r = _sigmoid(gi[..., :H] + gh[..., :H])
    z = _sigmoid(gi[..., H : 2 * H] + gh[..., H : 2 * H])
    n = np.tanh(gi[..., 2 * H :] + r * gh[..., 2 * H :])
    return (1.0 - z) * n + z * h


def np_layer(
    kind: str,
    x: np.ndarray,
    params: Dict[str, np.ndarray],
    num_layers: int,
    bidirectional: bool,
    h0: Optional[np.ndarray] = None,
    c0: Optional[np.ndarray] = None,
    nonlinearity: str = "tanh",
) -> Tuple[np.ndarray, List[np.ndarray]]:
    """A whole layer on ``x`` of shape (L, N, H_in); returns output and [h_n(, c_n)]."""
    L, N, _ = x.shape
    D = 2 if bidirectional else 1
    H = params["weight_hh_l0"].shape[1]
    h0 = np.zeros((num_layers * D, N, H)) if h0 is None else h0
    c0 = np.zeros((num_layers * D, N, H)) if c0 is None else c0
    hs, cs = [], []
    inp = x
    for layer in range(num_layers):
        outs = []
        for d in range(D):
            sfx = f"_l{layer}" + ("_reverse" if d else "")
            w = [
                params.get(n + sfx)
                for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
            ]
            k = layer * D + d
            state = (h0[k], c0[k]) if kind == "LSTM" else h0[k]
            out = np.zeros((L, N, H))
            for t in reversed(range(L)) if d else range(L):
                state = np_cell(kind, inp[t], state, *w, nonlinearity=nonlinearity)
                out[t] = state[0] if kind == "LSTM" else state
            outs.append(out)
            hs.append(state[0] if kind == "LSTM" else state)
            if kind == "LSTM":
                cs.append(state[1])
        inp = np.concatenate(outs, axis=2)
    finals = [np.stack(hs)] + ([np.stack(cs)] if kind == "LSTM" else [])
    return inp, finals


def params_of(module) -> Dict[str, np.ndarray]:
    return {name: p.value.to_numpy() for name, p in module.named_parameters()}


def set_params(module, rng: np.random.Generator, scale: float = 0.5) -> None:
    """Fresh random values (not the initialisation) so every test sees new weights."""
    for _, p in module.named_parameters():
        p.update(tensor(rng.uniform(-scale, scale, p.value.shape), backend=BACKEND))


# ------------------------------------------------------------------------ gate steps
@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_step_matches_the_equations(kind: str) -> None:
    rng = np.random.default_rng(1)
    H, N = 3, 2
    gi, gh = rng.normal(size=(2, N, GATES[kind] * H))
    h, c = rng.normal(size=(2, N, H))
    ti, th = tensor(gi, backend=BACKEND), tensor(gh, backend=BACKEND)
    if kind == "RNN":
        got = R.rnn_step(ti, th).to_numpy()
        np.testing.assert_allclose(got, np.tanh(gi + gh), rtol=1e-12)
        relu = R.rnn_step(ti, th, "relu").to_numpy()
        np.testing.assert_allclose(relu, np.maximum(gi + gh, 0.0), rtol=1e-12)
    elif kind == "LSTM":
        hn, cn = R.lstm_step(ti, th, tensor(c, backend=BACKEND))
        pre = gi + gh
        i, f = _sigmoid(pre[:, :H]), _sigmoid(pre[:, H : 2 * H])
        g, o = np.tanh(pre[:, 2 * H : 3 * H]), _sigmoid(pre[:, 3 * H :])
        want_c = f * c + i * g
        np.testing.assert_allclose(cn.to_numpy(), want_c, rtol=1e-12)
        np.testing.assert_allclose(hn.to_numpy(), o * np.tanh(want_c), rtol=1e-12)
    else:
        got = R.gru_step(ti, th, tensor(h, backend=BACKEND)).to_numpy()
        r = _sigmoid(gi[:, :H] + gh[:, :H])
        z = _sigmoid(gi[:, H : 2 * H] + gh[:, H : 2 * H])
        n = np.tanh(gi[:, 2 * H :] + r * gh[:, 2 * H :])
        np.testing.assert_allclose(got, (1 - z) * n + z * h, rtol=1e-12)


# ------------------------------------------------------------------------------ cells
@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("bias", [True, False])
def test_cell_forward(kind: str, bias: bool) -> None:
    rng = np.random.default_rng(2)
    cell = getattr(R, kind + "Cell")(3, 4, bias=bias, backend=BACKEND)
    set_params(cell, rng)
    p = params_of(cell)
    x, h, c = rng.normal(size=(5, 3)), rng.normal(size=(5, 4)), rng.normal(size=(5, 4))
    tx, th, tc = (tensor(a, backend=BACKEND) for a in (x, h, c))
    w = (p["weight_ih"], p["weight_hh"], p.get("bias_ih"), p.get("bias_hh"))
    if kind == "LSTM":
        got_h, got_c = cell(tx, (th, tc))
        want_h, want_c = np_cell(kind, x, (h, c), *w)
        np.testing.assert_allclose(got_c.to_numpy(), want_c, rtol=1e-10)
    else:
        got_h, want_h = cell(tx, th), np_cell(kind, x, h, *w)
    np.testing.assert_allclose(got_h.to_numpy(), want_h, rtol=1e-10)


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_cell_default_state_and_unbatched_input(kind: str) -> None:
    rng = np.random.default_rng(3)
    cell = getattr(R, kind + "Cell")(3, 2, backend=BACKEND)
    x = rng.normal(size=(3,))
    out = cell(tensor(x, backend=BACKEND))
    h = out[0] if kind == "LSTM" else out
    assert h.shape == (2,)
    p = params_of(cell)
    zero = np.zeros(2)
    w = (p["weight_ih"], p["weight_hh"], p["bias_ih"], p["bias_hh"])
    want = np_cell(kind, x, (zero, zero) if kind == "LSTM" else zero, *w)
    want_h = want[0] if kind == "LSTM" else want
    np.testing.assert_allclose(h.to_numpy(), want_h, rtol=1e-10)


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_cell_gradients(kind: str) -> None:
    rng = np.random.default_rng(4)
    G = GATES[kind]
    arrays = [
        rng.normal(size=(2, 3)),  # x
        rng.normal(size=(2, 2)),  # h
        rng.normal(size=(2, 2)),  # c (used by the LSTM only)
        rng.uniform(-0.6, 0.6, (G * 2, 3)),
        rng.uniform(-0.6, 0.6, (G * 2, 2)),
        rng.uniform(-0.6, 0.6, (G * 2,)),
        rng.uniform(-0.6, 0.6, (G * 2,)),
    ]
    cell = getattr(R, kind + "Cell")(3, 2, backend=BACKEND)
    names = ["weight_ih", "weight_hh", "bias_ih", "bias_hh"]

    def f(x, h, c, *weights):
        for name, w in zip(names, weights):
            getattr(cell, name).update(w)
        if kind == "LSTM":
            h2, c2 = cell(x, (h, c))
            return h2 * 2.0 + c2
        return cell(x, h) + 0.0 * c.sum()

    check_grad(f, arrays)


# ----------------------------------------------------------------------------- layers
LAYER_CASES = [
    dict(num_layers=1),
    dict(num_layers=2),
    dict(num_layers=2, bidirectional=True),
    dict(num_layers=1, batch_first=True),
    dict(num_layers=1, bias=False),
]


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize(
    "cfg", LAYER_CASES, ids=lambda c: "-".join(map(str, c.items()))
)
def test_layer_forward_and_final_state(kind: str, cfg: dict) -> None:
    rng = np.random.default_rng(5)
    layer = getattr(R, kind)(3, 4, backend=BACKEND, **cfg)
    set_params(layer, rng)
    L, N = 5, 2
    x = rng.normal(size=(L, N, 3))
    D = 2 if cfg.get("bidirectional") else 1
    h0 = rng.normal(size=(cfg["num_layers"] * D, N, 4))
    c0 = rng.normal(size=(cfg["num_layers"] * D, N, 4))
    feed = x.transpose(1, 0, 2) if cfg.get("batch_first") else x
    th0, tc0 = tensor(h0, backend=BACKEND), tensor(c0, backend=BACKEND)
    out, state = layer(
        tensor(feed, backend=BACKEND), (th0, tc0) if kind == "LSTM" else th0
    )
    want_out, finals = np_layer(
        kind, x, params_of(layer), cfg["num_layers"], D == 2, h0, c0
    )
    if cfg.get("batch_first"):
        want_out = want_out.transpose(1, 0, 2)
    assert (
        out.shape
        == want_out.shape
        == ((N, L) if cfg.get("batch_first") else (L, N)) + (D * 4,)
    )
    np.testing.assert_allclose(out.to_numpy(), want_out, rtol=1e-10, atol=1e-12)
    got = list(state) if kind == "LSTM" else [state]
    for g, w in zip(got, finals):
        assert g.shape == (cfg["num_layers"] * D, N, 4)
        np.testing.assert_allclose(g.to_numpy(), w, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_layer_unbatched_input_and_default_state(kind: str) -> None:
    rng = np.random.default_rng(6)
    layer = getattr(R, kind)(2, 3, num_layers=2, backend=BACKEND)
    x = rng.normal(size=(4, 2))
    out, state = layer(tensor(x, backend=BACKEND))
    want_out, finals = np_layer(kind, x[:, None, :], params_of(layer), 2, False)
    assert out.shape == (4, 3)
    np.testing.assert_allclose(out.to_numpy(), want_out[:, 0], rtol=1e-10)
    h_n = state[0] if kind == "LSTM" else state
    assert h_n.shape == (2, 3)
    np.testing.assert_allclose(h_n.to_numpy(), finals[0][:, 0], rtol=1e-10)


def test_relu_rnn_layer() -> None:
    rng = np.random.default_rng(7)
    layer = R.RNN(2, 3, nonlinearity="relu", backend=BACKEND)
    x = rng.normal(size=(4, 2, 2))
    out, _ = layer(tensor(x, backend=BACKEND))
    want, _ = np_layer("RNN", x, params_of(layer), 1, False, nonlinearity="relu")
    np.testing.assert_allclose(out.to_numpy(), want, rtol=1e-10)


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_layer_gradients_through_time(kind: str) -> None:
    """Backpropagation through time: every entry of the input, the initial state
    and every weight, two layers, one of them reversed, against central differences."""
    rng = np.random.default_rng(8)
    layer = getattr(R, kind)(2, 2, num_layers=2, bidirectional=True, backend=BACKEND)
    names = [name for name, _ in layer.named_parameters()]
    weights = [
        rng.uniform(-0.7, 0.7, p.value.shape) for _, p in layer.named_parameters()
    ]
    arrays = [rng.normal(size=(3, 2, 2)), rng.normal(size=(4, 2, 2))] + weights

    def f(x, h0, *ws):
        for name, w in zip(names, ws):
            getattr(layer, name).update(w)
        if kind == "LSTM":
            out, (h_n, c_n) = layer(x, (h0, h0 * 0.5))
            return cat([out.flatten(), h_n.flatten(), c_n.flatten()])
        out, h_n = layer(x, h0)
        return cat([out.flatten(), h_n.flatten()])

    def reference(x, h0, *ws):
        c0 = h0 * 0.5 if kind == "LSTM" else None
        out, finals = np_layer(kind, x, dict(zip(names, ws)), 2, True, h0, c0)
        return np.concatenate([a.ravel() for a in [out, *finals]])

    # The ~500 central differences run on the NumPy equations (f is asserted equal
    # to them): the pure-Python backend took seconds per layer kind for them.
    check_grad(f, arrays, reference=reference)


# ------------------------------------------------------- PyTorch's names and init
@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_parameter_names_shapes_and_initialisation(kind: str) -> None:
    layer = getattr(R, kind)(5, 6, num_layers=2, bidirectional=True, backend=BACKEND)
    G = GATES[kind]
    want = []
    for layer_index in range(2):
        for sfx in ("", "_reverse"):
            width = 5 if layer_index == 0 else 12
            s = f"_l{layer_index}{sfx}"
            want += [
                ("weight_ih" + s, (G * 6, width)),
                ("weight_hh" + s, (G * 6, 6)),
                ("bias_ih" + s, (G * 6,)),
                ("bias_hh" + s, (G * 6,)),
            ]
    got = [(name, p.value.shape) for name, p in layer.named_parameters()]
    assert got == want
    bound = 1.0 / math.sqrt(6)
    values = np.concatenate([p.value.to_numpy().ravel() for p in layer.parameters()])
    assert np.all(np.abs(values) <= bound)
    # U(-k, k) has standard deviation k / sqrt(3): far from a constant fill.
    assert abs(values.std() - bound / math.sqrt(3)) < 0.2 * bound
    cell = getattr(R, kind + "Cell")(5, 6, backend=BACKEND)
    assert [n for n, _ in cell.named_parameters()] == [
        "weight_ih",
        "weight_hh",
        "bias_ih",
        "bias_hh",
    ]


def test_shape_errors_name_the_shapes() -> None:
    layer = R.LSTM(3, 4, backend=BACKEND)
    with pytest.raises(ValueError, match=r"3 features.*\(5, 2, 7\)"):
        layer(tensor(np.zeros((5, 2, 7)), backend=BACKEND))
    h0 = tensor(np.zeros((2, 2, 4)), backend=BACKEND)
    with pytest.raises(ValueError, match=r"\(1, 2, 4\).*\(2, 2, 4\)"):
        layer(tensor(np.zeros((5, 2, 3)), backend=BACKEND), (h0, h0))
    with pytest.raises(ValueError, match="nonlinearity"):
        R.RNN(3, 4, nonlinearity="sigmoid", backend=BACKEND)


def test_dropout_between_layers_only_in_training() -> None:
    rng = np.random.default_rng(9)
    layer = R.GRU(2, 3, num_layers=2, dropout=0.5, backend=BACKEND)
    x = tensor(rng.normal(size=(4, 2, 2)), backend=BACKEND)
    layer.eval()
    out_eval, _ = layer(x)
    want, _ = np_layer("GRU", x.to_numpy(), params_of(layer), 2, False)
    np.testing.assert_allclose(out_eval.to_numpy(), want, rtol=1e-10)
    layer.train()
    outs = {tuple(np.round(layer(x)[0].to_numpy().ravel(), 12)) for _ in range(4)}
    assert len(outs) > 1, "dropout between layers should make training runs differ"


# ------------------------------------------------------------------- gradient clipping
def test_clip_grad_norm_scales_all_gradients_together() -> None:
    rng = np.random.default_rng(10)
    a, b = rng.normal(size=(3, 2)), rng.normal(size=(4,))
    ta = tensor(a, backend=BACKEND, requires_grad=True)
    tb = tensor(b, backend=BACKEND, requires_grad=True)
    ((ta * ta).sum() + (tb * 3.0).sum()).backward()
    ga, gb = 2 * a, np.full(4, 3.0)
    total = math.sqrt((ga**2).sum() + (gb**2).sum())
    norm = nn_utils.clip_grad_norm_([ta, tb], max_norm=1.0)
    assert norm.item() == pytest.approx(total)
    scale = 1.0 / (total + 1e-6)
    np.testing.assert_allclose(ta.grad.to_numpy(), ga * scale, rtol=1e-12)
    np.testing.assert_allclose(tb.grad.to_numpy(), gb * scale, rtol=1e-12)
    # Below the limit nothing changes; the infinity norm is the largest entry.
    before = ta.grad.to_numpy().copy()
    assert nn_utils.clip_grad_norm_(ta, 10.0).item() == pytest.approx(
        np.linalg.norm(before)
    )
    np.testing.assert_array_equal(ta.grad.to_numpy(), before)
    assert nn_utils.clip_grad_norm_(
        ta, 10.0, norm_type=math.inf
    ).item() == pytest.approx(np.abs(before).max())


def test_clip_grad_value() -> None:
    t = tensor(np.array([1.0, -2.0, 3.0]), backend=BACKEND, requires_grad=True)
    (t * tensor([0.5, -4.0, 2.0], backend=BACKEND)).sum().backward()
    nn_utils.clip_grad_value_([t], 1.0)
    np.testing.assert_array_equal(t.grad.to_numpy(), [0.5, -1.0, 1.0])


# ------------------------------------------------------------------ vanishing gradients
def test_lstm_keeps_gradients_alive_longer_than_rnn() -> None:
    """The README's vanishing-gradient plot, as a check: the gradient of the last
    output with respect to the first input decays far faster through a tanh RNN than
    through an LSTM with an open forget gate."""
    rng = np.random.default_rng(11)
    L = 12
    x = rng.normal(size=(L, 1, 2))
    norms = {}
    for kind in ("RNN", "LSTM"):
        layer = getattr(R, kind)(2, 4, backend=BACKEND)
        set_params(layer, rng, scale=0.3)
        if kind == "LSTM":  # forget-gate bias +3: the cell state is carried along
            b = layer.bias_ih_l0.value.to_numpy().copy()
            b[4:8] = 3.0
            layer.bias_ih_l0.update(tensor(b, backend=BACKEND))
        tx = tensor(x, backend=BACKEND, requires_grad=True)
        out, _ = layer(tx)
        out[L - 1].sum().backward()
        g = np.linalg.norm(tx.grad.to_numpy().reshape(L, -1), axis=1)
        norms[kind] = g
        assert g[0] < g[L - 1], f"{kind}: gradient should shrink going back in time"
    assert norms["LSTM"][0] / norms["LSTM"][L - 1] > 10 * (
        norms["RNN"][0] / norms["RNN"][L - 1]
    )


def test_lstm_runs_on_the_cuda_backend() -> None:
    """The layer is built from tensor operations only, so it runs on CudaBackend
    (the simulator here) and gives the same outputs and gradients."""
    import module3_fast_ops

    rng = np.random.default_rng(12)
    x = rng.normal(size=(3, 2, 2))
    results = []
    for backend in (BACKEND, module3_fast_ops.CudaBackend):
        layer = R.LSTM(2, 3, backend=backend)
        set_params_on(layer, np.random.default_rng(13), backend)
        tx = tensor(x, backend=backend, requires_grad=True)
        out, (h_n, _) = layer(tx)
        (out.sum() + h_n.sum()).backward()
        results.append((out.to_numpy(), tx.grad.to_numpy()))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-12)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-12)


def set_params_on(module, rng: np.random.Generator, backend) -> None:
    for _, p in module.named_parameters():
        p.update(tensor(rng.uniform(-0.5, 0.5, p.value.shape), backend=backend))
