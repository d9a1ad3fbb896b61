"""Data sets and batching, as ``torch.utils.data`` (given; ``kt.utils.data``):
``Dataset``, ``TensorDataset``, ``Subset``, ``random_split`` and ``DataLoader``,
whose batches are :func:`~module4_networks.training.minibatches` (the scripts'
shuffled index batches) put together by :func:`default_collate`.

The random choices (``shuffle``, ``random_split``) come from the library's
generator, which ``kt.manual_seed`` seeds, or from ``generator=`` (a NumPy
``Generator``); there are no worker processes (``num_workers`` and
``pin_memory`` are accepted and change nothing)."""

from __future__ import annotations

import math
from typing import Any, Callable, Iterator, List, Optional, Sequence

import numpy as np

from module2_tensors.function_forms import stack
from module2_tensors.tensor import Tensor, _rng, tensor

from ..training import minibatches

__all__ = ["Dataset", "TensorDataset", "Subset", "random_split", "DataLoader"]


class Dataset:
    """A data set indexed by position: a subclass defines ``__getitem__`` (one
    example) and ``__len__`` (how many), as for ``torch.utils.data.Dataset``."""


class TensorDataset(Dataset):
    """Example ``i`` is ``(t[i] for t in tensors)``: tensors of one first size.

    Raises:
        ValueError: the tensors' first sizes differ.
    """

    def __init__(self, *tensors: Tensor) -> None:
        if any(t.shape[0] != tensors[0].shape[0] for t in tensors):
            raise ValueError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


class Subset(Dataset):
    """The examples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset: Any, indices: Sequence[int]) -> None:
        self.dataset, self.indices = dataset, indices

    def __getitem__(self, index: int) -> Any:
        return self.dataset[self.indices[index]]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(
    dataset: Any, lengths: Sequence[float], generator: Optional[Any] = None
) -> List[Subset]:
    """Split ``dataset`` into non-overlapping random subsets of ``lengths``, or
    of fractions summing to 1: $\\lfloor n f_k \\rfloor$ each, the remainder
    given one at a time to the first subsets (PyTorch's rule: 10 split
    ``[0.75, 0.25]`` is 8 and 2).

    Raises:
        ValueError: the lengths do not sum to ``len(dataset)`` (fractions: a
            negative one, as PyTorch's "not between 0 and 1").
    """
    n = len(dataset)
    if math.isclose(sum(lengths), 1.0) and sum(lengths) <= 1.0 and min(lengths) >= 0:
        counts = [math.floor(n * fraction) for fraction in lengths]
        # (the remainder is below len(lengths): one more for each of the first)
        lengths = [c + (k < n - sum(counts)) for k, c in enumerate(counts)]
    if sum(lengths) != n:
        raise ValueError(
            "Sum of input lengths does not equal the length of the input dataset!"
        )
    parts = np.split(_rng(None, generator).permutation(n), np.cumsum(lengths)[:-1])
    return [Subset(dataset, part.tolist()) for part in parts]


def default_collate(batch: Sequence[Any]) -> Any:
    """Examples into one batch, as PyTorch's ``default_collate``: tensors are
    stacked along a new first dim, NumPy arrays and numbers become tensors (of
    their dtype: ``int64`` for ints), and tuples, lists and dicts are collated
    field by field (a tuple of fields gives a list; fields of unequal lengths
    raise ``ValueError``); anything else stays as it came (the batch's list,
    a field's tuple)."""
    first = batch[0]
    if isinstance(first, Tensor):
        return stack(list(batch))
    if isinstance(first, (np.ndarray, np.generic, int, float)):
        return tensor(np.stack(batch))  # (NumPy's dtype: int64 for ints)
    if isinstance(first, dict):
        return {key: default_collate([x[key] for x in batch]) for key in first}
    if isinstance(first, (tuple, list)):
        return [default_collate(field) for field in zip(*batch, strict=True)]
    return batch


class DataLoader:
    """Batches of ``dataset`` (anything with ``len`` and ``[i]``): ``for x, y in
    DataLoader(TensorDataset(X, Y), batch_size=32, shuffle=True)``. Each epoch
    (each ``iter``) takes a new order when ``shuffle``; ``drop_last`` drops a
    last batch smaller than ``batch_size``; ``collate_fn`` (default
    :func:`default_collate`) makes a batch of a list of examples. The settings
    after ``shuffle`` are keyword-only (PyTorch's ``sampler`` and
    ``batch_sampler``, which would come between, are not there)."""

    def __init__(
        self,
        dataset: Any,
        batch_size: int = 1,
        shuffle: bool = False,
        *,
        num_workers: int = 0,
        collate_fn: Optional[Callable[[List[Any]], Any]] = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        generator: Optional[Any] = None,
    ) -> None:
        self.dataset, self.batch_size, self.shuffle = dataset, batch_size, shuffle
        self.collate_fn = collate_fn or default_collate
        self.drop_last, self.generator = drop_last, generator

    def __iter__(self) -> Iterator[Any]:
        rng = _rng(None, self.generator) if self.shuffle else None
        for index in minibatches(len(self.dataset), self.batch_size, rng):
            if len(index) == self.batch_size or not self.drop_last:
                yield self.collate_fn([self.dataset[int(i)] for i in index])

    def __len__(self) -> int:
        n = len(self.dataset)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
