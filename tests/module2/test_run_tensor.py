"""Task 2.5: the tensor network of project/run_tensor.py, and a short training run."""

import numpy as np
import pytest

import module2_tensors as kt
from project import run_tensor
from project.run_tensor import Linear, Network, loss_fn, train, train_epoch


@pytest.mark.task2_5
def test_linear_is_x_w_plus_b_on_a_batch():
    layer = Linear(3, 2, np.random.default_rng(0))
    x = np.random.default_rng(1).normal(size=(4, 3))
    out = layer(kt.tensor(x))
    w, b = layer.weight.value.to_numpy(), layer.bias.value.to_numpy()
    assert out.shape == (4, 2)
    np.testing.assert_allclose(out.to_numpy(), x @ w + b, rtol=1e-12)
    assert [name for name, _ in layer.named_parameters()] == ["weight", "bias"]
    with pytest.raises(ValueError, match=r"\(batch, 3\), got \(4, 2\)"):
        layer(kt.zeros(4, 2))


@pytest.mark.task2_5
def test_network_gives_one_logit_per_point_and_gradients_for_every_parameter():
    model = Network(hidden=4, seed=0)
    x = kt.rand(5, 2, seed=3)
    z = model(x)
    assert z.shape == (5,)
    # The same forward pass in NumPy.
    h = 2.0 * x.to_numpy() - 1.0
    for k, layer in enumerate([model.layer1, model.layer2, model.layer3]):
        h = h @ layer.weight.value.to_numpy() + layer.bias.value.to_numpy()
        h = np.maximum(h, 0.0) if k < 2 else h[:, 0]
    np.testing.assert_allclose(z.to_numpy(), h, rtol=1e-10)
    loss_fn(z, kt.tensor([1.0, 0.0, 1.0, 1.0, 0.0])).backward()
    names = [name for name, _ in model.named_parameters()]
    assert len(names) == 6
    for _, p in model.named_parameters():
        assert p.value.grad is not None and p.value.grad.shape == p.value.shape


@pytest.mark.task2_5
def test_loss_is_the_mean_binary_cross_entropy_and_stable():
    z = np.array([2.0, -1.0, 0.5, -800.0, 800.0])
    y = np.array([1.0, 0.0, 0.0, 1.0, 0.0])
    p = 1.0 / (1.0 + np.exp(-z[:3]))
    first = -(y[:3] * np.log(p) + (1 - y[:3]) * np.log(1 - p))
    expected = (first.sum() + 800.0 + 800.0) / 5  # -log sigmoid(-800) = 800
    assert loss_fn(kt.tensor(z), kt.tensor(y)).item() == pytest.approx(expected)


@pytest.mark.task2_5
def test_train_epoch_steps_downhill_and_counts_correct_points():
    model = Network(hidden=5, seed=1)
    optimizer = run_tensor.SGD(model.parameters(), lr=0.1)
    x = kt.rand(8, 2, seed=2)
    y = kt.tensor([1.0, 0.0] * 4)
    z = model(x).to_numpy()
    expected_correct = int(np.sum((z > 0) == (y.to_numpy() == 1.0)))
    loss, correct = train_epoch(model, optimizer, x, y)
    assert isinstance(loss, float) and correct == expected_correct
    assert loss == pytest.approx(loss_fn(kt.tensor(z), y).item())
    later, _ = train_epoch(model, optimizer, x, y)
    assert later < loss
    for _, p in model.named_parameters():
        assert p.value.is_leaf and p.value.requires_grad  # no graph carried over


def _numpy_mean_loss(model, values, x, y):
    """The mean binary cross-entropy of ``model`` with its parameters set to
    ``values`` (name -> array), in NumPy: an oracle that shares no code with the
    tensors."""
    h = 2.0 * x - 1.0
    for k in (1, 2, 3):
        h = h @ values[f"layer{k}.weight"] + values[f"layer{k}.bias"]
        h = np.maximum(h, 0.0) if k < 3 else h[:, 0]
    signed = np.where(y == 1.0, h, -h)
    return float(np.mean(np.logaddexp(0.0, -signed)))  # -ln sigmoid


@pytest.mark.task2_5
def test_train_epoch_is_one_step_on_the_mean_loss_from_fresh_gradients():
    """Gradients left by an earlier backward must not leak into the step: the
    epoch zeroes them (SGD.zero_grad on tensors), then takes one step of the mean
    loss's gradient, checked against central differences of a NumPy oracle."""
    model = Network(hidden=3, seed=4)
    x = kt.rand(6, 2, seed=5)
    y = kt.tensor([1.0, 0.0, 1.0, 1.0, 0.0, 0.0])
    lr = 0.2
    loss_fn(model(x), y).backward()  # stale gradients on every parameter
    before = {name: p.value.to_numpy().copy() for name, p in model.named_parameters()}
    xs, ys = x.to_numpy(), y.to_numpy()
    expected_loss = _numpy_mean_loss(model, before, xs, ys)
    loss, _ = train_epoch(model, run_tensor.SGD(model.parameters(), lr=lr), x, y)
    assert loss == pytest.approx(expected_loss, rel=1e-10)
    after = dict(model.named_parameters())
    eps = 1e-6
    for name, value in before.items():
        slope = np.zeros_like(value)
        for index in np.ndindex(value.shape):
            up = {k: v.copy() for k, v in before.items()}
            down = {k: v.copy() for k, v in before.items()}
            up[name][index] += eps
            down[name][index] -= eps
            slope[index] = (
                _numpy_mean_loss(model, up, xs, ys)
                - _numpy_mean_loss(model, down, xs, ys)
            ) / (2 * eps)
        np.testing.assert_allclose(
            after[name].value.to_numpy(),
            value - lr * slope,
            atol=1e-7,
            err_msg=f"{name}: not one step of the mean loss's gradient from zero",
        )


@pytest.mark.task2_5
@pytest.mark.parametrize("logit, counted", [(0.5, 1.0), (0.0, 0.0), (-2.0, 0.0)])
def test_train_epoch_counts_a_point_correct_by_the_sign_of_its_logit(logit, counted):
    """``correct`` counts label 1 where $z > 0$ and label 0 elsewhere (a logit of
    exactly 0 predicts 0). Every weight 0 and the last bias ``logit``: every
    point's logit is ``logit``."""
    model = Network(hidden=2, seed=0)
    for name, p in model.named_parameters():
        fill = logit if name == "layer3.bias" else 0.0
        p.update(kt.tensor(np.full(p.value.shape, fill)))
    labels = [1.0, 0.0, 0.0, 1.0, 1.0]
    x, y = kt.rand(len(labels), 2, seed=1), kt.tensor(labels)
    _, correct = train_epoch(model, run_tensor.SGD(model.parameters(), lr=0.1), x, y)
    assert correct == labels.count(counted)


@pytest.mark.task2_5
def test_train_epoch_counts_correct_from_the_forward_pass_before_the_step():
    """``correct`` describes the logits the loss came from, before the step. Every
    weight 0 and the last bias -0.05: every logit is -0.05 (all predicted 0, and
    all labels are 1), and with lr = 1 the step lifts the last bias by
    $1 - \\sigma(-0.05) \\approx 0.51$, past 0 (the hidden units sit at relu's
    kink, 0, and pass no gradient)."""
    model = Network(hidden=2, seed=0)
    for name, p in model.named_parameters():
        fill = -0.05 if name == "layer3.bias" else 0.0
        p.update(kt.tensor(np.full(p.value.shape, fill)))
    x, y = kt.rand(6, 2, seed=2), kt.tensor([1.0] * 6)
    _, correct = train_epoch(model, run_tensor.SGD(model.parameters(), lr=1.0), x, y)
    bias = model.layer3.bias.value.to_numpy()[0]
    assert bias == pytest.approx(-0.05 + 1.0 - 1.0 / (1.0 + np.exp(0.05)))
    assert correct == 0, (
        f"correct = {correct}: counted from the logits after the step (all now "
        "above 0), not from the forward pass of the epoch (all -0.05)"
    )


@pytest.mark.task2_5
def test_training_reaches_full_accuracy_on_split():
    history = train("split", hidden=10, pts=30, epochs=20, seed=0)
    assert len(history.losses) == len(history.accuracies) == 20
    assert len(history.seconds) == 20 and history.seconds_per_epoch > 0
    assert history.accuracies[-1] == 1.0
    assert history.losses[-1] < 0.5 * history.losses[0]


@pytest.mark.task2_5
def test_command_line_runs_and_reports(capsys, tmp_path):
    # The plot goes to tmp_path: graded in a sandbox, the checkout is read-only.
    argv = ["--dataset", "simple", "--epochs", "2", "--pts", "6"]
    history = run_tensor.main(argv + ["--plot", str(tmp_path / "tensor.png")])
    captured = capsys.readouterr()
    out = captured.out
    assert "epoch: 100%" in captured.err and "2/2" in captured.err  # the bar
    assert "s per epoch, simple backend" in out
    assert len(history.losses) == 2


# The argument checks are given code: this test belongs to no task.
def test_bad_arguments():
    with pytest.raises(ValueError, match="unknown dataset"):
        train("nope")
    with pytest.raises(ValueError, match="unknown backend"):
        run_tensor.backend_by_name("tpu")
    assert run_tensor.backend_by_name("simple") is kt.SimpleBackend
