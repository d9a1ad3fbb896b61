"""The CUDA convolution (given code, ``module4_networks/cuda_conv.py``): ``F.conv1d``
and ``F.conv2d`` on ``CudaBackend`` tensors, under Numba's CUDA simulator when there
is no GPU (tiny shapes).

Forward values against the NumPy references, gradients of input, weight and bias
against central differences; the kernels' fit on real GPUs by ``kindling kernels``.
The code is given; each test carries the marker of the task whose code it runs
(tensors: Module 2; the gradients' reductions on the GPU: Task 3.3).
"""

from __future__ import annotations

import numpy as np
import pytest

# Tests marked task4_7 run the nn library (Task 4.6) on the CUDA kernels (Tasks 3.3,
# 3.4): Task 4.7 is a task whose dependencies hold both.

from kindling import kernels
from module3_fast_ops import CudaBackend
from module4_networks import cuda_conv
from module4_networks import functional as F
from tests.module3.kernels import measured_resources
from tests.module4.helpers import check_grad, make
from tests.module4.reference import conv1d_ref, conv2d_ref, numeric_grad


def cuda(a, requires_grad=False, order=None):
    return make(a, requires_grad, order, backend=CudaBackend)


@pytest.mark.task2_3
def test_conv1d_forward_with_bias_stride_padding_and_a_permuted_input():
    rng = np.random.default_rng(0)
    x, w, b = rng.normal(size=(2, 3, 7)), rng.normal(size=(4, 3, 3)), rng.normal(size=4)
    out = F.conv1d(cuda(x, order=(2, 0, 1)), cuda(w), cuda(b), stride=2, padding=1)
    assert out.backend is CudaBackend
    expected = conv1d_ref(x, w, 2, 1) + b[:, None]
    np.testing.assert_allclose(out.to_numpy(), expected, atol=1e-12)


@pytest.mark.task3_3  # (the permuted weight is copied by Task 3.3's CUDA map)
def test_conv2d_forward_with_bias_stride_and_padding():
    rng = np.random.default_rng(1)
    x, w = rng.normal(size=(2, 2, 5, 6)), rng.normal(size=(3, 2, 3, 2))
    b = rng.normal(size=3)
    out = F.conv2d(cuda(x), cuda(w, order=(3, 2, 1, 0)), cuda(b), (2, 1), (1, 0))
    expected = conv2d_ref(x, w, (2, 1), (1, 0)) + b[:, None, None]
    np.testing.assert_allclose(out.to_numpy(), expected, atol=1e-12)


@pytest.mark.task2_1
def test_conv_on_cuda_runs_the_cuda_kernels(monkeypatch):
    calls = []
    original = cuda_conv.launch

    def spy(kernel, grid, block, out, x, w, layout, *args):
        calls.append((kernel.__name__, layout[8:12].tolist()))  # x's shape
        original(kernel, grid, block, out, x, w, layout, *args)

    monkeypatch.setattr(cuda_conv, "launch", spy)
    F.conv1d(cuda(np.ones((1, 1, 4))), cuda(np.ones((1, 1, 2))))
    # conv1d runs as conv2d with a height of 1
    assert calls == [("_forward", [1, 1, 1, 4])]


@pytest.mark.task3_3
def test_conv1d_gradients_match_central_differences():
    rng = np.random.default_rng(2)
    arrays = [
        rng.normal(size=(2, 2, 5)),
        rng.normal(size=(2, 2, 3)),
        rng.normal(size=2),
    ]
    check_grad(
        lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1),
        arrays,
        backend=CudaBackend,
    )


@pytest.mark.task3_3
def test_conv2d_gradients_match_central_differences():
    rng = np.random.default_rng(3)
    arrays = [
        rng.normal(size=(1, 2, 4, 3)),
        rng.normal(size=(2, 2, 2, 2)),
        rng.normal(size=2),
    ]
    check_grad(
        lambda x, w, b: F.conv2d(x, w, b, stride=(1, 2), padding=(1, 1)),
        arrays,
        backend=CudaBackend,
    )


@pytest.mark.task3_3
def test_weight_and_bias_gradients_sum_more_positions_than_a_block_has_threads():
    """A block per weight entry: each thread folds several (b, u, v) before the tree."""
    rng = np.random.default_rng(4)
    x, w, b = rng.normal(size=(3, 1, 6, 7)), rng.normal(size=(2, 1, 2, 2)), np.zeros(2)
    g = rng.normal(size=(3, 2, 5, 6))  # 90 positions per entry > 32 or 256 threads
    xt, wt, bt = cuda(x, True), cuda(w, True), cuda(b, True)
    (F.conv2d(xt, wt, bt) * cuda(g)).sum().backward()

    def f(x_, w_):
        return conv2d_ref(x_, w_)

    np.testing.assert_allclose(
        wt.grad.to_numpy(), numeric_grad(f, [x, w], g, 1), atol=1e-6
    )
    np.testing.assert_allclose(bt.grad.to_numpy(), g.sum(axis=(0, 2, 3)), atol=1e-12)
    np.testing.assert_allclose(
        xt.grad.to_numpy(), numeric_grad(f, [x, w], g, 0), atol=1e-6
    )


SMS = {"sm_75": (7, 5), "sm_80": (8, 0), "sm_90": (9, 0)}


@pytest.mark.parametrize("sm", SMS)
def test_cuda_conv_kernels_fit_resources(sm):
    rows = [row for row in measured_resources("conv") if tuple(row["cc"]) == SMS[sm]]
    assert sorted(row["name"] for row in rows) == sorted(
        ["conv_forward", "conv_back_input", "conv_back_weight"]
    )
    for row in rows:
        assert kernels.problems(row) == [], row["name"]
        assert row["spill_stores"] == row["spill_loads"] == 0, row["name"]


@pytest.mark.task4_7
def test_a_conv_network_takes_the_same_step_on_cuda_and_fast():
    """Conv, pooling, linear, cross-entropy and an SGD step on CudaBackend, with every
    parameter in GPU memory, give FastBackend's loss and updated parameters. (One
    step: each takes seconds in the simulator.)"""
    from module3_fast_ops import FastBackend, no_grad, tensor
    from module3_fast_ops._cuda_runtime import on_device
    from module4_networks import losses, nn, optim

    def step(backend):
        rng = np.random.default_rng(0)
        conv = nn.Conv2d(1, 2, 3, padding=1, backend=backend)
        fc = nn.Linear(8, 3, backend=backend)
        params = [p.value for p in list(conv.parameters()) + list(fc.parameters())]
        with no_grad():
            for p in params:
                p.copy_(tensor(rng.normal(size=p.shape), backend=backend))
        sgd = optim.SGD(list(conv.parameters()) + list(fc.parameters()), lr=0.1)
        x = tensor(rng.normal(size=(2, 1, 4, 4)), backend=backend)
        y = tensor([0, 2], backend=backend)
        h = F.max_pool2d(conv(x).relu(), 2)
        loss = losses.cross_entropy(fc(h.view(2, 8)), y)
        loss.backward()
        sgd.step()
        return loss.item(), params

    loss, params = step(CudaBackend)
    expected_loss, expected = step(FastBackend)
    assert loss == pytest.approx(expected_loss, rel=1e-12)
    for p, q in zip(params, expected):
        assert on_device(p._tensor._storage)
        np.testing.assert_allclose(p.to_numpy(), q.to_numpy(), rtol=1e-12)


@pytest.mark.task3_4
def test_each_conv_kernel_gets_its_shapes_and_strides_in_one_array(monkeypatch):
    """Issue 40: an array argument is 7 kernel parameters and Python work per
    launch on a GPU; the conv kernels took two (shape, strides) per tensor, up to
    six. Now at most one integer array per launch."""
    from module3_fast_ops._cuda_runtime import on_device

    seen = []
    launch = cuda_conv.launch

    def spy(kernel, grid, block, out, *args):
        seen.append((kernel.__name__, (out, *args)))
        launch(kernel, grid, block, out, *args)

    monkeypatch.setattr(cuda_conv, "launch", spy)
    rng = np.random.default_rng(5)
    x, w, b = (
        cuda(rng.normal(size=(2, 2, 4, 4)), True),
        cuda(rng.normal(size=(3, 2, 2, 2)), True),
        cuda(np.zeros(3), True),
    )
    F.conv2d(x, w, b, padding=1).sum().backward()
    # forward and two backward kernels (the bias gradient's reduce launches in
    # cuda_ops)
    assert len(seen) >= 3
    for name, arguments in seen:
        integer = [
            v
            for v in arguments
            if (isinstance(v, np.ndarray) or on_device(v))
            and np.dtype(v.dtype).kind in "iu"
        ]
        assert len(integer) <= 1, name
