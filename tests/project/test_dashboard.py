# kindling: instructor-only
"""The dashboard on the reference solutions, driven by Streamlit's AppTest: the
widgets change what is shown (a student edition, where the tasks are stubs, is
tested by ``test_dashboard_edition.py``; both files stay out of editions)."""

from __future__ import annotations

import pytest

from tests.project.apptest import (
    charts,
    open_app,
    plotly_traces,
    problems,
    texts,
    trace_length,
    visit,
)
from tests.project.conftest import ROOT

pytestmark = pytest.mark.usefixtures("isolated_imports")


@pytest.fixture
def app():
    return open_app(ROOT)


def test_the_first_page_is_progress(app) -> None:
    assert not problems(app)
    assert [t.value for t in app.title] == ["Progress"]
    table = app.dataframe[0].value
    assert len(table) >= 25 and list(table["Task"][:2]) == ["0.1", "0.2"]


def test_changing_the_expression_changes_the_graph(app) -> None:
    visit(app, "dashboard/module1.py", "Autodiff graph")
    before = charts(app, "graphviz_chart")[0].proto.spec
    assert "Sigmoid" in before
    app.text_input(key="m1_g").set_value("x * y").run()
    after = charts(app, "graphviz_chart")[0].proto.spec
    assert after != before
    assert "Mul" in after and "Sigmoid" not in after
    # d(xy)/dx = y = -2 and d(xy)/dy = x = 1.5 at the default point
    assert "d out/d x = -2" in after and "d out/d y = 1.5" in after
    assert "z" not in after.replace("fontsize", "")  # z plays no part in x*y
    app.number_input(key="m1_gy").set_value(3.0).run()
    assert "d out/d x = 3" in charts(app, "graphviz_chart")[0].proto.spec


def test_a_bad_expression_gets_a_friendly_message(app) -> None:
    visit(app, "dashboard/module1.py", "Autodiff graph")
    app.text_input(key="m1_g").set_value("2x + y").run()
    assert not app.exception
    assert not charts(app, "graphviz_chart")
    [message] = [e.value for e in app.error]
    assert "missing operator before 'x' (write 2*x, not 2x)" in message
    assert "2x + y\n ^" in [c.value for c in app.code]
    app.text_input(key="m1_g").set_value("__import__('os').system('ls')").run()
    assert not app.exception and not charts(app, "graphviz_chart")
    [message] = [e.value for e in app.error]
    assert "unknown name '__import__'" in message


def test_the_scalar_sandbox_plots_autodiff_against_central_differences(app) -> None:
    visit(app, "dashboard/module1.py", "Scalar sandbox")
    app.text_input(key="m1_f").set_value("x**3").run()
    assert not problems(app)
    names = [t["name"] for t in plotly_traces(charts(app, "plotly_chart")[0])]
    assert names[0] == "f(x)"
    assert any("autodiff" in n for n in names)
    assert any("central difference" in n for n in names)


def test_a_few_epochs_of_scalar_training_draw_a_loss_curve(app) -> None:
    visit(app, "dashboard/module1.py", "Training")
    app.number_input(key="m1_t_epochs").set_value(3)
    app.number_input(key="m1_t_hidden").set_value(2)
    app.number_input(key="m1_t_pts").set_value(8)
    app.button(key="m1_t_go").click().run()
    assert not problems(app)
    traces = [t for c in charts(app, "plotly_chart") for t in plotly_traces(c)]
    [loss] = [t for t in traces if t.get("name") == "loss"]
    assert trace_length(loss) == 3
    assert any(t.get("type") == "heatmap" for t in traces)  # the decision boundary
    assert "3 epochs" in texts(app)


def test_choosing_an_operator_changes_the_plot(app) -> None:
    visit(app, "dashboard/module0.py", "Math sandbox")
    app.selectbox(key="m0_op").set_value("log").run()
    names = [t["name"] for t in plotly_traces(charts(app, "plotly_chart")[0])]
    assert names[0] == "log(x)" and any("log_back" in n for n in names)
    assert "outside the domain of log" in texts(app)


def test_the_manual_classifier_follows_the_sliders(app) -> None:
    visit(app, "dashboard/module0.py", "Manual classifier")
    app.selectbox(key="m0_dataset").set_value("simple").run()
    app.button(key="m0_use_mine").click().run()
    assert app.slider(key="m0_w1").value == pytest.approx(-1.0)
    assert [m.value for m in app.metric] == ["100%"]
    app.slider(key="m0_w1").set_value(1.0).run()
    assert [m.value for m in app.metric] != ["100%"]


def test_the_module_tree_shows_eval_mode(app) -> None:
    visit(app, "dashboard/module0.py", "Module sandbox")
    tree = charts(app, "graphviz_chart")[0].proto.spec
    assert "eval" not in tree and tree.count("train") >= 5
    app.selectbox(key="m0_eval").set_value("blocks").run()
    tree = charts(app, "graphviz_chart")[0].proto.spec
    assert "blocks\\nSequential · eval" in tree and "head\\nAffine · train" in tree
    names = list(app.dataframe[0].value["named_parameters()"])
    assert names[:2] == ["embed.weight", "embed.bias"]


def test_the_tensor_explorer_follows_shape_and_permutation(app) -> None:
    visit(app, "dashboard/module2.py", "Tensor explorer")
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["view shape"] == "(2, 4, 3)" and metrics["strides"] == "(12, 1, 4)"
    assert metrics["contiguous"] == "no"
    app.text_input(key="m2_order_3").set_value("0, 1, 2").run()
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["strides"] == "(12, 4, 1)" and metrics["contiguous"] == "yes"
    app.slider(key="m2_i0").set_value(0).run()
    app.slider(key="m2_i1").set_value(2).run()
    app.slider(key="m2_i2").set_value(3).run()
    assert "index_to_position(0, 2, 3) = 11" in texts(app)


def test_broadcasting_explains_a_violation(app) -> None:
    visit(app, "dashboard/module2.py", "Broadcasting")
    assert "broadcast to **(4, 5, 3)**" in texts(app)
    app.text_input(key="m2_b").set_value("2, 2").run()
    assert not problems(app)
    assert "do not broadcast" in texts(app)
    # (4, 1, 3) against (2, 2): the 1 stretches to 2, but 3 and 2 clash
    assert "At dimension -1 (counting from the right) the sizes are 3 and 2" in texts(
        app
    )


def test_a_few_epochs_of_tensor_training_draw_a_loss_curve(app) -> None:
    visit(app, "dashboard/module2.py", "Training")
    app.number_input(key="m2_t_epochs").set_value(4)
    app.number_input(key="m2_t_pts").set_value(12)
    app.button(key="m2_t_go").click().run()
    assert not problems(app)
    traces = [t for c in charts(app, "plotly_chart") for t in plotly_traces(c)]
    [loss] = [t for t in traces if t.get("name") == "loss"]
    assert trace_length(loss) == 4
    assert any(t.get("type") == "heatmap" for t in traces)


def test_the_cuda_launch_follows_the_block_size(app) -> None:
    visit(app, "dashboard/module3.py", "CUDA launch")
    app.number_input(key="m3_tpb").set_value(32).run()
    assert "blocks = ceil(120 / 32) = 4" in texts(app)
    app.number_input(key="m3_tpb").set_value(50).run()
    assert "blocks = ceil(120 / 50) = 3" in texts(app)
    assert "# 150 threads, 30 idle" in texts(app)
    app.radio(key="m3_cuda_kind").set_value("matmul (shared-memory tiles)").run()
    app.number_input(key="m3_tile").set_value(8).run()
    assert not problems(app)
    assert "out[5, 9] is computed by block (1, 0), thread (1, 5)" in texts(app)


def test_parallel_diagnostics_of_a_compiled_kernel(app) -> None:
    visit(app, "dashboard/module3.py", "Parallel diagnostics")
    app.button(key="m3_diag").click().run()
    assert not problems(app)
    report = "\n".join(c.value for c in app.code)
    assert "Parallel Accelerator Optimizing" in report and "tensor_map" in report


def test_the_feature_maps_follow_the_filters(app) -> None:
    visit(app, "dashboard/module4.py", "Images")
    [maps] = [c for c in charts(app, "plotly_chart") if len(plotly_traces(c)) > 1]
    assert len(plotly_traces(maps)) == 3 * 4  # conv, max pool, avg pool x 4 filters
    app.multiselect(key="m4_filters").set_value(["blur", "sharpen"]).run()
    [maps] = [c for c in charts(app, "plotly_chart") if len(plotly_traces(c)) > 1]
    traces = plotly_traces(maps)
    assert len(traces) == 3 * 2
    assert not problems(app)


def test_benchmark_results_are_shown(app, tmp_path, monkeypatch) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    (tmp_path / "matmul.md").write_text(
        "| n | simple | fast |\n|---|---|---|\n| 64 | 0.91 | 0.0012 |\n"
    )
    figure = plt.figure(figsize=(2, 2))
    plt.plot([1, 2], [3, 4])
    figure.savefig(tmp_path / "matmul.png")
    plt.close(figure)
    monkeypatch.setenv("KINDLING_BENCH_RESULTS", str(tmp_path))
    visit(app, "dashboard/module3.py", "Benchmarks")
    assert not problems(app)
    assert "| 64 | 0.91 | 0.0012 |" in texts(app)
    assert len(charts(app, "image")) == 1


def test_the_dashboard_gives_task_0_2_no_points_from_a_test_run():
    """Task 0.2 is scored by mutation: a run where its property tests pass says
    nothing about the bugs they catch, so only `kindling grade` gives its points."""
    from types import SimpleNamespace

    from project.dashboard.runner import earned

    mutation = SimpleNamespace(points=10, scoring="mutation")
    plain = SimpleNamespace(points=10, scoring="all-or-nothing")
    done = {"status": "done", "passed": 36, "total": 36}
    assert earned(mutation, done) == 0.0
    assert earned(plain, done) == 10.0
