"""A Linear's bias and its activation fused on the GPU (``_bias_activation``): the
two kernels against NumPy (values) and central differences (gradients, which are
new code), ``nn.Sequential`` on ``CudaBackend`` against the unfused layers with
two launches fewer per Linear-activation pair and training batch, a student's
different activation still running, and the kernels' fit on real GPUs."""

from __future__ import annotations

import math

import numpy as np
import pytest

# Tests marked task4_7 run the nn library (Task 4.6) on the CUDA kernels (Tasks 3.3,
# 3.4): Task 4.7 is a task whose dependencies hold both.

from kindling import kernels
from module2_tensors import no_grad
from module3_fast_ops import FastBackend, _cuda_runtime
from module3_fast_ops._cuda_runtime import cuda
from module3_fast_ops.cuda_ops import CudaBackend
from module4_networks import _bias_activation as ba
from module4_networks.nn import functional as F
from module4_networks import _activation_layers, nn
from tests.module3.kernels import measured_resources
from tests.module4.helpers import make

# No task marker on the kernel tests: they call given kernels and no student code.
# The Sequential tests run Task 4.6's Linear and Task 3.4's matmul on the GPU,
# which no one task joins before 4.7: listed in tests/kindling/
# unmarked_task_tests.txt, as the fused optimizer's.

launches = _cuda_runtime.launches
ERF = np.vectorize(math.erf)

ACTIVATIONS = {
    0: lambda z: np.maximum(z, 0.0),
    1: np.tanh,
    2: lambda z: 1.0 / (1.0 + np.exp(-z)),
    3: lambda z: 0.5 * z * (1.0 + ERF(z / math.sqrt(2.0))),
}


def _forward(pre, bias, bias_step, kind):
    out = np.full(pre.size, np.nan)
    features = pre.shape[-1]
    threads = ba.THREADS
    grid = (pre.size + threads - 1) // threads
    args = (np.ascontiguousarray(pre).ravel(), bias, bias_step, features, pre.size)
    _cuda_runtime.launch(ba._forward, grid, threads, out, *args, kind)
    return out.reshape(pre.shape)


def _backward(pre, bias, g, kind):
    """(d_pre, d_bias); ``g`` given transposed (read through its strides)."""
    rows, features = pre.shape
    d_pre, d_bias = np.full(pre.size, np.nan), np.full(features, np.nan)
    gt = np.ascontiguousarray(g.T)  # storage of g's transpose: strides (1, rows)
    d_pre_dev, d_bias_dev = cuda.to_device(d_pre), cuda.to_device(d_bias)
    args = (pre.ravel(), bias, 1, gt.ravel(), 1, rows, rows, features, kind)
    _cuda_runtime.launch(
        ba._backward, features, ba.THREADS, d_pre_dev, d_bias_dev, *args
    )
    return d_pre_dev.copy_to_host().reshape(pre.shape), d_bias_dev.copy_to_host()


@pytest.mark.parametrize("kind", sorted(ACTIVATIONS))
def test_the_forward_kernel_adds_a_strided_bias_and_activates(kind):
    rng = np.random.default_rng(kind)
    pre = rng.normal(size=(5, 3)) * 2
    spread = rng.normal(size=6)  # the bias is every second entry
    got = _forward(pre, spread, 2, kind)
    np.testing.assert_allclose(got, ACTIVATIONS[kind](pre + spread[::2]), rtol=1e-13)


@pytest.mark.parametrize("kind", sorted(ACTIVATIONS))
def test_the_backward_kernel_matches_central_differences(kind):
    """$L = \\sum g \\odot f(p + b)$: its gradients in ``p`` and ``b`` by central
    differences of the forward kernel, against the backward kernel (more rows
    than a block's threads, so threads stride and the tree adds)."""
    rng = np.random.default_rng(10 + kind)
    rows, features = 2 * ba.THREADS + 3, 2
    pre = rng.normal(size=(rows, features)) + 0.05  # away from ReLU's kink at 0
    pre[np.abs(pre) < 1e-3] = 0.5
    bias = rng.normal(size=features) * 0.1
    g = rng.normal(size=(rows, features))
    d_pre, d_bias = _backward(pre, bias, g, kind)

    def loss(p, b):
        return float((g * _forward(p, b, 1, kind)).sum())

    h = 1e-6
    for r, o in [(0, 0), (rows - 1, 1), (ba.THREADS, 0)]:
        step = np.zeros_like(pre)
        step[r, o] = h
        numeric = (loss(pre + step, bias) - loss(pre - step, bias)) / (2 * h)
        assert d_pre[r, o] == pytest.approx(numeric, rel=1e-6, abs=1e-8)
    for o in range(features):
        step = np.zeros(features)
        step[o] = h
        numeric = (loss(pre, bias + step) - loss(pre, bias - step)) / (2 * h)
        assert d_bias[o] == pytest.approx(numeric, rel=1e-6, abs=1e-7)
    np.testing.assert_allclose(d_bias, d_pre.sum(axis=0), rtol=1e-12)


def _model(activation, seed=3):
    rng = np.random.default_rng(seed)
    model = nn.Sequential(nn.Linear(5, 8), activation, nn.Linear(8, 3))
    with no_grad():
        for p in model.parameters():
            p.copy_(make(rng.normal(size=p.shape) * 0.5, backend=FastBackend))
    x = make(rng.normal(size=(2, 3, 5)), backend=FastBackend)
    return model, x


def _batch(model, x, backend):
    """Forward, loss, backward on ``backend``: (output, gradients, launches)."""
    model.to(backend)
    x = x.detach().to(backend).requires_grad_(True)
    for p in model.parameters():
        p.grad = None
    with launches.counting() as seen:
        out = model(x)
        (out * out).sum().backward()
    grads = [x.grad.to_numpy()] + [p.grad.to_numpy() for p in model.parameters()]
    return out.to_numpy(), grads, sum(seen.values())


@pytest.mark.parametrize(
    "activation", [nn.ReLU(), nn.Tanh(), nn.Sigmoid(), nn.GELU()], ids=repr
)
@pytest.mark.task4_7
def test_a_fused_sequential_on_the_gpu_matches_the_cpu_with_two_launches_fewer(
    activation,
):
    model, x = _model(activation)
    want, want_grads, _ = _batch(model, x, FastBackend)
    ba.PATH.reset()
    _batch(model, x, CudaBackend)  # compile, check the signature
    got, grads, fused = _batch(model, x, CudaBackend)
    assert ba.PATH.agreed == 1 and ba.PATH.served == 2
    with ba.PATH.off():
        _, _, plain = _batch(model, x, CudaBackend)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    for a, b in zip(grads, want_grads):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)
    # forward: bias add and activation in one launch; backward: the activation's
    # gradient and the bias's sum (over both leading dimensions here) in one.
    assert fused <= plain - 2, (fused, plain)


@pytest.mark.task4_7
def test_a_different_student_activation_keeps_running(monkeypatch):
    """A ReLU whose forward is not ReLU's (here: leaky) disagrees at the check, so
    the student's layers run, and their result is what comes back."""
    monkeypatch.setattr(
        _activation_layers.ReLU, "forward", lambda self, x: F.leaky_relu(x, 0.1)
    )
    model, x = _model(nn.ReLU(), seed=4)
    ba.PATH.reset()
    got, _, _ = _batch(model, x, CudaBackend)
    assert ba.PATH.differed == 1 and ba.PATH.served == 0
    ba.PATH.reset()  # (the verdict of this student's ReLU)
    model.to(FastBackend)
    with no_grad():
        want = model(x).to_numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.task4_7
def test_a_stub_sequential_loop_still_raises_on_the_gpu(monkeypatch):
    """The check runs Module 0's ``Sequential`` loop (Task 0.4) on the pair: a
    stub there raises as it does on the CPU, instead of the path serving."""
    from module0_fundamentals import module

    def stub(self, x):
        raise NotImplementedError("Task 0.4: Sequential.forward")

    monkeypatch.setattr(module.Sequential, "forward", stub)
    model, x = _model(nn.ReLU(), seed=5)
    model.to(CudaBackend)
    ba.PATH.reset()
    with pytest.raises(NotImplementedError, match="0.4"):
        model(x.to(CudaBackend))
    assert ba.PATH.served == 0


SMS = {"sm_75": (7, 5), "sm_80": (8, 0), "sm_90": (9, 0)}


@pytest.mark.parametrize("sm", SMS)
def test_bias_activation_kernels_fit_resources(sm):
    rows = [row for row in measured_resources("fused") if tuple(row["cc"]) == SMS[sm]]
    assert sorted(row["name"] for row in rows) == [
        "bias_act_backward",
        "bias_act_forward",
    ]
    for row in rows:
        assert kernels.problems(row) == [], row["name"]
        assert row["spill_stores"] == row["spill_loads"] == 0, row["name"]
