"""Tasks 4.1 and 4.2: the im2col + matmul fast path of the convolution Functions
(``module4_networks/_conv_gemm.py``, issue 29).

The fast path must give the values and gradients of the reference path (the
students' kernels), on strided inputs, with strides and padding; it must be taken
only where it agreed with the student's kernel, so a wrong kernel still shows and
a stub still raises.
"""

from __future__ import annotations

import numpy as np
import pytest

from module3_fast_ops import FastBackend
from module4_networks import _conv_gemm, fast_conv
from module4_networks._conv_checks import pair_2d
from module4_networks import functional as F
from tests.module4.helpers import assert_entries, make
from tests.module4.reference import (
    conv1d_ref,
    conv2d_grads_ref,
    conv2d_ref,
    empty_strided,
    strided,
)

task4_1 = pytest.mark.task4_1
task4_2 = pytest.mark.task4_2

CASES_2D = [
    # (batch, in, out, height, width, kernel, stride, padding)
    (2, 1, 3, 6, 5, (3, 3), (1, 1), (1, 1)),
    (3, 2, 4, 7, 6, (3, 2), (2, 1), (0, 1)),
    (1, 3, 2, 5, 8, (2, 3), (1, 3), (2, 0)),
]


def _arrays(case, seed=0):
    batch, c_in, c_out, h, w, k, s, p = case
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(batch, c_in, h, w))
    weight = rng.normal(size=(c_out, c_in, *k))
    out = conv2d_ref(x, weight, s, p)
    g = rng.normal(size=out.shape)
    return x, weight, g, s, p


def _fast_result(name, spatial, result_shape, first, second, s, p, order=None):
    result, read = empty_strided(result_shape, order)
    s, p = (s, p) if spatial == 2 else ((s,), (p,))
    # The forward convolution's input, weight and output, as fast_conv names them.
    roles = {
        "forward": (first, second, result),
        "backward_input": (result, second, first),
        "backward_weight": (first, result, second),
    }[name]
    value = _conv_gemm._fast(
        name,
        spatial,
        roles,
        pair_2d(s, 1),
        pair_2d(p, 0),
    )
    return np.asarray(value).reshape(result_shape)


@task4_2
@pytest.mark.parametrize("case", CASES_2D)
def test_gemm_conv2d_matches_the_numpy_reference_and_the_kernels(case):
    x, w, g, s, p = _arrays(case)
    xs, ws, gs = strided(x, (0, 2, 3, 1)), strided(w, (3, 1, 0, 2)), strided(g)
    out = _fast_result("forward", 2, g.shape, xs, ws, s, p)
    assert_entries(out, conv2d_ref(x, w, s, p), "the im2col forward (course code)")
    dx, dw = conv2d_grads_ref(x, w, g, s, p)
    for name, shape, first, second, launch, want in (
        ("backward_input", x.shape, gs, ws, fast_conv.conv2d_backward_input, dx),
        ("backward_weight", w.shape, xs, gs, fast_conv.conv2d_backward_weight, dw),
    ):
        result, read = empty_strided(shape)
        launch(result, first, second, s, p)
        assert_entries(read(), want, f"your conv2d_{name} kernel, against NumPy")
        fast = _fast_result(name, 2, shape, first, second, s, p)
        assert_entries(fast, want, f"the im2col {name} (course code)")


@task4_2
@pytest.mark.parametrize("images_per_block", [1, 2, 5])
def test_blocks_of_images_give_the_values_of_the_whole_batch(
    monkeypatch, images_per_block
):
    """``cols`` is built one block of images at a time, reused from block to
    block (its zero entries, the padding, are never written), and the weight
    gradient summed over the blocks: with 1 or 2 images a block out of 5 (a last
    block shorter than the others) the three results are the NumPy reference's."""
    case = (5, 2, 3, 6, 5, (3, 2), (2, 1), (1, 1))
    x, w, g, s, p = _arrays(case)
    monkeypatch.setattr(_conv_gemm, "BLOCK", 2 * 3 * 2 * 3 * 6 * images_per_block)
    dx, dw = conv2d_grads_ref(x, w, g, s, p)
    xs, ws, gs = strided(x, (0, 2, 3, 1)), strided(w), strided(g, (1, 0, 2, 3))
    for name, shape, first, second, want in (
        ("forward", g.shape, xs, ws, conv2d_ref(x, w, s, p)),
        ("backward_input", x.shape, gs, ws, dx),
        ("backward_weight", w.shape, xs, gs, dw),
    ):
        fast = _fast_result(name, 2, shape, first, second, s, p)
        assert_entries(fast, want, f"the im2col {name} in blocks (course code)")


@task4_1
@pytest.mark.parametrize("stride,padding", [(1, 0), (2, 1), (3, 2)])
def test_gemm_conv1d_matches_the_numpy_reference_and_the_kernels(stride, padding):
    rng = np.random.default_rng(stride)
    x, w = rng.normal(size=(2, 3, 9)), rng.normal(size=(4, 3, 3))
    expected = conv1d_ref(x, w, stride, padding)
    g = rng.normal(size=expected.shape)
    xs, ws, gs = strided(x, (2, 0, 1)), strided(w), strided(g, (1, 0, 2))
    out = _fast_result("forward", 1, expected.shape, xs, ws, stride, padding)
    assert_entries(out, expected, "the im2col forward (course code)")
    dx, dw = (
        a[:, :, 0]
        for a in conv2d_grads_ref(
            x[:, :, None], w[:, :, None], g[:, :, None], (1, stride), (0, padding)
        )
    )
    for name, shape, first, second, launch, want in (
        ("backward_input", x.shape, gs, ws, fast_conv.conv1d_backward_input, dx),
        ("backward_weight", w.shape, xs, gs, fast_conv.conv1d_backward_weight, dw),
    ):
        result, read = empty_strided(shape)
        launch(result, first, second, stride, padding)
        assert_entries(read(), want, f"your conv1d_{name} kernel, against NumPy")
        fast = _fast_result(name, 1, shape, first, second, stride, padding)
        assert_entries(fast, want, f"the im2col {name} (course code)")


def _conv2d_values_and_grads(x, w, b, s, p):
    xt = make(x, requires_grad=True, backend=FastBackend)
    wt = make(w, requires_grad=True, backend=FastBackend)
    bt = make(b, requires_grad=True, backend=FastBackend)
    out = F.conv2d(xt, wt, bt, stride=s, padding=p)
    (out * out).sum().backward()
    return [t.to_numpy() for t in (out, xt.grad, wt.grad, bt.grad)]


def _assert_function_results(op, results, x, w, b, s, p):
    """The output and gradients of ``sum(F.conv(x, w, b) ** 2)`` that the
    student's kernels gave (``results``) against NumPy, each named by the kernel
    that computed it."""
    if op == "conv1d":
        x2, w2 = x[:, :, None], w[:, :, None]
        s2, p2 = (1, s), (0, p)
    else:
        x2, w2, s2, p2 = x, w, s, p
    out = conv2d_ref(x2, w2, s2, p2) + b.reshape(1, -1, *([1] * (x2.ndim - 2)))
    dx, dw = conv2d_grads_ref(x2, w2, 2.0 * out, s2, p2)
    db = (2.0 * out).sum(axis=tuple(i for i in range(out.ndim) if i != 1))
    if op == "conv1d":
        out, dx, dw = out[:, :, 0], dx[:, :, 0], dw[:, :, 0]
    names = (
        f"F.{op} (your {op}_forward kernel)",
        f"x.grad (your {op}_backward_input kernel)",
        f"weight.grad (your {op}_backward_weight kernel)",
        "bias.grad",
    )
    for got, want, name in zip(results, (out, dx, dw, db), names):
        assert_entries(got, want, name, rtol=1e-10, atol=1e-10)


@task4_2
@pytest.mark.parametrize("case", CASES_2D)
def test_conv2d_function_fast_path_gives_the_reference_values_and_gradients(
    case, monkeypatch
):
    _conv_gemm.PATH.reset()
    x, w, _, s, p = _arrays(case, seed=3)
    b = np.random.default_rng(4).normal(size=w.shape[0])
    # First call: the students' kernels fill the results (and are compared).
    reference = _conv2d_values_and_grads(x, w, b, s, p)
    _assert_function_results("conv2d", reference, x, w, b, s, p)
    # Three signatures (forward, both gradients), each agreed.
    assert (_conv_gemm.PATH.agreed, _conv_gemm.PATH.differed) == (3, 0), (
        "your kernels agree with NumPy, but the im2col path was not checked "
        f"against all three, or did not agree (course code): {_conv_gemm.PATH}"
    )
    # Second call, same signatures: im2col + matmul.
    fast = _conv2d_values_and_grads(x, w, b, s, p)
    for got, want in zip(fast, reference):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@task4_2
def test_a_wrong_kernel_is_not_replaced_by_the_fast_path(monkeypatch):
    """A student's kernel that disagrees keeps running (its bug shows in training)."""
    _conv_gemm.PATH.reset()
    right = fast_conv.kernel("conv2d_forward")

    def wrong(out, *rest):
        right(out, *rest)
        out[0] += 1.0  # one wrong output

    real_kernel = fast_conv.kernel
    monkeypatch.setattr(
        fast_conv,
        "kernel",
        lambda name: wrong if name == "conv2d_forward" else real_kernel(name),
    )
    x, w, _, s, p = _arrays(CASES_2D[0], seed=5)
    expected = conv2d_ref(x, w, s, p)
    expected.reshape(-1)[0] += 1.0
    for _ in range(2):
        out = F.conv2d(
            make(x, backend=FastBackend),
            make(w, backend=FastBackend),
            stride=s,
            padding=p,
        )
        np.testing.assert_allclose(out.to_numpy(), expected, rtol=1e-12, atol=1e-12)
    assert list(_conv_gemm.PATH.outcomes) == [False]


@task4_2
def test_a_stub_kernel_still_raises_through_the_function(monkeypatch):
    _conv_gemm.PATH.reset()

    def stub(*args):
        raise NotImplementedError("Task 4.2: the conv2d forward kernel")

    monkeypatch.setattr(fast_conv, "kernel", lambda name: stub)
    x, w, _, s, p = _arrays(CASES_2D[0])
    with pytest.raises(NotImplementedError, match="Task 4.2"):
        F.conv2d(make(x, backend=FastBackend), make(w, backend=FastBackend))


@task4_2
def test_a_kernel_wrong_only_on_strided_inputs_is_still_caught(monkeypatch):
    """The check is per memory layout: agreeing on a contiguous input does not let
    the fast path stand in for the kernel on a transposed one."""
    _conv_gemm.PATH.reset()
    right = fast_conv.kernel("conv2d_forward")

    def contiguous_only(out, out_shape, out_strides, x, x_shape, x_strides, *rest):
        right(out, out_shape, out_strides, x, x_shape, x_strides, *rest)
        if x_strides[-1] != 1:
            out[0] += 1.0  # what reading the storage in the wrong order gives

    real_kernel = fast_conv.kernel
    monkeypatch.setattr(
        fast_conv,
        "kernel",
        lambda name: contiguous_only if name == "conv2d_forward" else real_kernel(name),
    )
    x, w, _, s, p = _arrays(CASES_2D[0], seed=6)
    expected = conv2d_ref(x, w, s, p)
    wt = make(w, backend=FastBackend)
    for order in (None, None, (0, 1, 3, 2), (0, 1, 3, 2)):
        out = F.conv2d(
            make(x, order=order, backend=FastBackend), wt, stride=s, padding=p
        )
        want = expected.copy()
        if order is not None:
            want.reshape(-1)[0] += 1.0
        np.testing.assert_allclose(out.to_numpy(), want, rtol=1e-12, atol=1e-12)
    assert (_conv_gemm.PATH.agreed, _conv_gemm.PATH.differed) == (1, 1), _conv_gemm.PATH


@task4_1
@pytest.mark.parametrize("stride,padding", [(1, 1), (2, 0)])
def test_conv1d_function_fast_path_gives_the_reference_values_and_gradients(
    stride, padding, monkeypatch
):
    _conv_gemm.PATH.reset()
    rng = np.random.default_rng(7)
    x, w, b = (
        rng.normal(size=(3, 2, 11)),
        rng.normal(size=(5, 2, 3)),
        rng.normal(size=5),
    )

    def values_and_grads():
        xt, wt, bt = (
            make(a, requires_grad=True, backend=FastBackend) for a in (x, w, b)
        )
        out = F.conv1d(xt, wt, bt, stride=stride, padding=padding)
        (out * out).sum().backward()
        return [t.to_numpy() for t in (out, xt.grad, wt.grad, bt.grad)]

    reference = values_and_grads()  # the students' kernels, compared
    _assert_function_results("conv1d", reference, x, w, b, stride, padding)
    assert (_conv_gemm.PATH.agreed, _conv_gemm.PATH.differed) == (3, 0), (
        "your kernels agree with NumPy, but the im2col path was not checked "
        f"against all three, or did not agree (course code): {_conv_gemm.PATH}"
    )
    fast = values_and_grads()  # im2col + matmul
    np.testing.assert_allclose(
        fast[0], conv1d_ref(x, w, stride, padding) + b[:, None], rtol=1e-12
    )
    for got, want in zip(fast, reference):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
