"""Module 0 · Fundamentals: the operators, the Module tree, and a classifier you
tune by hand.

Three sections, each running only while its tab is open:

* **Math sandbox** — plot any operator of Task 0.1 (and its ``*_back``) over a range,
  and try the higher-order functions of Task 0.3 on a list;
* **Module sandbox** — build a tree of Modules and see ``named_parameters`` and the
  train/eval flags of Task 0.4;
* **Manual classifier** — sliders for $w_1, w_2, b$ over a dataset of Task 0.5, with
  the decision boundary.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Tuple

import numpy as np
import streamlit as st

from project.dashboard.common import header, section_tabs, show_failure, task_guard

UNARY = ["id", "neg", "sigmoid", "relu", "log", "exp", "inv", "sin", "cos", "tanh"]
BINARY = ["add", "mul", "max", "lt", "eq"]
BACKS = {"log": "log_back", "inv": "inv_back", "relu": "relu_back"}
STEP = 1e-4  # for the numerical slope drawn next to each operator


def sample_operator(
    name: str, xs: np.ndarray, y_value: float, d: float
) -> Dict[str, List[float]]:
    """The operator (and its back, if it has one) at every ``x``; ``nan`` where the
    operator rejects the input (``log`` of a negative number, ...)."""
    from module0_fundamentals import operators

    fn = getattr(operators, name)
    back = getattr(operators, BACKS[name]) if name in BACKS else None

    def f(x: float) -> float:
        return float(fn(x, y_value)) if name in BINARY else float(fn(x))

    def safe(call: Any, *args: float) -> float:
        try:
            value = float(call(*args))
        except (ValueError, OverflowError, ZeroDivisionError):
            return math.nan
        return value

    values = [safe(f, float(x)) for x in xs]
    slopes = [
        d * (safe(f, float(x) + STEP) - safe(f, float(x) - STEP)) / (2 * STEP)
        for x in xs
    ]
    out = {"f": values, "slope": slopes}
    if back is not None:
        out["back"] = [safe(back, float(x), d) for x in xs]
    return out


def math_sandbox() -> None:
    from project.dashboard.plots import curve_figure

    st.markdown(
        "Pick an operator from `module0_fundamentals/operators.py` and see it over a "
        "range. Operators with a backward step (`log_back`, `inv_back`, "
        "`relu_back`) show it too: it should match the slope of the curve times "
        "$d$, which is drawn as dots (a central difference)."
    )
    left, right = st.columns([1, 3])
    with left:
        name = st.selectbox("Operator", UNARY + BINARY, index=2, key="m0_op")
        low, high = st.slider(
            "Range of x", -10.0, 10.0, (-5.0, 5.0), step=0.5, key="m0_range"
        )
        y_value = 0.0
        if name in BINARY:
            y_value = st.slider("Second argument y", -5.0, 5.0, 1.0, key="m0_y")
        d = st.slider("Upstream derivative d", -2.0, 2.0, 1.0, key="m0_d")
    if high <= low:
        right.warning("Choose a range with low < high.")
        return
    xs = np.linspace(low, high, 201)
    with right, task_guard("the math sandbox"):
        sampled = sample_operator(name, xs, y_value, d)
        label = f"{name}(x, {y_value:g})" if name in BINARY else f"{name}(x)"
        curves = [(label, np.array(sampled["f"]), {"line": dict(width=3)})]
        if "back" in sampled:
            curves.append(
                (
                    f"{BACKS[name]}(x, d={d:g})",
                    np.array(sampled["back"]),
                    {"line": dict(dash="dash", width=3)},
                )
            )
        curves.append(
            (
                "d · slope (central difference)",
                np.array(sampled["slope"]),
                {"mode": "markers", "marker": dict(size=4, opacity=0.6)},
            )
        )
        st.plotly_chart(
            curve_figure(xs, curves, title=label, y_title="value"),
            key="m0_curve",
        )
        finite = np.isfinite(sampled["f"])
        if not finite.all():
            st.caption(
                f"{int((~finite).sum())} of {len(xs)} points are outside the domain "
                f"of {name} (it raised ValueError there)."
            )

    st.divider()
    st.markdown("**Higher-order functions (Task 0.3)** on a list of numbers")
    text = st.text_input("A list", "1, -2, 3.5, 4", key="m0_list")
    try:
        numbers = [float(part) for part in text.replace(";", ",").split(",") if part]
    except ValueError:
        st.error("Type numbers separated by commas, e.g. `1, -2, 3.5`.")
        return
    with task_guard("the higher-order functions"):
        from module0_fundamentals import operators

        rows = [
            ("neg_list(xs)", operators.neg_list(numbers)),
            ("map(relu)(xs)", operators.map(operators.relu)(numbers)),
            ("add_lists(xs, xs)", operators.add_lists(numbers, numbers)),
            ("sum(xs)", operators.sum(numbers)),
            ("prod(xs)", operators.prod(numbers)),
            (
                "reduce(max, -inf)(xs)",
                operators.reduce(operators.max, -math.inf)(numbers),
            ),
        ]
        st.table({"call": [r[0] for r in rows], "result": [str(r[1]) for r in rows]})


# ------------------------------------------------------------- module sandbox
def build_tree(blocks: int, layers: int, bias: bool, share: bool) -> Any:
    """A demo network: ``embed``, a Sequential of blocks (each a ModuleList of
    affine layers and a ``scale``), and ``head``; optionally one layer shared."""
    from module0_fundamentals.module import Module, ModuleList, Parameter, Sequential

    class Affine(Module):
        def __init__(self, weight: float) -> None:
            super().__init__()
            self.weight = Parameter(weight)
            if bias:
                self.bias = Parameter(0.0)

        def forward(self, x: float) -> float:
            return self.weight.value * x + (self.bias.value if bias else 0.0)

    class Block(Module):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.layers = ModuleList(
                [Affine(round(0.1 * (index + 1) + 0.01 * k, 2)) for k in range(layers)]
            )
            self.scale = Parameter(1.0)

        def forward(self, x: float) -> float:
            for layer in self.layers:
                x = layer(x)
            return self.scale.value * x

    class Net(Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = Affine(2.0)
            self.blocks = Sequential(*[Block(i) for i in range(blocks)])
            self.head = self.embed if share else Affine(0.5)

        def forward(self, x: float) -> float:
            return self.head(self.blocks(self.embed(x)))

    return Net()


def tree_dot(net: Any) -> str:
    """Graphviz DOT of the tree: a box per module of ``named_modules()`` (grey in
    eval mode) and an ellipse per parameter of ``named_parameters()``, hung under
    the module its dotted name points to."""
    lines = [
        "digraph modules {",
        "  rankdir=LR; nodesep=0.15; ranksep=0.35;",
        '  node [fontname=Helvetica, fontsize=10, style="rounded,filled"];',
        '  edge [color="#777777", fontsize=9];',
    ]
    ids: Dict[str, str] = {}
    for index, (name, module) in enumerate(net.named_modules()):
        ids[name] = f"m{index}"
        mode = "train" if module.training else "eval"
        color = "#d9f0d3" if module.training else "#d0d0d0"
        label = f"{name or '(root)'}\\n{type(module).__name__} · {mode}"
        lines.append(f'  m{index} [shape=box, label="{label}", fillcolor="{color}"];')
        if name:
            parent, _, attribute = name.rpartition(".")
            if parent in ids:
                lines.append(f'  {ids[parent]} -> m{index} [label="{attribute}"];')
    for index, (name, parameter) in enumerate(net.named_parameters()):
        owner, _, attribute = name.rpartition(".")
        value = parameter.value
        text = (
            f"{value:.3g}" if isinstance(value, (int, float)) else type(value).__name__
        )
        lines.append(
            f'  p{index} [shape=ellipse, fillcolor="#fdd0a2", '
            f'label="{attribute} = {text}", tooltip="{name}"];'
        )
        lines.append(f'  {ids.get(owner, "m0")} -> p{index} [style=dashed];')
    lines.append("}")
    return "\n".join(lines)


def module_sandbox() -> None:
    st.markdown(
        "A network is a tree of `Module`s. Shape one below: the boxes are your "
        "`named_modules()` (grey once `eval()` reached them), the orange leaves your "
        "`named_parameters()`, each under the module its dotted name points to."
    )
    c1, c2, c3, c4 = st.columns(4)
    blocks = c1.number_input("Blocks", 1, 4, 2, key="m0_blocks")
    layers = c2.number_input("Layers per block", 1, 3, 2, key="m0_layers")
    bias = c3.checkbox("Layers have a bias", True, key="m0_bias")
    share = c4.checkbox(
        "head shares embed",
        False,
        key="m0_share",
        help="The same module twice: it and its parameters are listed once.",
    )
    with task_guard("the module sandbox"):
        net = build_tree(int(blocks), int(layers), bias, share)
        names = [name or "(root)" for name, _ in net.named_modules()]
        target = st.selectbox(
            "Call .eval() on",
            ["(nothing: all in training mode)"] + names,
            key="m0_eval",
        )
        if target in names:
            dict(net.named_modules())["" if target == "(root)" else target].eval()
        st.graphviz_chart(tree_dot(net))
        params = list(net.named_parameters())
        st.caption(
            f"{len(params)} parameters in {len(net.modules())} modules "
            f"({len(net.children())} direct children of the root)."
        )
        left, right = st.columns(2)
        left.dataframe(
            {
                "named_parameters()": [n for n, _ in params],
                "value": [float(p.value) for _, p in params],
            },
            hide_index=True,
        )
        right.code(f"print(net)\n{net!r}", language="text")


# ---------------------------------------------------------- manual classifier
@st.cache_data(show_spinner=False, max_entries=32)
def load_dataset(
    name: str, n: int, seed: int
) -> Tuple[List[Tuple[float, float]], List[int]]:
    from module0_fundamentals.datasets import DATASETS

    graph = DATASETS[name](n, seed=seed)
    return [tuple(map(float, p)) for p in graph.X], [int(v) for v in graph.y]


def manual_classifier() -> None:
    from project.dashboard.plots import decision_figure, probability_grid

    st.markdown(
        "A linear classifier predicts label 1 where $w_1 x_1 + w_2 x_2 + b > 0$. "
        "Move the sliders until the line separates the two colours (Task 0.5 asks "
        "you to put your weights in `hand_tuned_weights()`). Misclassified points "
        "have a black ring."
    )
    try:
        from module0_fundamentals.datasets import DATASETS

        names = list(DATASETS)
    except ImportError as error:
        show_failure(error, "module0_fundamentals.datasets")
        return
    left, right = st.columns([1, 2])
    with left:
        name = st.selectbox("Dataset", names, key="m0_dataset")
        n = st.slider("Points", 10, 200, 60, step=10, key="m0_n")
        seed = st.number_input("Seed", 0, 10_000, 0, key="m0_seed")
        if st.button("Use my hand_tuned_weights()", key="m0_use_mine"):
            with task_guard("hand_tuned_weights"):
                from module0_fundamentals.manual_classifier import hand_tuned_weights

                mine = hand_tuned_weights()
                if name in mine:
                    w1, w2, b = (float(v) for v in mine[name])
                    st.session_state.update(m0_w1=w1, m0_w2=w2, m0_b=b)
                else:
                    st.info(f"hand_tuned_weights() has no entry for {name!r}.")
        # Defaults through session state, so the button above may overwrite them.
        for key, default in (("m0_w1", 1.0), ("m0_w2", 1.0), ("m0_b", -1.0)):
            st.session_state.setdefault(key, default)
        w1 = st.slider("w1", -5.0, 5.0, step=0.05, key="m0_w1")
        w2 = st.slider("w2", -5.0, 5.0, step=0.05, key="m0_w2")
        b = st.slider("b", -5.0, 5.0, step=0.05, key="m0_b")
    with right, task_guard("the manual classifier"):
        from module0_fundamentals.manual_classifier import ManualClassifier

        X, y = load_dataset(name, int(n), int(seed))
        model = ManualClassifier(w1, w2, b)
        predicted = [model.predict(a, c) for a, c in X]
        axis, grid = probability_grid(model.probability, 31)
        accuracy = sum(p == t for p, t in zip(predicted, y)) / max(len(y), 1)
        st.metric("Accuracy", f"{100 * accuracy:.0f}%")
        st.plotly_chart(
            decision_figure(X, y, grid, axis, line=(w1, w2, b), predicted=predicted),
            key="m0_boundary",
        )


header(
    "Module 0 · Fundamentals",
    "Operators on plain floats, the `Module`/`Parameter` tree, and toy datasets: the "
    "ground every later module stands on.",
    "Tasks 0.1 operators · 0.3 higher-order functions · 0.4 Module and Parameter · "
    "0.5 datasets and a hand-tuned classifier",
    0,
)
sandbox, modules, classifier = section_tabs(
    ["Math sandbox", "Module sandbox", "Manual classifier"], key="m0_section"
)
with sandbox:
    if sandbox.open:
        math_sandbox()
with modules:
    if modules.open:
        module_sandbox()
with classifier:
    if classifier.open:
        manual_classifier()
