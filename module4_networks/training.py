"""Small training utilities for the scripts of Task 4.5 (given, not a task).

* :class:`History`: per-epoch loss and accuracy, printable (the scripts plot it
  with ``project/script_tools.py``);
* :func:`minibatches`: shuffled index batches.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional

import numpy as np

__all__ = ["History", "minibatches"]


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
        return "  ".join(
            f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}"
            for k, v in self.rows[-1].items()
        )


def minibatches(
    n: int, batch_size: int, rng: Optional[np.random.Generator] = None
) -> List[np.ndarray]:
    """Index arrays covering ``range(n)`` in batches of ``batch_size`` (the last
    one may be smaller), shuffled when ``rng`` is given."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be positive, got {batch_size}")
    order = rng.permutation(n) if rng is not None else np.arange(n)
    return [order[i : i + batch_size] for i in range(0, n, batch_size)]
