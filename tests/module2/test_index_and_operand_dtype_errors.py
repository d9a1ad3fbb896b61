"""Errors PyTorch raises where computing on would hide a bug: a float tensor used
as an index (it would be truncated silently), and ``-`` with a bool operand
(``1 - mask`` does not invert a mask), and ``//``, ``%`` and ``**`` of two bools
(PyTorch has no bool kernel of them). Each error is checked with its type and
PyTorch's message, beside the legitimate form (an int64 index, ``~`` on a mask),
which still works. A mask ``% 2`` computes, as in PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import module2_tensors as kt

pytestmark = pytest.mark.task2_6

DATA = np.arange(12.0).reshape(3, 4)


def test_a_float_tensor_index_raises_and_an_integer_one_selects():
    x = kt.tensor(DATA, requires_grad=True)
    for key in (
        kt.tensor([0.0, 1.0]),
        kt.tensor(1.0),
        (kt.tensor([0]), kt.tensor([1.0])),
    ):
        with pytest.raises(IndexError, match="must be long, int, byte or bool"):
            x[key]
    assert x[kt.tensor([2, 0])].tolist() == DATA[[2, 0]].tolist()
    assert x[kt.tensor(1)].tolist() == DATA[1].tolist()
    assert x[kt.tensor([True, False, True])].tolist() == DATA[[0, 2]].tolist()


@pytest.mark.parametrize(
    "pick",
    [
        lambda x, i: x.gather(1, i),
        lambda x, i: x.index_select(1, i.reshape(-1)),
        lambda x, i: kt.take_along_dim(x, i, 1),
    ],
)
def test_a_float_index_to_the_picking_functions_raises(pick):
    x = kt.tensor(DATA)
    with pytest.raises(RuntimeError, match="Expected dtype int32/int64 for index"):
        pick(x, kt.tensor([[1.0], [0.0], [2.0]]))
    index = np.array([[1], [0], [2]])
    out = pick(x, kt.tensor(index)).to_numpy()
    assert out.shape[0] == 3  # (the int64 index works; values checked elsewhere)
    assert (
        x.gather(1, kt.tensor(index)).tolist()
        == np.take_along_axis(DATA, index, 1).tolist()
    )


BOOL_SUB = "Subtraction, the `-` operator, with a bool tensor is not supported"


@pytest.mark.parametrize(
    "subtract",
    [
        lambda x, m: x - m,
        lambda x, m: m - x,
        lambda x, m: x - True,
        lambda x, m: 1.0 - m,
        lambda x, m: m - 1,
        lambda x, m: x.int() - m,
        lambda x, m: x.sub(m),
    ],
)
def test_subtracting_a_bool_raises_pytorchs_error(subtract):
    x = kt.tensor([1.0, -2.0, 3.0])
    with pytest.raises(RuntimeError, match=BOOL_SUB):
        subtract(x, x > 0)


def test_subtracting_two_bools_raises_and_inverting_uses_not():
    m = kt.tensor([True, False, True])
    for other in (m, True):
        with pytest.raises(RuntimeError, match=BOOL_SUB):
            m - other
    assert (~m).tolist() == [False, True, False] and (~m).dtype == kt.bool
    assert (m ^ (m & False)).tolist() == [True, False, True]
    # A mask made a number first subtracts, as in PyTorch.
    assert (1.0 - m.float()).tolist() == [0.0, 1.0, 0.0]
    assert (kt.tensor([5.0, 5.0, 5.0]) - 1.5).tolist() == [3.5, 3.5, 3.5]


def test_index_fill_with_a_float_index_raises():
    x = kt.tensor(DATA)
    with pytest.raises(IndexError, match="must be long, int, byte or bool"):
        x.index_fill(1, kt.tensor([1.0]), 0.0)
    assert x.index_fill(1, kt.tensor([1]), 0.0)[:, 1].tolist() == [0.0, 0.0, 0.0]


def test_a_mask_with_an_integer_operand_still_computes_remainders():
    m = kt.tensor([True, False, True])
    out = m % kt.tensor([2, 2, 2])
    assert out.dtype == kt.int64 and out.tolist() == [1, 0, 1]
    assert (m % 2).tolist() == [1, 0, 1] and (m // 2).tolist() == [0, 0, 0]


# (operation, PyTorch's kernel name in its error), each with two bool operands.
BOOL_KERNELS = [
    (lambda m: m // m, "div_floor_cpu"),
    (lambda m: m // True, "div_floor_cpu"),
    (lambda m: False // m, "div_floor_cpu"),
    (lambda m: m.floor_divide(m), "div_floor_cpu"),
    (lambda m: m.div(m, rounding_mode="floor"), "div_floor_cpu"),
    (lambda m: m.div(True, rounding_mode="trunc"), "div_trunc_cpu"),
    (lambda m: m % m, "remainder_cpu"),
    (lambda m: m % True, "remainder_cpu"),
    (lambda m: True % m, "remainder_cpu"),
    (lambda m: m.remainder(m), "remainder_cpu"),
    (lambda m: m**m, "pow"),
    (lambda m: True**m, "pow"),
    (lambda m: m.pow(m), "pow"),
]


@pytest.mark.parametrize("op, kernel", BOOL_KERNELS)
def test_floor_division_remainder_and_power_of_two_bools_raise(op, kernel):
    with pytest.raises(NotImplementedError, match=f'"{kernel}" not implemented'):
        op(kt.tensor([True, False, True]))


def test_a_bool_with_a_number_or_an_integer_tensor_still_computes():
    m = kt.tensor([True, False, True])
    assert (m**True).dtype == kt.bool and (m**True).tolist() == [True, False, True]
    assert (m**2).dtype == kt.int64 and (m**2).tolist() == [1, 0, 1]
    assert (2**m).tolist() == [2, 1, 2] and (m // 2).dtype == kt.int64
    p = m ** kt.tensor([2, 1, 0])
    assert p.dtype == kt.int64 and p.tolist() == [1, 0, 1]
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        kt.tensor([3, 2, 1]) // m  # (2 // False: an integer by zero)


def test_a_number_modulo_an_integer_tensor_checks_for_zero():
    assert (5 % kt.tensor([2, 3])).tolist() == [1, 2]
    assert (5 % kt.tensor([2, 3])).dtype == kt.int64
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        5 % kt.tensor([2, 0])  # (PyTorch's; it was nan labelled int64)


def test_any_of_a_tensor_still_gives_a_mask():
    x = kt.tensor([[0.0, 2.0], [0.0, 0.0]])
    assert x.any(1).tolist() == [True, False] and x.any(1).dtype == kt.bool
