"""Task 1.5: SGD, the scalar Linear layer and network, and training to 100%."""

import math
import random

import pytest
from hypothesis import given

from module0_fundamentals import Module, Parameter
from module1_scalar_autodiff.optim import SGD
from module1_scalar_autodiff.scalar import Scalar
from project.run_scalar import (
    Linear,
    Network,
    main,
    point_loss,
    train,
    train_epoch,
)

from .oracle import central_difference
from .strategies import small_floats

pytestmark = pytest.mark.task1_5


class Quadratic(Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = Parameter(Scalar(3.0))
        self.b = Parameter(Scalar(-1.0))
        self.unused = Parameter(Scalar(5.0))

    def forward(self) -> Scalar:
        return (self.a.value - 1.0) * (self.a.value - 1.0) + 2.0 * self.b.value


def test_sgd_step_moves_against_the_derivative() -> None:
    model = Quadratic()
    opt = SGD(model.parameters(), lr=0.1)
    opt.zero_grad()
    model().backward()
    old_a = model.a.value
    opt.step()
    # d/da = 2 (a - 1) = 4; d/db = 2
    assert model.a.value.data == pytest.approx(3.0 - 0.1 * 4.0)
    assert model.b.value.data == pytest.approx(-1.0 - 0.1 * 2.0)
    assert model.unused.value.data == 5.0  # no derivative: left alone
    # The new values are fresh leaves, not results chained onto the old graph.
    assert model.a.value is not old_a and model.a.value.is_leaf
    assert model.a.value.derivative is None


def test_zero_grad_clears_accumulated_derivatives() -> None:
    model = Quadratic()
    opt = SGD(model.parameters(), lr=0.1)
    model().backward()
    model().backward()
    assert model.b.value.derivative == pytest.approx(4.0)  # accumulated twice
    opt.zero_grad()
    assert all(p.value.derivative is None for p in model.parameters())


def test_sgd_minimises_a_quadratic() -> None:
    model = Quadratic()
    opt = SGD([model.a], lr=0.25)
    for _ in range(40):
        opt.zero_grad()
        model().backward()
        opt.step()
    assert model.a.value.data == pytest.approx(1.0, abs=1e-6)


def test_loaded_scalar_parameters_still_train() -> None:
    trained = Quadratic()
    trained.a.update(Scalar(2.0))
    model = Quadratic()
    model.load_state_dict(trained.state_dict())  # (the values come detached)
    assert model.a.value.data == 2.0 and model.a.value.is_leaf
    model().backward()
    assert model.a.value.derivative == pytest.approx(2.0)


def test_sgd_bad_input() -> None:
    with pytest.raises(ValueError, match="learning rate"):
        SGD(Quadratic().parameters(), lr=0.0)
    with pytest.raises(TypeError, match="Scalar"):
        SGD([Scalar(1.0)], lr=0.1)


@given(small_floats, small_floats)
def test_linear_forward(x1: float, x2: float) -> None:
    layer = Linear(2, 3, random.Random(0))
    out = layer([x1, x2])
    assert len(out) == 3
    for j in range(3):
        w = [layer.weights[i][j].value.data for i in range(2)]
        b = layer.biases[j].value.data
        assert out[j].data == pytest.approx(b + x1 * w[0] + x2 * w[1], abs=1e-12)


def test_linear_backward_reaches_every_weight() -> None:
    layer = Linear(3, 2, random.Random(1))
    out = layer([Scalar(0.5), 1.0, -2.0])
    (out[0] + 2.0 * out[1]).backward()
    assert layer.weights[2][1].value.derivative == pytest.approx(-4.0)
    assert layer.weights[0][0].value.derivative == pytest.approx(0.5)
    assert layer.biases[1].value.derivative == pytest.approx(2.0)
    with pytest.raises(ValueError, match="3 inputs"):
        layer([1.0, 2.0])


def test_network_parameters_and_forward() -> None:
    net = Network(hidden=3, seed=0)
    names = [name for name, _ in net.named_parameters()]
    assert len(names) == (2 * 3 + 3) + (3 * 3 + 3) + (3 + 1)
    assert "layer1.weight_0_2" in names and "layer3.bias_0" in names
    z = net(0.2, 0.9)
    # Recompute by hand, with the same centring of the inputs.
    h = [2 * 0.2 - 1, 2 * 0.9 - 1]
    for layer in (net.layer1, net.layer2, net.layer3):
        pre = [
            layer.biases[j].value.data
            + sum(h[i] * layer.weights[i][j].value.data for i in range(len(h)))
            for j in range(layer.out_size)
        ]
        h = [max(v, 0.0) for v in pre] if layer is not net.layer3 else pre
    assert z.data == pytest.approx(h[0], abs=1e-12)


def test_point_loss_is_binary_cross_entropy() -> None:
    for z in (-3.0, 0.0, 2.0):
        p = 1 / (1 + math.exp(-z))
        assert point_loss(Scalar(z), 1).data == pytest.approx(-math.log(p))
        assert point_loss(Scalar(z), 0).data == pytest.approx(-math.log(1 - p))
    assert math.isfinite(point_loss(Scalar(50.0), 0).data)


def _float_mean_loss(net: Network, values: dict, points, labels) -> float:
    """The mean binary cross-entropy of ``net`` with its parameters set to
    ``values`` (name -> float), computed on floats: an oracle that shares no code
    with the Scalar graph."""
    layers = (net.layer1, net.layer2, net.layer3)
    total = 0.0
    for (x1, x2), y in zip(points, labels):
        h = [2 * x1 - 1, 2 * x2 - 1]
        for number, layer in enumerate(layers, start=1):
            pre = [
                values[f"layer{number}.bias_{j}"]
                + sum(
                    h[i] * values[f"layer{number}.weight_{i}_{j}"]
                    for i in range(len(h))
                )
                for j in range(layer.out_size)
            ]
            h = [max(v, 0.0) for v in pre] if number < 3 else pre
        z = h[0] if y == 1 else -h[0]
        total += math.log1p(math.exp(-z))  # -ln sigmoid(z)
    return total / len(points)


def test_train_epoch_is_one_step_on_the_mean_loss_from_fresh_derivatives() -> None:
    """One epoch: zero the derivatives (those left by an earlier backward must not
    leak into the step), the mean loss, backward, one step. Checked against a
    float oracle and its central differences."""
    net = Network(hidden=2, seed=3)
    points = [(0.1, 0.8), (0.7, 0.2), (0.4, 0.45), (0.9, 0.95)]
    labels = [1, 0, 1, 0]
    lr = 0.3
    net(0.5, 0.5).backward()  # stale derivatives on every parameter
    before = {name: p.value.data for name, p in net.named_parameters()}
    names = sorted(before)

    def loss_at(*vals: float) -> float:
        return _float_mean_loss(net, dict(zip(names, vals)), points, labels)

    start = [before[n] for n in names]
    expected_loss = loss_at(*start)
    expected_correct = 0
    for (x1, x2), y in zip(points, labels):
        expected_correct += int((net(x1, x2).data > 0) == (y == 1))
    net(0.5, 0.5).backward()  # more stale derivatives (the forwards above added none)
    loss, correct = train_epoch(net, SGD(net.parameters(), lr=lr), points, labels)
    assert loss == pytest.approx(expected_loss, rel=1e-12)
    assert correct == expected_correct
    after = dict(net.named_parameters())
    for k, name in enumerate(names):
        slope = central_difference(loss_at, *start, arg=k)
        assert after[name].value.data == pytest.approx(
            before[name] - lr * slope, abs=1e-7
        ), f"{name}: not one step of the mean loss's derivative from zero"


@pytest.mark.parametrize(
    "logit, counted", [(0.5, "ones"), (0.0, "zeros"), (-2.0, "zeros")]
)
def test_train_epoch_counts_a_point_correct_by_the_sign_of_its_logit(
    logit: float, counted: str
) -> None:
    """``correct`` counts label 1 where $z > 0$ and label 0 elsewhere (a logit of
    exactly 0 predicts 0). Every weight 0 and the last bias ``logit``: every
    point's logit is ``logit``."""
    net = Network(hidden=2, seed=0)
    for name, p in net.named_parameters():
        p.update(Scalar(logit if name == "layer3.bias_0" else 0.0))
    labels = [1, 0, 0, 1, 1]
    points = [(0.1 * k, 0.9 - 0.1 * k) for k in range(len(labels))]
    _, correct = train_epoch(net, SGD(net.parameters(), lr=0.1), points, labels)
    assert correct == (labels.count(1) if counted == "ones" else labels.count(0))


def test_training_reaches_100_percent_on_simple() -> None:
    history = train("simple", hidden=2, lr=0.5, epochs=60, pts=20, seed=1)
    assert len(history.losses) == len(history.accuracies) == 60
    assert history.accuracies[-1] == 1.0
    assert history.losses[-1] < 0.5 * history.losses[0]


def test_script_prints_loss_and_accuracy_per_epoch(capsys, tmp_path) -> None:
    # The plot goes to tmp_path: graded in a sandbox, the checkout is read-only.
    plot = str(tmp_path / "scalar.png")
    history = main(
        ["--dataset", "diag", "--hidden", "2", "--epochs", "3", "--pts", "6"]
        + ["--plot", plot]
    )
    # The progress bar (tqdm, on stderr) ends on the last epoch's loss and accuracy.
    final = capsys.readouterr().err.split("\r")[-1]
    assert "epoch" in final and "3/3" in final and "accuracy" in final
    assert f"loss {history.losses[-1]:.4f}" in final
    with pytest.raises(SystemExit):
        main(["--dataset", "no-such-dataset"])
    with pytest.raises(ValueError, match="unknown dataset"):
        train("no-such-dataset")
