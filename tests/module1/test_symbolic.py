"""Task 1.7: symbolic differentiation, and expression swell against autodiff."""

import math

import pytest
from hypothesis import given

from module1_scalar_autodiff import swell
from module1_scalar_autodiff import symbolic as S
from module1_scalar_autodiff.expr_text import to_string
from module1_scalar_autodiff.scalar import Scalar
from module1_scalar_autodiff.swell import size
from module1_scalar_autodiff.symbolic import Const, Var, diff, evaluate

from .oracle import central_difference
from .strategies import SYMBOLIC_OPS, positive_floats, program_with_inputs

pytestmark = pytest.mark.task1_7

NAMES = ["x", "y", "z"]


def _symbols(n: int):
    return [Var(name) for name in NAMES[:n]]


@given(program_with_inputs(max_inputs=3, max_steps=6, ops=SYMBOLIC_OPS))
def test_evaluate_matches_math(case) -> None:
    program, xs = case
    expr = program(*_symbols(len(xs)))
    values = dict(zip(NAMES, xs))
    assert evaluate(expr, **values) == pytest.approx(program(*xs), rel=1e-12, abs=1e-12)


@given(program_with_inputs(max_inputs=3, max_steps=6, ops=SYMBOLIC_OPS))
def test_diff_matches_central_differences(case) -> None:
    program, xs = case
    expr = program(*_symbols(len(xs)))
    values = dict(zip(NAMES, xs))
    scale = max(1.0, abs(program(*xs)))
    for j, name in enumerate(NAMES[: len(xs)]):
        derivative = evaluate(diff(expr, name), **values)
        assert derivative == pytest.approx(
            central_difference(program, *xs, arg=j), rel=1e-5, abs=1e-5 * scale
        )


@given(positive_floats)
def test_each_rule(v: float) -> None:
    x, y = Var("x"), Var("y")
    cases = [
        (Const(4.0), 0.0),
        (y, 0.0),
        (x, 1.0),
        (x + 3, 1.0),
        (3 - x, -1.0),
        (x * y, 2.0),  # y = 2
        (2 * x, 2.0),
        (x / y, 0.5),
        (1 / x, -1 / v**2),
        (-x, -1.0),
        (x**3, 3 * v**2),
        (x**-0.5, -0.5 * v**-1.5),
        ((x * x + 1) ** 3, 3 * (v * v + 1) ** 2 * 2 * v),  # the chain rule too
        (S.sin(x) ** 2, 2 * math.sin(v) * math.cos(v)),
        (S.log(x), 1 / v),
        (S.exp(x), math.exp(v)),
        (S.sin(x), math.cos(v)),
        (S.cos(x), -math.sin(v)),
        (x.log() * x.exp(), math.exp(v) * (1 / v + math.log(v))),
    ]
    for expr, expected in cases:
        got = evaluate(diff(expr, "x"), x=v, y=2.0)
        assert got == pytest.approx(expected, rel=1e-9, abs=1e-12), to_string(expr)


def test_diff_returns_an_expression_in_the_same_variables() -> None:
    x, y = Var("x"), Var("y")
    d = diff(x * x * y, "x")
    assert isinstance(d, S.Expr)
    assert evaluate(d, x=3.0, y=5.0) == pytest.approx(30.0)
    dd = diff(d, "x")  # derivatives are expressions, so they differentiate again
    assert evaluate(dd, x=3.0, y=5.0) == pytest.approx(10.0)
    assert evaluate(diff(3.0, "x")) == 0.0


def _autodiff_operations(out: Scalar) -> int:
    """Function nodes in the Scalar graph of out (counted without Task 1.4)."""
    seen, stack, count = set(), [out], 0
    while stack:
        v = stack.pop()
        if v.is_constant() or v.unique_id in seen:
            continue
        seen.add(v.unique_id)
        count += not v.is_leaf
        stack.extend(v.parents)
    return count


def test_expression_swell_on_the_logistic_map() -> None:
    derivative_sizes, operations = [], []
    for n in range(1, 10):
        ln = swell.logistic_map(Var("x"), n)
        d = diff(ln, "x")
        derivative_sizes.append(size(d))
        operations.append(_autodiff_operations(swell.logistic_map(Scalar(0.3), n)))
        # The swollen expression is still right: by the chain rule,
        # l'_{k+1} = 4 (1 - 2 l_k) l'_k with l'_0 = 1.
        value, slope = 0.3, 1.0
        for _ in range(n):
            value, slope = (
                4.0 * value * (1.0 - value),
                4.0 * (1.0 - 2.0 * value) * slope,
            )
        assert evaluate(d, x=0.3) == pytest.approx(slope, rel=1e-9)
    # Exponential: every step at least doubles the derivative's size ...
    for a, b in zip(derivative_sizes, derivative_sizes[1:]):
        assert b >= 2 * a
    assert derivative_sizes[-1] > 2**9
    # ... while autodiff records the same number of operations per step.
    steps = {b - a for a, b in zip(operations, operations[1:])}
    assert len(steps) == 1 and operations[0] == steps.pop()


def test_swell_table() -> None:
    rows = swell.swell_table(6)
    assert [r.n for r in rows] == list(range(1, 7))
    for r in rows:
        ln = swell.logistic_map(Var("x"), r.n)
        assert r.expression == size(ln)
        assert r.derivative == size(diff(ln, "x"))
        assert r.simplified <= r.derivative
        assert r.autodiff_ops == 4 * r.n


class CountedConst(Const):
    """A constant that counts how often its value is read."""

    reads = 0

    @property
    def value(self) -> float:  # type: ignore[override]
        CountedConst.reads += 1
        return 2.0


def test_evaluate_computes_a_shared_sub_expression_once() -> None:
    # ``shared`` appears 1024 times in the tree, but is one object: evaluate must
    # memoize by id(node) (the docstring), or it reads the constant 1024 times.
    c = object.__new__(CountedConst)  # (its value is a property: no __init__)
    shared = c * Var("x")
    e = shared
    for _ in range(10):
        e = e + e
    CountedConst.reads = 0
    assert evaluate(e, x=1.5) == 2.0 * 1.5 * 1024
    assert CountedConst.reads <= 2, (
        f"evaluate computed a shared sub-expression {CountedConst.reads} times: "
        "keep a dict from id(node) to its value, and compute each node once"
    )


# The guide's swell table: nodes of l_n and of dl_n/dx by the textbook rules.
GUIDE_SIZES = {1: (7, 19), 2: (19, 73), 4: (91, 577), 6: (379, 3457)}


@pytest.mark.parametrize("n", sorted(GUIDE_SIZES))
def test_diff_applies_the_rules_without_simplifying(n: int) -> None:
    expression, derivative = GUIDE_SIZES[n]
    ln = swell.logistic_map(Var("x"), n)
    assert size(ln) == expression
    assert size(diff(ln, "x")) == derivative, (
        f"diff(l_{n}, 'x') has {size(diff(ln, 'x'))} nodes where the textbook rules "
        f"give {derivative} (the guide's swell table): diff must not simplify (no "
        "dropping x * 0 or x * 1): that is simplify's job"
    )
    # The product rule keeps both terms even where a factor's derivative is 0.
    x = Var("x")
    assert size(diff(x * 3.0, "x")) == 7  # (1 * 3) + (x * 0)


def test_size_counts_tree_nodes() -> None:
    x = Var("x")
    shared = x * x  # 3 nodes
    assert size(shared) == 3
    assert size(shared + shared) == 7  # the shared subtree counts twice


@given(program_with_inputs(max_inputs=2, max_steps=6, ops=SYMBOLIC_OPS))
def test_simplify_keeps_the_value(case) -> None:
    program, xs = case
    expr = diff(program(*_symbols(len(xs))), "x")
    simple = swell.simplify(expr)
    values = dict(zip(NAMES, xs))
    assert size(simple) <= size(expr)
    assert evaluate(simple, **values) == pytest.approx(
        evaluate(expr, **values), rel=1e-9, abs=1e-12
    )


def test_simplify_rules_on_either_side() -> None:
    x = Var("x")
    assert to_string(swell.simplify(0.0 + x * 1.0 + 0.0 * x)) == "x"
    assert to_string(swell.simplify((1.0 * x - 0.0) / 1.0 + (0.0 - x))) == "(x + -(x))"
    assert to_string(swell.simplify(0.0 / x * (x * 0.0))) == "0"
    # A fold that cannot be done (0^-1, log(-1)) leaves the node as it is.
    assert to_string(swell.simplify(Const(0.0) ** -1 + S.log(-1.0))) == (
        "((0)^-1 + log(-1))"
    )


def test_bad_input() -> None:
    x = Var("x")
    with pytest.raises(ValueError, match="'y'"):
        evaluate(x * Var("y"), x=1.0)
    with pytest.raises(TypeError, match="exponent"):
        x**x
    with pytest.raises(TypeError, match="str"):
        x + "1"
    with pytest.raises(ValueError, match="log"):
        evaluate(S.log(x), x=-1.0)
