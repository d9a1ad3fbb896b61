"""Task 4.5: the training scripts, on tiny data the tests make themselves.

These run Numba's fast backend, as the scripts do, on a few hundred 8x8 digits and
a made-up sentiment task, so they check that the pieces learn together; the real
accuracy runs (MNIST, SST-2) are documented in module4_networks/README.md.
"""

from __future__ import annotations


import numpy as np
import pytest

from module2_tensors import manual_seed, tensor
from module3_fast_ops.fast_ops import FastBackend
from module4_networks import optim
from module4_networks.nn import functional as F
from project import run_mnist_multiclass as mnist
from project import run_sentiment as sentiment
from tests.module4.reference import conv1d_ref, conv2d_ref

pytestmark = pytest.mark.task4_5


# ------------------------------------------------------------------- digits
def test_the_cnn_maps_images_to_log_probabilities():
    manual_seed(0)
    for size in (8, 28):
        model = mnist.Network(size, channels=(2, 3), hidden=8)
        x = tensor(
            np.random.default_rng(0).normal(size=(3, 1, size, size)), FastBackend
        )
        out = model(x).to_numpy()
        assert out.shape == (3, 10)
        np.testing.assert_allclose(np.exp(out).sum(axis=1), 1.0)
    names = [name for name, _ in model.named_parameters()]
    assert names[:2] == ["conv1.weight", "conv1.bias"] and names[-1] == "fc2.bias"


def _log_softmax_ref(z: np.ndarray) -> np.ndarray:
    shifted = z - z.max(axis=1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


def test_the_cnn_forward_matches_numpy():
    """The layers in the module docstring's order, written out in NumPy:
    conv-relu-conv-relu-pool-flatten-fc1-relu-fc2-log_softmax (dropout is the
    identity in evaluation). Random weights, so every ReLU clips something."""
    manual_seed(0)
    model = mnist.Network(6, channels=(2, 3), hidden=5).eval()
    rng = np.random.default_rng(3)
    for _, p in model.named_parameters():
        p.update(tensor(rng.uniform(-0.8, 0.8, p.value.shape), backend=FastBackend))
    w = {name: p.value.to_numpy() for name, p in model.named_parameters()}
    x = rng.normal(size=(2, 1, 6, 6))
    got = model(tensor(x, backend=FastBackend)).to_numpy()

    def conv(h, name):
        out = conv2d_ref(h, w[name + ".weight"], padding=(1, 1))
        return out + w[name + ".bias"][None, :, None, None]

    h = np.maximum(conv(x, "conv1"), 0.0)
    h = np.maximum(conv(h, "conv2"), 0.0)
    h = h.reshape(2, 3, 3, 2, 3, 2).max(axis=(3, 5)).reshape(2, -1)
    h = np.maximum(h @ w["fc1.weight"].T + w["fc1.bias"], 0.0)
    want = _log_softmax_ref(h @ w["fc2.weight"].T + w["fc2.bias"])
    np.testing.assert_allclose(
        got,
        want,
        rtol=1e-9,
        atol=1e-12,
        err_msg="Network.forward must be conv1-relu-conv2-relu-max_pool(2)-flatten-"
        "fc1-relu-dropout-fc2-log_softmax over the classes (dim 1)",
    )


def test_train_step_fits_a_small_batch():
    manual_seed(1)
    x_train, y_train, _, _ = mnist.load_digits_split(seed=0)
    x_train = (x_train - x_train.mean()) / x_train.std()
    model = mnist.Network(8, channels=(4, 8), hidden=32, dropout=0.0)
    opt = optim.Adam(model.parameters(), lr=1e-2)
    x = tensor(x_train[:32, None], backend=FastBackend)
    losses = [mnist.train_step(model, opt, x, y_train[:32]) for _ in range(20)]
    # It starts near ln(10) = 2.3 (guessing) and memorises the 32 images.
    assert 2.0 < losses[0] < 2.6 and losses[-1] < 0.2


def test_training_on_digits_generalises():
    history = mnist.train(
        "digits",
        epochs=3,
        batch_size=32,
        lr=3e-3,
        train_size=600,
        log=lambda s: None,
        show_progress=False,
    )
    assert len(history.rows) == 3
    assert history.column("train_loss")[-1] < history.column("train_loss")[0]
    assert history.last("test_acc") >= 0.85  # 600 training images, 360 test images


def test_the_command_line_writes_the_curves(tmp_path, capsys):
    plot = tmp_path / "curves.png"
    argv = ["--epochs", "1", "--train-size", "64", "--channels", "2", "2", "--hidden"]
    assert mnist.main(argv + ["8", "--plot", str(plot)]) == 0
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "final test accuracy" in capsys.readouterr().out


# ---------------------------------------------------------------- sentiment
def write_toy_sst(directory) -> None:
    """A sentiment task a word detector solves: 'good'/'great' vs 'bad'/'awful',
    among neutral filler words, in sentences of 2 to 8 words."""
    rng = np.random.default_rng(0)
    filler = "the film was a story with some actors and music".split()
    for name, n in (("train", 240), ("test", 60)):
        lines = ["sentence\tlabel"]
        for _ in range(n):
            label = int(rng.integers(0, 2))
            words = list(rng.choice(filler, size=int(rng.integers(1, 8))))
            cue = ["bad", "awful"][rng.integers(0, 2)]
            if label:
                cue = ["good", "great"][rng.integers(0, 2)]
            words.insert(int(rng.integers(0, len(words) + 1)), cue)
            lines.append(" ".join(words) + " \t" + str(label))
        (directory / f"{name}.tsv").write_text("\n".join(lines) + "\n")


def train_toy_sst(tmp_path, **options):
    """``run_sentiment.train`` on the toy SST files of :func:`write_toy_sst`, four
    quiet epochs of batches of 16 with 8-dimensional word vectors and ``options``."""
    write_toy_sst(tmp_path)
    settings = dict(epochs=4, batch_size=16, embedding_dim=8)
    settings.update(options)
    return sentiment.train(
        data_dir=str(tmp_path), log=lambda s: None, show_progress=False, **settings
    )


def test_sentiment_cnn_shapes():
    manual_seed(0)
    model = sentiment.SentimentCNN(20, embedding_dim=6, filters=4, widths=(2, 3))
    logits = model(np.array([[2, 3, 4, 0], [5, 6, 0, 0]]))
    assert logits.shape == (2, 2)
    names = [name for name, _ in model.named_parameters()]
    assert names == [
        "embedding.weight",
        "convs.0.weight",
        "convs.0.bias",
        "convs.1.weight",
        "convs.1.bias",
        "fc.weight",
        "fc.bias",
    ]


def test_sentiment_cnn_forward_matches_numpy():
    """Evaluation: embed, conv1d-relu-max over time per width, concatenate, fc,
    written out in NumPy. Training with dropout p = 1 zeroes the concatenated
    features, so the logits are fc's bias alone: the dropout sits right before fc.
    """
    manual_seed(0)
    model = sentiment.SentimentCNN(
        12, embedding_dim=3, filters=2, widths=(2, 3), dropout=1.0
    )
    rng = np.random.default_rng(4)
    for _, p in model.named_parameters():
        p.update(tensor(rng.uniform(-1.0, 1.0, p.value.shape), backend=FastBackend))
    w = {name: p.value.to_numpy() for name, p in model.named_parameters()}
    ids = np.array([[2, 3, 4, 0, 7], [5, 11, 6, 1, 0]])
    x = w["embedding.weight"][ids].transpose(0, 2, 1)  # (batch, dim, length)
    pooled = []
    for k in range(2):
        out = conv1d_ref(x, w[f"convs.{k}.weight"])
        out = out + w[f"convs.{k}.bias"][None, :, None]
        pooled.append(np.maximum(out, 0.0).max(axis=2))
    want = np.concatenate(pooled, axis=1) @ w["fc.weight"].T + w["fc.bias"]
    got = model.eval()(ids).to_numpy()
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
    dropped = model.train()(ids).to_numpy()
    np.testing.assert_allclose(
        dropped,
        np.broadcast_to(w["fc.bias"], (2, 2)),
        atol=1e-12,
        err_msg="in training, dropout(p) must apply to the concatenated features "
        "just before fc: with p = 1 the logits are fc's bias alone",
    )


def test_sentiment_training_learns_the_cue_words(tmp_path):
    history = train_toy_sst(tmp_path, lr=1e-2, filters=4)
    assert history.last("test_acc") >= 0.9
    assert "dev_acc" not in history.rows[-1]


def test_sentiment_training_can_start_from_pretrained_vectors(tmp_path):
    write_toy_sst(tmp_path)
    glove = tmp_path / "vectors.txt"
    glove.write_text("good 1 0 0 0\ngreat 1 0 0 0\nbad -1 0 0 0\nawful -1 0 0 0\n")
    messages = []
    history = sentiment.train(
        data_dir=str(tmp_path),
        epochs=3,
        batch_size=16,
        lr=1e-2,
        filters=4,
        embeddings=str(glove),
        log=messages.append,
        show_progress=False,
    )
    assert any("4 of" in m and "vectors.txt" in m for m in messages)
    assert history.last("test_acc") >= 0.9


def test_sentiment_train_step_starts_from_fresh_gradients():
    """One step is one SGD update along this batch's gradient alone: gradients
    left over from an earlier backward are cleared (``zero_grad``), not added to.
    The expected update comes from a twin model (same seed, so the same weights
    and dropout masks) and its own backward."""
    ids, labels = np.array([[2, 3, 4, 0], [5, 6, 7, 1]]), np.array([1, 0])

    def seeded_model():
        manual_seed(0)
        return sentiment.SentimentCNN(20, embedding_dim=6, filters=4, widths=(2, 3))

    twin = seeded_model()
    F.cross_entropy(twin(ids), labels).backward()
    expected = [p.to_numpy() - 0.1 * p.grad.to_numpy() for p in twin.parameters()]
    model = seeded_model()
    for p in model.parameters():  # an earlier batch's gradients
        p.grad = tensor(np.full(p.shape, 5.0), backend=p.backend)
    sentiment.train_step(model, optim.SGD(model.parameters(), lr=0.1), ids, labels)
    for (name, p), want in zip(model.named_parameters(), expected):
        np.testing.assert_allclose(
            p.to_numpy(),
            want,
            rtol=1e-9,
            atol=1e-12,
            err_msg=f"{name}: train_step must clear the old gradients first",
        )
