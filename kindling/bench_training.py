"""The Task 3.5 training loop that ``kindling bench`` times, on the library.

``project/run_fast_tensor.py`` is the student's script (its mini-batch loop is
Task 3.5's stub); the toolchain never imports ``project/``. This module is the same
loop written once for the benchmark, as :func:`kindling.bench.torch_training` is
the same loop in PyTorch: the network $2 \\to h \\to h \\to 1$ (ReLU hidden layers,
uniform initial weights in $[-1/\\sqrt{n_{in}}, 1/\\sqrt{n_{in}}]$), the mean binary
cross-entropy of the logits, every epoch the points in a fresh random order,
``batch`` at a time, one plain SGD step per batch, and per batch the loss as a
float and the count of points classified correctly.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, List, Optional

import numpy as np

__all__ = ["History", "train", "backend_by_name"]


def backend_by_name(name: str) -> Any:
    """``simple`` (Module 2), ``fast`` (Numba, CPU) or ``cuda`` (Numba, GPU)."""
    if name == "simple":
        from module2_tensors import SimpleBackend

        return SimpleBackend
    if name == "fast":
        from module3_fast_ops import FastBackend

        return FastBackend
    if name == "cuda":
        from module3_fast_ops import CudaBackend

        return CudaBackend
    raise ValueError(f"unknown backend {name!r}; choose simple, fast or cuda")


@dataclass
class History:
    """Per epoch: mean batch loss, training accuracy, seconds."""

    losses: List[float] = field(default_factory=list)
    accuracies: List[float] = field(default_factory=list)
    seconds: List[float] = field(default_factory=list)


def train(
    dataset: str = "split",
    backend: Any = "fast",
    hidden: int = 100,
    lr: float = 0.05,
    epochs: int = 1,
    pts: int = 50,
    batch: int = 10,
    seed: int = 0,
    log: Optional[Callable[[int, int, float, float, float], None]] = None,
) -> History:
    """Train on ``pts`` points of ``DATASETS[dataset]`` for ``epochs`` epochs;
    ``log(epoch, epochs, loss, accuracy, seconds)`` after each."""
    from module0_fundamentals import DATASETS, Module, Parameter
    from module1_scalar_autodiff.optim import SGD
    from module2_tensors import rand, tensor

    if isinstance(backend, str):
        backend = backend_by_name(backend)

    class Linear(Module):
        def __init__(self, n_in: int, n_out: int, generator: Any) -> None:
            super().__init__()
            r = 1.0 / n_in**0.5
            weight = rand(n_in, n_out, generator=generator, backend=backend)
            bias = rand(n_out, generator=generator, backend=backend)
            self.weight = Parameter(r * (2.0 * weight - 1.0))
            self.bias = Parameter(r * (2.0 * bias - 1.0))

        def forward(self, x: Any) -> Any:
            return x @ self.weight.value + self.bias.value

    class Network(Module):
        def __init__(self) -> None:
            super().__init__()
            generator = np.random.default_rng(seed)
            self.layer1 = Linear(2, hidden, generator)
            self.layer2 = Linear(hidden, hidden, generator)
            self.layer3 = Linear(hidden, 1, generator)

        def forward(self, x: Any) -> Any:
            h = self.layer1(2.0 * x - 1.0).relu()
            h = self.layer2(h).relu()
            return self.layer3(h).view(x.shape[0])

    def loss_fn(z: Any, y: Any) -> Any:
        margin = z * (2.0 * y - 1.0)
        return ((-margin).relu() + ((-margin.abs()).exp() + 1.0).log()).mean()

    data = DATASETS[dataset](pts, seed=seed)
    X = np.array(data.X, dtype=np.float64).reshape(pts, 2)
    y = np.array(data.y, dtype=np.float64)
    model = Network()
    optimizer = SGD(model.parameters(), lr=lr)
    generator = np.random.default_rng(seed)
    history = History()
    for epoch in range(1, epochs + 1):
        order = generator.permutation(pts)
        start = time.perf_counter()
        total, correct, batches = 0.0, 0, 0
        for first in range(0, pts, batch):
            idx = order[first : first + batch]
            xb = tensor(X[idx], backend=backend)
            yb = tensor(y[idx], backend=backend)
            optimizer.zero_grad()
            z = model(xb)
            loss = loss_fn(z, yb)
            loss.backward()
            optimizer.step()
            total += loss.item()
            batches += 1
            correct += int(np.sum((z.to_numpy() > 0.0) == (y[idx] > 0.5)))
        seconds = time.perf_counter() - start
        history.losses.append(total / max(batches, 1))
        history.accuracies.append(correct / pts)
        history.seconds.append(seconds)
        if log is not None:
            log(epoch, epochs, history.losses[-1], correct / pts, seconds)
    return history
