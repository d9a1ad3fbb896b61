"""Task 3.1: the general (strided, broadcast) path of map and zip, cut into slices.

Above ``MIN_PARALLEL_WORK`` entries a kernel cuts ``out`` into slices ``[lo, hi)``
that start and end anywhere, also in the middle of a row. The general path walks
each slice in *runs* along the last dimension: a run that starts mid-row is
shorter than a row, and the last run ends at ``hi``. Here the inputs are laid out
unlike ``out`` (transposed, or broadcast), so no fast path applies, and the slice
bounds fall mid-row (1,027 rows of 64 entries: 8 slices of 8,216 entries).
"""

import numba
import numpy as np
import pytest

from module0_fundamentals import operators
from module3_fast_ops import fast_ops, kernel_indexing
from module3_fast_ops._dispatch import compiled

from .kernels import run_map, run_reduce, run_zip
from .strategies import Strided

pytestmark = pytest.mark.task3_1

ROWS, COLS = 2 * kernel_indexing.MIN_PARALLEL_WORK // 64 + 3, 64


def _slice_starts() -> list:
    size = ROWS * COLS
    workers = kernel_indexing.workers_for(size)
    return [w * size // workers for w in range(workers)]


def test_the_slices_here_start_mid_row():
    # The case the tests below are about (a change of MIN_PARALLEL_WORK or of
    # workers_for must keep it).
    starts = _slice_starts()
    assert len(starts) > 1 and any(start % COLS for start in starts)


@pytest.mark.parametrize("layout", [(1, 0), "broadcast"])
def test_map_general_path_over_slices_that_start_mid_row(layout):
    x = np.random.default_rng(7).normal(size=(ROWS, COLS))
    if layout == "broadcast":
        x = x[:1]  # one row, read by every row of out
        a = Strided.of(x)
    else:
        a = Strided.of(x, layout)
    out = Strided.empty((ROWS, COLS), fill=np.nan)
    got = run_map(compiled(fast_ops.tensor_map, operators.neg), out, a)
    expected = -np.broadcast_to(x, (ROWS, COLS))
    wrong = np.argwhere(got != expected)
    assert wrong.size == 0, (
        f"map ({layout} input, {len(_slice_starts())} slices): {len(wrong)} "
        f"entries wrong, the first at {tuple(int(k) for k in wrong[0])}: a run "
        "that starts mid-row ends at the row's end (last - out_index[d - 1] "
        "entries) or at hi"
    )


@pytest.mark.parametrize("a_layout", [(0, 1), (1, 0)])
def test_zip_general_path_over_slices_that_start_mid_row(a_layout):
    # b is a broadcast row (a bias): with a contiguous the runs are read as views
    # (all three steps 1), with a transposed by steps.
    x = np.random.default_rng(8).normal(size=(ROWS, COLS))
    y = np.random.default_rng(9).normal(size=(1, COLS))
    out = Strided.empty((ROWS, COLS), fill=np.nan)
    got = run_zip(
        compiled(fast_ops.tensor_zip, operators.mul),
        out,
        Strided.of(x, a_layout),
        Strided.of(y),
    )
    wrong = np.argwhere(got != x * y)
    assert wrong.size == 0, (
        f"zip (a laid out {a_layout}, b a broadcast row): {len(wrong)} entries "
        f"wrong, the first at {tuple(int(k) for k in wrong[0])}: a run "
        "that starts mid-row ends at the row's end or at hi"
    )


def _difference(x: float, y: float) -> float:
    return x - 0.5 * y  # (not symmetric: a swapped pair shows)


@pytest.mark.parametrize("column", ["a", "b"])
def test_zip_general_path_counts_its_rows_over_every_dimension(column):
    """out ``(N, 3, 20)`` from a full tensor and a column ``(N, 1, 1)`` (step 0
    along the run: one number a run), the column first or second. Each run starts
    where the last one ended: the index counts on by one row, carrying into the
    middle dimension and out of it (where the column, broadcast there too, moves on
    to its next number); the slices start mid-row."""
    shape = (2 * kernel_indexing.MIN_PARALLEL_WORK // 60 + 1, 3, 20)
    size = int(np.prod(shape))
    workers = kernel_indexing.workers_for(size)
    assert any(w * size // workers % 20 for w in range(1, workers))
    rng = np.random.default_rng(12)
    full, col = rng.normal(size=shape), rng.normal(size=(shape[0], 1, 1))
    x, y = (col, full) if column == "a" else (full, col)
    out = Strided.empty(shape, fill=np.nan)
    kernel = compiled(fast_ops.tensor_zip, _difference)
    got = run_zip(kernel, out, Strided.of(x), Strided.of(y))
    wrong = np.argwhere(got != x - 0.5 * y)
    assert wrong.size == 0, (
        f"zip ({column} a column): {len(wrong)} entries wrong, the first at "
        f"{tuple(int(k) for k in wrong[0])}"
    )


@pytest.mark.parametrize("number", ["a", "b"])
def test_zip_with_one_number_over_slices_writes_inside_out_only(number):
    """One input a single number (``x * 2.0``): its slices read the number once and
    loop over ``hi - lo`` storage positions. ``out`` and the other input are the
    starts of buffers three times as long here (a slice that loops past its end
    then reads and writes inside them, no crash); out's tail must keep its
    sentinel."""
    x = np.random.default_rng(10).normal(size=(ROWS, COLS))
    size = x.size
    buffer = np.full(3 * size, 123.0)
    out = Strided.empty(x.shape)
    out = Strided(buffer[:size], out.shape, out.strides)
    inputs = np.concatenate([x.reshape(-1), np.ones(2 * size)])
    array = Strided(inputs[:size], out.shape.copy(), out.strides.copy())
    pair = (array, Strided.of(np.float64(2.5)))
    a, b = pair if number == "b" else pair[::-1]
    got = run_zip(compiled(fast_ops.tensor_zip, operators.mul), out, a, b)
    np.testing.assert_array_equal(got, x * 2.5)
    past = np.flatnonzero(buffer[size:] != 123.0)
    assert past.size == 0, (
        f"zip with {number} a single number wrote {past.size} entries past the end "
        "of out: each slice loops over its own hi - lo positions"
    )


def _thread(x: float) -> float:
    """The Numba thread that computes an entry (a map's ``fn``; the kernel
    factories compile it)."""
    return float(numba.get_thread_id())


def _thread_of_pair(x: float, y: float) -> float:
    return float(numba.get_thread_id())


def _thread_sum(acc: float, x: float) -> float:
    # A sum of the thread ids that computed each entry of out, plus n * 0.
    return acc + 0.0 * x if acc >= 0.0 else float(numba.get_thread_id())


def test_the_slices_of_large_work_run_on_several_threads(every_thread):
    """Above MIN_PARALLEL_WORK the slices run in the prange loop, spread over
    Numba's threads: a kernel that keeps the loop in its code but runs the work
    serially (a wrong test of ``workers``) passes every value test. ``fn`` here
    returns the id of the thread that computes each entry."""
    x = np.random.default_rng(11).normal(size=(ROWS, COLS))
    for layout in ((0, 1), (1, 0)):  # the aligned path, then the general one
        out = Strided.empty(x.shape)
        got = run_map(
            compiled(fast_ops.tensor_map, _thread), out, Strided.of(x, layout)
        )
        assert len(np.unique(got)) > 1, f"map (layout {layout}): one thread did it all"
        out = Strided.empty(x.shape)
        got = run_zip(
            compiled(fast_ops.tensor_zip, _thread_of_pair),
            out,
            Strided.of(x, layout),
            Strided.of(x[:1]),
        )
        assert len(np.unique(got)) > 1, f"zip (layout {layout}): one thread did it all"
    # reduce: -1 starts each entry of out; its first input sets the thread id.
    # Many entries of out, then only two (two slices: one per thread).
    reduce = compiled(fast_ops.tensor_reduce, _thread_sum)
    for a in (x, np.random.default_rng(12).normal(size=(2, 20000))):
        got = run_reduce(reduce, Strided.of(a), 1, -1.0)
        assert len(np.unique(got)) > 1, f"reduce {a.shape}: one thread did it all"


def test_next_row_visits_every_row_start_in_order():
    # The given helper the general paths count their runs with: from anywhere in
    # a row to the next row's first entry, carrying past each dimension's end
    # (a size-1 dimension included), as to_index of the next row's ordinal.
    shape = np.array([2, 1, 3, 4], np.int64)
    index = np.array([0, 0, 0, 2], np.int64)  # mid-row
    expected = np.empty(4, np.int64)
    for ordinal in range(4, 24, 4):
        kernel_indexing.next_row(index, shape)
        kernel_indexing.to_index(ordinal, shape, expected)
        assert index.tolist() == expected.tolist(), ordinal


def test_general_paths_of_an_empty_output_run_no_index():
    # A batch of zero (out (0, 3, 4)) with an input laid out unlike out: no entry
    # to write, and no index to compute (to_index of a shape with a 0 in it
    # divides by it).
    out_shape = (0, 3, 4)
    column = Strided.of(np.ones((3, 1)))
    got = run_map(
        compiled(fast_ops.tensor_map, operators.neg), Strided.empty(out_shape), column
    )
    assert got.shape == out_shape
    kernel = compiled(fast_ops.tensor_zip, operators.add)
    empty = Strided.of(np.zeros(out_shape))
    got = run_zip(kernel, Strided.empty(out_shape), empty, column)
    assert got.shape == out_shape
