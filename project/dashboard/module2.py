"""Module 2 · Tensors: strides made visible, broadcasting explained, and the
network of Module 1 trained on tensors.

Sections (each runs only while its tab is open):

* **Tensor explorer** — shape, strides and a permutation; pick an index and see
  ``index_to_position`` add it up and the storage cell light up; ``to_index`` peel an
  ordinal back into an index;
* **Broadcasting** — two shapes, aligned on the right, and the result shape or the
  dimension that breaks the rules;
* **Training** — ``project/run_tensor.py`` (Task 2.5) with a live loss curve.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

import numpy as np
import streamlit as st

from project.dashboard.common import header, section_tabs, task_guard

MAX_ENTRIES = 120  # keep the pictures readable


def read_shape(
    label: str, default: str, key: str, allow_empty: bool = False
) -> Optional[Tuple[int, ...]]:
    """A comma-separated shape from a text box, or ``None`` (with a message)."""
    text = st.text_input(label, default, key=key, help="Sizes separated by commas.")
    parts = [p.strip() for p in text.replace("(", "").replace(")", "").split(",")]
    parts = [p for p in parts if p]
    if not parts and not allow_empty:
        st.warning("Type at least one size, e.g. `2, 3`.")
        return None
    try:
        shape = tuple(int(p) for p in parts)
    except ValueError:
        st.warning(f"`{text}` is not a list of whole numbers, e.g. `2, 3, 4`.")
        return None
    if any(size < 0 for size in shape) or len(shape) > 5:
        st.warning("Sizes must be >= 0, and at most 5 dimensions here.")
        return None
    return shape


# ------------------------------------------------------------- the explorer
def cell_layout(shape: Tuple[int, ...]) -> List[Tuple[int, int]]:
    """Where each entry of a view is drawn, in row-major order: ``(column, row)``.

    The last two dimensions make a grid (rows x columns); the leading dimensions
    are blocks laid side by side with a one-cell gap, so a ``(2, 3, 4)`` view is two
    3 x 4 grids."""
    if not shape:
        return [(0, 0)]
    rows = shape[-2] if len(shape) > 1 else 1
    cols = shape[-1]
    blocks = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    return [
        (b * (cols + 1) + c, r)
        for b in range(blocks)
        for r in range(rows)
        for c in range(cols)
    ]


def stride_figure(
    view_shape: Tuple[int, ...],
    positions: np.ndarray,
    storage_size: int,
    picked_ordinal: int,
    picked_position: int,
) -> Any:
    """The stride diagram: the storage as one row of cells on top, the view below
    (its last two dimensions as a grid, leading dimensions as blocks side by
    side), each view cell labelled with the storage position it reads; the picked
    entry and its storage cell in orange, with an arrow between them."""
    import plotly.graph_objects as go

    layout = cell_layout(view_shape)
    rows = 1 + max(r for _, r in layout)
    width = max(storage_size, 1 + max(c for c, _ in layout))
    gap = 1.6  # vertical space between the storage row and the grid
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=list(range(storage_size)),
            y=[0] * storage_size,
            mode="markers+text",
            text=[str(p) for p in range(storage_size)],
            marker=dict(
                symbol="square",
                size=26,
                color=[
                    "#ff7f0e" if p == picked_position else "#c6dbef"
                    for p in range(storage_size)
                ],
            ),
            textfont=dict(size=11),
            name="storage",
            hovertemplate="storage[%{text}]<extra></extra>",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[c for c, _ in layout],
            y=[-(gap + r) for _, r in layout],
            mode="markers+text",
            text=[str(int(p)) for p in positions],
            marker=dict(
                symbol="square",
                size=26,
                color=[
                    "#ff7f0e" if k == picked_ordinal else "#d9f0d3"
                    for k in range(len(layout))
                ],
            ),
            textfont=dict(size=11),
            name="view",
            hovertemplate="reads storage[%{text}]<extra></extra>",
        )
    )
    column, row = layout[picked_ordinal]
    fig.add_annotation(
        x=picked_position,
        y=-0.3,
        ax=column,
        ay=-(gap + row) + 0.3,
        xref="x",
        yref="y",
        axref="x",
        ayref="y",
        showarrow=True,
        arrowhead=3,
        arrowwidth=2,
        arrowcolor="#d95f02",
    )
    for text, y in (("storage", 0.45), (f"view {tuple(view_shape)}", -gap + 0.45)):
        fig.add_annotation(
            x=-0.7, y=y, text=text, showarrow=False, xanchor="left", yanchor="bottom"
        )
    fig.update_layout(
        height=150 + 34 * rows,
        margin=dict(l=10, r=10, t=10, b=10),
        xaxis=dict(visible=False, range=[-0.8, width - 0.2]),
        yaxis=dict(visible=False, range=[-(gap + rows) + 0.3, 1.0]),
        showlegend=False,
        plot_bgcolor="rgba(0,0,0,0)",
    )
    return fig


def position_steps(index: Sequence[int], strides: Sequence[int]) -> List[dict]:
    """The terms of $\\sum_k i_k s_k$, one row per dimension, with the running sum."""
    rows, total = [], 0
    for k, (i, s) in enumerate(zip(index, strides)):
        total += i * s
        rows.append(
            {
                "dim k": k,
                "index i_k": i,
                "stride s_k": s,
                "i_k·s_k": i * s,
                "sum": total,
            }
        )
    return rows


def to_index_steps(ordinal: int, shape: Sequence[int]) -> List[dict]:
    """The divisions of ``to_index``: peel the last dimension off with % and //."""
    rows, rest = [], ordinal
    for k in range(len(shape) - 1, -1, -1):
        rows.append(
            {
                "dim k": k,
                "size": shape[k],
                "rest": rest,
                "i_k = rest % size": rest % shape[k],
                "rest // size": rest // shape[k],
            }
        )
        rest //= shape[k]
    return rows


def tensor_explorer() -> None:
    st.markdown(
        "A tensor is a flat **storage** seen through a **shape** and **strides**: "
        "the entry at index $(i_0, \\dots, i_{d-1})$ lives at "
        "$\\sum_k i_k s_k$. `permute` only reorders shape and strides (no copy), "
        "which is why a permuted tensor is no longer contiguous. Storage holds "
        "0, 1, 2, … so each value is its own position."
    )
    c1, c2 = st.columns(2)
    with c1:
        shape = read_shape("Shape", "2, 3, 4", "m2_shape")
    if shape is None:
        return
    size = int(np.prod(shape)) if shape else 1
    if size > MAX_ENTRIES:
        st.warning(f"That is {size} entries; keep it under {MAX_ENTRIES} to see them.")
        return
    if size == 0:
        st.info("A shape with a 0 has no entries: nothing to draw.")
        return
    with c2:
        # Default: swap the last two dimensions (a transpose of each grid).
        dims = list(range(len(shape)))
        dims[-2:] = dims[-2:][::-1]
        default = ", ".join(str(k) for k in dims)
        order_text = st.text_input(
            "Permute order (empty: none)",
            default if len(shape) > 1 else "",
            key=f"m2_order_{len(shape)}",
            help="A reordering of 0 … d-1: dimension k of the view is dimension "
            "order[k] of the tensor.",
        )
    with task_guard("the tensor explorer"):
        from module2_tensors.tensor_data import (
            TensorData,
            index_to_position,
            to_index,
        )

        base = TensorData(np.arange(size, dtype=np.float64), shape)
        view = base
        order: Tuple[int, ...] = ()
        if order_text.strip():
            try:
                order = tuple(int(p) for p in order_text.split(",") if p.strip())
            except ValueError:
                st.warning("The order is a list of whole numbers, e.g. `2, 0, 1`.")
                return
            try:
                view = base.permute(*order)
            except IndexError as error:
                st.warning(f"permute refused: {error}")
                return
        k1, k2, k3, k4 = st.columns(4)
        k1.metric("view shape", str(tuple(view.shape)))
        k2.metric("strides", str(tuple(view.strides)))
        k3.metric("contiguous", "yes" if view.is_contiguous() else "no")
        k4.metric("entries", view.size)
        st.markdown("**Pick an index of the view**")
        cols = st.columns(max(len(view.shape), 1))
        picked = tuple(
            (
                cols[k].slider(
                    f"i{k}", 0, view.shape[k] - 1, view.shape[k] // 2, key=f"m2_i{k}"
                )
                if view.shape[k] > 1
                else cols[k].number_input(f"i{k}", 0, 0, 0, key=f"m2_i{k}_fixed")
            )
            for k in range(len(view.shape))
        )
        position = int(
            index_to_position(np.array(picked, dtype=np.int64), np.array(view.strides))
        )
        every = list(view.indices())
        positions = np.array([view.index(ix) for ix in every], dtype=int)
        ordinal_of_pick = every.index(picked) if picked in every else 0
        st.plotly_chart(
            stride_figure(
                tuple(view.shape), positions, size, ordinal_of_pick, position
            ),
            key="m2_strides",
        )
        left, right = st.columns(2)
        with left:
            st.markdown(f"**index_to_position{picked} = {position}**")
            st.dataframe(position_steps(picked, view.strides), hide_index=True)
        with right:
            ordinal = st.number_input(
                "to_index: the ordinal (row-major count) of an entry",
                0,
                size - 1,
                min(5, size - 1),
                key="m2_ordinal",
            )
            out = np.zeros(len(view.shape), dtype=np.int64)
            to_index(int(ordinal), np.array(view.shape, dtype=np.int64), out)
            found = tuple(int(i) for i in out)
            st.markdown(f"**to_index({int(ordinal)}, {tuple(view.shape)}) = {found}**")
            st.dataframe(to_index_steps(int(ordinal), view.shape), hide_index=True)
        if not view.is_contiguous():
            st.caption(
                "This view is not contiguous: walking it in row-major order jumps "
                "around the storage. `view()` refuses it; `contiguous()` copies it "
                "into a fresh storage first."
            )


# ------------------------------------------------------------- broadcasting
def broadcast_figure(
    shapes: List[Tuple[str, Tuple[int, ...]]],
    result: Tuple[int, ...],
    big: Tuple[int, ...],
) -> Any:
    """The last two dimensions of each input stretched to the result: solid cells
    are the input's own entries, faded ones the copies broadcasting pretends are
    there (each labelled with the entry it repeats); the picked output entry and the
    entries it reads are orange."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    def last2(shape: Tuple[int, ...]) -> Tuple[int, int]:
        padded = (1, 1) + tuple(shape)
        return padded[-2], padded[-1]

    rows, cols = last2(result)
    pick = (1, 1) + tuple(big)
    pick_r, pick_c = pick[-2], pick[-1]
    panels = shapes + [("a ⊕ b", result)]
    fig = make_subplots(
        rows=1,
        cols=len(panels),
        subplot_titles=[f"{name} {shape}" for name, shape in panels],
        horizontal_spacing=0.05,
    )
    for k, (name, shape) in enumerate(panels, start=1):
        r_in, c_in = last2(shape)
        xs, ys, texts, colors = [], [], [], []
        for i in range(rows):
            for j in range(cols):
                src = (i if r_in > 1 else 0, j if c_in > 1 else 0)
                own = (i, j) == src
                hit = src == (pick_r if r_in > 1 else 0, pick_c if c_in > 1 else 0)
                if k == len(panels):
                    own, hit = True, (i, j) == (pick_r, pick_c)
                xs.append(j)
                ys.append(-i)
                texts.append(f"{src[0]},{src[1]}")
                if hit and (own or k == len(panels)):
                    colors.append("#ff7f0e")
                elif hit:
                    colors.append("#fdd0a2")
                else:
                    colors.append("#6baed6" if own else "#deebf7")
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=ys,
                mode="markers+text",
                text=texts,
                marker=dict(symbol="square", size=30, color=colors),
                textfont=dict(size=10),
                hoverinfo="skip",
                showlegend=False,
            ),
            row=1,
            col=k,
        )
    fig.update_xaxes(visible=False, range=[-0.7, cols - 0.3])
    fig.update_yaxes(visible=False, range=[-rows + 0.3, 0.7])
    fig.update_layout(height=110 + 36 * rows, margin=dict(l=10, r=10, t=40, b=10))
    return fig


def broadcasting() -> None:
    st.markdown(
        "Two shapes broadcast when, aligned on the **right**, each pair of sizes is "
        "equal or one of them is 1. Missing dimensions on the left count as 1; a "
        "size 1 is stretched (no copy: its stride becomes 0)."
    )
    c1, c2 = st.columns(2)
    with c1:
        a = read_shape("Shape of a", "4, 1, 3", "m2_a", allow_empty=True)
    with c2:
        b = read_shape("Shape of b", "5, 1", "m2_b", allow_empty=True)
    if a is None or b is None:
        return
    width = max(len(a), len(b), 1)
    pad_a = (None,) * (width - len(a)) + a
    pad_b = (None,) * (width - len(b)) + b
    bad = [
        k
        for k in range(width)
        if pad_a[k] is not None
        and pad_b[k] is not None
        and pad_a[k] != pad_b[k]
        and 1 not in (pad_a[k], pad_b[k])
    ]
    with task_guard("broadcasting"):
        from module2_tensors.tensor_data import broadcast_index, shape_broadcast

        try:
            result: Optional[Tuple[int, ...]] = tuple(shape_broadcast(a, b))
            message = ""
        except ValueError as error:
            result, message = None, str(error)

        def cell(size: Optional[int], k: int) -> str:
            if size is None:
                return "(1)"
            return f"{size} ✗" if k in bad else str(size)

        table = {"": ["a", "b", "a ⊕ b"]}
        for k in range(width):
            name = f"dim {k - width}"
            table[name] = [
                cell(pad_a[k], k),
                cell(pad_b[k], k),
                str(result[k]) if result is not None else ("✗" if k in bad else "?"),
            ]
        st.dataframe(table, hide_index=True)
        if result is None:
            st.warning(f"**They do not broadcast.** {message}")
            if bad:
                k = bad[0]
                st.markdown(
                    f"At dimension {k - width} (counting from the right) the sizes "
                    f"are {pad_a[k]} and {pad_b[k]}: they differ and neither is 1, so "
                    "neither can be stretched to the other."
                )
            return
        st.success(f"a {a} and b {b} broadcast to **{result}**.")
        if not result or 0 in result:
            return
        st.markdown("**Which entries does an output entry read?** (`broadcast_index`)")
        cols = st.columns(len(result))
        big = tuple(
            (
                cols[k].slider(
                    f"out index {k}", 0, result[k] - 1, result[k] // 2, key=f"m2_b{k}"
                )
                if result[k] > 1
                else 0
            )
            for k in range(len(result))
        )
        rows = []
        for name, shape in (("a", a), ("b", b)):
            out = np.zeros(len(shape), dtype=np.int64)
            broadcast_index(
                np.array(big, dtype=np.int64),
                np.array(result, dtype=np.int64),
                np.array(shape, dtype=np.int64),
                out,
            )
            rows.append(
                {
                    "input": name,
                    "shape": str(shape),
                    "reads index": str(tuple(int(i) for i in out)),
                }
            )
        st.caption(f"out{big} = a[…] + b[…] with:")
        st.dataframe(rows, hide_index=True)
        if max(len(a), len(b)) and int(np.prod(result[-2:])) <= 200:
            st.plotly_chart(
                broadcast_figure([("a", a), ("b", b)], result, big),
                key="m2_broadcast_fig",
            )
            st.caption(
                "The last two dimensions: dark cells are the input's own entries, "
                "light ones the copies broadcasting reads instead (labelled with "
                "the entry they repeat); orange: the picked output entry and what "
                "it reads."
            )


# ---------------------------------------------------------------- training
def tensor_probability(model: Any, points: Any) -> np.ndarray:
    """P(y = 1) of the tensor network at each point (one batched forward)."""
    from module2_tensors import tensor

    backend = next(model.parameters()).value.backend  # the points go where the model is
    out = model(tensor([list(p) for p in points], backend=backend))
    logits = np.asarray(out.to_numpy(), dtype=float).reshape(-1)
    return 0.5 * (1.0 + np.tanh(0.5 * logits))


def train_section() -> None:
    from project.dashboard.training import training_panel

    st.markdown(
        "The network of Task 1.5 again, now as tensors (`project/run_tensor.py`, "
        "Task 2.5): each layer is one matrix multiply and a broadcast add, so an "
        "epoch is a handful of tensor operations instead of thousands of `Scalar`s."
    )
    training_panel(
        "run_tensor",
        "m2_t",
        tensor_probability,
        dict(dataset="xor", hidden=10, lr=0.5, epochs=100, pts=50),
    )


header(
    "Module 2 · Tensors",
    "Many numbers in one flat storage, seen through shape and strides; operations "
    "that broadcast; and the same autodiff, one tensor at a time.",
    "Tasks 2.1 TensorData · 2.2 broadcasting · 2.3 tensor ops · 2.4 backwards · "
    "2.5 training · 2.6 shape ops",
    2,
)
explorer, broadcast, training = section_tabs(
    ["Tensor explorer", "Broadcasting", "Training"], key="m2_section"
)
with explorer:
    if explorer.open:
        tensor_explorer()
with broadcast:
    if broadcast.open:
        broadcasting()
with training:
    if training.open:
        train_section()
