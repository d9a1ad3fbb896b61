"""Small training utilities for the scripts of Task 4.5 (given, not a task).

* :func:`progress`: a text progress bar over an iterable (no dependency);
* :class:`History`: per-epoch loss and accuracy, printable and plottable;
* :func:`save_curves`: the loss and accuracy curves as a PNG (matplotlib);
* :func:`minibatches`: shuffled index batches.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Dict, Iterable, Iterator, List, Optional, TypeVar, Union

import numpy as np

__all__ = ["progress", "History", "save_curves", "minibatches"]

T = TypeVar("T")


class progress:
    """Iterate over ``iterable`` while drawing ``desc [#####.....] 12/40 3.1s loss
    0.41``; ``bar.set_postfix("loss 0.41")`` sets the text at the end.

    On a terminal the bar is redrawn in place; in a log file (not a TTY) a line is
    written at every tenth of the way, so logs stay short.
    """

    def __init__(
        self,
        iterable: Iterable[T],
        total: Optional[int] = None,
        desc: str = "",
        file: IO[str] = sys.stderr,
        width: int = 28,
    ) -> None:
        self.iterable = iterable
        self.total = len(iterable) if total is None else total  # type: ignore
        self.desc, self.file, self.width = desc, file, width
        self.postfix = ""
        self.tty = hasattr(file, "isatty") and file.isatty()

    def set_postfix(self, text: str) -> None:
        self.postfix = text

    def __iter__(self) -> Iterator[T]:
        start, shown, total = time.time(), -1, max(self.total, 1)
        for done, item in enumerate(self.iterable, start=1):
            yield item
            tenth = (10 * done) // total
            if not self.tty and tenth == shown:
                continue
            shown = tenth
            filled = (self.width * done) // total
            bar = "#" * filled + "." * (self.width - filled)
            line = (
                f"{self.desc} [{bar}] {done}/{self.total} "
                f"{time.time() - start:.1f}s {self.postfix}"
            ).rstrip()
            if self.tty:
                end = "\n" if done == self.total else ""
                self.file.write("\r" + line + end)
            else:
                self.file.write(line + "\n")
            self.file.flush()


@dataclass
class History:
    """Metrics per epoch: ``history.add(epoch=1, train_loss=0.3, ...)``."""

    rows: List[Dict[str, float]] = field(default_factory=list)

    def add(self, **metrics: float) -> None:
        self.rows.append(dict(metrics))

    def column(self, name: str) -> List[float]:
        return [row[name] for row in self.rows if name in row]

    def last(self, name: str) -> float:
        return self.column(name)[-1]

    def format_last(self) -> str:
        row = self.rows[-1]
        return "  ".join(
            f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}"
            for k, v in row.items()
        )


def save_curves(history: History, path: Union[str, Path], title: str) -> Optional[Path]:
    """Plot loss (left) and accuracy (right) per epoch into ``path`` (PNG).

    Returns the path, or ``None`` (with a message) when matplotlib is missing.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - matplotlib is a dev/app extra
        print("matplotlib is not installed: no plot written", file=sys.stderr)
        return None
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    epochs = history.column("epoch")
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    names = list(dict.fromkeys(k for row in history.rows for k in row))
    for name in names:
        ax = (
            left if name.endswith("_loss") else right if name.endswith("_acc") else None
        )
        if ax is not None:
            style = "-o" if name.startswith("train") else "--o"
            ax.plot(epochs, history.column(name), style, label=name)
    left.set(xlabel="epoch", ylabel="loss", title="loss")
    right.set(xlabel="epoch", ylabel="accuracy", title="accuracy", ylim=(0.0, 1.0))
    for ax in (left, right):
        ax.set_xticks(epochs)
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def minibatches(
    n: int, batch_size: int, rng: Optional[np.random.Generator] = None
) -> List[np.ndarray]:
    """Index arrays covering ``range(n)`` in batches of ``batch_size`` (the last
    one may be smaller), shuffled when ``rng`` is given."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be positive, got {batch_size}")
    order = rng.permutation(n) if rng is not None else np.arange(n)
    return [order[i : i + batch_size] for i in range(0, n, batch_size)]
