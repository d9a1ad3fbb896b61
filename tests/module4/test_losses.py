"""Task 4.6: the losses, against NumPy references and central differences."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from module2_tensors import tensor
from module4_networks import losses
from module4_networks.nn import functional as F
from tests.module4.helpers import check_grad, make

pytestmark = pytest.mark.task4_6


@st.composite
def classification_problems(draw, extra_dims: bool = True):
    """Logits ``(N, C)`` or ``(N, C, d)`` (scaled up to 10x), class targets, and a
    reduction."""
    n, c = draw(st.integers(1, 4)), draw(st.integers(2, 4))
    extra = (draw(st.integers(1, 3)),) if extra_dims and draw(st.booleans()) else ()
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    logits = rng.normal(size=(n, c) + extra) * draw(st.sampled_from([1.0, 10.0]))
    target = rng.integers(0, c, size=(n,) + extra)
    return logits, target, draw(st.sampled_from(["mean", "sum", "none"]))


def cross_entropy_ref(logits: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Per-example -log softmax(x)[target], with log-sum-exp done stably."""
    m = logits.max(axis=1, keepdims=True)
    lse = np.log(np.exp(logits - m).sum(axis=1)) + m[:, 0]
    picked = np.take_along_axis(logits, np.expand_dims(target, 1), axis=1)[:, 0]
    return lse - picked


def reduce_ref(values: np.ndarray, reduction: str) -> np.ndarray:
    return {"mean": values.mean(), "sum": values.sum(), "none": values}[reduction]


@given(classification_problems())
def test_cross_entropy_matches_reference(problem):
    logits, target, reduction = problem
    got = F.cross_entropy(make(logits), target, reduction=reduction)
    expected = reduce_ref(cross_entropy_ref(logits, target), reduction)
    np.testing.assert_allclose(got.to_numpy(), expected, rtol=1e-10, atol=1e-12)


@given(classification_problems())
def test_nll_loss_picks_minus_the_target_entry(problem):
    values, target, reduction = problem
    got = F.nll_loss(make(values), tensor(target), reduction=reduction)
    picked = np.take_along_axis(values, np.expand_dims(target, 1), axis=1)[:, 0]
    np.testing.assert_allclose(got.to_numpy(), reduce_ref(-picked, reduction))


@settings(max_examples=10)
@given(classification_problems(extra_dims=False))
def test_cross_entropy_gradient_matches_central_differences(problem):
    logits, target, reduction = problem
    check_grad(lambda x: F.cross_entropy(x, target, reduction=reduction), [logits])


def test_cross_entropy_of_one_example_and_of_huge_logits():
    logits = np.array([1000.0, -1000.0, 0.0])
    got = F.cross_entropy(make(logits), 2)
    assert got.shape == () and got.item() == pytest.approx(1000.0)
    t = make(np.array([[1000.0, -1000.0]]), requires_grad=True)
    loss = F.cross_entropy(t, [1])
    assert loss.item() == pytest.approx(2000.0)
    loss.backward()
    np.testing.assert_allclose(t.grad.to_numpy(), [[1.0, -1.0]])


@pytest.mark.parametrize(
    "target, error, message",
    [
        ([0, 3], IndexError, r"target 3 is out of bounds for 3 classes"),
        ([0, -1], IndexError, r"target -1 is out of bounds"),
        ([0.5, 1], IndexError, r"target 0.5 is out of bounds"),
        ([0, 1, 2], ValueError, r"target of shape \(3,\) does not match input of "),
    ],
)
def test_class_targets_are_checked(target, error, message):
    with pytest.raises(error, match=message):
        F.cross_entropy(make(np.zeros((2, 3))), target)


@settings(max_examples=10)
@given(st.integers(0, 2**16), st.sampled_from(["mean", "sum", "none"]))
def test_mse_loss_matches_reference(seed, reduction):
    rng = np.random.default_rng(seed)
    x, y = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    got = F.mse_loss(make(x), make(y), reduction=reduction)
    np.testing.assert_allclose(got.to_numpy(), reduce_ref((x - y) ** 2, reduction))
    check_grad(lambda a, b: F.mse_loss(a, b, reduction=reduction), [x, y])


def bce_ref(p: np.ndarray, y: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        log_p = np.maximum(np.log(p), -100.0)
        log_q = np.maximum(np.log(1.0 - p), -100.0)
    return -(y * log_p + (1.0 - y) * log_q)


@settings(max_examples=10)
@given(st.integers(0, 2**16), st.sampled_from(["mean", "sum", "none"]))
def test_binary_cross_entropy_matches_reference(seed, reduction):
    rng = np.random.default_rng(seed)
    p, y = rng.uniform(0.05, 0.95, size=(2, 3)), rng.uniform(0.0, 1.0, size=(2, 3))
    got = F.binary_cross_entropy(make(p), make(y), reduction=reduction)
    np.testing.assert_allclose(got.to_numpy(), reduce_ref(bce_ref(p, y), reduction))
    check_grad(lambda a: F.binary_cross_entropy(a, y, reduction=reduction), [p])


def test_binary_cross_entropy_clamps_the_log_at_minus_100():
    p, y = np.array([0.0, 1.0, 0.0]), np.array([1.0, 0.0, 0.0])
    got = F.binary_cross_entropy(make(p), make(y), reduction="none")
    np.testing.assert_allclose(got.to_numpy(), [100.0, 100.0, 0.0])
    with pytest.raises(ValueError, match=r"probabilities in \[0, 1\]"):
        F.binary_cross_entropy(make(np.array([1.5])), make(np.array([1.0])))


@settings(max_examples=10)
@given(st.integers(0, 2**16), st.sampled_from(["mean", "sum", "none"]))
def test_binary_cross_entropy_with_logits_matches_reference(seed, reduction):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(2, 3)) * 5.0
    y = rng.uniform(0.0, 1.0, size=(2, 3))
    expected = np.logaddexp(0.0, x) - x * y  # -(y log s(x) + (1-y) log(1-s(x)))
    got = F.binary_cross_entropy_with_logits(make(x), make(y), reduction=reduction)
    np.testing.assert_allclose(got.to_numpy(), reduce_ref(expected, reduction))
    check_grad(
        lambda a: F.binary_cross_entropy_with_logits(a, y, reduction=reduction), [x]
    )


def test_binary_cross_entropy_with_logits_is_stable_at_1000():
    x, y = np.array([1000.0, -1000.0]), np.array([0.0, 0.0])
    got = losses.binary_cross_entropy_with_logits(make(x), make(y), reduction="none")
    np.testing.assert_allclose(got.to_numpy(), [1000.0, 0.0])
