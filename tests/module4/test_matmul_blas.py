"""Tasks 4.6 and 4.8: Module 4's matrix products in NumPy's BLAS
(``module4_networks/_matmul_blas.py``, issue 29), used by ``F.linear`` and
``MultiheadAttention``.

The fast path must give the value and both gradients of ``a @ b`` (the students'
``MatMul`` and kernel, run alone as the reference) and of an independent NumPy
oracle (``einsum``), for batched, broadcast and non-contiguous operands. It must
be taken only where it agreed with the students' code, so a wrong kernel or
backward still shows, a stub still raises, and a stubbed backward leaves the
forward working.
"""

from __future__ import annotations

import numpy as np
import pytest

from module2_tensors import manual_seed, no_grad, rand
from module2_tensors import tensor_functions as tf
from module3_fast_ops import FastBackend
from module4_networks import _matmul_blas
from module4_networks import functional as F
from module4_networks.attention import MultiheadAttention
from tests.module4.helpers import BACKEND, make

task4_6 = pytest.mark.task4_6
task4_8 = pytest.mark.task4_8

CASES = [
    # (a shape, a order, b shape, b order)
    ((4, 3), None, (3, 5), None),
    ((2, 4, 3), None, (3, 5), (1, 0)),  # x @ W.T: a transposed weight
    ((2, 4, 3), (0, 2, 1), (2, 3, 5), None),  # a batch of transposed matrices
    ((1, 4, 3), None, (3, 3, 5), None),  # a broadcast batch dimension
    ((2, 3, 4, 3), (0, 2, 1, 3), (2, 1, 3, 4), (3, 1, 0, 2)),
    ((4, 3), None, (2, 3, 5), None),  # a matrix times a batch
    # a permuted batch times a matrix (one gemm of its rows, copied), one column
    ((2, 3, 4, 3), (0, 2, 1, 3), (3, 1), None),
    ((2, 4, 1), None, (1, 5), (1, 0)),  # an outer product per row
]


def _oracle(a, b, g):
    """``a @ b`` and its gradients for the weights ``g``, by ``einsum`` over the
    broadcast batch, summed back to each operand's shape."""
    out = np.matmul(a, b)
    batch = out.shape[:-2]
    ab = np.broadcast_to(a, batch + a.shape[-2:])
    bb = np.broadcast_to(b, batch + b.shape[-2:])
    da = np.einsum("...ij,...kj->...ik", g, bb)
    db = np.einsum("...ki,...kj->...ij", ab, g)

    def fold(d, shape):
        d = d.sum(axis=tuple(range(d.ndim - len(shape))))
        ones = tuple(k for k, n in enumerate(shape) if n == 1)
        return d.sum(axis=ones, keepdims=True) if ones else d

    return out, fold(da, a.shape), fold(db, b.shape)


def _values_and_grads(product, a, a_order, b, b_order, g, backend):
    ta = make(a, True, a_order, backend=backend)
    tb = make(b, True, b_order, backend=backend)
    out = product(ta, tb)
    out.backward(out.new_tensor(g))
    return out.to_numpy(), ta.grad.to_numpy(), tb.grad.to_numpy()


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize(
    "backend",
    [
        pytest.param(None, marks=task4_6, id="simple"),
        # FastOps multiplies with the students' Task 3.2 kernel: a task that
        # depends on 3.2 owns this variant (kindling marks).
        pytest.param(FastBackend, marks=pytest.mark.task4_5, id="fast"),
    ],
)
def test_fast_matmul_equals_numpy_and_the_students_product(case, backend, mp):
    backend = backend or BACKEND
    _matmul_blas.PATH.reset()
    a_shape, a_order, b_shape, b_order = case
    rng = np.random.default_rng(len(a_shape) + a_shape[-1])
    a, b = rng.normal(size=a_shape), rng.normal(size=b_shape)
    g = rng.normal(size=np.matmul(a, b).shape)
    want = _oracle(a, b, g)
    ref = _values_and_grads(lambda x, y: x @ y, a, a_order, b, b_order, g, backend)
    for _ in range(2):  # first call: checked, then fast; second: fast directly
        got = _values_and_grads(_matmul_blas.matmul, a, a_order, b, b_order, g, backend)
        for name, x, y, z in zip(["value", "a.grad", "b.grad"], got, want, ref):
            np.testing.assert_allclose(x, y, rtol=1e-10, atol=1e-12, err_msg=name)
            np.testing.assert_allclose(x, z, rtol=1e-10, atol=1e-12, err_msg=name)
    assert list(_matmul_blas.PATH.outcomes) == [True]


@pytest.fixture
def mp(monkeypatch):
    """``monkeypatch``, shorter."""
    return monkeypatch


@task4_6
def test_a_wrong_kernel_is_kept(mp):
    """A students' product that disagrees keeps running (its bug shows)."""
    _matmul_blas.PATH.reset()
    right = tf.MatMul.forward

    def wrong(ctx, a, b):
        return right(ctx, a, b) + 1.0

    mp.setattr(tf.MatMul, "forward", staticmethod(wrong))
    rng = np.random.default_rng(1)
    x, w = rng.normal(size=(2, 4, 3)), rng.normal(size=(5, 3))
    for _ in range(2):
        out = F.linear(make(x), make(w))
        np.testing.assert_allclose(out.to_numpy(), x @ w.T + 1.0, rtol=1e-12)
    assert list(_matmul_blas.PATH.outcomes) == [False]


@task4_6
def test_a_wrong_backward_is_kept(mp):
    _matmul_blas.PATH.reset()
    right = tf.MatMul.backward

    def wrong(ctx, grad):  # the gradient of b forgotten
        return right(ctx, grad)[0], None

    mp.setattr(tf.MatMul, "backward", staticmethod(wrong))
    rng = np.random.default_rng(2)
    x, w = make(rng.normal(size=(4, 3))), make(rng.normal(size=(5, 3)), True)
    for _ in range(2):
        F.linear(x, w).sum().backward()
        assert w.grad is None
    assert list(_matmul_blas.PATH.outcomes) == [False]


@task4_6
def test_a_stub_still_raises(mp):
    _matmul_blas.PATH.reset()

    def stub(ctx, a, b):
        raise NotImplementedError("Task 2.3: MatMul.forward")

    mp.setattr(tf.MatMul, "forward", staticmethod(stub))
    with pytest.raises(NotImplementedError, match="Task 2.3"):
        F.linear(make(np.ones((2, 3))), make(np.ones((4, 3))))
    assert _matmul_blas.PATH.signatures == 0


@task4_6
def test_a_stubbed_backward_leaves_the_forward_working(mp):
    _matmul_blas.PATH.reset()

    def stub(ctx, grad):
        raise NotImplementedError("Task 2.4: MatMul.backward")

    mp.setattr(tf.MatMul, "backward", staticmethod(stub))
    x, w = np.ones((2, 3)), np.arange(12.0).reshape(4, 3)
    out = F.linear(make(x), make(w, True))
    np.testing.assert_array_equal(out.to_numpy(), x @ w.T)
    assert list(_matmul_blas.PATH.outcomes) == [False]
    with pytest.raises(NotImplementedError, match="Task 2.4"):
        out.sum().backward()


@task4_6
def test_the_check_leaves_the_seeded_random_stream_alone(mp):
    _matmul_blas.PATH.reset()
    manual_seed(11)
    expected = rand(5).to_numpy()
    manual_seed(11)
    F.linear(make(np.ones((2, 3))), make(np.ones((4, 3))))  # a check
    assert _matmul_blas.PATH.signatures == 1
    np.testing.assert_array_equal(rand(5).to_numpy(), expected)


@task4_6
def test_a_first_call_inside_no_grad_is_checked_and_records_nothing(mp):
    _matmul_blas.PATH.reset()
    w = make(np.ones((4, 3)), True)
    with no_grad():
        out = F.linear(make(np.ones((2, 3))), w)
    assert not out.requires_grad and w.grad is None
    assert list(_matmul_blas.PATH.outcomes) == [True]


@task4_6
def test_vectors_and_shape_errors_are_the_students_products(mp):
    """A 1-D input is left to ``@`` (it handles the vector); a shape mismatch
    reports ``@``'s error."""
    _matmul_blas.PATH.reset()
    w = np.arange(12.0).reshape(4, 3)
    out = F.linear(make(np.ones(3)), make(w))
    np.testing.assert_array_equal(out.to_numpy(), w.sum(axis=1))
    with pytest.raises(ValueError, match="cannot multiply"):
        _matmul_blas.matmul(make(np.ones((2, 3))), make(np.ones((4, 3))))
    assert _matmul_blas.PATH.signatures == 0


@task4_8
@pytest.mark.parametrize("batch_first", [False, True])
def test_multihead_attention_equals_the_students_products(batch_first, mp):
    """The whole layer, with a key-padding mask: outputs, weights and every
    gradient as with ``@`` everywhere."""

    def run():
        manual_seed(3)
        mha = MultiheadAttention(8, 2, batch_first=batch_first, backend=BACKEND)
        rng = np.random.default_rng(3)
        shape = (2, 5, 8) if batch_first else (5, 2, 8)
        q, kv = make(rng.normal(size=shape), True), make(rng.normal(size=shape), True)
        pad = np.zeros((2, 5))
        pad[1, 3:] = 1
        out, weights = mha(q, kv, kv, key_padding_mask=pad)
        (out * out.new_tensor(rng.normal(size=out.shape))).sum().backward()
        grads = [q.grad.to_numpy(), kv.grad.to_numpy()]
        grads += [p.grad.to_numpy() for p in mha.parameters()]
        return [out.to_numpy(), weights.to_numpy()] + grads

    mp.setattr(_matmul_blas, "matmul", lambda a, b: a @ b)
    want = run()
    mp.undo()
    _matmul_blas.PATH.reset()
    for _ in range(2):
        got = run()
        for x, y in zip(got, want):
            np.testing.assert_allclose(x, y, rtol=1e-10, atol=1e-12)
    assert (
        _matmul_blas.PATH.agreed and not _matmul_blas.PATH.differed
    ), _matmul_blas.PATH


@task4_6
def test_a_backward_wrong_only_for_a_frozen_weight_is_kept(mp):
    """Which operands need a gradient is part of the signature, and the check
    asks for the same ones: a backward that goes wrong only when the weight is
    frozen (``needs_input_grad`` ``(True, False)``) is caught there."""
    _matmul_blas.PATH.reset()
    right = tf.MatMul.backward

    def wrong(ctx, grad):
        grad_a, grad_b = right(ctx, grad)
        if not (ctx.needs_input_grad or (True, True))[1]:
            grad_a = grad_a * 2.0
        return grad_a, grad_b

    mp.setattr(tf.MatMul, "backward", staticmethod(wrong))
    rng = np.random.default_rng(8)
    x, w = rng.normal(size=(4, 3)), rng.normal(size=(5, 3))
    for frozen in (False, True, True):
        tx, tw = make(x, True), make(w, not frozen)
        F.linear(tx, tw).sum().backward()
        want = np.ones((4, 5)) @ w * (2.0 if frozen else 1.0)
        np.testing.assert_allclose(tx.grad.to_numpy(), want, rtol=1e-12)
    assert list(_matmul_blas.PATH.outcomes) == [True, False]
