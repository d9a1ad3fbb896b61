"""The CUDA convolution on the CPU's plan (``cuda_conv.PLAN = "gemm"``: im2col,
Task 3.4's matmul, col2im) against NumPy (values, central differences) and
against the direct-loop kernels (values and every gradient), in the simulator.
Which plan is the default is a GPU measurement (``kindling bench``, row
``gpu_conv``); the switch itself is checked here."""

from __future__ import annotations

import numpy as np
import pytest

from module3_fast_ops import CudaBackend
from module4_networks import cuda_conv
from module4_networks import functional as F
from tests.module4.helpers import make
from tests.module4.reference import conv1d_ref, conv2d_ref, numeric_grad

# The "gemm" plan runs Task 3.4's matmul kernel (after Task 3.3's).
pytestmark = pytest.mark.task3_4

#: (conv, input shape, weight shape, stride, padding, input order)
CASES = {
    "conv2d": (F.conv2d, (2, 3, 5, 6), (4, 3, 3, 2), (2, 1), (1, 2), (0, 2, 3, 1)),
    "conv2d-plain": (F.conv2d, (1, 1, 4, 4), (2, 1, 2, 2), (1, 1), (0, 0), None),
    "conv1d": (F.conv1d, (3, 2, 7), (3, 2, 3), (2,), (1,), (2, 0, 1)),
}


def _run(case, plan, bias=True, seed=0):
    """Output and (input, weight, bias) gradients of the case on ``plan``, with a
    random output gradient."""
    conv, x_shape, w_shape, stride, padding, order = CASES[case]
    rng = np.random.default_rng(seed)
    x, w = rng.normal(size=x_shape), rng.normal(size=w_shape)
    b = rng.normal(size=w_shape[0])
    xt = make(x, True, order, backend=CudaBackend)
    wt = make(w, True, backend=CudaBackend)
    bt = make(b, True, backend=CudaBackend) if bias else None
    with cuda_conv.plan(plan):
        out = conv(xt, wt, bt, stride=stride, padding=padding)
        g = rng.normal(size=out.shape)
        (out * make(g, backend=CudaBackend)).sum().backward()
    grads = [xt.grad.to_numpy(), wt.grad.to_numpy()]
    grads += [bt.grad.to_numpy()] if bias else []
    return out.to_numpy(), grads, (x, w, b, g)


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("case", CASES)
def test_the_gemm_plan_gives_the_direct_kernels_values_and_gradients(case, bias):
    out, grads, (x, w, b, _) = _run(case, "gemm", bias)
    want, want_grads, _ = _run(case, "direct", bias)
    conv, _, _, stride, padding, _ = CASES[case]
    ref = conv1d_ref if conv is F.conv1d else conv2d_ref
    expected = ref(
        x,
        w,
        stride[0] if conv is F.conv1d else stride,
        padding[0] if conv is F.conv1d else padding,
    )
    expected = expected + (b.reshape((-1,) + (1,) * (expected.ndim - 2)) if bias else 0)
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-12)
    for got, direct in zip(grads, want_grads):
        np.testing.assert_allclose(got, direct, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", ["conv2d", "conv1d"])
def test_the_gemm_plan_gradients_match_central_differences(case):
    _, grads, (x, w, b, g) = _run(case, "gemm", seed=1)
    conv, _, _, stride, padding, _ = CASES[case]
    if conv is F.conv1d:

        def f(x_, w_):
            return conv1d_ref(x_, w_, stride[0], padding[0])

    else:

        def f(x_, w_):
            return conv2d_ref(x_, w_, stride, padding)

    np.testing.assert_allclose(grads[0], numeric_grad(f, [x, w], g, 0), atol=1e-6)
    np.testing.assert_allclose(grads[1], numeric_grad(f, [x, w], g, 1), atol=1e-6)
    np.testing.assert_allclose(
        grads[2], g.sum(axis=tuple({0} | set(range(2, g.ndim)))), atol=1e-12
    )


def test_the_plan_is_one_switch_with_direct_by_default(monkeypatch):
    assert cuda_conv.PLAN == "direct"
    seen = []
    launch = cuda_conv.launch

    def spy(kernel, *args):
        seen.append(
            kernel.__name__ if hasattr(kernel, "__name__") else kernel.py_func.__name__
        )
        launch(kernel, *args)

    monkeypatch.setattr(cuda_conv, "launch", spy)
    _run("conv2d-plain", "gemm")
    assert "_im2col" in seen and "_col2im" in seen and "_forward" not in seen
    seen.clear()
    _run("conv2d-plain", "direct")
    assert "_forward" in seen and "_im2col" not in seen
    assert cuda_conv.PLAN == "direct"  # given back after the block
    with pytest.raises(ValueError, match="gemm"):
        with cuda_conv.plan("winograd"):
            pass
