"""The CUDA parts of ``kindling bench`` and ``kindling doctor``, without a GPU: a
fake device stands in for numba-cuda's answers."""

import types

from numba import cuda

from kindling import bench, doctor


class FakeDevice:
    name = "NVIDIA H100 80GB HBM3"  # a str in numba-cuda 0.30, bytes before
    compute_capability = (9, 0)


def test_bench_names_the_gpu_whether_numba_gives_str_or_bytes(monkeypatch):
    monkeypatch.setattr(bench, "_cuda_status", lambda: "gpu")
    monkeypatch.setattr(cuda, "get_current_device", lambda: FakeDevice())
    assert bench.machine()["gpu"] == "NVIDIA H100 80GB HBM3 (compute capability 9.0)"
    old = types.SimpleNamespace(name=b"Tesla T4", compute_capability=(7, 5))
    monkeypatch.setattr(cuda, "get_current_device", lambda: old)
    assert bench.machine()["gpu"] == "Tesla T4 (compute capability 7.5)"
    assert bench.machine()["gpu float64"].startswith("float64 at 1/32 of float32")


def test_the_float64_share_is_said_for_data_centre_and_consumer_gpus():
    from kindling.cudasim import float64_note

    assert "1/2 of float32 (a data-centre GPU)" in float64_note(9, 0)
    assert "1/32 of float32 (a consumer or inference GPU)" in float64_note(7, 5)
    assert "1/64" in float64_note(8, 9)
    assert "not recorded" in float64_note(3, 0)


def test_doctor_names_the_gpu_and_its_compute_capability(monkeypatch):
    monkeypatch.setattr(doctor, "gpu_present", lambda: True)
    monkeypatch.delenv("NUMBA_ENABLE_CUDASIM", raising=False)
    monkeypatch.setattr(cuda, "get_current_device", lambda: FakeDevice())
    text = doctor.gpu_description()
    assert "NVIDIA H100 80GB HBM3, compute capability 9.0" in text
    monkeypatch.setattr(doctor, "gpu_present", lambda: False)
    assert "no GPU" in doctor.gpu_description()


def test_bench_states_the_gpu_targets():
    rows = [
        bench.Row("matmul", 4096, "cuda-kernel", 0.5),
        bench.Row("matmul", 4096, "torch-cuda", 0.05),
        bench.Row("map", 4096, "cuda", 0.001),
        bench.Row("map", 4096, "torch-cuda", 0.0002),
        bench.Row("train", 50, "cuda", 0.025),
        bench.Row("train_large", 10_000, "fast", 2.4),
        bench.Row("train_large", 10_000, "cuda", 0.2),
    ]
    text = "\n".join(bench.ratios(rows))
    assert "CUDA matmul kernel at 4096^3: 10% of PyTorch CUDA's" in text
    assert "CUDA map at the Tensor level, n=4096: 20% of PyTorch CUDA's" in text
    assert "Task 3.5 training on CudaOps: 25.0 ms per epoch" in text
    assert "the GPU is 12.0x faster per epoch than FastOps" in text


def test_bench_large_setting_without_a_gpu_is_not_measured(monkeypatch):
    monkeypatch.setattr(bench, "_cuda_status", lambda: "simulator")
    rows = bench.time_large_training(["fast", "cuda"], lambda line: None)
    assert [(r.impl, r.seconds, r.note) for r in rows] == [
        ("fast", None, "not measured: no GPU"),
        ("cuda", None, "not measured: no GPU"),
    ]
    assert "larger setting on the GPU" in bench.markdown(rows, {}, "kindling bench")


def test_a_gpu_is_looked_for_the_way_each_operating_system_installs_its_driver(
    monkeypatch,
):
    import ctypes.util
    import os
    import sys

    from kindling import cudasim

    asked = []

    def find_library(name):
        asked.append(name)
        return {"nvcuda": "nvcuda.dll"}.get(name)

    monkeypatch.setattr(ctypes.util, "find_library", find_library)
    monkeypatch.setattr(os, "name", "nt")
    monkeypatch.setattr(sys, "platform", "win32")
    assert cudasim.gpu_present() and asked == ["nvcuda"]  # no /dev nodes there
    monkeypatch.setattr(os, "name", "posix")
    monkeypatch.setattr(sys, "platform", "darwin")
    assert not cudasim.gpu_present()


# ------------------------------------------------ the GPU rows of issue 40
def fake_torch(cuda_available):
    return types.SimpleNamespace(
        cuda=types.SimpleNamespace(is_available=lambda: cuda_available)
    )


def test_without_a_gpu_the_gpu_rows_say_they_need_one_and_time_nothing(monkeypatch):
    def never(*args, **kwargs):
        raise AssertionError("nothing may be timed without a GPU")

    for name in ("best_time", "_gpu_step", "_gpu_epoch"):
        monkeypatch.setattr(bench, name, never)
    for status in ("simulator", "absent"):
        rows = bench.time_gpu(False, lambda line: None, status, fake_torch(True))
        assert [(r.op, r.impl) for r in rows] == [
            (op, impl) for op in bench.GPU_MEASURES for impl in bench.GPU_IMPLS
        ]
        assert {(r.seconds, r.note) for r in rows} == {(None, bench.NEEDS_GPU)}
    text = bench.markdown(rows, {}, "kindling bench")
    assert "the CUDA backend beside PyTorch CUDA and fast" in text
    assert "| MNIST CNN training step (batch 32, Adam) | 32 | n/a | n/a | n/a |" in text
    assert "needs an NVIDIA GPU" in text


def test_with_a_gpu_each_column_is_measured_where_it_can_be():
    assert bench.gpu_plan("gpu", fake_torch(True)) == dict.fromkeys(
        bench.GPU_IMPLS, None
    )
    without_cuda = bench.gpu_plan("gpu", fake_torch(False))
    assert without_cuda["cuda"] is None and without_cuda["fast"] is None
    assert "torch.cuda.is_available() is False" in without_cuda["torch-cuda"]
    assert bench.gpu_plan("gpu", None)["torch-cuda"] == "PyTorch not installed"


def test_with_a_gpu_every_row_is_timed_on_its_own_path(monkeypatch):
    """A fake GPU: the element-wise rows and the matmul are timed as calls of
    ``_gpu_step`` (at most 1024 with --quick), the epoch by ``_gpu_epoch``, the CNN
    step in rounds of ``alternate``."""
    timed = []

    def step(op, impl, n, torch):
        timed.append((op, impl, n))
        return lambda: None

    monkeypatch.setattr(bench, "_gpu_step", step)
    monkeypatch.setattr(bench, "best_time", lambda fn, repeat, budget: 0.25)
    monkeypatch.setattr(bench, "_gpu_epoch", lambda impl, torch, epochs: (2.0, "ep"))
    from kindling import bench_training

    monkeypatch.setattr(
        bench_training,
        "alternate",
        lambda steps, rounds, per: dict.fromkeys(steps, 4.0),
    )
    rows = bench.time_gpu(True, lambda line: None, "gpu", fake_torch(True))
    assert all(r.seconds is not None for r in rows)
    got = {(r.op, r.impl): (r.n, r.seconds) for r in rows}
    assert got[("gpu_matmul", "torch-cuda")] == (1024, 0.25)
    assert got[("gpu_op", "cuda")] == (10, 0.25)
    assert got[("gpu_train", "fast")] == (50, 2.0)
    assert got[("gpu_step_cnn", "cuda")] == (32, 4.0)
    assert ("gpu_mul_broadcast", "cuda", 1024) in timed
    assert not any(op in ("gpu_train",) for op, _, _ in timed)


def test_the_gpu_table_gives_the_ratios_to_pytorch_cuda_and_fast():
    rows = [
        bench.Row("gpu_exp", 4096, "cuda", 0.010),
        bench.Row("gpu_exp", 4096, "torch-cuda", 0.002),
        bench.Row("gpu_exp", 4096, "fast", 0.050),
    ]
    (line,) = [x for x in bench.gpu_markdown(rows) if x.startswith("| `a.exp()`")]
    assert line.endswith("| 10.00 ms | 2.00 ms | 50.00 ms | 0.20x | 5.00x |")


def test_the_gpu_rows_compute_what_they_name():
    """The fast column's calls (the same code builds the cuda one): the broadcast
    row multiplies (n, n) by (n,), the small op is on (10, 100)."""
    shapes = {
        "gpu_op": (10, 100),
        "gpu_exp": (6, 6),
        "gpu_mul": (6, 6),
        "gpu_sum": (6,),
        "gpu_mul_broadcast": (6, 6),
        "gpu_matmul": (6, 6),
    }
    for op, shape in shapes.items():
        assert bench._gpu_step(op, "fast", 6, None)().shape == shape, op


def test_the_conv_row_runs_the_second_convolution_forward_and_backward():
    """``gpu_conv``: Task 4.5's second convolution, forward and backward."""
    out = bench._gpu_step("gpu_conv", "fast", 2, None)()
    assert out.shape == (2, 16, 14, 14)
