"""Train a small network of ``Scalar`` values on a 2-D toy dataset (Task 1.5).

    python project/run_scalar.py --dataset xor --hidden 10 --epochs 300

The network is $2 \\to h \\to h \\to 1$: two hidden layers of ReLU units and one
output logit $z$; the model's probability of class 1 is $\\sigma(z)$. It is trained
by full-batch gradient descent on the mean binary cross-entropy. Every weight is
its own ``Scalar``, so this is slow (seconds per epoch for big layers): the point
is to see autodiff work end to end. Module 2 does the same with tensors.

From Python (tests, the dashboard)::

    from project.run_scalar import train
    history = train("simple", hidden=3, epochs=50)
    history.accuracies[-1]
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, List, Optional, Sequence, Tuple

if __package__ in (None, ""):  # run as a script: make the library importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from module0_fundamentals import DATASETS, Module, Parameter  # noqa: E402
from module1_scalar_autodiff.optim import SGD  # noqa: E402
from module1_scalar_autodiff.scalar import Scalar  # noqa: E402
from project.script_tools import epoch_logger, report_toy_run, toy_parser  # noqa: E402

Point = Tuple[float, float]


class Linear(Module):
    """A fully connected layer on lists of Scalars: $y_j = b_j + \\sum_i x_i w_{ij}$.

    ``in_size * out_size`` weights and ``out_size`` biases, each a ``Parameter``
    holding a ``Scalar`` leaf, drawn uniformly from $[-1, 1]$ by ``rng``.
    """

    def __init__(self, in_size: int, out_size: int, rng: random.Random) -> None:
        super().__init__()
        self.in_size, self.out_size = in_size, out_size
        # Registered one by one so that named_parameters() sees every number.
        self.weights: List[List[Parameter]] = [
            [
                self.add_parameter(f"weight_{i}_{j}", Scalar(rng.uniform(-1, 1)))
                for j in range(out_size)
            ]
            for i in range(in_size)
        ]
        self.biases: List[Parameter] = [
            self.add_parameter(f"bias_{j}", Scalar(rng.uniform(-1, 1)))
            for j in range(out_size)
        ]

    def forward(self, inputs: Sequence[Scalar]) -> List[Scalar]:
        """``in_size`` inputs (Scalars or floats) to ``out_size`` Scalars."""
        if len(inputs) != self.in_size:
            raise ValueError(f"Linear expects {self.in_size} inputs, got {len(inputs)}")
        # BEGIN SOLUTION 1.5: y_j = b_j + sum_i x_i w_ij, with the Parameters' .value
        outputs = []
        for j in range(self.out_size):
            y = self.biases[j].value
            for i, x in enumerate(inputs):
                y = y + x * self.weights[i][j].value
            outputs.append(y)
        return outputs
        # END SOLUTION


class Network(Module):
    """$z = L_3(\\mathrm{relu}(L_2(\\mathrm{relu}(L_1(x)))))$: 2 inputs, two hidden
    layers of ``hidden`` units, one output logit."""

    def __init__(self, hidden: int, seed: int = 0) -> None:
        super().__init__()
        if hidden < 1:
            raise ValueError(f"hidden must be >= 1, got {hidden}")
        rng = random.Random(seed)
        self.layer1 = Linear(2, hidden, rng)
        self.layer2 = Linear(hidden, hidden, rng)
        self.layer3 = Linear(hidden, 1, rng)

    def forward(self, x1: float, x2: float) -> Scalar:
        """The logit $z$ of the point $(x_1, x_2)$ of the unit square;
        $P(y = 1) = \\sigma(z)$."""
        # Centre the unit square on 0 (inputs in [-1, 1]): with inputs that are all
        # positive, every first-layer weight of a unit gets a gradient of the same
        # sign, and gradient descent zig-zags slowly (LeCun et al., Efficient
        # BackProp).
        x1, x2 = 2.0 * x1 - 1.0, 2.0 * x2 - 1.0
        # BEGIN SOLUTION 1.5: three layers, relu after the first two
        h = [v.relu() for v in self.layer1([x1, x2])]
        h = [v.relu() for v in self.layer2(h)]
        return self.layer3(h)[0]
        # END SOLUTION


def point_loss(z: Scalar, y: int) -> Scalar:
    """Binary cross-entropy of one point from its logit: $-\\ln \\sigma(z)$ if
    $y = 1$, $-\\ln(1 - \\sigma(z)) = -\\ln \\sigma(-z)$ if $y = 0$.

    Written with $\\sigma(-z)$ rather than $1 - \\sigma(z)$ because the latter
    rounds to exactly 0 once $z > 37$, and $\\ln 0$ is an error.
    """
    return -((z if y == 1 else -z).sigmoid().log())


@dataclass
class History:
    """What training produced: the model and one loss / accuracy per epoch."""

    model: Network
    losses: List[float] = field(default_factory=list)
    accuracies: List[float] = field(default_factory=list)


def train_epoch(
    model: Network, optimizer: SGD, points: Sequence[Point], labels: Sequence[int]
) -> Tuple[float, int]:
    """One epoch of full-batch gradient descent; returns ``(loss, correct)``.

    Zero the derivatives, run every point through ``model``, add up the
    ``point_loss`` values and divide by the number of points (the mean loss),
    ``backward``, then ``step``. ``correct`` counts the points whose logit has the
    sign of their label ($z > 0$ for label 1), from the same forward pass (so it
    describes the parameters *before* the step); ``loss`` is the mean loss as a
    float.
    """
    # BEGIN SOLUTION 1.5: zero_grad, mean point_loss, backward, step
    optimizer.zero_grad()
    loss = Scalar(0.0, requires_grad=False)
    correct = 0
    for (x1, x2), y in zip(points, labels):
        z = model(x1, x2)
        loss = loss + point_loss(z, y)
        correct += int((z.data > 0) == (y == 1))
    loss = loss / len(points)
    loss.backward()
    optimizer.step()
    return loss.data, correct
    # END SOLUTION


def train(
    dataset: str = "simple",
    hidden: int = 10,
    lr: float = 0.5,
    epochs: int = 100,
    pts: int = 50,
    seed: int = 0,
    log: Optional[Callable[[int, int, float, float], None]] = None,
) -> History:
    """Train a :class:`Network` on ``pts`` points of ``DATASETS[dataset]``.

    ``epochs`` calls of :func:`train_epoch`; ``log(epoch, epochs, loss,
    accuracy)`` is called after each (``None``: stay quiet). The dataset and the
    initial weights are both drawn from ``seed``.
    """
    if dataset not in DATASETS:
        raise ValueError(
            f"unknown dataset {dataset!r}; choose one of {', '.join(DATASETS)}"
        )
    if epochs < 0 or pts < 1:
        raise ValueError(f"need epochs >= 0 and pts >= 1, got {epochs} and {pts}")
    data = DATASETS[dataset](pts, seed=seed)
    model = Network(hidden, seed=seed)
    optimizer = SGD(model.parameters(), lr=lr)
    history = History(model)
    for epoch in range(1, epochs + 1):
        loss, correct = train_epoch(model, optimizer, data.X, data.y)
        history.losses.append(loss)
        history.accuracies.append(correct / pts)
        if log is not None:
            log(epoch, epochs, loss, correct / pts)
    return history


def evaluate(
    model: Network, points: Sequence[Point], labels: Sequence[int]
) -> Tuple[float, float]:
    """Mean :func:`point_loss` and accuracy of ``model`` on ``points`` (no step)."""
    total, correct = 0.0, 0
    for (x1, x2), y in zip(points, labels):
        z = model(x1, x2)
        total += point_loss(z, y).data
        correct += int((z.data > 0) == (y == 1))
    return total / len(points), correct / len(points)


def main(argv: Optional[Sequence[str]] = None) -> History:
    parser = toy_parser(__doc__, DATASETS, "simple", 100, "runs/scalar.png")
    args = parser.parse_args(argv)
    bar, log = epoch_logger(args.epochs)
    history = train(
        args.dataset,
        hidden=args.hidden,
        lr=args.lr,
        epochs=args.epochs,
        pts=args.pts,
        seed=args.seed,
        log=log,
    )
    bar.close()
    report_toy_run(
        history,
        args,
        DATASETS,
        lambda model, data: evaluate(model, data.X, data.y)[1],
        f"Scalar network on {args.dataset}",
    )
    return history


if __name__ == "__main__":
    main()
