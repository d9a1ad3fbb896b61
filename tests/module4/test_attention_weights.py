"""Task 4.8: the attention's masked softmax, ``attention.attention_weights``.

Its values against an independent NumPy oracle (PyTorch's semantics: masked entries
0, rows with nothing kept 0, an additive mask added first), for every mask form a
caller may pass and for scores that are not contiguous; its gradients against
central differences; dropout after it; ``no_grad``; a mask that needs a gradient
gets one, and one that does not fit raises.
"""

from __future__ import annotations

import numpy as np
import pytest

from module2_tensors import manual_seed, no_grad
from module4_networks import attention as A
from tests.module4.helpers import check_grad, make

pytestmark = pytest.mark.task4_8

SHAPE = (2, 2, 3, 4)


def _masks():
    """(name, mask, its numbers) triples: 0/1 masks of several forms (one with an
    empty row), an additive float mask, none (``mask`` callable: made per call)."""
    rng = np.random.default_rng(7)
    keep = (rng.uniform(size=SHAPE) > 0.4).astype(np.float64)
    keep[0, 1, 2, :] = 0.0  # a row with nothing kept
    pad = np.ones((2, 1, 1, 4))
    pad[1, ..., 2:] = 0.0
    additive = np.where(np.tril(np.ones((3, 4))) > 0, 0.0, -np.inf)
    additive[0, 0] = 0.5  # not 0/1: a float mask
    return [
        ("none", None, None),
        ("keep", keep, keep),
        ("padding", pad, pad),
        ("bool array", keep.astype(bool), keep),
        ("comparison", lambda: make(keep) > 0.5, keep),
        ("additive", additive, additive),
    ]


def _oracle(scores, mask):
    """The weights by NumPy, as PyTorch defines them."""
    if mask is None:
        x = scores
    elif np.isin(np.unique(mask), (0.0, 1.0)).all():
        keep = np.broadcast_to(np.asarray(mask, dtype=bool), scores.shape)
        e = np.where(keep, np.exp(scores - scores.max(axis=-1, keepdims=True)), 0.0)
        total = e.sum(axis=-1, keepdims=True)
        return np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    else:
        x = scores + mask
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _values_and_grad(scores, mask, g, order=None):
    s = make(scores, True, order)
    out = A.attention_weights(s, mask() if callable(mask) else mask)
    out.backward(out.new_tensor(g))
    return out.to_numpy(), s.grad.to_numpy()


@pytest.mark.parametrize("name, mask, numbers", _masks())
@pytest.mark.parametrize("order", [None, (0, 1, 3, 2)])
def test_masked_softmax_matches_numpy_for_every_mask_form(name, mask, numbers, order):
    rng = np.random.default_rng(3)
    scores, g = rng.normal(size=SHAPE), rng.normal(size=SHAPE)
    got, got_grad = _values_and_grad(scores, mask, g, order)
    want = _oracle(scores, numbers)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    # The softmax's own backward, w * (g - sum(g * w)), with masked entries 0.
    want_grad = want * (g - (g * want).sum(axis=-1, keepdims=True))
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("name, mask, numbers", _masks()[:3] + _masks()[5:])
def test_masked_softmax_gradients_match_central_differences(name, mask, numbers):
    scores = np.random.default_rng(4).normal(size=SHAPE)
    check_grad(lambda s: A.attention_weights(s, mask), [scores])


def test_dropout_follows_the_softmax_and_the_seed():
    """Dropout on the weights: the same seed drops the same entries, and the kept
    ones are the softmax's weights scaled by $1 / (1 - p)$."""
    scores = np.random.default_rng(6).normal(size=SHAPE)
    manual_seed(9)
    first = A.attention_weights(make(scores), None, dropout_p=0.5).to_numpy()
    manual_seed(9)
    again = A.attention_weights(make(scores), None, dropout_p=0.5).to_numpy()
    np.testing.assert_array_equal(first, again)
    kept = first != 0.0
    assert kept.any() and not kept.all()
    np.testing.assert_allclose(first[kept], 2.0 * _oracle(scores, None)[kept])
    no_dropout = A.attention_weights(make(scores), None, 0.5, training=False)
    np.testing.assert_allclose(no_dropout.to_numpy(), _oracle(scores, None))


def test_inside_no_grad_nothing_is_recorded():
    s = make(np.ones(SHAPE), True)
    with no_grad():
        out = A.attention_weights(s, None)
    assert not out.requires_grad and s.grad is None
    np.testing.assert_allclose(out.to_numpy(), np.full(SHAPE, 0.25))


def test_a_mask_that_needs_a_gradient_gets_one_and_one_that_does_not_fit_raises():
    rng = np.random.default_rng(8)
    numbers, scores, g = (rng.normal(size=SHAPE) for _ in range(3))
    additive, s = make(numbers, True), make(scores, True)
    out = A.attention_weights(s, additive)
    out.backward(out.new_tensor(g))
    # scores + mask: the mask's gradient is the scores', the softmax's backward.
    w = _oracle(scores, numbers)
    want = w * (g - (g * w).sum(axis=-1, keepdims=True))
    np.testing.assert_allclose(additive.grad.to_numpy(), want, rtol=1e-10)
    np.testing.assert_allclose(s.grad.to_numpy(), want, rtol=1e-10)
    with pytest.raises(ValueError):
        A.attention_weights(make(np.ones(SHAPE)), np.ones((5, 4)))
