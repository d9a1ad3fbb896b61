"""Train a sentiment classifier on movie reviews, SST-2 (Tasks 4.5, 4.7, 4.8).

    python project/run_sentiment.py                   # downloads GLUE's SST-2
    python project/run_sentiment.py --data-dir DIR    # train.tsv, test.tsv (dev.tsv)
    python project/run_sentiment.py --embeddings glove.6B.50d.txt
    python project/run_sentiment.py --model lstm      # or --model transformer

Three models (``--model``): Kim's CNN (the default, Task 4.5), a bidirectional LSTM
(Task 4.7) and a Transformer encoder (Task 4.8). The LSTM reads the sentence both
ways; the mean of its outputs over the real words (not the padding) goes to a
linear layer. The Transformer adds sinusoidal positions to the word vectors, runs
pre-norm blocks whose attention ignores the padding, and classifies the mean over
the real words (``transformer.TransformerClassifier``).

The model is Kim's (2014) CNN for sentence classification::

    word ids (batch, length)
    -> embedding (batch, length, dim) -> permute (batch, dim, length)
    -> for each width k in 3, 4, 5: conv1d (dim -> filters, k) - relu
       - max over time (batch, filters)
    -> concatenate (batch, 3 * filters) - dropout - linear (-> 2 logits)

A filter of width $k$ is a detector of $k$-grams (``"not at all good"``); taking its
maximum over the sentence asks "does this phrase occur anywhere?", whatever the
sentence's length. It is trained with Adam on the cross-entropy; each epoch shows a
progress bar, then the loss and the accuracy on the held-out sentences, and the
curves are saved as a PNG (``--plot``). ``--epochs 0`` only evaluates the untrained
network.

Data: GLUE-style TSV files (``sentence<TAB>label``, 1 = positive). With
``--data-dir DIR``: ``DIR/train.tsv``, ``DIR/test.tsv`` and, when present,
``DIR/dev.tsv``. Without it, GLUE's ``SST-2.zip`` is downloaded (checksummed) into
``--cache-dir`` and its labelled dev set (872 sentences) is the test set. Words
are lower-cased tokens; the vocabulary comes from the training sentences only.
Embeddings are learned from scratch, or start from a GloVe-style text file
(``--embeddings FILE``; one word and its numbers per line).

From Python::

    from project.run_sentiment import train
    history = train(data_dir="...", epochs=1)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, Optional, Sequence, Tuple

import numpy as np

if __package__ in (None, ""):  # run as a script: make the library importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from module2_tensors import cat  # noqa: E402, F401 (Task 4.5 concatenates)
from module2_tensors import manual_seed, no_grad, tensor  # noqa: E402
from module3_fast_ops.fast_ops import FastBackend  # noqa: E402
from module4_networks import data, nn, optim  # noqa: E402
from module4_networks.nn import functional as F  # noqa: E402
from module4_networks.training import History  # noqa: E402
from module4_networks.transformer import TransformerClassifier  # noqa: E402
from project._network_scripts import MODELS, Split, encode_splits  # noqa: E402
from project._network_scripts import length_batches, sentiment_parser  # noqa: E402
from project.script_tools import percent, progress_bar, save_curves  # noqa: E402


# -------------------------------------------------------------------- model
class SentimentCNN(nn.Module):
    """Kim's CNN of the module docstring; ``forward`` returns ``(batch, classes)``
    logits for a ``(batch, length)`` array of word ids (0 = padding)."""

    def __init__(
        self,
        vocab_size: int,
        embedding_dim: int = 48,
        filters: int = 32,
        widths: Sequence[int] = (3, 4, 5),
        dropout: float = 0.5,
        classes: int = 2,
        pretrained: Optional[np.ndarray] = None,
        backend: Any = FastBackend,
    ) -> None:
        super().__init__()
        self.widths = tuple(widths)
        self.embedding = _embedding(vocab_size, embedding_dim, pretrained, backend)
        embedding_dim = self.embedding.embedding_dim
        # BEGIN SOLUTION 4.5: one Conv1d per width (an nn.ModuleList), dropout, fc
        self.convs = nn.ModuleList(
            [nn.Conv1d(embedding_dim, filters, k, backend=backend) for k in widths]
        )
        self.dropout = nn.Dropout(dropout)
        self.fc = nn.Linear(filters * len(self.widths), classes, backend=backend)
        # END SOLUTION

    def forward(self, ids: np.ndarray) -> Any:
        """``ids`` ``(batch, length)`` with ``length >= max(widths)``."""
        # BEGIN SOLUTION 4.5: embed, permute, conv-relu-max over time per width, cat
        x = self.embedding(ids).permute(0, 2, 1)  # (batch, dim, length)
        pooled = [F.max(conv(x).relu(), dim=2).values for conv in self.convs]
        return self.fc(self.dropout(cat(pooled, dim=1)))
        # END SOLUTION


class SentimentLSTM(nn.Module):
    """Embedding, a bidirectional LSTM (batch first), the mean of its outputs over
    the real words, dropout and a linear layer: ``(batch, length)`` ids ->
    ``(batch, classes)`` logits."""

    def __init__(
        self,
        vocab_size: int,
        embedding_dim: int = 48,
        hidden: int = 48,
        dropout: float = 0.5,
        classes: int = 2,
        pretrained: Optional[np.ndarray] = None,
        backend: Any = FastBackend,
    ) -> None:
        super().__init__()
        self.embedding = _embedding(vocab_size, embedding_dim, pretrained, backend)
        width = self.embedding.embedding_dim
        self.lstm = nn.LSTM(
            width, hidden, batch_first=True, bidirectional=True, backend=backend
        )
        self.dropout = nn.Dropout(dropout)
        self.fc = nn.Linear(2 * hidden, classes, backend=backend)

    def forward(self, ids: np.ndarray) -> Any:
        out, _ = self.lstm(self.dropout(self.embedding(ids)))  # (batch, length, 2h)
        real = tensor((ids != 0).astype(np.float64), backend=out.backend)
        n, length = ids.shape
        pooled = (out * real.view(n, length, 1)).sum(1) / real.sum(1, keepdim=True)
        return self.fc(self.dropout(pooled))


class SentimentTransformer(nn.Module):
    """``transformer.TransformerClassifier`` on ``(batch, length)`` ids (0 =
    padding, ignored by attention and by the mean)."""

    def __init__(
        self,
        vocab_size: int,
        embedding_dim: int = 48,
        heads: int = 4,
        layers: int = 2,
        dropout: float = 0.1,
        classes: int = 2,
        backend: Any = FastBackend,
    ) -> None:
        super().__init__()
        self.classifier = TransformerClassifier(
            vocab_size,
            classes,
            d_model=embedding_dim,
            nhead=heads,
            num_layers=layers,
            max_len=512,
            dropout=dropout,
            backend=backend,
        )

    def forward(self, ids: np.ndarray) -> Any:
        return self.classifier(ids, (ids != 0).sum(axis=1))


def _embedding(
    vocab_size: int, dim: int, pretrained: Optional[np.ndarray], backend: Any
) -> nn.Embedding:
    if pretrained is not None:
        return nn.Embedding.from_pretrained(
            pretrained, freeze=False, padding_idx=0, backend=backend
        )
    return nn.Embedding(vocab_size, dim, padding_idx=0, backend=backend)


def train_step(
    model: nn.Module, optimizer: optim.Optimizer, ids: np.ndarray, labels: np.ndarray
) -> float:
    """One step of minibatch training on cross-entropy; returns the loss."""
    # BEGIN SOLUTION 4.5: zero_grad, forward, cross_entropy, backward, step
    optimizer.zero_grad()
    loss = F.cross_entropy(model(ids), labels)
    loss.backward()
    optimizer.step()
    return loss.item()
    # END SOLUTION


def evaluate(
    model: nn.Module, split: Split, vocab: data.Vocabulary, min_length: int
) -> Tuple[float, float]:
    """Mean loss and accuracy (eval mode, no gradients)."""
    rows, labels = split
    model.eval()
    total, correct = 0.0, 0
    with no_grad():
        for index in length_batches(rows, 256):
            ids = vocab.pad([rows[i] for i in index], min_length=min_length)
            logits = model(ids)
            total += F.cross_entropy(logits, labels[index], reduction="sum").item()
            correct += int((F.argmax(logits, 1).to_numpy() == labels[index]).sum())
    model.train()
    return total / len(rows), correct / len(rows)


def train(
    data_dir: Optional[str] = None,
    cache_dir: Optional[str] = None,
    epochs: int = 3,
    batch_size: int = 128,
    lr: float = 2e-3,
    embedding_dim: int = 48,
    filters: int = 32,
    widths: Sequence[int] = (3, 4, 5),
    dropout: float = 0.5,
    min_freq: int = 1,
    embeddings: Optional[str] = None,
    train_size: Optional[int] = None,
    seed: int = 0,
    backend: Any = FastBackend,
    log: Callable[[str], None] = print,
    show_progress: bool = True,
    model_name: str = "cnn",
    hidden: int = 48,
) -> History:
    """Train a sentiment model (``model_name``: cnn, lstm or transformer); return its
    :class:`History`.

    ``epochs=0`` trains nothing: the history holds one row, ``epoch`` 0, with the
    untrained network's loss and accuracy on the held-out splits.
    """
    if epochs < 0 or batch_size < 1:
        raise ValueError(
            f"need epochs >= 0 and batch_size >= 1, got {epochs} and {batch_size}"
        )
    splits = data.load_sst2(data_dir, cache_dir)
    if train_size is not None:
        sentences, labels = splits["train"]
        splits["train"] = (sentences[:train_size], labels[:train_size])
    vocab, encoded = encode_splits(splits, min_freq)
    log(
        f"SST-2: {', '.join(f'{k} {len(v[0])}' for k, v in encoded.items())}; "
        f"vocabulary of {len(vocab)} words"
    )
    pretrained = None
    if embeddings is not None:
        pretrained, found = data.read_embeddings(embeddings, vocab, seed)
        log(f"{found} of {len(vocab)} words found in {embeddings}")

    manual_seed(seed)
    rng = np.random.default_rng(seed)
    if model_name == "cnn":
        model = SentimentCNN(
            len(vocab), embedding_dim, filters, widths, dropout, 2, pretrained, backend
        )
    elif model_name == "lstm":
        model = SentimentLSTM(
            len(vocab), embedding_dim, hidden, dropout, 2, pretrained, backend
        )
    elif model_name == "transformer":
        if pretrained is not None:
            raise ValueError("--embeddings is for the cnn and lstm models")
        model = SentimentTransformer(
            len(vocab), embedding_dim, dropout=dropout, backend=backend
        )
    else:
        raise ValueError(
            f"model should be one of {', '.join(MODELS)}, not {model_name!r}"
        )
    optimizer = optim.Adam(model.parameters(), lr=lr)
    min_length = max(widths)
    rows, labels = encoded["train"]
    history = History()
    for epoch in range(0 if epochs == 0 else 1, epochs + 1):
        start = time.time()
        batches = length_batches(rows, batch_size, rng) if epoch else []
        bar = progress_bar(batches, desc=f"epoch {epoch}/{epochs}, batch")
        losses = []
        for index in bar if show_progress and epoch else batches:
            ids = vocab.pad([rows[i] for i in index], min_length=min_length)
            losses.append(train_step(model, optimizer, ids, labels[index]))
            bar.set_postfix_str(f"loss {np.mean(losses[-50:]):.3f}")
        metrics: Dict[str, float] = {"epoch": epoch}
        if losses:  # epoch 0 (evaluation only) has no training loss
            metrics["train_loss"] = float(np.mean(losses))
        for name in ("dev", "test"):
            if name in encoded:
                loss, acc = evaluate(model, encoded[name], vocab, min_length)
                metrics[f"{name}_loss"], metrics[f"{name}_acc"] = loss, acc
        metrics["seconds"] = time.time() - start
        history.add(**metrics)
        log(history.format_last())
    return history


def main(argv: Optional[list] = None) -> int:
    parser = sentiment_parser(__doc__)
    args = parser.parse_args(argv)
    start = time.time()
    history = train(
        args.data_dir,
        args.cache_dir,
        args.epochs,
        args.batch_size,
        args.lr,
        args.embedding_dim,
        args.filters,
        args.widths,
        args.dropout,
        args.min_freq,
        args.embeddings,
        args.train_size,
        args.seed,
        model_name=args.model,
        hidden=args.hidden,
    )
    accuracy = percent(history.last("test_acc"))
    if args.epochs == 0:
        print(f"no training: test accuracy of the untrained network {accuracy}")
        return 0
    names = ("train_loss", "dev_loss", "test_loss", "dev_acc", "test_acc")
    curves = {name: history.column(name) for name in names if history.column(name)}
    title = {
        "cnn": "1-D CNN",
        "lstm": "bidirectional LSTM",
        "transformer": "Transformer",
    }
    saved = (
        save_curves(curves, args.plot, f"{title[args.model]} on SST-2")
        if args.plot
        else None
    )
    print(
        f"final test accuracy {history.last('test_acc'):.4f} ({accuracy} of the "
        f"held-out sentences) after {args.epochs} epochs in "
        f"{time.time() - start:.0f}s" + (f"; curves in {saved}" if saved else "")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
