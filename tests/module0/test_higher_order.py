"""Task 0.3: map, zip_with, reduce and the list functions built from them."""

from __future__ import annotations

import math

import pytest
from hypothesis import given

from module0_fundamentals import operators as ops
from tests.module0.strategies import float_lists, small_floats

pytestmark = pytest.mark.task0_3


def test_map_returns_a_function_that_returns_a_list() -> None:
    square_all = ops.map(lambda x: x * x)
    assert callable(square_all)
    result = square_all((1.0, -2.0, 3.0))
    assert type(result) is list
    assert result == [1.0, 4.0, 9.0]


def test_map_accepts_any_iterable_and_leaves_the_input_alone() -> None:
    values = [1.0, 2.0]
    assert ops.map(lambda x: x + 1.0)(values) == [2.0, 3.0]
    assert values == [1.0, 2.0]
    assert ops.map(lambda x: -x)(v for v in (4.0, 5.0)) == [-4.0, -5.0]
    assert ops.map(lambda x: x)([]) == []


def test_map_can_be_reused() -> None:
    double = ops.map(lambda x: 2.0 * x)
    assert double([1.0]) == [2.0]
    assert double([3.0, 4.0]) == [6.0, 8.0]


@given(float_lists)
def test_map_applies_the_function_to_every_entry_in_order(xs: list[float]) -> None:
    assert ops.map(lambda x: 3.0 * x - 1.0)(xs) == [3.0 * x - 1.0 for x in xs]


def test_zip_with_pairs_entries_in_order() -> None:
    result = ops.zip_with(lambda x, y: x - y)([5.0, 7.0, 9.0], (1.0, 2.0, 3.0))
    assert type(result) is list
    assert result == [4.0, 5.0, 6.0]
    pairs = ops.zip_with(lambda x, y: 10.0 * x + y)
    assert pairs(iter([1.0, 2.0]), iter([3.0, 4.0])) == [13.0, 24.0]
    assert pairs([], []) == []


@pytest.mark.parametrize("left, right", [(3, 5), (5, 3), (0, 2), (1, 0)])
def test_zip_with_rejects_lists_of_different_lengths(left: int, right: int) -> None:
    add_all = ops.zip_with(lambda x, y: x + y)
    with pytest.raises(ValueError, match=rf"\b{left}\b\D*\b{right}\b"):
        add_all([1.0] * left, [2.0] * right)
    with pytest.raises(ValueError, match=rf"\b{left}\b\D*\b{right}\b"):
        add_all((v for v in [1.0] * left), (v for v in [2.0] * right))


@given(float_lists, float_lists)
def test_zip_with_matches_a_comprehension(xs: list[float], ys: list[float]) -> None:
    n = min(len(xs), len(ys))
    xs, ys = xs[:n], ys[:n]
    assert ops.zip_with(lambda x, y: x * y + x)(xs, ys) == [
        x * y + x for x, y in zip(xs, ys)
    ]


def test_reduce_folds_from_the_left_with_the_running_value_first() -> None:
    # Subtraction and digit-gluing are not commutative: they pin the order down.
    assert ops.reduce(lambda acc, x: acc - x, 10.0)([1.0, 2.0, 3.0]) == 4.0
    assert ops.reduce(lambda acc, x: 10.0 * acc + x, 0.0)([1.0, 2.0, 3.0]) == 123.0
    assert ops.reduce(lambda acc, x: acc / x, 1.0)(iter([2.0, 4.0])) == 0.125


def test_reduce_of_nothing_is_the_start() -> None:
    assert ops.reduce(lambda acc, x: acc + x, 7.5)([]) == 7.5


@given(float_lists, small_floats)
def test_reduce_matches_a_loop(xs: list[float], start: float) -> None:
    expected = start
    for x in xs:
        expected = 0.5 * expected - x
    assert ops.reduce(lambda acc, x: 0.5 * acc - x, start)(xs) == expected


@given(float_lists)
def test_neg_list(xs: list[float]) -> None:
    result = ops.neg_list(xs)
    assert type(result) is list
    assert result == [-x for x in xs]


@given(float_lists, float_lists)
def test_add_lists(xs: list[float], ys: list[float]) -> None:
    n = min(len(xs), len(ys))
    assert ops.add_lists(xs[:n], ys[:n]) == [x + y for x, y in zip(xs[:n], ys[:n])]


def test_add_lists_rejects_different_lengths() -> None:
    with pytest.raises(ValueError, match=r"\b2\b\D*\b3\b"):
        ops.add_lists([1.0, 2.0], [1.0, 2.0, 3.0])


@given(float_lists)
def test_sum(xs: list[float]) -> None:
    expected = 0.0
    for x in xs:  # left to right, like the fold, so rounding agrees exactly
        expected += x
    assert ops.sum(xs) == expected
    assert ops.sum(xs) == pytest.approx(math.fsum(xs), abs=1e-9)


@given(float_lists)
def test_prod(xs: list[float]) -> None:
    assert ops.prod(xs) == math.prod(xs)


def test_sum_and_prod_of_nothing() -> None:
    assert ops.sum([]) == 0.0
    assert ops.prod([]) == 1.0


def test_sum_and_prod_examples() -> None:
    assert ops.sum([1.0, 2.0, 3.5]) == 6.5
    assert ops.prod([2.0, -3.0, 0.5]) == -3.0
    assert ops.sum(iter([1.0, 1.0])) == 2.0
