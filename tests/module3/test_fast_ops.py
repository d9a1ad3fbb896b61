"""Task 3.1: Numba parallel map, zip and reduce (FastOps).

The kernels are called on raw storage (NumPy arrays in random storage layouts) and
compared with NumPy; then the ops class is checked at the Tensor level. The Module 2
tensor tests also run on this backend (their ``fast`` variants, Task 3.1 too).
"""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import module3_fast_ops as kt
from module0_fundamentals import operators
from module3_fast_ops import fast_ops, kernel_indexing
from module3_fast_ops._dispatch import compiled
from module3_fast_ops.fast_ops import FastBackend, FastOps

from .kernels import parallel_loops, run_map, run_reduce, run_zip
from .strategies import (
    Strided,
    arrays,
    broadcast_pairs,
    layouts,
    shapes,
    strided_arrays,
)

pytestmark = pytest.mark.task3_1


def neg_kernel():
    return compiled(fast_ops.tensor_map, operators.neg)


def sigmoid_kernel():
    return compiled(fast_ops.tensor_map, operators.sigmoid)


def mul_kernel():
    return compiled(fast_ops.tensor_zip, operators.mul)


def add_kernel():
    return compiled(fast_ops.tensor_reduce, operators.add)


def max_kernel():
    return compiled(fast_ops.tensor_reduce, operators.max)


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


# ------------------------------------------------------------------------- map
@given(st.data(), strided_arrays(shapes()))
def test_map_any_layouts(data, case):
    """Input and output in independent random layouts: the general, strided path."""
    array, a = case
    out = Strided.empty(array.shape, data.draw(layouts(array.ndim)))
    np.testing.assert_allclose(run_map(neg_kernel(), out, a), -array)


@given(strided_arrays(shapes()))
def test_map_aligned_fast_path(case):
    """Input and output share one layout (contiguous or permuted alike)."""
    array, a = case
    out = Strided(np.zeros(len(a.storage)), a.shape.copy(), a.strides.copy())
    np.testing.assert_allclose(run_map(sigmoid_kernel(), out, a), _sigmoid(array))


@given(st.data(), broadcast_pairs())
def test_map_broadcasts_input(data, pair):
    big, small = pair
    array, a = data.draw(strided_arrays(small))
    out = Strided.empty(big, data.draw(layouts(len(big))))
    expected = np.broadcast_to(-array, big)
    np.testing.assert_allclose(run_map(neg_kernel(), out, a), expected)


def test_map_same_strides_with_gaps_is_not_the_fast_path():
    """Equal shapes and strides are not enough: here both are every other entry of
    a longer storage, so storage position i is not entry i."""
    storage = np.arange(12, dtype=np.float64)
    shape, strides = np.array([3, 2]), np.array([4, 2])
    out = np.full(12, 7.0)
    neg_kernel()(out, shape, strides, storage, shape, strides)
    expected = np.full(12, 7.0)
    expected[[0, 2, 4, 6, 8, 10]] = -storage[[0, 2, 4, 6, 8, 10]]
    np.testing.assert_array_equal(out, expected)


def test_map_large_contiguous_and_transposed():
    """A large map (one slice: below ``MIN_PARALLEL_WORK``), in two layouts."""
    array = np.random.default_rng(0).normal(size=(37, 41))
    out = Strided.empty(array.shape)
    np.testing.assert_allclose(run_map(neg_kernel(), out, Strided.of(array)), -array)
    out = Strided.empty(array.shape)
    transposed = Strided.of(array, (1, 0))
    np.testing.assert_allclose(run_map(neg_kernel(), out, transposed), -array)


def test_map_and_zip_slices_write_inside_out_only():
    """Above ``MIN_PARALLEL_WORK`` entries the work is cut into slices
    ``[lo, hi)``, one a ``prange`` iteration: each must cover its own entries
    and no others. ``out`` is the start of a longer buffer here, whose tail
    must keep its sentinel (a loop that runs past a slice's end writes there)."""
    rows = 2 * kernel_indexing.MIN_PARALLEL_WORK // 64 + 3
    x = np.random.default_rng(1).normal(size=(rows, 64))
    y = np.random.default_rng(2).normal(size=(rows, 64))
    for layout in ((0, 1), (1, 0)):  # aligned, then the strided path
        a, b = Strided.of(x, layout), Strided.of(y, layout)
        for kernel, inputs, expected in (
            (neg_kernel(), (a,), -x),
            (mul_kernel(), (a, b), x * y),
        ):
            out = Strided.empty(x.shape, layout)
            buffer = np.concatenate([out.storage, np.full(64, 123.0)])
            out = Strided(buffer[: x.size], out.shape, out.strides)
            kernel(*out.args(), *(arg for t in inputs for arg in t.args()))
            np.testing.assert_array_equal(out.to_numpy(), expected)
            assert np.all(buffer[x.size :] == 123.0), "a slice wrote past its end"


def test_slices_cover_every_entry_when_the_workers_do_not_divide_the_size():
    """The slices ``[lo, hi)`` cover every entry also when the number of workers
    does not divide the size (here 522 x 63 entries: 4 workers, 2 left over); a
    slice of ``size // workers`` entries each leaves the last ones unwritten (NaN
    here)."""
    rows = kernel_indexing.MIN_PARALLEL_WORK // 63 + 2
    size = rows * 63
    workers = kernel_indexing.workers_for(size)
    assert workers > 1 and size % workers != 0  # the case this test is about
    x = np.random.default_rng(4).normal(size=(rows, 63))
    y = np.random.default_rng(5).normal(size=(rows, 63))
    for layout in ((0, 1), (1, 0)):  # aligned, then the strided path
        a, b = Strided.of(x, layout), Strided.of(y, layout)
        out = Strided.empty(x.shape, layout, fill=np.nan)
        np.testing.assert_array_equal(
            run_map(neg_kernel(), out, a), -x, err_msg="map: entries left unwritten"
        )
        out = Strided.empty(x.shape, layout, fill=np.nan)
        np.testing.assert_array_equal(
            run_zip(mul_kernel(), out, a, b), x * y, err_msg="zip: entries left"
        )
    for dim in (0, 1):
        np.testing.assert_allclose(
            run_reduce(add_kernel(), Strided.of(x), dim, 0.0),
            x.sum(axis=dim, keepdims=True),
            err_msg=f"reduce along {dim}: entries left out",
        )


@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 2, 4)])
def test_map_empty(shape):
    out = Strided.empty(shape)
    assert run_map(neg_kernel(), out, Strided.empty(shape)).shape == shape


def test_map_zero_dimensional():
    out = Strided.empty(())
    assert run_map(neg_kernel(), out, Strided.of(np.array(2.5))) == -2.5


# ------------------------------------------------------------------------- zip
@given(st.data(), broadcast_pairs())
def test_zip_broadcasts_both_sides(data, pair):
    big, small = pair
    if data.draw(st.booleans()):
        big, small = small, big
    out_shape = np.broadcast_shapes(big, small)
    x, a = data.draw(strided_arrays(big))
    y, b = data.draw(strided_arrays(small))
    out = Strided.empty(out_shape, data.draw(layouts(len(out_shape))))
    np.testing.assert_allclose(run_zip(mul_kernel(), out, a, b), x * y)


@given(st.data(), shapes())
def test_zip_aligned_fast_path(data, shape):
    """a, b and out stored in one layout (contiguous or permuted alike)."""
    layout = data.draw(layouts(len(shape)))
    x, y = data.draw(arrays(shape)), data.draw(arrays(shape))
    out = Strided.empty(shape, layout)
    result = run_zip(mul_kernel(), out, Strided.of(x, layout), Strided.of(y, layout))
    np.testing.assert_allclose(result, x * y)


def test_zip_outer_product_by_broadcasting():
    x = np.arange(5.0).reshape(5, 1)
    y = np.arange(7.0).reshape(1, 7)
    out = Strided.empty((5, 7), (1, 0))
    result = run_zip(mul_kernel(), out, Strided.of(x), Strided.of(y))
    np.testing.assert_array_equal(result, x * y)


@pytest.mark.parametrize("width", [9, 2, 1])
def test_zip_broadcast_rows_over_a_matrix(width):
    """x + bias: every run along the last dimension is contiguous in all three
    storages (the kernel may read them as views); and the same with out
    transposed, where its runs are not. The row on either side, and as narrow as
    2 entries (a storage of 2 is not one number, which 1 is)."""
    x = np.arange(6.0 * width).reshape(6, width)
    y = np.arange(1.0, width + 1) * 10
    for layout in ((0, 1), (1, 0)):
        out = Strided.empty((6, width), layout)
        result = run_zip(mul_kernel(), out, Strided.of(x), Strided.of(y))
        np.testing.assert_array_equal(result, x * y)
        out = Strided.empty((6, width), layout)
        result = run_zip(mul_kernel(), out, Strided.of(y), Strided.of(x))
        np.testing.assert_array_equal(result, y * x)


def test_zip_where_one_tensor_steps_by_2_along_its_last_dim():
    """The runs of the general path are read as views only when out, a and b all
    step by 1 along their last dim; here one of them steps by 2 (a (2, 2) matrix
    stored by columns), the others by 1. And 1-d tensors stored every other
    entry (a view such as x[::2]) take the general path of map and zip."""
    x = np.random.default_rng(13).normal(size=(2, 2))
    y = np.random.default_rng(14).normal(size=(2, 2))
    for by_columns in ("out", "a", "b"):
        layout = {
            name: (1, 0) if name == by_columns else (0, 1) for name in "out a b".split()
        }
        out = Strided.empty(x.shape, layout["out"])
        got = run_zip(
            mul_kernel(), out, Strided.of(x, layout["a"]), Strided.of(y, layout["b"])
        )
        np.testing.assert_array_equal(
            got,
            x * y,
            err_msg=f"zip with {by_columns} stepping by 2 along its last dim",
        )
    every_other = Strided(np.arange(1.0, 11.0), np.array([5]), np.array([2]))
    out = Strided.empty((5,))
    np.testing.assert_array_equal(
        run_map(neg_kernel(), out, every_other), -np.arange(1.0, 11.0, 2)
    )
    out = Strided.empty((5,))
    np.testing.assert_array_equal(
        run_zip(mul_kernel(), out, every_other, every_other),
        np.arange(1.0, 11.0, 2) ** 2,
    )


def test_map_and_zip_outputs_are_laid_out_as_tensor_data_empty():
    # The wrappers build their outputs with TensorData.empty's body written out
    # (module3_fast_ops/_dispatch.py): same layout objects, fresh storage, and the
    # same values as the Simple backend, for shapes seen before and not.
    rng = np.random.default_rng(3)
    for shape in [(3, 4), (2, 1, 5), (9, 13, 2), ()]:
        values = rng.standard_normal(shape)
        a = kt.tensor(values, backend=FastBackend)
        column = values[..., :1] if shape else values  # broadcast along the last dim
        b = kt.tensor(column, backend=FastBackend)
        outputs = [
            (FastBackend.neg_map(a), -values),
            (FastBackend.mul_zip(a, a), values * values),
            (FastBackend.add_zip(a, b), values + column),
        ]
        for out, expected in outputs:
            reference = kt.TensorData.empty(expected.shape)
            data = out._tensor
            assert (data.shape, data.strides) == (reference.shape, reference.strides)
            assert (data.size, data.dims, data.row_major) == (
                reference.size,
                reference.dims,
                True,
            )
            assert data._kernel_shape is reference._kernel_shape
            assert data._shape is reference._shape
            assert len(data._storage) == reference.size
            assert not np.shares_memory(data._storage, a._tensor._storage)
            np.testing.assert_allclose(out.to_numpy(), expected)
            assert type(out) is type(a) and out.backend is FastBackend
            assert out.history is None and not out.requires_grad


def test_wrappers_call_the_entry_point_only_on_storages_that_own_their_memory():
    # The wrappers skip Numba's dispatcher where every storage owns its memory
    # (_dispatch.entry_point, a speed trick); a storage that is a NumPy view
    # (here every other entry of a larger array: not contiguous) must go through
    # the dispatcher, which compiles a version for it, and give the same numbers.
    from module3_fast_ops._dispatch import entry_point

    kernel = compiled(fast_ops.tensor_zip, operators.mul)
    direct = entry_point(kernel, "zip")
    assert direct is not kernel and callable(direct)
    values = np.arange(1.0, 21.0)
    owned = kt.Tensor(kt.TensorData(values[::2].copy(), (2, 5)), FastBackend)
    strided = kt.Tensor(kt.TensorData(values[::2], (2, 5)), FastBackend)
    assert owned._tensor._storage.base is None
    assert strided._tensor._storage.base is not None
    expected = values[::2].reshape(2, 5)
    for x in (owned, strided):
        for y in (owned, strided):
            np.testing.assert_array_equal(
                FastBackend.mul_zip(x, y).to_numpy(), expected * expected
            )
        np.testing.assert_array_equal(FastBackend.neg_map(x).to_numpy(), -expected)
        np.testing.assert_array_equal(
            FastBackend.add_reduce(x, 1).to_numpy(), expected.sum(1, keepdims=True)
        )
        out = kt.Tensor(kt.TensorData(np.zeros(20)[::2], (2, 5)), FastBackend)
        FastBackend.neg_map(x, out)
        np.testing.assert_array_equal(out.to_numpy(), -expected)


def test_wrappers_run_with_numbas_compiler_off():
    # With NUMBA_DISABLE_JIT=1 (the grader's probes, the bounds tests) the
    # kernels are plain functions, with no compiled entry point to call.
    import os
    import subprocess
    import sys

    code = (
        "from module3_fast_ops import FastBackend as B\n"
        "from module2_tensors import tensor\n"
        "a = tensor([[1.0, 2.0], [3.0, 4.0]], backend=B)\n"
        "print(B.mul_zip(a, a).to_numpy().tolist(), B.neg_map(a).to_numpy().tolist(),"
        " B.add_reduce(a, 1).to_numpy().tolist())\n"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[-2] == (
        "[[1.0, 4.0], [9.0, 16.0]] [[-1.0, -2.0], [-3.0, -4.0]] [[3.0], [7.0]]"
    )


# ---------------------------------------------------------------------- reduce
@given(st.data(), strided_arrays(shapes()))
def test_reduce_sum_every_dim(data, case):
    array, a = case
    dim = data.draw(st.integers(0, array.ndim - 1))
    result = run_reduce(add_kernel(), a, dim, 0.0, data.draw(layouts(array.ndim)))
    np.testing.assert_allclose(result, array.sum(axis=dim, keepdims=True))


@given(st.data(), strided_arrays(shapes()))
def test_reduce_max_every_dim(data, case):
    array, a = case
    dim = data.draw(st.integers(0, array.ndim - 1))
    result = run_reduce(max_kernel(), a, dim, -math.inf)
    np.testing.assert_array_equal(result, array.max(axis=dim, keepdims=True))


def test_reduce_folds_from_the_start_value_in_out():
    array = np.arange(12.0).reshape(3, 4)
    result = run_reduce(add_kernel(), Strided.of(array), 1, 100.0)
    np.testing.assert_allclose(result, array.sum(axis=1, keepdims=True) + 100.0)


def test_backend_reduce_starts_from_its_start_value_signed_zero_included():
    # The wrapper allocates a start of +0.0 as zeros (a speed trick: cheaper
    # than filling); any other start, -0.0 included, is filled in. IEEE sums
    # keep the difference: -0.0 + -0.0 is -0.0, +0.0 + -0.0 is +0.0.
    minus_zeros = kt.Tensor(kt.TensorData(np.full(6, -0.0), (2, 3)), FastBackend)
    for start in (0.0, -0.0, 2.5):
        summed = FastOps.reduce(operators.add, start)(minus_zeros, 1).to_numpy()
        assert summed.shape == (2, 1)
        assert (summed == start).all()
        negative = math.copysign(1.0, start) < 0
        assert (np.signbit(summed) == negative).all()


def test_reduce_long_dimension_transposed():
    array = np.random.default_rng(1).normal(size=(3, 500))
    result = run_reduce(add_kernel(), Strided.of(array, (1, 0)), 1, 0.0)
    np.testing.assert_allclose(result, array.sum(axis=1, keepdims=True))


@pytest.mark.parametrize("shape", [(4, 5, 6), (64, 3, 200), (2, 3, 7000)])
def test_reduce_a_dim_before_the_last_of_a_contiguous_tensor(shape):
    # Rows added into runs of out (a bias's gradient). The larger cases are split
    # between workers: (64, 3, 200) along dim 0 in the middle of a row of out, and
    # (2, 3, 7000) along dim 1 with a slice ([5600, 8400)) across two rows of out,
    # whose runs must stop at the row's end (the next row of out is not the next
    # row of the input).
    array = np.random.default_rng(2).normal(size=shape)
    for dim in (0, 1):
        want = array.sum(axis=dim, keepdims=True)
        result = run_reduce(add_kernel(), Strided.of(array), dim, 0.5)
        np.testing.assert_allclose(result, want + 0.5)
        result = run_reduce(max_kernel(), Strided.of(array), dim, -math.inf)
        np.testing.assert_array_equal(result, array.max(axis=dim, keepdims=True))


def test_reduce_into_an_out_whose_last_dim_is_strided():
    # out (2, 1, 4) stored with its last dim outermost: strides (1, 1, 2). The
    # path of contiguous runs is for an out whose LAST stride is 1; here only the
    # stride of its size-1 dim is.
    array = np.random.default_rng(3).normal(size=(2, 3, 4))
    result = run_reduce(add_kernel(), Strided.of(array), 1, 0.0, layout=(2, 0, 1))
    np.testing.assert_allclose(
        result,
        array.sum(axis=1, keepdims=True),
        err_msg="reduce into an out whose last dim is strided (strides (1, 1, 2))",
    )


@pytest.mark.parametrize(
    "shape, dim, layout",
    [((256, 64), 1, ()), ((64, 4, 256), 2, (2, 0, 1)), ((2048, 32), 0, ())],
)
def test_reduce_above_the_parallel_threshold_repeatedly(
    shape, dim, layout, every_thread
):
    """Work large enough that the reduce's prange loop runs on several threads,
    called 30 times against NumPy: workers that share scratch space (an index
    buffer allocated once, before the prange loop) or add into the same entry of
    out overwrite each other at random, so some calls only come out wrong."""
    array = np.random.default_rng(31).normal(size=shape)
    want = array.sum(axis=dim, keepdims=True) + 0.5
    calls = 30
    for call in range(calls):
        got = run_reduce(add_kernel(), Strided.of(array, layout), dim, 0.5)
        wrong = np.argwhere(~np.isclose(got, want, rtol=1e-9, atol=1e-9))
        at = tuple(int(i) for i in wrong[0]) if wrong.size else ()
        assert wrong.size == 0, (
            f"sum over dim {dim} of {shape}, call {call + 1} of {calls}: "
            f"{len(wrong)} wrong entries, the first at {at}: {got[at]} instead of "
            f"{want[at]}. Every worker of a prange loop needs its own scratch "
            "arrays and its own entries of out."
        )


def test_reduce_over_empty_dimension_keeps_start():
    result = run_reduce(add_kernel(), Strided.empty((2, 0)), 1, 0.0)
    np.testing.assert_array_equal(result, np.zeros((2, 1)))


# ------------------------------------------------------------ compiled, parallel


def test_kernels_are_compiled_once_and_shared():
    assert compiled(fast_ops.tensor_map, operators.neg) is neg_kernel()
    assert compiled(fast_ops.tensor_zip, operators.mul) is mul_kernel()


def _map_args():
    return (*Strided.empty((4, 5)).args(), *Strided.empty((4, 5), (1, 0)).args())


def _zip_args():
    return (*_map_args(), *Strided.empty((5,)).args())


def _reduce_args():
    return (*Strided.empty((4, 1)).args(), *Strided.empty((4, 5)).args(), 1)


@pytest.mark.parametrize(
    "kernel, args",
    [(neg_kernel, _map_args), (mul_kernel, _zip_args), (add_kernel, _reduce_args)],
    ids=["map", "zip", "reduce"],
)
def test_kernels_run_in_parallel(kernel, args):
    """Numba kept a parallel loop: nothing inside a prange body forced it to fall
    back to a serial loop (a raise, a return, a write every worker shares)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", category=Warning)
        kernel()(*args())
    assert parallel_loops(kernel()) >= 1


# ---------------------------------------------------------------- tensor level
@given(st.data(), broadcast_pairs(max_size=24))
def test_tensor_ops_match_numpy(data, pair):
    big, small = pair
    x, _ = data.draw(strided_arrays(big))
    y, _ = data.draw(strided_arrays(small))
    a = kt.tensor(x, backend=FastBackend)
    b = kt.tensor(y, backend=FastBackend)
    np.testing.assert_allclose((a * b + a).to_numpy(), x * y + x)
    np.testing.assert_allclose(a.sigmoid().to_numpy(), _sigmoid(x))
    np.testing.assert_allclose(a.relu().to_numpy(), np.maximum(x, 0.0))
    dim = data.draw(st.integers(0, len(big) - 1))
    np.testing.assert_allclose(a.sum(dim).to_numpy(), x.sum(axis=dim))
    np.testing.assert_allclose(a.max(dim).values.to_numpy(), x.max(axis=dim))


def test_tensor_gradients_on_fast_backend():
    """Backward runs on the same backend: d/dx sum(sigmoid(x) * w) by hand."""
    x = np.array([[0.5, -1.0, 2.0], [0.0, 1.5, -0.5]])
    w = np.array([1.0, -2.0, 0.5])
    a = kt.tensor(x, backend=FastBackend, requires_grad=True)
    (a.sigmoid() * kt.tensor(w, backend=FastBackend)).sum().backward()
    s = _sigmoid(x)
    np.testing.assert_allclose(a.grad.to_numpy(), s * (1 - s) * w)
    assert a.grad.backend is FastBackend


def test_to_moves_between_backends():
    x = np.arange(6.0).reshape(2, 3)
    simple = kt.tensor(x, requires_grad=True)
    fast = simple.to(FastBackend)
    assert fast.backend is FastBackend
    (fast * fast).sum().backward()
    assert simple.grad.backend is simple.backend
    np.testing.assert_allclose(simple.grad.to_numpy(), 2 * x)
    np.testing.assert_allclose(fast.to(kt.SimpleBackend).to_numpy(), x)


def test_map_into_a_strided_out_tensor():
    """``map(fn)(a, out)`` writes into a permuted view (copy_/setitem use this)."""
    a = kt.tensor(np.arange(6.0).reshape(2, 3), backend=FastBackend)
    target = kt.zeros(3, 2, backend=FastBackend).permute(1, 0)
    FastBackend.neg_map(a, target)
    np.testing.assert_array_equal(target.to_numpy(), -np.arange(6.0).reshape(2, 3))


def test_parallel_check_reports_the_kept_loops(capsys):
    from project import parallel_check

    # One kernel (each is compiled afresh for Numba's diagnostics: seconds).
    parallel_check.main(["--kernel", "map"])
    out = capsys.readouterr().out
    assert "Parallel loop listing" in out
    assert "==> map: 1 parallel loop(s) kept by Numba" in out
    assert "==> reduce" not in out  # only the kernel asked for


def test_cached_kernels_depend_on_every_source_they_inline():
    """The disk cache's key (``kernel_key``) hashes fast_ops.py, the compiled
    helpers of kernel_indexing.py, Module 2's index helpers and the scalar
    function's file: editing any of them recompiles."""
    from module3_fast_ops import kernel_key

    describer = kernel_key._Describer()
    describer.function(neg_kernel().py_func)
    sources = {fn.__module__ for fn in describer.seen}
    assert {
        "module0_fundamentals.operators",
        "module2_tensors.tensor_data",
        "module3_fast_ops.fast_ops",
        "module3_fast_ops.kernel_indexing",
    } <= sources


@pytest.mark.parametrize("backend", [kt.SimpleBackend, FastBackend])
@pytest.mark.parametrize("name", ["floor", "ceil", "round", "trunc", "frac"])
def test_rounding_huge_floats_keeps_them_on_every_backend(name, backend):
    """From 2^52 on a float is whole, so rounding gives it back; the compiled
    kernels' ``math.floor``/``round`` return int64 and gave ``-2^63`` for
    ``1e19`` and ``-1e300`` (``ceil(-1e300)`` even ``+2^63``). NumPy's values,
    also just below 2^52 and at halves (rounded to even)."""
    x = np.array([1e19, -1e19, 1e300, -1e300, 2.0**53 + 2, 2.0**52 - 0.5])
    x = np.concatenate([x, -x[-1:], [2.5, -2.5, 0.5, np.inf, -np.inf, np.nan]])
    with np.errstate(invalid="ignore"):  # (inf - inf)
        frac = x - np.trunc(x)  # (NumPy has no frac; its round is to even)
    want = frac if name == "frac" else getattr(np, name)(x)
    got = getattr(kt.tensor(x, backend=backend), name)().to_numpy()
    np.testing.assert_array_equal(got, want)
