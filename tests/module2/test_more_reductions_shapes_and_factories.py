"""More of PyTorch's tensor API: reductions (``cumprod``, ``median``,
``kthvalue``, ``var_mean``, ``norm`` with ``p=0``/``-inf``, ``kt.linalg``,
``unique``), shapes and indexing (one-argument ``where``, ``masked_select``,
``diagonal``, ``diag``, ``trace``, ``dot``, ``mv``, ``outer``, ``hstack``,
``vstack``, ``broadcast_tensors``, ``unflatten``, ``repeat_interleave``,
``index_put_``, ``scatter_add_``) and factories (``empty``, ``as_tensor``,
``bernoulli``, ``multinomial``). Values against NumPy or worked by hand,
gradients against central differences. Given code; Task 2.6's marker (its
shape and indexing functions run underneath)."""

from __future__ import annotations

import numpy as np
import pytest

import module2_tensors as kt
from tests.module2.oracle import check_gradients
from tests.module2.strategies import Case

pytestmark = pytest.mark.task2_6

A = np.array([[0.5, -1.0, 2.0, 0.0], [3.0, 0.25, -2.0, 1.5], [1.0, 4.0, 0.0, -0.5]])


def case(array) -> Case:
    array = np.asarray(array, dtype=np.float64)
    return Case(array, tuple(range(array.ndim)))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumprod_matches_numpy_and_reports_int64_for_integers(dim):
    np.testing.assert_allclose(
        kt.tensor(A).cumprod(dim).to_numpy(), np.cumprod(A, axis=dim)
    )
    ints = kt.tensor([[-7, 5, 3], [4, -2, 1]])
    assert kt.cumprod(ints, dim).dtype is kt.int64
    assert kt.cumprod(ints, dim).tolist() == np.cumprod(ints.to_numpy(), dim).tolist()


def test_cumprod_gradient_is_exact_at_zero_entries():
    x = kt.tensor([2.0, 0.0, 3.0], requires_grad=True)
    x.cumprod(0).sum().backward()
    # y = (2, 0, 0): dy/dx0 = 1 + x1 + x1 x2 = 1, dy/dx1 = x0 + x0 x2 = 8, dx2 = x0 x1
    assert x.grad.tolist() == [1.0, 8.0, 0.0]
    check_gradients(lambda t: t.cumprod(1), case(A))
    check_gradients(lambda t: t.cumprod(0), case([[0.0, 2.0], [0.0, 0.0], [3.0, 1.0]]))


def test_kthvalue_and_median_give_values_and_int64_indices():
    values, indices = kt.tensor(A).kthvalue(2, 1)
    assert values.tolist() == np.sort(A, 1)[:, 1].tolist()
    assert indices.dtype is kt.int64
    assert indices.tolist() == np.argsort(A, 1, kind="stable")[:, 1].tolist()
    assert kt.tensor([1.0, 4.0, 2.0, 3.0]).median().item() == 2.0  # the lower one
    m = kt.tensor([[1.0, 4.0, 2.0, 3.0]]).median(1, keepdim=True)
    assert m.values.tolist() == [[2.0]] and m.indices.tolist() == [[2]]
    with pytest.raises(ValueError, match="out of range"):
        kt.tensor([1.0, 2.0]).kthvalue(3)
    check_gradients(lambda t: t.median(0).values, case(A))


def test_median_of_a_slice_with_a_nan_is_nan_at_its_first_nan():
    # PyTorch's median propagates NaN (kthvalue sorts it last): the value is NaN
    # and the index that of the slice's first NaN; slices without one as before.
    nan = np.nan
    a = np.array([[1.0, nan, 3.0, nan], [4.0, 1.0, 2.0, 3.0], [nan, 0.0, 5.0, 6.0]])
    assert np.isnan(kt.tensor([1.0, nan, 3.0]).median().item())
    for keepdim in (False, True):
        values, indices = kt.tensor(a).median(1, keepdim)
        shape = (3, 1) if keepdim else (3,)
        np.testing.assert_array_equal(values.to_numpy().reshape(3), [nan, 2.0, nan])
        assert indices.to_numpy().shape == shape and indices.dtype is kt.int64
        assert indices.to_numpy().reshape(3).tolist() == [1, 2, 0]
    values, indices = kt.tensor(a).median(0)
    np.testing.assert_array_equal(values.to_numpy(), [nan, nan, 3.0, nan])
    assert indices.tolist() == [2, 0, 0, 0]


def test_var_mean_and_std_mean_take_var_s_arguments():
    x = kt.tensor(A)
    var, mean = kt.var_mean(x, 1)
    np.testing.assert_allclose(var.to_numpy(), A.var(1, ddof=1))
    np.testing.assert_allclose(mean.to_numpy(), A.mean(1))
    std, mean = kt.std_mean(x, dim=0, correction=0, keepdim=True)
    np.testing.assert_allclose(std.to_numpy(), A.std(0, keepdims=True))
    assert mean.shape == (1, 4)


def test_norm_with_p_zero_counts_and_minus_inf_takes_the_smallest():
    x = kt.tensor(A)
    assert x.norm(0).item() == np.count_nonzero(A)
    assert x.norm(0, dim=1).tolist() == [3.0, 4.0, 3.0]
    assert x.norm(float("-inf")).item() == 0.0
    assert x.norm(float("-inf"), dim=0).tolist() == np.abs(A).min(0).tolist()
    # a negative p: (1 + 1/2 + 1/4)^(-1)
    assert kt.tensor([1.0, 2.0, 4.0]).norm(-1).item() == pytest.approx(1 / 1.75)


def test_linalg_norms_match_numpy():
    x = kt.tensor(A)
    np.testing.assert_allclose(
        kt.linalg.norm(x, dim=1).to_numpy(), np.linalg.norm(A, axis=1)
    )
    np.testing.assert_allclose(kt.linalg.norm(x).item(), np.linalg.norm(A))
    np.testing.assert_allclose(kt.linalg.norm(x, "fro").item(), np.linalg.norm(A))
    np.testing.assert_allclose(
        kt.linalg.vector_norm(x, ord=1, dim=0).to_numpy(), np.abs(A).sum(0)
    )
    with pytest.raises(NotImplementedError, match="only 'fro'"):
        kt.linalg.norm(x, "nuc")


def test_unique_sorts_and_counts():
    x = kt.tensor([[3, 1], [3, 2]])
    values, inverse, counts = x.unique(return_inverse=True, return_counts=True)
    assert values.tolist() == [1, 2, 3] and values.dtype is kt.int64
    assert inverse.tolist() == [[2, 0], [2, 1]] and counts.tolist() == [1, 1, 2]
    assert counts.dtype is kt.int64
    rows = kt.unique(kt.tensor([[1.0, 2.0], [0.0, 5.0], [1.0, 2.0]]), dim=0)
    assert rows.tolist() == [[0.0, 5.0], [1.0, 2.0]]


def test_where_with_one_argument_is_nonzero_as_a_tuple():
    rows, cols = kt.where(kt.tensor([[0, 1, 1], [1, 0, 0]]) > 0)
    assert rows.tolist() == [0, 0, 1] and cols.tolist() == [1, 2, 0]
    assert rows.dtype is kt.int64


@pytest.mark.parametrize("value, found", [(3.0, 1), (0.0, 0)])
def test_nonzero_of_a_0d_tensor_is_pytorchs(value, found):
    """PyTorch's shapes: ``(found, 0)`` rows, and as a tuple one 1-D index
    tensor (the 0-d tensor read as 1-D: ``[0]`` or empty)."""
    x = kt.tensor(value)
    for rows in (x.nonzero(), x.argwhere()):
        assert rows.shape == (found, 0) and rows.dtype is kt.int64
    (index,) = x.nonzero(as_tuple=True)
    assert index.tolist() == [0] * found and index.dtype is kt.int64


def test_masked_select_broadcasts_and_is_differentiable():
    x = kt.tensor(A)
    picked = kt.masked_select(x, kt.tensor([True, False, True, False]))
    assert picked.tolist() == A[:, [0, 2]].ravel().tolist()
    check_gradients(lambda t: t.masked_select(kt.tensor(A) > 0), case(A))


@pytest.mark.parametrize("offset", [0, 1, -1])
def test_diagonal_and_diag_match_numpy(offset):
    np.testing.assert_array_equal(
        kt.tensor(A).diagonal(offset).to_numpy(), np.diagonal(A, offset)
    )
    cube = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(
        kt.tensor(cube).diagonal(offset, 1, 2).to_numpy(),
        np.diagonal(cube, offset, 1, 2),
    )
    np.testing.assert_array_equal(
        kt.diag(kt.tensor([1.0, 2.0, 3.0]), offset).to_numpy(),
        np.diag([1.0, 2.0, 3.0], offset),
    )
    assert kt.diag(kt.tensor(A), offset).tolist() == np.diag(A, offset).tolist()
    check_gradients(lambda t: t.diagonal(offset), case(A))
    check_gradients(lambda t: kt.diag(t, offset), case([1.0, -2.0, 3.0]))


def test_trace_dot_mv_outer():
    x, v = kt.tensor(A), np.array([1.0, 2.0, -1.0, 0.5])
    assert kt.trace(x).item() == np.trace(A)
    assert kt.dot(kt.tensor([1.0, 2.0]), kt.tensor([3.0, 4.0])).item() == 11.0
    np.testing.assert_allclose(kt.mv(x, kt.tensor(v)).to_numpy(), A @ v)
    assert kt.outer(kt.tensor([1, 2]), kt.tensor([3, 4, 5])).tolist() == [
        [3, 4, 5],
        [6, 8, 10],
    ]
    assert kt.ger is kt.outer
    assert kt.outer(kt.tensor([1, 2]), kt.tensor([3, 4])).dtype is kt.int64
    with pytest.raises(RuntimeError, match="1D tensors expected"):  # (PyTorch's)
        kt.dot(x, x)
    check_gradients(lambda a, b: kt.mv(a, b), case(A), case(v))
    check_gradients(lambda a: kt.trace(a), case(A))


def test_stacks_and_broadcast_tensors():
    a, b = kt.tensor([1.0, 2.0]), kt.tensor([3.0, 4.0])
    assert kt.vstack([a, b]).tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert kt.hstack([a, b]).tolist() == [1.0, 2.0, 3.0, 4.0]
    m = kt.tensor(A)
    assert kt.hstack([m, m]).tolist() == np.hstack([A, A]).tolist()
    x, y = kt.broadcast_tensors(a, kt.tensor([[1.0], [2.0], [3.0]]))
    assert x.shape == y.shape == (3, 2) and y.tolist() == [
        [1.0] * 2,
        [2.0] * 2,
        [3.0] * 2,
    ]


def test_permute_unflatten_and_repeat_interleave():
    x = kt.arange(24.0).view(2, 3, 4)
    assert kt.permute(x, (1, 0, 2)).shape == (3, 2, 4)
    assert (
        x.unflatten(-1, (2, -1)).tolist() == x.to_numpy().reshape(2, 3, 2, 2).tolist()
    )
    assert kt.tensor([1, 2]).repeat_interleave(2).tolist() == [1, 1, 2, 2]
    m = kt.tensor([[1.0, 2.0], [3.0, 4.0]])
    got = m.repeat_interleave(kt.tensor([1, 2]), dim=0)
    assert got.tolist() == np.repeat(m.to_numpy(), [1, 2], axis=0).tolist()
    check_gradients(lambda t: t.repeat_interleave(2, dim=1), case(A))


def test_index_put_and_scatter_add_in_place():
    x = kt.zeros(3)
    assert x.index_put_((kt.tensor([0, 0, 2]),), kt.tensor(1.0), accumulate=True) is x
    assert x.tolist() == [2.0, 0.0, 1.0]
    x.index_put_((kt.tensor([1]),), kt.tensor([5.0]))
    assert x.tolist() == [2.0, 5.0, 1.0]
    index = kt.tensor([0, 0, 2])
    check_gradients(
        lambda v: kt.zeros(3).index_put_((index,), v, accumulate=True) * 1.0,
        case([1.0, 2.0, 3.0]),
    )
    z = kt.zeros(3, 4)
    z.scatter_add_(0, kt.tensor([[0, 1, 2, 0]]), kt.ones(1, 4))
    assert z.tolist() == [[1.0, 0, 0, 1], [0, 1, 0, 0], [0, 0, 1, 0]]


def test_factories():
    assert kt.empty(2, 3).shape == (2, 3)
    assert kt.empty_like(kt.tensor([[1, 2]])).dtype is kt.int64
    t = kt.tensor([1.0, 2.0])
    assert kt.as_tensor(t) is t
    assert kt.as_tensor([1, 2]).dtype is kt.int64
    assert kt.as_tensor(t, dtype=kt.int64).dtype is kt.int64
    kt.manual_seed(0)
    draws = kt.bernoulli(kt.tensor([0.0, 1.0, 0.0, 1.0]))
    assert draws.tolist() == [0.0, 1.0, 0.0, 1.0] and draws.dtype is kt.float64
    picks = kt.multinomial(kt.tensor([[0.0, 1.0, 0.0], [2.0, 0.0, 0.0]]), 3, True)
    assert picks.dtype is kt.int64 and picks.tolist() == [[1, 1, 1], [0, 0, 0]]
    once = kt.multinomial(kt.tensor([1.0, 1.0, 1.0]), 3)  # without replacement
    assert sorted(once.tolist()) == [0, 1, 2]
