"""The gradient oracle: autodiff against central differences, on every entry.

``check_gradients(f, *cases)`` differentiates $L = \\sum_i w_i f(x)_i$, with fixed
random weights $w$ (so that a wrong but column-sum-preserving Jacobian, such as a
missing transpose, is caught), by ``backward`` and by central differences computed
from fresh tensors. The finite differences read only ``to_numpy`` and NumPy: they do
not trust the code under test.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from module2_tensors import Tensor

from .strategies import Case, make_tensor


def check_gradients(
    f: Callable[..., Tensor],
    *cases: Case,
    backend: Any = None,
    epsilon: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-4,
    seed: int = 0,
) -> None:
    """Assert that ``backward`` through ``f`` matches central differences for every
    entry of every input."""
    arrays = [np.array(c.array, dtype=np.float64) for c in cases]
    layouts = [c.layout for c in cases]
    inputs = [
        make_tensor(a, lay, backend, requires_grad=True)
        for a, lay in zip(arrays, layouts)
    ]
    out = f(*inputs)
    weights = np.random.default_rng(seed).uniform(-1.0, 1.0, out.shape)
    (out * make_tensor(weights, backend=backend)).sum().backward()

    def loss(values: Sequence[np.ndarray]) -> float:
        fresh = [make_tensor(a, lay, backend) for a, lay in zip(values, layouts)]
        return float(np.sum(f(*fresh).to_numpy() * weights))

    for arg, (x, array) in enumerate(zip(inputs, arrays)):
        assert x.grad is not None, f"input {arg} got no gradient"
        assert x.grad.shape == array.shape, (
            f"input {arg}: gradient of shape {x.grad.shape} for an input of shape "
            f"{array.shape}"
        )
        grad = x.grad.to_numpy()
        for idx in np.ndindex(array.shape):
            up = [a.copy() for a in arrays]
            down = [a.copy() for a in arrays]
            up[arg][idx] += epsilon
            down[arg][idx] -= epsilon
            numeric = (loss(up) - loss(down)) / (2.0 * epsilon)
            assert abs(grad[idx] - numeric) <= atol + rtol * abs(numeric), (
                f"input {arg} at index {idx}: autodiff gives {grad[idx]}, central "
                f"difference gives {numeric}"
            )
