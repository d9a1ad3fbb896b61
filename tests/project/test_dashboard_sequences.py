# kindling: instructor-only
"""The Sequences tab of the Module 4 page on the reference solutions (a student
edition shows "not implemented yet" there: ``test_dashboard_edition.py`` visits every
tab)."""

from __future__ import annotations

import pytest

from tests.project.apptest import charts, open_app, plotly_traces, problems, visit
from tests.project.conftest import ROOT

pytestmark = pytest.mark.usefixtures("isolated_imports")


@pytest.fixture
def app():
    return open_app(ROOT)


def test_gradients_through_time_fade_faster_in_the_rnn(app) -> None:
    visit(app, "dashboard/module4.py", "Sequences")
    assert not problems(app)
    [chart] = charts(app, "plotly_chart")
    traces = {t["name"]: t["y"] for t in plotly_traces(chart)}
    assert set(traces) == {"RNN", "GRU", "LSTM"}
    assert len(traces["RNN"]) == 20
    # y[0] is the last step (1.0); y[-1] the first input, 19 steps back.
    assert all(1e-12 < trace[-1] < 0.01 for trace in traces.values())
    app.slider(key="m4_seq_fb").set_value(2.0).run()
    app.slider(key="m4_seq_len").set_value(10).run()
    [chart] = charts(app, "plotly_chart")
    traces = {t["name"]: t["y"] for t in plotly_traces(chart)}
    assert len(traces["LSTM"]) == 10
    assert traces["LSTM"][-1] > 0.1 > traces["RNN"][-1]
    assert not problems(app)


@pytest.mark.slow
def test_training_the_sequence_models_shows_attention_gates_and_text(app) -> None:
    visit(app, "dashboard/module4.py", "Sequences")
    app.button(key="m4_seq_train").click().run(timeout=600)
    assert not problems(app)
    assert len(charts(app, "plotly_chart")) == 3
    [text] = [c.value for c in app.code]
    assert text.startswith("the film ")
    app.slider(key="m4_seq_temp").set_value(1.2).run()
    [other] = [c.value for c in app.code]
    assert other.startswith("the film ") and other != text
