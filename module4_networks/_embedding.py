"""Indices to vectors (given; no task asks a student to read it): ``EmbeddingFun``,
the table lookup behind ``F.embedding`` (a row gather forward, a scatter-add
backward, each one NumPy call on the host), and ``one_hot`` (``F.one_hot``).
It imports only Module 2."""

from __future__ import annotations

import numpy as np

from module2_tensors.engine.autograd import Context, Function
from module2_tensors.tensor import Tensor, tensor


def _on_host(t: Tensor) -> np.ndarray:
    """``t``'s numbers, contiguous, as a flat host array (CudaBackend's are copied
    off the GPU: the lookup runs on the host)."""
    storage = t.contiguous()._tensor._storage
    return t.to_numpy().reshape(-1) if hasattr(storage, "copy_to_host") else storage


class EmbeddingFun(Function):
    """Rows of a table: ``out[..., :] = weight[index[...], :]``. Backward adds each
    output row's gradient into the row it came from (a scatter-add), skipping
    ``padding_idx``. Given: a lookup is plumbing, not a lesson."""

    @staticmethod
    def forward(
        ctx: Context,
        weight: Tensor,
        rows: np.ndarray,
        skip: int,
    ) -> Tensor:
        ctx.save_for_backward(weight.shape, rows.reshape(-1), skip)
        # The rows of the table, (*rows.shape, dim):
        return weight.new_tensor(_on_host(weight).reshape(weight.shape)[rows])

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (count, dim), rows, skip = ctx.saved_values
        # Entry (row, e) of each output row's gradient goes to flat position
        # row * dim + e of the table; bincount sums the repeated ones.
        kept = np.where((rows != skip)[:, None], _on_host(grad).reshape(-1, dim), 0.0)
        flat = (rows[:, None] * dim + np.arange(dim)).reshape(-1)
        summed = np.bincount(flat, kept.reshape(-1), count * dim)
        return grad.new_tensor(summed.reshape(count, dim))


def one_hot(input: Tensor, num_classes: int = -1) -> Tensor:
    """``F.one_hot``: shape ``(*input.shape, C)``, 1 at each class index, an
    ``int64`` tensor; ``num_classes=-1`` means ``max(input) + 1``.

    Raises:
        RuntimeError: a negative or fractional class, or one ``>= num_classes``
            (PyTorch's messages).
    """
    classes = np.asarray(input.to_numpy())
    if np.any(classes < 0) or np.any(classes % 1 != 0):
        raise RuntimeError("Class values must be non-negative integers.")
    num_classes = int(classes.max(initial=-1)) + 1 if num_classes == -1 else num_classes
    if np.any(classes >= num_classes):
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = np.eye(num_classes, dtype=np.int64)[classes.astype(np.int64)]
    return tensor(out, backend=input.backend)  # (int64, the array's dtype)
