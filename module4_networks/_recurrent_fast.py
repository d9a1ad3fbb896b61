"""A whole LSTM layer-direction as one autograd Function: the fast path of
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

Here one Function covers one direction of one LSTM layer over the whole
sequence (``L`` steps, batch ``N``, input ``I``, hidden ``H``):

* forward: $G^i = X W_{ih}^\\top + b_{ih} + b_{hh}$ for all steps in one BLAS
  product ``(L N, I) x (I, 4 H)``; then per step one product $h W_{hh}^\\top$
  ``(N, H) x (H, 4 H)`` and the gate equations in NumPy, keeping the activations;
* backward (backpropagation through time): walking the steps in reverse, the
  gradient of each step's gate pre-activations $dA_t$ from the saved activations,
  and $dh_{t-1} = dA_t W_{hh}$; then the weight gradients as single BLAS
  products over all steps, $dW_{ih} = dA^\\top X$, $dW_{hh} = dA^\\top
  H_{prev}$, $dX = dA W_{ih}$, and the biases as column sums.

The Function's result packs the outputs ``(L, N, H)`` and the final cell state as
one more row: ``(L + 1, N, H)``; :func:`unroll` hands out views of it, so
gradients of the outputs and of the final state meet in one backward call.

Only the LSTM: the GRU and the plain RNN run the students' loop, since no
benchmark model uses them (the BiLSTM's step is what this path was measured on,
``docs/DESIGN.md``; a GRU/RNN path was deleted for want of a measured need).

The students' code stays the definition. For each new signature (layer class,
input shape and layout, hidden size, bias, direction, which inputs need a
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

from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from .engine import agrees, fast_path, host_float64, ran_backward, signature

from module2_tensors.engine.autograd import Context, Function
from module2_tensors.engine.grad_modes import enable_grad
from module2_tensors.tensor import Tensor

#: Per signature: does the fast path agree with the students' ``_unroll`` there?
PATH = fast_path("recurrent", "the recurrent layer's _unroll (Task 4.7)")

Weights = Tuple[Tensor, Tensor, Optional[Tensor], Optional[Tensor]]
Arrays = Tuple[np.ndarray, np.ndarray, Optional[np.ndarray], Optional[np.ndarray]]


# ------------------------------------------------------------- NumPy forward/backward
def _forward(
    x: np.ndarray, h: np.ndarray, c: np.ndarray, weights: Arrays, reverse: bool
) -> Tuple[np.ndarray, np.ndarray, Dict[str, np.ndarray]]:
    """``(outputs (L, N, H), final cell state, saved)`` from the initial states
    ``h`` and ``c``; ``saved`` is what :func:`_backward` needs."""
    w_ih, w_hh, b_ih, b_hh = weights
    (steps, batch), hidden = x.shape[:2], w_hh.shape[1]
    gi = (x.reshape(steps * batch, -1) @ w_ih.T).reshape(steps, batch, -1)
    gi += sum(b for b in (b_ih, b_hh) if b is not None)
    out = np.empty((steps, batch, hidden))
    h_prev, c_prev, tanh_c = (np.empty_like(out) for _ in range(3))
    act = np.empty_like(gi)  # i, f, g, o after their nonlinearities
    for t in range(steps - 1, -1, -1) if reverse else range(steps):
        h_prev[t], c_prev[t] = h, c
        a = gi[t] + h @ w_hh.T
        act[t] = 0.5 + 0.5 * np.tanh(0.5 * a)  # the sigmoid, no overflow for large |a|
        act[t, :, 2 * hidden : 3 * hidden] = np.tanh(a[:, 2 * hidden : 3 * hidden])
        i, f, g, o = np.split(act[t], 4, axis=1)
        c = f * c + i * g
        tanh_c[t] = np.tanh(c)
        out[t] = h = o * tanh_c[t]
    return out, c, dict(h_prev=h_prev, act=act, c_prev=c_prev, tanh_c=tanh_c)


def _backward(
    x: np.ndarray,
    weights: Arrays,
    reverse: bool,
    saved: Dict[str, np.ndarray],
    d_out: np.ndarray,
    d_h: np.ndarray,
    d_c: np.ndarray,
) -> List[Optional[np.ndarray]]:
    """Backpropagation through time: ``[dx, dh0, dc0, dW_ih, dW_hh, db_ih,
    db_hh]`` from the gradients of the outputs ``d_out`` ``(L, N, H)``, of the
    final hidden state ``d_h`` and of the final cell state ``d_c``."""
    w_ih, w_hh, b_ih, b_hh = weights
    (steps, batch), hidden = x.shape[:2], w_hh.shape[1]
    act, c_prev, tanh_c = saved["act"], saved["c_prev"], saved["tanh_c"]
    d_a = np.empty((steps, batch, 4 * hidden))  # of the gate pre-activations
    dh, dc = d_h.copy(), d_c.copy()
    for t in range(steps) if reverse else range(steps - 1, -1, -1):  # backwards
        dh += d_out[t]
        tc = tanh_c[t]
        i, f, g, o = np.split(act[t], 4, axis=1)
        dc += dh * o * (1.0 - tc * tc)
        da = d_a[t]
        da[:, :hidden] = dc * g * i * (1.0 - i)
        da[:, hidden : 2 * hidden] = dc * c_prev[t] * f * (1.0 - f)
        da[:, 2 * hidden : 3 * hidden] = dc * i * (1.0 - g * g)
        da[:, 3 * hidden :] = dh * tc * o * (1.0 - o)
        dc = dc * f
        dh = da @ w_hh
    flat = d_a.reshape(steps * batch, 4 * hidden)
    dx = (flat @ w_ih).reshape(x.shape)
    dw_ih = flat.T @ x.reshape(steps * batch, -1)
    dw_hh = flat.T @ saved["h_prev"].reshape(steps * batch, hidden)
    db = [None if b is None else flat.sum(axis=0) for b in (b_ih, b_hh)]
    return [dx, dh, dc, dw_ih, dw_hh, *db]


# ----------------------------------------------------------------------- the Function
def _array(t: Optional[Tensor]) -> Optional[np.ndarray]:
    return None if t is None else t.to_numpy()


class _LayerFun(Function):
    """``apply(x, h0, c0, w_ih, w_hh, b_ih, b_hh, reverse)`` -> the outputs
    ``(L, N, H)`` with the final cell state as row ``L`` (absent biases are
    ``None``)."""

    @staticmethod
    def forward(
        ctx: Context,
        x: Tensor,
        h0: Tensor,
        c0: Tensor,
        w_ih: Tensor,
        w_hh: Tensor,
        b_ih: Optional[Tensor],
        b_hh: Optional[Tensor],
        reverse: bool,
    ) -> Tensor:
        xs, h, c, *weights = (_array(t) for t in (x, h0, c0, w_ih, w_hh, b_ih, b_hh))
        out, c_n, saved = _forward(xs, h, c, weights, reverse)  # type: ignore
        ctx.save_for_backward(reverse, xs, weights, saved)
        return x.new_tensor(np.concatenate([out, c_n[None]], axis=0))

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tuple[Optional[Tensor], ...]:
        reverse, xs, weights, saved = ctx.saved_values
        g = grad.to_numpy()
        d_h = np.zeros_like(g[0])  # h_n is a view of the outputs
        grads = _backward(xs, weights, reverse, saved, g[:-1], d_h, g[-1])
        return tuple(None if a is None else grad.new_tensor(a) for a in grads)


# --------------------------------------------------------------------------- the hook
def unroll(
    layers: Any, x: Tensor, state: Any, weights: Weights, reverse: bool
) -> Tuple[Tensor, Any]:
    """``layers._unroll(x, state, weights, reverse)``, computed as one Function
    where that agreed with ``layers._unroll`` on this signature (see the module
    docstring); the students' ``_unroll`` itself everywhere else (not an LSTM,
    an LSTM with a projection (``proj_size``), a CUDA or float32 tensor, an
    empty sequence, a signature where they differed)."""
    tensors = [x, *(state if isinstance(state, tuple) else [state]), *weights]
    if (
        getattr(type(layers), "gates", 1) != 4
        or getattr(layers, "_projection", None) is not None
        or PATH.checking
        or x.size == 0
        or not all(t is None or host_float64(t) for t in tensors)
    ):
        return layers._unroll(x, state, weights, reverse)
    key, needs = signature(*tensors)

    def check() -> bool:
        """Run the students' ``_unroll`` forward and backward on detached copies
        (needing gradients where the inputs do: a backward may branch on
        ``needs_input_grad``), and this path on the same numbers; whether
        outputs, final state and every gradient agree."""
        probes = [
            None if t is None else t.detach().requires_grad_(need)
            for t, need in zip(tensors, needs)
        ]
        px, ph, pc, *pw = probes  # (x, h0, c0 and the weights)
        # A generator of its own: the check must not move the seeded stream.
        rng = np.random.default_rng(0)
        with enable_grad():  # (inside no_grad() nothing needs a gradient)
            out, final = layers._unroll(px, (ph, pc), tuple(pw), reverse)
            outs = [out, *final] if isinstance(final, tuple) else [out, final]
            if len(outs) != 3 or not all(isinstance(o, Tensor) for o in outs):
                return False
            g_outs = [rng.standard_normal(o.shape) for o in outs]  # out, h_n, c_n
            loss = sum((o * o.new_tensor(g)).sum() for o, g in zip(outs, g_outs))
            if any(needs) and not ran_backward(loss, None):
                return False
        xs, h0, c0, *w = (_array(t) for t in tensors)
        fast_out, c_n, saved = _forward(xs, h0, c0, tuple(w), reverse)  # type: ignore
        got = [fast_out, fast_out[0 if reverse else xs.shape[0] - 1], c_n]
        grads = _backward(xs, tuple(w), reverse, saved, *g_outs)  # type: ignore
        # (an input needs a gradient only where it is there; no gradient: zeros)
        wanted = [(g, p.grad) for p, g, need in zip(probes, grads, needs) if need]
        return all(agrees(a, b) for a, b in [*zip(got, outs), *wanted])

    if not PATH.verdict((type(layers), bool(reverse), key), check):
        return layers._unroll(x, state, weights, reverse)
    # The outputs and the final state (h, c), as views of the packed result.
    packed = _LayerFun.apply(*tensors, reverse)
    out = packed[: x.shape[0]]
    return out, (out[0] if reverse else out[-1], packed[-1])
