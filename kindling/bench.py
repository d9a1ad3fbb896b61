"""``kindling bench``: time the tensor backends against each other, NumPy and PyTorch.

    kindling bench --quick            # a small run (about a minute)
    kindling bench --out bench-results

Times, on tensors of growing size, the four patterns every tensor operation is made
of (map: ``exp``; zip: ``*``; reduce: ``sum`` over the last dimension; matrix
multiply) on each course backend (``simple``, ``fast``, and ``cuda`` where a GPU
exists), and the same operations in NumPy and, when it is installed, PyTorch
(float64, like the course). Then the cost of one tiny operation (what a Tensor
operation spends besides its kernel, beside PyTorch's), the start-up (from process
start to the end of the first epoch, in two fresh processes: the second loads the
compiled kernels from the disk cache), and the Task 3.5 training setting
(``split``, 50 points, hidden 100, batch 10, lr 0.05) on each backend and in
PyTorch. With ``cuda`` among the backends, a table of GPU rows (issue 40: one
small op, ``exp``, ``*``, ``sum(1)`` and a broadcast ``*`` at 4096^2, the 4096^3
matmul, the Task 3.5 epoch and the MNIST CNN step) on the CUDA backend beside
PyTorch CUDA and beside ``fast``; without a GPU those rows say they need one.

Writes ``bench.md`` (Markdown tables, with the machine and the command),
``bench.json`` and ``bench.png`` (a plot; needs matplotlib) into the output
directory. Also runs as ``python -m kindling.bench``.

Times are the best of several runs after a warm-up run (which pays Numba's
compilation), so they measure the code, not the compiler.
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import json
import os
import platform
import statistics
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence

from kindling.cudasim import configure_cuda_simulator, float64_note

#: The Task 3.5 setting.
TRAINING = dict(dataset="split", pts=50, hidden=100, batch=10, lr=0.05)

# op -> sizes n (tensors of shape (n, n); matmul n x n x n), full and --quick.
SIZES = {
    "map": ([64, 256, 1024, 2048], [32, 128, 512]),
    "zip": ([64, 256, 1024, 2048], [32, 128, 512]),
    "reduce": ([64, 256, 1024, 2048], [32, 128, 512]),
    "matmul": ([64, 128, 256, 512, 1024], [32, 64, 128, 256]),
}
#: The largest n worth timing on the pure-Python backend, per op.
SIMPLE_LIMIT = {"map": 128, "zip": 128, "reduce": 128, "matmul": 48}


@dataclass
class Row:
    """One measurement: ``seconds`` per call of ``op`` at size ``n`` on ``impl``
    (``None`` when not measured, with the reason in ``note``)."""

    op: str
    n: int
    impl: str
    seconds: Optional[float]
    note: str = ""


#: Seconds each quick measurement is repeated for, at least (see :func:`best_time`).
MIN_SECONDS = 0.1
#: Seconds to wait before timing the next implementation, --quick and full (see
#: :func:`time_ops`).
PAUSE = {True: 0.05, False: 0.2}


def best_time(fn: Callable[[], Any], repeat: int, budget: float = 2.0) -> float:
    """The fastest of at least ``repeat`` timed calls of ``fn``, after a warm-up
    call. Quick calls are repeated for at least 0.1 s (the fastest of many is the
    cost of the code, not of a busy machine); slow ones stop after ``budget``
    seconds."""
    start = time.perf_counter()
    fn()
    first = time.perf_counter() - start
    if first > 0:
        repeat = max(1, min(repeat, int(budget / first)))
    best, calls, began = float("inf"), 0, time.perf_counter()
    while calls < repeat or (
        time.perf_counter() - began < MIN_SECONDS and calls < 10_000
    ):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
        calls += 1
    return best


def _torch() -> Any:
    """PyTorch if it is installed, else ``None`` (it is optional)."""
    try:
        return importlib.import_module("torch")
    except ImportError:
        return None


def _repo_root() -> Path:
    return Path(__file__).resolve().parent.parent


def _cuda_status() -> str:
    """'gpu', 'simulator' or 'absent' (numba-cuda not installed)."""
    try:
        from numba import cuda
    except ImportError:
        return "absent"
    if getattr(cuda.config, "ENABLE_CUDASIM", 0):
        return "simulator"
    return "gpu" if cuda.is_available() else "absent"


def machine() -> Dict[str, str]:
    """What the numbers were measured on."""
    info = {
        "date": datetime.date.today().isoformat(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu": _cpu_name(),
        "cores": str(os.cpu_count()),
    }
    for name in ("numpy", "numba", "torch"):
        try:
            info[name] = importlib.import_module(name).__version__
        except ImportError:
            info[name] = "not installed"
    try:
        import numba

        info["numba threads"] = str(numba.get_num_threads())
    except ImportError:
        pass
    status = _cuda_status()
    if status == "gpu":
        from numba import cuda

        device = cuda.get_current_device()
        name = device.name  # bytes in older numba, str in numba-cuda 0.30
        name = name.decode() if isinstance(name, bytes) else str(name)
        major, minor = device.compute_capability
        info["gpu"] = f"{name} (compute capability {major}.{minor})"
        info["gpu float64"] = float64_note(major, minor)
    else:
        info["gpu"] = "none (CUDA simulator)" if status == "simulator" else "none"
    return info


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


# ---------------------------------------------------------------------------
# The operations, on every implementation
# ---------------------------------------------------------------------------


def _course_op(op: str, backend: Any, n: int) -> Callable[[], Any]:
    import numpy as np

    import module2_tensors as kt

    rng = np.random.default_rng(n)
    a = kt.tensor(rng.uniform(-1, 1, (n, n)), backend=backend)
    b = kt.tensor(rng.uniform(-1, 1, (n, n)), backend=backend)
    return {
        "map": lambda: a.exp(),
        "zip": lambda: a * b,
        "reduce": lambda: a.sum(1),
        "matmul": lambda: a @ b,
    }[op]


def _numpy_op(op: str, n: int) -> Callable[[], Any]:
    import numpy as np

    rng = np.random.default_rng(n)
    a, b = rng.uniform(-1, 1, (n, n)), rng.uniform(-1, 1, (n, n))
    return {
        "map": lambda: np.exp(a),
        "zip": lambda: a * b,
        "reduce": lambda: a.sum(1),
        "matmul": lambda: a @ b,
    }[op]


def _torch_op(torch: Any, op: str, n: int, device: str) -> Callable[[], Any]:
    generator = torch.Generator().manual_seed(n)
    a = torch.rand(n, n, dtype=torch.float64, generator=generator).to(device)
    b = torch.rand(n, n, dtype=torch.float64, generator=generator).to(device)
    fn = {
        "map": lambda: torch.exp(a),
        "zip": lambda: a * b,
        "reduce": lambda: a.sum(1),
        "matmul": lambda: a @ b,
    }[op]
    if device == "cpu":
        return fn

    def synced() -> Any:
        out = fn()
        torch.cuda.synchronize()
        return out

    return synced


def _cuda_synced(fn: Callable[[], Any]) -> Callable[[], Any]:
    """``fn`` followed by waiting for the GPU: kernel launches return before the
    kernel ends, so a time without the wait would be the launch's."""
    from numba import cuda

    def synced() -> Any:
        out = fn()
        cuda.synchronize()
        return out

    return synced


def _cuda_kernel_op(op: str, n: int) -> Callable[[], Any]:
    """The CUDA kernel of ``op`` alone, on arrays already in GPU memory (no
    transfers, no autodiff): what the kernels cost, against the Tensor-level row."""
    import numpy as np
    from numba import cuda

    from module0_fundamentals import operators
    from module3_fast_ops import cuda_ops
    from module3_fast_ops._cuda_runtime import compiled

    rng = np.random.default_rng(n)
    a = cuda.to_device(rng.uniform(-1, 1, n * n))
    b = cuda.to_device(rng.uniform(-1, 1, n * n))
    shape, strides, ones = np.array([n, n]), np.array([n, 1]), np.array([1, 1])
    out = cuda.to_device(np.zeros(n * n))
    row, row_shape, row_strides = cuda.to_device(np.zeros(n)), np.array([n, 1]), ones
    run = {
        "map": lambda: compiled(cuda_ops.tensor_map, operators.exp)(
            out, shape, strides, a, shape, strides
        ),
        "zip": lambda: compiled(cuda_ops.tensor_zip, operators.mul)(
            out, shape, strides, a, shape, strides, b, shape, strides
        ),
        "reduce": lambda: compiled(cuda_ops.tensor_reduce, operators.add)(
            row, row_shape, row_strides, a, shape, strides, 1, 0.0
        ),
        "matmul": lambda: compiled(cuda_ops.tensor_matrix_multiply)(
            out, shape, strides, a, shape, strides, b, shape, strides
        ),
    }[op]
    return _cuda_synced(run)


#: Sizes added on a GPU (not with --quick): the issue's targets are at 4096.
GPU_SIZES = [4096]


def time_ops(
    quick: bool, backends: Sequence[str], echo: Callable[[str], None]
) -> List[Row]:
    """Every op at every size on every implementation."""
    torch = _torch()
    cuda = _cuda_status()
    repeat = 3 if quick else 7
    rows: List[Row] = []
    for op, (full, small) in SIZES.items():
        on_gpu = cuda == "gpu" and "cuda" in backends and not quick
        for n in small if quick else full + (GPU_SIZES if on_gpu else []):
            impls: Dict[str, Optional[Callable[[], Any]]] = {}
            notes: Dict[str, str] = {}
            for name in backends:
                if name == "simple" and n > SIMPLE_LIMIT[op]:
                    impls[name], notes[name] = None, "too slow to time at this size"
                elif name == "cuda" and cuda != "gpu":
                    impls[name], notes[name] = None, "not measured: no GPU"
                    impls["cuda-kernel"] = None
                    notes["cuda-kernel"] = "not measured: no GPU"
                elif name == "cuda":
                    impls[name] = _cuda_synced(_course_op(op, _backend(name), n))
                    impls["cuda-kernel"] = _cuda_kernel_op(op, n)
                elif n in GPU_SIZES:
                    impls[name], notes[name] = None, "size timed on the GPU only"
                else:
                    impls[name] = _course_op(op, _backend(name), n)
            impls["numpy"] = _numpy_op(op, n)
            if torch is None:
                impls["torch"], notes["torch"] = None, "PyTorch not installed"
            else:
                impls["torch"] = _torch_op(torch, op, n, "cpu")
                if torch.cuda.is_available():
                    impls["torch-cuda"] = _torch_op(torch, op, n, "cuda")
            if "cuda" in backends and "torch-cuda" not in impls:
                impls["torch-cuda"] = None
                notes["torch-cuda"] = (
                    "PyTorch not installed" if torch is None else "not measured: no GPU"
                )
            for impl, fn in impls.items():
                # Let the previous implementation's worker threads (Numba's, BLAS's,
                # PyTorch's) stop spinning before timing the next one on the same
                # cores.
                time.sleep(PAUSE[quick])
                seconds = None if fn is None else best_time(fn, repeat)
                rows.append(Row(op, n, impl, seconds, notes.get(impl, "")))
                echo(_format_row(rows[-1]))
    return rows


def _backend(name: str) -> Any:
    if name == "simple":
        from module2_tensors import SimpleBackend

        return SimpleBackend
    import module3_fast_ops

    return getattr(
        module3_fast_ops, {"fast": "FastBackend", "cuda": "CudaBackend"}[name]
    )


def _format_row(row: Row) -> str:
    value = "-" if row.seconds is None else f"{row.seconds * 1e3:10.3f} ms"
    return f"{row.op:>7} n={row.n:<5} {row.impl:<10} {value} {row.note}"


# ---------------------------------------------------------------------------
# Per-operation overhead and start-up
# ---------------------------------------------------------------------------

#: The tiny tensors of the overhead rows: the kernel does almost nothing, so the
#: time is the Python (or C++) cost of one operation.
OVERHEAD_SHAPE = (2, 2)


def _overhead_ops(backend: Any) -> Dict[str, Callable[[], Any]]:
    import numpy as np

    import module2_tensors as kt

    a = kt.tensor(np.ones(OVERHEAD_SHAPE), backend=backend)
    b = kt.tensor(np.ones(OVERHEAD_SHAPE), backend=backend)
    w = kt.tensor(np.ones(OVERHEAD_SHAPE), backend=backend, requires_grad=True)
    return {"a + b": lambda: a + b, "a * w (grad)": lambda: a * w}


def _torch_overhead_ops(torch: Any) -> Dict[str, Callable[[], Any]]:
    a = torch.ones(OVERHEAD_SHAPE, dtype=torch.float64)
    b = torch.ones(OVERHEAD_SHAPE, dtype=torch.float64)
    w = torch.ones(OVERHEAD_SHAPE, dtype=torch.float64, requires_grad=True)
    return {"a + b": lambda: a + b, "a * w (grad)": lambda: a * w}


def time_overhead(
    quick: bool, backends: Sequence[str], echo: Callable[[str], None]
) -> List[Row]:
    """Seconds per call of one tiny operation (``OVERHEAD_SHAPE``), with and
    without autograd recording: what a Tensor operation costs besides its kernel,
    beside PyTorch's cost for the same call."""
    import numpy as np

    torch = _torch()
    cuda = _cuda_status()
    impls: Dict[str, Optional[Dict[str, Callable[[], Any]]]] = {}
    notes: Dict[str, str] = {}
    for name in backends:
        if name == "cuda" and cuda != "gpu":
            impls[name], notes[name] = None, "not measured: no GPU"
        else:
            impls[name] = _overhead_ops(_backend(name))
    a, b = np.ones(OVERHEAD_SHAPE), np.ones(OVERHEAD_SHAPE)
    impls["numpy"] = {"a + b": lambda: a + b, "a * w (grad)": lambda: a * b}
    notes["numpy"] = "no autograd: a plain a * b"
    if torch is None:
        impls["torch"], notes["torch"] = None, "PyTorch not installed"
    else:
        impls["torch"] = _torch_overhead_ops(torch)
    rows = []
    for op, label in (("overhead", "a + b"), ("overhead_grad", "a * w (grad)")):
        for impl, ops in impls.items():
            seconds = None
            if ops is not None:
                ops[label]()  # warm-up: compiles or loads the kernel
                seconds = best_time(ops[label], 3 if quick else 7, budget=0.5)
            # NumPy's note is about the autograd row only.
            keep = op == "overhead_grad" or impl != "numpy"
            note = notes.get(impl, "") if keep else ""
            rows.append(Row(op, 4, impl, seconds, note))
            echo(_format_row(rows[-1]))
    return rows


#: Run in a fresh process: the seconds from its start to the end of the first
#: epoch of the Task 3.5 setting on FastOps.
_STARTUP = """
import sys, time
sys.path.insert(0, {root!r})
start = float(sys.argv[1])
from kindling.bench_training import train
marks = []
log = lambda *args: marks.append(time.time())
train(backend="fast", epochs=1, log=log, **{training!r})
print("first-epoch", marks[0] - start)
"""


def time_startup(echo: Callable[[str], None]) -> List[Row]:
    """From process start to the end of the first epoch of the Task 3.5 setting on
    FastOps, twice in fresh processes: the first run compiles the kernels unless
    the disk cache already has them, the second loads them from the cache."""
    import subprocess

    script = _STARTUP.format(root=str(_repo_root()), training=TRAINING)
    rows = []
    for run in ("1st run", "2nd run"):
        started = time.time()
        done = subprocess.run(
            [sys.executable, "-c", script, repr(started)],
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
        )
        seconds, note = None, ""
        lines = [x for x in done.stdout.splitlines() if x.startswith("first-epoch")]
        if done.returncode == 0 and lines:
            seconds = float(lines[-1].split()[1])
            compiled = "compiling kernels" in done.stderr
            note = "compiled kernels" if compiled else "kernels from the disk cache"
        else:
            note = "failed: " + (done.stderr.strip().splitlines() or ["?"])[-1]
        rows.append(Row("startup", 50, f"fast ({run})", seconds, note))
        echo(_format_row(rows[-1]))
    return rows


# ---------------------------------------------------------------------------
# The Task 3.5 training setting
# ---------------------------------------------------------------------------


def time_training(
    quick: bool, backends: Sequence[str], echo: Callable[[str], None]
) -> List[Row]:
    """Seconds per epoch of the Task 3.5 setting on each backend and in PyTorch: the
    median over the epochs after the first (which pays for compilation)."""
    root = str(_repo_root())
    if root not in sys.path:
        sys.path.insert(0, root)
    from kindling.bench_training import train

    cuda = _cuda_status()
    rows = []
    for name in backends:
        epochs = {"simple": 2 if quick else 3}.get(name, 6 if quick else 30)
        if name == "cuda" and cuda != "gpu":
            rows.append(Row("train", 50, name, None, "not measured: no GPU"))
        else:
            # One extra epoch: the median leaves out the first, which
            # pays for compiling the kernels.
            history = train(backend=name, epochs=epochs + 1, **TRAINING)
            note = f"{epochs} epochs, accuracy {100 * history.accuracies[-1]:.0f}%"
            seconds = statistics.median(history.seconds[1:])
            rows.append(Row("train", 50, name, seconds, note))
        echo(_format_row(rows[-1]))
    torch = _torch()
    if torch is None:
        rows.append(Row("train", 50, "torch", None, "PyTorch not installed"))
    else:
        epochs = 6 if quick else 30
        seconds, accuracy = torch_training(torch, epochs + 1)
        note = f"{epochs} epochs, accuracy {100 * accuracy:.0f}%"
        rows.append(Row("train", 50, "torch", seconds, note))
    echo(_format_row(rows[-1]))
    return rows


#: The larger training setting of the GPU target (issue 11), timed with a GPU only.
LARGE = dict(dataset="split", pts=10_000, hidden=1024, batch=1024, lr=0.05)


def time_large_training(
    backends: Sequence[str], echo: Callable[[str], None], epochs: int = 3
) -> List[Row]:
    """Seconds per epoch of :data:`LARGE` on the GPU and on FastOps (median after a
    first epoch that pays compilation); "not measured" rows without a GPU."""
    from kindling.bench_training import train

    rows = []
    gpu = _cuda_status() == "gpu"
    for name in [b for b in ("fast", "cuda") if b in backends]:
        if not gpu:
            rows.append(
                Row("train_large", LARGE["pts"], name, None, "not measured: no GPU")
            )
        else:
            history = train(backend=name, epochs=epochs + 1, **LARGE)
            seconds = statistics.median(history.seconds[1:])
            note = f"{epochs} epochs, accuracy {100 * history.accuracies[-1]:.0f}%"
            rows.append(Row("train_large", LARGE["pts"], name, seconds, note))
        echo(_format_row(rows[-1]))
    return rows


# ---------------------------------------------------------------------------
# The GPU rows (issue 40): the CUDA backend beside PyTorch CUDA and beside fast
# ---------------------------------------------------------------------------

#: op -> (n, what), in the order of the table. ``n`` is the side of the square
#: tensors (at most 1024 with --quick), the batch for the training rows.
GPU_MEASURES: Dict[str, tuple] = {
    "gpu_op": (10, "one small op: `x * y` on (10, 100)"),
    "gpu_exp": (4096, "`a.exp()` on (n, n)"),
    "gpu_mul": (4096, "`a * b` on (n, n), same layout (aligned)"),
    "gpu_sum": (4096, "`a.sum(1)` on (n, n)"),
    "gpu_mul_broadcast": (4096, "`a * r` on (n, n), r of shape (n,) (broadcast)"),
    "gpu_matmul": (4096, "`a @ b`, (n, n) @ (n, n)"),
    "gpu_train": (50, "Task 3.5 epoch (split, 50 points, hidden 100, batch 10)"),
    "gpu_step_cnn": (32, "MNIST CNN training step (batch 32, Adam)"),
    "gpu_conv": (32, "conv2d forward and backward, (n, 8, 14, 14) by (16, 8, 3, 3)"),
}
#: "What this machine has" (the default of :func:`time_gpu`'s ``torch``).
_THIS_MACHINE: Any = object()
#: The columns of the GPU table.
GPU_IMPLS = ("cuda", "torch-cuda", "fast")
NEEDS_GPU = "needs an NVIDIA GPU (none found: numba-cuda sees no device)"


def gpu_plan(status: str, torch: Any) -> Dict[str, Optional[str]]:
    """Which columns of the GPU table can be measured here: impl -> ``None``
    (measure it) or the reason it is not. ``status`` is :func:`_cuda_status`'s
    ('gpu', 'simulator' or 'absent'); ``torch`` the module or ``None``. Without a
    GPU no column is measured, ``fast`` included: the rows compare against the GPU
    (and ``fast`` at 4096^3 would take minutes for nothing)."""
    if status != "gpu":
        return {impl: NEEDS_GPU for impl in GPU_IMPLS}
    plan: Dict[str, Optional[str]] = {"cuda": None, "fast": None}
    if torch is None:
        plan["torch-cuda"] = "PyTorch not installed"
    elif not torch.cuda.is_available():
        plan["torch-cuda"] = "PyTorch without CUDA (torch.cuda.is_available() is False)"
    else:
        plan["torch-cuda"] = None
    return {impl: plan[impl] for impl in GPU_IMPLS}


def _gpu_step(op: str, impl: str, n: int, torch: Any) -> Callable[[], Any]:
    """One call of GPU measure ``op`` on ``impl`` at size ``n``, waiting for the GPU
    to finish (a launch returns before its kernel ends)."""
    import numpy as np

    if op == "gpu_conv":
        return _gpu_conv(impl, n, torch)
    if op == "gpu_step_cnn":
        from kindling import bench_training as bt

        step, weights = bt.cnn_steps(backend="fast" if impl == "fast" else "cuda")
        if impl == "torch-cuda":
            return bt.torch_cnn_steps(torch, weights, device="cuda")
        return step  # its loss.item() waits for the GPU
    rng = np.random.default_rng(n)
    shapes = {"gpu_op": ((10, 100), (10, 100)), "gpu_mul_broadcast": ((n, n), (n,))}
    a_shape, b_shape = shapes.get(op, ((n, n), (n, n)))
    x, y = rng.uniform(-1, 1, a_shape), rng.uniform(-1, 1, b_shape)
    if impl == "torch-cuda":
        a = torch.tensor(x, dtype=torch.float64, device="cuda")
        b = torch.tensor(y, dtype=torch.float64, device="cuda")
        sync: Callable[[], Any] = torch.cuda.synchronize
    else:
        import module2_tensors as kt

        backend = _backend(impl)
        a, b = kt.tensor(x).to(backend), kt.tensor(y).to(backend)
        if impl == "cuda":
            from numba import cuda

            sync = cuda.synchronize
        else:

            def sync() -> None:
                pass

    fn = {
        "gpu_op": lambda: a * b,
        "gpu_exp": lambda: a.exp(),
        "gpu_mul": lambda: a * b,
        "gpu_sum": lambda: a.sum(1),
        "gpu_mul_broadcast": lambda: a * b,
        "gpu_matmul": lambda: a @ b,
    }[op]

    def synced() -> Any:
        out = fn()
        sync()
        return out

    return synced


def _gpu_conv(impl: str, n: int, torch: Any) -> Callable[[], Any]:
    """Task 4.5's second convolution (padding 1) forward and backward on a batch
    of ``n``."""
    import numpy as np

    rng = np.random.default_rng(n)
    arrays = [rng.normal(size=s) for s in ((n, 8, 14, 14), (16, 8, 3, 3), (16,))]
    if impl == "torch-cuda":
        leaves = [
            torch.tensor(a, dtype=torch.float64, device="cuda", requires_grad=True)
            for a in arrays
        ]

        def on_torch() -> Any:
            out = torch.nn.functional.conv2d(*leaves, padding=1)
            out.sum().backward()
            torch.cuda.synchronize()
            return out

        return on_torch
    import module2_tensors as kt
    from module4_networks import functional as F

    backend = _backend(impl)
    tensors = [kt.tensor(a).to(backend).requires_grad_(True) for a in arrays]

    def on_course() -> Any:
        out = F.conv2d(*tensors, padding=1)
        out.sum().backward()
        if impl == "cuda":
            from numba import cuda

            cuda.synchronize()
        return out

    return on_course


def time_gpu(
    quick: bool,
    echo: Callable[[str], None],
    status: Optional[str] = None,
    torch: Any = _THIS_MACHINE,
) -> List[Row]:
    """The rows of issue 40 on the GPU (:data:`GPU_MEASURES`), each on the CUDA
    backend, PyTorch CUDA and the fast backend, in this process; without a GPU,
    the same rows with no time and the reason (``status`` and ``torch`` default
    to what this machine has; tests pass their own)."""
    status = _cuda_status() if status is None else status
    torch = _torch() if torch is _THIS_MACHINE else torch
    plan = gpu_plan(status, torch)
    rows = []
    for op, (n, _) in GPU_MEASURES.items():
        if quick and n > 1024:
            n = 1024
        for impl in GPU_IMPLS:
            seconds, note = None, plan[impl] or ""
            if plan[impl] is None:
                if op == "gpu_train":
                    seconds, note = _gpu_epoch(impl, torch, 3 if quick else 10)
                elif op == "gpu_step_cnn":
                    from kindling import bench_training

                    steps = {impl: _gpu_step(op, impl, n, torch)}
                    seconds = bench_training.alternate(steps, 3 if quick else 5, 5)[
                        impl
                    ]
                else:
                    budget = 2.0 if impl != "fast" else 10.0
                    fn = _gpu_step(op, impl, n, torch)
                    seconds = best_time(fn, 3 if quick else 7, budget=budget)
            rows.append(Row(op, n, impl, seconds, note))
            echo(_format_row(rows[-1]))
    return rows


def _gpu_epoch(impl: str, torch: Any, epochs: int) -> tuple:
    """(median seconds per Task 3.5 epoch after the first, note) on ``impl``."""
    if impl == "torch-cuda":
        seconds, accuracy = torch_training(torch, epochs + 1, device="cuda")
    else:
        from kindling.bench_training import train

        history = train(backend=impl, epochs=epochs + 1, **TRAINING)
        seconds = statistics.median(history.seconds[1:])
        accuracy = history.accuracies[-1]
    return seconds, f"{epochs} epochs, accuracy {100 * accuracy:.0f}%"


def gpu_markdown(rows: List[Row]) -> List[str]:
    """The GPU table: one line per measure, the three columns, and the ratios the
    issue's goals are stated in (PyTorch CUDA's time / ours: 1 is parity; fast's
    time / ours: how much faster the GPU is)."""
    found = {(r.op, r.impl): r for r in rows if r.op in GPU_MEASURES}
    if not found:
        return []
    lines = ["", "## On the GPU: the CUDA backend beside PyTorch CUDA and fast", ""]
    lines += ["| measure | n | " + " | ".join(GPU_IMPLS) + " | torch-cuda / cuda "]
    lines[-1] += "| fast / cuda |"
    lines += ["|---" * (len(GPU_IMPLS) + 4) + "|"]
    for op, (_, what) in GPU_MEASURES.items():
        row = {impl: found.get((op, impl)) for impl in GPU_IMPLS}
        if not any(row.values()):
            continue
        n = next(r.n for r in row.values() if r is not None)
        cells = [
            _seconds(r.seconds) if r is not None and r.seconds is not None else "n/a"
            for r in row.values()
        ]
        ours = row["cuda"].seconds if row["cuda"] is not None else None
        for other in ("torch-cuda", "fast"):
            theirs = row[other].seconds if row[other] is not None else None
            cells.append(f"{theirs / ours:.2f}x" if ours and theirs else "n/a")
        lines.append(f"| {what} | {n} | " + " | ".join(cells) + " |")
    return lines


def torch_training(
    torch: Any, epochs: int, seed: int = 0, device: str = "cpu"
) -> tuple:
    """The loop of :mod:`kindling.bench_training` (Task 3.5's) in PyTorch (float64,
    on ``device``): same data, network, loss, batch order and plain SGD, and per
    batch the loss as a float and the count of points classified correctly. Returns
    (median seconds per epoch after the first, last accuracy)."""
    import numpy as np

    from module0_fundamentals import DATASETS

    setting = TRAINING
    pts, hidden, batch, lr = (setting[k] for k in ("pts", "hidden", "batch", "lr"))
    data = DATASETS[setting["dataset"]](pts, seed=seed)
    X = np.array(data.X, dtype=np.float64).reshape(pts, 2)
    y = np.array(data.y, dtype=np.float64)
    generator = np.random.default_rng(seed)
    params = []
    for n_in, n_out in ((2, hidden), (hidden, hidden), (hidden, 1)):
        r = 1.0 / n_in**0.5
        w = torch.tensor(r * (2 * generator.random((n_in, n_out)) - 1), device=device)
        b = torch.tensor(r * (2 * generator.random(n_out) - 1), device=device)
        params += [w.requires_grad_(), b.requires_grad_()]

    def forward(x: Any) -> Any:
        h = torch.relu((2.0 * x - 1.0) @ params[0] + params[1])
        h = torch.relu(h @ params[2] + params[3])
        return (h @ params[4] + params[5]).view(x.shape[0])

    order_rng = np.random.default_rng(seed)
    seconds, accuracy = [], 0.0
    for _ in range(epochs):
        order = order_rng.permutation(pts)
        start = time.perf_counter()
        total, correct = 0.0, 0
        for first in range(0, pts, batch):
            idx = order[first : first + batch]
            xb = torch.tensor(X[idx], device=device)
            yb = torch.tensor(y[idx], device=device)
            for p in params:
                p.grad = None
            z = forward(xb)
            margin = z * (2.0 * yb - 1.0)
            loss = (
                torch.relu(-margin) + torch.log(torch.exp(-margin.abs()) + 1.0)
            ).mean()
            loss.backward()
            with torch.no_grad():
                for p in params:
                    p -= lr * p.grad
            total += loss.item()  # (as Kindling's loop: the loss as a float)
            correct += int(((z.detach() > 0) == (yb > 0.5)).sum())
        seconds.append(time.perf_counter() - start)
        accuracy = correct / pts
    return statistics.median(seconds[1:] or seconds), accuracy


#: The Module 4 models ``--models`` can time (issue 29): name -> (batch, note).
MODELS = {
    "cnn": (32, "Task 4.5 MNIST CNN, batch 32, Adam, same initial weights"),
    "lstm": (128, "SST-2 BiLSTM 48/48, 128 x 20 tokens, Adam"),
    "transformer": (128, "SST-2 Transformer 48, 2 blocks, 128 x 20 tokens, Adam"),
    "gpt": (32, "character GPT 128, 2 blocks, 32 x 64 characters, AdamW"),
}


def _model_steps(model: str, torch: Any) -> Dict[str, Callable[[], Any]]:
    """``{"fast": step, "torch": step}`` (no ``torch`` without PyTorch)."""
    from kindling import bench_training as bt

    if model == "cnn":
        step, weights = bt.cnn_steps()
        steps = {"fast": step}
        if torch is not None:
            steps["torch"] = bt.torch_cnn_steps(torch, weights)
        return steps
    if model == "lstm":
        steps = {"fast": bt.lstm_steps()}
        if torch is not None:
            steps["torch"] = bt.torch_lstm_steps(torch)
        return steps
    if model in ("transformer", "gpt"):
        ours, theirs = {
            "transformer": (bt.transformer_steps, bt.torch_transformer_steps),
            "gpt": (bt.gpt_steps, bt.torch_gpt_steps),
        }[model]
        steps = {"fast": ours()}
        if torch is not None:
            steps["torch"] = theirs(torch)
        return steps
    raise ValueError(f"unknown model {model!r}; choose from {', '.join(MODELS)}")


def paths_off_steps(step: Callable[[], Any]) -> Dict[str, Callable[[], Any]]:
    """``step`` with each of Module 4's fast paths switched off in turn, by name
    (``"matmul off"``, ...): what each path is worth to a model
    (``docs/DESIGN.md``, section 2). The fused optimizer is not among them: it
    runs on ``CudaBackend`` only, and the models are timed on the CPU."""
    from module4_networks.engine import FAST_PATHS

    switches = {name: path.off for name, path in FAST_PATHS.items()}

    def without(switch: Callable[[], Any]) -> Callable[[], Any]:
        def run() -> Any:
            with switch():
                return step()

        return run

    return {f"{name} off": without(switch) for name, switch in switches.items()}


def time_models(
    models: Sequence[str],
    quick: bool,
    echo: Callable[[str], None],
    paths_off: bool = False,
) -> List[Row]:
    """Seconds per training step of each Module 4 model in ``models`` on the fast
    backend and the same model in PyTorch (float64), timed in alternating rounds of
    20 steps (3 for the GPT) in this process (so both sides see the same machine
    load): the median round, after a warm-up. ``paths_off``: also the fast
    backend's step with each fast path off in turn (:func:`paths_off_steps`), in
    the same rounds."""
    from kindling import bench_training

    torch = _torch()
    rows = []
    rounds = 3 if quick else 8
    for model in models:
        batch, what = MODELS[model]
        # The GPT's steps take seconds on a small machine: shorter rounds.
        per_round = 3 if model == "gpt" else 20
        steps = _model_steps(model, torch)
        if paths_off:
            steps.update(paths_off_steps(steps["fast"]))
        seconds = bench_training.alternate(steps, rounds, per_round)
        note = f"{what}; {rounds} rounds of {per_round} steps"
        off = [name for name in steps if name.endswith(" off")]
        for impl in ["fast", "torch", *off]:
            if impl in seconds:
                rows.append(Row(f"step_{model}", batch, impl, seconds[impl], note))
            else:
                rows.append(
                    Row(f"step_{model}", batch, impl, None, "PyTorch not installed")
                )
            echo(_format_row(rows[-1]))
        if "torch" in seconds:
            ratio = seconds["fast"] / seconds["torch"]
            echo(f"step_{model}: fast / torch = {ratio:.2f}x")
        for impl in off:
            ratio = seconds[impl] / seconds["fast"]
            echo(f"step_{model}: {impl} / all on = {ratio:.2f}x")
    return rows


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------


def markdown(rows: List[Row], info: Dict[str, str], command: str) -> str:
    """The tables: one per op (sizes down, implementations across), then training."""
    lines = ["# Kindling benchmark", "", f"Command: `{command}`", ""]
    lines += ["| machine | |", "|---|---|"]
    lines += [f"| {key} | {value} |" for key, value in info.items()]
    ops = ["overhead", "overhead_grad", "startup", "train", "train_large"]
    ops += [f"step_{m}" for m in MODELS]
    for op in list(SIZES) + ops:
        op_rows = [r for r in rows if r.op == op]
        if not op_rows:
            continue
        impls = list(dict.fromkeys(r.impl for r in op_rows))
        title = {
            "map": "map: `a.exp()`, a of shape (n, n)",
            "zip": "zip: `a * b`, (n, n)",
            "reduce": "reduce: `a.sum(1)`, (n, n)",
            "matmul": "matmul: `a @ b`, (n, n) @ (n, n)",
            "train": "Task 3.5 training: seconds per epoch (split, 50 points, "
            "hidden 100, batch 10, lr 0.05)",
            "overhead": "per-operation overhead: `a + b` on (2, 2) tensors",
            "overhead_grad": "per-operation overhead with autograd: `a * w` on "
            "(2, 2) tensors, w requiring grad",
            "startup": "start-up: from process start to the end of the first "
            "epoch of the Task 3.5 setting on FastOps",
            "train_large": "a larger setting on the GPU: seconds per epoch (split, "
            "10,000 points, hidden 1024, batch 1024)",
            "step_cnn": "Task 4.5 MNIST CNN: one training step (batch 32, Adam, "
            "float64), alternating rounds beside PyTorch",
            "step_lstm": "SST-2 BiLSTM: one training step (batch 128, 20 tokens, "
            "Adam, float64), alternating rounds beside PyTorch",
            "step_transformer": "SST-2 Transformer: one training step (batch 128, "
            "20 tokens, Adam, float64), alternating rounds beside PyTorch",
            "step_gpt": "character GPT: one training step (batch 32, context 64, "
            "AdamW, float64), alternating rounds beside PyTorch",
        }[op]
        lines += ["", f"## {title}", ""]
        lines += ["| n | " + " | ".join(impls) + " |"]
        lines += ["|---" * (len(impls) + 1) + "|"]
        for n in dict.fromkeys(r.n for r in op_rows):
            cells = []
            for impl in impls:
                match = [r for r in op_rows if r.n == n and r.impl == impl]
                ok = match and match[0].seconds is not None
                cells.append(_seconds(match[0].seconds) if ok else "n/a")
            lines.append(f"| {n} | " + " | ".join(cells) + " |")
    lines += gpu_markdown(rows)
    lines += ["", "## Ratios", ""] + ratios(rows)
    notes = {}  # (impl, note) -> where; each note once
    for r in rows:
        if r.note:
            notes.setdefault((r.impl, r.note), []).append(
                "training" if r.op == "train" else f"{r.op} n={r.n}"
            )
    if notes:
        lines += ["", "## Notes", ""]
        for (impl, note), where in notes.items():
            lines.append(f"- {impl}: {note} ({', '.join(where)})")
    return "\n".join(lines) + "\n"


def ratios(rows: List[Row]) -> List[str]:
    """The speed targets of Module 3, as sentences."""

    def get(op: str, n: int, impl: str) -> Optional[float]:
        for r in rows:
            if r.op == op and r.n == n and r.impl == impl:
                return r.seconds
        return None

    out = []
    sizes = [r.n for r in rows if r.op == "matmul" and r.impl == "fast" and r.seconds]
    for n in sorted({512, max(sizes, default=512)} & set(sizes)):
        fast, numpy = get("matmul", n, "fast"), get("matmul", n, "numpy")
        if fast and numpy:
            out.append(
                f"- FastOps matmul at {n}^3 runs at {100 * numpy / fast:.0f}% of "
                f"NumPy's throughput (target: at least 80% at 512^3 with one "
                f"thread each, --threads 1)."
            )
    for n in sorted(
        {r.n for r in rows if r.op == "matmul" and r.impl == "cuda-kernel"}
    ):
        kernel, cublas = get("matmul", n, "cuda-kernel"), get("matmul", n, "torch-cuda")
        if kernel and cublas:
            out.append(
                f"- CUDA matmul kernel at {n}^3: {100 * cublas / kernel:.0f}% of "
                f"PyTorch CUDA's (cuBLAS) throughput (target: at least 20% at 4096^3)."
            )
    for op in ("map", "zip", "reduce"):
        n = max((r.n for r in rows if r.op == op and r.impl == "cuda"), default=0)
        ours, theirs = get(op, n, "cuda"), get(op, n, "torch-cuda")
        if ours and theirs:
            out.append(
                f"- CUDA {op} at the Tensor level, n={n}: {100 * theirs / ours:.0f}% "
                f"of PyTorch CUDA's throughput (target: at least 25% at 4096)."
            )
    fast_large = get("train_large", LARGE["pts"], "fast")
    cuda_large = get("train_large", LARGE["pts"], "cuda")
    if fast_large and cuda_large:
        out.append(
            f"- Larger setting (hidden 1024, 10,000 points, batch 1024): the GPU is "
            f"{fast_large / cuda_large:.1f}x faster per epoch than FastOps "
            f"(target: at least 10x)."
        )
    cuda_epoch = get("train", 50, "cuda")
    if cuda_epoch:
        out.append(
            f"- Task 3.5 training on CudaOps: {cuda_epoch * 1e3:.1f} ms per epoch "
            f"(target: at most 30 ms)."
        )
    fast, torch = get("train", 50, "fast"), get("train", 50, "torch")
    if fast and torch:
        out.append(
            f"- Task 3.5 training on FastOps: {fast * 1e3:.2f} ms per epoch, "
            f"{fast / torch:.2f}x PyTorch's {torch * 1e3:.2f} ms (target: at most "
            f"1.5x with one thread each, --threads 1)."
        )
    for op in ("overhead", "overhead_grad"):
        fast, torch = get(op, 4, "fast"), get(op, 4, "torch")
        if fast:
            theirs = (
                f"PyTorch {torch * 1e6:.1f} µs" if torch else "PyTorch not installed"
            )
            what = "a + b" if op == "overhead" else "a * w (recording autograd)"
            out.append(
                f"- One FastOps operation ({what}) on tiny tensors: "
                f"{fast * 1e6:.1f} µs ({theirs})."
            )
    warm = get("startup", 50, "fast (2nd run)")
    if warm:
        out.append(
            f"- Start-up, kernels from the disk cache: first epoch done "
            f"{warm:.1f} s after process start (target: at most 5 s)."
        )
    for model, (batch, _) in MODELS.items():
        fast = get(f"step_{model}", batch, "fast")
        torch = get(f"step_{model}", batch, "torch")
        if fast and torch and model == "gpt":
            out.append(
                f"- Character GPT: {1 / fast:.2f} steps/s on FastOps, "
                f"{torch / fast:.2f} of PyTorch's {1 / torch:.2f} (target: at least "
                f"0.5 with one thread each, --threads 1; issue 29)."
            )
        elif fast and torch:
            out.append(
                f"- One {model} training step on FastOps: {fast * 1e3:.1f} ms, "
                f"{fast / torch:.2f}x PyTorch's {torch * 1e3:.1f} ms (target: at "
                f"most 2x with one thread each, --threads 1; issue 29)."
            )
    return out or ["- (not enough measurements for the ratios)"]


def _seconds(value: float) -> str:
    if value >= 1:
        return f"{value:.2f} s"
    if value >= 1e-3:
        return f"{value * 1e3:.2f} ms"
    return f"{value * 1e6:.1f} µs"


def plot(rows: List[Row], path: Path) -> None:
    """Time against size for every op, one line per implementation (log-log)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ops = list(SIZES)
    measured = [r for r in rows if r.op in ops and r.seconds is not None]
    impls = list(dict.fromkeys(r.impl for r in measured))
    colors = {impl: f"C{k}" for k, impl in enumerate(impls)}  # same colour everywhere
    fig, axes = plt.subplots(1, len(ops), figsize=(4.2 * len(ops), 3.8))
    for ax, op in zip(axes, ops):
        for impl in impls:
            points = [
                (r.n, r.seconds) for r in measured if r.op == op and r.impl == impl
            ]
            if points:
                ax.plot(*zip(*points), marker="o", color=colors[impl], label=impl)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(op)
        ax.set_xlabel("n (tensors of n x n)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("seconds per call")
    handles = [plt.Line2D([], [], color=colors[i], marker="o") for i in impls]
    fig.legend(handles, impls, loc="upper center", ncol=len(impls), fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 0.9))
    fig.savefig(path, dpi=120)
    plt.close(fig)


def limit_threads(threads: int) -> None:
    """Use ``threads`` threads in Numba, PyTorch and (when NumPy is not imported yet)
    NumPy's BLAS: on a shared machine, one thread each gives steadier numbers."""
    if threads < 1:
        raise ValueError(f"--threads must be at least 1, got {threads}")
    for variable in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[variable] = str(threads)
    os.environ["MKL_NUM_THREADS"] = str(threads)
    if "numba" in sys.modules:
        import numba

        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    torch = _torch()
    if torch is not None:
        torch.set_num_threads(threads)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``kindling bench [--quick] [--out DIR] [--backends LIST] [--no-training]``."""
    parser = argparse.ArgumentParser(
        prog="kindling bench", description=__doc__.splitlines()[0].replace("``", "")
    )
    parser.add_argument("--quick", action="store_true", help="small sizes, few runs")
    parser.add_argument(
        "--out", default="bench-results", metavar="DIR", help="output directory"
    )
    parser.add_argument(
        "--backends",
        default="simple,fast,cuda",
        metavar="LIST",
        help="course backends to time (default: simple,fast,cuda)",
    )
    parser.add_argument(
        "--no-training", action="store_true", help="skip the Task 3.5 training"
    )
    parser.add_argument(
        "--no-startup",
        action="store_true",
        help="skip the start-up rows (two fresh processes to the first epoch)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        metavar="N",
        help="threads for Numba, NumPy's BLAS and PyTorch (default: all cores)",
    )
    parser.add_argument(
        "--models",
        default="",
        metavar="LIST",
        help=f"also time one training step of these Module 4 models beside "
        f"PyTorch ({', '.join(MODELS)})",
    )
    parser.add_argument(
        "--models-only",
        action="store_true",
        help="time only the --models rows (skip the operations and Task 3.5)",
    )
    parser.add_argument(
        "--paths-off",
        action="store_true",
        help="with --models: also time each step with each of Module 4's fast "
        "paths off in turn (what each is worth)",
    )
    args = parser.parse_args(argv)
    if args.threads is not None:
        limit_threads(args.threads)
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    unknown = set(backends) - {"simple", "fast", "cuda"}
    if unknown:
        parser.error(f"unknown backends: {', '.join(sorted(unknown))}")
    # Decide GPU or simulator before anything imports Numba.
    configure_cuda_simulator()
    root = str(_repo_root())
    if root not in sys.path:
        sys.path.insert(0, root)

    def echo(line: str) -> None:
        print(line, flush=True)

    command = "kindling bench " + " ".join(argv if argv is not None else sys.argv[1:])
    info = machine()
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    if set(models) - set(MODELS):
        parser.error(f"unknown models: {', '.join(sorted(set(models) - set(MODELS)))}")
    rows: List[Row] = []
    if not args.models_only:
        rows += time_ops(args.quick, backends, echo)
        rows += time_overhead(args.quick, backends, echo)
    if not args.no_training and not args.models_only:
        if "fast" in backends and not args.no_startup:
            rows += time_startup(echo)
        rows += time_training(args.quick, backends, echo)
        if "cuda" in backends and not args.quick:
            rows += time_large_training(backends, echo)
    if "cuda" in backends and not args.models_only:
        rows += time_gpu(args.quick, echo)
    rows += time_models(models, args.quick, echo, args.paths_off)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench.md").write_text(
        markdown(rows, info, command.strip()), encoding="utf-8"
    )
    (out / "bench.json").write_text(
        json.dumps({"machine": info, "rows": [asdict(r) for r in rows]}, indent=2),
        encoding="utf-8",
    )
    written = [out / "bench.md", out / "bench.json"]
    if not args.models_only:  # the plot is of the operation rows
        try:
            plot(rows, out / "bench.png")
            written.append(out / "bench.png")
        except ImportError:
            print("no plot: matplotlib is not installed (pip install matplotlib)")
    print("wrote " + ", ".join(str(path) for path in written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
