"""Task 3.4: CUDA matrix multiply with shared-memory tiles, and the one-tile practice.

Sizes are chosen around the tile sides ``TILE_ROWS``, ``TILE_COLS`` and ``TILE_K``
(smaller than a tile, a multiple, one more than a multiple) so that partial tiles
at every edge are exercised. Without
a GPU they run in Numba's CUDA simulator.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import module3_fast_ops as kt
from module3_fast_ops import cuda_ops
from module3_fast_ops._cuda_runtime import compiled
from module3_fast_ops.cuda_ops import PRACTICE_TILE, TILE_COLS, TILE_K, TILE_ROWS
from module3_fast_ops.cuda_ops import CudaBackend

from .kernels import run_matmul
from .strategies import Strided, layouts, matmul_shapes, strided_arrays

pytestmark = pytest.mark.task3_4


def matmul_kernel():
    return compiled(cuda_ops.tensor_matrix_multiply)


@pytest.mark.parametrize("size", [1, 3, PRACTICE_TILE])
def test_mm_practice(size):
    rng = np.random.default_rng(size)
    x, y = rng.normal(size=(size, size)), rng.normal(size=(size, size))
    result = cuda_ops.mm_practice(kt.tensor(x), kt.tensor(y))
    np.testing.assert_allclose(result.to_numpy(), x @ y)


@pytest.mark.parametrize(
    "a_shape, b_shape",
    [
        ((TILE_ROWS, TILE_K), (TILE_K, TILE_COLS)),
        ((TILE_ROWS + 1, 2), (2, TILE_COLS - 1)),
        ((2, 2 * TILE_K + 1), (2 * TILE_K + 1, 3)),
        ((3, 1, 2, 5), (2, 5, 4)),
        ((1, 3), (3, 1)),
        ((3, 4), (4, 2 * TILE_COLS + 3)),
        ((1, TILE_K + 3), (TILE_K + 3, TILE_COLS + 1)),
        ((2 * TILE_ROWS + 1, TILE_K - 1), (TILE_K - 1, 1)),
    ],
    ids=[
        "one-tile",
        "ragged-rows",
        "ragged-k",
        "broadcast-batch",
        "1x1",
        "wide",
        "one-row",
        "one-column",
    ],
)
def test_matmul_tiles_and_edges(a_shape, b_shape):
    rng = np.random.default_rng(len(a_shape) + a_shape[-1])
    x, y = rng.normal(size=a_shape), rng.normal(size=b_shape)
    a = Strided.of(x, tuple(range(len(a_shape)))[::-1])
    np.testing.assert_allclose(run_matmul(matmul_kernel(), a, Strided.of(y)), x @ y)


@settings(max_examples=6)
@given(st.data(), matmul_shapes(max_batch_dims=1, max_side=5))
def test_matmul_matches_numpy(data, pair):
    a_shape, b_shape = pair
    x, a = data.draw(strided_arrays(a_shape))
    y, b = data.draw(strided_arrays(b_shape))
    expected = x @ y
    out_layout = data.draw(layouts(expected.ndim))
    np.testing.assert_allclose(run_matmul(matmul_kernel(), a, b, out_layout), expected)


def test_matmul_more_row_tiles_and_batches_than_a_grid_holds(monkeypatch):
    """A GPU takes at most ``MAX_GRID`` blocks along ``y`` and ``z``: with it made 2
    here, 4 tiles of rows and 5 batches must still all be computed (and a launch of
    more than 2 along ``y`` or ``z`` is refused, as a GPU refuses 65,536)."""
    monkeypatch.setattr(cuda_ops, "MAX_GRID", 2)
    rng = np.random.default_rng(7)
    x, y = rng.normal(size=(5, 3 * TILE_ROWS + 1, 3)), rng.normal(size=(5, 3, 2))
    np.testing.assert_allclose(
        run_matmul(matmul_kernel(), Strided.of(x), Strided.of(y)), x @ y
    )


def test_matmul_writes_every_entry_of_out_which_is_not_zeroed():
    """The CUDA backend hands the kernel uninitialised GPU memory as ``out`` (the
    docstring says so): a kernel that adds into ``out`` instead of writing it would
    add whatever was there. Here ``out`` starts full of NaN."""
    rng = np.random.default_rng(11)
    x, y = rng.normal(size=(2, TILE_ROWS + 1, 3)), rng.normal(size=(3, TILE_COLS - 1))
    shape = (2, TILE_ROWS + 1, TILE_COLS - 1)
    out = Strided.empty(shape, fill=np.nan)
    matmul_kernel()(*out.args(), *Strided.of(x).args(), *Strided.of(y).args())
    assert not np.isnan(out.to_numpy()).any(), "entries of out were never written"
    np.testing.assert_allclose(out.to_numpy(), x @ y)


def test_matmul_pads_partial_tiles_with_zeros_beside_infinities():
    """The entries of a tile past the edge of a matrix must be 0, also in a tile
    of ``b`` loaded beside an infinite entry of ``a``, or after an infinite entry
    of ``b`` itself: 0 * inf is NaN, so a leftover value in the padding would
    spread NaN over finite entries."""
    x = np.array([[1.0], [np.inf], [2.0]])
    y = np.array([[3.0, 4.0]])
    got = run_matmul(matmul_kernel(), Strided.of(x), Strided.of(y))
    np.testing.assert_array_equal(got, x @ y)  # [[3, 4], [inf, inf], [6, 8]]
    x, y = np.array([[1.0], [2.0], [3.0]]), np.array([[np.inf, 1.0]])
    got = run_matmul(matmul_kernel(), Strided.of(x), Strided.of(y))
    np.testing.assert_array_equal(got, x @ y)  # [[inf, 1], [inf, 2], [inf, 3]]


@pytest.mark.parametrize(
    "work_rows, work_cols, across, down, tile_k",
    [
        (8, 4, 2, 2, 8),
        (3, 2, 2, 3, 5),
        (1, 3, 3, 1, 7),
        (1, 2, 1, 3, 5),
        (1, 1, 3, 2, 1),
    ],
    ids=[
        "GPU-work-8x4",
        "uneven-loads",
        "one-row-of-threads",
        "one-column-of-threads",
        "more-threads-than-tile-entries",
    ],
)
def test_matmul_with_other_register_blocks_and_tiles(
    monkeypatch, work_rows, work_cols, across, down, tile_k
):
    """A GPU runs the kernel with 8 x 4 entries per thread and a 128 x 64 x 8
    tile, the simulator with smaller ones. Built afresh in the simulator with the
    GPU's register block, with tiles whose entries the threads do not divide
    evenly (9 x 5 of a and 5 x 4 of b among 6 threads; one entry of a, or of b,
    left over for the last thread), with tiles of fewer entries than the block
    has threads, and with a single row or column of threads, it must still
    compute every entry, in ragged tiles and batches."""
    monkeypatch.setattr(cuda_ops, "WORK_ROWS", work_rows)
    monkeypatch.setattr(cuda_ops, "WORK_COLS", work_cols)
    monkeypatch.setattr(cuda_ops, "TILE_ROWS", work_rows * down)
    monkeypatch.setattr(cuda_ops, "TILE_COLS", work_cols * across)
    monkeypatch.setattr(cuda_ops, "TILE_K", tile_k)
    kernel = cuda_ops.tensor_matrix_multiply()  # not compiled(): its own sizes
    rng = np.random.default_rng(work_rows)
    rows, inner, cols = 2 * work_rows * down + 1, 2 * tile_k + 1, work_cols * across + 1
    x, y = rng.normal(size=(2, rows, inner)), rng.normal(size=(inner, cols))
    np.testing.assert_allclose(run_matmul(kernel, Strided.of(x), Strided.of(y)), x @ y)


def test_matmul_empty_inner_dimension():
    result = run_matmul(matmul_kernel(), Strided.empty((2, 0)), Strided.empty((0, 3)))
    np.testing.assert_array_equal(result, np.zeros((2, 3)))


def test_matmul_with_no_rows_or_columns_launches_nothing():
    """An empty out is no launch (a GPU refuses a grid of 0 blocks)."""
    for a, b in (((2, 3), (3, 0)), ((0, 3), (3, 2))):
        x, y = np.ones(a), np.ones(b)
        got = run_matmul(matmul_kernel(), Strided.of(x), Strided.of(y))
        assert got.shape == (x @ y).shape


def test_tensor_matmul_and_gradient_on_cuda():
    rng = np.random.default_rng(5)
    x, y = rng.normal(size=(3, 4)), rng.normal(size=(4, 2))
    a = kt.tensor(x, backend=CudaBackend, requires_grad=True)
    b = kt.tensor(y, backend=CudaBackend, requires_grad=True)
    out = a @ b
    np.testing.assert_allclose(out.to_numpy(), x @ y)
    out.sum().backward()
    # d/dA sum(A B) = 1 B^T, d/dB sum(A B) = A^T 1.
    np.testing.assert_allclose(a.grad.to_numpy(), np.ones((3, 2)) @ y.T)
    np.testing.assert_allclose(b.grad.to_numpy(), x.T @ np.ones((3, 2)))
