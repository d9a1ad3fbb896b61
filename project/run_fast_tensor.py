"""Train the tensor network on a fast backend, in mini-batches (Task 3.5).

    python project/run_fast_tensor.py --backend fast --dataset split --hidden 100

The network of Task 2.5 ($2 \\to h \\to h \\to 1$, ReLU hidden layers, one logit per
point, mean binary cross-entropy), trained by mini-batch stochastic gradient descent:
every epoch visits the points in a fresh random order, ``batch`` at a time, and takes
one step per batch. With ``--backend fast`` every operation runs in Numba's compiled
parallel kernels (Module 3), with ``--backend cuda`` on a GPU (or, without one, in
Numba's CUDA simulator: correct but very slow), with ``--backend simple`` in Module
2's Python loops.

A progress bar shows, per epoch, the mean loss over its batches, the share of points
classified correctly by the forward passes of that epoch, and the seconds it took;
at the end come the accuracy on held-out points and a plot of the curves.

From Python (tests, the dashboard, ``kindling bench``)::

    from project.run_fast_tensor import train
    history = train("split", backend="fast", hidden=100, epochs=50)
    history.accuracies[-1], history.seconds_per_epoch
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, Tuple

import numpy as np

if __package__ in (None, ""):  # run as a script: make the library importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# Without a GPU, CUDA code runs in Numba's simulator; that must be decided before
# Numba is imported.
from kindling.cudasim import configure_cuda_simulator  # noqa: E402

configure_cuda_simulator()

from module0_fundamentals import DATASETS, Module, Parameter  # noqa: E402
from module1_scalar_autodiff.optim import SGD  # noqa: E402
from module2_tensors import Tensor, TensorBackend, rand  # noqa: E402
from module2_tensors import tensor as make_tensor  # noqa: E402
from project.script_tools import BACKENDS, TrainingHistory  # noqa: E402
from project.script_tools import (  # noqa: E402
    backend_by_name,
    epoch_logger,
    simulator_epochs,
)
from project.script_tools import positive_int, report_toy_run, toy_parser  # noqa: E402

#: The Task 3.5 setting (also what ``kindling bench`` times).
DEFAULTS = dict(dataset="split", pts=50, hidden=100, batch=10, lr=0.05, epochs=250)


# ---------------------------------------------------------------------------
# The model (as in Task 2.5)
# ---------------------------------------------------------------------------


class Linear(Module):
    """A fully connected layer on a batch: $Y = X W + b$, ``X`` of shape
    ``(batch, in_size)``, $W$ ``(in_size, out_size)``, $b$ ``(out_size,)``, ``Y``
    ``(batch, out_size)``. Weights start uniform in $[-r, r]$,
    $r = 1 / \\sqrt{\\mathrm{in\\_size}}$."""

    def __init__(
        self,
        in_size: int,
        out_size: int,
        generator: np.random.Generator,
        backend: TensorBackend,
    ) -> None:
        super().__init__()
        self.in_size, self.out_size = in_size, out_size
        r = 1.0 / in_size**0.5
        weight = rand(in_size, out_size, generator=generator, backend=backend)
        bias = rand(out_size, generator=generator, backend=backend)
        self.weight = Parameter(r * (2.0 * weight - 1.0))
        self.bias = Parameter(r * (2.0 * bias - 1.0))

    def forward(self, x: Tensor) -> Tensor:
        """``(batch, in_size)`` to ``(batch, out_size)``: one batched matmul on the
        backend of the weights (FastOps' parallel kernel on ``fast``)."""
        return x @ self.weight.value + self.bias.value


class Network(Module):
    """$z = L_3(\\mathrm{relu}(L_2(\\mathrm{relu}(L_1(2X - 1)))))$: points of shape
    ``(batch, 2)`` in the unit square to logits of shape ``(batch,)``."""

    def __init__(self, hidden: int, backend: TensorBackend, seed: int = 0) -> None:
        super().__init__()
        if hidden < 1:
            raise ValueError(f"hidden must be >= 1, got {hidden}")
        generator = np.random.default_rng(seed)
        self.layer1 = Linear(2, hidden, generator, backend)
        self.layer2 = Linear(hidden, hidden, generator, backend)
        self.layer3 = Linear(hidden, 1, generator, backend)

    def forward(self, x: Tensor) -> Tensor:
        h = self.layer1(2.0 * x - 1.0).relu()
        h = self.layer2(h).relu()
        return self.layer3(h).view(x.shape[0])


def loss_fn(z: Tensor, y: Tensor) -> Tensor:
    """Mean binary cross-entropy of logits ``z`` for labels ``y`` (both
    ``(batch,)``), $\\frac{1}{n}\\sum_i \\ln(1 + e^{-m_i})$ with margin
    $m_i = z_i (2 y_i - 1)$, computed as $\\mathrm{relu}(-m) + \\ln(1 + e^{-|m|})$
    (no overflow, no log of 0)."""
    margin = z * (2.0 * y - 1.0)
    return ((-margin).relu() + ((-margin.abs()).exp() + 1.0).log()).mean()


# ---------------------------------------------------------------------------
# Training
# ---------------------------------------------------------------------------


class History(TrainingHistory):
    """Per epoch: mean batch loss, training accuracy, seconds; and the model."""

    @property
    def seconds_per_epoch(self) -> float:
        """Mean seconds per epoch, leaving out the first (which includes compiling
        the kernels) when there are more."""
        times = self.seconds[1:] if len(self.seconds) > 1 else self.seconds
        return sum(times) / len(times) if times else 0.0


def batch_tensors(
    X: np.ndarray, y: np.ndarray, idx: np.ndarray, backend: TensorBackend
) -> Tuple[Tensor, Tensor]:
    """The points ``X[idx]`` (shape ``(b, 2)``) and labels ``y[idx]`` (shape
    ``(b,)``) of one batch, as tensors on ``backend``."""
    return make_tensor(X[idx], backend=backend), make_tensor(y[idx], backend=backend)


def train_epoch(
    model: Network,
    optimizer: SGD,
    X: np.ndarray,
    y: np.ndarray,
    batch: int,
    order: np.ndarray,
    backend: TensorBackend,
) -> Tuple[float, int]:
    """One epoch of mini-batch SGD; returns ``(mean batch loss, correct)``.

    Visit the points in ``order`` (a permutation of ``range(len(X))``), ``batch``
    at a time (the last batch may be smaller). For each batch: its tensors
    (:func:`batch_tensors`), zero the gradients, forward, :func:`loss_fn`, ``backward``,
    ``step``. ``correct`` counts the points whose logit had the sign of their label
    ($z > 0$ for label 1) in those forward passes.
    """
    # BEGIN SOLUTION 3.5: the mini-batch loop (zero_grad, forward, loss, backward, step)
    total, correct, batches = 0.0, 0, 0
    for start in range(0, len(order), batch):
        idx = order[start : start + batch]
        xb, yb = batch_tensors(X, y, idx, backend)
        optimizer.zero_grad()
        z = model(xb)
        loss = loss_fn(z, yb)
        loss.backward()
        optimizer.step()
        total += loss.item()
        batches += 1
        correct += int(np.sum((z.to_numpy() > 0.0) == (y[idx] > 0.5)))
    return total / max(batches, 1), correct
    # END SOLUTION


def train(
    dataset: str = DEFAULTS["dataset"],
    backend: Any = "fast",
    hidden: int = DEFAULTS["hidden"],
    lr: float = DEFAULTS["lr"],
    epochs: int = DEFAULTS["epochs"],
    pts: int = DEFAULTS["pts"],
    batch: int = DEFAULTS["batch"],
    seed: int = 0,
    log: Optional[Callable[[int, int, float, float, float], None]] = None,
) -> History:
    """Train a :class:`Network` on ``pts`` points of ``DATASETS[dataset]`` for
    ``epochs`` epochs of :func:`train_epoch`; ``log(epoch, epochs, loss, accuracy,
    seconds)`` after each (``None``: quiet). ``backend`` is a ``TensorBackend`` or
    its name. Data, initial weights and batch order all come from ``seed``."""
    if dataset not in DATASETS:
        raise ValueError(
            f"unknown dataset {dataset!r}; choose one of {', '.join(DATASETS)}"
        )
    if epochs < 0 or pts < 1 or batch < 1:
        raise ValueError(
            f"need epochs >= 0, pts >= 1 and batch >= 1, got {epochs}, {pts}, {batch}"
        )
    if isinstance(backend, str):
        backend = backend_by_name(backend)
    data = DATASETS[dataset](pts, seed=seed)
    X = np.array(data.X, dtype=np.float64).reshape(pts, 2)
    y = np.array(data.y, dtype=np.float64)
    model = Network(hidden, backend, seed=seed)
    optimizer = SGD(model.parameters(), lr=lr)
    generator = np.random.default_rng(seed)
    history = History(model)
    for epoch in range(1, epochs + 1):
        order = generator.permutation(pts)
        start = time.perf_counter()
        loss, correct = train_epoch(model, optimizer, X, y, batch, order, backend)
        seconds = time.perf_counter() - start
        history.losses.append(loss)
        history.accuracies.append(correct / pts)
        history.seconds.append(seconds)
        if log is not None:
            log(epoch, epochs, loss, correct / pts, seconds)
    return history


def evaluate(model: Network, data: Any, backend: Any = "fast") -> Tuple[float, float]:
    """Mean :func:`loss_fn` and accuracy of ``model`` on the points of the ``Graph``
    ``data`` (one forward pass over all of them, no step)."""
    if isinstance(backend, str):
        backend = backend_by_name(backend)
    X = np.array(data.X, dtype=np.float64).reshape(len(data.y), 2)
    y = np.array(data.y, dtype=np.float64)
    xs, ys = batch_tensors(X, y, np.arange(len(y)), backend)
    z = model(xs)
    correct = int(np.sum((z.to_numpy() > 0.0) == (y > 0.5)))
    return loss_fn(z, ys).item(), correct / len(y)


def main(argv: Optional[Sequence[str]] = None) -> History:
    parser = toy_parser(
        __doc__,
        DATASETS,
        DEFAULTS["dataset"],
        DEFAULTS["epochs"],
        "runs/fast_tensor.png",
        hidden=DEFAULTS["hidden"],
        lr=DEFAULTS["lr"],
        pts=DEFAULTS["pts"],
        seed_help="seed of data, weights and batch order",
    )
    parser.add_argument("--backend", default="fast", choices=BACKENDS, help="backend")
    parser.add_argument(
        "--batch", type=positive_int, default=DEFAULTS["batch"], help="batch size"
    )
    args = parser.parse_args(argv)
    args.epochs = simulator_epochs(args.backend, args.epochs, argv)
    bar, log = epoch_logger(args.epochs, digits=4)
    history = train(
        args.dataset,
        backend=args.backend,
        hidden=args.hidden,
        lr=args.lr,
        epochs=args.epochs,
        pts=args.pts,
        batch=args.batch,
        seed=args.seed,
        log=log,
    )
    bar.close()
    report_toy_run(
        history,
        args,
        DATASETS,
        lambda model, data: evaluate(model, data, args.backend)[1],
        f"Tensor network on {args.dataset}, {args.backend} backend",
        f"  ({history.seconds_per_epoch:.4f} s per epoch after the first, "
        f"{args.backend} backend)",
    )
    return history


if __name__ == "__main__":
    main()
