"""PyTorch fidelity, round 3 (issue 27): each test pins one behaviour of
``torch`` 2.13 that the library got wrong, silently or with an error. Expected
values come from the math or NumPy, never from the library itself.

Library-level behaviour (autograd engine, indexing, given tensor methods): no task
marker.
"""

from __future__ import annotations

import numpy as np
import pytest

import module2_tensors as kt

INPLACE = "modified by an inplace operation"

# ------------------------------------------- saved outputs changed in place


@pytest.mark.parametrize(
    "op",
    [
        lambda x: x.exp(),
        lambda x: x.sigmoid(),
        lambda x: x.tanh(),
        lambda x: x.sqrt(),
        lambda x: x.expm1(),
    ],
    ids=["exp", "sigmoid", "tanh", "sqrt", "expm1"],
)
def test_changing_a_saved_output_in_place_fails_backward(op):
    x = kt.tensor([0.5, 2.0], requires_grad=True)
    y = op(x)
    y.add_(1.0)
    with pytest.raises(RuntimeError, match=INPLACE):
        y.sum().backward()
    # Under no_grad the change is still recorded (PyTorch's version counter).
    x = kt.tensor([0.5, 2.0], requires_grad=True)
    y = op(x)
    with kt.no_grad():
        y.mul_(3.0)
    with pytest.raises(RuntimeError, match=INPLACE):
        y.sum().backward()


def test_changing_an_output_that_was_not_saved_is_allowed():
    # Mul saves its inputs only: PyTorch computes this gradient, and so do we.
    x = kt.tensor([0.5, 2.0], requires_grad=True)
    y = x * 3.0
    y.add_(1.0)
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    # An unchanged saved output still gives the true gradient e^x.
    x = kt.tensor([0.5, 2.0], requires_grad=True)
    x.exp().sum().backward()
    np.testing.assert_allclose(x.grad.to_numpy(), np.exp([0.5, 2.0]), rtol=1e-15)
