"""Task 4.8: the attention's masked softmax in one Function
(``module4_networks/_softmax_fast.py``, issue 29).

The fast path must give the values and gradients of the students'
``attention_weights`` (run alone as the reference) and of an independent NumPy
oracle (PyTorch's semantics: masked entries 0, rows with nothing kept 0, an
additive mask added first), with gradients against central differences. It must be
taken only where it agreed with the students' code, so a wrong softmax still
shows and a stub still raises; dropout still follows it.
"""

from __future__ import annotations

import numpy as np
import pytest

from module2_tensors import manual_seed, no_grad, rand
from module4_networks import _softmax_fast
from module4_networks import attention as A
from module4_networks import functional as F
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
def test_fast_softmax_equals_numpy_and_the_students_code(
    name, mask, numbers, order, mp
):
    _softmax_fast.PATH.reset()
    rng = np.random.default_rng(3)
    scores, g = rng.normal(size=SHAPE), rng.normal(size=SHAPE)
    want = _oracle(scores, numbers)
    with _softmax_fast.PATH.off():  # the students' code alone
        ref, ref_grad = _values_and_grad(scores, mask, g, order)
    for _ in range(2):  # first call: checked, then fast; second: fast directly
        got, got_grad = _values_and_grad(scores, mask, g, order)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(got_grad, ref_grad, rtol=1e-10, atol=1e-14)
    assert list(_softmax_fast.PATH.outcomes) == [True]


@pytest.fixture
def mp(monkeypatch):
    """``monkeypatch``, shorter."""
    return monkeypatch


@pytest.mark.parametrize("name, mask, numbers", _masks()[:3] + _masks()[5:])
def test_fast_softmax_gradients_match_central_differences(name, mask, numbers, mp):
    _softmax_fast.PATH.reset()
    scores = np.random.default_rng(4).normal(size=SHAPE)
    check_grad(lambda s: A.attention_weights(s, mask), [scores])
    # (The differences evaluate inputs that need no gradient: a second signature.)
    assert list(_softmax_fast.PATH.outcomes) == [True, True]


def test_a_wrong_softmax_is_kept(mp):
    _softmax_fast.PATH.reset()
    right = F.softmax
    mp.setattr(F, "softmax", lambda x, dim: right(x, dim) * 2.0)
    scores = np.random.default_rng(5).normal(size=SHAPE)
    for _ in range(2):
        out = A.attention_weights(make(scores), None)
        np.testing.assert_allclose(out.to_numpy(), 2.0 * _oracle(scores, None))
    assert list(_softmax_fast.PATH.outcomes) == [False]


def test_a_stub_still_raises(mp):
    _softmax_fast.PATH.reset()

    def stub(x, dim):
        raise NotImplementedError("Task 4.4: softmax")

    mp.setattr(F, "softmax", stub)
    with pytest.raises(NotImplementedError, match="Task 4.4"):
        A.attention_weights(make(np.zeros(SHAPE)), None)
    assert _softmax_fast.PATH.signatures == 0


def test_dropout_still_follows_with_the_same_random_numbers(mp):
    """The check draws no numbers from the seeded stream; dropout on the weights
    then gives what the students' path gives."""
    _softmax_fast.PATH.reset()
    scores = np.random.default_rng(6).normal(size=SHAPE)
    with _softmax_fast.PATH.off():
        manual_seed(9)
        want = A.attention_weights(make(scores), None, dropout_p=0.5).to_numpy()
    manual_seed(9)
    got = A.attention_weights(make(scores), None, dropout_p=0.5).to_numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert (got == 0.0).any() and list(_softmax_fast.PATH.outcomes) == [True]
    manual_seed(9)
    expected = rand(5).to_numpy()
    manual_seed(9)
    A.attention_weights(make(scores[:1]), None)  # another signature: a check
    np.testing.assert_array_equal(rand(5).to_numpy(), expected)


def test_a_first_call_inside_no_grad_is_checked_and_records_nothing(mp):
    _softmax_fast.PATH.reset()
    s = make(np.ones(SHAPE), True)
    with no_grad():
        out = A.attention_weights(s, None)
    assert not out.requires_grad and s.grad is None
    assert list(_softmax_fast.PATH.outcomes) == [True]


def test_a_mask_that_needs_a_gradient_or_does_not_fit_is_the_students(mp):
    _softmax_fast.PATH.reset()
    additive = make(np.full(SHAPE, 0.25), True)
    out = A.attention_weights(make(np.ones(SHAPE)), additive)
    out.sum().backward()
    assert additive.grad is not None  # the students' path: the mask gets one
    with pytest.raises(ValueError):
        A.attention_weights(make(np.ones(SHAPE)), np.ones((5, 4)))
    assert _softmax_fast.PATH.signatures == 0
