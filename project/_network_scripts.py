"""The data and the command lines of the Module 4 training scripts (given code,
no task edits it): ``run_mnist_multiclass.py`` and ``run_sentiment.py`` re-export
these names, so a student reads the model and the training step there, not the
plumbing.

* MNIST and scikit-learn's digits as arrays (:func:`load_digits_split`,
  :func:`load_mnist_split`) and the CNN's backends (:func:`backend_by_name`);
* SST-2 sentences as word ids (:func:`encode_splits`) in batches of similar
  length (:func:`length_batches`);
* each script's options (:func:`mnist_parser`, :func:`sentiment_parser`).
"""

from __future__ import annotations

import argparse
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from module4_networks import data
from project.script_tools import make_parser, nonnegative_int, positive_float
from project.script_tools import positive_int, probability

Arrays = Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
Split = Tuple[List[List[int]], np.ndarray]  # (rows of word ids, labels)
#: The sentiment models, by name.
MODELS = ("cnn", "lstm", "transformer")


# ------------------------------------------------------------------- MNIST
def load_digits_split(seed: int = 0, test_fraction: float = 0.2) -> Arrays:
    """scikit-learn's 8x8 digits as ``(x_train, y_train, x_test, y_test)``, images
    ``(n, 8, 8)`` scaled to ``[0, 1]``, split at random (seeded)."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    images = digits.images / 16.0
    order = np.random.default_rng(seed).permutation(len(images))
    cut = int(round(len(images) * (1.0 - test_fraction)))
    train, test = order[:cut], order[cut:]
    return images[train], digits.target[train], images[test], digits.target[test]


def load_mnist_split(
    data_dir: Optional[str], cache_dir: Optional[str], split: str = "auto"
) -> Arrays:
    """MNIST as ``(x_train, y_train, x_test, y_test)``, images ``(n, 28, 28)`` in
    ``[0, 1]``.

    ``split="standard"``: 60,000 training images and the 10,000 test images.
    ``split="t10k"``: only the test file, its first 8,000 images to train and its
    last 2,000 to test. ``"auto"`` picks ``standard`` unless ``data_dir`` lacks the
    training files.
    """
    if split == "auto":
        has_train = data_dir is None or data.mnist_available(data_dir, "train")
        split = "standard" if has_train else "t10k"
    test_images, test_labels = data.load_mnist("t10k", data_dir, cache_dir)
    if split == "t10k":
        x, y = test_images / 255.0, test_labels.astype(np.int64)
        cut = len(x) * 4 // 5  # 8,000 of 10,000
        return x[:cut], y[:cut], x[cut:], y[cut:]
    train_images, train_labels = data.load_mnist("train", data_dir, cache_dir)
    return (
        train_images / 255.0,
        train_labels.astype(np.int64),
        test_images / 255.0,
        test_labels.astype(np.int64),
    )


def backend_by_name(name: str) -> Any:
    """``fast`` (Numba, CPU) or ``cuda`` (Numba, GPU)."""
    if name == "fast":
        from module3_fast_ops import FastBackend

        return FastBackend
    if name == "cuda":
        from module3_fast_ops import CudaBackend

        return CudaBackend
    raise ValueError(f"unknown backend {name!r}; choose fast or cuda")


def mnist_parser(doc: Optional[str]) -> argparse.ArgumentParser:
    """The options of ``run_mnist_multiclass.py``."""
    parser = make_parser(doc)
    parser.add_argument(
        "--dataset", choices=["digits", "mnist"], default="digits", help="the images"
    )
    parser.add_argument("--data-dir", help="read MNIST's IDX files from here")
    parser.add_argument("--cache-dir", help="download MNIST here (default ~/.cache)")
    parser.add_argument(
        "--split",
        choices=["auto", "standard", "t10k"],
        default="auto",
        help="t10k: train on the first 8,000 test images, test on the last 2,000",
    )
    parser.add_argument(
        "--epochs",
        type=nonnegative_int,
        default=None,
        help="training epochs (default: 10 for digits, 4 for mnist; 0: only "
        "evaluate the untrained network)",
    )
    parser.add_argument("--batch-size", type=positive_int, default=32, help="batch")
    parser.add_argument(
        "--lr", type=positive_float, default=2e-3, help="Adam's learning rate"
    )
    parser.add_argument(
        "--channels",
        type=positive_int,
        nargs=2,
        default=[8, 16],
        metavar=("C1", "C2"),
        help="channels of the two convolutions",
    )
    parser.add_argument(
        "--hidden", type=positive_int, default=64, help="units of the hidden layer"
    )
    parser.add_argument(
        "--dropout", type=probability, default=0.25, help="dropout probability"
    )
    parser.add_argument(
        "--train-size",
        type=positive_int,
        default=None,
        help="train on the first N training images only (default: all)",
    )
    parser.add_argument(
        "--seed", type=nonnegative_int, default=0, help="seed of weights and batches"
    )
    parser.add_argument(
        "--backend",
        choices=["fast", "cuda"],
        default="fast",
        help="fast: Numba on the CPU; cuda: the GPU (Numba's simulator without one: "
        "correct, very slow)",
    )
    parser.add_argument(
        "--plot",
        default=None,
        help="PNG for the curves (default: runs/mnist_multiclass_DATASET.png; '' "
        "for none)",
    )
    return parser


# ---------------------------------------------------------------- SST-2
def encode_splits(
    splits: Dict[str, Tuple[List[str], np.ndarray]], min_freq: int = 1
) -> Tuple[data.Vocabulary, Dict[str, Split]]:
    """Tokenise every split; build the vocabulary from ``train`` only."""
    tokens = {
        name: [data.tokenize(s) for s in sents] for name, (sents, _) in splits.items()
    }
    vocab = data.Vocabulary.build(tokens["train"], min_freq=min_freq)
    encoded = {
        name: ([vocab.encode(t) for t in tokens[name]], labels)
        for name, (_, labels) in splits.items()
    }
    return vocab, encoded


def length_batches(
    rows: Sequence[Sequence[int]],
    batch_size: int,
    rng: Optional[np.random.Generator] = None,
) -> List[np.ndarray]:
    """Index batches of sentences of similar length (less padding to compute on).

    With ``rng``: shuffle, sort within pools of 50 batches by length, cut into
    batches and shuffle the batches, so each epoch sees new batches.
    """
    order = rng.permutation(len(rows)) if rng is not None else np.arange(len(rows))
    pool = 50 * batch_size
    batches = []
    for start in range(0, len(order), pool):
        chunk = sorted(order[start : start + pool], key=lambda i: len(rows[i]))
        batches += [
            np.array(chunk[i : i + batch_size])
            for i in range(0, len(chunk), batch_size)
        ]
    if rng is not None:
        batches = [batches[i] for i in rng.permutation(len(batches))]
    return batches


def sentiment_parser(doc: Optional[str]) -> argparse.ArgumentParser:
    """The options of ``run_sentiment.py``."""
    parser = make_parser(doc)
    parser.add_argument("--data-dir", help="read train.tsv/test.tsv(/dev.tsv) here")
    parser.add_argument("--cache-dir", help="download SST-2 here (default ~/.cache)")
    parser.add_argument("--embeddings", help="GloVe-style word vectors (text file)")
    parser.add_argument(
        "--model", choices=MODELS, default="cnn", help="the network to train"
    )
    parser.add_argument(
        "--epochs",
        type=nonnegative_int,
        default=3,
        help="training epochs (0: only evaluate the untrained network)",
    )
    parser.add_argument("--batch-size", type=positive_int, default=128, help="batch")
    parser.add_argument(
        "--lr", type=positive_float, default=2e-3, help="Adam's learning rate"
    )
    parser.add_argument(
        "--embedding-dim",
        type=positive_int,
        default=48,
        help="size of a word vector (without --embeddings)",
    )
    parser.add_argument(
        "--filters", type=positive_int, default=32, help="filters per width (cnn)"
    )
    parser.add_argument(
        "--hidden", type=positive_int, default=48, help="LSTM units per direction"
    )
    parser.add_argument(
        "--widths",
        type=positive_int,
        nargs="+",
        default=[3, 4, 5],
        help="filter widths (words)",
    )
    parser.add_argument(
        "--dropout", type=probability, default=0.5, help="dropout probability"
    )
    parser.add_argument(
        "--min-freq",
        type=positive_int,
        default=1,
        help="words seen fewer times in training become <unk>",
    )
    parser.add_argument(
        "--train-size",
        type=positive_int,
        default=None,
        help="train on the first N sentences only (default: all)",
    )
    parser.add_argument(
        "--seed", type=nonnegative_int, default=0, help="seed of weights and batches"
    )
    parser.add_argument(
        "--plot",
        default="runs/sentiment.png",
        help="PNG for the loss/accuracy curves ('' for none)",
    )
    return parser
