"""Named Hypothesis strategies for Module 1: numbers and random *programs*.

A :class:`Program` is a small straight-line computation over its inputs, e.g.

    v2 = v0 * v1;  v3 = sin(v2);  v4 = 1 - v3 / (v0 * v0 + 1)

It runs on anything that supports the operations: plain floats (through ``math``,
the oracle), ``Scalar``, ``Dual`` and symbolic ``Expr``. Every operation is smooth
and defined everywhere (``log`` and division are guarded by ``x * x + 1``), so a
random program always has a derivative that central differences can check.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, List, Sequence, Tuple

from hypothesis import strategies as st


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


_MATH = {
    "sin": math.sin,
    "cos": math.cos,
    "tanh": math.tanh,
    "sigmoid": _sigmoid,
    "exp": math.exp,
    "log": math.log,
}


def unary(name: str, x: Any) -> Any:
    """``x.name()`` for a Scalar, Dual or Expr; the ``math`` function for a float."""
    if isinstance(x, (float, int)):
        return _MATH[name](x)
    return getattr(x, name)()


# op name -> (number of operands, the operation on generic values)
OPS = {
    "add": (2, lambda a, b: a + b),
    "sub": (2, lambda a, b: a - b),
    "mul": (2, lambda a, b: a * b),
    "div": (2, lambda a, b: a / (b * b + 1.0)),
    "radd": (1, lambda a: 0.5 + a),
    "rsub": (1, lambda a: 1.0 - a),
    "rmul": (1, lambda a: 1.5 * a),
    "rdiv": (1, lambda a: 2.0 / (a * a + 1.0)),
    "neg": (1, lambda a: -a),
    "sin": (1, lambda a: unary("sin", a)),
    "cos": (1, lambda a: unary("cos", a)),
    "tanh": (1, lambda a: unary("tanh", a)),
    "sigmoid": (1, lambda a: unary("sigmoid", a)),
    "gauss": (1, lambda a: unary("exp", -(a * a))),
    "log": (1, lambda a: unary("log", a * a + 1.0)),
}

#: The operations symbolic expressions support (no tanh or sigmoid nodes).
SYMBOLIC_OPS = tuple(op for op in OPS if op not in ("tanh", "sigmoid"))


@dataclass(frozen=True)
class Program:
    """``n_inputs`` inputs, then ``steps`` of ``(op, operand indices)``; the value
    list grows by one per step. ``outputs`` are indices of the returned values."""

    n_inputs: int
    steps: Tuple[Tuple[str, Tuple[int, ...]], ...]
    outputs: Tuple[int, ...]

    def values(self, *xs: Any) -> List[Any]:
        assert len(xs) == self.n_inputs, (len(xs), self.n_inputs)
        vals = list(xs)
        for op, args in self.steps:
            vals.append(OPS[op][1](*(vals[i] for i in args)))
        return vals

    def __call__(self, *xs: Any) -> Any:
        """The single output (the last value)."""
        return self.values(*xs)[-1]

    def many(self, *xs: Any) -> List[Any]:
        """All the outputs (for Jacobians)."""
        vals = self.values(*xs)
        return [vals[i] for i in self.outputs]

    def __repr__(self) -> str:
        lines = [f"Program(n_inputs={self.n_inputs}):"]
        for k, (op, args) in enumerate(self.steps):
            operands = ", ".join(f"v{i}" for i in args)
            lines.append(f"  v{self.n_inputs + k} = {op}({operands})")
        lines.append(f"  outputs {list(self.outputs)}")
        return "\n".join(lines)


@st.composite
def programs(
    draw: Any,
    min_inputs: int = 1,
    max_inputs: int = 3,
    max_steps: int = 5,
    ops: Sequence[str] = tuple(OPS),
    max_outputs: int = 1,
) -> Program:
    """A random :class:`Program` using ``ops``."""
    n_inputs = draw(st.integers(min_inputs, max_inputs))
    n_outputs = draw(st.integers(1, max_outputs))
    n_steps = draw(st.integers(max(1, n_outputs), max(max_steps, n_outputs)))
    steps = []
    for k in range(n_steps):
        op = draw(st.sampled_from(list(ops)))
        arity = OPS[op][0]
        available = n_inputs + k
        # Favour the newest value so that programs are deep, not just wide.
        args = tuple(
            draw(st.one_of(st.just(available - 1), st.integers(0, available - 1)))
            for _ in range(arity)
        )
        steps.append((op, args))
    total = n_inputs + n_steps
    outputs = tuple(range(total - n_outputs, total))
    return Program(n_inputs, tuple(steps), outputs)


#: Inputs for programs: moderate, so that products of a few stay well scaled.
program_inputs = st.floats(-2.0, 2.0, allow_nan=False, allow_infinity=False)

#: Any moderate float.
small_floats = st.floats(-10.0, 10.0, allow_nan=False, allow_infinity=False)

#: Positive floats, away from 0 (for log, 1/x).
positive_floats = st.floats(0.1, 10.0, allow_nan=False, allow_infinity=False)

#: Nonzero floats, both signs, away from 0 (for 1/x).
nonzero_floats = st.one_of(
    st.floats(0.1, 10.0, allow_nan=False), st.floats(-10.0, -0.1, allow_nan=False)
)

#: Floats away from relu's kink at 0, so central differences are valid there.
away_from_zero = st.one_of(
    st.floats(0.01, 10.0, allow_nan=False), st.floats(-10.0, -0.01, allow_nan=False)
)

#: Seeds for the backward pass.
seeds = st.floats(-3.0, 3.0, allow_nan=False, allow_infinity=False)


def program_with_inputs(**kwargs: Any) -> st.SearchStrategy:
    """``(program, inputs)`` pairs with the right number of inputs."""
    return programs(**kwargs).flatmap(
        lambda p: st.tuples(
            st.just(p),
            st.lists(program_inputs, min_size=p.n_inputs, max_size=p.n_inputs),
        )
    )


def assert_close(
    actual: float, expected: float, rel: float = 1e-5, abs_: float = 1e-5
) -> None:
    """``actual`` within ``rel * |expected| + abs_`` of ``expected``."""
    assert math.isfinite(actual), f"got {actual}, expected {expected}"
    assert (
        abs(actual - expected) <= rel * abs(expected) + abs_
    ), f"got {actual}, expected {expected} (difference {actual - expected:.3g})"
