"""Task 1.6: dual numbers, jvp, and the Jacobian by forward and by reverse mode."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from module1_scalar_autodiff.dual import Dual, jacobian, jvp

from .oracle import central_difference
from .strategies import (
    away_from_zero,
    nonzero_floats,
    positive_floats,
    program_inputs,
    programs,
    seeds,
    small_floats,
)

pytestmark = pytest.mark.task1_6


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


UNARY = [
    ("exp", math.exp, small_floats),
    ("sigmoid", _sigmoid, small_floats),
    ("relu", lambda x: max(x, 0.0), away_from_zero),
    ("sin", math.sin, small_floats),
    ("cos", math.cos, small_floats),
    ("tanh", math.tanh, small_floats),
    ("log", math.log, positive_floats),
    ("inv", lambda x: 1.0 / x, nonzero_floats),
]


@pytest.mark.parametrize("name, oracle, values", UNARY, ids=[u[0] for u in UNARY])
def test_unary_value_and_tangent(name, oracle, values) -> None:
    @given(values, seeds)
    def check(x: float, t: float) -> None:
        out = getattr(Dual(x, t), name)()
        assert isinstance(out, Dual)
        assert out.value == pytest.approx(oracle(x), rel=1e-12, abs=1e-12)
        slope = central_difference(oracle, x)
        assert out.tangent == pytest.approx(t * slope, rel=1e-5, abs=1e-6)

    check()


@given(small_floats, nonzero_floats, seeds, seeds)
def test_binary_rules(a: float, b: float, ta: float, tb: float) -> None:
    x, y = Dual(a, ta), Dual(b, tb)
    cases = [
        (x + y, a + b, ta + tb),
        (x - y, a - b, ta - tb),
        (x * y, a * b, ta * b + a * tb),
        (x / y, a / b, (ta * b - a * tb) / (b * b)),
        (-x, -a, -ta),
        (2.0 * y, 2 * b, 2 * tb),
        (1.0 - y, 1 - b, -tb),
        (3.0 / y, 3 / b, -3 * tb / (b * b)),
        (y + 1, b + 1, tb),
    ]
    for out, value, tangent in cases:
        assert isinstance(out, Dual)
        assert out.value == pytest.approx(value, rel=1e-12, abs=1e-12)
        assert out.tangent == pytest.approx(tangent, rel=1e-9, abs=1e-9)


def test_comparisons_have_zero_tangent() -> None:
    x, y = Dual(1.0, 5.0), Dual(2.0, -1.0)
    for out, value in ((x < y, 1.0), (x > y, 0.0), (x == y, 0.0), (x == 1.0, 1.0)):
        assert isinstance(out, Dual) and out.value == value and out.tangent == 0.0
    assert bool(x < y)


@given(
    programs(max_inputs=3, max_steps=6).flatmap(
        lambda p: st.tuples(
            st.just(p),
            st.lists(program_inputs, min_size=p.n_inputs, max_size=p.n_inputs),
            st.lists(seeds, min_size=p.n_inputs, max_size=p.n_inputs),
        )
    )
)
def test_jvp_is_a_directional_derivative(case) -> None:
    program, xs, vs = case
    value, tangent = jvp(program, xs, vs)
    assert value == pytest.approx(program(*xs), rel=1e-12, abs=1e-12)

    def along(t: float) -> float:
        return program(*[x + t * v for x, v in zip(xs, vs)])

    expected = central_difference(along, 0.0)
    scale = max(1.0, abs(value))
    assert tangent == pytest.approx(expected, rel=1e-5, abs=1e-5 * scale)


def test_jvp_with_several_outputs_and_constants() -> None:
    values, tangents = jvp(lambda a, b: [a * b, a.sin(), 7.0], [2.0, 3.0], [1.0, 0.0])
    assert values == pytest.approx([6.0, math.sin(2.0), 7.0])
    assert tangents == pytest.approx([3.0, math.cos(2.0), 0.0])
    value, tangent = jvp(lambda a: 4.0, [1.0], [1.0])
    assert (value, tangent) == (4.0, 0.0)


def _jacobian_by_differences(program, xs):
    rows = []
    for i in range(len(program.outputs)):

        def out_i(*v, i=i):
            return program.many(*v)[i]

        rows.append([central_difference(out_i, *xs, arg=j) for j in range(len(xs))])
    return rows


@given(
    programs(max_inputs=4, max_steps=7, max_outputs=3).flatmap(
        lambda p: st.tuples(
            st.just(p),
            st.lists(program_inputs, min_size=p.n_inputs, max_size=p.n_inputs),
        )
    )
)
def test_forward_and_reverse_jacobians_agree(case) -> None:
    program, xs = case
    n, m = program.n_inputs, len(program.outputs)
    forward, forward_passes = jacobian(program.many, xs, mode="forward")
    reverse, reverse_passes = jacobian(program.many, xs, mode="reverse")
    assert (forward_passes, reverse_passes) == (n, m)
    expected = _jacobian_by_differences(program, xs)
    scale = max([1.0] + [abs(float(v)) for v in program.many(*xs)])
    assert len(forward) == len(reverse) == m
    for i in range(m):
        assert len(forward[i]) == len(reverse[i]) == n
        for j in range(n):
            assert forward[i][j] == pytest.approx(reverse[i][j], rel=1e-9, abs=1e-9)
            assert forward[i][j] == pytest.approx(
                expected[i][j], rel=1e-5, abs=1e-5 * scale
            )


def test_pass_counts_show_when_each_mode_wins() -> None:
    def many_to_one(*xs):
        total = 0.0
        for x in xs:
            total = total + x * x
        return total

    xs = [0.1 * k for k in range(8)]
    J_f, passes_f = jacobian(many_to_one, xs, mode="forward")
    J_r, passes_r = jacobian(many_to_one, xs, mode="reverse")
    assert (passes_f, passes_r) == (8, 1)  # n >> m: reverse mode wins
    assert J_f[0] == pytest.approx([2 * x for x in xs])
    assert J_r[0] == pytest.approx([2 * x for x in xs]) and len(J_r) == 1

    def one_to_many(x):
        return [x * k for k in range(6)]

    J_f, passes_f = jacobian(one_to_many, [2.0], mode="forward")
    J_r, passes_r = jacobian(one_to_many, [2.0], mode="reverse")
    assert (passes_f, passes_r) == (1, 6)  # m >> n: forward mode wins
    assert J_f == J_r == [[float(k)] for k in range(6)]


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="2 primals and 3 tangents"):
        jvp(lambda a, b: a * b, [1.0, 2.0], [1.0, 0.0, 0.0])
    with pytest.raises(TypeError, match="str"):
        Dual(1.0, 1.0) + "x"
    with pytest.raises(TypeError, match="str"):
        Dual("1.0")
    with pytest.raises(ValueError, match="mode"):
        jacobian(lambda a: a, [1.0], mode="sideways")
    with pytest.raises(ValueError, match="log"):
        Dual(-1.0, 1.0).log()


def test_nan_propagates() -> None:
    out = (Dual(float("nan"), 1.0) * 2.0).exp()
    assert math.isnan(out.value) and math.isnan(out.tangent)
