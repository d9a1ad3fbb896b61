"""Where a PyTorch user would notice (issue 13): each test pins one behaviour of
``torch`` that the library used to get wrong. Expected values come from NumPy or
from the math; gradients are also checked by central differences.

These tests exercise given code (no task's marker), except where a test checks a
task's function (``var``: Task 2.6; ``grad_check``: Task 2.4).
"""

from __future__ import annotations

import gc
import math
import weakref

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import module2_tensors as kt
from module2_tensors import MaxResult
from module2_tensors.engine.reductions import Reduction

# ------------------------------------------------------------ max/min(dim)


@pytest.mark.task2_3
def test_max_dim_returns_values_and_indices_like_torch():
    x = kt.tensor([[1.0, 5.0, 3.0], [7.0, 2.0, 7.0]])
    v, i = x.max(1)
    assert isinstance(x.max(1), MaxResult)
    assert v.tolist() == [5.0, 7.0] and i.tolist() == [1.0, 0.0]
    assert x.max(1).values.tolist() == [5.0, 7.0]
    assert x.max(0, keepdim=True).indices.tolist() == [[1.0, 0.0, 1.0]]
    lo, at = x.min(dim=1)
    assert lo.tolist() == [1.0, 2.0] and at.tolist() == [0.0, 1.0]
    assert x.max().item() == 7.0  # no dim: the overall maximum, a tensor
    assert x.argmax().item() == 3.0 and x.argmin(1).tolist() == [0.0, 1.0]
    with pytest.raises(TypeError, match="amax"):
        x.max((0, 1))
    _, predicted = kt.max(x.data, 1)  # the classic tutorial line
    assert predicted.tolist() == [1.0, 0.0] and kt.argmin(x).item() == 0.0
    assert kt.min(x, 0).values.tolist() == [1.0, 2.0, 3.0]
    assert kt.max(x, kt.tensor(4.0)).tolist() == [[4.0, 5.0, 4.0], [7.0, 4.0, 7.0]]


@pytest.mark.task2_4
def test_max_dim_gradient_goes_to_the_reported_index():
    x = kt.tensor([[2.0, 2.0, 1.0]], requires_grad=True)
    x.max(1).values.sum().backward()
    assert x.grad.tolist() == [[1.0, 0.0, 0.0]]  # torch.max(dim): the index only


@pytest.mark.task2_4
def test_ties_over_several_dims_share_the_gradient_evenly():
    x = kt.tensor([[1.0, 3.0], [3.0, 3.0]], requires_grad=True)
    x.amax((0, 1)).backward()
    np.testing.assert_allclose(x.grad.to_numpy(), [[0, 1 / 3], [1 / 3, 1 / 3]])
    y = kt.tensor([[[1.0, 3.0], [3.0, 0.0]], [[3.0, 2.0], [0.0, 0.0]]])
    y.requires_grad_()
    y.amax((0, 2)).sum().backward()  # dims 0 and 2 together, dim 1 kept
    np.testing.assert_allclose(
        y.grad.to_numpy(), [[[0, 0.5], [1, 0]], [[0.5, 0], [0, 0]]]
    )


# ---------------------------------------------------------------- properties


@pytest.mark.task2_6
def test_is_leaf_requires_grad_and_grad_fn_read_as_in_torch():
    w = kt.tensor([1.0, 2.0], requires_grad=True)
    y = w * 2
    c = kt.tensor([1.0]) * 2
    assert w.is_leaf is True and y.is_leaf is False and c.is_leaf is True
    if y.is_leaf:  # the bug: a bound method is always true
        pytest.fail("y.is_leaf should be False")
    assert w.requires_grad and y.requires_grad and not c.requires_grad
    assert w.grad_fn is None and y.grad_fn is not None and c.grad_fn is None
    with kt.no_grad():
        assert (w * 2).is_leaf and not (w * 2).requires_grad


@pytest.mark.task2_4
def test_requires_grad_can_only_be_switched_off_on_leaves():
    w = kt.tensor([1.0, 2.0], requires_grad=True)
    y = w * 2
    with pytest.raises(RuntimeError, match="leaf"):
        y.requires_grad = False
    assert y.requires_grad  # unchanged: backward still reaches w
    y.sum().backward()
    assert w.grad.tolist() == [2.0, 2.0]
    y.requires_grad = True  # switching on a computed tensor is a no-op, as in torch
    w.requires_grad = False
    assert not (w * 2).requires_grad


# --------------------------------------------------------------- in place


@pytest.mark.task2_6
def test_in_place_arithmetic_writes_through_views():
    x = kt.zeros(2, 3)
    v = x[:, 0]
    v += 1
    assert x.tolist() == [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]
    row = x[1]
    row *= 3
    row -= 1
    row /= 2
    assert x.tolist() == [[1.0, 0.0, 0.0], [1.0, -0.5, -0.5]]
    x[:, 1].add_(kt.tensor([10.0, 20.0]), alpha=2).mul_(0.5)
    assert x[:, 1].tolist() == [10.0, 19.75]
    x.T[2].fill_(7.0)
    x[0].zero_()
    x[1, :2].copy_(kt.tensor(4.0))
    assert x.tolist() == [[0.0, 0.0, 0.0], [4.0, 4.0, 7.0]]
    same = x
    x += 1
    assert same is x and x[0].tolist() == [1.0, 1.0, 1.0]


@pytest.mark.task2_6
@pytest.mark.parametrize(
    "make",
    [
        lambda x: x.view(2, 3),
        lambda x: x.reshape(2, 3),
        lambda x: x.view_as(x),
        lambda x: x.expand(2, 3),
        lambda x: x.broadcast_to((2, 3)),
        lambda x: x.squeeze(),
        lambda x: x.squeeze(0),
        lambda x: x[0].t(),
    ],
)
def test_a_view_of_the_same_shape_is_a_new_tensor(make):
    """As in PyTorch, a view whose shape is unchanged is still a new tensor over
    the same storage: a non-leaf with its own shape, flags and hooks."""
    x = kt.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    y = x * 1.0
    v = make(y)
    assert v is not y and not v.is_leaf
    v.register_hook(lambda g: g * 10)
    (y.sum() + v.sum()).backward()  # the hook scales v's share only
    assert x.grad.tolist()[0] == [11.0, 11.0, 11.0]
    base = kt.zeros(2, 3)
    view = make(base)
    view.unsqueeze_(0)
    view.fill_(1.0)
    view.requires_grad_()
    assert base.shape == (2, 3) and not base.requires_grad
    assert base.tolist()[0] == [1.0, 1.0, 1.0]


@pytest.mark.task2_6
def test_in_place_errors_follow_torch():
    w = kt.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        w += 1
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        w.zero_()
    with kt.no_grad():
        w -= 0.5  # the optimizer's update: allowed without recording
    assert w.tolist() == [0.5, 1.5] and w.is_leaf and w.requires_grad
    x = kt.zeros(2, 3)
    with pytest.raises(RuntimeError, match="broadcast shape"):
        x[0] += kt.ones(2, 3)
    with pytest.raises(RuntimeError, match="single memory location"):
        kt.zeros(3).expand(2, 3).add_(1.0)


@pytest.mark.task2_6
def test_in_place_forms_of_empty_tensors():
    # (NumPy gives an empty array all-zero strides; PyTorch writes nothing, no
    # error: an empty tensor is not an expanded one)
    for shape in [(3, 0), (2, 0, 4), (0, 3)]:
        x = kt.zeros(*shape)
        for change in (
            lambda t: t.add_(1.0),
            lambda t: t.fill_(2.0),
            lambda t: t.copy_(kt.ones(*shape)),
            lambda t: t.zero_(),
        ):
            assert change(x) is x and x.shape == shape


@pytest.mark.task2_6
def test_changing_a_saved_tensor_in_place_fails_backward():
    w = kt.tensor([1.0, 2.0], requires_grad=True)
    a = kt.tensor([3.0, 4.0])
    y = (w * a).sum()
    a += 1  # Mul saved a for w's gradient
    assert a._version == 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


@pytest.mark.task2_4
def test_in_place_on_a_computed_tensor_is_differentiated():
    w = kt.tensor([1.0, 2.0], requires_grad=True)
    h = w * 3
    h *= h  # h = (3w)^2
    h += w
    assert not h.is_leaf
    h.sum().backward()
    np.testing.assert_allclose(w.grad.to_numpy(), 18 * np.array([1.0, 2.0]) + 1)
    b = kt.zeros(2)
    b += w  # a tensor that did not require grad now does, through w
    b.sum().backward()
    np.testing.assert_allclose(w.grad.to_numpy(), 18 * np.array([1.0, 2.0]) + 2)


# -------------------------------------------------------------- backward twice


@pytest.mark.task2_4
def test_backward_twice_needs_retain_graph():
    w = kt.tensor([1.0, 2.0], requires_grad=True)
    y = (w * w).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert w.grad.tolist() == [4.0, 8.0]
    with pytest.raises(RuntimeError, match="backward through the graph a second"):
        y.backward()


@pytest.mark.task2_4
def test_a_reduction_is_one_recorded_operation():
    # x.mean() is one node (PyTorch's MeanBackward), not a Sum, a View and a Mul;
    # its gradient still comes from Sum.backward (1/n each).
    x = kt.tensor([[1.0, 2.0, 4.0], [3.0, 0.0, 5.0]], requires_grad=True)
    for y in (x.mean(), x.sum(0), x.amax((0, 1)), x.mean(1, keepdim=True)):
        assert y.history.last_fn is Reduction
        assert y.parents == (x,)
    x.mean().backward()
    np.testing.assert_allclose(x.grad.to_numpy(), np.full((2, 3), 1 / 6))


@pytest.mark.task2_3
def test_reductions_of_one_shape_each_get_their_own_answer():
    # Reductions remember their plan per shape and arguments: interleaving them on
    # one shape (and on a transposed view of another) must not mix them up.
    x = kt.tensor(np.arange(12.0).reshape(3, 4) ** 1.5)
    ref = x.to_numpy()
    for _ in range(2):
        np.testing.assert_allclose(x.sum(0).to_numpy(), ref.sum(0))
        np.testing.assert_allclose(x.mean(0).to_numpy(), ref.mean(0))
        np.testing.assert_allclose(x.amax(0).to_numpy(), ref.max(0))
        np.testing.assert_allclose(
            x.sum(1, keepdim=True).to_numpy(), ref.sum(1)[:, None]
        )
        np.testing.assert_allclose(x.mean().item(), ref.mean())
        np.testing.assert_allclose(x.sum(-1).to_numpy(), ref.sum(-1))
        np.testing.assert_allclose(x.T.mean().item(), ref.mean())
        np.testing.assert_allclose(x.T.sum(0).to_numpy(), ref.T.sum(0))
    with pytest.raises(ValueError, match="empty"):
        kt.zeros(0, 3).amax(0)


@pytest.mark.task2_4
def test_backward_twice_through_a_reduction_follows_its_saved_tensors():
    # As in PyTorch: sum and mean save no tensors, so a second backward works;
    # amax saves its input and result, freed by the first backward.
    w = kt.tensor([1.0, 3.0], requires_grad=True)
    y = w.mean()
    y.backward()
    y.backward()
    assert w.grad.tolist() == [1.0, 1.0]
    w.grad = None
    y = w.amax()
    y.backward(retain_graph=True)
    y.backward()
    assert w.grad.tolist() == [0.0, 2.0]
    with pytest.raises(RuntimeError, match="backward through the graph a second"):
        y.backward()


def _returning(value_of):
    """A Function whose forward returns ``value_of(a)`` as it is (no new tensor),
    and whose backward passes the gradient on."""

    class Returning(kt.Function):
        @staticmethod
        def forward(ctx, a):
            return value_of(a)

        @staticmethod
        def backward(ctx, grad):
            return grad

    return Returning


class _SavesItsResult(kt.Function):
    """exp, saving its own result for backward (as Exp may)."""

    @staticmethod
    def forward(ctx, a):
        out = a.backend.exp_map(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_values
        return grad.backend.mul_zip(grad, out)


@pytest.mark.task2_4
def test_a_result_carries_its_history_without_touching_what_others_hold():
    # Function.apply gives the history to the forward's result itself only when
    # nothing else holds it; an input, a tensor kept elsewhere, or a result the
    # forward saved gets a fresh Tensor object instead, and stays as it was.
    kept = kt.tensor([7.0, 8.0])  # a tensor that a name elsewhere holds
    identity, keeps = _returning(lambda a: a), _returning(lambda a: kept)
    x = kt.tensor([1.0, 2.0], requires_grad=True)
    y = identity.apply(x)
    assert y is not x and x.is_leaf and y.history.last_fn is identity
    z = keeps.apply(x)
    assert z is not kept and kept.is_leaf and not kept.requires_grad
    assert z.parents == (x,) and z.tolist() == [7.0, 8.0]
    # A result saved for backward that pointed at its own history would be a
    # reference cycle: the graph would outlive its last name until the collector
    # ran. Without the collector it is freed at once.
    gc.disable()
    try:
        w = _SavesItsResult.apply(x)
        graph = weakref.ref(w.history.ctx)
        w.sum().backward()
        np.testing.assert_allclose(x.grad.to_numpy(), np.exp([1.0, 2.0]))
        del w
        assert graph() is None
    finally:
        gc.enable()
    # A fresh result takes the history itself: the tensor is what the forward made.
    v = x.relu()
    assert v.history.last_fn is kt.tensor_functions.ReLU and v.parents == (x,)


# --------------------------------------------------------------- 0-d tensors


@pytest.mark.task2_6  # var (Task 2.6) of a 0-d tensor; the reductions it uses
@pytest.mark.parametrize("dim", [0, -1, (0,)])
def test_zero_d_reductions_take_dim_0_and_minus_1(dim):
    t = kt.tensor(3.0)
    assert t.sum(dim).item() == 3.0 and t.sum(dim).shape == ()
    assert t.mean(dim).item() == 3.0 and t.amax(dim).item() == 3.0
    if not isinstance(dim, tuple):
        assert t.max(dim).values.item() == 3.0 and t.max(dim).indices.item() == 0
        assert t.min(dim, keepdim=True).values.shape == ()
    assert t.var(dim, unbiased=False).item() == 0.0
    with pytest.raises(IndexError, match="0-d"):
        t.sum(1)


@pytest.mark.task2_3
def test_mean_of_nothing_is_nan():
    assert math.isnan(kt.zeros(0).mean().item())
    assert np.isnan(kt.zeros(0, 2).mean(0).to_numpy()).all()


# ------------------------------------------------------------------- view


@pytest.mark.task2_4
def test_view_follows_torch_stride_rule():
    x = kt.tensor(np.arange(12.0).reshape(3, 4))
    v = x.T.view(4, 3, 1)
    assert v._tensor._storage is x._tensor._storage or v.shape == (4, 3, 1)
    np.testing.assert_array_equal(
        v.to_numpy(), np.arange(12.0).reshape(3, 4).T[..., None]
    )
    w = kt.zeros(2, 3, 4).permute(1, 0, 2).view(3, 2, 2, 2)  # split the last dim
    assert w.shape == (3, 2, 2, 2)
    v.to_numpy()
    with pytest.raises(ValueError, match="view size is not compatible"):
        x.T.view(12)
    # An empty tensor can always be viewed, permuted or not (torch 2: (0,), (2, 0)).
    empty = kt.zeros(3, 0, 2).permute(2, 0, 1)
    assert empty.view(0).shape == (0,) and empty.view(2, 0).shape == (2, 0)
    a = kt.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    g = kt.tensor(np.arange(6.0).reshape(3, 2, 1))
    (a.T.view(3, 2, 1) * g).sum().backward()
    np.testing.assert_array_equal(a.grad.to_numpy(), np.arange(6.0).reshape(3, 2).T)


# -------------------------------------------------------- advanced indexing


@pytest.mark.task2_4
def test_indexing_with_index_tensors_and_masks():
    data = np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]])
    x = kt.tensor(data, requires_grad=True)
    np.testing.assert_array_equal(x[kt.tensor([1, 0, 1])].to_numpy(), data[[1, 0, 1]])
    np.testing.assert_array_equal(x[x > 0].to_numpy(), data[data > 0])
    rows, cols = kt.tensor([0, 1, 1]), kt.tensor([2, 0, 0])
    picked = x[rows, cols]
    np.testing.assert_array_equal(picked.to_numpy(), [3.0, -4.0, -4.0])
    np.testing.assert_array_equal(x[:, [2, 0]].to_numpy(), data[:, [2, 0]])
    (picked * kt.tensor([1.0, 2.0, 3.0])).sum().backward()
    np.testing.assert_array_equal(x.grad.to_numpy(), [[0, 0, 1], [5, 0, 0]])
    mask = (x > 0) & ~(x > 4)
    np.testing.assert_array_equal(x[mask].to_numpy(), [1.0, 3.0])
    np.testing.assert_array_equal(x[(x < -5) | (x > 4)].to_numpy(), [5.0, -6.0])
    with pytest.raises(IndexError, match="whole numbers"):
        x[[0.5]]


@pytest.mark.task2_6
def test_assignment_through_masks_and_index_tensors():
    x = kt.tensor([[1.0, -2.0], [-3.0, 4.0]])
    column = x[:, 1]
    x[x < 0] = 0.0
    assert x.tolist() == [[1.0, 0.0], [0.0, 4.0]] and column.tolist() == [0.0, 4.0]
    x[kt.tensor([1]), kt.tensor([0])] = kt.tensor([9.0])
    assert x.tolist() == [[1.0, 0.0], [9.0, 4.0]]


# ---------------------------------------------------------------- grad_check


@pytest.mark.task2_4
def test_grad_check_trusts_a_correct_gradient_of_large_values():
    # MiniTorch's test_one_derivative[cube] case: |L| ~ 1e5 made the old check
    # report a correct gradient as wrong.
    kt.grad_check(lambda a: a * a * a, kt.tensor([76.0, 0.25], requires_grad=True))
    kt.grad_check(
        lambda a: (a * 1e3).exp(), kt.tensor([0.01, -0.02], requires_grad=True)
    )


@pytest.mark.task2_4
def test_grad_check_accepts_an_input_that_f_ignores_beside_large_outputs():
    """``y`` is not used: it gets no gradient, and its central difference is 0 up
    to the round-off of outputs near 1e12, which the check must allow for there
    too (``atol + r_j``), not only where a gradient exists."""
    x = kt.tensor([3.0, -2.0], requires_grad=True)
    y = kt.tensor([1.0], requires_grad=True)
    kt.grad_check(lambda a, b: a * 1e12 + 7e11, x, y)
    assert y.grad is None


# ------------------------------------------------------ property-based checks


@st.composite
def index_cases(draw):
    """A small array, and an advanced index: a mask, or integer lists on one or
    two dims (repeats allowed), maybe mixed with a slice."""
    rows, cols = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    values = np.arange(rows * cols, dtype=np.float64).reshape(rows, cols) - 3.0
    kind = draw(st.sampled_from(["mask", "rows", "pairs", "mixed"]))
    pick = st.lists(st.integers(0, rows - 1), min_size=1, max_size=5)
    if kind == "mask":
        return values, "mask", draw(st.floats(-3, 10))
    if kind == "rows":
        return values, "rows", draw(pick)
    if kind == "pairs":
        r = draw(pick)
        c = draw(st.lists(st.integers(0, cols - 1), min_size=len(r), max_size=len(r)))
        return values, "pairs", (r, c)
    return values, "mixed", draw(pick)


@pytest.mark.task2_4
@given(index_cases())
def test_advanced_indexing_matches_numpy_and_scatters_gradients(case):
    values, kind, spec = case
    x = kt.tensor(values, requires_grad=True)
    if kind == "mask":
        ours, theirs = x[x > spec], values[values > spec]
        mask = values > spec
    elif kind == "rows":
        ours, theirs = x[kt.tensor(spec, dtype=kt.int64)], values[spec]
    elif kind == "pairs":
        ours = x[kt.tensor(spec[0], dtype=kt.int64), kt.tensor(spec[1], dtype=kt.int64)]
        theirs = values[spec[0], spec[1]]
    else:
        ours, theirs = x[spec, 1:], values[spec, 1:]
    np.testing.assert_array_equal(ours.to_numpy(), theirs)
    if ours.numel() == 0:
        return
    weights = np.random.default_rng(0).standard_normal(theirs.shape)
    (ours * kt.tensor(weights)).sum().backward()
    expected = np.zeros_like(values)
    if kind == "mask":
        expected[mask] = weights
    elif kind == "rows":
        np.add.at(expected, spec, weights)
    elif kind == "pairs":
        np.add.at(expected, (spec[0], spec[1]), weights)
    else:
        np.add.at(expected[:, 1:], spec, weights)
    np.testing.assert_allclose(x.grad.to_numpy(), expected)


@pytest.mark.task2_4
@pytest.mark.parametrize(
    "key, selects, rest",
    [
        # (key into x of shape (2, 3, 4); PyTorch's reading: x[selects][rest])
        ((0, slice(None), [2, 0]), (0,), (slice(None), [2, 0])),
        ((1, Ellipsis, [1, 2]), (1,), (Ellipsis, [1, 2])),
        ((0, None, [1, 2]), (0,), (None, [1, 2])),
        (
            (slice(None), 1, [0, 3]),
            (slice(None), 1),
            (slice(None), [0, 3]),
        ),
        (
            (-1, [[0, 1], [1, 2]], slice(None, None, 2)),
            (-1,),
            ([[0, 1], [1, 2]], slice(None, None, 2)),
        ),
        (("0-d", slice(None), [0, 1]), (1,), (slice(None), [0, 1])),
        ((0, "mask"), (0,), ("mask",)),
    ],
)
def test_ints_select_before_the_advanced_index(key, selects, rest):
    """PyTorch applies an int (or a 0-d integer tensor) index as a select first:
    x[0, :, idx] is x[0][:, idx] (shape (3, 2)), where NumPy would count the int
    as advanced and move idx's dim to the front (shape (2, 3)). Values,
    gradients and assignment all follow PyTorch's reading."""
    values = np.arange(24.0).reshape(2, 3, 4)
    mask = values[0] % 5 > 1

    def ours(k):
        if k == "0-d":
            return kt.tensor(1)
        return kt.tensor(mask) if k == "mask" else k

    def theirs(k):
        return mask if k == "mask" else k

    key = tuple(ours(k) for k in key)
    expected = values[selects][tuple(theirs(k) for k in rest)]
    x = kt.tensor(values, requires_grad=True)
    out = x[key]
    np.testing.assert_array_equal(out.to_numpy(), expected)
    weights = np.arange(1.0, expected.size + 1).reshape(expected.shape)
    (out * kt.tensor(weights)).sum().backward()
    grad = np.zeros_like(values)
    np.add.at(grad[selects], tuple(theirs(k) for k in rest), weights)
    np.testing.assert_array_equal(x.grad.to_numpy(), grad)
    y = kt.tensor(values)
    y[key] = kt.tensor(-weights)
    written = values.copy()
    written[selects][tuple(theirs(k) for k in rest)] = -weights
    np.testing.assert_array_equal(y.to_numpy(), written)


@pytest.mark.task2_6
@given(st.integers(0, 2), st.integers(0, 3), st.floats(-2, 2))
def test_in_place_through_any_view_matches_numpy(dim_choice, start, value):
    base = np.arange(12.0).reshape(3, 4)
    x = kt.tensor(base)
    views = [
        lambda t: t[start % 3],
        lambda t: t[:, start % 4],
        lambda t: t.T[start % 4],
    ]
    view = views[dim_choice](x)
    expected = base.copy()
    target = views[dim_choice](expected)
    view *= value
    target *= value
    view += 1.0
    target += 1.0
    np.testing.assert_allclose(x.to_numpy(), expected)


@pytest.mark.task2_3
def test_numbers_used_as_operands_stay_what_they_are():
    # Python numbers become 0-d tensors that the library reuses between operations:
    # the results of one operation must not change those of the next.
    y = kt.tensor([5.0, -0.0])
    np.testing.assert_array_equal((y * 2.0).to_numpy(), [10.0, -0.0])
    np.testing.assert_array_equal((y + 2.0).to_numpy(), [7.0, 2.0])
    # -0.0 and 0.0 are different numbers to IEEE: 1 / (x * -0.0) is -inf.
    assert (kt.tensor(1.0) / (kt.tensor(1.0) * -0.0)).item() == -math.inf
    assert (kt.tensor(1.0) / (kt.tensor(1.0) * 0.0)).item() == math.inf
