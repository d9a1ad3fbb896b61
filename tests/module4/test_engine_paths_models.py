"""Tasks 4.7 and 4.8: the SST-2 models of ``project/run_sentiment.py`` (and the
character GPT) take Module 4's engine paths (``_recurrent_fast``,
``_matmul_blas``; issue 29), and give the loss and every
parameter gradient of the students' code alone.

A guard against a silent loss of speed as much as of correctness: if a check
started failing on these models' shapes (a tolerance, a layout), the students'
path would quietly take over and these tests would say so.
"""

from __future__ import annotations

import contextlib
from typing import Iterator

import numpy as np
import pytest

from module2_tensors import manual_seed, tensor
from module3_fast_ops import FastBackend
from module4_networks import _matmul_blas, _recurrent_fast
from module4_networks import nn
from module4_networks.nn import functional as F
from module4_networks.transformer import TransformerClassifier, TransformerLM

PATHS = (_recurrent_fast, _matmul_blas)


@contextlib.contextmanager
def _students_code_alone() -> Iterator[None]:
    """Every fast path steps aside: the students' code computes everything."""
    with contextlib.ExitStack() as stack:
        for module in PATHS:
            stack.enter_context(module.PATH.off())
        yield


def _loss_and_grads(build, run):
    """The loss and every parameter gradient of one step from fixed weights."""
    manual_seed(0)
    model = build()
    loss = run(model)
    loss.backward()
    return [loss.item()] + [p.grad.to_numpy() for p in model.parameters()]


def _compare(build, run, monkeypatch, used):
    for module in PATHS:
        module.PATH.reset()
    with _students_code_alone():
        want = _loss_and_grads(build, run)
    for _ in range(2):  # checked, then fast
        got = _loss_and_grads(build, run)
        np.testing.assert_allclose(got[0], want[0], rtol=1e-10)
        for g, w in zip(got[1:], want[1:]):
            np.testing.assert_allclose(g, w, rtol=1e-8, atol=1e-12)
    for module in used:
        path = module.PATH
        assert path.agreed and not path.differed, (
            f"the engine path that stands in for {path.student} on this model did "
            f"not take over ({path!r}): your code gives the same loss and gradients "
            "either way, so either it differs from PyTorch's equations where this "
            "model's shapes reach (the tests of that function, with NumPy, name the "
            "first wrong entry) or the course's path does (a bug in the course)"
        )


def _sentences():
    rng = np.random.default_rng(1)
    ids = rng.integers(1, 30, size=(4, 6))
    ids[1, 4:] = 0  # padding
    ids[3, 2:] = 0
    return ids, (ids != 0).sum(axis=1), rng.integers(0, 2, size=4)


@pytest.mark.task4_7
def test_the_sentiment_bilstm_takes_the_engine_paths(monkeypatch):
    ids, _, labels = _sentences()

    class BiLSTM(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(30, 5, padding_idx=0, backend=FastBackend)
            self.lstm = nn.LSTM(
                5, 4, batch_first=True, bidirectional=True, backend=FastBackend
            )
            self.fc = nn.Linear(8, 2, backend=FastBackend)

        def forward(self, ids):
            out, _ = self.lstm(self.embedding(ids))
            return self.fc(out.mean(1))

    _compare(
        BiLSTM,
        lambda m: F.cross_entropy(m(ids), labels),
        monkeypatch,
        (_recurrent_fast, _matmul_blas),
    )


@pytest.mark.task4_8
def test_the_sentiment_transformer_takes_the_engine_paths(monkeypatch):
    ids, lengths, labels = _sentences()

    def build():
        return TransformerClassifier(
            30, 2, d_model=8, nhead=2, num_layers=2, dropout=0.0, backend=FastBackend
        )

    _compare(
        build,
        lambda m: F.cross_entropy(m(ids, lengths), labels),
        monkeypatch,
        PATHS[1:],
    )


@pytest.mark.task4_8
def test_the_character_gpt_takes_the_engine_paths(monkeypatch):
    rng = np.random.default_rng(2)
    x, y = rng.integers(0, 12, size=(3, 7)), rng.integers(0, 12, size=21)

    def build():
        return TransformerLM(
            12,
            d_model=8,
            nhead=2,
            num_layers=2,
            max_len=7,
            dropout=0.0,
            backend=FastBackend,
        )

    def run(model):
        logits = model(tensor(x, backend=FastBackend))
        target = tensor(y, backend=FastBackend)
        return F.cross_entropy(logits.view(21, 12), target)

    _compare(build, run, monkeypatch, PATHS[1:])
