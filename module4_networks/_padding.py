"""``torch.nn.functional.pad`` with PyTorch's modes (private: the facade
``nn.functional`` exports it; no task asks a student to read it).

``constant`` is Module 2's ``pad``; ``reflect``, ``replicate`` and ``circular``
read each padded dimension through one list of source positions
(``index_select``), so the gradient of an entry copied several times is the sum
of the gradients of its copies, as in PyTorch. It imports only Module 2.
"""

from __future__ import annotations

from typing import Callable, Dict, Optional, Sequence

import numpy as np

from module2_tensors import indexing_functions as ixf
from module2_tensors import shape_functions as sf
from module2_tensors.tensor import Tensor
from module2_tensors.tensor_api.creation import _labelled
from module2_tensors.tensor_api.dtype_device import kept_dtype

#: Positions ``-before .. n + after - 1`` mapped into ``0 .. n - 1``.
_SOURCES: Dict[str, Callable[[np.ndarray, int], np.ndarray]] = {
    "reflect": lambda k, n: n - 1 - np.abs(n - 1 - np.abs(k)),  # 2 1 | 0 1 2 | 1 0
    "replicate": lambda k, n: np.clip(k, 0, n - 1),  # 0 0 | 0 1 2 | 2 2
    "circular": lambda k, n: k % n,  # 1 2 | 0 1 2 | 0 1
}


def pad(
    input: Tensor,
    pad: Sequence[int],
    mode: str = "constant",
    value: Optional[float] = None,
) -> Tensor:
    """Pad ``input`` as ``torch.nn.functional.pad``: ``pad`` holds ``(before,
    after)`` pairs from the last dimension backwards. ``mode`` is ``constant``
    (``value``, default 0), ``reflect`` (mirror without repeating the edge:
    ``[1, 2, 3]`` padded ``(2, 1)`` is ``[3, 2, 1, 2, 3, 2]``), ``replicate``
    (repeat the edge: ``[1, 1, 1, 2, 3, 3]``) or ``circular`` (wrap around:
    ``[2, 3, 1, 2, 3, 1]``). The non-constant modes pad the last $k \\le 3$
    dimensions of a $(k + 1)$- or $(k + 2)$-D input (channels, batch), as
    PyTorch. A negative amount (``constant`` only) crops that many entries.

    Raises:
        ValueError: an unknown mode, an odd number of entries, too many pairs,
            a negative amount in another mode, or (``reflect``) an amount not
            below the size or (``circular``) above it.
    """
    amounts = [int(p) for p in pad]
    sizes = list(zip(input.shape[::-1], amounts[::2], amounts[1::2]))
    if any(n + before + after < 0 for n, before, after in sizes):  # (as PyTorch)
        raise RuntimeError(f"pad: {tuple(pad)} crops more than shape {input.shape}")
    if mode == "constant":  # (a negative amount crops, as PyTorch's)
        out = sf.pad(input, [max(w, 0) for w in amounts], value or 0.0)
        # (first padded dim first; a negative after: that many entries off the end)
        cut = [slice(max(-b, 0), min(a, 0) or None) for _, b, a in sizes[::-1]]
        return _labelled(out[(Ellipsis, *cut)], input.dtype)  # (int64, mask: kept)
    if mode not in _SOURCES:
        raise ValueError(
            f"pad: unknown mode {mode!r} (expected one of constant, "
            f"{', '.join(_SOURCES)})"
        )
    pairs = len(amounts) // 2
    if len(amounts) % 2 or not 1 <= pairs <= 3 or input.dims - pairs not in (1, 2):
        raise ValueError(
            f"pad: mode {mode!r} pads the last k = 1, 2 or 3 dimensions of a "
            f"(k + 1)- or (k + 2)-D input, with (before, after) pairs; got "
            f"{tuple(pad)} for shape {input.shape}"
        )
    out = input
    for d, (n, before, after) in zip(range(input.dims - 1, -1, -1), sizes):
        limit = n - 1 if mode == "reflect" else n if mode == "circular" else None
        if min(before, after) < 0 or (limit is not None and max(before, after) > limit):
            raise ValueError(
                f"pad: mode {mode!r} cannot pad dimension {d} of size {n} by "
                f"({before}, {after})"
            )
        sources = _SOURCES[mode](np.arange(-before, n + after), n)
        out = ixf.index_select(out, d, [int(i) for i in sources])
    return kept_dtype(input, out)
