"""``kt.utils.data``: ``TensorDataset``, ``Subset``, ``random_split`` and
``DataLoader`` with PyTorch's batching and default collation, checked against
the batches written out by hand (batches are Task 2.6's ``stack`` of the
examples, so the tests carry its marker)."""

from __future__ import annotations

import numpy as np
import pytest

import module4_networks as kt
from module4_networks.utils.data import (
    DataLoader,
    Dataset,
    Subset,
    TensorDataset,
    random_split,
)

pytestmark = pytest.mark.task2_6


def _numbers() -> TensorDataset:
    return TensorDataset(kt.arange(10.0), kt.arange(10))


def test_tensor_dataset_gives_one_row_of_each_tensor():
    x, y = _numbers()[3]
    assert (x.item(), y.item()) == (3.0, 3) and y.dtype == kt.int64
    assert len(_numbers()) == 10
    with pytest.raises(ValueError, match="Size mismatch"):
        TensorDataset(kt.zeros(3), kt.zeros(4))


def test_batches_in_order_and_the_last_one_smaller_or_dropped():
    batches = [(x.tolist(), y.tolist()) for x, y in DataLoader(_numbers(), 4)]
    assert batches == [
        ([0.0, 1.0, 2.0, 3.0], [0, 1, 2, 3]),
        ([4.0, 5.0, 6.0, 7.0], [4, 5, 6, 7]),
        ([8.0, 9.0], [8, 9]),
    ]
    dropped = DataLoader(_numbers(), batch_size=4, drop_last=True)
    assert [x.tolist() for x, _ in dropped] == [x for x, _ in batches[:2]]
    assert (len(DataLoader(_numbers(), 4)), len(dropped)) == (3, 2)


def test_shuffle_covers_every_example_once_in_a_new_order_each_epoch():
    loader = DataLoader(_numbers(), batch_size=3, shuffle=True)
    kt.manual_seed(0)
    epochs = [[v for x, _ in loader for v in x.tolist()] for _ in range(2)]
    for seen in epochs:
        assert sorted(seen) == list(range(10))
    assert epochs[0] != epochs[1]
    generator = np.random.default_rng(5)
    fixed = DataLoader(_numbers(), 10, shuffle=True, generator=generator)
    expected = np.random.default_rng(5).permutation(10).tolist()
    assert next(iter(fixed))[1].tolist() == expected


def test_default_collate_as_pytorch_for_numbers_arrays_tuples_and_dicts():
    dicts = next(iter(DataLoader([{"a": 1.0, "b": 2}, {"a": 3.0, "b": 4}], 2)))
    assert dicts["a"].tolist() == [1.0, 3.0] and dicts["a"].dtype == kt.float64
    assert dicts["b"].tolist() == [2, 4] and dicts["b"].dtype == kt.int64
    pairs = [(np.array([1.0, 2.0], np.float32), 0), (np.array([3.0, 4.0]), 1)]
    images, labels = next(iter(DataLoader(pairs, batch_size=2)))
    assert images.shape == (2, 2) and images.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert labels.dtype == kt.int64
    words = next(iter(DataLoader([("a", 1.5), ("b", 2.5)], batch_size=2)))
    assert words[0] == ("a", "b") and words[1].tolist() == [1.5, 2.5]
    assert next(iter(DataLoader(["a", "b"], batch_size=2))) == ["a", "b"]
    with pytest.raises(ValueError):  # torch raises too, never truncates
        next(iter(DataLoader([[1, 2, 3], [4, 5]], batch_size=2)))
    mine = DataLoader([1, 2, 3], batch_size=2, collate_fn=sum)
    assert list(mine) == [3, 3]


def test_a_dataset_subclass_is_batched_through_its_getitem():
    class Squares(Dataset):
        def __len__(self) -> int:
            return 3

        def __getitem__(self, i: int) -> kt.Tensor:
            return kt.tensor([float(i * i)])

    (batch,) = DataLoader(Squares(), batch_size=3)
    assert batch.shape == (3, 1) and batch.tolist() == [[0.0], [1.0], [4.0]]


def test_random_split_by_lengths_and_by_fractions():
    kt.manual_seed(1)
    parts = random_split(_numbers(), [7, 3])
    assert [len(p) for p in parts] == [7, 3]
    values = [p[i][0].item() for p in parts for i in range(len(p))]
    assert sorted(values) == list(range(10))
    # PyTorch's rule: floor(10 * 0.75) = 7, floor(2.5) = 2, the one left to the first
    assert [len(p) for p in random_split(_numbers(), [0.75, 0.25])] == [8, 2]
    with pytest.raises(ValueError, match="Sum of input lengths"):
        random_split(_numbers(), [4, 4])
    # Fractions summing to 1 with a negative one split 10 as [-5, 15] into 5
    # and 5 (a slice to -5); PyTorch raises ValueError.
    with pytest.raises(ValueError):
        random_split(_numbers(), [-0.5, 1.5])


def test_subset_reads_its_indices_in_order():
    subset = Subset(_numbers(), [2, 5])
    assert len(subset) == 2 and subset[1][0].item() == 5.0
    assert [x.tolist() for x, _ in DataLoader(subset, 2)] == [[2.0, 5.0]]
