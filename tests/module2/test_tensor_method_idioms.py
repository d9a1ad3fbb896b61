"""Tensor methods of ordinary PyTorch code: ``x.add(y, alpha=)``,
``x.sub(y, alpha=)``, ``x.mm``, ``x.bmm``, ``x.scatter_``, and a nested list as
an index (``x[[[0, 1], [2, 3]]]``, which PyTorch 2.13 still reads as the tuple
``x[[0, 1], [2, 3]]``). Values are worked by hand; gradients are checked by
central differences; where PyTorch is installed the same calls run on it too.
Given code (the ``Tensor`` mixins); the tests carry Task 2.6's marker, whose
operations they run."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import module2_tensors as kt
from tests.pytorch_reference import import_torch

pytestmark = pytest.mark.task2_6


def central_gradient(f, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """$\\partial f / \\partial x_i \\approx (f(x + h e_i) - f(x - h e_i)) / 2h$ of a
    scalar function of an array."""
    grad = np.zeros_like(x)
    for i in np.ndindex(*x.shape):
        up, down = x.copy(), x.copy()
        up[i] += h
        down[i] -= h
        grad[i] = (f(up) - f(down)) / (2 * h)
    return grad


def test_add_and_sub_scale_the_other_by_alpha():
    x, y = kt.tensor([1.0, 2.0]), kt.tensor([10.0, 20.0])
    assert x.add(y, alpha=2).tolist() == [21.0, 42.0]
    assert x.sub(y, alpha=0.5).tolist() == [-4.0, -8.0]
    assert x.add(3).tolist() == [4.0, 5.0] and x.sub(1).tolist() == [0.0, 1.0]
    assert kt.tensor([1, 2]).add(kt.tensor([1, 1]), alpha=3).dtype is kt.int64
    # A Python number scaled by an integer alpha stays an integer (PyTorch: int64).
    scaled = kt.tensor([1, 2]).add(2, alpha=2)
    assert scaled.dtype is kt.int64 and scaled.tolist() == [5, 6]
    assert kt.tensor([1, 2]).sub(1, alpha=2).tolist() == [-1, 0]
    assert kt.tensor([1, 2]).add_(2, alpha=3).tolist() == [7, 8]


def test_add_alpha_gradients_are_alpha_times_the_upstream():
    x = kt.tensor([1.0, 2.0], requires_grad=True)
    y = kt.tensor([3.0, 4.0], requires_grad=True)
    (x.sub(y, alpha=2.5) * kt.tensor([1.0, 3.0])).sum().backward()
    assert x.grad.tolist() == [1.0, 3.0] and y.grad.tolist() == [-2.5, -7.5]


def test_mm_and_bmm_multiply_and_check_their_shapes():
    a = kt.tensor([[1.0, 2.0], [3.0, 4.0]])
    b = kt.tensor([[5.0], [6.0]])
    assert a.mm(b).tolist() == [[17.0], [39.0]]
    batch = kt.stack([a, a * 2])
    assert batch.bmm(kt.stack([b, b])).tolist() == [[[17.0], [39.0]], [[34.0], [78.0]]]
    assert kt.mm(a, b).tolist() == [[17.0], [39.0]]
    with pytest.raises(ValueError, match="two matrices"):
        a.mm(kt.tensor([1.0, 2.0]))
    with pytest.raises(ValueError, match="same batch size"):
        batch.bmm(kt.stack([b, b, b]))


def test_scatter_in_place_writes_and_returns_self():
    x = kt.zeros(2, 3)
    index = kt.tensor([[2, 0], [1, 0]])
    out = x.scatter_(1, index, kt.tensor([[5.0, 6.0, 9.0], [7.0, 8.0, 9.0]]))
    assert out is x
    # out[i][index[i][j]] = src[i][j]: row 0 gets 5 at 2, 6 at 0; row 1 gets 7
    # at 1, 8 at 0.
    assert x.tolist() == [[6.0, 0.0, 5.0], [8.0, 7.0, 0.0]]
    y = kt.ones(3).scatter_(0, kt.tensor([1]), value=-2.0)
    assert y.tolist() == [1.0, -2.0, 1.0]
    assert kt.ones(3).scatter_(0, kt.tensor([0, 2]), 4.0).tolist() == [4.0, 1.0, 4.0]


def test_scatter_in_place_gradients_by_central_differences():
    """The gradient reaches the written ``src`` entries and the kept entries of
    the tensor written into; the overwritten ones get none."""
    index = kt.tensor([[2, 0]])
    w = np.array([[1.0, -2.0, 3.0]])
    x0, s0 = np.array([[0.5, 1.5, -1.0]]), np.array([[2.0, -3.0]])

    def loss(x, s):
        base = kt.tensor(x, requires_grad=True) * 1.0  # (not a leaf: in place)
        return (base.scatter_(1, index, kt.tensor(s)) * kt.tensor(w)).sum()

    x = kt.tensor(x0, requires_grad=True)
    s = kt.tensor(s0, requires_grad=True)
    ((x * 1.0).scatter_(1, index, s) * kt.tensor(w)).sum().backward()
    expected_x = central_gradient(lambda v: loss(v, s0).item(), x0)
    expected_s = central_gradient(lambda v: loss(x0, v).item(), s0)
    assert np.allclose(x.grad.to_numpy(), expected_x, atol=1e-6)
    assert np.allclose(s.grad.to_numpy(), expected_s, atol=1e-6)
    assert x.grad.tolist() == [[0.0, -2.0, 0.0]]


def test_a_nested_list_index_is_a_tuple_of_index_lists():
    x = kt.arange(16).view(4, 4)
    assert x[[[0, 1], [2, 3]]].tolist() == [2, 7]  # x[0, 2], x[1, 3]
    assert x[[[0, 1], [2, 3]]].tolist() == x[[0, 1], [2, 3]].tolist()
    assert x[[slice(None), 1]].tolist() == [1, 5, 9, 13]  # x[:, 1]
    assert x[[0, 2]].tolist() == [[0, 1, 2, 3], [8, 9, 10, 11]]  # rows, flat list
    assert x[[[0, 1], [2, 3]]].dtype is kt.int64


def test_tensor_idioms_match_pytorch():
    torch = import_torch()

    def run(lib):
        a = lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=lib.float64)
        b = lib.tensor([[5.0, -1.0], [6.0, 2.0]], dtype=lib.float64)
        with warnings.catch_warnings():  # (torch warns that this may change)
            warnings.simplefilter("ignore")
            nested = lib.arange(16).view(4, 4)[[[0, 1, 3], [2, 3, 0]]]
        return [
            a.add(b, alpha=-1.5).tolist(),
            a.sub(b, alpha=2).tolist(),
            a.mm(b).tolist(),
            lib.stack([a, b]).bmm(lib.stack([b, a])).tolist(),
            lib.zeros(2, 3, dtype=lib.float64)
            .scatter_(1, lib.tensor([[2, 0], [1, 2]]), b)
            .tolist(),
            lib.zeros(2, 3, dtype=lib.float64)
            .scatter_(0, lib.tensor([[1, 0, 1]]), value=7.0)
            .tolist(),
            nested.tolist(),
        ]

    assert run(kt) == run(torch)


def test_scatter_with_a_repeated_position_keeps_the_last_write():
    """Hand-worked: index [1, 1, 1, 2] writes 5, 6, 7 into position 1, and 7 (the
    last, as PyTorch's CPU kernel) stays, not their sum; every entry of ``src``
    gets its position's gradient, the overwritten ones too (PyTorch's backward
    gathers the gradient through ``index``)."""
    src = kt.tensor([5.0, 6.0, 7.0, 8.0], requires_grad=True)
    base = kt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = base.scatter(0, kt.tensor([1, 1, 1, 2]), src)
    assert out.tolist() == [1.0, 7.0, 8.0]
    (out * kt.tensor([10.0, 20.0, 30.0])).sum().backward()
    assert src.grad.tolist() == [20.0, 20.0, 20.0, 30.0]
    assert base.grad.tolist() == [10.0, 0.0, 0.0]
    rows = kt.zeros(3, 2).scatter(
        0,
        kt.tensor([[0, 1], [0, 1], [2, 1]]),
        kt.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
    )
    assert rows.tolist() == [[3.0, 0.0], [0.0, 6.0], [5.0, 0.0]]


def test_scatter_with_repeated_positions_matches_pytorch():
    torch = import_torch()
    rng = np.random.default_rng(3)
    index = rng.integers(0, 3, size=(4, 5))  # many repeats along dim 0
    src, base, w = (
        rng.normal(size=(4, 5)),
        rng.normal(size=(3, 5)),
        rng.normal(size=(3, 5)),
    )

    def run(lib):
        s = lib.tensor(src, requires_grad=True)
        b = lib.tensor(base, requires_grad=True)
        out = b.scatter(0, lib.tensor(index), s)
        (out * lib.tensor(w)).sum().backward()
        return out.tolist(), s.grad.tolist(), b.grad.tolist()

    assert run(kt) == run(torch)


def test_flip_takes_dims_as_arguments_and_sort_takes_stable():
    """PyTorch's ``x.flip(0, 1)`` (dims as arguments, or one tuple/list) and
    ``x.sort(stable=True)`` (ties keep their order; sorts here always do)."""
    x = kt.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert x.flip(0, 1).tolist() == [[4.0, 3.0], [2.0, 1.0]]
    assert x.flip((0, 1)).tolist() == kt.flip(x, [0, 1]).tolist()
    assert x.flip(1).tolist() == [[2.0, 1.0], [4.0, 3.0]]
    ties = kt.tensor([3.0, 1.0, 3.0, 2.0])
    assert ties.sort(stable=True).indices.tolist() == [1, 3, 0, 2]
    assert ties.sort(descending=True, stable=True).indices.tolist() == [0, 2, 3, 1]
