"""Task 2.2: shape_broadcast and broadcast_index."""

import numba
import numpy as np
import pytest
from hypothesis import example, given

from module2_tensors import broadcast_index, shape_broadcast

from .kernel_rules import container_uses
from .strategies import broadcastable_shapes

pytestmark = pytest.mark.task2_2


@given(broadcastable_shapes(max_dims=4, max_size=36))
def test_shape_broadcast_matches_numpy(pair):
    a, b = pair
    assert shape_broadcast(a, b) == np.broadcast_shapes(a, b)
    assert shape_broadcast(b, a) == np.broadcast_shapes(a, b)


@pytest.mark.parametrize(
    "a, b, expected",
    [
        ((2, 1, 4), (3, 1), (2, 3, 4)),
        ((), (2, 3), (2, 3)),
        ((1,), (5,), (5,)),
        ((3, 1), (1, 1), (3, 1)),
        ((0,), (1,), (0,)),  # a size 1 stretches to 0 too: not the larger size
        ((1, 3), (2, 0, 1), (2, 0, 3)),
    ],
)
def test_shape_broadcast_examples(a, b, expected):
    assert shape_broadcast(a, b) == expected


@pytest.mark.parametrize(
    "a, b, dim",
    [((2, 3), (4,), -1), ((2, 3, 4), (5, 4), -2), ((2, 1), (3, 1, 1, 7, 1), -2)],
)
def test_incompatible_shapes_name_both_shapes_and_the_dimension(a, b, dim):
    message = rf"{a}.*{b}.*dimension {dim}".replace("(", r"\(").replace(")", r"\)")
    with pytest.raises(ValueError, match=message):
        shape_broadcast(a, b)


@given(broadcastable_shapes(max_dims=4, max_size=36))
def test_broadcast_index_reads_what_numpy_broadcasting_reads(pair):
    small, _ = pair
    big = np.broadcast_shapes(*pair)
    # Each entry of `small` holds its own ordinal; broadcasting copies it around.
    ordinals = np.arange(int(np.prod(small)), dtype=np.int64).reshape(small)
    expected = np.broadcast_to(ordinals, big)
    big_array = np.array(big, dtype=np.int64)
    small_array = np.array(small, dtype=np.int64)
    out = np.zeros(len(small), dtype=np.int64)
    for idx in np.ndindex(big):
        result = broadcast_index(
            np.array(idx, dtype=np.int64), big_array, small_array, out
        )
        assert result is None
        assert ordinals[tuple(out)] == expected[idx]


def test_broadcast_index_example():
    out = np.zeros(2, dtype=np.int64)
    broadcast_index(np.array([1, 2, 3]), np.array([2, 3, 4]), np.array([3, 1]), out)
    assert tuple(out) == (2, 0)


def test_broadcast_index_compiles_with_numba():
    """Module 3 compiles broadcast_index with Numba: it must stay in its subset."""
    kernel = numba.njit(inline="always")(broadcast_index)

    @numba.njit
    def read(big_index, big_shape, shape):
        out = np.zeros(len(shape), dtype=np.int64)
        kernel(big_index, big_shape, shape, out)
        return out

    got = read(
        np.array([1, 2, 3], dtype=np.int64),
        np.array([2, 3, 4], dtype=np.int64),
        np.array([3, 1], dtype=np.int64),
    )
    assert list(got) == [2, 0]


@given(broadcastable_shapes(max_dims=4, max_size=36))
@example(((3, 1), (2, 3, 4)))
def test_broadcast_index_overwrites_every_entry_of_a_reused_buffer(pair):
    # Kernels hand broadcast_index the same out_index for every entry: a size-1
    # dimension must be written (0), not left as the previous entry left it.
    small, big = pair
    big_shape = np.array(np.broadcast_shapes(small, big), dtype=np.int64)
    shape = np.array(small, dtype=np.int64)
    big_index = big_shape - 1  # the last entry
    out_index = np.full(len(shape), 7, dtype=np.int64)  # a dirty buffer
    broadcast_index(big_index, big_shape, shape, out_index)
    offset = len(big_shape) - len(shape)
    expected = [
        0 if shape[k] == 1 else big_index[k + offset] for k in range(len(shape))
    ]
    assert list(out_index) == expected, (
        f"broadcast_index({list(big_index)}, {tuple(big_shape)}, {tuple(shape)}) wrote "
        f"{list(out_index)} into a buffer that held 7s: write every entry of "
        "out_index, 0 where shape has size 1 (kernels reuse the buffer)"
    )


def test_broadcast_index_builds_no_containers():
    one = np.ones(1, dtype=np.int64)
    broadcast_index(one, one, one, one.copy())  # (a stub stops here, as a stub)
    uses = container_uses(broadcast_index)
    assert not uses, (
        "broadcast_index must be a plain loop over integer NumPy arrays (the Module 2 "
        f"guide, Task 2.1); found {', '.join(uses)}"
    )
