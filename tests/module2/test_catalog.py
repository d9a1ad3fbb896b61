"""Every function of the math test catalog, applied to tensors entry by entry.

The catalog's functions are elementwise, so a tensor of inputs gives a tensor of
outputs (compared with the float reference, entry by entry) and, after
``out.sum().backward()``, a gradient whose every entry is the derivative at that
entry (compared with a central difference of the reference).
"""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from module0_fundamentals.catalog import CATALOG, MathCase
from module2_tensors import tensor

from ..module1.oracle import central_difference


def vectors(case: MathCase, size: int = 4):
    low, high = case.domain
    entries = st.lists(
        st.floats(low, high, allow_nan=False), min_size=size, max_size=size
    )
    return st.tuples(*([entries] * case.arity))


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-5)


@pytest.mark.task2_3
@pytest.mark.parametrize("case", CATALOG, ids=lambda c: c.name)
def test_tensor_forward_matches_reference_entrywise(case):
    @given(vectors(case))
    def check(columns):
        out = case.fn(*(tensor(c) for c in columns)).to_numpy()
        assert out.shape == (len(columns[0]),)
        for i, row in enumerate(zip(*columns)):
            assert close(out[i], case.reference(*row)), (case.name, row)

    check()


@pytest.mark.task2_4
@pytest.mark.parametrize("case", CATALOG, ids=lambda c: c.name)
def test_tensor_gradient_matches_central_difference_entrywise(case):
    @given(vectors(case))
    def check(columns):
        inputs = [tensor(c, requires_grad=True) for c in columns]
        case.fn(*inputs).sum().backward()
        for position, leaf in enumerate(inputs):
            grad = np.asarray(leaf.grad.to_numpy())
            for i, row in enumerate(zip(*columns)):
                expected = central_difference(case.reference, *row, arg=position)
                assert close(grad[i], expected), (case.name, row, position)

    check()
