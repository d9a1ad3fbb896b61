"""Module 3 · Fast ops: the same tensors, compiled and parallel, on the CPU and on a
GPU.

Sections (each runs only while its tab is open; the slow parts wait for a button):

* **Backends** — the training task of Module 2 on each backend, seconds per epoch,
  and a matrix-multiply timing across sizes;
* **Benchmarks** — the tables and plots that ``kindling bench`` wrote into
  ``bench-results/``;
* **Parallel diagnostics** — what Numba's parallel compiler did with a kernel
  (loops fused, hoisted, parallelised);
* **CUDA launch** — how a kernel launch's grid of blocks of threads covers the
  output, for a map, a tiled matmul and a shared-memory sum (no GPU needed).
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import streamlit as st

from project.dashboard.common import ROOT, header, load_script, section_tabs, task_guard

# Where `kindling bench` writes its tables and plots ($KINDLING_BENCH_RESULTS moves it).
BENCH_DIR = Path(os.environ.get("KINDLING_BENCH_RESULTS") or ROOT / "bench-results")
BACKENDS = ("simple", "fast", "cuda")


def backend(name: str) -> Any:
    """A tensor backend by name (``simple`` from Module 2, ``fast``/``cuda`` from
    Module 3)."""
    if name == "simple":
        from module2_tensors import SimpleBackend

        return SimpleBackend
    import module3_fast_ops

    attribute = {"fast": "FastBackend", "cuda": "CudaBackend"}[name]
    if hasattr(module3_fast_ops, attribute):
        return getattr(module3_fast_ops, attribute)
    from module3_fast_ops import fast_ops

    if name == "fast":
        return fast_ops.FastBackend
    from module3_fast_ops import cuda_ops

    return cuda_ops.CudaBackend


@st.cache_resource(show_spinner=False)
def gpu_status() -> Tuple[bool, str]:
    """Whether a real CUDA GPU is usable, and a line saying which."""
    try:
        from numba import config, cuda

        if config.ENABLE_CUDASIM:
            return False, "the Numba CUDA simulator is on (NUMBA_ENABLE_CUDASIM=1)"
        if cuda.is_available():
            name = cuda.get_current_device().name
            name = name.decode() if isinstance(name, bytes) else str(name)
            return True, f"CUDA GPU: {name}"
        return False, "no CUDA GPU here (the CUDA backend runs only in the simulator)"
    except Exception as error:  # noqa: BLE001 - any driver problem means "no GPU"
        return False, f"no usable CUDA GPU ({type(error).__name__})"


# ------------------------------------------------------------------ backends
def training_script() -> Any:
    """``project/run_fast_tensor.py`` (Task 3.5) if present, else Module 2's."""
    try:
        return load_script("run_fast_tensor")
    except ModuleNotFoundError:
        return load_script("run_tensor")


def compare_backends(names: List[str], epochs: int, hidden: int) -> List[dict]:
    """Train the same network on each backend; seconds per epoch and accuracy."""
    script = training_script()
    rows = []
    bar = st.progress(0.0, text="starting…")
    for k, name in enumerate(names):
        bar.progress(k / len(names), text=f"training on {name}…")
        started = time.perf_counter()
        history = script.train(
            "split", hidden=hidden, lr=0.5, epochs=epochs, pts=50, backend=backend(name)
        )
        seconds = time.perf_counter() - started
        per_epoch = list(getattr(history, "seconds", []) or [])
        rows.append(
            {
                "backend": name,
                "first epoch (s)": per_epoch[0] if per_epoch else seconds / epochs,
                "later epochs (s)": (
                    float(np.mean(per_epoch[1:])) if len(per_epoch) > 1 else math.nan
                ),
                "total (s)": seconds,
                "final accuracy": history.accuracies[-1],
            }
        )
    bar.progress(1.0, text="done")
    return rows


MATMUL_SIZES = {"simple": [4, 8, 16, 32], "fast": [4, 8, 16, 32, 64, 128, 256]}


def time_matmul(names: List[str]) -> Dict[str, Tuple[List[int], List[float]]]:
    """Seconds for one ``(n, n) @ (n, n)`` per backend and size (best of 3); the
    pure-Python backend stops at small sizes, it is a triple loop in Python."""
    from module2_tensors import rand

    plan = [
        (name, n)
        for name in names
        for n in MATMUL_SIZES.get(name, MATMUL_SIZES["fast"])
    ]
    results: Dict[str, Tuple[List[int], List[float]]] = {
        name: ([], []) for name in names
    }
    bar = st.progress(0.0, text="timing matmul…")
    for k, (name, n) in enumerate(plan):
        where = backend(name)
        x, y = rand(n, n, backend=where), rand(n, n, backend=where)
        x @ y  # compile (Numba) or warm up before timing
        best = math.inf
        for _ in range(3):
            started = time.perf_counter()
            x @ y
            best = min(best, time.perf_counter() - started)
        results[name][0].append(n)
        results[name][1].append(best)
        bar.progress((k + 1) / len(plan), text=f"{name}, n = {n}: {best * 1e3:.2f} ms")
    return results


def backends_section() -> None:
    has_gpu, gpu_line = gpu_status()
    st.markdown(
        "The same code on three backends: `simple` (Module 2, Python loops), `fast` "
        "(Numba, compiled and parallel over the CPU cores) and `cuda` (Numba CUDA, "
        "thousands of GPU threads). The first epoch on `fast` includes compiling "
        f"the kernels. {gpu_line[0].upper()}{gpu_line[1:]}."
    )
    choices = ["simple", "fast"] + (["cuda"] if has_gpu else [])
    c1, c2, c3 = st.columns(3)
    names = c1.multiselect("Backends", choices, choices, key="m3_backends")
    epochs = c2.number_input("Epochs", 2, 200, 10, key="m3_epochs")
    hidden = c3.number_input("Hidden units", 2, 200, 20, key="m3_hidden")
    left, right = st.columns(2)
    if left.button("Train on each backend", key="m3_train", disabled=not names):
        with task_guard("the backend comparison"):
            st.session_state["m3_rows"] = compare_backends(
                names, int(epochs), int(hidden)
            )
    if right.button("Time matmul", key="m3_matmul", disabled=not names):
        with task_guard("the matmul timing"):
            st.session_state["m3_mm"] = time_matmul(names)
    rows = st.session_state.get("m3_rows")
    if rows:
        st.dataframe(rows, hide_index=True)
        import plotly.graph_objects as go

        fig = go.Figure(
            go.Bar(
                x=[r["backend"] for r in rows],
                y=[
                    (
                        r["later epochs (s)"]
                        if not math.isnan(r["later epochs (s)"])
                        else r["first epoch (s)"]
                    )
                    for r in rows
                ],
                text=[f"{r['later epochs (s)'] * 1e3:.1f} ms" for r in rows],
            )
        )
        fig.update_layout(
            title="seconds per epoch (after the first)",
            yaxis=dict(type="log", title="seconds"),
            height=360,
        )
        st.plotly_chart(fig, key="m3_epoch_plot")
    timing = st.session_state.get("m3_mm")
    if timing:
        import plotly.graph_objects as go

        fig = go.Figure(
            [
                go.Scatter(x=sizes, y=values, name=name, mode="lines+markers")
                for name, (sizes, values) in timing.items()
            ]
        )
        fig.update_layout(
            title="one (n, n) @ (n, n) matmul",
            xaxis=dict(title="n", type="log"),
            yaxis=dict(title="seconds", type="log"),
            height=400,
        )
        st.plotly_chart(fig, key="m3_mm_plot")
        st.caption(
            "On a log-log plot a triple loop is a line of slope 3; compiled code "
            "shifts it down by orders of magnitude, and parallel threads by about "
            "the number of cores."
        )
    if not rows and not timing:
        st.caption("Press a button: training or timing takes a few seconds.")


# ---------------------------------------------------------------- benchmarks
def benchmarks_section() -> None:
    st.markdown(
        "`kindling bench` times the backends on standard workloads and writes "
        f"Markdown tables and PNG plots into `{BENCH_DIR.name}/`. They are shown "
        "here."
    )
    files = sorted(BENCH_DIR.glob("*")) if BENCH_DIR.is_dir() else []
    tables = [f for f in files if f.suffix == ".md"]
    images = [f for f in files if f.suffix == ".png"]
    if not files:
        st.info(
            "No benchmark results yet. Run `kindling bench` (or "
            "`python -m kindling bench`) in this checkout, then reload this page.",
            icon=":material/timer:",
        )
        return
    for table in tables:
        with st.expander(table.name, expanded=len(tables) == 1):
            st.markdown(table.read_text(encoding="utf-8"))
    for image in images:
        st.image(str(image), caption=image.name)


# ------------------------------------------------------ parallel diagnostics
KERNELS = {
    "map (neg)": "map",
    "zip (add)": "zip",
    "reduce (sum over a dim)": "reduce",
    "matrix multiply": "matmul",
}


def run_kernel(kind: str) -> Any:
    """Compile and run one FastOps kernel on small arrays; return the kernel."""
    from module0_fundamentals import operators
    from module3_fast_ops import fast_matmul, fast_ops
    from module3_fast_ops._dispatch import compiled

    def layout(shape: Tuple[int, ...]) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        strides = np.cumprod((1,) + shape[::-1])[:-1][::-1]
        return (
            np.arange(int(np.prod(shape)), dtype=np.float64),
            np.array(shape, dtype=np.int64),
            np.array(strides, dtype=np.int64),
        )

    a = layout((4, 5))
    out = layout((4, 5))
    if kind == "map":
        kernel = compiled(fast_ops.tensor_map, operators.neg)
        kernel(*out, *a)
    elif kind == "zip":
        kernel = compiled(fast_ops.tensor_zip, operators.add)
        kernel(*out, *a, *a)
    elif kind == "reduce":
        kernel = compiled(fast_ops.tensor_reduce, operators.add)
        kernel(*layout((4, 1)), *a, 1)
    else:
        kernel = compiled(fast_matmul.tensor_matrix_multiply)
        kernel(*layout((1, 4, 4)), *layout((1, 4, 5)), *layout((1, 5, 4)))
    return kernel


@st.cache_data(show_spinner=False, max_entries=16)
def diagnostics(kind: str, level: int) -> str:
    kernel = run_kernel(kind)
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        kernel.parallel_diagnostics(level=level)
    return buffer.getvalue()


def diagnostics_section() -> None:
    st.markdown(
        "With `njit(parallel=True)`, Numba turns `prange` loops (and array "
        "expressions) into parallel loops, fuses neighbours and hoists work that "
        "does not change out of them. `parallel_diagnostics` reports what it did: "
        "look for your `prange` loop under *Parallel loop listing*, and for "
        "allocations hoisted out of it."
    )
    c1, c2 = st.columns(2)
    kind = KERNELS[c1.selectbox("Kernel", list(KERNELS), key="m3_kernel")]
    level = c2.slider("Detail level", 1, 4, 1, key="m3_level")
    if st.button("Compile and show diagnostics", key="m3_diag"):
        with task_guard("the parallel diagnostics"):
            with st.spinner("Compiling with Numba…"):
                st.session_state["m3_diag_text"] = (
                    kind,
                    level,
                    diagnostics(kind, level),
                )
    shown = st.session_state.get("m3_diag_text")
    if shown and shown[:2] == (kind, level):
        st.code(shown[2] or "(no parallel loops found)", language="text")
    else:
        st.caption("Compiling a kernel takes a few seconds; press the button.")


# ---------------------------------------------------------------- CUDA launch
def cuda_constant(names: Tuple[str, ...], default: int) -> Tuple[int, str]:
    """A launch constant of ``module3_fast_ops.cuda_ops`` (the first of ``names``
    it defines), or ``default``; and where the value came from."""
    try:
        from module3_fast_ops import cuda_ops
    except Exception:  # noqa: BLE001 - absent module, or no CUDA support at all
        return default, "default"
    for name in names:
        value = getattr(cuda_ops, name, None)
        if isinstance(value, int):
            return value, f"cuda_ops.{name}"
    return default, "default"


def launch_figure(
    owner_block: np.ndarray, owner_thread: np.ndarray, picked: Optional[Tuple[int, int]]
) -> Any:
    """A heat map of the output: colour = the block that computes the entry, text =
    the thread index inside the block."""
    import plotly.graph_objects as go

    rows, cols = owner_block.shape
    fig = go.Figure(
        go.Heatmap(
            z=owner_block,
            text=owner_thread,
            texttemplate="%{text}" if rows * cols <= 600 else "",
            colorscale="Turbo",
            showscale=True,
            colorbar=dict(title="block"),
            hovertemplate="out[%{y}, %{x}]<br>block %{z}<br>thread %{text}"
            "<extra></extra>",
            xgap=1,
            ygap=1,
        )
    )
    if picked is not None:
        fig.add_shape(
            type="rect",
            x0=picked[1] - 0.5,
            x1=picked[1] + 0.5,
            y0=picked[0] - 0.5,
            y1=picked[0] + 0.5,
            line=dict(color="white", width=3),
        )
    fig.update_layout(
        height=min(120 + 22 * rows, 720),
        yaxis=dict(autorange="reversed", title="row", scaleanchor="x"),
        xaxis=dict(title="column", side="top"),
        margin=dict(l=10, r=10, t=30, b=10),
    )
    return fig


def cuda_section() -> None:
    has_gpu, gpu_line = gpu_status()
    st.markdown(
        "A CUDA launch `kernel[blocks, threads](...)` runs `blocks × threads` "
        "copies of the kernel. Each copy finds its work from `cuda.blockIdx`, "
        "`cuda.threadIdx` and `cuda.blockDim`: for a map, entry "
        "$i = \\text{blockIdx.x} \\cdot \\text{blockDim.x} + \\text{threadIdx.x}$, "
        "and threads with $i \\ge$ size do nothing. The picture colours each output "
        f"entry by the block that computes it. ({gpu_line}; this page only does "
        "the arithmetic.)"
    )
    kind = st.radio(
        "Kernel",
        ["map / zip", "matmul (shared-memory tiles)", "block sum (shared memory)"],
        horizontal=True,
        key="m3_cuda_kind",
    )
    if kind == "map / zip":
        tpb, source = cuda_constant(("THREADS_PER_BLOCK", "THREADS"), 32)
        c1, c2, c3 = st.columns(3)
        rows = c1.number_input("rows", 1, 64, 6, key="m3_map_rows")
        cols = c2.number_input("columns", 1, 64, 20, key="m3_map_cols")
        tpb = c3.number_input(
            "threads per block", 1, 1024, tpb, key="m3_tpb", help=f"from {source}"
        )
        size = int(rows * cols)
        blocks = (size + tpb - 1) // tpb
        ordinal = np.arange(size).reshape(int(rows), int(cols))
        st.code(
            f"out_size = {size}\nthreads_per_block = {tpb}\n"
            f"blocks = ceil({size} / {tpb}) = {blocks}\n"
            f"kernel[{blocks}, {tpb}](...)   # {blocks * tpb} threads, "
            f"{blocks * tpb - size} idle",
            language="python",
        )
        st.plotly_chart(
            launch_figure(ordinal // tpb, ordinal % tpb, None), key="m3_map_fig"
        )
        st.caption(
            "Each thread turns its ordinal $i$ into an output index with `to_index`, "
            "then into input positions with `broadcast_index` and "
            "`index_to_position`: the same helpers as Module 2, compiled for the GPU."
        )
    elif kind.startswith("matmul"):
        tile, source = cuda_constant(
            ("TILE_COLS", "TILE", "TILE_SIZE", "THREADS_PER_BLOCK_2D"), 8
        )
        tile = min(tile, 32)  # a GPU's tile (64 columns) is wider than the picture
        c1, c2, c3, c4 = st.columns(4)
        n = c1.number_input("rows of A (n)", 1, 64, 12, key="m3_mm_n")
        m = c2.number_input("columns of A = rows of B (m)", 1, 64, 10, key="m3_mm_m")
        p = c3.number_input("columns of B (p)", 1, 64, 20, key="m3_mm_p")
        tile = c4.number_input(
            "tile", 1, 32, tile, key="m3_tile", help=f"from {source}"
        )
        grid = ((int(p) + tile - 1) // tile, (int(n) + tile - 1) // tile)
        i_idx, j_idx = np.meshgrid(np.arange(n), np.arange(p), indexing="ij")
        block = (i_idx // tile) * grid[0] + (j_idx // tile)
        thread = (i_idx % tile) * tile + (j_idx % tile)
        c5, c6 = st.columns(2)
        pi = c5.slider(
            "pick an output row", 0, int(n) - 1, min(5, int(n) - 1), key="m3_pi"
        )
        pj = c6.slider(
            "pick an output column", 0, int(p) - 1, min(9, int(p) - 1), key="m3_pj"
        )
        phases = (int(m) + tile - 1) // tile
        st.code(
            f"blocks  = ({grid[0]}, {grid[1]}, batch)   # tiles: columns, rows, batch\n"
            f"threads = ({tile}, {tile})\n"
            f"out[{pi}, {pj}] is computed by block ({pj // tile}, {pi // tile}), "
            f"thread ({pj % tile}, {pi % tile});\n"
            f"it loops over {phases} phase(s): in each, the block copies a "
            f"{tile}x{tile} tile of A (rows {pi // tile * tile}..) and of B "
            f"(columns {pj // tile * tile}..) into shared memory, syncs, and adds "
            f"{tile} products.",
            language="python",
        )
        st.plotly_chart(launch_figure(block, thread, (pi, pj)), key="m3_mm_fig")
        st.caption(
            "Shared memory is why tiles pay off: each number of A and B is read from "
            "global memory once per tile instead of once per product."
        )
    else:
        tpb, source = cuda_constant(("PRACTICE_THREADS", "THREADS_PER_BLOCK"), 32)
        c1, c2 = st.columns(2)
        size = c1.number_input("entries to sum", 1, 4096, 100, key="m3_sum_n")
        tpb = c2.number_input(
            "threads per block", 2, 1024, tpb, key="m3_sum_tpb", help=f"from {source}"
        )
        blocks = (int(size) + tpb - 1) // tpb
        steps = []
        width = int(tpb)
        while width > 1:
            half = (width + 1) // 2
            steps.append(
                f"stride {half:>4}: threads 0..{width - half - 1} add cache[i + {half}]"
            )
            width = half
        st.code(
            f"blocks = ceil({size} / {tpb}) = {blocks}; each block sums {tpb} entries\n"
            "in shared memory, halving the active threads at each step:\n  "
            + "\n  ".join(steps)
            + f"\n{len(steps)} steps (log2 of {tpb}) instead of {tpb - 1} additions "
            f"in a row;\nthread 0 of each block writes its block's sum: {blocks} "
            "partial sums.",
            language="text",
        )
        ordinal = np.arange(int(size))
        cols = int(min(tpb, 64))
        rows = (int(size) + cols - 1) // cols
        padded = np.full(rows * cols, -1)
        padded[: int(size)] = ordinal
        grid = padded.reshape(rows, cols)
        block = np.where(grid >= 0, grid // tpb, np.nan)
        thread = np.where(grid >= 0, grid % tpb, -1)
        st.plotly_chart(launch_figure(block, thread, None), key="m3_sum_fig")


header(
    "Module 3 · Fast ops",
    "Compiled, parallel kernels behind the same tensor interface: Numba on the CPU "
    "cores, and Numba CUDA on a GPU.",
    "Tasks 3.1 parallel map/zip/reduce · 3.2 parallel matmul · 3.3 CUDA ops · "
    "3.4 CUDA matmul · 3.5 fast training and benchmarks",
    3,
)
tabs = section_tabs(
    ["Backends", "Benchmarks", "Parallel diagnostics", "CUDA launch"], key="m3_section"
)
for tab, draw in zip(
    tabs, [backends_section, benchmarks_section, diagnostics_section, cuda_section]
):
    with tab:
        if tab.open:
            draw()
