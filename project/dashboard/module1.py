"""Module 1 · Scalar autodiff: derivatives three ways, the computation graph, and a
network of Scalars learning.

Sections (each runs only while its tab is open):

* **Scalar sandbox** — $f(x)$ and $f'(x)$ by autodiff against a central difference;
* **Autodiff graph** — an expression in $x, y, z$ drawn as its computation graph,
  every node labelled with its value and its derivative;
* **Finite differences** — the error of forward and central differences against the
  step size (log-log);
* **Forward vs reverse** — how many passes each mode needs for a Jacobian;
* **Expression swell** — symbolic derivatives of the logistic map against the cost
  of autodiff;
* **Training** — the scalar network of Task 1.5, with a live loss curve.

Expressions are read by :mod:`project.expressions` (a whitelist parser), never by
``eval``.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import streamlit as st

from project.dashboard.common import (
    header,
    section_tabs,
    show_todo,
    task_guard,
)
from project.expressions import (
    FUNCTIONS,
    METHOD_FUNCTIONS,
    EvaluationError,
    ExpressionError,
    evaluate,
    parse,
    to_callable,
)


def read_expression(
    label: str, default: str, variables: Tuple[str, ...], key: str
) -> Optional[Any]:
    """A text box for an expression; shows a friendly error and returns ``None``
    when the text is not one."""
    text = st.text_input(
        label,
        default,
        key=key,
        help=(
            f"Numbers, {', '.join(variables)}, + - * / ** and parentheses, and the "
            f"functions {', '.join(FUNCTIONS)}."
        ),
    )
    try:
        return parse(text, variables)
    except ExpressionError as error:
        st.error(f"That is not an expression I can read: {error.message}.")
        st.code(error.pointer(), language="text")
        return None


def show_evaluation_error(error: EvaluationError) -> None:
    st.warning(f"Cannot evaluate it here: {error}", icon=":material/function:")


# ----------------------------------------------------------------- sandbox
def autodiff_derivative(expr: Any, x: float) -> Tuple[float, float]:
    """``(f(x), f'(x))`` with the course's Scalar and one backward pass."""
    from module1_scalar_autodiff.scalar import Scalar

    leaf = Scalar(x, name="x")
    out = evaluate(expr, {"x": leaf}, METHOD_FUNCTIONS)
    if not isinstance(out, Scalar) or out.is_constant():
        return float(out), 0.0
    out.backward()
    return out.data, 0.0 if leaf.derivative is None else float(leaf.derivative)


def scalar_sandbox() -> None:
    from project.dashboard.plots import curve_figure

    st.markdown(
        "Type a function of $x$. The solid curve is $f$; the dashed one is "
        "$f'$ from **your autodiff** (a `Scalar` forward and one `backward()` per "
        "point); the dots are **your central difference** "
        "$\\frac{f(x+h) - f(x-h)}{2h}$. When both tasks are right, they agree."
    )
    left, right = st.columns([1, 3])
    with left:
        expr = read_expression("f(x) =", "x * sin(x) + sigmoid(2*x)", ("x",), "m1_f")
        low, high = st.slider("Range", -10.0, 10.0, (-4.0, 4.0), 0.5, key="m1_range")
        epsilon = 10 ** st.slider("log10 of the step h", -10, -1, -6, key="m1_h")
    if expr is None or high <= low:
        return
    xs = np.linspace(low, high, 121)
    with np.errstate(all="ignore"):
        from project.expressions import NUMPY_FUNCTIONS

        values = np.asarray(evaluate(expr, {"x": xs}, NUMPY_FUNCTIONS), dtype=float)
        values = np.broadcast_to(values, xs.shape)
    curves: List[Tuple[str, np.ndarray, dict]] = [
        ("f(x)", values, {"line": dict(width=3, color="#1f77b4")})
    ]
    problems: List[Any] = []
    f = to_callable(expr, ("x",))

    def safe(call: Any, x: float) -> float:
        try:
            return float(call(x))
        except (EvaluationError, ValueError, OverflowError, ZeroDivisionError):
            return math.nan

    with task_guard("autodiff", quiet=True) as auto:
        derivs = [safe(lambda x: autodiff_derivative(expr, x)[1], float(x)) for x in xs]
        curves.append(
            (
                "f'(x) by autodiff",
                np.array(derivs),
                {"line": dict(dash="dash", width=3)},
            )
        )
    problems.append(auto)
    with task_guard("central difference", quiet=True) as central:
        from module1_scalar_autodiff.differences import central_difference

        estimates = [
            safe(lambda x: central_difference(f, x, epsilon=epsilon), float(x))
            for x in xs
        ]
        curves.append(
            (
                f"central difference (h = {epsilon:.0e})",
                np.array(estimates),
                {"mode": "markers", "marker": dict(size=4, color="#222222")},
            )
        )
    problems.append(central)
    with right:
        st.plotly_chart(
            curve_figure(xs, curves, title=f"f(x) = {expr}"), key="m1_curve"
        )
        for outcome in problems:
            report(outcome)


def report(outcome: Any) -> None:
    """Show what a quiet :func:`task_guard` caught."""
    from project.dashboard.common import show_failure, show_missing

    if outcome.ok:
        return
    if outcome.todo:
        show_todo(outcome.todo, str(outcome.error.args[0]) if outcome.error else "")
    elif isinstance(outcome.error, ImportError):
        show_missing("This part", outcome.error)
    elif outcome.error is not None:
        show_failure(outcome.error)


# ------------------------------------------------------------ autodiff graph
def _fmt(value: Optional[float]) -> str:
    if value is None:
        return "–"
    return f"{value:.4g}"


def scalar_graph_dot(output: Any, names: Dict[int, str]) -> str:
    """Graphviz DOT of the graph behind a Scalar: leaves (green), constants (grey)
    and one box per function application with its value and derivative."""
    lines = [
        "digraph autodiff {",
        "  rankdir=LR;",
        '  node [fontname=Helvetica, fontsize=11, style="rounded,filled"];',
        '  edge [color="#666666"];',
    ]
    seen = set()
    stack = [output]
    while stack:
        node = stack.pop()
        if node.unique_id in seen:
            continue
        seen.add(node.unique_id)
        nid = f"n{node.unique_id}"
        if node.is_constant():
            lines.append(
                f'  {nid} [shape=box, label="const {_fmt(node.data)}", '
                'fillcolor="#eeeeee", color="#bbbbbb"];'
            )
        elif node.is_leaf:
            name = names.get(node.unique_id, node.name)
            lines.append(
                f'  {nid} [shape=ellipse, fillcolor="#d9f0d3", '
                f'label="{name} = {_fmt(node.data)}\\nd out/d {name} = '
                f'{_fmt(node.derivative)}"];'
            )
        else:
            op = node.history.last_fn.__name__
            color = "#fdd0a2" if node is output else "#deebf7"
            lines.append(
                f'  {nid} [shape=box, fillcolor="{color}", label="{op}\\nvalue '
                f'{_fmt(node.data)}\\nderivative {_fmt(node.derivative)}"];'
            )
            for parent in node.parents:
                lines.append(f"  n{parent.unique_id} -> {nid};")
                stack.append(parent)
    lines.append("}")
    return "\n".join(lines)


def autodiff_graph() -> None:
    st.markdown(
        "An expression in $x, y, z$ becomes a graph of `ScalarFunction` "
        "applications. Each box shows the value its forward computed and the "
        "derivative of the output with respect to it, filled in by your "
        "`backward()` (the dashboard calls `retain_grad()` on every inner node so "
        "they keep theirs). Leaves are green, constants grey, the output orange."
    )
    expr = read_expression(
        "Expression in x, y, z",
        "(x * y + z) * sigmoid(x - 2*z)",
        ("x", "y", "z"),
        "m1_g",
    )
    c1, c2, c3 = st.columns(3)
    point = {
        "x": c1.number_input("x", value=1.5, step=0.5, key="m1_gx"),
        "y": c2.number_input("y", value=-2.0, step=0.5, key="m1_gy"),
        "z": c3.number_input("z", value=0.5, step=0.5, key="m1_gz"),
    }
    if expr is None:
        return
    with task_guard("the autodiff graph"):
        from module1_scalar_autodiff.scalar import Scalar

        leaves = {name: Scalar(float(v), name=name) for name, v in point.items()}
        try:
            out = evaluate(expr, leaves, METHOD_FUNCTIONS)
        except EvaluationError as error:
            show_evaluation_error(error)
            return
        if not isinstance(out, Scalar) or out.is_constant():
            st.info(
                f"{expr} does not depend on x, y or z: its value is {float(out):g}."
            )
            return
        # Every inner node keeps its derivative, including the ones an operator
        # makes internally (x - y is Add(x, Neg(y))).
        stack, seen = [out], set()
        while stack:
            node = stack.pop()
            if node.unique_id in seen or node.is_constant() or node.is_leaf:
                continue
            seen.add(node.unique_id)
            node.retain_grad()
            stack.extend(node.parents)
        out.backward()
        names = {leaf.unique_id: name for name, leaf in leaves.items()}
        st.graphviz_chart(scalar_graph_dot(out, names))
        f = to_callable(expr, ("x", "y", "z"))
        rows = []
        for index, (name, leaf) in enumerate(leaves.items()):
            check = "–"
            with task_guard(quiet=True):
                from module1_scalar_autodiff.differences import central_difference

                check = _fmt(
                    central_difference(f, *point.values(), arg=index, epsilon=1e-6)
                )
            rows.append(
                {
                    "variable": name,
                    "value": leaf.data,
                    "derivative (autodiff)": _fmt(leaf.derivative),
                    "central difference": check,
                }
            )
        st.caption(f"f = {expr} = {out.data:.6g}")
        st.dataframe(rows, hide_index=True)


# -------------------------------------------------------- finite differences
def finite_differences() -> None:
    from project.dashboard.plots import curve_figure

    st.markdown(
        "How good is a finite difference? The truncation error shrinks with the "
        "step $h$ (like $h$ for the forward difference, $h^2$ for the central one), "
        "but rounding error grows like $\\varepsilon_{mach}/h$. On a log-log plot "
        "the two meet in a V: the best step is near $10^{-8}$ for forward and "
        "$10^{-5}$ for central differences. The exact derivative comes from your "
        "autodiff; the study from your `step_size_study`."
    )
    left, right = st.columns([1, 3])
    with left:
        expr = read_expression("f(x) =", "exp(x) * sin(x)", ("x",), "m1_fd")
        x0 = st.number_input("at x =", value=1.0, step=0.1, key="m1_fd_x")
    if expr is None:
        return
    with right, task_guard("the step-size study"):
        from module1_scalar_autodiff.differences import step_size_study

        f = to_callable(expr, ("x",))

        def df(x: float) -> float:
            return autodiff_derivative(expr, x)[1]

        try:
            study = step_size_study(f, df, float(x0))
        except EvaluationError as error:
            show_evaluation_error(error)
            return
        tiny = 1e-18  # an exact hit would vanish from a log axis
        steps = np.array(study.steps)
        curves = [
            (
                "central difference",
                np.maximum(study.central_errors, tiny),
                {"mode": "lines+markers"},
            ),
            (
                "forward difference",
                np.maximum(study.forward_errors, tiny),
                {"mode": "lines+markers"},
            ),
        ]
        # Guide lines through the largest step: slope 2 (central) and 1 (forward),
        # drawn only while they stay within sight of the measured errors.
        floor = 0.1 * max(min(study.central_errors + study.forward_errors), tiny)
        for slope, errors in ((2, study.central_errors), (1, study.forward_errors)):
            guide = max(errors[0], tiny) * (steps / steps[0]) ** slope
            curves.append(
                (
                    f"slope {slope}",
                    np.where(guide >= floor, guide, np.nan),
                    {"line": dict(dash="dot", color="grey", width=1)},
                )
            )
        st.plotly_chart(
            curve_figure(
                steps,
                curves,
                title=f"error of d/dx [{expr}] at x = {x0:g}",
                x_title="step h",
                y_title="|estimate − exact|",
                log=True,
            ),
            key="m1_fd_plot",
        )
        c1, c2 = st.columns(2)
        c1.metric("Best step, central", f"{study.best_step('central'):.0e}")
        c2.metric("Best step, forward", f"{study.best_step('forward'):.0e}")


# ------------------------------------------------------- forward vs reverse
def make_function(n: int, m: int) -> Any:
    """A fixed $f: \\mathbb{R}^n \\to \\mathbb{R}^m$ that Dual and Scalar both
    support: $f_i(x) = \\tanh(\\sum_j a_{ij} x_j) \\cdot x_{i \\bmod n}$."""

    def f(*xs: Any) -> List[Any]:
        outputs = []
        for i in range(m):
            total: Any = 0.0
            for j, x in enumerate(xs):
                total = total + x * (((i + 2 * j) % 5) - 2) * 0.5
            outputs.append(total.tanh() * xs[i % n])
        return outputs

    return f


def forward_vs_reverse() -> None:
    from project.dashboard.plots import curve_figure

    st.markdown(
        "A Jacobian of $f: \\mathbb{R}^n \\to \\mathbb{R}^m$ takes **forward mode** "
        "one pass per *input* (a `jvp` with each unit vector gives a column) and "
        "**reverse mode** one backward pass per *output* (a row). A loss has "
        "$m = 1$ output and millions of inputs: that is why training uses reverse "
        "mode. Here $f_i(x) = \\tanh(\\sum_j a_{ij} x_j)\\, x_{i \\bmod n}$."
    )
    c1, c2 = st.columns(2)
    n = c1.slider("inputs n", 1, 8, 6, key="m1_n")
    m = c2.slider("outputs m", 1, 8, 2, key="m1_m")
    with task_guard("jacobian"):
        from module1_scalar_autodiff.dual import jacobian

        xs = [0.1 * (k + 1) for k in range(n)]
        f = make_function(n, m)
        forward = jacobian(f, xs, mode="forward")
        reverse = jacobian(f, xs, mode="reverse")
        gap = float(np.max(np.abs(np.array(forward.matrix) - np.array(reverse.matrix))))
        k1, k2, k3 = st.columns(3)
        k1.metric("Forward-mode passes", forward.passes)
        k2.metric("Reverse-mode passes", reverse.passes)
        k3.metric("Largest difference of the two Jacobians", f"{gap:.1e}")
        sizes = list(range(1, 9))
        fwd = [
            jacobian(make_function(k, m), xs[:1] * k, "forward").passes for k in sizes
        ]
        rev = [
            jacobian(make_function(k, m), xs[:1] * k, "reverse").passes for k in sizes
        ]
        st.plotly_chart(
            curve_figure(
                np.array(sizes),
                [
                    ("forward mode", np.array(fwd), {"mode": "lines+markers"}),
                    ("reverse mode", np.array(rev), {"mode": "lines+markers"}),
                ],
                title=f"passes for a Jacobian with m = {m} outputs",
                x_title="inputs n",
                y_title="passes",
            ),
            key="m1_passes",
        )
        with st.expander("The Jacobian (forward mode)"):
            st.dataframe(
                np.round(np.array(forward.matrix), 5),
                column_config=None,
            )


# ---------------------------------------------------------- expression swell
@st.cache_data(show_spinner=False, max_entries=8)
def swell(n_max: int) -> List[Tuple[int, int, int, int, int]]:
    from module1_scalar_autodiff.swell import swell_table

    return [tuple(row) for row in swell_table(n_max)]


def expression_swell() -> None:
    from project.dashboard.plots import curve_figure

    st.markdown(
        "Symbolic differentiation returns a *formula*. For the logistic map "
        "$l_{k+1} = 4 l_k (1 - l_k)$ the product rule copies both factors at every "
        "step, so the derivative of $l_n$ written out as a tree grows exponentially "
        "with $n$. Autodiff never writes the formula: its cost is the number of "
        "operations in the computation, which grows linearly."
    )
    n_max = st.slider("n up to", 2, 12, 8, key="m1_swell")
    with task_guard("the expression-swell table"):
        rows = swell(int(n_max))
        ns = np.array([r[0] for r in rows])
        curves = [
            ("size of l_n", np.array([r[1] for r in rows]), {"mode": "lines+markers"}),
            (
                "size of d l_n / dx",
                np.array([r[2] for r in rows]),
                {"mode": "lines+markers"},
            ),
            ("… simplified", np.array([r[3] for r in rows]), {"mode": "lines+markers"}),
            (
                "autodiff operations",
                np.array([r[4] for r in rows]),
                {"mode": "lines+markers"},
            ),
        ]
        fig = curve_figure(
            ns, curves, title="expression swell", x_title="n", y_title="nodes"
        )
        fig.update_yaxes(type="log")
        st.plotly_chart(fig, key="m1_swell_plot")
        st.dataframe(
            {
                "n": [r[0] for r in rows],
                "size(l_n)": [r[1] for r in rows],
                "size(diff)": [r[2] for r in rows],
                "size(simplified diff)": [r[3] for r in rows],
                "autodiff ops": [r[4] for r in rows],
            },
            hide_index=True,
        )
        from module1_scalar_autodiff.swell import logistic_map
        from module1_scalar_autodiff.expr_text import to_string
        from module1_scalar_autodiff.symbolic import Var, diff

        k = st.slider("Show the derivative of l_n for n =", 1, 4, 2, key="m1_swell_n")
        st.code(
            to_string(diff(logistic_map(Var("x"), int(k)), "x"), limit=1500),
            language="text",
            wrap_lines=True,
        )


# ------------------------------------------------------------------ training
def scalar_probability(model: Any, points: Any) -> np.ndarray:
    """P(y = 1) of the scalar network at each point: the sigmoid of its logit."""
    logits = np.array([model(float(a), float(b)).data for a, b in points])
    return 0.5 * (1.0 + np.tanh(0.5 * logits))


def train_section() -> None:
    from project.dashboard.training import training_panel

    st.markdown(
        "The network of `project/run_scalar.py` (Task 1.5): $2 \\to h \\to h \\to 1$ "
        "with ReLU, every weight its own `Scalar`, full-batch gradient descent on the "
        "cross-entropy with your `SGD`. It is slow on purpose, one `Scalar` per "
        "number; Module 2 does the same with tensors."
    )
    training_panel(
        "run_scalar",
        "m1_t",
        scalar_probability,
        dict(dataset="xor", hidden=6, lr=0.5, epochs=60, pts=40),
        grid=21,
    )


header(
    "Module 1 · Scalar autodiff",
    "A `Scalar` remembers how it was computed, so `backward()` can walk the graph "
    "and apply the chain rule: derivatives of anything you can write.",
    "Tasks 1.1 differences · 1.2 forwards · 1.3 chain rule · 1.4 backpropagation · "
    "1.5 training · 1.6 forward mode · 1.7 symbolic differentiation",
    1,
)
tabs = section_tabs(
    [
        "Scalar sandbox",
        "Autodiff graph",
        "Finite differences",
        "Forward vs reverse",
        "Expression swell",
        "Training",
    ],
    key="m1_section",
)
for tab, draw in zip(
    tabs,
    [
        scalar_sandbox,
        autodiff_graph,
        finite_differences,
        forward_vs_reverse,
        expression_swell,
        train_section,
    ],
):
    with tab:
        if tab.open:
            draw()
