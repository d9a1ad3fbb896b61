"""The Task 3.5 training loop that ``kindling bench`` times, on the library.

``project/run_fast_tensor.py`` is the student's script (its mini-batch loop is
Task 3.5's stub); the toolchain never imports ``project/``. This module is the same
loop written once for the benchmark, as :func:`kindling.bench.torch_training` is
the same loop in PyTorch: the network $2 \\to h \\to h \\to 1$ (ReLU hidden layers,
uniform initial weights in $[-1/\\sqrt{n_{in}}, 1/\\sqrt{n_{in}}]$), the mean binary
cross-entropy of the logits, every epoch the points in a fresh random order,
``batch`` at a time, one plain SGD step per batch, and per batch the loss as a
float and the count of points classified correctly.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

import numpy as np

__all__ = ["History", "train", "backend_by_name"]


def backend_by_name(name: str) -> Any:
    """``simple`` (Module 2), ``fast`` (Numba, CPU) or ``cuda`` (Numba, GPU)."""
    if name == "simple":
        from module2_tensors import SimpleBackend

        return SimpleBackend
    if name == "fast":
        from module3_fast_ops import FastBackend

        return FastBackend
    if name == "cuda":
        from module3_fast_ops import CudaBackend

        return CudaBackend
    raise ValueError(f"unknown backend {name!r}; choose simple, fast or cuda")


@dataclass
class History:
    """Per epoch: mean batch loss, training accuracy, seconds."""

    losses: List[float] = field(default_factory=list)
    accuracies: List[float] = field(default_factory=list)
    seconds: List[float] = field(default_factory=list)


def train(
    dataset: str = "split",
    backend: Any = "fast",
    hidden: int = 100,
    lr: float = 0.05,
    epochs: int = 1,
    pts: int = 50,
    batch: int = 10,
    seed: int = 0,
    log: Optional[Callable[[int, int, float, float, float], None]] = None,
) -> History:
    """Train on ``pts`` points of ``DATASETS[dataset]`` for ``epochs`` epochs;
    ``log(epoch, epochs, loss, accuracy, seconds)`` after each."""
    from module0_fundamentals import DATASETS, Module, Parameter
    from module1_scalar_autodiff.optim import SGD
    from module2_tensors import rand, tensor

    if isinstance(backend, str):
        backend = backend_by_name(backend)

    class Linear(Module):
        def __init__(self, n_in: int, n_out: int, generator: Any) -> None:
            super().__init__()
            r = 1.0 / n_in**0.5
            weight = rand(n_in, n_out, generator=generator, backend=backend)
            bias = rand(n_out, generator=generator, backend=backend)
            self.weight = Parameter(r * (2.0 * weight - 1.0))
            self.bias = Parameter(r * (2.0 * bias - 1.0))

        def forward(self, x: Any) -> Any:
            return x @ self.weight.value + self.bias.value

    class Network(Module):
        def __init__(self) -> None:
            super().__init__()
            generator = np.random.default_rng(seed)
            self.layer1 = Linear(2, hidden, generator)
            self.layer2 = Linear(hidden, hidden, generator)
            self.layer3 = Linear(hidden, 1, generator)

        def forward(self, x: Any) -> Any:
            h = self.layer1(2.0 * x - 1.0).relu()
            h = self.layer2(h).relu()
            return self.layer3(h).view(x.shape[0])

    def loss_fn(z: Any, y: Any) -> Any:
        margin = z * (2.0 * y - 1.0)
        return ((-margin).relu() + ((-margin.abs()).exp() + 1.0).log()).mean()

    data = DATASETS[dataset](pts, seed=seed)
    X = np.array(data.X, dtype=np.float64).reshape(pts, 2)
    y = np.array(data.y, dtype=np.float64)
    model = Network()
    optimizer = SGD(model.parameters(), lr=lr)
    generator = np.random.default_rng(seed)
    history = History()
    for epoch in range(1, epochs + 1):
        order = generator.permutation(pts)
        start = time.perf_counter()
        total, correct, batches = 0.0, 0, 0
        for first in range(0, pts, batch):
            idx = order[first : first + batch]
            xb = tensor(X[idx], backend=backend)
            yb = tensor(y[idx], backend=backend)
            optimizer.zero_grad()
            z = model(xb)
            loss = loss_fn(z, yb)
            loss.backward()
            optimizer.step()
            total += loss.item()
            batches += 1
            correct += int(np.sum((z.to_numpy() > 0.0) == (y[idx] > 0.5)))
        seconds = time.perf_counter() - start
        history.losses.append(total / max(batches, 1))
        history.accuracies.append(correct / pts)
        history.seconds.append(seconds)
        if log is not None:
            log(epoch, epochs, history.losses[-1], correct / pts, seconds)
    return history


# ---------------------------------------------------------------------------
# One training step of the Module 4 models (issue 29), beside PyTorch
# ---------------------------------------------------------------------------
#: The Task 4.5 MNIST CNN: 28x28 images, batch 32, Adam 2e-3.
CNN = dict(size=28, batch=32, lr=2e-3, channels=(8, 16), hidden=64, dropout=0.25)


def cnn_steps(seed: int = 0, backend: Any = None) -> tuple:
    """The Task 4.5 CNN (conv 3x3 1->8, relu, conv 3x3 8->16, relu, max-pool 2, fc
    3136->64, relu, dropout, fc 64->10, log-softmax; NLL loss; Adam) on the course
    library, float64, on ``backend`` (default: the fast backend; a name or a
    ``TensorBackend``; each batch is moved there, as a training loop would), on
    random MNIST-shaped batches. Returns
    ``(step, weights)``: ``step()`` runs one training step (zero_grad, forward,
    backward, Adam step) on the next batch; ``weights`` are the initial
    parameters as NumPy arrays (conv1.w, conv1.b, conv2.w, conv2.b, fc1.w, fc1.b,
    fc2.w, fc2.b), so :func:`torch_cnn_steps` can start from the same model."""
    import module4_networks as kt
    from module3_fast_ops import FastBackend
    from module4_networks.nn import functional as F
    from module4_networks import nn, optim

    if backend is None:
        backend = FastBackend
    elif isinstance(backend, str):
        backend = backend_by_name(backend)
    size, batch, c1, c2 = CNN["size"], CNN["batch"], *CNN["channels"]
    hidden = CNN["hidden"]
    kt.manual_seed(seed)
    conv1 = nn.Conv2d(1, c1, 3, padding=1, backend=backend)
    conv2 = nn.Conv2d(c1, c2, 3, padding=1, backend=backend)
    fc1 = nn.Linear(c2 * (size // 2) ** 2, hidden, backend=backend)
    fc2 = nn.Linear(hidden, 10, backend=backend)
    dropout = nn.Dropout(CNN["dropout"])
    layers = [conv1, conv2, fc1, fc2]
    params = [p for layer in layers for p in (layer.weight, layer.bias)]
    optimizer = optim.Adam(params, lr=CNN["lr"])
    batches = _image_batches(seed, size, batch)

    def step() -> float:
        images, labels = next(batches)
        x = kt.tensor(images, backend=FastBackend).to(backend)
        optimizer.zero_grad()
        h = conv1(x).relu()
        h = conv2(h).relu()
        h = F.max_pool2d(h, 2).flatten(1)
        h = dropout(fc1(h).relu())
        loss = F.nll_loss(F.log_softmax(fc2(h), dim=1), labels)
        loss.backward()
        optimizer.step()
        return loss.item()

    return step, [p.value.to_numpy().copy() for p in params]


def torch_cnn_steps(
    torch: Any, weights: List[np.ndarray], seed: int = 0, device: str = "cpu"
) -> Any:
    """The model of :func:`cnn_steps` in PyTorch (float64, on ``device``), from
    ``weights`` (the same layouts: a Linear weight is ``(out, in)`` on both sides).
    Returns ``step()``, one training step on the next batch (its ``loss.item()``
    waits for the GPU)."""
    tf = torch.nn.functional
    size, batch = CNN["size"], CNN["batch"]
    w = [torch.tensor(a, dtype=torch.float64, device=device) for a in weights]
    params = [t.requires_grad_() for t in w]
    optimizer = torch.optim.Adam(params, lr=CNN["lr"])
    batches = _image_batches(seed, size, batch)

    def step() -> float:
        images, labels = next(batches)
        x = torch.from_numpy(images).to(device)
        optimizer.zero_grad()
        h = tf.relu(tf.conv2d(x, params[0], params[1], padding=1))
        h = tf.relu(tf.conv2d(h, params[2], params[3], padding=1))
        h = tf.max_pool2d(h, 2).flatten(1)
        h = tf.dropout(tf.relu(tf.linear(h, params[4], params[5])), CNN["dropout"])
        loss = tf.nll_loss(
            tf.log_softmax(tf.linear(h, params[6], params[7]), dim=1),
            torch.from_numpy(labels).to(device),
        )
        loss.backward()
        optimizer.step()
        return loss.item()

    return step


def _image_batches(seed: int, size: int, batch: int) -> Any:
    """Endless batches of standardised MNIST-shaped images ``(batch, 1, size,
    size)`` and int64 labels, from a fixed pool of 16 (the data do not change
    the cost of a step)."""
    rng = np.random.default_rng(seed)
    pool = [
        (rng.standard_normal((batch, 1, size, size)), rng.integers(0, 10, batch))
        for _ in range(16)
    ]
    i = 0
    while True:
        yield pool[i % len(pool)]
        i += 1


def alternate(
    steps: Dict[str, Callable[[], Any]], rounds: int, per_round: int = 20
) -> Dict[str, float]:
    """Median seconds per step of each ``steps[name]``, timed in alternating rounds
    of ``per_round`` steps (so a change in the machine's load hits every side
    alike), after one warm-up round each (which pays Numba's compilation)."""
    for step in steps.values():
        for _ in range(2):
            step()
    times: Dict[str, List[float]] = {name: [] for name in steps}
    for _ in range(rounds):
        for name, step in steps.items():
            start = time.perf_counter()
            for _ in range(per_round):
                step()
            times[name].append((time.perf_counter() - start) / per_round)
    return {name: float(np.median(values)) for name, values in times.items()}


#: The SST-2 LSTM classifier of ``project/run_sentiment.py`` (its defaults), on
#: batches of 128 sentences of 20 tokens (SST-2's sentences are 19 words long on
#: average, batched by length) from a vocabulary of 14,000 words.
LSTM = dict(vocab=14_000, dim=48, hidden=48, batch=128, length=20, lr=2e-3)


def _sentence_batches(seed: int) -> Any:
    """Endless batches of word ids ``(batch, length)`` (no padding) and labels."""
    rng = np.random.default_rng(seed)
    shape = (LSTM["batch"], LSTM["length"])
    pool = [
        (rng.integers(1, LSTM["vocab"], shape), rng.integers(0, 2, LSTM["batch"]))
        for _ in range(8)
    ]
    i = 0
    while True:
        yield pool[i % len(pool)]
        i += 1


def lstm_steps(seed: int = 0) -> Callable[[], float]:
    """One training step of the SST-2 LSTM (embedding, bidirectional LSTM, mean over
    time, dropout 0.5, linear; cross-entropy; Adam) on the fast backend."""
    import module4_networks as kt
    from module3_fast_ops import FastBackend
    from module4_networks.nn import functional as F
    from module4_networks import nn, optim

    kt.manual_seed(seed)
    embedding = nn.Embedding(
        LSTM["vocab"], LSTM["dim"], padding_idx=0, backend=FastBackend
    )
    lstm = nn.LSTM(
        LSTM["dim"],
        LSTM["hidden"],
        batch_first=True,
        bidirectional=True,
        backend=FastBackend,
    )
    dropout = nn.Dropout(0.5)
    fc = nn.Linear(2 * LSTM["hidden"], 2, backend=FastBackend)
    params = [*embedding.parameters(), *lstm.parameters(), *fc.parameters()]
    optimizer = optim.Adam(params, lr=LSTM["lr"])
    batches = _sentence_batches(seed)

    def step() -> float:
        ids, labels = next(batches)
        optimizer.zero_grad()
        out, _ = lstm(dropout(embedding(ids)))
        logits = fc(dropout(out.mean(1)))
        loss = F.cross_entropy(logits, labels)
        loss.backward()
        optimizer.step()
        return loss.item()

    return step


def torch_lstm_steps(torch: Any, seed: int = 0) -> Callable[[], float]:
    """:func:`lstm_steps`'s model in PyTorch (float64, its own random weights: the
    cost of a step does not depend on them)."""
    torch.manual_seed(seed)
    nn = torch.nn
    embedding = nn.Embedding(LSTM["vocab"], LSTM["dim"], padding_idx=0).double()
    lstm = nn.LSTM(
        LSTM["dim"], LSTM["hidden"], batch_first=True, bidirectional=True
    ).double()
    dropout = nn.Dropout(0.5)
    fc = nn.Linear(2 * LSTM["hidden"], 2).double()
    params = [*embedding.parameters(), *lstm.parameters(), *fc.parameters()]
    optimizer = torch.optim.Adam(params, lr=LSTM["lr"])
    batches = _sentence_batches(seed)

    def step() -> float:
        ids, labels = next(batches)
        optimizer.zero_grad()
        out, _ = lstm(dropout(embedding(torch.from_numpy(ids))))
        logits = fc(dropout(out.mean(1)))
        loss = nn.functional.cross_entropy(logits, torch.from_numpy(labels))
        loss.backward()
        optimizer.step()
        return loss.item()

    return step


def transformer_steps(seed: int = 0) -> Callable[[], float]:
    """One training step of the SST-2 Transformer of ``project/run_sentiment.py``
    (``TransformerClassifier``: embedding 48 and sinusoidal positions, two pre-norm
    blocks of 4 heads with GELU feed-forward 192, final LayerNorm, masked mean,
    dropout 0.1, linear; cross-entropy; Adam) on the batches of :data:`LSTM`."""
    import module4_networks as kt
    from module3_fast_ops import FastBackend
    from module4_networks.nn import functional as F
    from module4_networks import optim
    from module4_networks.transformer import TransformerClassifier

    kt.manual_seed(seed)
    model = TransformerClassifier(
        LSTM["vocab"], 2, d_model=48, nhead=4, num_layers=2, backend=FastBackend
    )
    optimizer = optim.Adam(model.parameters(), lr=LSTM["lr"])
    batches = _sentence_batches(seed)

    def step() -> float:
        ids, labels = next(batches)
        optimizer.zero_grad()
        lengths = (ids != 0).sum(axis=1)
        loss = F.cross_entropy(model(ids, lengths), labels)
        loss.backward()
        optimizer.step()
        return loss.item()

    return step


def torch_transformer_steps(torch: Any, seed: int = 0) -> Callable[[], float]:
    """:func:`transformer_steps`'s model in PyTorch (float64, its own weights)."""
    torch.manual_seed(seed)
    nn = torch.nn
    d, length = 48, LSTM["length"]
    embedding = nn.Embedding(LSTM["vocab"], d).double()
    position = np.arange(length)[:, None] / 10000 ** (np.arange(0, d, 2) / d)
    table = np.zeros((length, d))
    table[:, 0::2], table[:, 1::2] = np.sin(position), np.cos(position)
    positions = torch.from_numpy(table)
    layer = nn.TransformerEncoderLayer(
        d, 4, 4 * d, 0.1, activation="gelu", batch_first=True, norm_first=True
    )
    encoder = nn.TransformerEncoder(
        layer, 2, norm=nn.LayerNorm(d), enable_nested_tensor=False
    ).double()
    dropout = nn.Dropout(0.1)
    out = nn.Linear(d, 2).double()
    params = [*embedding.parameters(), *encoder.parameters(), *out.parameters()]
    optimizer = torch.optim.Adam(params, lr=LSTM["lr"])
    batches = _sentence_batches(seed)

    def step() -> float:
        ids, labels = next(batches)
        optimizer.zero_grad()
        idx = torch.from_numpy(ids)
        real = (idx != 0).double()
        x = encoder(dropout(embedding(idx) + positions), src_key_padding_mask=idx == 0)
        pooled = (x * real[:, :, None]).sum(1) / real.sum(1, keepdim=True)
        logits = out(dropout(pooled))
        loss = nn.functional.cross_entropy(logits, torch.from_numpy(labels))
        loss.backward()
        optimizer.step()
        return loss.item()

    return step


#: The character GPT of ``project/run_charlm.py`` (its defaults): context 64,
#: batch 32, d_model 128, 4 heads, 2 blocks, no dropout, AdamW 2e-3 (decay 0.01),
#: over SST-2's characters (about 96 symbols).
GPT = dict(vocab=96, context=64, batch=32, d_model=128, heads=4, layers=2, lr=2e-3)


def _character_windows(seed: int) -> Any:
    """Endless ``(x, y)`` windows of random character ids ``(batch, context)``,
    ``y`` the next characters."""
    rng = np.random.default_rng(seed)
    text = rng.integers(0, GPT["vocab"], 50_000)
    while True:
        starts = rng.integers(0, len(text) - GPT["context"] - 1, GPT["batch"])
        x = np.stack([text[s : s + GPT["context"]] for s in starts])
        y = np.stack([text[s + 1 : s + GPT["context"] + 1] for s in starts])
        yield x, y


def gpt_steps(seed: int = 0) -> Callable[[], float]:
    """One training step of the character GPT (``TransformerLM``) on FastOps, as
    ``project/run_charlm.py`` takes it."""
    import module4_networks as kt
    from module3_fast_ops import FastBackend
    from module4_networks.nn import functional as F
    from module4_networks import optim
    from module4_networks.transformer import TransformerLM

    kt.manual_seed(seed)
    model = TransformerLM(
        GPT["vocab"],
        d_model=GPT["d_model"],
        nhead=GPT["heads"],
        num_layers=GPT["layers"],
        max_len=GPT["context"],
        dropout=0.0,
        backend=FastBackend,
    )
    optimizer = optim.AdamW(model.parameters(), lr=GPT["lr"], weight_decay=0.01)
    windows = _character_windows(seed)
    rows = GPT["batch"] * GPT["context"]

    def step() -> float:
        x, y = next(windows)
        logits = model(kt.tensor(x.astype(np.int64), backend=FastBackend))
        target = kt.tensor(y.reshape(-1).astype(np.int64), backend=FastBackend)
        loss = F.cross_entropy(logits.view(rows, GPT["vocab"]), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss.item()

    return step


def torch_gpt_steps(torch: Any, seed: int = 0) -> Callable[[], float]:
    """:func:`gpt_steps`'s model in PyTorch (float64, its own weights): pre-norm
    GELU blocks with an additive causal mask, final LayerNorm, linear head."""
    torch.manual_seed(seed)
    nn = torch.nn
    d, length = GPT["d_model"], GPT["context"]
    embedding = nn.Embedding(GPT["vocab"], d).double()
    position = np.arange(length)[:, None] / 10000 ** (np.arange(0, d, 2) / d)
    table = np.zeros((length, d))
    table[:, 0::2], table[:, 1::2] = np.sin(position), np.cos(position)
    positions = torch.from_numpy(table)
    layer = nn.TransformerEncoderLayer(
        d,
        GPT["heads"],
        4 * d,
        0.0,
        activation="gelu",
        batch_first=True,
        norm_first=True,
    )
    blocks = nn.TransformerEncoder(
        layer, GPT["layers"], norm=nn.LayerNorm(d), enable_nested_tensor=False
    ).double()
    head = nn.Linear(d, GPT["vocab"]).double()
    params = [*embedding.parameters(), *blocks.parameters(), *head.parameters()]
    optimizer = torch.optim.AdamW(params, lr=GPT["lr"], weight_decay=0.01)
    mask = torch.triu(
        torch.full((length, length), float("-inf"), dtype=torch.float64), 1
    )
    windows = _character_windows(seed)

    def step() -> float:
        x, y = next(windows)
        h = blocks(
            embedding(torch.from_numpy(x)) + positions, mask=mask, is_causal=True
        )
        logits = head(h).view(-1, GPT["vocab"])
        loss = nn.functional.cross_entropy(logits, torch.from_numpy(y.reshape(-1)))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss.item()

    return step
