"""Masks for attention, given complete (engine layer: no task edits it).

PyTorch accepts masks in several forms: tensors or arrays, boolean (which entries
take part) or additive floats (added to the scores), and for
``MultiheadAttention`` two of them at once (``attn_mask`` and
``key_padding_mask``). ``attention.py`` keeps the attention a student writes;
reading those forms lives here.

Interface: :func:`_is_boolean` and :func:`mha_masks` (a mask that is not a
tensor becomes one by ``_loss_functions._as_tensor``). This module does not
import ``attention``.
"""

from __future__ import annotations

import math
from typing import Any, Optional, Tuple

import numpy as np

from module2_tensors.tensor import Tensor

from ._loss_functions import _as_tensor


def _is_boolean(mask: Any) -> bool:
    """Whether ``mask`` says which entries take part (a comparison's result, a NumPy
    bool array, or a tensor of 0s and 1s) rather than numbers to add to the scores.
    Masks made by arithmetic (``1.0 - mask``) lose the comparison's mark, so a
    float tensor of 0s and 1s only is read as boolean too (as are the others:
    their entries are 0s and 1s, or False and True)."""
    return bool(np.all(np.isin(np.unique(mask), (0.0, 1.0))))


def mha_masks(
    attn_mask: Optional[Any], key_padding_mask: Optional[Any], scores: Tensor, keys: int
) -> Tuple[Optional[Tensor], Tensor]:
    """PyTorch's two masks applied to the scores ``(N, h, L, S)``:
    ``(allowed, scores)``, ``allowed`` (``None``, or 1 = may attend, for
    :func:`attention_weights`, broadcasting to the scores) from the boolean
    masks (1 = ignore), and the scores plus the float masks, as PyTorch adds
    them (``-inf`` at a padded key, as in a float ``key_padding_mask``). The
    masks cover the first ``keys`` keys; the ``S - keys`` more that
    ``add_bias_kv`` and ``add_zero_attn`` append take part, as PyTorch pads the
    masks for them (columns of 0: not ignored, nothing added)."""
    n, heads, L, S = scores.shape

    def read(mask: Any) -> Tuple[bool, Tensor]:
        if S > keys:  # (a tensor padded as its NumPy copy, np.pad reading it)
            mask = np.pad(mask, [(0, 0)] * (np.ndim(mask) - 1) + [(0, S - keys)])
        return _is_boolean(mask), _as_tensor(mask, scores)

    masks = []  # (whether boolean, as a tensor broadcasting to the scores)
    if attn_mask is not None:
        boolean, m = read(attn_mask)  # (L, S), or (N * h, L, S): per head
        masks.append((boolean, m.view(n, heads, L, S) if m.dims == 3 else m))
    if key_padding_mask is not None:
        boolean, kp = read(key_padding_mask)
        if kp.shape != (n, S):
            raise ValueError(
                f"MultiheadAttention: key_padding_mask should have shape {(n, S)}, "
                f"got {kp.shape}"
            )
        masks.append((boolean, kp.view(n, 1, 1, S)))
    kept = [(m == 0) * 1.0 for boolean, m in masks if boolean]  # (bool ones too)
    allowed = math.prod(kept[1:], start=kept[0]) if kept else None
    return allowed, sum((m for boolean, m in masks if not boolean), scores)
