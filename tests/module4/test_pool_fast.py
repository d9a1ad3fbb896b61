"""Task 4.4: the one-pass max-pooling of ``functional.max_pool2d``
(``module4_networks/_pool_fast.py``, issue 29).

The fast path must give the values and gradients of the students' code (``tile``
then ``max``, or the general windows) and of an independent NumPy oracle: ties to
the first maximum, NaN windows, padding, overlapping windows, ``ceil_mode``,
non-contiguous inputs. It must be taken only where it agreed with the students'
code, so a wrong forward or backward still shows and a stub still raises.
"""

from __future__ import annotations

import numpy as np
import pytest

from module2_tensors import MaxResult, manual_seed, no_grad, rand
from module3_fast_ops import FastBackend
from module4_networks import _pool_fast
from module4_networks import functional as F
from tests.module4.helpers import make

task4_4 = pytest.mark.task4_4

CASES = [
    # (shape, kernel, stride, padding, ceil_mode)
    ((2, 3, 6, 6), 2, None, 0, False),
    ((1, 2, 7, 5), (2, 3), None, 0, False),  # partial windows dropped
    ((2, 2, 7, 7), 3, 2, 1, False),  # overlapping, padded
    ((1, 3, 6, 7), (3, 2), (2, 1), (1, 0), True),
    ((2, 1, 5, 5), 2, 3, 1, True),  # stride > kernel
]


def _numpy_max_pool(x, kernel, stride, padding, ceil_mode, g):
    """Values and input gradient by explicit windows: positions outside ``x``
    are -inf; the gradient goes to the first maximum (row-major), nowhere when
    that is padding or the window holds a NaN (``g=None``: values only)."""
    kh, kw = (kernel, kernel) if np.isscalar(kernel) else kernel
    stride = (kh, kw) if stride is None else stride
    sh, sw = (stride, stride) if np.isscalar(stride) else stride
    ph, pw = (padding, padding) if np.isscalar(padding) else padding
    batch, channels, height, width = x.shape

    def size(n, k, s, p):
        span = n + 2 * p - k
        out = (-(-span // s) if ceil_mode else span // s) + 1
        if ceil_mode and (out - 1) * s >= n + p:
            out -= 1
        return out

    oh, ow = size(height, kh, sh, ph), size(width, kw, sw, pw)
    out = np.empty((batch, channels, oh, ow))
    dx = np.zeros(x.shape)
    for b in range(batch):
        for c in range(channels):
            for i in range(oh):
                for j in range(ow):
                    vals, where = [], []
                    for u in range(kh):
                        for v in range(kw):
                            y, z = i * sh + u - ph, j * sw + v - pw
                            inside = 0 <= y < height and 0 <= z < width
                            vals.append(x[b, c, y, z] if inside else -np.inf)
                            where.append((y, z) if inside else None)
                    vals = np.array(vals)
                    if np.isnan(vals).any():
                        out[b, c, i, j] = np.nan
                        continue
                    first = int(np.argmax(vals))  # NumPy: the first maximum
                    out[b, c, i, j] = vals[first]
                    if g is not None and where[first] is not None:
                        dx[(b, c) + where[first]] += g[b, c, i, j]
    return out, dx


def _max_pool(t, kernel, stride=None, padding=0, ceil_mode=False):
    return F.max_pool2d(t, kernel, stride, padding, ceil_mode=ceil_mode)


def _values_and_grad(x, args, g, order=None):
    t = make(x, requires_grad=True, order=order, backend=FastBackend)
    out = _max_pool(t, *args)
    out.backward(out.new_tensor(g))
    return out.to_numpy(), t.grad.to_numpy()


def _with_ties_and_nan(shape, seed):
    """Small integers (many ties in every window), one NaN, one -inf block."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 3, size=shape).astype(np.float64)
    x[0, 0, 0, 0] = np.nan
    x[-1, -1, :2, :2] = -np.inf
    return x


@task4_4
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("order", [None, (0, 1, 3, 2)])
def test_fast_max_pool_matches_numpy_and_the_students_code(case, order, monkeypatch):
    _pool_fast.PATH.reset()
    shape, *args = case
    x = _with_ties_and_nan(shape, seed=len(shape) + shape[-1])
    want, _ = _numpy_max_pool(x, *args, None)
    g = np.random.default_rng(1).normal(size=want.shape)
    want, want_grad = _numpy_max_pool(x, *args, g)
    # The students' code alone (the hook steps aside while a check runs).
    with _pool_fast.PATH.off():
        ref, ref_grad = _values_and_grad(x, args, g, order)
    # First call: checked, then fast; second call: fast directly.
    for _ in range(2):
        got, got_grad = _values_and_grad(x, args, g, order)
        np.testing.assert_array_equal(got, want)  # NaN where NaN
        np.testing.assert_array_equal(got, ref)
        np.testing.assert_allclose(got_grad, want_grad, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(got_grad, ref_grad, rtol=1e-12, atol=1e-12)
    assert list(_pool_fast.PATH.outcomes) == [tuple(want.shape)]


@task4_4
def test_ties_go_to_the_first_maximum_and_nan_propagates():
    x = np.array([[[[1.0, 5.0, 5.0, 0.0], [5.0, 2.0, np.nan, 9.0]]]])
    got, grad = _values_and_grad(x, (2,), np.array([[[[10.0, 20.0]]]]))
    np.testing.assert_array_equal(got, [[[[5.0, np.nan]]]])
    # The first 5 (row-major) takes the gradient; the NaN window sends none.
    np.testing.assert_array_equal(grad, [[[[0.0, 10.0, 0.0, 0.0], [0.0] * 4]]])


@task4_4
def test_a_wrong_max_is_not_replaced_by_the_fast_path(monkeypatch):
    """A students' ``max`` that disagrees keeps running (its bug shows)."""
    _pool_fast.PATH.reset()
    right = F.max

    def wrong(a, dim=None, keepdim=False):
        values, indices = right(a, dim, keepdim)
        return MaxResult(values + 1.0, indices)

    monkeypatch.setattr(F, "max", wrong)
    x = np.random.default_rng(2).normal(size=(2, 2, 4, 4))
    want, _ = _numpy_max_pool(x, 2, None, 0, False, None)
    for _ in range(2):
        out = F.max_pool2d(make(x, backend=FastBackend), 2)
        np.testing.assert_array_equal(out.to_numpy(), want + 1.0)
    assert list(_pool_fast.PATH.outcomes) == [False]


@task4_4
def test_a_wrong_backward_is_not_replaced_by_the_fast_path(monkeypatch):
    _pool_fast.PATH.reset()

    def wrong(ctx, grad):  # every tied entry gets the gradient
        (one_hot,) = ctx.saved_values
        return grad.backend.mul_zip(one_hot, grad) * 2.0

    monkeypatch.setattr(F.MaxWithIndex, "backward", staticmethod(wrong))
    x = np.random.default_rng(3).normal(size=(1, 2, 4, 4))
    g = np.ones((1, 2, 2, 2))
    _, want_grad = _numpy_max_pool(x, 2, None, 0, False, g)
    for _ in range(2):
        _, grad = _values_and_grad(x, (2,), g)
        np.testing.assert_allclose(grad, 2.0 * want_grad)
    assert list(_pool_fast.PATH.outcomes) == [False]


@task4_4
def test_a_stub_still_raises(monkeypatch):
    _pool_fast.PATH.reset()

    def stub(input, kernel):
        raise NotImplementedError("Task 4.3: tile")

    monkeypatch.setattr(F, "tile", stub)
    with pytest.raises(NotImplementedError, match="Task 4.3"):
        F.max_pool2d(make(np.zeros((1, 1, 4, 4)), backend=FastBackend), 2)
    assert _pool_fast.PATH.signatures == 0


@task4_4
def test_the_check_leaves_the_seeded_random_stream_alone(monkeypatch):
    _pool_fast.PATH.reset()
    manual_seed(11)
    expected = rand(5).to_numpy()
    manual_seed(11)
    F.max_pool2d(make(np.ones((1, 1, 4, 4)), backend=FastBackend), 2)  # a check
    assert _pool_fast.PATH.signatures == 1
    np.testing.assert_array_equal(rand(5).to_numpy(), expected)


@task4_4
def test_a_first_call_inside_no_grad_is_checked_and_records_nothing(monkeypatch):
    _pool_fast.PATH.reset()
    x = np.random.default_rng(4).normal(size=(1, 2, 4, 4))
    t = make(x, requires_grad=True, backend=FastBackend)
    with no_grad():
        out = F.max_pool2d(t, 2)
    want, _ = _numpy_max_pool(x, 2, None, 0, False, None)
    np.testing.assert_array_equal(out.to_numpy(), want)
    assert not out.requires_grad
    assert t.grad is None  # the check ran on a detached copy
    assert list(_pool_fast.PATH.outcomes) == [want.shape]
