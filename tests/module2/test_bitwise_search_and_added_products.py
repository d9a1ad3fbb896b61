"""PyTorch's ``bitwise_and/or/xor/not`` (functions, methods, in-place forms),
``addmm``/``addmv``/``baddbmm`` (and in place), ``searchsorted``,
``bucketize``, ``isin`` and ``bincount``: values and dtypes against PyTorch and
against hand-worked cases; the products' gradients against PyTorch's and central
differences. Given code."""

from __future__ import annotations

import math

import numpy as np
import pytest

import module2_tensors as kt
from tests.pytorch_reference import assert_same_function, import_torch

pytestmark = pytest.mark.task2_6

RNG = np.random.default_rng(46)


def _same(got, expected):
    """Equal values, shape and dtype name."""
    assert got.dtype.name == str(expected.dtype)[6:], (got.dtype, expected.dtype)
    assert got.shape == tuple(expected.shape)
    assert got.tolist() == expected.tolist()


@pytest.mark.parametrize("name", ["bitwise_and", "bitwise_or", "bitwise_xor"])
def test_bitwise_of_integers_and_bools(name):
    torch = import_torch()
    for a, b in [([5, 3, -2], [6, 1, 7]), ([True, False, True], [True, True, False])]:
        _same(
            getattr(kt, name)(kt.tensor(a), kt.tensor(b)),
            getattr(torch, name)(torch.tensor(a), torch.tensor(b)),
        )
        other = True if isinstance(a[0], bool) else 3
        _same(getattr(kt.tensor(a), name)(other), getattr(torch.tensor(a), name)(other))
    # by hand: 0b101 & 0b110 = 0b100, | = 0b111, ^ = 0b011
    by_hand = {"bitwise_and": 4, "bitwise_or": 7, "bitwise_xor": 3}
    assert getattr(kt, name)(kt.tensor([5]), kt.tensor([6])).tolist() == [by_hand[name]]


def test_bitwise_not_and_the_in_place_forms():
    torch = import_torch()
    for a in ([5, -3, 0], [True, False]):
        _same(kt.bitwise_not(kt.tensor(a)), torch.bitwise_not(torch.tensor(a)))
    assert kt.tensor([5, -3]).bitwise_not().tolist() == [-6, 2]  # ~x = -x - 1
    x = kt.tensor([5, 3])
    view = x.view(2)
    assert x.bitwise_and_(6) is x and view.tolist() == [4, 2]  # through its views
    x.bitwise_or_(kt.tensor([1, 1])).bitwise_xor_(3)
    assert x.tolist() == [6, 0]
    x.bitwise_not_()
    assert x.tolist() == [-7, -1] and x.dtype == kt.int64


@pytest.mark.parametrize(
    "name, shapes, options",
    [
        ("addmm", [(2, 4), (2, 3), (3, 4)], {}),
        ("addmm", [(4,), (2, 3), (3, 4)], {"beta": 0.5, "alpha": 2.0}),
        ("addmv", [(2,), (2, 3), (3,)], {"beta": 2.0, "alpha": -1.0}),
        ("baddbmm", [(5, 2, 4), (5, 2, 3), (5, 3, 4)], {"alpha": 0.5}),
        ("baddbmm", [(1, 4), (2, 1, 3), (2, 3, 4)], {"beta": -1.5}),
    ],
)
def test_added_products(name, shapes, options):
    torch = import_torch()
    arrays = [RNG.normal(size=s) for s in shapes]
    assert_same_function(
        lambda *t: getattr(kt, name)(*t, **options),
        lambda *t: getattr(torch, name)(*t, **options),
        *arrays,
        rng=RNG,
        rtol=1e-12,
    )
    x, a, b = (kt.tensor(v) for v in arrays)
    # by hand: beta x + alpha (a @ b)
    beta, alpha = options.get("beta", 1.0), options.get("alpha", 1.0)
    expected = alpha * (arrays[1] @ arrays[2]) + beta * arrays[0]
    np.testing.assert_allclose(getattr(x, name)(a, b, **options).to_numpy(), expected)


def test_added_product_with_beta_zero_leaves_the_input_out():
    # PyTorch: "If beta is 0, then input will be ignored, and nan and inf in it
    # will not be propagated."
    x = kt.full((2, 2), math.nan)
    out = kt.addmm(x, kt.ones(2, 3), kt.ones(3, 2), beta=0)
    assert out.tolist() == [[3.0, 3.0], [3.0, 3.0]]
    with pytest.raises(ValueError, match="mm expects two matrices"):
        kt.addmm(kt.ones(2), kt.ones(2, 3, 3), kt.ones(3, 3))


def test_added_products_in_place():
    torch = import_torch()
    start, m1, m2 = (
        RNG.normal(size=(2, 4)),
        RNG.normal(size=(2, 3)),
        RNG.normal(size=(3, 4)),
    )
    x, a, b = (
        kt.tensor(start),
        kt.tensor(m1, requires_grad=True),
        kt.tensor(m2, requires_grad=True),
    )
    tx = torch.tensor(start)
    ta, tb = torch.tensor(m1, requires_grad=True), torch.tensor(m2, requires_grad=True)
    assert x.addmm_(a, b, alpha=3.0) is x
    tx.addmm_(ta, tb, alpha=3.0)
    np.testing.assert_allclose(x.to_numpy(), tx.detach().numpy(), rtol=1e-12)
    (x * x).sum().backward()
    (tx * tx).sum().backward()
    np.testing.assert_allclose(a.grad.to_numpy(), ta.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(b.grad.to_numpy(), tb.grad.numpy(), rtol=1e-12)
    v = kt.ones(2)
    v.addmv_(kt.ones(2, 3), kt.ones(3), beta=2)
    assert v.tolist() == [5.0, 5.0]  # 2 * 1 + 3
    batch = kt.zeros(2, 1, 1)
    batch.baddbmm_(kt.ones(2, 1, 4), kt.ones(2, 4, 1))
    assert batch.tolist() == [[[4.0]], [[4.0]]]


def test_searchsorted_and_bucketize_by_hand():
    edges = kt.tensor([1.0, 3.0, 5.0])
    # left: entries < v; right: entries <= v
    assert kt.searchsorted(edges, kt.tensor([0.0, 3.0, 4.0, 9.0])).tolist() == [
        0,
        1,
        2,
        3,
    ]
    assert kt.searchsorted(edges, kt.tensor([3.0, 5.0]), right=True).tolist() == [2, 3]
    assert kt.searchsorted(edges, kt.tensor([3.0, 5.0]), side="right").tolist() == [
        2,
        3,
    ]
    assert kt.searchsorted(edges, 3.0).tolist() == 1  # a number: 0-d
    assert kt.searchsorted(edges, kt.tensor([3.0]), out_int32=True).dtype == kt.int32
    unsorted = kt.tensor([5.0, 1.0, 3.0])
    assert kt.searchsorted(
        unsorted, kt.tensor([4.0]), sorter=kt.tensor([1, 2, 0])
    ).tolist() == [2]
    rows = kt.tensor([[1, 3, 5], [2, 4, 6]])
    assert kt.searchsorted(rows, kt.tensor([[3, 6], [1, 7]])).tolist() == [
        [1, 3],
        [0, 3],
    ]
    # bucketize: boundaries[i-1] < x <= boundaries[i] (right: <= x <)
    assert kt.bucketize(kt.tensor([1.0, 2.0, 5.0, 6.0]), edges).tolist() == [0, 1, 2, 3]
    assert kt.bucketize(kt.tensor([1.0, 5.0]), edges, right=True).tolist() == [1, 3]


def test_searchsorted_and_bucketize_match_pytorch():
    torch = import_torch()
    seq = np.sort(RNG.integers(0, 9, size=(3, 6)), axis=-1).astype(float)
    values = RNG.integers(-1, 10, size=(3, 4)).astype(float)
    for right in (False, True):
        _same(
            kt.searchsorted(kt.tensor(seq), kt.tensor(values), right=right),
            torch.searchsorted(torch.tensor(seq), torch.tensor(values), right=right),
        )
        _same(
            kt.bucketize(kt.tensor(values), kt.tensor(seq[0]), right=right),
            torch.bucketize(torch.tensor(values), torch.tensor(seq[0]), right=right),
        )


def test_isin():
    torch = import_torch()
    cases = [
        ([1, 2, 3], [2, 5]),
        ([1.0, 2.0, math.nan], [2.0, math.nan]),
        ([[4, 5]], 5),
    ]
    for elements, tests in cases:
        t = tests if isinstance(tests, int) else torch.tensor(tests)
        k = tests if isinstance(tests, int) else kt.tensor(tests)
        for invert in (False, True):
            _same(
                kt.isin(kt.tensor(elements), k, invert=invert),
                torch.isin(torch.tensor(elements), t, invert=invert),
            )
    assert kt.isin(kt.tensor([1, 2, 3]), kt.tensor([2, 5])).tolist() == [
        False,
        True,
        False,
    ]
    assert kt.isin(3, kt.tensor([3])).tolist() is True


def test_bincount():
    torch = import_torch()
    assert kt.bincount(kt.tensor([0, 2, 2])).tolist() == [1, 0, 2]  # by hand
    assert kt.tensor([0, 2, 2]).bincount(minlength=5).tolist() == [1, 0, 2, 0, 0]
    weighted = kt.tensor([0, 2, 2]).bincount(kt.tensor([0.5, 1.0, 2.0]))
    assert weighted.tolist() == [0.5, 0.0, 3.0]
    for weights in (None, [1.0, 2.0, 3.0]):
        for dtype in ("float32", "float64"):
            index = torch.tensor([3, 0, 3])
            tw = (
                None
                if weights is None
                else torch.tensor(weights, dtype=getattr(torch, dtype))
            )
            kw = (
                None
                if weights is None
                else kt.tensor(weights, dtype=getattr(kt, dtype))
            )
            _same(kt.bincount(kt.tensor([3, 0, 3]), kw), torch.bincount(index, tw))
    _same(
        kt.bincount(kt.tensor([], dtype=kt.int64)),
        torch.bincount(torch.tensor([], dtype=torch.long)),
    )
    for bad in ([1.0, 2.0], [[1, 2]]):
        with pytest.raises(RuntimeError, match="bincount only supports"):
            kt.bincount(kt.tensor(bad))
