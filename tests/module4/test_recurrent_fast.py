"""Task 4.7: the whole-sequence LSTM Function of the layers
(``module4_networks/_recurrent_fast.py``, issue 29).

The fast path must give the values and gradients of the students' loop through
time (``_unroll`` and ``_step``, run alone as the reference) for every option,
and its backpropagation through time must match central differences of its own
forward. It must be taken only where it agreed with the students' code, so a
wrong ``_step`` or a wrong backward still shows and a stub still raises. The GRU
and the plain RNN never take it.
"""

from __future__ import annotations

from typing import Dict, List, Tuple

import numpy as np
import pytest

from module2_tensors import manual_seed, no_grad, rand, tensor
from module2_tensors import tensor_functions as tf
from module4_networks import _recurrent_fast
from module4_networks import recurrent as R

pytestmark = pytest.mark.task4_7

OPTIONS = [
    dict(num_layers=1, bias=True, bidirectional=False, batch_first=False),
    dict(num_layers=1, bias=False, bidirectional=True, batch_first=True),
    dict(num_layers=2, bias=True, bidirectional=True, batch_first=False),
    dict(num_layers=2, bias=False, bidirectional=False, batch_first=True),
]
IN, HIDDEN, STEPS, BATCH = 3, 4, 5, 2


@pytest.fixture
def mp(monkeypatch):
    """``monkeypatch``, shorter."""
    return monkeypatch


def _reference_unroll(layers, x, state, weights, reverse):
    return layers._unroll(x, state, weights, reverse)


def _run(kind: str, extra: dict, options: dict, given_state: bool, seed: int = 0):
    """Outputs, final states and every gradient (input, initial states,
    parameters) of one layer stack, as NumPy arrays keyed by name."""
    manual_seed(seed)
    layer = getattr(R, kind)(IN, HIDDEN, **options, **extra)
    rng = np.random.default_rng(seed + 1)
    shape = (BATCH, STEPS, IN) if options["batch_first"] else (STEPS, BATCH, IN)
    x = tensor(rng.normal(size=shape), requires_grad=True)
    directions = 2 if options["bidirectional"] else 1
    state_shape = (options["num_layers"] * directions, BATCH, HIDDEN)
    states: List = []
    if given_state:
        parts = 2 if kind == "LSTM" else 1
        states = [
            tensor(rng.normal(size=state_shape), requires_grad=True)
            for _ in range(parts)
        ]
        hx = tuple(states) if kind == "LSTM" else states[0]
        out, final = layer(x, hx)
    else:
        out, final = layer(x)
    finals = list(final) if isinstance(final, tuple) else [final]
    g = np.random.default_rng(seed + 2)
    loss = (out * tensor(g.normal(size=out.shape))).sum()
    for f in finals:
        loss = loss + (f * tensor(g.normal(size=f.shape))).sum()
    loss.backward()
    got: Dict[str, np.ndarray] = {"out": out.to_numpy(), "x.grad": x.grad.to_numpy()}
    for k, f in enumerate(finals):
        got[f"final{k}"] = f.to_numpy()
    for k, s in enumerate(states):
        got[f"state{k}.grad"] = s.grad.to_numpy()
    for name, p in layer.named_parameters():
        got[name + ".grad"] = p.grad.to_numpy()
    return got


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize("given_state", [False, True])
def test_fast_path_equals_the_students_loop(options, given_state, mp):
    _recurrent_fast.PATH.reset()
    mp.setattr(_recurrent_fast, "unroll", _reference_unroll)
    want = _run("LSTM", {}, options, given_state)
    mp.undo()
    _recurrent_fast.PATH.reset()
    for _ in range(2):  # first call: checked, then fast; second: fast directly
        got = _run("LSTM", {}, options, given_state)
        assert got.keys() == want.keys()
        for name in want:
            np.testing.assert_allclose(
                got[name], want[name], rtol=1e-9, atol=1e-12, err_msg=name
            )
    directions = 2 if options["bidirectional"] else 1
    layers_run = options["num_layers"] * directions
    assert list(_recurrent_fast.PATH.outcomes) == [True] * layers_run
    assert _recurrent_fast.PATH.served == 2 * layers_run  # the fast path ran
    assert _recurrent_fast.PATH.declined == 0


@pytest.mark.parametrize(
    "kind, extra", [("GRU", {}), ("RNN", {"nonlinearity": "relu"})]
)
def test_other_cells_run_the_students_loop(kind, extra):
    """No benchmark needs a GRU or RNN path: their own loop runs, unchecked."""
    _recurrent_fast.PATH.reset()
    _run(kind, extra, OPTIONS[2], given_state=True)
    assert _recurrent_fast.PATH.signatures == 0
    assert _recurrent_fast.PATH.served == _recurrent_fast.PATH.declined == 0


# ------------------------------------------- backpropagation through time, by itself
def _numeric_grads(arrays, reverse, g_out, g_h, g_c, eps=1e-6):
    """Central differences of $L = \\sum g_{out} \\cdot out + g_h \\cdot h_n +
    g_c \\cdot c_n$ computed with the fast forward alone."""

    def loss(values):
        x, h0, c0, w_ih, w_hh, b_ih, b_hh = values
        out, c_n, _ = _recurrent_fast._forward(
            x, h0, c0, (w_ih, w_hh, b_ih, b_hh), reverse
        )
        h_n = out[0] if reverse else out[-1]
        return np.sum(g_out * out) + np.sum(g_h * h_n) + np.sum(g_c * c_n)

    grads = []
    for k, a in enumerate(arrays):
        if a is None:
            grads.append(None)
            continue
        d = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            values = [None if v is None else v.copy() for v in arrays]
            values[k][idx] += eps
            up = loss(values)
            values[k][idx] -= 2 * eps
            d[idx] = (up - loss(values)) / (2 * eps)
        grads.append(d)
    return grads


@pytest.mark.parametrize("reverse", [False, True])
def test_backpropagation_through_time_matches_central_differences(reverse):
    rng = np.random.default_rng(5)
    steps, batch, n_in, hidden = 3, 2, 3, 2
    arrays = [
        rng.normal(size=(steps, batch, n_in)),
        rng.normal(size=(batch, hidden)),
        rng.normal(size=(batch, hidden)),
        rng.normal(size=(4 * hidden, n_in)),
        rng.normal(size=(4 * hidden, hidden)),
        rng.normal(size=4 * hidden),
        rng.normal(size=4 * hidden),
    ]
    g_out = rng.normal(size=(steps, batch, hidden))
    g_h = rng.normal(size=(batch, hidden))
    g_c = rng.normal(size=(batch, hidden))
    x, h0, c0, *w = arrays
    _, _, saved = _recurrent_fast._forward(x, h0, c0, tuple(w), reverse)
    got = _recurrent_fast._backward(x, tuple(w), reverse, saved, g_out, g_h, g_c)
    want = _numeric_grads(arrays, reverse, g_out, g_h, g_c)
    for name, a, b in zip(["x", "h0", "c0", "w_ih", "w_hh", "b_ih", "b_hh"], got, want):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8, err_msg=name)


# ------------------------------------------------------ the students' code decides
def _lstm_output(seed: int = 3):
    manual_seed(seed)
    layer = R.LSTM(IN, HIDDEN)
    x = np.random.default_rng(seed).normal(size=(STEPS, BATCH, IN))
    out, _ = layer(tensor(x))
    return out.to_numpy()


def test_a_wrong_step_is_kept(mp):
    """A students' ``lstm_step`` that disagrees keeps running (its bug shows)."""

    def wrong(gi, gh, c):  # the forget gate forgotten: c' = c + i * g
        i, f, g, o = (gi + gh).chunk(4, dim=-1)
        c_next = c + i.sigmoid() * g.tanh()
        return o.sigmoid() * c_next.tanh(), c_next

    _recurrent_fast.PATH.reset()
    right = _lstm_output()
    fast_unroll = _recurrent_fast.unroll
    mp.setattr(R, "lstm_step", wrong)
    mp.setattr(_recurrent_fast, "unroll", _reference_unroll)
    want = _lstm_output()  # the wrong step's own loop
    mp.setattr(_recurrent_fast, "unroll", fast_unroll)
    _recurrent_fast.PATH.reset()
    for _ in range(2):
        np.testing.assert_array_equal(_lstm_output(), want)
    assert list(_recurrent_fast.PATH.outcomes) == [False]
    assert not np.allclose(want, right)


def test_a_wrong_backward_is_kept(mp):
    """Right values, wrong gradients (a sigmoid backward doubled): kept too."""
    _recurrent_fast.PATH.reset()
    right = tf.Sigmoid.backward

    def doubled(ctx, grad):
        return right(ctx, grad) * 2.0

    mp.setattr(tf.Sigmoid, "backward", staticmethod(doubled))
    manual_seed(4)
    layer = R.LSTM(IN, HIDDEN)
    x = tensor(np.random.default_rng(4).normal(size=(STEPS, BATCH, IN)))
    out, _ = layer(x)
    assert list(_recurrent_fast.PATH.outcomes) == [False]
    out.sum().backward()
    got = layer.weight_ih_l0.grad.to_numpy()
    mp.undo()
    _recurrent_fast.PATH.reset()
    manual_seed(4)
    layer = R.LSTM(IN, HIDDEN)
    out, _ = layer(x)
    out.sum().backward()
    assert not np.allclose(got, layer.weight_ih_l0.grad.to_numpy())


def test_a_stub_still_raises(mp):
    _recurrent_fast.PATH.reset()

    def stub(self, x, state, weights, reverse=False):
        raise NotImplementedError("Task 4.7: _unroll")

    mp.setattr(R._RNNBase, "_unroll", stub)
    with pytest.raises(NotImplementedError, match="Task 4.7"):
        R.LSTM(IN, HIDDEN)(tensor(np.zeros((STEPS, BATCH, IN))))
    assert _recurrent_fast.PATH.signatures == 0


def test_a_stubbed_backward_leaves_the_forward_working(mp):
    """Forward-only use works as before when a backward is still a stub; the
    backward raises where the students' path raised it."""
    _recurrent_fast.PATH.reset()

    def stub(ctx, grad):
        raise NotImplementedError("Task 2.4: Tanh.backward")

    mp.setattr(tf.Tanh, "backward", staticmethod(stub))
    manual_seed(6)
    layer = R.LSTM(IN, HIDDEN)
    x = np.random.default_rng(6).normal(size=(STEPS, BATCH, IN))
    out, _ = layer(tensor(x))
    assert list(_recurrent_fast.PATH.outcomes) == [False]
    with pytest.raises(NotImplementedError, match="Task 2.4"):
        out.sum().backward()


def test_the_check_leaves_the_seeded_random_stream_alone(mp):
    _recurrent_fast.PATH.reset()
    manual_seed(11)
    expected = rand(5).to_numpy()
    layer = R.LSTM(IN, HIDDEN)
    manual_seed(11)
    layer(tensor(np.ones((STEPS, BATCH, IN))))  # a check
    assert _recurrent_fast.PATH.signatures == 1
    np.testing.assert_array_equal(rand(5).to_numpy(), expected)


def test_a_first_call_inside_no_grad_is_checked_and_records_nothing(mp):
    _recurrent_fast.PATH.reset()
    layer = R.LSTM(IN, HIDDEN)
    x = tensor(np.ones((STEPS, BATCH, IN)), requires_grad=True)
    with no_grad():
        out, (h, c) = layer(x)
    assert not out.requires_grad and not c.requires_grad
    assert x.grad is None and layer.weight_hh_l0.grad is None
    assert list(_recurrent_fast.PATH.outcomes) == [True]


def _shapes(result: Tuple) -> List:
    out, final = result
    return [out.shape] + [
        f.shape for f in (final if isinstance(final, tuple) else [final])
    ]


def test_unbatched_input_takes_the_fast_path_with_the_right_shapes(mp):
    _recurrent_fast.PATH.reset()
    layer = R.LSTM(IN, HIDDEN, num_layers=2)
    result = layer(tensor(np.ones((STEPS, IN))))
    assert _shapes(result) == [(STEPS, HIDDEN), (2, HIDDEN), (2, HIDDEN)]
    assert list(_recurrent_fast.PATH.outcomes) == [True, True]
