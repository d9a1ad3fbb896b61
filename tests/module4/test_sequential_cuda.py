"""``nn.Sequential`` of a Linear, an activation and a Linear on ``CudaBackend``
(in the simulator): Module 0's loop over the student's layers gives the CPU's
output and every gradient. (The fused bias and activation kernels that served
these pairs were deleted: docs/DESIGN.md, section 2.)"""

from __future__ import annotations

import numpy as np
import pytest

# Tests marked task4_7 run the nn library (Task 4.6) on the CUDA kernels (Tasks 3.3,
# 3.4): Task 4.7 is a task whose dependencies hold both.

from module2_tensors import no_grad
from module3_fast_ops import FastBackend
from module3_fast_ops.cuda_ops import CudaBackend
from module4_networks import nn
from tests.module4.helpers import make


def _batch(model, x, backend):
    """Forward, loss, backward on ``backend``: (output, gradients)."""
    model.to(backend)
    x = x.detach().to(backend).requires_grad_(True)
    for p in model.parameters():
        p.grad = None
    out = model(x)
    (out * out).sum().backward()
    grads = [x.grad.to_numpy()] + [p.grad.to_numpy() for p in model.parameters()]
    return out.to_numpy(), grads


@pytest.mark.parametrize(
    "activation", [nn.ReLU(), nn.Tanh(), nn.Sigmoid(), nn.GELU()], ids=repr
)
@pytest.mark.task4_7
def test_a_sequential_on_the_gpu_matches_the_cpu(activation):
    rng = np.random.default_rng(3)
    model = nn.Sequential(nn.Linear(5, 8), activation, nn.Linear(8, 3))
    with no_grad():
        for p in model.parameters():
            p.copy_(make(rng.normal(size=p.shape) * 0.5, backend=FastBackend))
    x = make(rng.normal(size=(2, 3, 5)), backend=FastBackend)
    want, want_grads = _batch(model, x, FastBackend)
    got, grads = _batch(model, x, CudaBackend)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    for a, b in zip(grads, want_grads):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)
