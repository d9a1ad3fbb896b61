"""Module 4 · Networks: convolutions you can look at, and networks that learn real
data.

Sections (each runs only while its tab is open; training waits for a button):

* **Images** — pick a digit, see what a few 3x3 filters make of it with your
  ``conv2d``, and what ``max_pool2d`` / ``avg_pool2d`` keep; then train the CNN of
  ``project/run_mnist_multiclass.py`` and watch its loss and accuracy;
* **Sentiment** — type a sentence, see the prediction of the 1-D CNN of
  ``project/run_sentiment.py`` and which words drove it;
* **Sequences** — gradients through time in RNNs, GRUs and LSTMs; the attention of
  a Transformer and the gates of an LSTM over a sentence; text from a character GPT
  (``project/dashboard/sequences.py``).
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Tuple

import numpy as np
import streamlit as st

from project.dashboard.common import (
    code_version,
    header,
    load_script,
    section_tabs,
    task_guard,
)

#: Hand-made 3x3 filters: what a first convolution layer often learns by itself.
FILTERS: Dict[str, np.ndarray] = {
    "horizontal edges": np.array([[1, 2, 1], [0, 0, 0], [-1, -2, -1]], dtype=float),
    "vertical edges": np.array([[1, 0, -1], [2, 0, -2], [1, 0, -1]], dtype=float),
    "diagonal": np.array([[2, 1, 0], [1, 0, -1], [0, -1, -2]], dtype=float),
    "blur": np.full((3, 3), 1 / 9),
    "sharpen": np.array([[0, -1, 0], [-1, 5, -1], [0, -1, 0]], dtype=float),
    "blob (centre minus ring)": np.array(
        [[-1, -1, -1], [-1, 8, -1], [-1, -1, -1]], dtype=float
    )
    / 8,
}
METRIC = re.compile(r"(\w+) (-?[\d.]+(?:e[-+]?\d+)?)")


@st.cache_data(show_spinner=False)
def digits() -> Tuple[np.ndarray, np.ndarray]:
    """scikit-learn's 1,797 bundled 8x8 digits (no download), scaled to [0, 1]."""
    from sklearn.datasets import load_digits

    data = load_digits()
    return data.images / 16.0, data.target


def maps_figure(rows: List[Tuple[str, np.ndarray]], names: List[str]) -> Any:
    """A grid of heat maps: one row per stage, one column per filter."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    fig = make_subplots(
        rows=len(rows),
        cols=len(names),
        column_titles=names,
        row_titles=[title for title, _ in rows],
        horizontal_spacing=0.02,
        vertical_spacing=0.04,
    )
    for r, (_, maps) in enumerate(rows, start=1):
        for c in range(len(names)):
            fig.add_trace(
                go.Heatmap(
                    z=maps[c],
                    colorscale="RdBu_r",
                    zmid=0.0,
                    showscale=False,
                    hovertemplate="%{z:.2f}<extra></extra>",
                ),
                row=r,
                col=c + 1,
            )
    fig.update_yaxes(autorange="reversed", showticklabels=False, scaleanchor=None)
    fig.update_xaxes(showticklabels=False)
    fig.update_layout(height=170 * len(rows) + 60, margin=dict(l=10, r=40, t=50, b=10))
    return fig


def image_figure(image: np.ndarray) -> Any:
    import plotly.graph_objects as go

    fig = go.Figure(
        go.Heatmap(z=image, colorscale="gray_r", showscale=False, zmin=0, zmax=1)
    )
    fig.update_layout(
        width=240,
        height=240,
        yaxis=dict(autorange="reversed", scaleanchor="x", showticklabels=False),
        xaxis=dict(showticklabels=False),
        margin=dict(l=5, r=5, t=5, b=5),
    )
    return fig


def feature_maps() -> None:
    images, labels = digits()
    left, right = st.columns([1, 3])
    with left:
        digit = st.selectbox("Digit", list(range(10)), index=3, key="m4_digit")
        choices = np.flatnonzero(labels == digit)
        sample = st.slider("Which one", 0, len(choices) - 1, 0, key="m4_sample")
        image = images[choices[sample]]
        st.caption(f"This {digit}, 8x8 pixels:")
        st.plotly_chart(
            image_figure(image), key="m4_image", config={"displayModeBar": False}
        )
        names = st.multiselect(
            "Filters", list(FILTERS), list(FILTERS)[:4], key="m4_filters"
        )
        relu = st.checkbox("ReLU after the convolution", True, key="m4_relu")
    if not names:
        right.info("Pick at least one filter.")
        return
    with right, task_guard("the feature maps"):
        from module2_tensors import tensor
        from module4_networks.nn import functional as F

        x = tensor(image[None, None])  # (batch 1, channel 1, 8, 8)
        w = tensor(np.stack([FILTERS[n] for n in names])[:, None])  # (K, 1, 3, 3)
        maps = F.conv2d(x, w, padding=1)
        if relu:
            maps = maps.relu()
        rows = [(f"conv2d{' + relu' if relu else ''} (8x8)", maps.to_numpy()[0])]
        with task_guard("max pooling"):
            rows.append(("max_pool2d 2x2 (4x4)", F.max_pool2d(maps, 2).to_numpy()[0]))
        with task_guard("average pooling"):
            rows.append(("avg_pool2d 2x2 (4x4)", F.avg_pool2d(maps, 2).to_numpy()[0]))
        st.plotly_chart(maps_figure(rows, names), key="m4_maps")
        st.caption(
            "Red is positive, blue negative. Each filter is slid over the image "
            "(`conv2d` with padding 1 keeps the 8x8 size); pooling keeps the "
            "strongest (max) or the mean (avg) response of each 2x2 window, so the "
            "maps shrink to 4x4 but still say where the strokes are."
        )


def parse_metrics(line: str) -> Dict[str, float]:
    """``{"epoch": 1.0, "train_loss": 0.3, ...}`` from a line like the training
    scripts' ``epoch 1  train_loss 0.3000  test_acc 0.9100``."""
    return {name: float(value) for name, value in METRIC.findall(line)}


def train_cnn() -> None:
    from project.dashboard.plots import PALETTE

    st.markdown(
        "**Train the CNN** of `project/run_mnist_multiclass.py` (Task 4.5) on the "
        "8x8 digits: conv-relu-conv-relu-maxpool-linear-relu-dropout-linear, Adam, "
        "minibatches. Loss and accuracy are drawn after every epoch."
    )
    c1, c2, c3 = st.columns(3)
    epochs = c1.number_input("Epochs", 1, 30, 4, key="m4_epochs")
    size = c2.number_input("Training images", 50, 1437, 400, step=50, key="m4_size")
    lr = c3.number_input("Learning rate", 1e-4, 1e-1, 2e-3, format="%.4f", key="m4_lr")
    if st.button("Train", type="primary", key="m4_train"):
        rows: List[Dict[str, float]] = []
        st.session_state["m4_rows"] = rows
        bar = st.progress(0.0, text="loading the digits…")
        chart = st.empty()

        def log(line: str) -> None:
            metrics = parse_metrics(line)
            if "epoch" not in metrics:
                bar.progress(0.0, text=line)
                return
            rows.append(metrics)
            bar.progress(
                metrics["epoch"] / int(epochs),
                text=f"epoch {int(metrics['epoch'])}/{int(epochs)}: "
                f"test accuracy {100 * metrics.get('test_acc', 0):.0f}%",
            )
            chart.plotly_chart(curves(rows, PALETTE), key=f"m4_live_{len(rows)}")

        with task_guard("training the CNN"):
            script = load_script("run_mnist_multiclass")
            script.train(
                "digits",
                epochs=int(epochs),
                lr=float(lr),
                train_size=int(size),
                log=log,
                show_progress=False,
            )
            bar.empty()
            chart.empty()
    rows = st.session_state.get("m4_rows")
    if rows:
        st.plotly_chart(curves(rows, PALETTE), key="m4_curves")
        last = rows[-1]
        st.caption(
            f"After {int(last['epoch'])} epochs: training loss "
            f"{last.get('train_loss', float('nan')):.3f}, test accuracy "
            f"{100 * last.get('test_acc', float('nan')):.1f}%."
        )


def curves(rows: List[Dict[str, float]], palette: Tuple[str, ...]) -> Any:
    """Loss (left axis) and accuracy (right axis) per epoch."""
    import plotly.graph_objects as go

    epochs = [r["epoch"] for r in rows]
    fig = go.Figure()
    for k, name in enumerate(("train_loss", "test_loss")):
        if any(name in r for r in rows):
            fig.add_trace(
                go.Scatter(
                    x=epochs,
                    y=[r.get(name) for r in rows],
                    name=name,
                    mode="lines+markers",
                    line=dict(color=palette[k]),
                )
            )
    for k, name in enumerate(("train_acc", "test_acc")):
        if any(name in r for r in rows):
            fig.add_trace(
                go.Scatter(
                    x=epochs,
                    y=[100 * r.get(name, np.nan) for r in rows],
                    name=name + " (%)",
                    mode="lines+markers",
                    yaxis="y2",
                    line=dict(color=palette[k + 2], dash="dot"),
                )
            )
    fig.update_layout(
        xaxis=dict(title="epoch", dtick=1),
        yaxis=dict(title="loss", rangemode="tozero"),
        yaxis2=dict(title="accuracy (%)", overlaying="y", side="right", range=[0, 101]),
        height=380,
        margin=dict(l=10, r=10, t=30, b=10),
        legend=dict(orientation="h", y=-0.2),
    )
    return fig


def images_section() -> None:
    st.markdown(
        "A convolution slides a small filter over the image and writes, at each "
        "place, how well the patch matches it: $\\text{out}[i, j] = \\sum_{u, v} "
        "x[i + u - 1, j + v - 1]\\, w[u, v]$. Below, classic hand-made filters on a "
        f"digit: {len(FILTERS)} to choose from, four shown to start with (a trained "
        "network learns its own)."
    )
    feature_maps()
    st.divider()
    train_cnn()


# ------------------------------------------------------------------ sentiment
def sst2_cached() -> bool:
    """Whether SST-2 was downloaded already (the dashboard never downloads)."""
    try:
        from module4_networks import data
    except ImportError:
        return False
    root = data.default_cache_dir() / "sst2"
    return (root / "train.tsv").exists() and (root / "test.tsv").exists()


def sentiment_data(source: str, size: int) -> Dict[str, Tuple[List[str], np.ndarray]]:
    """``{"train": (sentences, labels), "test": ...}`` from the chosen source."""
    if source.startswith("SST-2"):
        from module4_networks import data

        splits = data.load_sst2()
        sentences, labels = splits["train"]
        splits["train"] = (sentences[:size], labels[:size])
        return splits
    from project.dashboard.corpus import corpus

    sentences, labels = corpus()
    array = np.array(labels, dtype=np.int64)
    # Every fourth sentence is held out to test on.
    test = [i for i in range(len(sentences)) if i % 4 == 3]
    train = [i for i in range(len(sentences)) if i % 4 != 3]
    return {
        "train": ([sentences[i] for i in train], array[train]),
        "test": ([sentences[i] for i in test], array[test]),
    }


def train_sentiment(source: str, size: int, epochs: int) -> Dict[str, Any]:
    """Train the CNN of ``run_sentiment.py`` with its own pieces (model, batches,
    step, evaluation), keeping the model and vocabulary to try sentences on."""
    from module2_tensors import manual_seed
    from module4_networks import optim

    script = load_script("run_sentiment")
    encode = script.encode_splits
    vocab, encoded = encode(sentiment_data(source, size))
    manual_seed(0)
    rng = np.random.default_rng(0)
    model = script.SentimentCNN(len(vocab), embedding_dim=32, filters=16, dropout=0.3)
    optimizer = optim.Adam(model.parameters(), lr=5e-3)
    min_length = max(model.widths)
    rows, labels = encoded["train"]
    history: List[Dict[str, float]] = []
    bar = st.progress(0.0, text="compiling the kernels (the first run takes a while)…")
    chart = st.empty()
    from project.dashboard.plots import PALETTE

    for epoch in range(1, epochs + 1):
        losses = []
        for index in script.length_batches(rows, 16, rng):
            ids = vocab.pad([rows[i] for i in index], min_length=min_length)
            losses.append(script.train_step(model, optimizer, ids, labels[index]))
        _, test_acc = script.evaluate(model, encoded["test"], vocab, min_length)
        _, train_acc = script.evaluate(model, encoded["train"], vocab, min_length)
        history.append(
            {
                "epoch": epoch,
                "train_loss": float(np.mean(losses)),
                "train_acc": train_acc,
                "test_acc": test_acc,
            }
        )
        bar.progress(
            epoch / epochs,
            text=f"epoch {epoch}/{epochs}: test accuracy {100 * test_acc:.0f}%",
        )
        chart.plotly_chart(curves(history, PALETTE), key=f"m4_s_live_{epoch}")
    bar.empty()
    chart.empty()
    model.eval()
    return {
        "model": model,
        "vocab": vocab,
        "history": history,
        "source": source,
        "version": code_version(),
    }


def positive_probability(trained: Dict[str, Any], tokens: List[str]) -> float:
    """P(positive) of the trained model for a tokenised sentence."""
    from module2_tensors import no_grad
    from module4_networks.nn import functional as F

    model, vocab = trained["model"], trained["vocab"]
    ids = vocab.pad([vocab.encode(tokens)], min_length=max(model.widths))
    with no_grad():
        return float(F.softmax(model(ids), dim=1).to_numpy()[0, 1])


def word_influence(trained: Dict[str, Any], tokens: List[str]) -> List[float]:
    """How much each word pushes towards positive: P(positive) with the sentence
    as it is, minus P(positive) with that one word blanked out (occlusion)."""
    vocab = trained["vocab"]
    full = positive_probability(trained, tokens)
    influence = []
    for i in range(len(tokens)):
        blanked = tokens[:i] + [vocab.PAD] + tokens[i + 1 :]
        influence.append(full - positive_probability(trained, blanked))
    return influence


def highlighted(tokens: List[str], influence: List[float]) -> str:
    """The sentence as Markdown, each word on a green (positive) or red (negative)
    background when its influence is clear."""
    words = []
    for token, push in zip(tokens, influence):
        safe = token.replace("[", "(").replace("]", ")")
        if push > 0.02:
            words.append(f":green-background[{safe}]")
        elif push < -0.02:
            words.append(f":red-background[{safe}]")
        else:
            words.append(safe)
    return " ".join(words)


def sentiment_section() -> None:
    st.markdown(
        "A 1-D convolution over word vectors reads a sentence a few words at a "
        "time, and max-pooling over time keeps each filter's strongest match: "
        "Kim's CNN of `project/run_sentiment.py` (Task 4.5). Train it, then type a "
        "sentence to see its prediction and which words drove it (each word is "
        "blanked out in turn: how much does the prediction move?)."
    )
    from project.dashboard.plots import PALETTE

    with task_guard("the sentiment model"):
        from module2_tensors import SimpleBackend

        script = load_script("run_sentiment")
        # Are the layers written? (A tiny model on the simple backend: no compiling.)
        script.SentimentCNN(12, embedding_dim=4, filters=2, backend=SimpleBackend)
        sources = ["the dashboard's mini corpus (64 sentences)"]
        if sst2_cached():
            sources.append("SST-2 (downloaded)")
        c1, c2, c3 = st.columns(3)
        source = c1.selectbox("Training data", sources, key="m4_s_source")
        size = c2.number_input(
            "SST-2 sentences",
            500,
            67349,
            3000,
            step=500,
            key="m4_s_size",
            disabled=not source.startswith("SST-2"),
        )
        epochs = c3.number_input("Epochs", 1, 50, 8, key="m4_s_epochs")
        if st.button("Train", type="primary", key="m4_s_train"):
            st.session_state["m4_sentiment"] = train_sentiment(
                source, int(size), int(epochs)
            )
        trained = st.session_state.get("m4_sentiment")
        if trained is not None and trained["version"] != code_version():
            st.info(
                "The course code changed since this model was trained: train again."
            )
            trained = st.session_state["m4_sentiment"] = None
        if trained is None:
            st.caption("Press **Train** (a few seconds once the kernels are compiled).")
            return
        last = trained["history"][-1]
        st.plotly_chart(
            curves(trained["history"], PALETTE),
            key="m4_s_curves",
        )
        st.caption(
            f"Trained on {trained['source']}: test accuracy "
            f"{100 * last['test_acc']:.0f}% after {int(last['epoch'])} epochs."
        )
        text = st.text_input(
            "Your sentence", "a funny , clever and moving film", key="m4_s_text"
        )
        from module4_networks import data

        tokens = data.tokenize(text)
        if not tokens:
            st.info("Type a sentence.")
            return
        probability = positive_probability(trained, tokens)
        influence = word_influence(trained, tokens)
        verdict = "positive" if probability >= 0.5 else "negative"
        st.metric("Prediction", f"{verdict} ({100 * probability:.0f}% positive)")
        st.markdown(highlighted(tokens, influence))
        unknown = [t for t in tokens if t not in trained["vocab"]]
        if unknown:
            st.caption(f"Never seen in training (read as <unk>): {', '.join(unknown)}.")
        import plotly.graph_objects as go

        fig = go.Figure(
            go.Bar(
                x=[f"{i}: {t}" for i, t in enumerate(tokens)],
                y=influence,
                marker_color=["#2ca02c" if v > 0 else "#d62728" for v in influence],
            )
        )
        fig.update_layout(
            title="change in P(positive) when the word is blanked out",
            yaxis=dict(title="influence"),
            height=320,
            margin=dict(l=10, r=10, t=40, b=10),
        )
        st.plotly_chart(fig, key="m4_s_influence")


header(
    "Module 4 · Networks",
    "Convolutions, pooling, softmax and dropout, assembled into an `nn` library with "
    "PyTorch's names, trained on images and on text.",
    "Tasks 4.1 conv1d · 4.2 conv2d · 4.3 pooling · 4.4 max, softmax, dropout · "
    "4.5 training · 4.6 the nn library · 4.7 recurrent networks · "
    "4.8 attention and the Transformer",
    4,
)
images, sentiment, sequences = section_tabs(
    ["Images", "Sentiment", "Sequences"], key="m4_section"
)
with images:
    if images.open:
        images_section()
with sentiment:
    if sentiment.open:
        sentiment_section()
with sequences:
    if sequences.open:
        from project.dashboard.sequences import sequences_section

        sequences_section()
