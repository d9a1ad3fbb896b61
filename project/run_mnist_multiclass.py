"""Train a small convolutional network on handwritten digits (Task 4.5).

    python project/run_mnist_multiclass.py                      # 8x8 digits, offline
    python project/run_mnist_multiclass.py --dataset mnist      # downloads MNIST
    python project/run_mnist_multiclass.py --dataset mnist --data-dir DIR
    python project/run_mnist_multiclass.py --backend cuda       # on the GPU

The network (PyTorch layers from ``module4_networks.nn``, tensors on Numba's
``FastBackend``)::

    conv 3x3 (1 -> c1) - relu - conv 3x3 (c1 -> c2) - relu - max pool 2x2
    - flatten - linear (-> hidden) - relu - dropout - linear (-> 10) - log_softmax

trained with Adam on the negative log-likelihood, in minibatches. Each epoch shows
a progress bar, then the training loss and the accuracy on the held-out test images;
at the end the loss and accuracy curves are saved as a PNG (``--plot``).
``--epochs 0`` only evaluates the untrained network.

Data:

* ``--dataset digits`` (default): scikit-learn's bundled 1,797 8x8 digits, 80% to
  train and 20% to test. Needs no network.
* ``--dataset mnist``: the 28x28 MNIST digits. With ``--data-dir DIR`` the IDX
  files (``.gz`` or not) are read from DIR; otherwise they are downloaded into
  ``--cache-dir`` with their checksums. When DIR holds only the 10,000 test images
  (``t10k-*``), the first 8,000 train and the last 2,000 test.

From Python (tests, the dashboard)::

    from project.run_mnist_multiclass import train
    history = train("digits", epochs=2)
    history.last("test_acc")
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any, Callable, Optional, Tuple

import numpy as np

if __package__ in (None, ""):  # run as a script: make the library importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# Without a GPU, --backend cuda runs in Numba's CUDA simulator; that must be decided
# before Numba is imported.
from kindling.cudasim import configure_cuda_simulator  # noqa: E402

configure_cuda_simulator()

from module2_tensors import manual_seed, no_grad, tensor  # noqa: E402
from module3_fast_ops.fast_ops import FastBackend  # noqa: E402
from module4_networks import nn, optim  # noqa: E402
from module4_networks.nn import functional as F  # noqa: E402
from module4_networks.training import History, minibatches  # noqa: E402
from project._network_scripts import backend_by_name  # noqa: E402
from project._network_scripts import load_digits_split  # noqa: E402
from project._network_scripts import load_mnist_split, mnist_parser  # noqa: E402
from project.script_tools import percent, progress_bar, save_curves  # noqa: E402
from project.script_tools import simulator_epochs  # noqa: E402


# -------------------------------------------------------------------- model
class Network(nn.Module):
    """The CNN of the module docstring for ``size x size`` one-channel images.

    Convolutions use padding 1, so the image keeps its size until the pooling
    halves it: the first linear layer sees ``c2 * (size // 2) ** 2`` numbers.
    """

    def __init__(
        self,
        size: int,
        channels: Tuple[int, int] = (8, 16),
        hidden: int = 64,
        dropout: float = 0.25,
        classes: int = 10,
        backend: Any = FastBackend,
    ) -> None:
        super().__init__()
        c1, c2 = channels
        # BEGIN SOLUTION 4.5: conv1, conv2, fc1, dropout, fc2 (pass backend=backend)
        self.conv1 = nn.Conv2d(1, c1, 3, padding=1, backend=backend)
        self.conv2 = nn.Conv2d(c1, c2, 3, padding=1, backend=backend)
        self.fc1 = nn.Linear(c2 * (size // 2) ** 2, hidden, backend=backend)
        self.dropout = nn.Dropout(dropout)
        self.fc2 = nn.Linear(hidden, classes, backend=backend)
        # END SOLUTION

    def forward(self, x: Any) -> Any:
        """``(batch, 1, size, size)`` images to ``(batch, classes)`` log-probs."""
        # BEGIN SOLUTION 4.5: conv relu conv relu pool flatten fc1 relu dropout fc2
        h = self.conv1(x).relu()
        h = self.conv2(h).relu()
        h = F.max_pool2d(h, 2).flatten(1)
        h = self.dropout(self.fc1(h).relu())
        return F.log_softmax(self.fc2(h), dim=1)
        # END SOLUTION


def train_step(model: nn.Module, optimizer: optim.Optimizer, x: Any, y: Any) -> float:
    """One step of minibatch training; returns the batch's loss as a float.

    ``x``: a ``(batch, 1, size, size)`` tensor; ``y``: the ``batch`` class indices.
    """
    # BEGIN SOLUTION 4.5: zero_grad, forward, nll_loss, backward, step
    optimizer.zero_grad()
    loss = F.nll_loss(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
    # END SOLUTION


def evaluate(
    model: nn.Module, images: np.ndarray, labels: np.ndarray, backend: Any, batch: int
) -> Tuple[float, float]:
    """Mean loss and accuracy of ``model`` (in eval mode, without gradients)."""
    model.eval()
    total_loss, correct = 0.0, 0
    with no_grad():
        for index in minibatches(len(images), batch):
            x = tensor(images[index][:, None], backend=backend)
            out = model(x)
            total_loss += F.nll_loss(out, labels[index], reduction="sum").item()
            correct += int((F.argmax(out, dim=1).to_numpy() == labels[index]).sum())
    model.train()
    return total_loss / len(images), correct / len(images)


def train(
    dataset: str = "digits",
    epochs: int = 10,
    batch_size: int = 32,
    lr: float = 2e-3,
    channels: Tuple[int, int] = (8, 16),
    hidden: int = 64,
    dropout: float = 0.25,
    seed: int = 0,
    data_dir: Optional[str] = None,
    cache_dir: Optional[str] = None,
    split: str = "auto",
    train_size: Optional[int] = None,
    backend: Any = FastBackend,
    log: Callable[[str], None] = print,
    show_progress: bool = True,
) -> History:
    """Train the CNN; return its :class:`History` (loss and accuracy per epoch).

    ``epochs=0`` trains nothing: the history holds one row, ``epoch`` 0, with the
    untrained network's test loss and accuracy.
    """
    if epochs < 0 or batch_size < 1:
        raise ValueError(
            f"need epochs >= 0 and batch_size >= 1, got {epochs} and {batch_size}"
        )
    if dataset == "digits":
        x_train, y_train, x_test, y_test = load_digits_split(seed)
    elif dataset == "mnist":
        x_train, y_train, x_test, y_test = load_mnist_split(data_dir, cache_dir, split)
    else:
        raise ValueError(f"unknown dataset {dataset!r}; use 'digits' or 'mnist'")
    if train_size is not None:
        x_train, y_train = x_train[:train_size], y_train[:train_size]
    # Standardise with the training set's statistics (a gentler start for Adam).
    mean, std = x_train.mean(), x_train.std()
    x_train, x_test = (x_train - mean) / std, (x_test - mean) / std
    log(
        f"{dataset}: {len(x_train)} training and {len(x_test)} test images of "
        f"{x_train.shape[1]}x{x_train.shape[2]}"
    )

    manual_seed(seed)
    rng = np.random.default_rng(seed)
    model = Network(x_train.shape[1], channels, hidden, dropout, backend=backend)
    optimizer = optim.Adam(model.parameters(), lr=lr)
    history = History()
    if epochs == 0:
        test_loss, test_acc = evaluate(model, x_test, y_test, backend, 256)
        history.add(epoch=0, test_loss=test_loss, test_acc=test_acc)
        log(history.format_last())
    for epoch in range(1, epochs + 1):
        start = time.time()
        batches = minibatches(len(x_train), batch_size, rng)
        bar = progress_bar(batches, desc=f"epoch {epoch}/{epochs}, batch")
        losses = []
        for index in bar if show_progress else batches:
            x = tensor(x_train[index][:, None], backend=backend)
            losses.append(train_step(model, optimizer, x, y_train[index]))
            bar.set_postfix_str(f"loss {np.mean(losses[-20:]):.3f}")
        # The training loss is the mean over the epoch's minibatches (with dropout
        # on); a second pass over the training set would cost as much again.
        test_loss, test_acc = evaluate(model, x_test, y_test, backend, 256)
        history.add(
            epoch=epoch,
            train_loss=float(np.mean(losses)),
            test_loss=test_loss,
            test_acc=test_acc,
            seconds=time.time() - start,
        )
        log(history.format_last())
    return history


def main(argv: Optional[list] = None) -> int:
    parser = mnist_parser(__doc__)
    args = parser.parse_args(argv)
    epochs = simulator_epochs(
        args.backend,
        (
            args.epochs
            if args.epochs is not None
            else (10 if args.dataset == "digits" else 4)
        ),
        argv,
    )
    start = time.time()
    history = train(
        args.dataset,
        epochs,
        args.batch_size,
        args.lr,
        tuple(args.channels),
        args.hidden,
        args.dropout,
        args.seed,
        args.data_dir,
        args.cache_dir,
        args.split,
        args.train_size,
        backend=backend_by_name(args.backend),
    )
    accuracy = percent(history.last("test_acc"))
    if epochs == 0:
        print(f"no training: test accuracy of the untrained network {accuracy}")
        return 0
    plot = args.plot
    if plot is None:
        plot = f"runs/mnist_multiclass_{args.dataset}.png"
    curves = {
        name: history.column(name) for name in ("train_loss", "test_loss", "test_acc")
    }
    saved = save_curves(curves, plot, f"CNN on {args.dataset}") if plot else None
    print(
        f"final test accuracy {history.last('test_acc'):.4f} ({accuracy} of the "
        f"held-out test images) after {epochs} epochs in {time.time() - start:.0f}s"
        + (f"; curves in {saved}" if saved else "")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
