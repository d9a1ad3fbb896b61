"""Invariants of the layouts ``TensorData`` shares
(``module2_tensors/engine/layout.py``): one ``Layout`` per ``(shape, strides)``,
built by one constructor, and shape and stride arrays that nothing can write
into. These tests check given code (no task's marker); a layout's row-major
strides come from Task 2.1's ``strides_from_shape``, so most of them need it
written."""

from __future__ import annotations

import numpy as np
import pytest

from module2_tensors.engine.layout import LAYOUTS, ROW_MAJOR, Layout, new_layout
from module2_tensors.tensor_data import TensorData, strides_from_shape


def _swapped_to_index(ordinal: int, out_index: np.ndarray, shape: np.ndarray) -> None:
    """``to_index`` with its last two arguments swapped: it writes the index into
    the shape (the mistake this layout guards against)."""
    for k in range(len(shape) - 1, -1, -1):
        shape[k] = ordinal % max(int(out_index[k]), 1)
        ordinal //= max(int(out_index[k]), 1)


@pytest.mark.task2_1
def test_one_layout_per_shape_and_strides_shared_by_every_tensor():
    a = TensorData.full((2, 7))
    b = TensorData.empty((2, 7))
    c = TensorData(np.zeros(14), (2, 7))
    layout = LAYOUTS[((2, 7), None)]
    assert isinstance(layout, Layout)
    assert layout.strides == (7, 1) and layout.size == 14 and layout.last == 13
    for data in (a, b, c):
        assert data._shape is layout.shape_array
        assert data._strides is layout.strides_array
        assert data.strides == (7, 1) and data.size == 14 and data.dims == 2
    view = TensorData._view(a._storage, (7, 2), (1, 7))
    assert LAYOUTS[((7, 2), (1, 7))].last == 13 and view.strides == (1, 7)


@pytest.mark.task2_1
def test_shape_and_stride_arrays_are_read_only():
    data = TensorData.full((3, 4))
    for array in (data._shape, data._strides, *data.tuple()[1:]):
        assert not array.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 5


@pytest.mark.task2_1
def test_a_swapped_to_index_cannot_corrupt_other_tensors():
    first = TensorData.full((2, 5))
    with pytest.raises(ValueError, match="read-only"):
        _swapped_to_index(3, np.zeros(2, np.int64), first._shape)
    later = TensorData.full((2, 5))
    assert later._shape.tolist() == [2, 5] and later.size == 10


@pytest.mark.task2_1
def test_the_kernel_twins_hold_the_same_numbers_in_their_own_arrays():
    data = TensorData.full((4, 3))
    assert data._kernel_shape.tolist() == [4, 3]
    assert data._kernel_strides.tolist() == [3, 1]
    assert data._kernel_shape is not data._shape
    assert data._kernel_shape.dtype == np.int64 and data._kernel_shape.flags.writeable


@pytest.mark.task2_1
def test_new_layout_checks_what_it_remembers():
    with pytest.raises(ValueError, match="different lengths"):
        new_layout((2, 3), (1,), strides_from_shape)
    with pytest.raises(ValueError, match="non-negative"):
        new_layout((2, -3), (3, 1), strides_from_shape)
    with pytest.raises(ValueError, match="too small"):
        TensorData(np.zeros(5), (2, 3))


@pytest.mark.task2_1
def test_row_major_layouts_are_the_same_objects_keyed_by_shape():
    # ROW_MAJOR is LAYOUTS's row-major part keyed by the shape alone (the
    # constructors of every operation's output look it up): the two never differ.
    TensorData.full((3, 5))
    TensorData.empty((5, 3, 2))
    TensorData(np.zeros(6), (2, 3))
    for (shape, strides), layout in LAYOUTS.items():
        if strides is None:
            assert ROW_MAJOR[shape] is layout
    assert all(LAYOUTS[(shape, None)] is layout for shape, layout in ROW_MAJOR.items())


@pytest.mark.task2_1
def test_empty_full_and_contiguous_give_the_layout_of_the_constructor():
    for shape in [(4, 6), (), (0, 3), (7, 1, 2)]:
        reference = TensorData(np.zeros(int(np.prod(shape))), shape)
        made = [
            TensorData.empty(shape),
            TensorData.full(shape, 2.5),
            TensorData.contiguous(np.zeros(int(np.prod(shape))), shape),
        ]
        for data in made:
            assert (data.shape, data.strides) == (reference.shape, reference.strides)
            assert (data.size, data.dims) == (reference.size, reference.dims)
            assert data._shape is reference._shape
            assert data._kernel_strides is reference._kernel_strides
            assert data.row_major and len(data._storage) == reference.size
        assert np.all(made[1]._storage == 2.5)
