"""Module 3's given code: the backends' identity, argument checks of the given
wrappers, the training script's options and ``kindling bench``.

The code is given, but a test that runs a task's code on the way (a tensor needs
Task 2.1's strides, a benchmark Task 2.3's operations) carries that task's marker;
the others carry none.
"""

import json

import pytest

import module3_fast_ops as kt
from kindling import bench
from module3_fast_ops import CudaBackend, FastBackend, cuda_ops
from module3_fast_ops.cuda_ops import PRACTICE_TILE
from project.run_fast_tensor import DEFAULTS, train


def test_fast_backend_is_a_tensor_backend():
    assert kt.FastBackend is FastBackend
    assert FastBackend.ops is kt.FastOps
    assert FastBackend.name == "fast" and not FastBackend.cuda


def test_cuda_backend_is_a_tensor_backend():
    assert kt.CudaBackend is CudaBackend
    assert CudaBackend.ops is kt.CudaOps
    assert CudaBackend.name == "cuda" and CudaBackend.cuda


@pytest.mark.task2_1
def test_matmul_shape_errors_name_both_shapes_on_every_backend():
    for backend in (FastBackend, CudaBackend):
        a = kt.zeros(2, 3, backend=backend)
        b = kt.zeros(4, 5, backend=backend)
        with pytest.raises(ValueError, match=r"\(2, 3\) and \(4, 5\)"):
            a @ b


@pytest.mark.task2_1
def test_sum_practice_rejects_matrices():
    with pytest.raises(ValueError, match=r"1-D tensor, got shape \(2, 2\)"):
        cuda_ops.sum_practice(kt.zeros(2, 2))


@pytest.mark.task2_1
def test_mm_practice_rejects_what_one_tile_cannot_hold():
    big = kt.zeros(PRACTICE_TILE + 1, PRACTICE_TILE + 1)
    with pytest.raises(ValueError, match=f"size <= PRACTICE_TILE = {PRACTICE_TILE}"):
        cuda_ops.mm_practice(big, big)
    with pytest.raises(ValueError, match="square"):
        cuda_ops.mm_practice(kt.zeros(2, 3), kt.zeros(2, 3))


# ------------------------------------------------------------ training script
def test_the_task_setting_is_the_default():
    assert DEFAULTS["dataset"] == "split" and DEFAULTS["pts"] == 50
    assert (DEFAULTS["hidden"], DEFAULTS["batch"], DEFAULTS["lr"]) == (100, 10, 0.05)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(dataset="nope"), "unknown dataset 'nope'"),
        (dict(batch=0), "batch >= 1"),
        (dict(backend="gpu"), "unknown backend 'gpu'"),
    ],
)
def test_bad_training_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        train(**{"epochs": 1, **kwargs})


# ------------------------------------------------------------------ benchmark
@pytest.mark.task2_3
def test_bench_writes_tables_json_and_plot(tmp_path, monkeypatch):
    """A tiny run of ``kindling bench`` (the simple backend and NumPy only)."""
    monkeypatch.setattr(bench, "SIZES", {op: ([4], [2, 4]) for op in bench.SIZES})
    monkeypatch.setattr(bench, "_torch", lambda: None)
    # the tables are the subject here, not the timings: no pauses, no 0.1 s floor
    monkeypatch.setattr(bench, "PAUSE", {True: 0.0, False: 0.0})
    monkeypatch.setattr(bench, "MIN_SECONDS", 0.0)
    out = tmp_path / "results"
    argv = ["--quick", "--backends", "simple", "--no-training", "--out", str(out)]
    assert bench.main(argv) == 0
    table = (out / "bench.md").read_text()
    assert "matmul: `a @ b`" in table and "| n | simple | numpy | torch |" in table
    assert "PyTorch not installed" in table and "Command: `kindling bench" in table
    rows = json.loads((out / "bench.json").read_text())["rows"]
    assert {r["op"] for r in rows} == {
        "map",
        "zip",
        "reduce",
        "matmul",
        "overhead",
        "overhead_grad",
    }
    assert "per-operation overhead: `a + b`" in table
    overhead = [r for r in rows if r["op"] == "overhead"]
    assert {r["impl"] for r in overhead} == {"simple", "numpy", "torch"}
    assert all(r["seconds"] > 0 for r in rows if r["impl"] in ("simple", "numpy"))
    assert (out / "bench.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bench_ratios_state_the_targets():
    rows = [
        bench.Row("matmul", 512, "fast", 0.008),
        bench.Row("matmul", 512, "numpy", 0.004),
        bench.Row("train", 50, "fast", 0.012),
        bench.Row("train", 50, "torch", 0.004),
    ]
    text = "\n".join(bench.ratios(rows))
    assert "512^3 runs at 50% of NumPy's throughput (target: at least 80%" in text
    assert "12.00 ms per epoch, 3.00x PyTorch's 4.00 ms (target: at most 1.5x" in text


def test_bench_states_overhead_and_startup_beside_pytorch():
    rows = [
        bench.Row("overhead", 4, "fast", 3e-6),
        bench.Row("overhead", 4, "torch", 1.5e-6),
        bench.Row("overhead_grad", 4, "fast", 5e-6),
        bench.Row("startup", 50, "fast (2nd run)", 1.7),
    ]
    text = "\n".join(bench.ratios(rows))
    assert (
        "One FastOps operation (a + b) on tiny tensors: 3.0 µs (PyTorch 1.5 µs)" in text
    )
    assert "(a * w (recording autograd)) on tiny tensors: 5.0 µs (PyTorch not" in text
    assert "first epoch done 1.7 s after process start" in text


def test_bench_rejects_unknown_backends():
    with pytest.raises(SystemExit):
        bench.main(["--backends", "fast,tpu"])
