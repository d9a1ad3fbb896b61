"""More of PyTorch's tensor API (issue 13, given code; each test carries the
marker of the task whose code it runs): forward values against NumPy, gradients
by central differences (``grad_check``)."""

from __future__ import annotations

import numpy as np
import pytest

import module2_tensors as kt
from tests.pytorch_reference import import_torch

A = np.array([[0.5, -1.5, 2.0], [0.0, 3.0, -0.25]])


def _t(values=A, requires_grad=False):
    return kt.tensor(np.asarray(values, dtype=np.float64), requires_grad=requires_grad)


@pytest.mark.task2_6
@pytest.mark.parametrize(
    "name, ours, reference",
    [
        ("prod", lambda t: t.prod(1), lambda a: a.prod(1)),
        ("prod_all", lambda t: t.prod(), lambda a: a.prod()),
        ("cumsum", lambda t: t.cumsum(1), lambda a: np.cumsum(a, 1)),
        (
            "logsumexp",
            lambda t: t.logsumexp(1),
            lambda a: np.log(np.exp(a).sum(1)),
        ),
        ("norm", lambda t: t.norm(), lambda a: np.linalg.norm(a)),
        ("norm1", lambda t: t.norm(1, dim=0), lambda a: np.abs(a).sum(0)),
        (
            "norm3",
            lambda t: t.norm(3, dim=1),
            lambda a: (np.abs(a) ** 3).sum(1) ** (1 / 3),
        ),
        ("flip", lambda t: t.flip((0, 1)), lambda a: a[::-1, ::-1]),
        ("roll", lambda t: t.roll(1, 1), lambda a: np.roll(a, 1, 1)),
        ("roll_flat", lambda t: t.roll(2), lambda a: np.roll(a, 2)),
        # (dims=() is PyTorch's default, dims=[]: the flattened tensor too)
        ("roll_no_dims", lambda t: t.roll(-1, ()), lambda a: np.roll(a, -1)),
        ("movedim", lambda t: t.movedim(0, 1), lambda a: np.moveaxis(a, 0, 1)),
        ("tril", lambda t: t.tril(), lambda a: np.tril(a)),
        ("triu", lambda t: t.triu(1), lambda a: np.triu(a, 1)),
        ("unbind", lambda t: t.unbind(1)[2], lambda a: a[:, 2]),
    ],
)
def test_matches_numpy_and_central_differences(name, ours, reference):
    np.testing.assert_allclose(ours(_t()).to_numpy(), reference(A), rtol=1e-12)
    kt.grad_check(ours, _t(A + 0.1, requires_grad=True))


@pytest.mark.task2_6
def test_prod_gradient_is_exact_at_a_zero():
    x = _t([2.0, 0.0, 3.0], requires_grad=True)
    x.prod().backward()
    assert x.grad.tolist() == [0.0, 6.0, 0.0]


@pytest.mark.task2_4
def test_norm_gradient_at_zero_is_zero():
    x = _t([0.0, 0.0], requires_grad=True)
    x.norm().backward()
    assert x.grad.tolist() == [0.0, 0.0]


@pytest.mark.task2_6
def test_scatter_add_index_add_and_nonzero():
    base = np.zeros((2, 4))
    index = np.array([[0, 1, 1], [3, 3, 0]])
    src = np.arange(6.0).reshape(2, 3) + 1
    expected = base.copy()
    for i in range(2):
        for j in range(3):
            expected[i, index[i, j]] += src[i, j]
    got = _t(base).scatter_add(1, _t(index), _t(src))
    np.testing.assert_array_equal(got.to_numpy(), expected)
    kt.grad_check(
        lambda b, s: b.scatter_add(1, _t(index), s),
        _t(base, True),
        _t(src, True),
    )
    rows = [2, 0, 2]
    added = _t(np.zeros((3, 2))).index_add(0, rows, _t(np.ones((3, 2))), alpha=2.0)
    assert added.tolist() == [[2.0, 2.0], [0.0, 0.0], [4.0, 4.0]]
    kt.grad_check(
        lambda s: _t(np.zeros((3, 2))).index_add(0, rows, s),
        _t(np.arange(6.0).reshape(3, 2), True),
    )
    np.testing.assert_array_equal(_t().nonzero().to_numpy(), np.argwhere(A != 0))
    rows_, cols_ = _t().nonzero(as_tuple=True)
    np.testing.assert_array_equal(
        A[rows_.to_numpy().astype(int), cols_.to_numpy().astype(int)], A[A != 0]
    )


@pytest.mark.parametrize(
    "shifts, dims", [((1, 2), (0,)), ((1,), (0, 1)), ((1, 2), None), (1, (0, 1))]
)
def test_roll_needs_one_shift_per_dimension_as_pytorch(shifts, dims):
    # torch.roll raises where shifts and dims differ in length (NumPy's roll
    # would broadcast them); one shift with no dims rolls the flattened tensor.
    torch = import_torch()
    with pytest.raises(RuntimeError):
        torch.roll(torch.zeros(2, 3), shifts, dims)
    with pytest.raises(RuntimeError, match="shifts and dimensions must align"):
        _t().roll(shifts, dims)
    assert _t().roll((1,)).tolist() == np.roll(A, 1).tolist()
    assert _t().roll((1, -1), (0, 1)).tolist() == np.roll(A, (1, -1), (0, 1)).tolist()
