"""What the recurrent modules share, given complete (engine layer: no task edits
it): parameters, shape checks, and the loop over layers and directions.

``recurrent.py`` holds what Task 4.7 asks for (the gate equations and the loop
through time, ``_RNNBase._unroll``) and the public cells and layers. Their
parameters, state checks and multi-layer, bidirectional plumbing live here, so
the student file stays about the recurrence.

Interface: :func:`_affine`, :class:`_CellBase` (the three cells' base) and
:class:`_RNNLayers` (the layers' base; a subclass defines ``_unroll``). This
module does not import ``recurrent``.
"""

from __future__ import annotations

import inspect
from typing import List, Optional, Sequence, Tuple, Union

from module0_fundamentals.module import Module
from module2_tensors._backend import TensorBackend
from module2_tensors.function_forms import cat, stack
from module2_tensors.tensor import Tensor

from . import _recurrent_fast, functional as F
from ._parameters import _parameter, _uniform_fan_in, _value

#: A cell's state: ``h`` for the RNN and the GRU, ``(h, c)`` for the LSTM.
State = Union[Tensor, Tuple[Tensor, Tensor]]
_NAMES = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")


def _affine(x: Tensor, weight: Tensor, bias: Optional[Tensor]) -> Tensor:
    """$x W^\\top + b$ for ``x`` of shape ``(..., in)`` and ``weight`` ``(out, in)``."""
    out = x @ weight.T
    return out if bias is None else out + bias


def _fill_uniform(module: Module, hidden_size: int) -> None:
    """PyTorch's initialisation of every recurrent parameter: $U(-k, k)$ with $k =
    1/\\sqrt{H}$."""
    for p in module.parameters():
        _uniform_fan_in(p, hidden_size)  # (the bound of a fan-in of H)


def _unbatched(module: Module, x: Tensor, dims: int) -> bool:
    """Check that ``x`` has ``dims`` dims (a batch) or one fewer (one example)
    and ``module.input_size`` features in its last; whether it is unbatched."""
    if x.dims not in (dims - 1, dims) or x.shape[-1] != module.input_size:
        raise ValueError(
            f"{type(module).__name__}: expected input of {dims - 1} (unbatched) or "
            f"{dims} dimensions with {module.input_size} features in the last, got "
            f"shape {x.shape}"
        )
    return x.dims == dims - 1


def _weights(module: Module, suffix: str = "") -> _recurrent_fast.Weights:
    """The values of ``weight_ih``, ``weight_hh``, ``bias_ih``, ``bias_hh`` (each
    name with ``suffix``; absent biases None)."""
    return tuple(_value(module._parameters.get(n + suffix)) for n in _NAMES)


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
        w_ih, w_hh, b_ih, b_hh = _weights(self)
        return _affine(x, w_ih, b_ih), _affine(h, w_hh, b_hh)

    def _prepare(self, x: Tensor, hx: Optional[Tensor]) -> Tuple[Tensor, Tensor, bool]:
        """The input and a state as batches, and whether the input was unbatched."""
        unbatched = _unbatched(self, x, 2)
        shape = (*x.shape[:-1], self.hidden_size)  # (N, H), or (H,) unbatched
        hx = x.new_zeros(shape) if hx is None else hx
        if hx.shape != shape:
            raise ValueError(
                f"{type(self).__name__}: the state should have shape {shape} for "
                f"input of shape {x.shape}, got {hx.shape}"
            )
        return (x.unsqueeze(0), hx.unsqueeze(0), True) if unbatched else (x, hx, False)

    def forward(self, input: Tensor, hx: Optional[Tensor] = None) -> Tensor:
        """``h'`` of the RNN and GRU cells, ``self._step(gi, gh, h)`` (the
        LSTM cell, whose state is a pair, has its own)."""
        x, h, unbatched = self._prepare(input, hx)
        out = self._step(*self._gates(x, h), h)
        return out.squeeze(0) if unbatched else out

    def extra_repr(self) -> str:
        bias = "" if self.bias else ", bias=False"  # (what differs, as PyTorch's)
        return f"{self.input_size}, {self.hidden_size}{bias}"


# ----------------------------------------------------------------------------- layers
class _RNNLayers(Module):
    """A stack of ``num_layers`` recurrent layers, each optionally bidirectional.

    Parameters of layer ``k`` are ``weight_ih_l{k}``, ``weight_hh_l{k}``,
    ``bias_ih_l{k}``, ``bias_hh_l{k}``, and the same with ``_reverse`` for the
    backward direction, in PyTorch's order. Layer ``k > 0`` reads the outputs of
    layer ``k - 1`` (``D * H`` features), with dropout between layers in training.
    The LSTM's ``proj_size`` $P > 0$ (PyTorch's) adds ``weight_hr_l{k}`` ``(P,
    H)``: $h_t$ is projected to $P$ features ($h_t W_{hr}^\top$), which is what
    ``weight_hh`` ``(G H, P)``, the next layer and the state ``h`` then see.
    """

    _projection: Optional[Tensor] = None  # (this direction's W_hr while it runs)

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
        proj_size: int = 0,
        backend: Optional[TensorBackend] = None,
    ) -> None:
        super().__init__()
        name = type(self).__name__
        if proj_size < 0 or (proj_size and proj_size >= hidden_size):
            raise ValueError(
                "proj_size should be a positive integer or zero to disable "
                "projections, and smaller than hidden_size"
            )
        if proj_size and self.gates != 4:
            raise ValueError("proj_size argument is only supported for LSTM")
        if num_layers < 1:
            raise ValueError(f"{name}: num_layers must be at least 1, got {num_layers}")
        F._check_probability(dropout)
        self.input_size, self.hidden_size = input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional = float(dropout), bidirectional
        self.proj_size = proj_size
        rows, out = self.gates * hidden_size, proj_size or hidden_size
        for layer in range(num_layers):
            width = input_size if layer == 0 else out * (2 if bidirectional else 1)
            shapes = {"weight_ih": (rows, width), "weight_hh": (rows, out)}
            shapes.update({"bias_ih": (rows,), "bias_hh": (rows,)} if bias else {})
            shapes.update({"weight_hr": (proj_size, hidden_size)} if proj_size else {})
            for suffix in self._suffixes(layer):
                for name, shape in shapes.items():  # (PyTorch's order)
                    setattr(self, name + suffix, _parameter(shape, backend))
        _fill_uniform(self, hidden_size)

    def _suffixes(self, layer: int) -> List[str]:
        return [f"_l{layer}", f"_l{layer}_reverse"][: 2 if self.bidirectional else 1]

    # How to read h off a state. (A subclass defines ``_unroll``, one direction
    # of one layer over a sequence, ``recurrent._RNNBase``, and each layer its
    # ``_step``, the cell equation of one step.)
    @staticmethod
    def _hidden(state: State) -> Tensor:
        return state

    def _initial_state(
        self, x: Tensor, hx: Optional[Tensor], unbatched: bool, size: int
    ) -> Tensor:
        shape = (self.num_layers * (2 if self.bidirectional else 1), x.shape[1], size)
        if hx is None:
            return x.new_zeros(shape)
        expected = shape[:1] + shape[2:] if unbatched else shape  # (x.shape[1] is 1)
        if hx.shape != expected:
            raise ValueError(
                f"{type(self).__name__}: expected an initial state of shape "
                f"{expected}, got {hx.shape}"
            )
        return hx.unsqueeze(1) if unbatched else hx

    def _run(
        self, input: Tensor, hx: Sequence[Optional[Tensor]]
    ) -> Tuple[Tensor, Tuple[Tensor, ...]]:
        """The shared forward: returns the output and the final states, one tensor
        per component of the state (``(h_n,)`` or ``(h_n, c_n)``)."""
        unbatched = _unbatched(self, input, 3)
        x = input.unsqueeze(1) if unbatched else input
        x = x.transpose(0, 1) if self.batch_first and not unbatched else x
        if x.shape[0] == 0:  # (as PyTorch; the loop through time would stack nothing)
            raise ValueError(
                f"{type(self).__name__}: expected a sequence length larger than 0, "
                f"got input of shape {input.shape}"
            )
        # h has proj_size features when the LSTM projects (c keeps hidden_size).
        sizes = [self.proj_size or self.hidden_size, self.hidden_size]
        initial = [self._initial_state(x, h, unbatched, n) for h, n in zip(hx, sizes)]
        # Each layer's and direction's final state, in the order of the initial
        # states' first dim (layer by layer, forward then reverse): the state a
        # direction starts from is at index len(finals).
        finals: List[Sequence[Tensor]] = []
        for layer in range(self.num_layers):
            outputs = []
            for direction, suffix in enumerate(self._suffixes(layer)):
                start = [s[len(finals)] for s in initial]
                state = start[0] if len(start) == 1 else tuple(start)
                # Engine: the whole sequence as one Function where that agrees
                # with self._unroll (``_recurrent_fast``), else self._unroll
                # (always with a projection, which the LSTM's _step applies).
                hr = self._parameters.get("weight_hr" + suffix)
                # (a plain attribute: assigning a Parameter would register it)
                object.__setattr__(self, "_projection", _value(hr))
                out, state = _recurrent_fast.unroll(
                    self, x, state, _weights(self, suffix), direction == 1
                )
                outputs.append(out)
                finals.append(state if len(start) > 1 else (state,))
            x = outputs[0] if len(outputs) == 1 else cat(outputs, dim=2)
            if self.dropout > 0.0 and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        states = tuple(stack(list(parts), dim=0) for parts in zip(*finals))
        if unbatched:
            return x.squeeze(1), tuple(s.squeeze(1) for s in states)
        return (x.transpose(0, 1) if self.batch_first else x), states

    def forward(
        self, input: Tensor, hx: Optional[Tensor] = None
    ) -> Tuple[Tensor, Tensor]:
        """``(output, h_n)`` of the RNN and the GRU (the LSTM's state is a pair)."""
        output, (h_n,) = self._run(input, [hx])
        return output, h_n

    def extra_repr(self) -> str:
        # PyTorch's: the sizes, then each setting (the arguments of __init__
        # between the sizes and backend) that differs from its default.
        text = f"{self.input_size}, {self.hidden_size}"
        arguments = list(inspect.signature(_RNNLayers.__init__).parameters.values())
        for argument in arguments[3:-1]:
            if getattr(self, argument.name) != argument.default:
                text += f", {argument.name}={getattr(self, argument.name)}"
        return text
