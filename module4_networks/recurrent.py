"""Recurrent networks, as ``torch.nn`` (Task 4.7): RNN, LSTM and GRU cells and layers.

A recurrent layer reads a sequence $x_1, \\dots, x_L$ one step at a time and carries a
*hidden state* $h_t$ from step to step: $h_t = \\mathrm{cell}(x_t, h_{t-1})$. The
same weights serve every step, so a layer of a few thousand parameters reads a
sequence of any length.

Every cell splits its work in two matrix products, which this module computes for
you, and a few elementwise *gate* equations, which you write:

$$g^i = x W_{ih}^\\top + b_{ih}, \\qquad g^h = h W_{hh}^\\top + b_{hh}.$$

$g^i$ and $g^h$ hold ``gates`` blocks of ``hidden_size`` columns each (1 for the RNN,
4 for the LSTM: $i, f, g, o$; 3 for the GRU: $r, z, n$, PyTorch's order). Because
$g^i$ does not depend on the hidden state, a layer computes it for *all* time steps
in one matrix product before the loop; only $g^h$ is computed step by step.

Backpropagation through time is nothing new: unrolling the loop builds an ordinary
graph (step $t$ uses the state that step $t-1$ made), and ``backward()`` walks it.

Shapes follow PyTorch (``N`` batch, ``L`` sequence length, ``D`` 2 if bidirectional
else 1, ``H`` ``hidden_size``):

- cells: input ``(N, H_in)`` or unbatched ``(H_in,)``; state ``(N, H)`` or ``(H,)``;
- layers: input ``(L, N, H_in)`` (``(N, L, H_in)`` with ``batch_first=True``) or
  unbatched ``(L, H_in)``; initial state ``(D * num_layers, N, H)`` (``(D *
  num_layers, H)`` unbatched; never batch-first); output ``(L, N, D * H)``
  (batch-first like the input) and final state ``(D * num_layers, N, H)``.

Parameter names, shapes and initialisation ($U(-1/\\sqrt{H}, 1/\\sqrt{H})$ for every
weight and bias) are PyTorch's, so weights copied from a ``torch.nn.LSTM`` give its
outputs.
"""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

from module2_tensors.function_forms import stack  # noqa: F401 (for Task 4.7)
from module2_tensors._backend import TensorBackend
from module2_tensors.tensor import Tensor

# Given: the cells' and layers' parameters, checks and the loop over layers and
# directions (_CellBase, _RNNLayers) live in _recurrent_base.py; _affine(x, W, b)
# is $x W^\top + b$.
from ._recurrent_base import State, _CellBase, _RNNLayers
from ._recurrent_base import _affine  # noqa: F401 (for Task 4.7)

__all__ = [
    "rnn_step",
    "lstm_step",
    "gru_step",
    "RNNCell",
    "LSTMCell",
    "GRUCell",
    "RNN",
    "LSTM",
    "GRU",
]


# ------------------------------------------------------------------ the gate equations
def rnn_step(gi: Tensor, gh: Tensor, nonlinearity: str = "tanh") -> Tensor:
    """One step of the Elman RNN: $h' = \\sigma(g^i + g^h)$ with $\\sigma = \\tanh$
    (``nonlinearity="tanh"``) or ReLU (``"relu"``).

    Args:
        gi: $x W_{ih}^\\top + b_{ih}$, shape ``(..., H)``.
        gh: $h W_{hh}^\\top + b_{hh}$, shape ``(..., H)``.
        nonlinearity: ``"tanh"`` or ``"relu"``.

    Returns:
        the new hidden state $h'$, shape ``(..., H)``.
    """
    # BEGIN SOLUTION 4.7: rnn_step, tanh or relu of gi + gh
    pre = gi + gh
    return pre.tanh() if nonlinearity == "tanh" else pre.relu()
    # END SOLUTION


def lstm_step(gi: Tensor, gh: Tensor, c: Tensor) -> Tuple[Tensor, Tensor]:
    """One step of the LSTM. ``gi + gh`` holds four blocks of ``H`` columns, in
    PyTorch's order $i, f, g, o$ (``chunk(4, dim=-1)`` splits them):

    $$i = \\sigma(\\cdot_i), \\quad f = \\sigma(\\cdot_f), \\quad g = \\tanh(\\cdot_g),
    \\quad o = \\sigma(\\cdot_o),$$
    $$c' = f \\odot c + i \\odot g, \\qquad h' = o \\odot \\tanh(c').$$

    The *cell state* $c$ is changed only by an elementwise product with the forget
    gate and an addition: the path through time along $c$ has no weight matrix and no
    squashing function, which is why gradients survive many more steps than in the
    plain RNN.

    Args:
        gi, gh: shape ``(..., 4 H)``.
        c: the cell state, shape ``(..., H)``.

    Returns:
        ``(h', c')``, each of shape ``(..., H)``.
    """
    # BEGIN SOLUTION 4.7: lstm_step, the input, forget, cell and output gates
    i, f, g, o = (gi + gh).chunk(4, dim=-1)
    c_next = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return o.sigmoid() * c_next.tanh(), c_next
    # END SOLUTION


def gru_step(gi: Tensor, gh: Tensor, h: Tensor) -> Tensor:
    """One step of the GRU. ``gi`` and ``gh`` each hold three blocks of ``H``
    columns, in PyTorch's order $r, z, n$:

    $$r = \\sigma(g^i_r + g^h_r), \\quad z = \\sigma(g^i_z + g^h_z), \\quad
    n = \\tanh(g^i_n + r \\odot g^h_n),$$
    $$h' = (1 - z) \\odot n + z \\odot h.$$

    Note that the reset gate $r$ multiplies $g^h_n$, which already includes the bias
    $b_{hn}$ (PyTorch's formulation): the blocks of ``gi`` and ``gh`` are not simply
    added for $n$.

    Args:
        gi, gh: shape ``(..., 3 H)``.
        h: the previous hidden state, shape ``(..., H)``.

    Returns:
        $h'$, shape ``(..., H)``.
    """
    # BEGIN SOLUTION 4.7: gru_step, reset and update gates, candidate state
    i_r, i_z, i_n = gi.chunk(3, dim=-1)
    h_r, h_z, h_n = gh.chunk(3, dim=-1)
    r = (i_r + h_r).sigmoid()
    z = (i_z + h_z).sigmoid()
    n = (i_n + r * h_n).tanh()
    return (1.0 - z) * n + z * h
    # END SOLUTION


# ------------------------------------------------------------------------------ cells


class RNNCell(_CellBase):
    """$h' = \\tanh(x W_{ih}^\\top + b_{ih} + h W_{hh}^\\top + b_{hh})$ (or ReLU).

    ``forward(input, hx=None) -> h'``; ``hx`` defaults to zeros.
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        nonlinearity: str = "tanh",
        backend: Optional[TensorBackend] = None,
    ) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"unknown nonlinearity {nonlinearity!r}: tanh or relu")
        super().__init__(input_size, hidden_size, bias, backend)
        self.nonlinearity = nonlinearity

    def _step(self, gi: Tensor, gh: Tensor, h: Tensor) -> Tensor:
        return rnn_step(gi, gh, self.nonlinearity)

    def extra_repr(self) -> str:
        relu = ", nonlinearity=relu" if self.nonlinearity == "relu" else ""
        return super().extra_repr() + relu


class LSTMCell(_CellBase):
    """The LSTM cell (see :func:`lstm_step`). ``forward(input, hx=None) -> (h', c')``
    with ``hx = (h, c)``, zeros by default."""

    gates = 4

    def forward(
        self, input: Tensor, hx: Optional[Tuple[Tensor, Tensor]] = None
    ) -> Tuple[Tensor, Tensor]:
        h, c = (None, None) if hx is None else hx
        x, h, unbatched = self._prepare(input, h)
        h, c = lstm_step(*self._gates(x, h), self._prepare(input, c)[1])
        return (h.squeeze(0), c.squeeze(0)) if unbatched else (h, c)


class GRUCell(_CellBase):
    """The GRU cell (see :func:`gru_step`). ``forward(input, hx=None) -> h'``."""

    gates = 3
    _step = staticmethod(gru_step)


# ----------------------------------------------------------------------------- layers
class _RNNBase(_RNNLayers):
    """A stack of ``num_layers`` recurrent layers, each optionally bidirectional
    (the parameters, the checks and the loop over layers and directions are given,
    in ``_recurrent_base.py``; this class adds the loop through time).

    ``self._step(gi, gh, state)`` is the cell equation of one step (``rnn_step``,
    ``lstm_step`` or ``gru_step``) and ``self._hidden(state)`` reads $h$ off a
    state (``h`` itself, or ``h`` of ``(h, c)`` for the LSTM).
    """

    def _unroll(
        self,
        x: Tensor,
        state: State,
        weights: Tuple[Tensor, Tensor, Optional[Tensor], Optional[Tensor]],
        reverse: bool = False,
    ) -> Tuple[Tensor, State]:
        """Run one direction of one layer over a whole sequence.

        Args:
            x: the layer's input, ``(L, N, H_in)``.
            state: the initial state (``h`` of shape ``(N, H)``, or ``(h, c)``).
            weights: ``(weight_ih, weight_hh, bias_ih, bias_hh)`` (biases may be None).
            reverse: read the sequence from its last step to its first.

        Returns:
            ``(outputs, final_state)``: ``outputs[t]`` is the hidden state after
            reading step ``t`` (``(L, N, H)``, in the order of ``x`` also when
            ``reverse``), and the state after the last step read.

        Compute $g^i$ for every step at once (:func:`_affine` on all of ``x``), then,
        step by step, $g^h$ from the current hidden state (``self._hidden(state)``)
        and the next state with ``self._step(gi[t], gh, state)``. Gradients flow back
        through time on their own: each step's state is an input of the next.
        """
        # BEGIN SOLUTION 4.7: _unroll, the loop through time of one layer
        w_ih, w_hh, b_ih, b_hh = weights
        gi = _affine(x, w_ih, b_ih)
        steps = range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])
        outputs: List[Optional[Tensor]] = [None] * x.shape[0]
        for t in steps:
            gh = _affine(self._hidden(state), w_hh, b_hh)
            state = self._step(gi[t], gh, state)
            outputs[t] = self._hidden(state)
        return stack(outputs, dim=0), state
        # END SOLUTION


class RNN(_RNNBase):
    """The Elman RNN layer: $h_t = \\tanh(x_t W_{ih}^\\top + b_{ih} + h_{t-1}
    W_{hh}^\\top + b_{hh})$ (or ReLU), as ``torch.nn.RNN``: ``RNN(input_size,
    hidden_size, num_layers=1, nonlinearity="tanh", bias=True,
    batch_first=False, dropout=0.0, bidirectional=False, backend=None)``.

    ``forward(input, hx=None) -> (output, h_n)``.
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        nonlinearity: str = "tanh",
        *args: Any,
        **kwargs: Any,
    ) -> None:
        # The rest as LSTM's and GRU's, in PyTorch's order: bias=True,
        # batch_first=False, dropout=0.0, bidirectional=False (and backend=).
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"unknown nonlinearity {nonlinearity!r}: tanh or relu")
        super().__init__(input_size, hidden_size, num_layers, *args, **kwargs)
        self.nonlinearity = nonlinearity

    _step = RNNCell._step  # (rnn_step with self.nonlinearity)


class LSTM(_RNNBase):
    """The LSTM layer (see :func:`lstm_step`), as ``torch.nn.LSTM``, with
    PyTorch's ``proj_size`` (given; see ``_recurrent_base.py``).

    ``forward(input, hx=None) -> (output, (h_n, c_n))`` with ``hx = (h_0, c_0)``.
    """

    gates = 4

    def _step(self, gi: Tensor, gh: Tensor, state: State) -> State:
        h, c = lstm_step(gi, gh, state[1])
        # (given: proj_size projects h with this direction's W_hr)
        return (h, c) if self._projection is None else (h @ self._projection.T, c)

    @staticmethod
    def _hidden(state: State) -> Tensor:
        return state[0]

    def forward(
        self, input: Tensor, hx: Optional[Tuple[Tensor, Tensor]] = None
    ) -> Tuple[Tensor, Tuple[Tensor, Tensor]]:
        return self._run(input, [None, None] if hx is None else list(hx))


class GRU(_RNNBase):
    """The GRU layer (see :func:`gru_step`), as ``torch.nn.GRU``.

    ``forward(input, hx=None) -> (output, h_n)``.
    """

    gates = 3
    _step = staticmethod(gru_step)
