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


# ------------------------------------------------------ bools index as masks


def test_a_tensor_of_python_or_numpy_bools_is_a_mask():
    x = kt.tensor([10.0, 20.0, 30.0])
    picks = [True, False, True]
    assert x[kt.tensor(picks)].tolist() == [10.0, 30.0]
    assert x[kt.tensor(np.array(picks))].tolist() == [10.0, 30.0]
    assert x[kt.from_numpy(np.array(picks))].tolist() == [10.0, 30.0]
    assert x[kt.tensor(kt.tensor(picks))].tolist() == [10.0, 30.0]
    # Numbers still index by position, even 1.0 and 0.0.
    assert x[kt.tensor([1, 0, 1])].tolist() == [20.0, 10.0, 20.0]
    assert x[kt.tensor([1.0, 0.0])].tolist() == [20.0, 10.0]
    m = np.array([[True, False], [False, True]])
    y = kt.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert y[kt.tensor(m)].tolist() == [1.0, 4.0]


# -------------------------------------- fill_/zero_/copy_ cut the old graph


@pytest.mark.parametrize("how", ["fill_", "zero_", "copy_"])
def test_overwriting_a_computed_tensor_sends_no_gradient_to_its_past(how):
    x = kt.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2.0
    if how == "fill_":
        y.fill_(1.0)
    elif how == "zero_":
        y.zero_()
    else:
        y.copy_(kt.tensor([7.0, 8.0]))
    (y * 5.0).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]  # PyTorch: zeros, not 2s


def test_copy_into_a_computed_tensor_sends_the_gradient_to_the_source():
    x = kt.tensor([1.0, 2.0], requires_grad=True)
    z = kt.tensor([5.0], requires_grad=True)
    y = x * 2.0
    y.copy_(z * 3.0)  # (1,) broadcast into (2,)
    assert y.tolist() == [15.0, 15.0]
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]
    assert z.grad.tolist() == [6.0]  # 3 per entry, two entries
    with pytest.raises(ValueError, match="shape"):
        kt.zeros(2, 3).copy_(kt.tensor([1.0, 2.0]))
