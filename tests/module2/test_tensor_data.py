"""Task 2.1: TensorData, storage positions, strides, permute and contiguity."""

import numba
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from module2_tensors import TensorData, index_to_position, strides_from_shape, to_index

from tests.messages import assert_names

from .kernel_rules import container_uses
from .strategies import layouts, shapes

pytestmark = pytest.mark.task2_1


@st.composite
def laid_out(draw):
    """A shape, a layout, and the NumPy view whose entry at each index is the storage
    position of that index (the oracle for index_to_position)."""
    shape = draw(shapes(max_size=36))
    layout = draw(layouts(len(shape)))
    positions = np.arange(int(np.prod(shape)), dtype=np.float64)
    stored = positions.reshape(tuple(shape[k] for k in layout))
    view = stored.transpose(np.argsort(layout))
    strides = tuple(s // 8 for s in view.strides)
    return shape, strides, view


@given(laid_out())
def test_index_to_position_finds_every_entry(case):
    shape, strides, view = case
    strides_array = np.array(strides, dtype=np.int64)
    for idx in np.ndindex(shape):
        position = index_to_position(np.array(idx, dtype=np.int64), strides_array)
        assert position == view[idx]


def test_index_to_position_of_a_0d_index_is_0():
    empty = np.array([], dtype=np.int64)
    assert index_to_position(empty, empty) == 0


@given(shapes(max_size=36))
def test_to_index_inverts_row_major_counting(shape):
    out = np.zeros(len(shape), dtype=np.int64)
    expected = list(np.ndindex(shape))
    for ordinal, idx in enumerate(expected):
        assert to_index(ordinal, np.array(shape, dtype=np.int64), out) is None
        assert tuple(out) == idx


def test_to_index_example():
    out = np.zeros(2, dtype=np.int64)
    to_index(4, np.array([2, 3], dtype=np.int64), out)
    assert tuple(out) == (1, 1)


@given(shapes(max_size=36))
def test_strides_from_shape_matches_numpy(shape):
    expected = tuple(s // 8 for s in np.zeros(shape).strides)
    assert strides_from_shape(shape) == expected


def test_strides_from_shape_examples():
    assert strides_from_shape((2, 3, 4)) == (12, 4, 1)
    assert strides_from_shape(()) == ()
    assert strides_from_shape((2, 0, 3)) == (3, 3, 1)  # PyTorch's, for an empty tensor
    assert strides_from_shape((0,)) == (1,)
    assert TensorData(np.zeros(24), (2, 3, 4)).strides == (12, 4, 1)


@given(laid_out())
def test_index_checks_and_finds_positions(case):
    shape, strides, view = case
    data = TensorData(np.arange(view.size, dtype=np.float64), shape, strides)
    for idx in np.ndindex(shape):
        assert data.index(idx) == view[idx]
        assert data.get(idx) == view[idx]


def test_a_1d_tensor_takes_a_plain_int_index():
    """The docstring: "a plain int is accepted for a 1-D tensor" (a Python int or a
    NumPy integer), as is a list or an int64 array."""
    data = TensorData(np.array([5.0, 0.0, 6.0, 0.0, 7.0]), (3,), (2,))  # every other
    assert data.index(2) == 4 and data.index(np.int64(1)) == 2
    assert data.get(2) == 7.0
    assert data.index([1]) == data.index(np.array([1], dtype=np.int64)) == 2


@given(shapes(min_dims=1, max_size=36))
def test_indices_are_every_index_in_row_major_order(shape):
    data = TensorData(np.zeros(int(np.prod(shape))), shape)
    assert list(data.indices()) == list(np.ndindex(shape))


def test_indices_of_a_0d_tensor():
    assert list(TensorData([5.0], ()).indices()) == [()]


@pytest.mark.parametrize(
    "index, named",
    [
        # (the docstring: the message names the index, the shape and the dimension)
        ((2, 0), [(2, 0), (2, 3), 0]),
        ((0, 3), [(0, 3), (2, 3), 1]),
        ((-1, 0), [(-1, 0), (2, 3), 0]),
        ((0,), [(0,), (2, 3)]),  # the wrong length: no one dimension to name
        ((0, 0, 0), [(0, 0, 0), (2, 3)]),
    ],
)
def test_bad_indices_raise_index_error(index, named):
    data = TensorData(np.zeros(6), (2, 3))
    with pytest.raises(IndexError) as error:
        data.index(index)
    assert_names(error.value, *named)


@given(laid_out(), st.data())
def test_permute_matches_numpy_transpose_and_shares_storage(case, data):
    shape, strides, view = case
    storage = np.arange(view.size, dtype=np.float64)
    td = TensorData(storage, shape, strides)
    order = data.draw(st.permutations(range(len(shape))))
    permuted = td.permute(*order)
    expected = view.transpose(order)
    assert permuted.shape == expected.shape
    assert permuted._storage is storage  # a view: no copy
    for idx in np.ndindex(expected.shape):
        assert permuted.get(idx) == expected[idx]


@pytest.mark.parametrize("order", [(0, 0, 1), (0, 1), (0, 1, 3), (1, 2, 3)])
def test_permute_rejects_non_permutations(order):
    data = TensorData(np.zeros(24), (2, 3, 4))
    with pytest.raises(IndexError, match="not a permutation"):
        data.permute(*order)


@given(laid_out())
def test_is_contiguous_agrees_with_numpy(case):
    shape, strides, view = case
    data = TensorData(np.zeros(view.size), shape, strides)
    assert data.is_contiguous() == view.flags["C_CONTIGUOUS"]


def test_is_contiguous_examples():
    data = TensorData(np.zeros(6), (2, 3))
    assert data.is_contiguous()
    assert not data.permute(1, 0).is_contiguous()
    # A size-1 dimension is never stepped along: its stride does not matter.
    assert TensorData(np.zeros(3), (1, 3), (7, 1)).is_contiguous()
    # A stride-0 (broadcast) dimension is not contiguous.
    assert not TensorData(np.zeros(3), (2, 3), (0, 1)).is_contiguous()


@given(laid_out())
def test_row_major_is_claimed_only_for_contiguous_layouts(case):
    # Library code trusts row_major instead of asking is_contiguous(): it must
    # never be set on a layout that is not contiguous.
    shape, strides, view = case
    made = [
        TensorData(np.zeros(view.size), shape),
        TensorData.full(tuple(shape)),
        TensorData.full(tuple(shape), 2.5),
        TensorData.contiguous(np.zeros(view.size), tuple(shape)),
        TensorData._view(np.zeros(view.size), tuple(shape)),
        TensorData(np.zeros(view.size), shape, strides),
        TensorData._view(np.zeros(view.size), tuple(shape), strides),
        TensorData(np.zeros(view.size), shape).permute(*reversed(range(len(shape)))),
    ]
    for data in made:
        assert not data.row_major or data.is_contiguous()
    assert all(data.row_major for data in made[:5])
    for data in made[5:7]:  # a library view has the layout the constructor gives
        assert (data.shape, data.strides, data.size) == (
            tuple(shape),
            strides,
            view.size,
        )
        assert data._shape.tolist() == list(shape)
        assert data._strides.tolist() == list(strides)
    assert TensorData.full(tuple(shape), 2.5)._storage.tolist() == [2.5] * view.size


def test_get_and_set_round_trip_through_a_permuted_view():
    data = TensorData(np.zeros(6), (2, 3))
    view = data.permute(1, 0)
    view.set((2, 1), 7.0)
    assert data.get((1, 2)) == 7.0
    assert data._storage[5] == 7.0


def test_tensor_data_rejects_bad_layouts():
    with pytest.raises(ValueError, match=r"too small for shape \(2, 3\)"):
        TensorData(np.zeros(5), (2, 3))
    TensorData(np.zeros(6), (2, 3))  # the layout is remembered from now on
    with pytest.raises(ValueError, match=r"too small for shape \(2, 3\)"):
        TensorData._view(np.zeros(5), (2, 3))
    with pytest.raises(ValueError, match="non-negative"):
        TensorData(np.zeros(5), (2, -1))
    with pytest.raises(ValueError, match="different lengths"):
        TensorData(np.zeros(6), (2, 3), (1,))


def test_index_functions_compile_with_numba():
    """Module 3 compiles these functions with Numba: they must stay in its subset."""
    position = numba.njit(inline="always")(index_to_position)
    unravel = numba.njit(inline="always")(to_index)

    @numba.njit
    def positions(shape, strides):
        out = np.zeros(6, dtype=np.int64)
        index = np.zeros(len(shape), dtype=np.int64)
        for ordinal in range(6):
            unravel(ordinal, shape, index)
            out[ordinal] = position(index, strides)
        return out

    got = positions(np.array([2, 3], dtype=np.int64), np.array([1, 2], dtype=np.int64))
    assert list(got) == [0, 2, 4, 1, 3, 5]


ONE = np.ones(1, dtype=np.int64)


@pytest.mark.parametrize(
    "helper, example",
    [(index_to_position, (ONE, ONE)), (to_index, (0, ONE, ONE.copy()))],
    ids=["index_to_position", "to_index"],
)
def test_index_helpers_build_no_containers(helper, example):
    # Kernels call these once per entry, compiled by Numba: a list or a tuple(...)
    # inside costs an allocation per entry, even where Numba accepts it.
    helper(*example)  # (an unwritten stub stops here, as a stub, not below)
    uses = container_uses(helper)
    assert not uses, (
        f"{helper.__name__} must be a plain loop over integer NumPy arrays (the "
        f"Module 2 guide, Task 2.1); found {', '.join(uses)}"
    )
