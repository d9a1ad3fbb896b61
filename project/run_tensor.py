"""Train a small network of tensors on a 2-D toy dataset (Task 2.5).

    python project/run_tensor.py --dataset split --hidden 10

The network of Task 1.5, $2 \\to h \\to h \\to 1$ with ReLU hidden layers and one
output logit $z$ ($P(y = 1) = \\sigma(z)$), trained by full-batch gradient descent on
the mean binary cross-entropy. Where Module 1 needed one ``Scalar`` per weight and a
Python loop per point, here a layer is one matrix product on the whole batch:
$H = \\mathrm{relu}(X W + b)$ for $X$ of shape ``(pts, 2)``.

From Python (tests, the dashboard)::

    from project.run_tensor import train
    history = train("xor", hidden=10, epochs=100)
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

from module0_fundamentals import DATASETS, Module, Parameter  # noqa: E402
from module1_scalar_autodiff.optim import SGD  # noqa: E402
from module2_tensors import SimpleBackend, Tensor, TensorBackend, rand  # noqa: E402
from module2_tensors import tensor as make_tensor  # noqa: E402
from project.script_tools import BACKENDS, TrainingHistory  # noqa: E402
from project.script_tools import backend_by_name, epoch_logger  # noqa: E402
from project.script_tools import (
    report_toy_run,
    simulator_epochs,
    toy_parser,
)  # noqa: E402

# ---------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------


class Linear(Module):
    """A fully connected layer on a batch: $Y = X W + b$.

    ``X`` has shape ``(batch, in_size)``, the weight $W$ ``(in_size, out_size)``, the
    bias $b$ ``(out_size,)`` (broadcast over the batch), ``Y`` ``(batch, out_size)``.
    Both start uniform in $[-1, 1]$ (as in Task 1.5), drawn from ``generator``.
    """

    def __init__(
        self,
        in_size: int,
        out_size: int,
        generator: np.random.Generator,
        backend: TensorBackend = SimpleBackend,
    ) -> None:
        super().__init__()
        self.in_size, self.out_size = in_size, out_size
        weight = rand(in_size, out_size, generator=generator, backend=backend)
        bias = rand(out_size, generator=generator, backend=backend)
        # Computed from constants, these are fresh leaves; Parameter switches on
        # their gradients.
        self.weight = Parameter(2.0 * weight - 1.0)
        self.bias = Parameter(2.0 * bias - 1.0)

    def forward(self, x: Tensor) -> Tensor:
        """``(batch, in_size)`` to ``(batch, out_size)``."""
        if x.dims != 2 or x.shape[1] != self.in_size:
            raise ValueError(
                f"Linear expects a batch of shape (batch, {self.in_size}), got "
                f"{x.shape}"
            )
        # BEGIN SOLUTION 2.5: X W + b (one matmul, the bias broadcast over the batch)
        return x @ self.weight.value + self.bias.value
        # END SOLUTION


class Network(Module):
    """$z = L_3(\\mathrm{relu}(L_2(\\mathrm{relu}(L_1(X)))))$: 2 inputs, two hidden
    layers of ``hidden`` units, one output logit per point."""

    def __init__(
        self, hidden: int, seed: int = 0, backend: TensorBackend = SimpleBackend
    ) -> None:
        super().__init__()
        if hidden < 1:
            raise ValueError(f"hidden must be >= 1, got {hidden}")
        generator = np.random.default_rng(seed)
        self.layer1 = Linear(2, hidden, generator, backend)
        self.layer2 = Linear(hidden, hidden, generator, backend)
        self.layer3 = Linear(hidden, 1, generator, backend)

    def forward(self, x: Tensor) -> Tensor:
        """Points of shape ``(batch, 2)`` in the unit square to logits of shape
        ``(batch,)``."""
        # Centre the unit square on 0 (see project/run_scalar.py for why).
        x = 2.0 * x - 1.0
        # BEGIN SOLUTION 2.5: three layers, relu after the first two, then (batch,)
        h = self.layer1(x).relu()
        h = self.layer2(h).relu()
        return self.layer3(h).view(x.shape[0])
        # END SOLUTION


def loss_fn(z: Tensor, y: Tensor) -> Tensor:
    """Mean binary cross-entropy of logits ``z`` for labels ``y`` (both
    ``(batch,)``): $\\frac{1}{n} \\sum_i -\\ln \\sigma(m_i)$ with the margin
    $m_i = z_i$ if $y_i = 1$ and $-z_i$ if $y_i = 0$.

    $-\\ln \\sigma(m) = \\ln(1 + e^{-m})$ is computed as
    $\\mathrm{relu}(-m) + \\ln(1 + e^{-|m|})$, which never overflows and never takes
    the log of 0 (``sigmoid(m).log()`` would, once $m < -745$).
    """
    margin = z * (2.0 * y - 1.0)
    return ((-margin).relu() + ((-margin.abs()).exp() + 1.0).log()).mean()


# ---------------------------------------------------------------------------
# Training
# ---------------------------------------------------------------------------


class History(TrainingHistory):
    """What training produced: the model, and per epoch the loss, the accuracy and
    the seconds it took (``seconds_per_epoch``: their mean). See
    ``script_tools.TrainingHistory``."""


def train_epoch(
    model: Network, optimizer: SGD, x: Tensor, y: Tensor
) -> Tuple[float, int]:
    """One step of full-batch gradient descent; returns ``(loss, correct)``.

    Zero the gradients, compute the logits of the whole batch ``x`` (shape
    ``(pts, 2)``) and their :func:`loss_fn` against ``y`` (shape ``(pts,)``),
    ``backward``, ``step``. ``correct`` counts the points whose logit has the sign
    of their label ($z > 0$ for label 1), from the same forward pass.
    """
    # BEGIN SOLUTION 2.5: zero_grad, forward, loss, backward, step; count correct
    optimizer.zero_grad()
    z = model(x)
    loss = loss_fn(z, y)
    loss.backward()
    optimizer.step()
    correct = int(((z > 0.0) == y).sum().item())
    return loss.item(), correct
    # END SOLUTION


def train(
    dataset: str = "split",
    hidden: int = 10,
    lr: float = 0.5,
    epochs: int = 250,
    pts: int = 50,
    seed: int = 0,
    backend: Any = "simple",
    log: Optional[Callable[[int, int, float, float, float], None]] = None,
) -> History:
    """Train a :class:`Network` on ``pts`` points of ``DATASETS[dataset]``.

    ``epochs`` calls of :func:`train_epoch`, each timed; ``log(epoch, epochs, loss,
    accuracy, seconds)`` is called after each (``None``: stay quiet). The dataset
    and the initial weights are both drawn from ``seed``. ``backend`` is a
    ``TensorBackend`` or its name.
    """
    if dataset not in DATASETS:
        raise ValueError(
            f"unknown dataset {dataset!r}; choose one of {', '.join(DATASETS)}"
        )
    if epochs < 0 or pts < 1:
        raise ValueError(f"need epochs >= 0 and pts >= 1, got {epochs} and {pts}")
    if isinstance(backend, str):
        backend = backend_by_name(backend)
    data = DATASETS[dataset](pts, seed=seed)
    x = make_tensor(data.X, backend=backend)
    y = make_tensor(data.y, backend=backend)
    model = Network(hidden, seed=seed, backend=backend)
    optimizer = SGD(model.parameters(), lr=lr)
    history = History(model)
    for epoch in range(1, epochs + 1):
        start = time.perf_counter()
        loss, correct = train_epoch(model, optimizer, x, y)
        seconds = time.perf_counter() - start
        history.losses.append(loss)
        history.accuracies.append(correct / pts)
        history.seconds.append(seconds)
        if log is not None:
            log(epoch, epochs, loss, correct / pts, seconds)
    return history


def evaluate(model: Network, data: Any, backend: Any = "simple") -> Tuple[float, float]:
    """Mean :func:`loss_fn` and accuracy of ``model`` on the points of the ``Graph``
    ``data`` (one forward pass, no step)."""
    if isinstance(backend, str):
        backend = backend_by_name(backend)
    x = make_tensor(data.X, backend=backend)
    y = make_tensor(data.y, backend=backend)
    z = model(x)
    correct = int(((z > 0.0) == y).sum().item())
    return loss_fn(z, y).item(), correct / len(data.y)


def main(argv: Optional[Sequence[str]] = None) -> History:
    parser = toy_parser(__doc__, DATASETS, "split", 250, "runs/tensor.png")
    parser.add_argument(
        "--backend", default="simple", choices=BACKENDS, help="tensor backend"
    )
    args = parser.parse_args(argv)
    args.epochs = simulator_epochs(args.backend, args.epochs, argv)
    bar, log = epoch_logger(args.epochs, digits=3)
    history = train(
        args.dataset,
        hidden=args.hidden,
        lr=args.lr,
        epochs=args.epochs,
        pts=args.pts,
        seed=args.seed,
        backend=args.backend,
        log=log,
    )
    bar.close()
    report_toy_run(
        history,
        args,
        DATASETS,
        lambda model, data: evaluate(model, data, args.backend)[1],
        f"Tensor network on {args.dataset}",
        f"  ({history.seconds_per_epoch:.3f} s per epoch, {args.backend} backend)",
    )
    return history


if __name__ == "__main__":
    main()
