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
