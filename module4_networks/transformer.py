"""The Transformer (Task 4.8): positional encoding, the encoder block, a stack of
blocks, and two models built from them: a causal language model (a small GPT) and a
sequence classifier.

A Transformer block refines every position of a sequence with two sub-layers, each
wrapped in a residual connection and a layer normalisation:

1. **self-attention**: every position gathers information from the others
   (:class:`~module4_networks.attention.MultiheadAttention`);
2. **feed-forward**: the same two-layer network applied to every position on its own,
   $\\mathrm{FF}(x) = W_2\\, \\mathrm{act}(W_1 x + b_1) + b_2$.

*Post-norm* (the original Transformer, PyTorch's default): $x \\leftarrow
\\mathrm{LN}(x + \\mathrm{SA}(x))$, then $x \\leftarrow \\mathrm{LN}(x +
\\mathrm{FF}(x))$. *Pre-norm* (``norm_first=True``, GPT-2 and most models since):
$x \\leftarrow x + \\mathrm{SA}(\\mathrm{LN}(x))$, then $x \\leftarrow x +
\\mathrm{FF}(\\mathrm{LN}(x))$. In pre-norm, the residual path from input to output
passes through no normalisation at all, so gradients reach the first block
undiminished and deep stacks train without a learning-rate warm-up.

Attention treats its inputs as a *set*: permuting the positions permutes the
outputs. Order enters through the *positional encoding* added to the embeddings.
"""

from __future__ import annotations

import copy
import math
from typing import Any, Callable, Optional, Union

import numpy as np

from module0_fundamentals.module import Module, ModuleList
from module2_tensors._backend import TensorBackend
from module2_tensors.shape_functions import no_grad
from module2_tensors.indexing_functions import where
from module2_tensors.tensor import Tensor, tensor

from ._activation_functions import gelu, relu
from .attention import MultiheadAttention, causal_mask, padding_mask
from .layers import Dropout, Embedding, LayerNorm, Linear

__all__ = [
    "sinusoidal_encoding",
    "PositionalEncoding",
    "TransformerEncoderLayer",
    "TransformerEncoder",
    "pre_norm_encoder",
    "TransformerLM",
    "TransformerClassifier",
]


def sinusoidal_encoding(length: int, d_model: int) -> np.ndarray:
    """The ``(length, d_model)`` table of "Attention is all you need":

    $$PE_{p, 2i} = \\sin(p / 10000^{2i/d}), \\qquad PE_{p, 2i+1} = \\cos(p /
    10000^{2i/d}).$$

    Each pair of columns is a rotation at its own frequency, so $PE_{p+k}$ is a fixed
    linear function of $PE_p$ for every offset $k$: relative positions are easy to
    read off.
    """
    column = np.arange(d_model)  # (columns 2i and 2i + 1 share the rate of 2i)
    rates = np.exp(-math.log(10000.0) * (column - column % 2) / d_model)
    angles = np.arange(length, dtype=np.float64)[:, None] * rates
    return np.where(column % 2 == 0, np.sin(angles), np.cos(angles))


class PositionalEncoding(Module):
    """Add the sinusoidal encoding to ``x`` ``(N, L, d)`` (``batch_first``, the
    default here) or ``(L, N, d)``, then dropout. Holds no parameters."""

    def __init__(
        self,
        d_model: int,
        max_len: int = 5000,
        dropout: float = 0.0,
        batch_first: bool = True,
        backend: Optional[TensorBackend] = None,
    ) -> None:
        super().__init__()
        self.d_model, self.max_len, self.batch_first = d_model, max_len, batch_first
        self.dropout = Dropout(dropout)
        self.table = tensor(sinusoidal_encoding(max_len, d_model), backend=backend)

    def forward(self, x: Tensor) -> Tensor:
        length = x.shape[1] if self.batch_first else x.shape[0]
        if length > self.max_len:
            raise ValueError(
                f"PositionalEncoding: sequence of length {length} is longer than "
                f"max_len={self.max_len}"
            )
        pe = self.table[:length]
        return self.dropout(x + (pe if self.batch_first else pe.unsqueeze(1)))


class TransformerEncoderLayer(Module):
    """``torch.nn.TransformerEncoderLayer``: self-attention and feed-forward, each
    with a residual connection, layer normalisation and dropout (post-norm by
    default, pre-norm with ``norm_first=True``).

    Submodules, in PyTorch's order and names: ``self_attn``, ``linear1``
    (``d_model -> dim_feedforward``), ``dropout``, ``linear2``, ``norm1``, ``norm2``,
    ``dropout1``, ``dropout2``. ``forward(src, src_mask=None,
    src_key_padding_mask=None, is_causal=False)`` with ``src`` ``(L, N, d)`` (``(N,
    L, d)`` with ``batch_first``); masks as ``nn.MultiheadAttention``'s (1 = not
    allowed / ignore).
    """

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: Union[str, Callable[[Tensor], Tensor]] = "relu",
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        backend: Optional[TensorBackend] = None,
    ) -> None:
        super().__init__()
        self.self_attn = MultiheadAttention(
            d_model, nhead, dropout, bias, batch_first=batch_first, backend=backend
        )
        self.linear1 = Linear(d_model, dim_feedforward, bias, backend=backend)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias, backend=backend)
        self.norm_first = norm_first
        # bias=False drops the LayerNorms' biases too, as in PyTorch.
        self.norm1 = LayerNorm(d_model, layer_norm_eps, bias=bias, backend=backend)
        self.norm2 = LayerNorm(d_model, layer_norm_eps, bias=bias, backend=backend)
        self.dropout1, self.dropout2 = Dropout(dropout), Dropout(dropout)
        if not callable(activation) and activation not in ("relu", "gelu"):
            raise ValueError(f"activation should be relu or gelu, not {activation!r}")
        self.activation = {"relu": relu, "gelu": gelu}.get(activation, activation)

    def _sa_block(
        self, x: Tensor, mask: Optional[Any], padding: Optional[Any]
    ) -> Tensor:
        """Self-attention on ``x`` (``padding``: the key padding mask), dropout."""
        out, _ = self.self_attn(x, x, x, padding, need_weights=False, attn_mask=mask)
        return self.dropout1(out)

    def _ff_block(self, x: Tensor) -> Tensor:
        """$W_2\\, \\mathrm{drop}(\\mathrm{act}(W_1 x + b_1)) + b_2$, then dropout."""
        hidden = self.dropout(self.activation(self.linear1(x)))
        return self.dropout2(self.linear2(hidden))

    def forward(
        self,
        src: Tensor,
        src_mask: Optional[Any] = None,
        src_key_padding_mask: Optional[Any] = None,
        is_causal: bool = False,
    ) -> Tensor:
        """The block: with ``self.norm_first``, $x + \\mathrm{SA}(\\mathrm{LN}_1(x))$
        then $x + \\mathrm{FF}(\\mathrm{LN}_2(x))$; else $\\mathrm{LN}_1(x +
        \\mathrm{SA}(x))$ then $\\mathrm{LN}_2(x + \\mathrm{FF}(x))$. Use
        ``self._sa_block(x, src_mask, src_key_padding_mask)`` and
        ``self._ff_block(x)``."""
        if is_causal and src_mask is None:  # (a hint that src_mask is causal, no mask)
            raise RuntimeError("is_causal is a hint about src_mask: pass src_mask too")
        # BEGIN SOLUTION 4.8: the Transformer block, pre-norm or post-norm
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask))
        return self.norm2(x + self._ff_block(x))
        # END SOLUTION


class TransformerEncoder(Module):
    """``torch.nn.TransformerEncoder``: ``num_layers`` copies of ``encoder_layer``
    (``layers.0``, ``layers.1``, ...; each with its own parameters) applied in turn,
    then ``norm`` if given. ``forward(src, mask=None, src_key_padding_mask=None,
    is_causal=None)``."""

    def __init__(
        self,
        encoder_layer: TransformerEncoderLayer,
        num_layers: int,
        norm: Optional[Module] = None,
    ) -> None:
        super().__init__()
        # (copies whose tensors land on their backends: a tensor and a backend pickle
        # by the backend's name, module2_tensors/serialization.py)
        clones = [copy.deepcopy(encoder_layer) for _ in range(num_layers)]
        self.layers = ModuleList(clones)
        self.num_layers, self.norm = num_layers, norm

    def forward(
        self,
        src: Tensor,
        mask: Optional[Any] = None,
        src_key_padding_mask: Optional[Any] = None,
        is_causal: Optional[bool] = None,
    ) -> Tensor:
        for layer in self.layers:
            src = layer(src, mask, src_key_padding_mask, bool(is_causal))
        return src if self.norm is None else self.norm(src)


def pre_norm_encoder(
    d_model: int,
    nhead: int,
    num_layers: int,
    dim_feedforward: Optional[int] = None,
    dropout: float = 0.1,
    backend: Optional[TensorBackend] = None,
) -> TransformerEncoder:
    """The stack the models below share: ``num_layers`` pre-norm blocks with GELU
    (feed-forward width ``4 * d_model`` by default, batch first), then a final
    LayerNorm (pre-norm blocks leave their output unnormalised)."""
    block = TransformerEncoderLayer(
        d_model,
        nhead,
        dim_feedforward or 4 * d_model,
        dropout,
        activation="gelu",
        batch_first=True,
        norm_first=True,
        backend=backend,
    )
    return TransformerEncoder(block, num_layers, LayerNorm(d_model, backend=backend))


class TransformerLM(Module):
    """A decoder-only (causal) Transformer language model, a small GPT.

    Token embedding and sinusoidal positions, ``num_layers`` pre-norm blocks with GELU
    and a causal mask, a final LayerNorm and a linear head over the vocabulary.
    ``forward(idx)`` maps token ids ``(N, L)`` (float tensor of integers) to logits
    ``(N, L, vocab_size)``: position $t$ predicts token $t + 1$ from tokens $\\le t$.
    """

    def __init__(
        self,
        vocab_size: int,
        d_model: int = 128,
        nhead: int = 4,
        num_layers: int = 2,
        dim_feedforward: Optional[int] = None,
        max_len: int = 256,
        dropout: float = 0.1,
        backend: Optional[TensorBackend] = None,
    ) -> None:
        super().__init__()
        self.vocab_size, self.max_len = vocab_size, max_len
        self.embed = Embedding(vocab_size, d_model, backend=backend)
        self.pos = PositionalEncoding(d_model, max_len, dropout, backend=backend)
        self.blocks = pre_norm_encoder(
            d_model, nhead, num_layers, dim_feedforward, dropout, backend
        )
        self.head = Linear(d_model, vocab_size, backend=backend)

    def forward(self, idx: Tensor) -> Tensor:
        x = self.pos(self.embed(idx))
        # An additive mask (0 where allowed, -inf above the diagonal): one addition
        # before the softmax, where a 0/1 mask costs several passes over the scores.
        future = where(causal_mask(idx.shape[-1], backend=x.backend), 0.0, -math.inf)
        return self.head(self.blocks(x, mask=future, is_causal=True))

    def generate(
        self,
        idx: Tensor,
        max_new_tokens: int,
        temperature: float = 1.0,
        rng: Optional[np.random.Generator] = None,
    ) -> Tensor:
        """Extend ``idx`` ``(N, L)`` by ``max_new_tokens`` tokens, each sampled from
        $\\mathrm{softmax}(\\mathrm{logits} / T)$ of the last position (the context
        cropped to ``max_len``). $T < 1$ sharpens the distribution, $T > 1$ flattens
        it. Runs in evaluation mode without gradients."""
        rng = rng or np.random.default_rng()
        was_training = self.training
        self.eval()
        tokens = idx.to_numpy().astype(np.int64)
        with no_grad():
            for _ in range(max_new_tokens):
                context = tensor(tokens[:, -self.max_len :], backend=idx.backend)
                logits = self(context).to_numpy()[:, -1, :] / max(temperature, 1e-8)
                # A draw from softmax(logits): the argmax of the logits plus
                # independent Gumbel noise (the Gumbel-max trick), no exp needed.
                nxt = np.argmax(logits + rng.gumbel(size=logits.shape), axis=1)
                tokens = np.concatenate([tokens, nxt[:, None]], axis=1)
        self.train(was_training)
        return tensor(tokens, backend=idx.backend)


class TransformerClassifier(Module):
    """Classify padded token sequences: embedding and sinusoidal positions,
    ``num_layers`` pre-norm blocks that ignore padding (``key_padding_mask``), the
    mean over the real tokens, dropout and a linear layer to ``num_classes`` logits.
    ``forward(idx, lengths)`` with ``idx`` ``(N, L)`` and ``lengths`` the number of
    real tokens of each row."""

    def __init__(
        self,
        vocab_size: int,
        num_classes: int,
        d_model: int = 64,
        nhead: int = 4,
        num_layers: int = 2,
        dim_feedforward: Optional[int] = None,
        max_len: int = 512,
        dropout: float = 0.1,
        backend: Optional[TensorBackend] = None,
    ) -> None:
        super().__init__()
        self.embed = Embedding(vocab_size, d_model, backend=backend)
        self.pos = PositionalEncoding(d_model, max_len, dropout, backend=backend)
        self.encoder = pre_norm_encoder(
            d_model, nhead, num_layers, dim_feedforward, dropout, backend
        )
        self.dropout = Dropout(dropout)
        self.out = Linear(d_model, num_classes, backend=backend)

    def forward(self, idx: Tensor, lengths: Any) -> Tensor:
        x = self.pos(self.embed(idx))
        # (N, L): 1 at a token, 0 at padding
        real = padding_mask(lengths, idx.shape[1], backend=x.backend)
        x = self.encoder(x, src_key_padding_mask=1.0 - real)
        pooled = (x * real.unsqueeze(-1)).sum(1) / real.sum(1, keepdim=True)
        return self.out(self.dropout(pooled))
