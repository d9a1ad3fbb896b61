"""Task 1.4: topological sort, backpropagate and every backward."""

import itertools
import math
from fractions import Fraction
from typing import Any, List, Tuple

import pytest
from hypothesis import given
from hypothesis import strategies as st

from module1_scalar_autodiff.autodiff import Variable, backpropagate, topological_sort
from module1_scalar_autodiff.context import Context
from module1_scalar_autodiff.scalar import Scalar
from module1_scalar_autodiff.scalar_functions import EQ, GT, LT

from .oracle import central_difference
from .strategies import (
    away_from_zero,
    nonzero_floats,
    positive_floats,
    program_with_inputs,
    programs,
    seeds,
    small_floats,
)

pytestmark = pytest.mark.task1_4


def grad(x: Scalar) -> float:
    """A leaf's derivative, 0.0 if the backward pass never reached it."""
    return 0.0 if x.derivative is None else x.derivative


def check_gradients(f, *values: float, d_output: float = 1.0) -> None:
    """Backward through f on Scalars against central differences, every input."""
    xs = [Scalar(v) for v in values]
    out = f(*xs)
    out.backward(d_output)

    def on_floats(*vs: float) -> float:
        return f(*[Scalar(v, requires_grad=False) for v in vs]).data

    scale = max(1.0, abs(out.data))
    for i, x in enumerate(xs):
        expected = d_output * central_difference(on_floats, *values, arg=i)
        assert grad(x) == pytest.approx(
            expected, rel=1e-5, abs=1e-5 * scale
        ), f"derivative {i} of {values}"


# ------------------------------------------------------------ every backward
UNARY = [
    ("exp", small_floats),
    ("sigmoid", small_floats),
    ("relu", away_from_zero),
    ("sin", small_floats),
    ("cos", small_floats),
    ("tanh", small_floats),
    ("log", positive_floats),
]


@pytest.mark.parametrize("name, values", UNARY, ids=[u[0] for u in UNARY])
def test_unary_backward(name, values) -> None:
    @given(values, seeds)
    def check(x: float, d: float) -> None:
        check_gradients(lambda a: getattr(a, name)(), x, d_output=d)

    check()


@given(small_floats, nonzero_floats, seeds)
def test_binary_backward(a: float, b: float, d: float) -> None:
    check_gradients(lambda x, y: x + y, a, b, d_output=d)
    check_gradients(lambda x, y: x - y, a, b, d_output=d)
    check_gradients(lambda x, y: x * y, a, b, d_output=d)
    check_gradients(lambda x, y: x / y, a, b, d_output=d)
    check_gradients(lambda x, y: -x, a, b, d_output=d)
    check_gradients(lambda x, y: 2.0 / y - 3.0 * x + (1.0 - x), a, b, d_output=d)


@given(small_floats, small_floats)
def test_comparisons_have_zero_derivative(a: float, b: float) -> None:
    for fn in (LT, GT, EQ):
        x, y = Scalar(a), Scalar(b)
        fn.apply(x, y).backward()
        assert x.derivative == 0.0 and y.derivative == 0.0


@given(program_with_inputs(max_inputs=3, max_steps=6), seeds)
def test_random_compositions_against_central_differences(case, d: float) -> None:
    program, inputs = case
    check_gradients(program, *inputs, d_output=d)


# ------------------------------------------------------- topological order
def _nodes_behind(out: Scalar) -> List[Scalar]:
    """Every non-constant node of the graph, found without the code under test."""
    found, stack, seen = [], [out], set()
    while stack:
        v = stack.pop()
        if v.is_constant() or v.unique_id in seen:
            continue
        seen.add(v.unique_id)
        found.append(v)
        stack.extend(v.parents)
    return found


@given(program_with_inputs(max_inputs=3, max_steps=8))
def test_topological_order(case) -> None:
    program, inputs = case
    out = program(*[Scalar(v) for v in inputs])
    order = topological_sort(out)
    ids = [v.unique_id for v in order]
    assert len(ids) == len(set(ids)), "each variable appears once"
    assert order[0] is out
    assert set(ids) == {v.unique_id for v in _nodes_behind(out)}
    position = {v.unique_id: k for k, v in enumerate(order)}
    for v in order:
        assert not v.is_constant()
        for parent in v.parents:
            if not parent.is_constant():
                assert position[v.unique_id] < position[parent.unique_id]


@pytest.mark.parametrize("shared_first", [True, False])
def test_a_shared_variable_comes_after_every_variable_that_uses_it(
    shared_first: bool,
) -> None:
    # a is used by b and by out directly: a depth-first *pre-order* reaches a
    # through the short path first and lists it before b, which uses it. (Either
    # order of out's parents, so that both ways of walking them are tried.)
    x = Scalar(0.5)
    a = x.sin()
    b = a * 2.0
    out = a + b if shared_first else b + a
    order = topological_sort(out)
    position = {v.unique_id: k for k, v in enumerate(order)}
    assert position[b.unique_id] < position[a.unique_id], (
        "topological_sort listed a variable before another variable that uses it: "
        "a depth-first pre-order is not a topological order; emit a variable only "
        "after every variable computed from it (depth-first post-order, reversed)"
    )


def test_topological_sort_of_a_leaf_and_of_a_constant() -> None:
    x = Scalar(1.0)
    assert topological_sort(x) == [x]
    assert topological_sort(Scalar(1.0, requires_grad=False)) == []


def test_a_long_chain_does_not_hit_the_recursion_limit() -> None:
    x = Scalar(0.5)
    y = x
    for _ in range(10_000):
        y = y * 1.0001 + 0.0
    order = topological_sort(y)
    assert len(order) == 20_001
    y.backward()
    assert x.derivative == pytest.approx(1.0001**10_000, rel=1e-9)


# ------------------------------------------------------------ accumulation
def test_derivatives_add_over_all_paths() -> None:
    x = Scalar(0.7)
    a = x.sin()
    # a feeds four successors: d/dx = cos(x) * (2a + 3 + e^a + 1) ... by paths
    y = a * a + a * 3.0 + a.exp() + a
    y.backward()
    s = math.sin(0.7)
    assert x.derivative == pytest.approx(math.cos(0.7) * (2 * s + 3 + math.exp(s) + 1))


def test_each_node_is_visited_once(monkeypatch) -> None:
    calls: List[int] = []
    original = Scalar.chain_rule

    def counting(self, d_output):
        calls.append(self.unique_id)
        return original(self, d_output)

    monkeypatch.setattr(Scalar, "chain_rule", counting)
    x = Scalar(0.3)
    a = x.sin()
    b = a * a + a.exp() * a + a.cos()
    # A diamond ladder: without visiting once, the calls would double per rung.
    c = b
    for _ in range(20):
        c = c * c.tanh() + c
    c.backward()
    assert len(calls) == len(set(calls))
    assert a.unique_id in calls and x.unique_id not in calls


@given(small_floats)
def test_leaves_accumulate_across_backward_calls(v: float) -> None:
    x = Scalar(v)
    y = x * x
    y.backward()
    first = x.derivative
    assert first == pytest.approx(2 * v)
    (x * 3.0).backward()
    assert x.derivative == pytest.approx(2 * v + 3)
    x.zero_grad()
    assert x.derivative is None
    (x * 3.0).backward(2.0)
    assert x.derivative == pytest.approx(6.0)


def test_only_leaves_and_retained_values_keep_derivatives() -> None:
    x = Scalar(2.0)
    h = x * x
    kept = (h + 1.0).retain_grad()
    out = kept * 3.0
    out.backward()
    assert h.derivative is None
    assert kept.derivative == pytest.approx(3.0)
    assert x.derivative == pytest.approx(12.0)
    r = (x * 5.0).retain_grad()
    r.backward(2.0)  # the root itself, retained, receives the seed
    assert r.derivative == 2.0


def test_nan_propagates_through_backward() -> None:
    x, y = Scalar(float("nan")), Scalar(2.0)
    z = (x * y + x.exp() + x.sigmoid()).log() + y
    z.backward()  # completes, like PyTorch
    assert math.isnan(z.data)
    assert math.isnan(x.derivative) and math.isnan(y.derivative)
    w = Scalar(float("inf"))
    v = w * 2.0 - w  # inf - inf: the value is NaN, the local derivatives are not
    v.backward()
    assert math.isnan(v.data)
    assert w.derivative == 1.0


def test_backward_on_a_constant_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="constant"):
        (Scalar(2.0, requires_grad=False) * 3.0).backward()


def test_context_saves_values() -> None:
    ctx = Context(needs_input_grad=(True, False))
    ctx.save_for_backward(1.0, 2.0)
    assert ctx.saved_values == (1.0, 2.0)
    assert ctx.needs_input_grad == (True, False)
    assert isinstance(Scalar(1.0), Variable)


# ------------------------------------------------ the engine is generic
class Node:
    """A minimal Variable whose local derivatives are given numbers: the engine
    must work on the protocol alone, with any derivative type that has ``+``."""

    _ids = itertools.count()

    def __init__(self, *parents_and_locals: Tuple["Node", Any]) -> None:
        self.unique_id = next(Node._ids)
        self.retains_grad = False
        self._inputs = parents_and_locals
        self.derivative = None
        self.constant = False

    @property
    def is_leaf(self) -> bool:
        return not self._inputs and not self.constant

    def is_constant(self) -> bool:
        return self.constant

    @property
    def parents(self):
        return [p for p, _ in self._inputs]

    def chain_rule(self, d_output):
        return [(p, d_output * local) for p, local in self._inputs if not p.constant]

    def accumulate_derivative(self, d) -> None:
        self.derivative = d if self.derivative is None else self.derivative + d


def test_engine_with_exact_fractions() -> None:
    x, y = Node(), Node()
    c = Node()
    c.constant = True
    a = Node((x, Fraction(1, 3)), (y, Fraction(2)))
    b = Node((a, Fraction(5)), (x, Fraction(1, 7)), (c, Fraction(100)))
    out = Node((a, Fraction(1, 2)), (b, Fraction(3)))
    order = topological_sort(out)
    assert c not in order and len(order) == 5
    backpropagate(out, Fraction(1))
    # out = a/2 + 3b, b = 5a + x/7 (+ constant), a = x/3 + 2y
    da = Fraction(1, 2) + 3 * 5
    assert x.derivative == da * Fraction(1, 3) + 3 * Fraction(1, 7)
    assert y.derivative == da * 2
    assert c.derivative is None


@given(st.integers(2, 30))
def test_engine_on_a_wide_fan_in(n: int) -> None:
    leaves = [Node() for _ in range(n)]
    out = Node(*[(leaf, Fraction(k + 1)) for k, leaf in enumerate(leaves)])
    backpropagate(out, Fraction(2))
    assert [leaf.derivative for leaf in leaves] == [2 * (k + 1) for k in range(n)]


@given(programs(max_inputs=2, max_steps=6))
def test_the_output_seed_scales_every_derivative(program) -> None:
    xs1 = [Scalar(0.3 * (k + 1)) for k in range(program.n_inputs)]
    xs2 = [Scalar(0.3 * (k + 1)) for k in range(program.n_inputs)]
    program(*xs1).backward(1.0)
    program(*xs2).backward(-2.5)
    for a, b in zip(xs1, xs2):
        assert grad(b) == pytest.approx(-2.5 * grad(a))
