"""Task 1.2: Scalar, the ScalarFunction forwards and operator overloading."""

import math

import pytest
from hypothesis import given

from module1_scalar_autodiff import scalar_functions as F
from module1_scalar_autodiff.context import Context
from module1_scalar_autodiff.scalar import Scalar, ScalarHistory

from .strategies import (
    nonzero_floats,
    positive_floats,
    program_with_inputs,
    small_floats,
)

pytestmark = pytest.mark.task1_2


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


UNARY = [
    ("exp", math.exp, small_floats),
    ("sigmoid", _sigmoid, small_floats),
    ("relu", lambda x: max(x, 0.0), small_floats),
    ("sin", math.sin, small_floats),
    ("cos", math.cos, small_floats),
    ("tanh", math.tanh, small_floats),
    ("log", math.log, positive_floats),
]


@pytest.mark.parametrize("name, oracle, values", UNARY, ids=[u[0] for u in UNARY])
def test_unary_methods_match_math(name, oracle, values) -> None:
    @given(values)
    def check(x: float) -> None:
        out = getattr(Scalar(x), name)()
        assert isinstance(out, Scalar)
        assert out.data == pytest.approx(oracle(x), rel=1e-12, abs=1e-12)

    check()


@given(small_floats, nonzero_floats)
def test_binary_operators_match_floats(a: float, b: float) -> None:
    x, y = Scalar(a), Scalar(b)
    assert (x + y).data == pytest.approx(a + b)
    assert (x - y).data == pytest.approx(a - b)
    assert (x * y).data == pytest.approx(a * b)
    assert (x / y).data == pytest.approx(a / b)
    assert (-x).data == -a
    assert (x < y).data == float(a < b)
    assert (x > y).data == float(a > b)
    assert (x == y).data == float(a == b)
    assert (x == Scalar(a)).data == 1.0


@given(small_floats, nonzero_floats)
def test_reflected_operators_with_plain_numbers(a: float, b: float) -> None:
    x = Scalar(b)
    assert (a + x).data == pytest.approx(a + b)
    assert (a - x).data == pytest.approx(a - b)
    assert (a * x).data == pytest.approx(a * b)
    assert (a / x).data == pytest.approx(a / b)
    assert (x + a).data == pytest.approx(b + a)
    assert (x - a).data == pytest.approx(b - a)
    assert (x * a).data == pytest.approx(b * a)
    assert (a < x).data == float(a < b)  # Python turns this into x > a
    assert (a > x).data == float(a > b)
    for out in (a + x, a - x, a * x, a / x, x + a):
        assert isinstance(out, Scalar)


@given(program_with_inputs(max_inputs=3, max_steps=6))
def test_random_compositions_match_math(case) -> None:
    program, inputs = case
    expected = program(*inputs)  # on floats, through math
    out = program(*[Scalar(v) for v in inputs])
    assert isinstance(out, Scalar)
    assert out.data == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_comparisons_are_scalars_usable_in_if() -> None:
    x, y = Scalar(1.0), Scalar(2.0)
    assert isinstance(x < y, Scalar)
    assert bool(x < y) and not bool(x > y) and not bool(x == y)


@pytest.mark.parametrize("near", [1.005, 1.0 + 1e-9, 1.0 - 1e-9])
def test_comparisons_are_exact(near: float) -> None:
    # Random floats are almost never within is_close's 1e-2 of each other, so
    # neighbours decide whether ==, < and > are exact.
    x = Scalar(1.0)
    assert (x == near).data == 0.0 and (x == Scalar(near)).data == 0.0
    assert (x < near).data == float(1.0 < near)
    assert (x > near).data == float(1.0 > near)
    assert (x == 1.0).data == 1.0 and (x < 1.0).data == 0.0 and (x > 1.0).data == 0.0


def test_functions_apply_directly() -> None:
    x = Scalar(3.0)
    assert F.Add.apply(x, 2.0).data == 5.0
    assert F.Mul.apply(2.0, x).data == 6.0
    assert F.Inv.apply(x).data == pytest.approx(1 / 3)
    assert F.Neg.apply(x).data == -3.0
    assert F.LT.apply(x, 4.0).data == 1.0
    assert F.GT.apply(x, 4.0).data == 0.0
    assert F.EQ.apply(x, 3).data == 1.0
    ctx = Context()
    assert F.Mul.forward(ctx, 2.0, 5.0) == 10.0
    assert F.Log.forward(Context(), math.e) == pytest.approx(1.0)


def test_history_records_function_and_inputs() -> None:
    x, y = Scalar(2.0), Scalar(3.0)
    z = x * y
    assert z.history.last_fn is F.Mul
    assert len(z.history.inputs) == 2
    assert z.parents[0] is x and z.parents[1] is y
    assert not z.is_leaf and not z.is_constant()
    assert x.is_leaf and not x.is_constant()
    assert x.history == ScalarHistory()
    w = z.log()
    assert w.history.last_fn is F.Log and w.parents[0] is z


def test_constants_never_get_a_history() -> None:
    x = Scalar(2.0)
    z = 3.0 * x
    constant = z.parents[0]
    assert constant.data == 3.0 and constant.is_constant()
    assert constant.history is None
    c = Scalar(4.0, requires_grad=False)
    assert c.is_constant() and not c.is_leaf
    # Only constants in: the result is a constant too (nothing to differentiate).
    assert (c * 2.0 + c.exp()).is_constant()
    assert F.Add.apply(1.0, 2.0).is_constant()
    ctx = (x * 3.0).history.ctx
    assert ctx.needs_input_grad == (True, False)


def test_sigmoid_is_stable_for_large_inputs() -> None:
    assert Scalar(-1000.0).sigmoid().data == pytest.approx(0.0, abs=1e-300)
    assert Scalar(1000.0).sigmoid().data == 1.0


def test_non_numbers_raise_type_error_naming_the_type() -> None:
    x = Scalar(1.0)
    with pytest.raises(TypeError, match="str"):
        F.Add.apply(x, "2")
    with pytest.raises(TypeError, match="list"):
        x * [1.0]
    with pytest.raises(TypeError, match="NoneType"):
        x - None
    with pytest.raises(TypeError, match="complex"):
        F.Mul.apply(x, 1j)
    with pytest.raises(TypeError, match="str"):
        Scalar("1.0")
    with pytest.raises(TypeError, match="got Scalar: .*; use its .data"):
        Scalar(x)


def test_domain_errors_name_the_value() -> None:
    with pytest.raises(ValueError, match="log"):
        Scalar(-1.0).log()
    with pytest.raises(ValueError, match="inv"):
        Scalar(1.0) / Scalar(0.0)


def test_no_cycle_through_the_public_api() -> None:
    # A history is fixed when a value is made, from values that already exist,
    # so the graph is acyclic; the history cannot be reassigned afterwards.
    x = Scalar(1.0)
    y = x * 2.0
    with pytest.raises(AttributeError):
        y.history = ScalarHistory(F.Neg, Context(), (y,))
    with pytest.raises(AttributeError):
        y.parents = (y,)
    assert y.parents[0] is x


def test_unique_ids_and_values() -> None:
    a, b = Scalar(1), Scalar(1)
    assert a.unique_id != b.unique_id
    assert isinstance(a.data, float) and a.data == 1.0
    assert a.derivative is None
    assert repr(Scalar(2.5)) == "Scalar(2.5)"
    assert float(Scalar(2.5)) == 2.5


def test_requires_grad_and_detach() -> None:
    c = Scalar(2.0, requires_grad=False)
    assert c.requires_grad_() is c and c.is_leaf
    x = Scalar(3.0)
    x.requires_grad_(False)
    assert x.is_constant()
    y = Scalar(1.0) * 2.0
    d = y.detach()
    assert d.is_constant() and d.data == 2.0 and y.requires_grad
    with pytest.raises(RuntimeError, match="detach"):
        y.requires_grad_(False)
