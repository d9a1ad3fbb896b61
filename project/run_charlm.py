"""Train a character-level GPT on the sentences of SST-2 and sample from it (Task 4.8).

    python project/run_charlm.py                      # downloads GLUE's SST-2
    python project/run_charlm.py --data-dir DIR       # train.tsv and test.tsv
    python project/run_charlm.py --minutes 3 --d-model 64

The model is ``module4_networks.transformer.TransformerLM``: character embeddings and
sinusoidal positions, pre-norm Transformer blocks (causal multi-head self-attention,
GELU feed-forward), a final LayerNorm and a linear layer over the characters. Every
position of a window of ``--context`` characters predicts the next one, so one
window trains ``--context`` predictions at once.

The text is the training sentences (one per line); the validation text is the
test sentences, which the model never trains on. The score is *bits per
character* (the cross-entropy in base 2): 0 means certainty, $\\log_2 V$ (about 6
for the 60-odd characters here) guessing uniformly, and a good small model of
English reaches about 2. Training stops after ``--steps`` steps or ``--minutes``
minutes, whichever comes first; then the script prints the validation bits per
character and samples at temperatures 0.5 and 1.0.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

if __package__ in (None, ""):  # run as a script: make the library importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from module2_tensors import manual_seed, no_grad, tensor  # noqa: E402
from module3_fast_ops.fast_ops import FastBackend  # noqa: E402
from module4_networks import data, optim  # noqa: E402
from module4_networks.nn import functional as F  # noqa: E402
from module4_networks.transformer import TransformerLM  # noqa: E402
from project.script_tools import (  # noqa: E402
    StepBudget,
    make_parser,
    nonnegative_int,
    positive_float,
    positive_int,
    probability,
    save_curves,
)

#: Index of characters the training text does not have.
UNKNOWN = 0


# --------------------------------------------------------------------- data
class CharVocabulary:
    """Characters of the training text, by frequency; index 0 stands for any other
    character."""

    def __init__(self, text: str) -> None:
        counts: Dict[str, int] = {}
        for ch in text:
            counts[ch] = counts.get(ch, 0) + 1
        self.chars = ["\ufffd"] + sorted(counts, key=lambda c: (-counts[c], c))
        self.index = {ch: i for i, ch in enumerate(self.chars)}

    def __len__(self) -> int:
        return len(self.chars)

    def encode(self, text: str) -> np.ndarray:
        return np.array([self.index.get(ch, UNKNOWN) for ch in text], dtype=np.int64)

    def decode(self, ids: Sequence[int]) -> str:
        return "".join(self.chars[int(i)] for i in ids)


def corpus(data_dir: Optional[str], cache_dir: Optional[str]) -> Tuple[str, str]:
    """The training and validation texts: SST-2's training sentences (each once,
    one per line) and its test sentences."""
    splits = data.load_sst2(data_dir, cache_dir)

    def lines(sentences: List[str]) -> str:
        seen = dict.fromkeys(s.strip() for s in sentences if s.strip())
        return "\n".join(seen) + "\n"

    return lines(splits["train"][0]), lines(splits["test"][0])


def windows(
    ids: np.ndarray, context: int, batch: int, rng: np.random.Generator
) -> Tuple[np.ndarray, np.ndarray]:
    """``batch`` random windows of ``context`` characters and their next
    characters (the windows shifted by one)."""
    starts = rng.integers(0, len(ids) - context - 1, size=batch)
    x = np.stack([ids[s : s + context] for s in starts])
    y = np.stack([ids[s + 1 : s + context + 1] for s in starts])
    return x, y


# --------------------------------------------------------------- evaluation
def bits_per_char(
    model: TransformerLM, ids: np.ndarray, context: int, batch: int = 32
) -> float:
    """Mean cross-entropy in bits of every character of ``ids`` (but the first),
    predicted from the characters before it in its window of ``context``."""
    backend = model.head.weight.value.backend
    pieces = len(ids) - 1
    starts = list(range(0, pieces - context + 1, context))
    total, count = 0.0, 0
    model.eval()
    with no_grad():
        for k in range(0, len(starts), batch):
            chunk = starts[k : k + batch]
            x = np.stack([ids[s : s + context] for s in chunk])
            y = np.stack([ids[s + 1 : s + context + 1] for s in chunk])
            logits = model(tensor(x, backend=backend))
            n = len(chunk) * context
            flat = logits.view(n, logits.shape[-1])
            target = tensor(y.reshape(-1), backend=backend)  # (int64 class indices)
            total += F.cross_entropy(flat, target, reduction="sum").item()
            count += n
    model.train()
    return total / count / math.log(2.0)


def sample(
    model: TransformerLM,
    vocab: CharVocabulary,
    prompt: str,
    length: int,
    temperature: float,
    seed: int,
) -> str:
    """``prompt`` continued by ``length`` sampled characters."""
    backend = model.head.weight.value.backend
    start = tensor(vocab.encode(prompt)[None, :], backend=backend)
    out = model.generate(start, length, temperature, np.random.default_rng(seed))
    return vocab.decode(out.to_numpy()[0])


# ------------------------------------------------------------------ training
def train(
    data_dir: Optional[str] = None,
    cache_dir: Optional[str] = None,
    steps: int = 100_000,
    minutes: float = 14.0,
    context: int = 64,
    batch: int = 32,
    d_model: int = 128,
    heads: int = 4,
    layers: int = 2,
    lr: float = 2e-3,
    dropout: float = 0.0,
    eval_every: int = 100,
    seed: int = 0,
    plot: Optional[str] = None,
    texts: Optional[Tuple[str, str]] = None,
) -> Dict[str, object]:
    """Train the model; returns the model, the vocabulary and the curves
    (``train_bpc`` per step, ``val_bpc`` at every ``eval_every`` steps)."""
    manual_seed(seed)
    rng = np.random.default_rng(seed)
    train_text, val_text = texts if texts is not None else corpus(data_dir, cache_dir)
    vocab = CharVocabulary(train_text)
    train_ids, val_ids = vocab.encode(train_text), vocab.encode(val_text)
    print(
        f"{len(train_ids):,} training and {len(val_ids):,} validation characters, "
        f"{len(vocab)} symbols"
    )
    model = TransformerLM(
        len(vocab),
        d_model=d_model,
        nhead=heads,
        num_layers=layers,
        max_len=context,
        dropout=dropout,
        backend=FastBackend,
    )
    opt = optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    count = sum(p.value.size for p in model.parameters())
    print(f"{count:,} parameters; at most {steps} steps or {minutes:g} minutes")
    curves: Dict[str, Dict[int, float]] = {"train loss": {}, "val loss": {}}
    budget = StepBudget(steps, 60.0 * minutes)
    step = 0
    recent: List[float] = []
    while budget.running:
        x, y = windows(train_ids, context, batch, rng)
        logits = model(tensor(x, backend=FastBackend))
        flat = logits.view(batch * context, len(vocab))
        target = tensor(y.reshape(-1), backend=FastBackend)  # (int64 class indices)
        loss = F.cross_entropy(flat, target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        recent.append(loss.item() / math.log(2.0))
        budget.advance(f"train {np.mean(recent[-50:]):.3f} bits/char")
        if step % eval_every == 0:
            curves["train loss"][step] = float(np.mean(recent[-eval_every:]))
            curves["val loss"][step] = bits_per_char(model, val_ids[:20_000], context)
    budget.close()
    elapsed = budget.elapsed
    val = bits_per_char(model, val_ids, context)
    curves["val loss"][step] = val
    print(
        f"{step} steps in {elapsed / 60:.1f} min; validation {val:.3f} bits per "
        f"character ({len(val_ids):,} characters)"
    )
    if plot:
        save_curves(curves, plot, "character GPT on SST-2 (bits per character)")
    return {"model": model, "vocab": vocab, "curves": curves, "val_bpc": val}


def main(argv: Optional[List[str]] = None) -> int:
    parser = make_parser(__doc__)
    parser.add_argument("--data-dir", help="folder with train.tsv and test.tsv")
    parser.add_argument("--cache-dir", help="where the download is kept")
    parser.add_argument("--steps", type=positive_int, default=100_000)
    parser.add_argument(
        "--minutes", type=positive_float, default=14.0, help="time budget"
    )
    parser.add_argument("--context", type=positive_int, default=64)
    parser.add_argument("--batch", type=positive_int, default=32)
    parser.add_argument("--d-model", type=positive_int, default=128)
    parser.add_argument("--heads", type=positive_int, default=4)
    parser.add_argument("--layers", type=positive_int, default=2)
    parser.add_argument("--lr", type=positive_float, default=2e-3)
    parser.add_argument("--dropout", type=probability, default=0.0)
    parser.add_argument("--eval-every", type=positive_int, default=100)
    parser.add_argument("--seed", type=nonnegative_int, default=0)
    parser.add_argument("--sample-length", type=nonnegative_int, default=200)
    parser.add_argument(
        "--plot", default="runs/charlm.png", help="PNG of the curves ('' for none)"
    )
    args = parser.parse_args(argv)
    if args.d_model % args.heads:
        parser.error(f"--d-model {args.d_model} is not divisible by --heads")
    result = train(
        args.data_dir,
        args.cache_dir,
        args.steps,
        args.minutes,
        args.context,
        args.batch,
        args.d_model,
        args.heads,
        args.layers,
        args.lr,
        args.dropout,
        args.eval_every,
        args.seed,
        args.plot or None,
    )
    for temperature in (0.5, 1.0):
        text = sample(
            result["model"],  # type: ignore[arg-type]
            result["vocab"],  # type: ignore[arg-type]
            "the movie ",
            args.sample_length,
            temperature,
            args.seed,
        )
        print(f"\n--- sample, temperature {temperature} ---\n{text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
