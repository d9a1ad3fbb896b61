"""Named Hypothesis strategies for the Module 0 tests.

Each strategy is a domain of inputs: the property tests say *which* numbers they hold
for by the strategy they draw from.
"""

from __future__ import annotations

from hypothesis import strategies as st


def _floats(low: float, high: float) -> st.SearchStrategy[float]:
    return st.floats(
        min_value=low, max_value=high, allow_nan=False, allow_infinity=False
    )


#: Moderate numbers, where sums and products are exact enough to compare closely.
small_floats = _floats(-100.0, 100.0)

#: Numbers large enough to overflow a naive ``exp``: for sigmoid, tanh and relu.
wide_floats = _floats(-1000.0, 1000.0)

#: Strictly positive numbers: the domain of ``log``.
positive_floats = _floats(1e-3, 100.0)

#: Numbers at most 0: outside the domain of ``log``.
nonpositive_floats = _floats(-100.0, 0.0)

#: Numbers away from 0 (either sign): the domain of ``inv``.
nonzero_floats = st.one_of(positive_floats, _floats(-100.0, -1e-3))

#: Gaps that certainly change a number of ``small_floats``: ``x + gap != x``.
gaps = _floats(1e-3, 10.0)

#: Exponents whose ``exp`` is comfortably finite.
exponents = _floats(-20.0, 20.0)

#: Upstream derivatives ``d`` for the backward functions.
derivatives = _floats(-10.0, 10.0)

#: Inputs where a central difference of sigmoid and tanh is accurate.
moderate_floats = _floats(-20.0, 20.0)

#: Coordinates in the unit square.
unit_floats = _floats(0.0, 1.0)

#: Short lists of moderate numbers.
float_lists = st.lists(small_floats, max_size=10)

#: Dataset sizes and seeds.
sizes = st.integers(min_value=0, max_value=60)
seeds = st.integers(min_value=0, max_value=2**31 - 1)
