"""The training panel shared by the Module 1, 2 and 3 pages.

Every training script of ``project/`` exposes ``train(dataset, hidden=..., lr=...,
epochs=..., pts=..., seed=..., log=...)`` that calls ``log(epoch, epochs, loss,
accuracy)`` after each epoch and returns a history with ``.model``, ``.losses`` and
``.accuracies``. The panel runs it with a progress bar and a loss curve that grows
live. Each epoch's numbers go into ``st.session_state`` as they arrive, so a run
stopped half way (the Stop button, or touching a widget) still shows its curve.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Dict, Optional, Sequence

import numpy as np
import streamlit as st

from project.dashboard.common import load_script, task_guard

#: ``probability(model, points)``: P(y = 1) for a list of (x1, x2) points.
Probability = Callable[[Any, Sequence[Sequence[float]]], np.ndarray]


def dataset_names() -> Optional[list]:
    """The datasets of Module 0, or ``None`` (with a message) when unavailable."""
    with task_guard("Module 0's datasets") as outcome:
        from module0_fundamentals.datasets import DATASETS

        return list(DATASETS)
    assert not outcome.ok
    return None


def training_panel(
    script: str,
    prefix: str,
    probability: Probability,
    defaults: Dict[str, Any],
    extra: Optional[Callable[[], Dict[str, Any]]] = None,
    grid: int = 25,
) -> None:
    """Widgets for the hyperparameters, a Train button, the live loss curve, and
    the learned decision boundary.

    Args:
        script: the training script's module name in ``project/`` (``run_scalar``).
        prefix: a widget-key prefix, unique per page.
        probability: turns the trained model and grid points into P(y = 1).
        defaults: default ``dataset``, ``hidden``, ``lr``, ``epochs``, ``pts``.
        extra: draws more widgets and returns more keyword arguments for ``train``.
        grid: points per side of the decision-boundary grid.
    """
    from project.dashboard.plots import decision_figure, grid_points, loss_figure

    names = dataset_names()
    if names is None:
        return
    c1, c2, c3, c4, c5 = st.columns(5)
    default = defaults.get("dataset", names[0])
    dataset = c1.selectbox(
        "Dataset",
        names,
        index=names.index(default) if default in names else 0,
        key=f"{prefix}_data",
    )
    hidden = c2.number_input(
        "Hidden units", 1, 64, defaults.get("hidden", 4), key=f"{prefix}_hidden"
    )
    lr = c3.number_input(
        "Learning rate",
        0.001,
        10.0,
        float(defaults.get("lr", 0.5)),
        step=0.05,
        format="%.3f",
        key=f"{prefix}_lr",
    )
    epochs = c4.number_input(
        "Epochs", 1, 2000, defaults.get("epochs", 50), key=f"{prefix}_epochs"
    )
    pts = c5.number_input(
        "Points", 4, 500, defaults.get("pts", 50), key=f"{prefix}_pts"
    )
    kwargs = extra() if extra is not None else {}
    settings = (dataset, int(hidden), float(lr), int(epochs), int(pts))
    settings += tuple(sorted((k, str(v)) for k, v in kwargs.items()))
    runs: Dict[tuple, dict] = st.session_state.setdefault(f"{prefix}_runs", {})
    start = st.button("Train", type="primary", key=f"{prefix}_go")
    status = st.empty()
    chart = st.empty()
    if start:
        run: Dict[str, Any] = {
            "losses": [],
            "accuracies": [],
            "finished": False,
            "seconds": [],
        }
        runs[settings] = run
        with task_guard(f"training ({script}.py)") as outcome:
            module = load_script(script)
            bar = status.progress(0.0, text="starting…")
            started = time.monotonic()

            def log(
                epoch: int, total: int, loss: float, accuracy: float, *rest: float
            ) -> None:
                # Scripts from Module 2 on also pass the epoch's seconds.
                run["losses"].append(float(loss))
                run["accuracies"].append(float(accuracy))
                run["seconds"].append(time.monotonic() - started)
                if rest:
                    run.setdefault("epoch_seconds", []).append(float(rest[0]))
                bar.progress(
                    epoch / max(total, 1),
                    text=f"epoch {epoch}/{total}: loss {loss:.4f}, "
                    f"accuracy {100 * accuracy:.0f}%",
                )
                # Redraw about 40 times per run, not every epoch.
                if epoch == total or epoch % max(1, total // 40) == 0:
                    chart.plotly_chart(
                        loss_figure(run["losses"], run["accuracies"]),
                        key=f"{prefix}_live_{epoch}",
                    )

            history = module.train(
                dataset,
                hidden=settings[1],
                lr=settings[2],
                epochs=settings[3],
                pts=settings[4],
                log=log,
                **kwargs,
            )
            axis, points = grid_points(grid)
            values = np.asarray(probability(history.model, points), dtype=float)
            run["grid"] = (axis, values.reshape(grid, grid))
            run["finished"] = True
            status.empty()
        if not outcome.ok and not run["losses"]:
            del runs[settings]  # it failed before its first epoch: nothing to show
    run = runs.get(settings)
    with task_guard("the dataset"):
        from module0_fundamentals.datasets import DATASETS

        data = DATASETS[dataset](settings[4], seed=0)
        if run is None:
            st.caption(
                "Press **Train** to start (the Stop button in the top corner ends "
                "a run early)."
            )
            st.plotly_chart(
                decision_figure(data.X, data.y, title=f"{dataset}: the points"),
                key=f"{prefix}_points",
            )
            return
        left, right = st.columns(2)
        if run["losses"]:
            chart.empty()
            left.plotly_chart(
                loss_figure(run["losses"], run["accuracies"]), key=f"{prefix}_loss"
            )
            seconds = run["seconds"][-1] if run["seconds"] else 0.0
            left.caption(
                f"{len(run['losses'])} epochs in {seconds:.1f} s "
                f"({seconds / max(len(run['losses']), 1):.3f} s per epoch); final "
                f"loss {run['losses'][-1]:.4f}, accuracy "
                f"{100 * run['accuracies'][-1]:.0f}%."
            )
        if not run["finished"]:
            right.info(f"Stopped after {len(run['losses'])} epochs.")
            return
        axis, values = run["grid"]
        right.plotly_chart(
            decision_figure(data.X, data.y, values, axis, title="learned P(y = 1)"),
            key=f"{prefix}_boundary",
        )
