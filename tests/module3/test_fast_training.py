"""Task 3.5: mini-batch training on the fast backend.

Speed is measured by ``kindling bench``, never asserted here: these tests check that
training learns, batch by batch, and computes what the simple backend computes.
"""

import numpy as np
import pytest

from module2_tensors import tensor as make_tensor
from module3_fast_ops import FastBackend
from project import run_fast_tensor
from project.run_fast_tensor import train

pytestmark = pytest.mark.task3_5


def test_fast_training_reaches_full_accuracy_on_split():
    history = train("split", backend="fast", epochs=40, seed=0)
    assert history.accuracies[-1] == 1.0
    assert history.losses[-1] < 0.5 * history.losses[0]
    assert len(history.seconds) == 40 and history.seconds_per_epoch > 0
    assert history.model.layer1.weight.value.backend is FastBackend


def test_one_epoch_takes_one_step_per_batch(monkeypatch):
    """50 points in batches of 20: 3 steps (20, 20, 10), every point seen once."""
    seen = []
    original = run_fast_tensor.batch_tensors

    def spy(X, y, idx, backend):
        seen.append(np.array(idx))
        return original(X, y, idx, backend)

    monkeypatch.setattr(run_fast_tensor, "batch_tensors", spy)
    history = train("split", backend="fast", epochs=1, pts=50, batch=20, hidden=5)
    assert [len(idx) for idx in seen] == [20, 20, 10]
    assert sorted(np.concatenate(seen).tolist()) == list(range(50))
    assert 0.0 <= history.accuracies[0] <= 1.0


def test_one_epoch_visits_the_points_in_the_given_order(monkeypatch):
    """The batches are consecutive runs of ``order`` (the epoch's shuffle), not of
    ``range(len(X))``: 7 points in batches of 3, in a shuffled order."""
    seen = []
    original = run_fast_tensor.batch_tensors

    def spy(X, y, idx, backend):
        seen.append(np.array(idx).tolist())
        return original(X, y, idx, backend)

    monkeypatch.setattr(run_fast_tensor, "batch_tensors", spy)
    rng = np.random.default_rng(3)
    X = rng.random((7, 2))
    y = (X[:, 0] < 0.5).astype(float)
    order = np.array([4, 0, 6, 2, 5, 1, 3])
    model = run_fast_tensor.Network(2, FastBackend, seed=0)
    optimizer = run_fast_tensor.SGD(model.parameters(), lr=0.1)
    run_fast_tensor.train_epoch(model, optimizer, X, y, 3, order, FastBackend)
    assert seen == [[4, 0, 6], [2, 5, 1], [3]], (
        f"batches {seen}: each batch must be the next run of `order` (the shuffle), "
        "not the next points of X"
    )


def test_one_epoch_returns_the_mean_batch_loss(monkeypatch):
    """The epoch's loss is the mean of its batches' losses (3 batches of 20, 20
    and 10 points here), each as loss_fn computed it."""
    losses = []
    original = run_fast_tensor.loss_fn

    def spy(z, y):
        loss = original(z, y)
        losses.append(loss.item())
        return loss

    monkeypatch.setattr(run_fast_tensor, "loss_fn", spy)
    history = train("split", backend="fast", epochs=1, pts=50, batch=20, hidden=5)
    assert len(losses) == 3
    assert history.losses[0] == pytest.approx(sum(losses) / 3, rel=1e-12)


def test_training_on_simple_and_fast_agree():
    """Same data, weights and batch order: the backends compute the same numbers."""
    kwargs = dict(epochs=2, pts=12, batch=4, hidden=3, seed=1)
    simple = train("xor", backend="simple", **kwargs)
    fast = train("xor", backend="fast", **kwargs)
    np.testing.assert_allclose(fast.losses, simple.losses, rtol=1e-9)
    assert fast.accuracies == simple.accuracies


def test_command_line_prints_loss_accuracy_and_seconds(capsys, tmp_path):
    argv = ["--backend", "fast", "--epochs", "3", "--pts", "20", "--hidden", "4"]
    # The plot goes to tmp_path: graded in a sandbox, the checkout is read-only.
    run_fast_tensor.main(argv + ["--plot", str(tmp_path / "fast.png")])
    captured = capsys.readouterr()
    out = captured.out
    assert "3/3" in captured.err and "loss" in captured.err  # the bar, on stderr
    assert (
        "accuracy" in captured.err
        and "s per epoch" in out
        and "final training accuracy" in out
    )


def test_one_epoch_steps_from_fresh_gradients():
    """Gradients left by an earlier backward must not leak into a step: each batch
    starts with ``zero_grad``. One batch here, so the epoch is one SGD step,
    compared with a twin model (same seed) and its own backward."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(8, 2))
    y = (X[:, 0] > 0).astype(float)
    order = np.arange(8)
    xb, yb = run_fast_tensor.batch_tensors(X, y, order, FastBackend)
    twin = run_fast_tensor.Network(3, FastBackend, seed=2)
    twin_loss = run_fast_tensor.loss_fn(twin(xb), yb)
    twin_loss.backward()
    expected = {
        name: p.value.to_numpy() - 0.5 * p.value.grad.to_numpy()
        for name, p in twin.named_parameters()
    }
    model = run_fast_tensor.Network(3, FastBackend, seed=2)
    run_fast_tensor.loss_fn(model(xb), yb).backward()  # an earlier batch's gradients
    optimizer = run_fast_tensor.SGD(model.parameters(), lr=0.5)
    loss, _ = run_fast_tensor.train_epoch(model, optimizer, X, y, 8, order, FastBackend)
    assert loss == pytest.approx(twin_loss.item(), rel=1e-12)  # one batch: its loss
    for name, p in model.named_parameters():
        np.testing.assert_allclose(
            p.value.to_numpy(),
            expected[name],
            rtol=1e-12,
            atol=1e-14,
            err_msg=f"{name}: each batch must start from zeroed gradients",
        )


class KeepsGradients(run_fast_tensor.SGD):
    """SGD with ``torch.optim``'s habit: a step changes the values and leaves
    their gradients where they are; only ``zero_grad`` clears them. (Task 1.5's
    ``step`` makes fresh leaves, which hides a missing ``zero_grad`` after the
    first batch; ``train_epoch`` must be right for either optimizer.)"""

    def step(self) -> None:
        kept = [p.value.grad for p in self.parameters]
        super().step()
        for p, grad in zip(self.parameters, kept):
            p.value.grad = grad


def test_one_epoch_of_k_batches_is_k_steps_from_fresh_gradients():
    """An epoch of 3 batches (9 points, a shuffled order) ends where 3 separate
    steps end, each from the gradient of its own batch alone, computed here on
    a twin model (same seed): ``zero_grad`` once per batch, not once per epoch."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(9, 2))
    y = (X[:, 0] * X[:, 1] > 0).astype(float)
    order = rng.permutation(9)
    lr = 0.5
    twin = run_fast_tensor.Network(3, FastBackend, seed=4)
    losses = []
    for start in range(0, 9, 3):
        xb, yb = run_fast_tensor.batch_tensors(
            X, y, order[start : start + 3], FastBackend
        )
        loss = run_fast_tensor.loss_fn(twin(xb), yb)
        loss.backward()
        losses.append(loss.item())
        for p in twin.parameters():
            new = p.value.to_numpy() - lr * p.value.grad.to_numpy()
            p.update(make_tensor(new, backend=FastBackend))  # a fresh leaf
    model = run_fast_tensor.Network(3, FastBackend, seed=4)
    optimizer = KeepsGradients(model.parameters(), lr=lr)
    loss, _ = run_fast_tensor.train_epoch(model, optimizer, X, y, 3, order, FastBackend)
    expected = dict(twin.named_parameters())
    for name, p in model.named_parameters():
        np.testing.assert_allclose(
            p.value.to_numpy(),
            expected[name].value.to_numpy(),
            rtol=1e-12,
            atol=1e-14,
            err_msg=f"{name} after an epoch of 3 batches: each batch's step must "
            "use that batch's gradient alone (zero_grad before every batch's "
            "backward, not once per epoch)",
        )
    assert loss == pytest.approx(
        np.mean(losses), rel=1e-12
    ), "the epoch's loss is the mean of the losses of its batches"


@pytest.mark.parametrize("logit, counted", [(0.5, 1.0), (0.0, 0.0), (-2.0, 0.0)])
def test_one_epoch_counts_a_point_correct_by_the_sign_of_its_logit(logit, counted):
    """``correct`` counts label 1 where $z > 0$ and label 0 elsewhere (a logit of
    exactly 0 predicts 0). Every weight 0 and the last bias ``logit``: every
    point's logit is ``logit`` in the epoch's forward pass."""
    model = run_fast_tensor.Network(2, FastBackend, seed=0)
    for name, p in model.named_parameters():
        fill = logit if name == "layer3.bias" else 0.0
        p.update(make_tensor(np.full(p.value.shape, fill), backend=FastBackend))
    y = np.array([1.0, 0.0, 0.0, 1.0, 1.0])
    X = np.random.default_rng(1).random((len(y), 2))
    optimizer = run_fast_tensor.SGD(model.parameters(), lr=0.1)
    _, correct = run_fast_tensor.train_epoch(
        model, optimizer, X, y, 5, np.arange(5), FastBackend
    )
    assert correct == list(y).count(counted)
