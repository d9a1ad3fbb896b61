"""The dashboard's expression language: it reads what people type, evaluates it like
Python would, and rejects everything else with a message that says where."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from project.expressions import (
    FUNCTIONS,
    METHOD_FUNCTIONS,
    NUMPY_FUNCTIONS,
    BinaryOp,
    Call,
    EvaluationError,
    ExpressionError,
    Negate,
    Number,
    Variable,
    evaluate,
    evaluate_nodes,
    parse,
    to_callable,
)

XYZ = ("x", "y", "z")
POINT = {"x": 0.7, "y": -1.3, "z": 2.1}


def sig(v: float) -> float:
    return 1 / (1 + math.exp(-v))


# (text, the same formula written in Python) at x, y, z = POINT
FORMULAS = [
    ("x + y * z", lambda x, y, z: x + y * z),
    ("(x + y) * z", lambda x, y, z: (x + y) * z),
    ("x - y - z", lambda x, y, z: x - y - z),
    ("x / y / z", lambda x, y, z: x / y / z),
    ("-x**2", lambda x, y, z: -(x**2)),
    ("(-x)**2", lambda x, y, z: (-x) ** 2),
    ("2**3**2", lambda x, y, z: 2 ** (3**2)),
    ("2**-1", lambda x, y, z: 0.5),
    ("z**x", lambda x, y, z: z**x),
    ("sigmoid(2*x - y) * log(z + 3)", lambda x, y, z: sig(2 * x - y) * math.log(z + 3)),
    (
        "exp(sin(x) * cos(y)) / (1 + tanh(z))",
        lambda x, y, z: math.exp(math.sin(x) * math.cos(y)) / (1 + math.tanh(z)),
    ),
    (
        "relu(x) + relu(y) - inv(z) + neg(x)",
        lambda x, y, z: max(x, 0) + max(y, 0) - 1 / z - x,
    ),
    ("-(-x) + +y", lambda x, y, z: x + y),
    ("1e-3 * x + .5 + 2.", lambda x, y, z: 1e-3 * x + 0.5 + 2.0),
]


@pytest.mark.parametrize("text, formula", FORMULAS)
def test_values_match_the_formula(text: str, formula) -> None:
    expr = parse(text, XYZ)
    assert evaluate(expr, POINT) == pytest.approx(formula(**POINT), rel=1e-12)


def direct(expr) -> float:
    """An independent evaluation of a generated tree, with ``math``."""
    if isinstance(expr, Number):
        return expr.value
    if isinstance(expr, Variable):
        return POINT[expr.name]
    if isinstance(expr, Negate):
        return -direct(expr.operand)
    if isinstance(expr, Call):
        fn = {"sin": math.sin, "cos": math.cos, "tanh": math.tanh, "sigmoid": sig}
        return fn[expr.function](direct(expr.argument))
    a, b = direct(expr.left), direct(expr.right)
    return {"+": a + b, "-": a - b, "*": a * b}[expr.op]


@pytest.mark.parametrize(
    "text, message, column",
    [
        ("2x", r"missing operator before 'x' \(write 2\*x, not 2x\)", 2),
        ("x^2", r"unexpected character '\^': write powers as x\*\*2", 2),
        ("foo(x)", r"unknown name 'foo': variables are x, y, z", 1),
        ("log x", r"log is a function: write log\(\.\.\.\)", 5),
        ("(x + 1", r"expected '\)' to close the '\(' at column 1", 7),
        ("x + ", r"ends too early", 4),
        ("x)", r"unmatched '\)'", 2),
        ("x(2)", r"x is a variable, not a function", 2),
        ("log()", r"log\(\) needs an argument", 5),
        ("max(x, y)", r"unknown name 'max'", 1),
        ("x = 1", r"not an equation", 3),
        ("1e999", r"too large", 1),
    ],
)
def test_mistakes_are_explained_with_their_column(
    text: str, message: str, column: int
) -> None:
    with pytest.raises(ExpressionError, match=message) as caught:
        parse(text, XYZ)
    assert caught.value.position == column - 1
    assert f"(column {column})" in str(caught.value)
    assert caught.value.pointer() == f"{text}\n{' ' * (column - 1)}^"


@pytest.mark.parametrize(
    "text",
    [
        "__import__('os').system('echo hacked')",
        "x.__class__",
        "[x for x in y]",
        "lambda: 1",
        "'a' * 3",
        "open('/etc/passwd')",
        "x if y else z",
        "exec('1')",
        "eval('1')",
        "globals()",
    ],
)
def test_anything_but_arithmetic_is_rejected(text: str) -> None:
    with pytest.raises(ExpressionError):
        parse(text, XYZ)


def test_empty_long_and_deep_expressions_are_rejected() -> None:
    with pytest.raises(ExpressionError, match="type an expression"):
        parse("   ")
    with pytest.raises(ExpressionError, match="too long"):
        parse("x + " * 200 + "x")
    with pytest.raises(ExpressionError, match="nested too deeply"):
        parse("(" * 80 + "x" + ")" * 80)
    with pytest.raises(ExpressionError, match="nested too deeply"):
        parse("-" * 80 + "x")
    with pytest.raises(ValueError, match="cannot be a variable name"):
        parse("x", ("log",))


def test_evaluation_errors_are_friendly() -> None:
    with pytest.raises(EvaluationError, match="log needs a positive number, got -1"):
        evaluate(parse("log(x)"), {"x": -1.0})
    with pytest.raises(EvaluationError, match="division by zero"):
        evaluate(parse("1 / x"), {"x": 0.0})
    with pytest.raises(EvaluationError, match="overflows"):
        evaluate(parse("exp(x)"), {"x": 1000.0})
    with pytest.raises(EvaluationError, match="no value for the variable 'y'"):
        evaluate(parse("x + y", ("x", "y")), {"x": 1.0})
    with pytest.raises(EvaluationError, match="negative number to a non-integer"):
        evaluate(parse("x ** 0.5"), {"x": -4.0})


def test_powers() -> None:
    assert evaluate(parse("x**3"), {"x": 1.5}) == 1.5 * 1.5 * 1.5
    assert evaluate(parse("x**-2"), {"x": 2.0}) == 0.25
    assert evaluate(parse("x**0"), {"x": 5.0}) == 1.0
    assert evaluate(parse("x**0.5"), {"x": 9.0}) == pytest.approx(3.0)
    assert evaluate(parse("x**y", ("x", "y")), {"x": 2.0, "y": 10.0}) == pytest.approx(
        1024.0
    )


def test_numpy_evaluation_gives_nan_outside_the_domain() -> None:
    xs = np.array([-1.0, 0.0, 1.0, 4.0])
    with np.errstate(all="ignore"):
        values = evaluate(parse("log(x) + inv(x)"), {"x": xs}, NUMPY_FUNCTIONS)
    assert np.isnan(values[:2]).all()
    np.testing.assert_allclose(values[2:], [1.0, math.log(4) + 0.25])
    np.testing.assert_allclose(
        evaluate(
            parse("sigmoid(x)"), {"x": np.array([-800.0, 0.0, 800.0])}, NUMPY_FUNCTIONS
        ),
        [0.0, 0.5, 1.0],
    )


class Traced:
    """A number that records which of its methods evaluated it."""

    calls: list = []

    def __init__(self, value: float) -> None:
        self.value = value

    def __add__(self, other: "Traced") -> "Traced":
        return Traced(self.value + other.value)

    def sigmoid(self) -> "Traced":
        Traced.calls.append("sigmoid")
        return Traced(sig(self.value))

    def log(self) -> "Traced":
        Traced.calls.append("log")
        return Traced(math.log(self.value))


def test_method_functions_call_the_values_own_methods() -> None:
    Traced.calls = []
    value = evaluate(parse("sigmoid(x) + log(x)"), {"x": Traced(2.0)}, METHOD_FUNCTIONS)
    assert Traced.calls == ["sigmoid", "log"]
    assert value.value == pytest.approx(sig(2.0) + math.log(2))
    # plain numbers inside the expression use the float functions
    assert evaluate(parse("log(2) * x"), {"x": 1.0}, METHOD_FUNCTIONS) == pytest.approx(
        math.log(2)
    )


def test_every_node_is_reported_once() -> None:
    seen = []
    evaluate_nodes(
        parse("x * (x + 1)"), {"x": 2.0}, on_node=lambda n, v: seen.append(v)
    )
    assert seen == [2.0, 2.0, 1.0, 3.0, 6.0]


def test_to_callable() -> None:
    f = to_callable(parse("x * y - z", XYZ), XYZ)
    assert f(2.0, 3.0, 1.0) == 5.0
    with pytest.raises(TypeError, match="expected 3 values, got 2"):
        f(1.0, 2.0)


# ---------------------------------------------------------------- round trips
leaves = st.one_of(
    st.sampled_from([Variable(v) for v in XYZ]),
    st.floats(0.1, 5.0).map(lambda v: Number(round(v, 3))),
)


def trees(children):
    return st.one_of(
        st.builds(Negate, children),
        st.builds(BinaryOp, st.sampled_from(["+", "-", "*"]), children, children),
        st.builds(Call, st.sampled_from(["sin", "cos", "tanh", "sigmoid"]), children),
    )


expressions = st.recursive(leaves, trees, max_leaves=12)


@given(expressions)
def test_printing_and_parsing_round_trip(expr) -> None:
    """str() writes an expression that parses back to the same value."""
    again = parse(str(expr), XYZ)
    assert evaluate(again, POINT) == pytest.approx(evaluate(expr, POINT), rel=1e-9)
    assert again.variables() == expr.variables()


@given(expressions)
def test_evaluation_agrees_with_a_direct_computation(expr) -> None:
    assert evaluate(expr, POINT) == pytest.approx(direct(expr), rel=1e-9, abs=1e-12)


def test_the_function_list_is_what_the_tables_provide() -> None:
    for table in (METHOD_FUNCTIONS, NUMPY_FUNCTIONS):
        assert set(table) == set(FUNCTIONS)
