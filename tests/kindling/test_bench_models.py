"""``kindling bench --models``: the Module 4 training steps it times beside PyTorch
(issue 29) are the same computation on both sides."""

from __future__ import annotations

import pytest

from kindling import bench, bench_training
from tests.pytorch_reference import import_torch


def test_the_cnn_step_is_the_same_model_as_pytorchs(monkeypatch):
    """Without dropout, from the same weights and batches, the course's CNN and
    PyTorch's give the same losses step after step (Adam included)."""
    torch = import_torch()
    monkeypatch.setitem(bench_training.CNN, "dropout", 0.0)
    monkeypatch.setitem(bench_training.CNN, "batch", 4)
    step, weights = bench_training.cnn_steps(seed=1)
    torch_step = bench_training.torch_cnn_steps(torch, weights, seed=1)
    for _ in range(3):
        assert step() == pytest.approx(torch_step(), rel=1e-9)


def test_alternate_reports_the_median_round_per_side():
    calls = {"a": 0, "b": 0}

    def counter(name):
        def step():
            calls[name] += 1

        return step

    seconds = bench_training.alternate({"a": counter("a"), "b": counter("b")}, 3, 5)
    assert set(seconds) == {"a", "b"} and all(s >= 0 for s in seconds.values())
    assert calls == {"a": 2 + 15, "b": 2 + 15}  # two warm-up steps, 3 rounds of 5


def test_model_rows_reach_the_report():
    rows = [
        bench.Row("step_cnn", 32, "fast", 0.040, "note"),
        bench.Row("step_cnn", 32, "torch", 0.020, "note"),
    ]
    table = bench.markdown(rows, {}, "kindling bench --models cnn")
    assert "Task 4.5 MNIST CNN: one training step" in table
    assert "2.00x PyTorch's 20.0 ms" in table


@pytest.mark.long
def test_the_cnn_step_runs_the_same_model_on_the_cuda_backend(monkeypatch):
    """``kindling bench`` times the CNN step on ``CudaBackend`` too (the GPU rows):
    without dropout, from the same seed, its losses are the fast backend's (a
    small model here: the simulator runs it without a GPU)."""
    monkeypatch.setitem(bench_training.CNN, "dropout", 0.0)
    monkeypatch.setitem(bench_training.CNN, "batch", 2)
    monkeypatch.setitem(bench_training.CNN, "size", 6)
    monkeypatch.setitem(bench_training.CNN, "channels", (2, 3))
    monkeypatch.setitem(bench_training.CNN, "hidden", 4)
    fast, weights = bench_training.cnn_steps(seed=2)
    cuda, cuda_weights = bench_training.cnn_steps(seed=2, backend="cuda")
    for ours, theirs in zip(weights, cuda_weights):
        assert (ours == theirs).all()
    for _ in range(2):
        assert cuda() == pytest.approx(fast(), rel=1e-9)


def test_paths_off_runs_the_step_with_each_fast_path_switched_off():
    """``kindling bench --paths-off``: each variant runs the model's step with its
    one fast path off, the others on, and restores it."""
    from module4_networks.engine import FAST_PATHS

    seen = {}

    def step():
        seen[len(seen)] = {
            name for name, path in FAST_PATHS.items() if not path.checking
        }
        return len(seen)

    variants = bench.paths_off_steps(step)
    assert set(variants) == {f"{name} off" for name in FAST_PATHS}
    for name, run in variants.items():
        seen.clear()
        assert run() == 1
        assert seen[0] == set(FAST_PATHS) - {name[: -len(" off")]}
    assert not any(path.checking for path in FAST_PATHS.values())
