"""A whole recurrent layer-direction as one autograd Function: the fast path of
``_RNNLayers._run``.

Interface: :func:`unroll` (called by ``_recurrent_base._RNNLayers._run`` in place
of ``layers._unroll``; it runs ``layers._unroll`` itself wherever the fast path
does not apply).

The students' loop through time (Task 4.7, ``recurrent._RNNBase._unroll``) builds
the graph step by step: an LSTM step is about 50 tensor operations (the product
$h W_{hh}^\\top$, ``chunk``, four activations, five elementwise products and sums,
and the same again backward), each a Python call into the backend on a small
``(N, 4H)`` array. On the SST-2 BiLSTM of ``kindling bench`` (batch 128, 20
steps, two directions) that was 10k ``Function.apply`` calls per 5 steps and most
of the 117 ms training step (issue 29, ``module3_fast_ops/BENCHMARKS.md``).

Here one Function covers one direction of one layer over the whole sequence
(``L`` steps, batch ``N``, input ``I``, hidden ``H``, ``G`` gate blocks):

* forward: $G^i = X W_{ih}^\\top + b_{ih}$ for all steps in one BLAS product
  ``(L N, I) x (I, G H)``; then per step one product $h W_{hh}^\\top$ ``(N, H) x
  (H, G H)`` and the gate equations in NumPy, keeping the activations;
* backward (backpropagation through time): walking the steps in reverse, the
  gradient of each step's gate pre-activations $dA_t$ from the saved activations,
  and $dh_{t-1} = dA^h_t W_{hh}$; then the weight gradients as single BLAS
  products over all steps, $dW_{ih} = dA^{i\\top} X$, $dW_{hh} = dA^{h\\top}
  H_{prev}$, $dX = dA^i W_{ih}$, and the biases as column sums.

(For the LSTM and the RNN $dA^i = dA^h$; for the GRU they differ in the ``n``
block, where $r$ multiplies $g^h_n$.)

The Function's result packs the outputs ``(L, N, H)`` and, for the LSTM, the final
cell state as one more row: ``(L + 1, N, H)``; :func:`unroll` hands out views of
it, so gradients of the outputs and of the final state meet in one backward call.

The students' code stays the definition. For each new signature (layer class and
cell, input shape and layout, hidden size, bias, direction, which inputs need a
gradient, backend) the first
call runs ``layers._unroll`` on detached copies of every input, backpropagates a
fixed pseudo-random gradient of the outputs and of the final state, and runs this
path beside it; the fast path serves that signature only when the outputs, the
final state and every gradient (input, initial state, weights, biases) agree
(rtol 1e-9). A wrong ``_step`` therefore keeps running (and showing), and a stub
still raises.

Measured (one thread): the SST-2 BiLSTM training step of ``kindling bench``, 117
ms by the students' loop, 53 ms with this path (10 steps each, load average 1-2.3);
beside PyTorch in one process, 45.5 ms against its 46.3 ms (0.98x; 2.83x on main
before, ``module3_fast_ops/BENCHMARKS.md``, issue 29, part 3).
"""

from __future__ import annotations

from functools import partial
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .engine import agrees, fast_path, host_float64, ran_backward

from module2_tensors.engine.autograd import Context
from module2_tensors.engine.autograd import Function
from module2_tensors.engine.grad_modes import enable_grad, is_grad_enabled
from module2_tensors.tensor import Tensor

__all__ = ["unroll"]

#: Per signature: does the fast path agree with the students' ``_unroll`` there?
PATH = fast_path("recurrent", "the recurrent layer's _unroll (Task 4.7)")

Weights = Tuple[Tensor, Tensor, Optional[Tensor], Optional[Tensor]]
Arrays = Tuple[np.ndarray, np.ndarray, Optional[np.ndarray], Optional[np.ndarray]]


def _sigmoid(a: np.ndarray) -> np.ndarray:
    """$\\sigma(a) = (1 + \\tanh(a/2)) / 2$: no overflow for large $|a|$."""
    return 0.5 + 0.5 * np.tanh(0.5 * a)


# ------------------------------------------------------------- NumPy forward/backward
def _forward(
    kind: str,
    x: np.ndarray,
    h0: np.ndarray,
    c0: Optional[np.ndarray],
    weights: Arrays,
    reverse: bool,
) -> Tuple[np.ndarray, Optional[np.ndarray], Dict[str, Any]]:
    """``(outputs (L, N, H), final cell state or None, saved)`` for ``kind`` in
    ``lstm``, ``gru``, ``rnn_tanh``, ``rnn_relu``; ``saved`` is what
    :func:`_backward` needs."""
    w_ih, w_hh, b_ih, b_hh = weights
    steps, batch = x.shape[0], x.shape[1]
    hidden = w_hh.shape[1]
    gi = (x.reshape(steps * batch, -1) @ w_ih.T).reshape(steps, batch, -1)
    if b_ih is not None:
        gi += b_ih
    gru = kind == "gru"
    if b_hh is not None and not gru:
        gi += b_hh  # the GRU's b_hh sits inside r * (h W_hh^T + b_hh)
    order = range(steps - 1, -1, -1) if reverse else range(steps)
    out = np.empty((steps, batch, hidden))
    h_prev = np.empty((steps, batch, hidden))
    saved: Dict[str, Any] = {"h_prev": h_prev}
    h = h0
    if kind == "lstm":
        act = np.empty_like(gi)  # i, f, g, o after their nonlinearities
        c_prev = np.empty((steps, batch, hidden))
        tanh_c = np.empty((steps, batch, hidden))
        c = c0
        for t in order:
            h_prev[t], c_prev[t] = h, c
            a = gi[t] + h @ w_hh.T
            s = _sigmoid(a)
            s[:, 2 * hidden : 3 * hidden] = np.tanh(a[:, 2 * hidden : 3 * hidden])
            act[t] = s
            i, f, g, o = np.split(s, 4, axis=1)
            c = f * c + i * g
            tanh_c[t] = np.tanh(c)
            h = o * tanh_c[t]
            out[t] = h
        saved.update(act=act, c_prev=c_prev, tanh_c=tanh_c)
        return out, c, saved
    if gru:
        r_z = np.empty((steps, batch, 2 * hidden))
        n_all = np.empty((steps, batch, hidden))
        gh_n = np.empty((steps, batch, hidden))
        for t in order:
            h_prev[t] = h
            gh = h @ w_hh.T
            if b_hh is not None:
                gh += b_hh
            rz = _sigmoid(gi[t, :, : 2 * hidden] + gh[:, : 2 * hidden])
            r, z = rz[:, :hidden], rz[:, hidden:]
            n = np.tanh(gi[t, :, 2 * hidden :] + r * gh[:, 2 * hidden :])
            h = (1.0 - z) * n + z * h
            r_z[t], n_all[t], gh_n[t] = rz, n, gh[:, 2 * hidden :]
            out[t] = h
        saved.update(r_z=r_z, n=n_all, gh_n=gh_n)
        return out, None, saved
    relu = kind == "rnn_relu"
    for t in order:
        h_prev[t] = h
        a = gi[t] + h @ w_hh.T
        h = np.maximum(a, 0.0) if relu else np.tanh(a)
        out[t] = h
    return out, None, saved


def _backward(
    kind: str,
    x: np.ndarray,
    weights: Arrays,
    reverse: bool,
    out: np.ndarray,
    saved: Dict[str, Any],
    d_out: np.ndarray,
    d_h: np.ndarray,
    d_c: Optional[np.ndarray] = None,
) -> List[Optional[np.ndarray]]:
    """Backpropagation through time: ``[dx, dh0, dc0, dW_ih, dW_hh, db_ih,
    db_hh]`` from the gradients of the outputs ``d_out`` ``(L, N, H)``, of the
    final hidden state ``d_h`` and (LSTM) of the final cell state ``d_c``."""
    w_ih, w_hh, b_ih, b_hh = weights
    steps, batch = x.shape[0], x.shape[1]
    hidden = w_hh.shape[1]
    rows = w_hh.shape[0]
    order = range(steps) if reverse else range(steps - 1, -1, -1)  # backwards
    d_gi = np.empty((steps, batch, rows))  # gradient of the gate pre-activations
    d_gh = d_gi  # the same array, except for the GRU
    dh = d_h.copy()
    dc = None
    if kind == "lstm":
        act, c_prev, tanh_c = saved["act"], saved["c_prev"], saved["tanh_c"]
        dc = d_c.copy()
        for t in order:
            dh += d_out[t]
            tc = tanh_c[t]
            i, f, g, o = np.split(act[t], 4, axis=1)
            dc += dh * o * (1.0 - tc * tc)
            da = d_gi[t]
            da[:, :hidden] = dc * g * i * (1.0 - i)
            da[:, hidden : 2 * hidden] = dc * c_prev[t] * f * (1.0 - f)
            da[:, 2 * hidden : 3 * hidden] = dc * i * (1.0 - g * g)
            da[:, 3 * hidden :] = dh * tc * o * (1.0 - o)
            dc = dc * f
            dh = da @ w_hh
    elif kind == "gru":
        r_z, n_all, gh_n = saved["r_z"], saved["n"], saved["gh_n"]
        h_prev = saved["h_prev"]
        d_gh = np.empty_like(d_gi)
        for t in order:
            dh += d_out[t]
            r, z, n = r_z[t, :, :hidden], r_z[t, :, hidden:], n_all[t]
            dn = dh * (1.0 - z) * (1.0 - n * n)
            da, dah = d_gi[t], d_gh[t]
            da[:, :hidden] = dn * gh_n[t] * r * (1.0 - r)
            da[:, hidden : 2 * hidden] = dh * (h_prev[t] - n) * z * (1.0 - z)
            da[:, 2 * hidden :] = dn
            dah[:, : 2 * hidden] = da[:, : 2 * hidden]
            dah[:, 2 * hidden :] = dn * r
            dh = dh * z + dah @ w_hh
    else:
        relu = kind == "rnn_relu"
        for t in order:
            dh += d_out[t]
            h = out[t]
            da = d_gi[t]
            if relu:
                np.multiply(dh, h > 0.0, out=da)
            else:
                np.multiply(dh, 1.0 - h * h, out=da)
            dh = da @ w_hh
    flat_i = d_gi.reshape(steps * batch, rows)
    flat_h = flat_i if d_gh is d_gi else d_gh.reshape(steps * batch, rows)
    x_flat = x.reshape(steps * batch, -1)
    dx = (flat_i @ w_ih).reshape(x.shape)
    dw_ih = flat_i.T @ x_flat
    dw_hh = flat_h.T @ saved["h_prev"].reshape(steps * batch, hidden)
    db_ih = flat_i.sum(axis=0) if b_ih is not None else None
    db_hh = flat_h.sum(axis=0) if b_hh is not None else None
    return [dx, dh, dc, dw_ih, dw_hh, db_ih, db_hh]


# ----------------------------------------------------------------------- the Function
def _array(t: Optional[Tensor]) -> Optional[np.ndarray]:
    return None if t is None else t.to_numpy()


class _LayerFun(Function):
    """``apply(x, h0, c0, w_ih, w_hh, b_ih, b_hh, kind, reverse)`` -> the outputs
    ``(L, N, H)``, with the final cell state as row ``L`` for the LSTM (``c0`` is
    ``None`` for the other cells, and so are absent biases)."""

    @staticmethod
    def forward(
        ctx: Context,
        x: Tensor,
        h0: Tensor,
        c0: Optional[Tensor],
        w_ih: Tensor,
        w_hh: Tensor,
        b_ih: Optional[Tensor],
        b_hh: Optional[Tensor],
        kind: str,
        reverse: bool,
    ) -> Tensor:
        xs = x.to_numpy()
        weights = tuple(_array(t) for t in (w_ih, w_hh, b_ih, b_hh))
        out, c_n, saved = _forward(
            kind, xs, h0.to_numpy(), _array(c0), weights, reverse  # type: ignore
        )
        ctx.save_for_backward(kind, reverse, xs, weights, out, saved)
        packed = out if c_n is None else np.concatenate([out, c_n[None]], axis=0)
        return x.new_tensor(packed)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tuple[Optional[Tensor], ...]:
        kind, reverse, xs, weights, out, saved = ctx.saved_values
        g = grad.to_numpy()
        steps = xs.shape[0]
        d_out = g[:steps]
        d_h = np.zeros_like(d_out[0])  # h_n is a view of the outputs
        d_c = g[steps] if kind == "lstm" else None
        grads = _backward(kind, xs, weights, reverse, out, saved, d_out, d_h, d_c)
        grads += [None, None]  # (kind, reverse)
        return tuple(None if a is None else grad.new_tensor(a) for a in grads)


# --------------------------------------------------------------------------- the hook
def _kind(layers: Any) -> Optional[str]:
    gates = getattr(type(layers), "gates", 1)
    if gates == 1:
        return "rnn_" + getattr(layers, "nonlinearity", "tanh")
    return {4: "lstm", 3: "gru"}.get(gates)


def _run_fast(
    kind: str, x: Tensor, parts: Sequence[Tensor], weights: Weights, reverse: bool
) -> Tuple[Tensor, Any]:
    """The outputs and the final state (``h`` or ``(h, c)``) through
    :class:`_LayerFun`, as views of its packed result."""
    steps = x.shape[0]
    c0 = parts[1] if kind == "lstm" else None
    packed = _LayerFun.apply(x, parts[0], c0, *weights, kind, reverse)
    out = packed[:steps] if kind == "lstm" else packed
    h_n = out[0] if reverse else out[steps - 1]
    if kind == "lstm":
        return out, (h_n, packed[steps])
    return out, h_n


def _check(
    layers: Any,
    kind: str,
    x: Tensor,
    parts: Sequence[Tensor],
    weights: Weights,
    reverse: bool,
    needs: Sequence[bool],
) -> bool:
    """Run the students' ``_unroll`` forward and backward on detached copies
    (needing gradients where the inputs do: a backward may branch on
    ``needs_input_grad``), and
    this path on the same numbers; whether outputs, final state and every
    gradient agree."""
    probes = [
        None if t is None else t.detach().requires_grad_(need)
        for t, need in zip((x, *parts, *weights), needs)
    ]
    px, pw = probes[0], probes[1 + len(parts) :]
    pstate = probes[1] if len(parts) == 1 else tuple(probes[1 : 1 + len(parts)])
    # A generator of its own: the check must not move the seeded stream.
    rng = np.random.default_rng(0)
    with enable_grad():  # (inside no_grad() nothing needs a gradient)
        out, final = layers._unroll(px, pstate, tuple(pw), reverse)
        finals = list(final) if isinstance(final, tuple) else [final]
        if len(finals) != len(parts) or not all(
            isinstance(f, Tensor) for f in [out, *finals]
        ):
            return False
        g_out = rng.standard_normal(out.shape)
        g_finals = [rng.standard_normal(f.shape) for f in finals]
        loss = (out * out.new_tensor(g_out)).sum()
        for f, g in zip(finals, g_finals):
            loss = loss + (f * f.new_tensor(g)).sum()
        if any(needs) and not ran_backward(loss, None):
            return False
    arrays = [_array(t) for t in (x, *parts, *weights)]
    xs, h0 = arrays[0], arrays[1]
    c0 = arrays[2] if kind == "lstm" else None
    w: Arrays = tuple(arrays[1 + len(parts) :])  # type: ignore[assignment]
    fast_out, c_n, saved = _forward(kind, xs, h0, c0, w, reverse)  # type: ignore
    last = 0 if reverse else xs.shape[0] - 1
    want = [out.to_numpy()] + [f.to_numpy() for f in finals]
    got = [fast_out, fast_out[last]] + ([c_n] if kind == "lstm" else [])
    if not all(agrees(a, b) for a, b in zip(got, want)):
        return False
    grads = _backward(kind, xs, w, reverse, fast_out, saved, g_out, *g_finals)
    mine = grads[:2] + (grads[2:3] if kind == "lstm" else []) + grads[3:]
    for probe, g, need in zip(probes, mine, needs):
        if probe is None or not need:
            continue
        want_grad = None if probe.grad is None else probe.grad.to_numpy()
        if g is None or not agrees(g, want_grad):  # (None: zeros)
            return False
    return True


def unroll(
    layers: Any, x: Tensor, state: Any, weights: Weights, reverse: bool
) -> Tuple[Tensor, Any]:
    """``layers._unroll(x, state, weights, reverse)``, computed as one Function
    where that agreed with ``layers._unroll`` on this signature (see the module
    docstring); the students' ``_unroll`` itself everywhere else (a CUDA or
    float32 tensor, an unknown cell, an empty sequence, a signature where they
    differed)."""
    kind = _kind(layers)
    parts = list(state) if isinstance(state, tuple) else [state]
    tensors = [x, *parts, *weights]
    if (
        kind is None
        or not PATH.active
        or len(parts) != (2 if kind == "lstm" else 1)
        or x.dims != 3
        or x.shape[0] == 0
        or not all(t is None or host_float64(t) for t in tensors)
    ):
        return layers._unroll(x, state, weights, reverse)
    # Which inputs need a gradient (none without recording: then the check
    # compares the forward alone, as only the forward will be used).
    grad = is_grad_enabled()
    needs = tuple(grad and t is not None and t.requires_grad for t in tensors)
    key = (
        type(layers),
        kind,
        tuple(x.shape),
        tuple(int(s) for s in x.tuple()[2]),
        tuple(None if t is None else tuple(t.shape) for t in tensors[1:]),
        bool(reverse),
        type(x.backend),
        needs,
    )
    check = partial(_check, layers, kind, x, parts, weights, reverse, needs)
    if not PATH.verdict(key, check):
        return layers._unroll(x, state, weights, reverse)
    return _run_fast(kind, x, parts, weights, reverse)
