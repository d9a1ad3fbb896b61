"""The math test catalog is consistent: each ``fn`` agrees with its ``reference``.

Floats have no ``.sigmoid()`` method, so the check runs ``fn`` on a tiny stand-in
number type built from the reference operators of Task 0.1: it belongs to that task.
"""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from module0_fundamentals import operators
from module0_fundamentals.catalog import BINARY, CATALOG, UNARY, MathCase

pytestmark = pytest.mark.task0_1


class Num:
    """A float with the course's methods, computed by the Task 0.1 operators."""

    def __init__(self, value: float) -> None:
        self.value = float(value)

    @staticmethod
    def lift(x):
        return x if isinstance(x, Num) else Num(x)

    def __add__(self, other):
        return Num(operators.add(self.value, Num.lift(other).value))

    __radd__ = __add__

    def __mul__(self, other):
        return Num(operators.mul(self.value, Num.lift(other).value))

    __rmul__ = __mul__

    def __neg__(self):
        return Num(operators.neg(self.value))

    def __sub__(self, other):
        return self + (-Num.lift(other))

    def __rsub__(self, other):
        return Num.lift(other) + (-self)

    def __truediv__(self, other):
        return self * Num(operators.inv(Num.lift(other).value))

    def __rtruediv__(self, other):
        return Num.lift(other) * Num(operators.inv(self.value))

    def sigmoid(self):
        return Num(operators.sigmoid(self.value))

    def relu(self):
        return Num(operators.relu(self.value))

    def log(self):
        return Num(operators.log(self.value))

    def exp(self):
        return Num(operators.exp(self.value))

    def sin(self):
        return Num(operators.sin(self.value))

    def cos(self):
        return Num(operators.cos(self.value))

    def tanh(self):
        return Num(operators.tanh(self.value))


def inputs(case: MathCase):
    low, high = case.domain
    value = st.floats(low, high, allow_nan=False)
    return st.tuples(*([value] * case.arity))


def test_catalog_names_are_unique_and_arities_match():
    names = [case.name for case in CATALOG]
    assert len(names) == len(set(names))
    assert all(c.arity == 1 for c in UNARY) and all(c.arity == 2 for c in BINARY)


@pytest.mark.parametrize("case", CATALOG, ids=lambda c: c.name)
def test_fn_matches_reference(case):
    @given(inputs(case))
    def check(args):
        got = case.fn(*(Num(a) for a in args)).value
        assert math.isclose(got, case.reference(*args), rel_tol=1e-9, abs_tol=1e-9)

    check()
