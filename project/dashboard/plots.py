"""Plotly figures shared by the pages: decision boundaries, loss curves, grids.

Plotly is imported here, and this module is imported only by the pages that draw,
so the first page of the dashboard does not pay for it.
"""

from __future__ import annotations

from typing import Callable, List, Optional, Sequence, Tuple

import numpy as np
import plotly.graph_objects as go

CLASS_COLORS = ("#1f77b4", "#ff7f0e")  # label 0, label 1
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")
GRID = 41  # points per side of a decision-boundary grid


def grid_points(n: int = GRID) -> Tuple[np.ndarray, List[Tuple[float, float]]]:
    """The coordinates of an ``n x n`` grid over the unit square, and its points
    row by row (x2 outer, x1 inner), as plain float pairs for course code."""
    axis = np.linspace(0.0, 1.0, n)
    points = [(float(a), float(b)) for b in axis for a in axis]
    return axis, points


def decision_figure(
    X: Sequence[Tuple[float, float]],
    y: Sequence[int],
    probability: Optional[np.ndarray] = None,
    axis: Optional[np.ndarray] = None,
    line: Optional[Tuple[float, float, float]] = None,
    predicted: Optional[Sequence[int]] = None,
    title: str = "",
) -> go.Figure:
    """Points coloured by label over a heat map of $P(y = 1)$.

    Args:
        X, y: the dataset (points in the unit square, labels 0/1).
        probability: ``(n, n)`` array of $P(y = 1)$ on the grid ``axis`` (rows
            follow $x_2$), or ``None``.
        line: ``(w1, w2, b)`` to draw the line $w_1 x_1 + w_2 x_2 + b = 0$.
        predicted: predicted labels; misclassified points get a black ring.
    """
    fig = go.Figure()
    if probability is not None and axis is not None:
        fig.add_trace(
            go.Heatmap(
                x=axis,
                y=axis,
                z=probability,
                zmin=0.0,
                zmax=1.0,
                colorscale=[[0.0, "#c6dbef"], [0.5, "#ffffff"], [1.0, "#fdd0a2"]],
                colorbar=dict(title="P(y=1)", thickness=12),
                hovertemplate="x1=%{x:.2f}<br>x2=%{y:.2f}<br>P(y=1)=%{z:.2f}"
                "<extra></extra>",
            )
        )
        fig.add_trace(
            go.Contour(
                x=axis,
                y=axis,
                z=probability,
                contours=dict(start=0.5, end=0.5, size=1, coloring="none"),
                line=dict(color="black", width=2),
                showscale=False,
                hoverinfo="skip",
                name="P = 0.5",
            )
        )
    X = np.asarray(X, dtype=float).reshape(-1, 2)
    y = np.asarray(y, dtype=int)
    wrong = (
        np.asarray(predicted, dtype=int) != y
        if predicted is not None and len(predicted) == len(y)
        else np.zeros(len(y), dtype=bool)
    )
    for label in (0, 1):
        chosen = y == label
        fig.add_trace(
            go.Scatter(
                x=X[chosen, 0],
                y=X[chosen, 1],
                mode="markers",
                name=f"label {label}",
                marker=dict(
                    color=CLASS_COLORS[label],
                    size=8,
                    line=dict(
                        color=np.where(wrong[chosen], "black", "white").tolist(),
                        width=np.where(wrong[chosen], 2.5, 0.8).tolist(),
                    ),
                ),
            )
        )
    if line is not None:
        w1, w2, b = line
        xs, ys = _line_in_square(w1, w2, b)
        if xs:
            fig.add_trace(
                go.Scatter(
                    x=xs,
                    y=ys,
                    mode="lines",
                    name="w1·x1 + w2·x2 + b = 0",
                    line=dict(color="black", width=3),
                )
            )
    fig.update_layout(
        title=title,
        xaxis=dict(title="x1", range=[0, 1], constrain="domain"),
        yaxis=dict(title="x2", range=[0, 1], scaleanchor="x"),
        width=560,
        height=520,
        margin=dict(l=10, r=10, t=40 if title else 10, b=10),
        legend=dict(orientation="h", y=-0.15),
    )
    return fig


def _line_in_square(w1: float, w2: float, b: float) -> Tuple[List[float], List[float]]:
    """The segment of $w_1 x_1 + w_2 x_2 + b = 0$ inside the unit square."""
    points = []
    if abs(w2) > 1e-12:
        for x in (0.0, 1.0):
            points.append((x, -(w1 * x + b) / w2))
    if abs(w1) > 1e-12:
        for yv in (0.0, 1.0):
            points.append((-(w2 * yv + b) / w1, yv))
    inside = [
        (a, c) for a, c in points if -1e-9 <= a <= 1 + 1e-9 and -1e-9 <= c <= 1 + 1e-9
    ]
    inside = sorted(set(inside))
    if len(inside) < 2:
        return [], []
    (a0, c0), (a1, c1) = inside[0], inside[-1]
    return [a0, a1], [c0, c1]


def loss_figure(
    losses: Sequence[float],
    accuracies: Optional[Sequence[float]] = None,
    title: str = "Training",
) -> go.Figure:
    """Loss per epoch (left axis) and accuracy (right axis, if given)."""
    epochs = list(range(1, len(losses) + 1))
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=epochs, y=list(losses), name="loss", mode="lines"))
    if accuracies:
        fig.add_trace(
            go.Scatter(
                x=epochs[: len(accuracies)],
                y=[100 * a for a in accuracies],
                name="accuracy (%)",
                mode="lines",
                yaxis="y2",
                line=dict(dash="dot"),
            )
        )
    fig.update_layout(
        title=title,
        xaxis=dict(title="epoch"),
        yaxis=dict(title="loss", rangemode="tozero"),
        yaxis2=dict(title="accuracy (%)", overlaying="y", side="right", range=[0, 101]),
        height=360,
        margin=dict(l=10, r=10, t=40, b=10),
        legend=dict(orientation="h", y=-0.2),
    )
    return fig


def curve_figure(
    x: np.ndarray,
    curves: Sequence[Tuple[str, np.ndarray, dict]],
    title: str = "",
    x_title: str = "x",
    y_title: str = "",
    log: bool = False,
) -> go.Figure:
    """Several named curves over the same ``x`` (``(name, y, line style)``)."""
    fig = go.Figure()
    for index, (name, values, style) in enumerate(curves):
        style = dict(style)
        mode = style.pop("mode", "lines")
        color = PALETTE[index % len(PALETTE)]
        style["line"] = {"color": color, **style.get("line", {})}
        if "markers" in mode:
            style["marker"] = {"color": color, **style.get("marker", {})}
        fig.add_trace(go.Scatter(x=x, y=values, name=name, mode=mode, **style))
    fig.update_layout(
        title=title,
        xaxis=dict(title=x_title, type="log" if log else "linear"),
        yaxis=dict(title=y_title, type="log" if log else "linear"),
        height=420,
        margin=dict(l=10, r=10, t=40 if title else 10, b=10),
        legend=dict(orientation="h", y=-0.2),
    )
    return fig


def probability_grid(
    probability: Callable[[float, float], float], n: int = GRID
) -> Tuple[np.ndarray, np.ndarray]:
    """``(axis, P)`` with ``P[i, j] = probability(axis[j], axis[i])``."""
    axis, points = grid_points(n)
    values = np.array([probability(a, b) for a, b in points], dtype=float)
    return axis, values.reshape(n, n)
