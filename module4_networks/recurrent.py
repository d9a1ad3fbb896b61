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

import math
from typing import List, Optional, Sequence, Tuple, Union

from module0_fundamentals.module import Module, Parameter
from module2_tensors.shape_functions import cat, stack
from module2_tensors.tensor import Tensor
from module2_tensors.tensor_ops import TensorBackend

from . import functional as F
from . import init
from ._parameters import _parameter

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

#: A cell's state: ``h`` for the RNN and the GRU, ``(h, c)`` for the LSTM.
State = Union[Tensor, Tuple[Tensor, Tensor]]


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


def _affine(x: Tensor, weight: Tensor, bias: Optional[Tensor]) -> Tensor:
    """$x W^\\top + b$ for ``x`` of shape ``(..., in)`` and ``weight`` ``(out, in)``."""
    out = x @ weight.T
    return out if bias is None else out + bias


def _fill_uniform(module: Module, hidden_size: int) -> None:
    """PyTorch's initialisation of every recurrent parameter: $U(-k, k)$ with $k =
    1/\\sqrt{H}$."""
    bound = 1.0 / math.sqrt(hidden_size) if hidden_size > 0 else 0.0
    for p in module.parameters():
        init.uniform_(p, -bound, bound)


def _check_size(name: str, what: str, x: Tensor, size: int) -> None:
    if x.shape[-1] != size:
        raise ValueError(
            f"{name}: {what} should have {size} features in its last dimension, got "
            f"shape {x.shape}"
        )


# ------------------------------------------------------------------------------ cells
class _CellBase(Module):
    """What the three cells share: ``weight_ih`` ``(G H, H_in)``, ``weight_hh`` ``(G
    H, H)``, ``bias_ih`` and ``bias_hh`` ``(G H,)``, with ``G`` gate blocks."""

    gates: int = 1

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        backend: Optional[TensorBackend] = None,
    ) -> None:
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        rows = self.gates * hidden_size
        self.weight_ih = _parameter((rows, input_size), backend)
        self.weight_hh = _parameter((rows, hidden_size), backend)
        self.bias_ih = _parameter((rows,), backend) if bias else None
        self.bias_hh = _parameter((rows,), backend) if bias else None
        _fill_uniform(self, hidden_size)

    def _gates(self, x: Tensor, h: Tensor) -> Tuple[Tensor, Tensor]:
        bias_ih = self.bias_ih.value if self.bias_ih is not None else None
        bias_hh = self.bias_hh.value if self.bias_hh is not None else None
        return (
            _affine(x, self.weight_ih.value, bias_ih),
            _affine(h, self.weight_hh.value, bias_hh),
        )

    def _prepare(self, x: Tensor, hx: Optional[Tensor]) -> Tuple[Tensor, Tensor, bool]:
        """The input and a state as batches, and whether the input was unbatched."""
        name = type(self).__name__
        if x.dims not in (1, 2):
            raise ValueError(
                f"{name}: expected input of 1 or 2 dimensions, got {x.shape}"
            )
        _check_size(name, "input", x, self.input_size)
        unbatched = x.dims == 1
        if unbatched:
            x = x.unsqueeze(0)
        if hx is None:
            hx = x.new_zeros((x.shape[0], self.hidden_size))
        elif unbatched:
            hx = hx.unsqueeze(0)
        if hx.shape != (x.shape[0], self.hidden_size):
            raise ValueError(
                f"{name}: the state should have shape "
                f"{(x.shape[0], self.hidden_size)[unbatched:]} for input of shape "
                f"{x.shape[unbatched:]}, got {hx.shape[unbatched:]}"
            )
        return x, hx, unbatched

    def extra_repr(self) -> str:
        return f"{self.input_size}, {self.hidden_size}, bias={self.bias}"


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

    def forward(self, input: Tensor, hx: Optional[Tensor] = None) -> Tensor:
        x, h, unbatched = self._prepare(input, hx)
        out = rnn_step(*self._gates(x, h), self.nonlinearity)
        return out.squeeze(0) if unbatched else out


class LSTMCell(_CellBase):
    """The LSTM cell (see :func:`lstm_step`). ``forward(input, hx=None) -> (h', c')``
    with ``hx = (h, c)``, zeros by default."""

    gates = 4

    def forward(
        self, input: Tensor, hx: Optional[Tuple[Tensor, Tensor]] = None
    ) -> Tuple[Tensor, Tensor]:
        h, c = (None, None) if hx is None else hx
        x, h, unbatched = self._prepare(input, h)
        _, c, _ = self._prepare(input, c)
        h, c = lstm_step(*self._gates(x, h), c)
        return (h.squeeze(0), c.squeeze(0)) if unbatched else (h, c)


class GRUCell(_CellBase):
    """The GRU cell (see :func:`gru_step`). ``forward(input, hx=None) -> h'``."""

    gates = 3

    def forward(self, input: Tensor, hx: Optional[Tensor] = None) -> Tensor:
        x, h, unbatched = self._prepare(input, hx)
        out = gru_step(*self._gates(x, h), h)
        return out.squeeze(0) if unbatched else out


# ----------------------------------------------------------------------------- layers
class _RNNBase(Module):
    """A stack of ``num_layers`` recurrent layers, each optionally bidirectional.

    Parameters of layer ``k`` are ``weight_ih_l{k}``, ``weight_hh_l{k}``,
    ``bias_ih_l{k}``, ``bias_hh_l{k}``, and the same with ``_reverse`` for the
    backward direction, in PyTorch's order. Layer ``k > 0`` reads the outputs of
    layer ``k - 1`` (``D * H`` features), with dropout between layers in training.
    """

    gates: int = 1

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        backend: Optional[TensorBackend] = None,
    ) -> None:
        super().__init__()
        name = type(self).__name__
        if num_layers < 1:
            raise ValueError(f"{name}: num_layers must be at least 1, got {num_layers}")
        if not 0.0 <= dropout <= 1.0:
            raise ValueError(f"{name}: dropout must be in [0, 1], got {dropout}")
        self.input_size, self.hidden_size = input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional = float(dropout), bidirectional
        directions = 2 if bidirectional else 1
        rows = self.gates * hidden_size
        for layer in range(num_layers):
            width = input_size if layer == 0 else hidden_size * directions
            for suffix in self._suffixes(layer):
                setattr(self, "weight_ih" + suffix, _parameter((rows, width), backend))
                setattr(
                    self, "weight_hh" + suffix, _parameter((rows, hidden_size), backend)
                )
                if bias:
                    setattr(self, "bias_ih" + suffix, _parameter((rows,), backend))
                    setattr(self, "bias_hh" + suffix, _parameter((rows,), backend))
        _fill_uniform(self, hidden_size)

    def _suffixes(self, layer: int) -> List[str]:
        both = [f"_l{layer}", f"_l{layer}_reverse"]
        return both if self.bidirectional else both[:1]

    def _weights(
        self, suffix: str
    ) -> Tuple[Tensor, Tensor, Optional[Tensor], Optional[Tensor]]:
        def get(name: str) -> Optional[Tensor]:
            p: Optional[Parameter] = self._parameters.get(name + suffix)
            return None if p is None else p.value

        return get("weight_ih"), get("weight_hh"), get("bias_ih"), get("bias_hh")

    # The cell equation of one step, and how to read h off a state.
    def _step(self, gi: Tensor, gh: Tensor, state: State) -> State:
        raise NotImplementedError

    @staticmethod
    def _hidden(state: State) -> Tensor:
        return state

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

    def _initial_state(
        self, x: Tensor, hx: Optional[Tensor], unbatched: bool
    ) -> Tensor:
        name = type(self).__name__
        directions = 2 if self.bidirectional else 1
        shape = (self.num_layers * directions, x.shape[1], self.hidden_size)
        if hx is None:
            return x.new_zeros(shape)
        if unbatched:
            hx = hx.unsqueeze(1)
        if hx.shape != shape:
            expected = shape[:1] + shape[2:] if unbatched else shape
            got = hx.shape[:1] + hx.shape[2:] if unbatched else hx.shape
            raise ValueError(
                f"{name}: expected an initial state of shape {expected}, got {got}"
            )
        return hx

    def _run(
        self, input: Tensor, hx: Sequence[Optional[Tensor]]
    ) -> Tuple[Tensor, List[Tensor]]:
        """The shared forward: returns the output and the final states, one tensor
        per component of the state (``[h_n]`` or ``[h_n, c_n]``)."""
        name = type(self).__name__
        if input.dims not in (2, 3):
            raise ValueError(
                f"{name}: expected input of 2 (unbatched) or 3 dimensions, got "
                f"{input.shape}"
            )
        _check_size(name, "input", input, self.input_size)
        unbatched = input.dims == 2
        if unbatched:
            x = input.unsqueeze(1)
        else:
            x = input.transpose(0, 1) if self.batch_first else input
        initial = [self._initial_state(x, h, unbatched) for h in hx]
        finals: List[List[Tensor]] = [[] for _ in initial]
        directions = 2 if self.bidirectional else 1
        for layer in range(self.num_layers):
            outputs = []
            for direction, suffix in enumerate(self._suffixes(layer)):
                k = layer * directions + direction
                start = [s[k] for s in initial]
                state = start[0] if len(start) == 1 else tuple(start)
                out, state = self._unroll(
                    x, state, self._weights(suffix), direction == 1
                )
                outputs.append(out)
                for store, s in zip(finals, state if len(start) > 1 else (state,)):
                    store.append(s)
            x = outputs[0] if directions == 1 else cat(outputs, dim=2)
            if self.dropout > 0.0 and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        states = [stack(store, dim=0) for store in finals]
        if unbatched:
            return x.squeeze(1), [s.squeeze(1) for s in states]
        return (x.transpose(0, 1) if self.batch_first else x), states

    def extra_repr(self) -> str:
        extras = ""
        if self.num_layers != 1:
            extras += f", num_layers={self.num_layers}"
        if not self.bias:
            extras += ", bias=False"
        if self.batch_first:
            extras += ", batch_first=True"
        if self.dropout:
            extras += f", dropout={self.dropout}"
        if self.bidirectional:
            extras += ", bidirectional=True"
        return f"{self.input_size}, {self.hidden_size}{extras}"


class RNN(_RNNBase):
    """The Elman RNN layer: $h_t = \\tanh(x_t W_{ih}^\\top + b_{ih} + h_{t-1}
    W_{hh}^\\top + b_{hh})$ (or ReLU), as ``torch.nn.RNN``.

    ``forward(input, hx=None) -> (output, h_n)``.
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        nonlinearity: str = "tanh",
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        backend: Optional[TensorBackend] = None,
    ) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"unknown nonlinearity {nonlinearity!r}: tanh or relu")
        super().__init__(
            input_size,
            hidden_size,
            num_layers,
            bias,
            batch_first,
            dropout,
            bidirectional,
            backend,
        )
        self.nonlinearity = nonlinearity

    def _step(self, gi: Tensor, gh: Tensor, state: State) -> State:
        return rnn_step(gi, gh, self.nonlinearity)

    def forward(
        self, input: Tensor, hx: Optional[Tensor] = None
    ) -> Tuple[Tensor, Tensor]:
        output, (h_n,) = self._run(input, [hx])
        return output, h_n


class LSTM(_RNNBase):
    """The LSTM layer (see :func:`lstm_step`), as ``torch.nn.LSTM``.

    ``forward(input, hx=None) -> (output, (h_n, c_n))`` with ``hx = (h_0, c_0)``.
    """

    gates = 4

    def _step(self, gi: Tensor, gh: Tensor, state: State) -> State:
        h, c = state
        return lstm_step(gi, gh, c)

    @staticmethod
    def _hidden(state: State) -> Tensor:
        return state[0]

    def forward(
        self, input: Tensor, hx: Optional[Tuple[Tensor, Tensor]] = None
    ) -> Tuple[Tensor, Tuple[Tensor, Tensor]]:
        output, (h_n, c_n) = self._run(input, [None, None] if hx is None else list(hx))
        return output, (h_n, c_n)


class GRU(_RNNBase):
    """The GRU layer (see :func:`gru_step`), as ``torch.nn.GRU``.

    ``forward(input, hx=None) -> (output, h_n)``.
    """

    gates = 3

    def _step(self, gi: Tensor, gh: Tensor, state: State) -> State:
        return gru_step(gi, gh, state)

    def forward(
        self, input: Tensor, hx: Optional[Tensor] = None
    ) -> Tuple[Tensor, Tensor]:
        output, (h_n,) = self._run(input, [hx])
        return output, h_n
