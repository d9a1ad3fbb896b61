"""Every function of the math test catalog, on Scalars (reverse mode) and Duals.

Forward values are compared with the catalog's float references, derivatives with
central differences of those references: independent oracles for Tasks 1.2, 1.4, 1.6.
"""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from module0_fundamentals.catalog import CATALOG, MathCase
from module1_scalar_autodiff import Dual, Scalar

from .oracle import central_difference


def inputs(case: MathCase):
    low, high = case.domain
    return st.tuples(*([st.floats(low, high, allow_nan=False)] * case.arity))


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-5)


@pytest.mark.task1_2
@pytest.mark.parametrize("case", CATALOG, ids=lambda c: c.name)
def test_scalar_forward_matches_reference(case):
    @given(inputs(case))
    def check(args):
        out = case.fn(*(Scalar(a) for a in args))
        assert close(out.data, case.reference(*args))

    check()


@pytest.mark.task1_4
@pytest.mark.parametrize("case", CATALOG, ids=lambda c: c.name)
def test_scalar_backward_matches_central_difference(case):
    @given(inputs(case))
    def check(args):
        leaves = [Scalar(a) for a in args]
        case.fn(*leaves).backward()
        for position, leaf in enumerate(leaves):
            expected = central_difference(case.reference, *args, arg=position)
            assert close(leaf.derivative, expected), (case.name, args, position)

    check()


@pytest.mark.task1_6
@pytest.mark.parametrize("case", CATALOG, ids=lambda c: c.name)
def test_dual_tangent_matches_central_difference(case):
    @given(inputs(case))
    def check(args):
        for position in range(case.arity):
            duals = [Dual(a, 1.0 if i == position else 0.0) for i, a in enumerate(args)]
            out = case.fn(*duals)
            assert close(out.value, case.reference(*args))
            expected = central_difference(case.reference, *args, arg=position)
            assert close(out.tangent, expected), (case.name, args, position)

    check()
