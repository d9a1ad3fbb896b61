"""Module 4's Sequences section: recurrent networks and attention at work.

* **Gradients through time** (Task 4.7): how fast the gradient of the last output
  fades with the distance to an input, for the RNN, the GRU and the LSTM (and what an
  open forget gate changes);
* after a button trains the sequence models on the dashboard's little corpus
  (seconds): the **attention** of the Transformer classifier over a sentence you type
  (Task 4.8), the **gates** of the LSTM classifier over the same sentence, and text
  **generated** by a character-level GPT at the temperature you choose.
"""

from __future__ import annotations

import time
from typing import Any, Dict, List

import numpy as np
import streamlit as st

from project.dashboard.common import code_version, load_script, task_guard

KINDS = ("RNN", "GRU", "LSTM")
COLORS = {"RNN": "#d62728", "GRU": "#ff7f0e", "LSTM": "#1f77b4"}


# ------------------------------------------------------ gradients through time
@st.cache_data(show_spinner=False)
def gradient_norms(
    kind: str, length: int, forget_bias: float, version: float
) -> List[float]:
    """$\\lVert \\partial\\, \\mathrm{sum}(h_L) / \\partial x_t \\rVert$ for every step
    $t$, divided by its value at the last step, for a layer of 16 units with
    PyTorch's initialisation (``version`` keys the cache to the course code)."""
    from module2_tensors import SimpleBackend, manual_seed, tensor
    from module4_networks import recurrent

    manual_seed(0)
    layer = getattr(recurrent, kind)(4, 16, backend=SimpleBackend)
    if kind == "LSTM" and forget_bias:
        bias = layer.bias_ih_l0.value.to_numpy().copy()
        bias[16:32] = forget_bias
        layer.bias_ih_l0.update(tensor(bias, backend=SimpleBackend))
    x = tensor(
        np.random.default_rng(0).normal(size=(length, 1, 4)),
        backend=SimpleBackend,
        requires_grad=True,
    )
    out, _ = layer(x)
    out[length - 1].sum().backward()
    norms = np.linalg.norm(x.grad.to_numpy().reshape(length, -1), axis=1)
    return list(norms / norms[-1])


def gradients_figure(rows: Dict[str, List[float]]) -> Any:
    import plotly.graph_objects as go

    fig = go.Figure()
    for kind, norms in rows.items():
        back = list(range(len(norms)))
        fig.add_trace(
            go.Scatter(
                x=back,
                y=list(reversed(norms)),
                mode="lines+markers",
                name=kind,
                line={"color": COLORS[kind.split()[0]]},
            )
        )
    fig.update_layout(
        xaxis_title="steps back from the output",
        yaxis_title="gradient norm (relative)",
        yaxis_type="log",
        height=360,
        margin={"t": 20, "b": 40},
    )
    return fig


def gradients_part() -> None:
    st.subheader("Gradients through time")
    st.markdown(
        "Backpropagation through time multiplies the gradient by one Jacobian per "
        "step. Through the RNN's $\\tanh$ and $W_{hh}$ it shrinks geometrically; "
        "the LSTM's cell state is carried by the forget gate alone, so with the "
        "gate open (a positive bias) the gradient survives many more steps."
    )
    left, right = st.columns(2)
    length = left.slider("sequence length", 5, 40, 20, key="m4_seq_len")
    bias = right.slider("LSTM forget-gate bias", 0.0, 3.0, 0.0, 0.5, key="m4_seq_fb")
    kinds = st.multiselect("cells", KINDS, default=list(KINDS), key="m4_seq_kinds")
    with task_guard("the gradient-through-time plot"):
        rows = {k: gradient_norms(k, length, bias, code_version()) for k in kinds}
        st.plotly_chart(gradients_figure(rows), key="m4_seq_grad_chart")


# ----------------------------------------------------------------- training
def train_models(text_steps: int = 400) -> Dict[str, Any]:
    """Train the LSTM and Transformer classifiers of ``run_sentiment.py`` and the
    character GPT of ``run_charlm.py`` on the dashboard corpus."""
    from module2_tensors import manual_seed
    from module4_networks import optim

    from project.dashboard.corpus import corpus

    sentiment = load_script("run_sentiment")
    charlm = load_script("run_charlm")
    sentences, labels = corpus()
    splits = {"train": (sentences, np.array(labels, dtype=np.int64))}
    vocab, encoded = sentiment.encode_splits(splits)
    rows, targets = encoded["train"]
    bar = st.progress(0.0, text="training the LSTM classifier…")
    models: Dict[str, Any] = {"vocab": vocab}
    for k, (name, make) in enumerate(
        [
            ("lstm", lambda: sentiment.SentimentLSTM(len(vocab), 32, 24, 0.2)),
            ("transformer", lambda: sentiment.SentimentTransformer(len(vocab), 32)),
        ]
    ):
        manual_seed(0)
        rng = np.random.default_rng(0)
        model = make()
        optimizer = optim.Adam(model.parameters(), lr=5e-3)
        for epoch in range(25):
            for index in sentiment.length_batches(rows, 16, rng):
                ids = vocab.pad([rows[i] for i in index])
                sentiment.train_step(model, optimizer, ids, targets[index])
            bar.progress(
                (k + (epoch + 1) / 25) / 3, text=f"training the {name} classifier…"
            )
        model.eval()
        models[name] = model
    bar.progress(2 / 3, text="training the character model…")
    text = "\n".join(sentences) + "\n"
    result = charlm.train(
        steps=text_steps,
        minutes=2.0,
        context=24,
        batch=16,
        d_model=32,
        heads=2,
        layers=1,
        lr=5e-3,
        eval_every=10_000,
        texts=(text, text[:400]),
    )
    models["charlm"], models["chars"] = result["model"], result["vocab"]
    bar.empty()
    models["version"] = code_version()
    return models


def encode(models: Dict[str, Any], sentence: str) -> np.ndarray:
    from module4_networks import data

    tokens = data.tokenize(sentence) or ["."]
    return np.array([models["vocab"].encode(tokens)], dtype=np.int64)


def attention_figure(models: Dict[str, Any], sentence: str) -> Any:
    """The first block's self-attention (heads averaged) over the sentence."""
    import plotly.graph_objects as go

    from module2_tensors import no_grad
    from module4_networks import data

    ids = encode(models, sentence)
    classifier = models["transformer"].classifier
    block = classifier.encoder.layers[0]
    with no_grad():
        x = block.norm1(classifier.pos(classifier.embed(ids)))
        _, weights = block.self_attn(x, x, x)
    tokens = data.tokenize(sentence) or ["."]
    fig = go.Figure(
        go.Heatmap(
            z=weights.to_numpy()[0], x=tokens, y=tokens, colorscale="Blues", zmin=0
        )
    )
    fig.update_layout(
        xaxis_title="attends to (key)",
        yaxis_title="word (query)",
        yaxis_autorange="reversed",
        height=360,
        margin={"t": 20},
    )
    return fig


def gates_figure(models: Dict[str, Any], sentence: str) -> Any:
    """Mean input, forget and output gate of the LSTM's forward direction at every
    word, recomputed from its parameters with the course's own operations."""
    import plotly.graph_objects as go

    from module2_tensors import no_grad
    from module4_networks import data, recurrent
    from module4_networks._recurrent_base import _affine

    ids = encode(models, sentence)
    model = models["lstm"]
    lstm = model.lstm
    w_ih, w_hh, b_ih, b_hh = lstm._weights("_l0")
    hidden = lstm.hidden_size
    with no_grad():
        x = model.embedding(ids)  # (1, L, dim)
        h = x.new_zeros((1, hidden))
        c = x.new_zeros((1, hidden))
        rows: Dict[str, List[float]] = {"input": [], "forget": [], "output": []}
        for t in range(ids.shape[1]):
            gi = _affine(x[:, t], w_ih, b_ih)
            gh = _affine(h, w_hh, b_hh)
            i, f, _, o = (gi + gh).chunk(4, dim=-1)
            for name, gate in (("input", i), ("forget", f), ("output", o)):
                rows[name].append(float(gate.sigmoid().mean().item()))
            h, c = recurrent.lstm_step(gi, gh, c)
    tokens = data.tokenize(sentence) or ["."]
    fig = go.Figure(
        go.Heatmap(
            z=[rows[n] for n in rows],
            x=tokens,
            y=list(rows),
            colorscale="Viridis",
            zmin=0,
            zmax=1,
        )
    )
    fig.update_layout(height=240, margin={"t": 20})
    return fig


def models_part() -> None:
    st.subheader("Attention, gates and generated text")
    st.markdown(
        "Train the LSTM and Transformer classifiers of `run_sentiment.py` and a "
        "small character-level GPT (`run_charlm.py`) on the dashboard's corpus of "
        "movie-review sentences. It takes about half a minute once the kernels are "
        "compiled."
    )
    trained = st.session_state.get("m4_seq_models")
    if trained is not None and trained.get("version") != code_version():
        trained = None  # the course code changed since
    if st.button("Train the sequence models", key="m4_seq_train"):
        with task_guard("training the sequence models"):
            started = time.perf_counter()
            trained = train_models()
            st.session_state["m4_seq_models"] = trained
            st.caption(f"trained in {time.perf_counter() - started:.0f} s")
    if trained is None:
        return
    sentence = st.text_input(
        "a sentence", "the acting is brilliant but the story is dull", key="m4_seq_s"
    )
    left, right = st.columns(2)
    with left:
        st.markdown("**Attention of the first Transformer block** (heads averaged)")
        with task_guard("the attention heatmap"):
            st.plotly_chart(attention_figure(trained, sentence), key="m4_seq_att")
    with right:
        st.markdown("**LSTM gates, word by word** (mean over units)")
        with task_guard("the LSTM gates"):
            st.plotly_chart(gates_figure(trained, sentence), key="m4_seq_gates")
    st.markdown("**Text from the character GPT**")
    left, right = st.columns([3, 1])
    prompt = left.text_input("prompt", "the film ", key="m4_seq_prompt")
    temperature = right.slider("temperature", 0.1, 1.5, 0.7, 0.1, key="m4_seq_temp")
    with task_guard("text generation"):
        charlm = load_script("run_charlm")
        text = charlm.sample(
            trained["charlm"], trained["chars"], prompt, 160, temperature, 0
        )
        st.code(text, language="text")


def sequences_section() -> None:
    gradients_part()
    models_part()
