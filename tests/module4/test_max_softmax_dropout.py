"""Task 4.4: max and argmax with gradient, softmax, log_softmax, max pooling and
dropout."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from module2_tensors import manual_seed
import module4_networks as kt
from module4_networks import functional as F
from tests.module4.helpers import check_grad, make

pytestmark = pytest.mark.task4_4


@st.composite
def arrays_and_dims(draw, max_side: int = 4, ties: bool = False):
    """A 1- to 3-d array, a valid (possibly negative) dim, and a layout. With
    ``ties``, small whole numbers, so that maxima often repeat."""
    shape = tuple(draw(st.lists(st.integers(1, max_side), min_size=1, max_size=3)))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    x = rng.integers(-2, 3, size=shape) * 1.0 if ties else rng.normal(size=shape)
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    order = tuple(draw(st.permutations(range(len(shape)))))
    return x, dim, order


def one_hot_first_max(x: np.ndarray, dim: int) -> np.ndarray:
    """1 at the first maximum along dim (np.argmax picks the first), 0 elsewhere."""
    index = np.expand_dims(np.argmax(x, axis=dim), dim)
    hot = np.zeros_like(x)
    np.put_along_axis(hot, index, 1.0, axis=dim)
    return hot


def softmax_ref(x: np.ndarray, dim: int) -> np.ndarray:
    e = np.exp(x - x.max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


# --------------------------------------------------------------- max, argmax
@given(arrays_and_dims(ties=True))
def test_max_values_and_indices_match_numpy(problem):
    x, dim, order = problem
    values, indices = F.max(make(x, order=order), dim)
    np.testing.assert_array_equal(values.to_numpy(), x.max(axis=dim))
    np.testing.assert_array_equal(indices.to_numpy(), np.argmax(x, axis=dim))
    kept = F.max(make(x), dim, keepdim=True)
    assert kept.values.shape == np.expand_dims(x.max(axis=dim), dim).shape
    assert kept.indices.shape == kept.values.shape


@given(arrays_and_dims(ties=True))
def test_max_gradient_goes_to_the_first_maximum(problem):
    x, dim, order = problem
    t = make(x, requires_grad=True, order=order)
    upstream = np.random.default_rng(0).normal(size=x.max(axis=dim).shape)
    (F.max(t, dim).values * make(upstream)).sum().backward()
    expected = one_hot_first_max(x, dim) * np.expand_dims(upstream, dim)
    np.testing.assert_array_equal(t.grad.to_numpy(), expected)


def test_max_with_ties_by_hand():
    t = make(np.array([[3.0, 1.0, 3.0], [2.0, 2.0, 2.0]]), requires_grad=True)
    values, indices = F.max(t, dim=1)
    assert indices.tolist() == [0.0, 0.0]
    values.sum().backward()
    assert t.grad.tolist() == [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]


@settings(max_examples=10)
@given(arrays_and_dims())
def test_max_gradient_matches_central_differences(problem):
    x, dim, order = problem
    check_grad(lambda a: F.max(a, dim).values, [x], orders=[order])


def test_max_and_argmax_without_dim_work_on_the_flattened_tensor():
    x = np.array([[1.0, 5.0, 2.0], [5.0, 0.0, -1.0]])
    t = make(x, requires_grad=True)
    overall = F.max(t)
    assert overall.shape == () and overall.item() == 5.0
    overall.backward()
    assert t.grad.tolist() == [[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]]
    assert F.argmax(make(x)).item() == 1.0
    assert F.argmax(make(x), keepdim=True).shape == (1, 1)


def test_argmax_and_max_indices_are_int64_as_pytorchs():
    """``kt.argmax(x)`` and ``F.max(x, dim).indices`` index: ``int64`` (not a
    float), ``item()`` an int, as ``torch.argmax``."""
    x = make(np.array([[1.0, 5.0, 5.0], [5.0, 0.0, 2.0]]))
    first = F.argmax(x)
    assert first.dtype is kt.int64 and first.item() == 1 and type(first.item()) is int
    assert F.argmax(x, 1).tolist() == [1, 0] and F.argmax(x, 0).dtype is kt.int64
    assert F.max(x, 1).indices.dtype is kt.int64
    assert kt.argmax(x, dim=1, keepdim=True).tolist() == [[1], [0]]


@given(arrays_and_dims(ties=True))
def test_argmax_matches_numpy(problem):
    x, dim, order = problem
    got = F.argmax(make(x, order=order), dim)
    np.testing.assert_array_equal(got.to_numpy(), np.argmax(x, axis=dim))
    assert not got.requires_grad


# ---------------------------------------------------------- softmax family
@given(arrays_and_dims())
def test_softmax_and_log_softmax_match_numpy(problem):
    x, dim, order = problem
    x = 5.0 * x
    probs = F.softmax(make(x, order=order), dim).to_numpy()
    np.testing.assert_allclose(probs, softmax_ref(x, dim), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(probs.sum(axis=dim), 1.0, rtol=1e-12)
    logs = F.log_softmax(make(x, order=order), dim).to_numpy()
    np.testing.assert_allclose(logs, np.log(softmax_ref(x, dim)), atol=1e-12)


def test_softmax_is_stable_at_plus_minus_1000():
    """$e^{1000}$ overflows to inf (and inf / inf is nan): softmax subtracts each
    slice's max before exponentiating, which changes nothing mathematically."""
    x = np.array([[1000.0, -1000.0, 0.0], [-1000.0, -1000.0, -1000.0]])
    probs = F.softmax(make(x), dim=1).to_numpy()
    assert np.all(np.isfinite(probs)), (
        f"softmax of {x.tolist()} gave {probs.tolist()}: exp overflows at 1000; "
        "subtract the max of each slice along dim before exp"
    )
    np.testing.assert_allclose(probs[0], [1.0, 0.0, 0.0])
    np.testing.assert_allclose(probs[1], [1 / 3] * 3)


def test_log_softmax_is_stable_at_plus_minus_1000():
    x = np.array([[1000.0, -1000.0, 0.0], [-1000.0, -1000.0, -1000.0]])
    logs = F.log_softmax(make(x), dim=1).to_numpy()
    np.testing.assert_allclose(logs[0], [0.0, -2000.0, -1000.0])
    np.testing.assert_allclose(logs[1], np.log([1 / 3] * 3))


def test_log_softmax_gradient_is_finite_and_exact_at_1000():
    # d/dx_j sum_i w_i log_softmax(x)_i = w_j - softmax(x)_j * sum_i w_i
    x = np.array([1000.0, -1000.0, 0.0, 999.0])
    w = np.array([0.5, -1.0, 2.0, 0.25])
    t = make(x, requires_grad=True)
    (F.log_softmax(t, 0) * make(w)).sum().backward()
    expected = w - softmax_ref(x, 0) * w.sum()
    np.testing.assert_allclose(t.grad.to_numpy(), expected, atol=1e-12)


@settings(max_examples=10)
@given(arrays_and_dims(max_side=3))
def test_softmax_gradients_match_central_differences(problem):
    x, dim, order = problem
    check_grad(lambda a: F.softmax(a, dim), [x], orders=[order])
    check_grad(lambda a: F.log_softmax(a, dim), [x], orders=[order])


# ---------------------------------------------------------------- max pool
@st.composite
def max_pool_problems(draw, ties: bool = False, max_side: int = 6):
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    shape = (
        draw(st.integers(1, 2)),
        draw(st.integers(1, 2)),
        draw(st.integers(kh, max(kh, max_side))),
        draw(st.integers(kw, max(kw, max_side))),
    )
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    x = rng.integers(0, 3, size=shape) * 1.0 if ties else rng.normal(size=shape)
    return x, (kh, kw)


def window_view(x: np.ndarray, kh: int, kw: int) -> np.ndarray:
    b, c, h, w = x.shape
    nh, nw = h // kh, w // kw
    cropped = x[:, :, : nh * kh, : nw * kw]
    return cropped.reshape(b, c, nh, kh, nw, kw).transpose(0, 1, 2, 4, 3, 5)


@given(max_pool_problems(ties=True))
def test_max_pool2d_matches_window_maxima(problem):
    x, (kh, kw) = problem
    out = F.max_pool2d(make(x), (kh, kw))
    np.testing.assert_array_equal(out.to_numpy(), window_view(x, kh, kw).max((4, 5)))


@settings(max_examples=6)
@given(max_pool_problems(max_side=4))
def test_max_pool2d_gradient_matches_central_differences(problem):
    x, kernel = problem
    x = x[:1]  # one example keeps the entry-by-entry check quick
    check_grad(lambda a: F.max_pool2d(a, kernel), [x])


def test_max_pool2d_routes_a_tied_window_to_its_first_maximum():
    x = np.array([[[[1.0, 4.0, 2.0, 2.0], [4.0, 0.0, 2.0, 2.0]]]])
    t = make(x, requires_grad=True)
    F.max_pool2d(t, 2).sum().backward()
    assert t.grad.tolist() == [[[[0.0, 1.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0]]]]


# ------------------------------------------------------------------ dropout
def test_dropout_keeps_with_probability_1_minus_p_and_scales():
    manual_seed(7)
    x = np.random.default_rng(1).uniform(1.0, 2.0, size=(40, 50))
    t = make(x, requires_grad=True)
    out = F.dropout(t, p=0.3)
    y = out.to_numpy()
    kept = y != 0.0
    np.testing.assert_allclose(y[kept], x[kept] / 0.7)
    # 2000 Bernoulli(0.7) draws: the share kept is 0.7 within 5 standard errors.
    assert abs(kept.mean() - 0.7) < 5 * np.sqrt(0.7 * 0.3 / kept.size)
    out.sum().backward()
    np.testing.assert_allclose(t.grad.to_numpy(), kept / 0.7)


def test_dropout_is_reproducible_with_manual_seed():
    x = make(np.ones((5, 6)))
    manual_seed(3)
    first = F.dropout(x, 0.5).to_numpy()
    manual_seed(3)
    np.testing.assert_array_equal(F.dropout(x, 0.5).to_numpy(), first)
    assert 0 < np.count_nonzero(first) < first.size


def test_dropout_edge_cases():
    x = np.random.default_rng(2).normal(size=(3, 4))
    for kwargs in (
        dict(p=0.0),
        dict(p=0.5, training=False),
        dict(p=1.0, training=False),
    ):
        np.testing.assert_array_equal(F.dropout(make(x), **kwargs).to_numpy(), x)
    t = make(x, requires_grad=True)
    out = F.dropout(t, p=1.0)
    np.testing.assert_array_equal(out.to_numpy(), np.zeros((3, 4)))
    out.sum().backward()
    np.testing.assert_array_equal(t.grad.to_numpy(), np.zeros((3, 4)))
