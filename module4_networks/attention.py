"""Attention (Task 4.8): masks, scaled dot-product attention, additive (Bahdanau) and
multiplicative (Luong) attention, and multi-head attention, as PyTorch has them.

Attention is a soft dictionary lookup. Each *query* $q_i$ scores every *key* $k_j$,
the scores become weights by a softmax over $j$, and the result is the weighted
average of the *values* $v_j$:

$$\\mathrm{Attention}(Q, K, V) = \\mathrm{softmax}\\Big(\\frac{Q K^\\top}{\\sqrt{d}}
\\Big) V.$$

Shapes (PyTorch's): ``query`` ``(..., L, E)``, ``key`` ``(..., S, E)``, ``value``
``(..., S, E_v)``; the result is ``(..., L, E_v)`` and the weights ``(..., L, S)``.

**Masks.** Masks are tensors of 0/1 (this library has no boolean dtype: comparisons
give 0.0 and 1.0). :func:`scaled_dot_product_attention` follows
``torch.nn.functional.scaled_dot_product_attention``: a mask entry 1 (True) means the
query *may* attend to that key; a floating-point ``attn_mask`` is added to the scores
instead. ``nn.MultiheadAttention`` follows ``torch.nn.MultiheadAttention``, where the
meaning is the opposite: True marks keys to *ignore* (``key_padding_mask``, padding)
and pairs that are *not allowed* (``attn_mask``). A masked key gets weight exactly 0;
a query whose keys are all masked gets all-zero weights and a zero output (not NaN).
"""

from __future__ import annotations

import math
from typing import Any, Optional, Tuple

import numpy as np

from module0_fundamentals.module import Module
from module2_tensors._backend import TensorBackend
from module2_tensors.function_forms import cat, where
from module2_tensors.tensor import Tensor, tensor

from . import _matmul_blas, functional as F, weight_init as init
from ._attention_masks import _is_boolean, mha_masks
from ._loss_functions import _as_tensor
from ._parameters import _parameter
from .layers import Linear

__all__ = [
    "causal_mask",
    "padding_mask",
    "scaled_dot_product_attention",
    "attention_weights",
    "AdditiveAttention",
    "MultiplicativeAttention",
    "MultiheadAttention",
]


# --------------------------------------------------------------------------- masks
def causal_mask(
    size: int, key_size: Optional[int] = None, backend: Optional[TensorBackend] = None
) -> Tensor:
    """The ``(size, key_size)`` mask (``key_size`` defaults to ``size``) that lets
    query $i$ attend to keys $j \\le i$ only: 1 on and below the diagonal, 0 above
    (``torch.ones(L, S).tril()``).

    A language model predicting token $i + 1$ from tokens $0 \\dots i$ must not see
    the future: with this mask, position $i$'s output depends on inputs $\\le i$.
    """
    # BEGIN SOLUTION 4.8: causal_mask, 1 where key <= query
    keys = size if key_size is None else key_size
    rows = tensor(np.arange(size, dtype=np.float64), backend=backend).view(size, 1)
    cols = tensor(np.arange(keys, dtype=np.float64), backend=backend).view(1, keys)
    return (cols <= rows) * 1.0
    # END SOLUTION


def padding_mask(
    lengths: Any, max_len: int, backend: Optional[TensorBackend] = None
) -> Tensor:
    """The ``(N, max_len)`` mask of the real tokens of ``N`` padded sequences: 1 at
    positions $j <$ ``lengths[n]``, 0 at padding. (``nn.MultiheadAttention``'s
    ``key_padding_mask`` is its negation, ``1.0 - padding_mask(...)``.)"""
    # BEGIN SOLUTION 4.8: padding_mask, 1 at the first lengths[n] positions
    n = np.asarray(lengths, dtype=np.float64).reshape(-1, 1)
    lens = tensor(n, backend=backend)
    positions = tensor(np.arange(max_len, dtype=np.float64), backend=backend)
    return (positions.view(1, max_len) < lens) * 1.0
    # END SOLUTION


# ------------------------------------------------------ scaled dot-product attention
def attention_weights(
    scores: Tensor,
    attn_mask: Optional[Any] = None,
    dropout_p: float = 0.0,
    training: bool = True,
) -> Tensor:
    """The softmax over the last dimension of ``scores`` ``(..., L, S)`` with a mask.

    A boolean (0/1) ``attn_mask`` (broadcast to ``scores``) keeps the entries where
    it is 1: their weights are the softmax over the kept entries alone, the others
    are exactly 0, and a row with no kept entry is all 0 (never NaN). Build it from
    ``where``: put $-\\infty$ at the masked scores, replace the scores of fully masked
    rows by 0 so their softmax stays finite, and zero the masked weights afterwards.
    A mask holding any value other than 0 and 1 is a float mask, added to the scores
    instead. Dropout with probability ``dropout_p`` is applied to the weights when
    ``training``.
    """
    if attn_mask is None:
        weights = F.softmax(scores, -1)
    else:
        mask = _as_tensor(attn_mask, scores)
        if not _is_boolean(attn_mask):  # an additive float mask
            weights = F.softmax(scores + mask, -1)
        else:
            # BEGIN SOLUTION 4.8: masked softmax, exact zeros, no NaN for empty rows
            keep = mask.broadcast_to(scores.shape)
            kept = keep.any(-1, keepdim=True)
            masked = where(keep, scores, -math.inf)
            weights = F.softmax(where(kept, masked, 0.0), -1)
            weights = where(keep, weights, 0.0)
            # END SOLUTION
    if dropout_p > 0.0 and training:
        weights = F.dropout(weights, dropout_p, True)
    return weights


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Optional[Any] = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: Optional[float] = None,
) -> Tensor:
    """``torch.nn.functional.scaled_dot_product_attention``:
    $\\mathrm{softmax}(Q K^\\top \\cdot \\mathrm{scale} + \\mathrm{mask}) V$ with
    ``scale`` $= 1/\\sqrt{E}$ by default.

    Args:
        query: ``(..., L, E)``; key: ``(..., S, E)``; value: ``(..., S, E_v)``.
        attn_mask: 0/1 (1 = may attend) or additive float, broadcast to ``(..., L,
            S)``.
        dropout_p: dropout on the weights (always applied when positive, as in
            PyTorch: pass 0.0 in evaluation).
        is_causal: attend to keys $j \\le i$ only (with ``attn_mask`` None).

    Returns:
        ``(..., L, E_v)``.
    """
    if is_causal and attn_mask is not None:
        raise ValueError(
            "scaled_dot_product_attention: pass either attn_mask or is_causal=True"
        )
    if query.shape[-1] != key.shape[-1] or key.shape[-2] != value.shape[-2]:
        raise ValueError(
            f"scaled_dot_product_attention: query {query.shape}, key {key.shape} and "
            f"value {value.shape} do not fit (..., L, E), (..., S, E), (..., S, Ev)"
        )
    # BEGIN SOLUTION 4.8: scores, the causal mask, weights, weighted sum of values
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = (query @ key.transpose(-2, -1)) * scale
    if is_causal:
        attn_mask = causal_mask(query.shape[-2], key.shape[-2], query.backend)
    weights = attention_weights(scores, attn_mask, dropout_p)
    return weights @ value
    # END SOLUTION


# -------------------------------------------------------- additive and multiplicative
class _ScoredAttention(Module):
    """What the additive and multiplicative attentions share: ``forward(query,
    key, value, mask=None) -> (context, weights)``, the weights
    :func:`attention_weights` of the subclass's ``_scores(query, key)`` ``(N, L,
    S)``."""

    def forward(
        self, query: Tensor, key: Tensor, value: Tensor, mask: Optional[Any] = None
    ) -> Tuple[Tensor, Tensor]:
        weights = attention_weights(self._scores(query, key), mask)
        return weights @ value, weights


class AdditiveAttention(_ScoredAttention):
    """Bahdanau's additive attention: the score of query $q$ and key $k$ is

    $$e(q, k) = w^\\top \\tanh(W_q q + W_k k),$$

    a one-hidden-layer network. ``forward(query, key, value, mask=None) ->
    (context, weights)`` with query ``(N, L, E_q)``, key ``(N, S, E_k)``, value ``(N,
    S, E_v)``, an optional 0/1 ``mask`` (1 = may attend) broadcast to ``(N, L, S)``;
    returns ``(N, L, E_v)`` and ``(N, L, S)``. Parameters: ``query_proj``
    (``Linear(E_q, H, bias=False)``), ``key_proj`` (``Linear(E_k, H, bias=False)``),
    ``score`` (``Linear(H, 1, bias=False)``).
    """

    def __init__(
        self,
        query_dim: int,
        key_dim: int,
        hidden_dim: int,
        backend: Optional[TensorBackend] = None,
    ) -> None:
        super().__init__()
        self.query_proj = Linear(query_dim, hidden_dim, bias=False, backend=backend)
        self.key_proj = Linear(key_dim, hidden_dim, bias=False, backend=backend)
        self.score = Linear(hidden_dim, 1, bias=False, backend=backend)

    def _scores(self, query: Tensor, key: Tensor) -> Tensor:
        # (N, L, 1, H) + (N, 1, S, H) -> (N, L, S, H) -> scores (N, L, S)
        q = self.query_proj(query).unsqueeze(2)
        k = self.key_proj(key).unsqueeze(1)
        return self.score((q + k).tanh()).squeeze(-1)


class MultiplicativeAttention(_ScoredAttention):
    """Luong's multiplicative ("general") attention: $e(q, k) = q^\\top W k$ with
    ``weight`` $W$ of shape ``(E_q, E_k)``; ``scaled=True`` divides by
    $\\sqrt{E_k}$. ``forward(query, key, value, mask=None) -> (context, weights)``,
    shapes as :class:`AdditiveAttention`."""

    def __init__(
        self,
        query_dim: int,
        key_dim: int,
        scaled: bool = False,
        backend: Optional[TensorBackend] = None,
    ) -> None:
        super().__init__()
        self.scaled = scaled
        self.weight = init.xavier_uniform_(_parameter((query_dim, key_dim), backend))

    def _scores(self, query: Tensor, key: Tensor) -> Tensor:
        scores = (query @ self.weight.value) @ key.transpose(-2, -1)
        return scores * (1.0 / math.sqrt(key.shape[-1])) if self.scaled else scores


# ------------------------------------------------------------------ multi-head
class MultiheadAttention(Module):
    """``torch.nn.MultiheadAttention`` (same parameters, argument order and masks).

    ``h = num_heads`` heads of size ``d = embed_dim / h`` each attend on their own
    projection of the inputs; their outputs are concatenated and projected back:

    $$\\mathrm{head}_i = \\mathrm{Attention}(Q W^Q_i, K W^K_i, V W^V_i), \\quad
    \\mathrm{out} = [\\mathrm{head}_1, \\dots, \\mathrm{head}_h] W^O.$$

    Parameters: ``in_proj_weight`` ``(3 E, E)`` ($W^Q, W^K, W^V$ stacked),
    ``in_proj_bias`` ``(3 E,)``, ``out_proj`` (``Linear(E, E)``). Inputs are ``(L,
    N, E)`` (``(N, L, E)`` with ``batch_first``) or unbatched ``(L, E)``. As
    PyTorch's (given): keys and values of other widths ``kdim``, ``vdim`` (then
    ``q_proj_weight`` ``(E, E)``, ``k_proj_weight`` ``(E, kdim)``,
    ``v_proj_weight`` ``(E, vdim)`` instead of ``in_proj_weight``);
    ``add_bias_kv``, a learned key and value (``bias_k``, ``bias_v``, ``(1, 1,
    E)``) appended to the projected ones; ``add_zero_attn``, a zero key and
    value appended to each head's.

    ``forward(query, key, value, key_padding_mask=None, need_weights=True,
    attn_mask=None, average_attn_weights=True, is_causal=False) -> (output,
    weights)``: ``key_padding_mask`` ``(N, S)`` is 1 at keys to ignore;
    ``attn_mask`` ``(L, S)`` or ``(N * h, L, S)`` is 1 at pairs not allowed (or
    additive floats); the weights are averaged over heads unless
    ``average_attn_weights=False`` (``(N, h, L, S)``), and None unless
    ``need_weights``.
    """

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        add_bias_kv: bool = False,
        add_zero_attn: bool = False,
        kdim: Optional[int] = None,
        vdim: Optional[int] = None,
        batch_first: bool = False,
        backend: Optional[TensorBackend] = None,
    ) -> None:
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError(
                f"MultiheadAttention: embed_dim {embed_dim} must be divisible by "
                f"num_heads {num_heads}"
            )
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.head_dim = embed_dim // num_heads
        self.dropout, self.batch_first = float(dropout), batch_first
        self.kdim, self.vdim = kdim or embed_dim, vdim or embed_dim
        self.add_zero_attn = add_zero_attn
        widths = (embed_dim, self.kdim, self.vdim)
        self._qkv_same_embed_dim = widths == (embed_dim,) * 3
        # One stacked projection, or (given) three when kdim or vdim differ; the
        # unused ones read None, as PyTorch's. PyTorch's initialisation: Xavier on
        # the projections, zero biases.
        shapes = {"in": (3 * embed_dim, embed_dim)}
        shapes.update((x, (embed_dim, d)) for x, d in zip("qkv", widths))
        for name, shape in shapes.items():
            used = (name == "in") == self._qkv_same_embed_dim
            weight = init.xavier_uniform_(_parameter(shape, backend)) if used else None
            setattr(self, f"{name}_proj_weight", weight)
        self.in_proj_bias = _parameter((3 * embed_dim,), backend) if bias else None
        self.out_proj = Linear(embed_dim, embed_dim, bias=bias, backend=backend)
        if bias:  # (in_proj_bias is zeros already, as _parameter makes it)
            init.zeros_(self.out_proj.bias)
        for name in ("bias_k", "bias_v"):  # (add_bias_kv: Xavier normal, as PyTorch)
            extra = _parameter((1, 1, embed_dim), backend)
            setattr(self, name, init.xavier_normal_(extra) if add_bias_kv else None)

    def _heads(self, x: Tensor, which: int) -> Tensor:
        """Project ``x`` ``(N, T, E)`` with block ``which`` (0 = Q, 1 = K, 2 = V) of
        the stacked projection, and split the heads: ``(N, h, T, d)``."""
        E = self.embed_dim
        if self._qkv_same_embed_dim:
            w = self.in_proj_weight.value[which * E : (which + 1) * E]
        else:
            w = getattr(self, "qkv"[which] + "_proj_weight").value
        out = _matmul_blas.matmul(x, w.T)  # x @ w.T, in BLAS where it agrees
        if self.in_proj_bias is not None:
            out = out + self.in_proj_bias.value[which * E : (which + 1) * E]
        if which and self.bias_k is not None:  # (given: add_bias_kv)
            extra = (self.bias_k, self.bias_v)[which - 1].value
            out = cat([out, extra.expand(x.shape[0], 1, E)], dim=1)
        # (N, T, h, d): the last size, -1, is head_dim
        return out.view(*out.shape[:2], self.num_heads, -1).permute(0, 2, 1, 3)

    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        key_padding_mask: Optional[Any] = None,
        need_weights: bool = True,
        attn_mask: Optional[Any] = None,
        average_attn_weights: bool = True,
        is_causal: bool = False,
    ) -> Tuple[Tensor, Optional[Tensor]]:
        if is_causal and attn_mask is None:
            raise ValueError(
                "MultiheadAttention: is_causal is a hint that attn_mask is the causal "
                "mask; pass the mask too (attn_mask=1.0 - causal_mask(L))"
            )
        unbatched = query.dims == 2
        if unbatched:
            query, key, value = (t.unsqueeze(0) for t in (query, key, value))
            if key_padding_mask is not None:
                key_padding_mask = _as_tensor(key_padding_mask, query).unsqueeze(0)
        elif not self.batch_first:
            query, key, value = (t.transpose(0, 1) for t in (query, key, value))
        if query.shape[-1] != self.embed_dim:
            raise ValueError(
                f"MultiheadAttention: expected inputs with {self.embed_dim} features, "
                f"got query of shape {query.shape}"
            )
        q, k, v = self._heads(query, 0), self._heads(key, 1), self._heads(value, 2)
        if self.add_zero_attn:  # (given: one more key and value, all zeros)
            zeros = k.new_zeros((*k.shape[:2], 1, self.head_dim))
            k, v = cat([k, zeros], dim=2), cat([v, zeros], dim=2)
        # (engine: BLAS products)
        scores = _matmul_blas.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.head_dim)
        mask, scores = mha_masks(attn_mask, key_padding_mask, scores, key.shape[1])
        weights = attention_weights(scores, mask, self.dropout, self.training)
        heads = _matmul_blas.matmul(weights, v).permute(0, 2, 1, 3).contiguous()
        out = self.out_proj(heads.view(*query.shape[:2], self.embed_dim))
        if unbatched:
            out, weights = out.squeeze(0), weights.squeeze(0)
        elif not self.batch_first:
            out = out.transpose(0, 1)
        if need_weights and average_attn_weights:
            weights = weights.mean(-3)  # (over the heads)
        return out, (weights if need_weights else None)
