"""Task 3.2: the Numba parallel batched matrix multiply.

The kernel is compared with NumPy's ``@`` on random shapes (sizes that are not
multiples of any block size), broadcast batch dimensions and permuted storage of
both inputs and of the output; then ``@`` and its gradient on ``FastBackend``.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import module3_fast_ops as kt
from module3_fast_ops import _dispatch, fast_matmul
from module3_fast_ops._dispatch import compiled
from module3_fast_ops.fast_ops import FastBackend

from .kernels import parallel_loops, run_matmul
from .strategies import Strided, layouts, matmul_shapes, strided_arrays

pytestmark = pytest.mark.task3_2


def matmul_kernel():
    return compiled(fast_matmul.tensor_matrix_multiply)


@given(st.data(), matmul_shapes())
def test_matmul_matches_numpy(data, pair):
    a_shape, b_shape = pair
    x, a = data.draw(strided_arrays(a_shape))
    y, b = data.draw(strided_arrays(b_shape))
    expected = x @ y
    layout = data.draw(layouts(expected.ndim))
    np.testing.assert_allclose(run_matmul(matmul_kernel(), a, b, layout), expected)


@pytest.mark.parametrize(
    "a_shape, b_shape",
    [
        ((1, 1), (1, 1)),
        ((1, 7), (7, 1)),
        ((7, 1), (1, 9)),
        ((37, 45), (45, 29)),
        ((3, 1, 13, 6), (2, 6, 5)),
        ((2, 5, 3), (1, 3, 70)),
        ((70, 3), (4, 3, 2)),
        # Fewer than 4 columns (a matrix times a vector), rows not a multiple of 4
        ((10, 100), (100, 1)),
        ((13, 9), (9, 3)),
        ((2, 6, 5), (5, 2)),
    ],
)
def test_matmul_shapes_and_broadcasting(a_shape, b_shape):
    rng = np.random.default_rng(sum(a_shape) + sum(b_shape))
    x, y = rng.normal(size=a_shape), rng.normal(size=b_shape)
    a = Strided.of(x, tuple(range(len(a_shape)))[::-1])
    np.testing.assert_allclose(run_matmul(matmul_kernel(), a, Strided.of(y)), x @ y)


def test_the_serial_twin_computes_the_same_products():
    """Small Tensor matmuls may run the kernel compiled without ``parallel=True``
    (``_dispatch.serial_twin``: it compiles faster); it is the same code."""
    twin = _dispatch.serial_twin(matmul_kernel(), "matrix_multiply (serial, test)")
    assert not twin.targetoptions.get("parallel")
    rng = np.random.default_rng(5)
    x, y = rng.normal(size=(2, 7, 9)), rng.normal(size=(9, 6))
    a = Strided.of(x, (2, 0, 1))
    np.testing.assert_allclose(run_matmul(twin, a, Strided.of(y)), x @ y)


@pytest.mark.parametrize(
    "a_shape, a_layout, b_shape, b_layout",
    [
        # A layer's forward, x @ W: m in steps of 4 and a rest of 2; rows of out
        # not a multiple of 4 (the last block partly past n).
        ((10, 100), (), (100, 100), ()),
        ((7, 10), (), (10, 9), ()),
        # Its backward: g @ W.T (rows of a and columns of b contiguous) and
        # x.T @ g (a transposed), m below 4 and not a multiple of 4.
        ((10, 100), (), (100, 100), (1, 0)),
        ((9, 6), (), (6, 7), (1, 0)),
        ((5, 3), (), (3, 2), (1, 0)),
        ((100, 10), (1, 0), (10, 100), ()),
        ((6, 3), (1, 0), (3, 5), ()),
        # Batches, one of them broadcast.
        ((3, 7, 6), (), (1, 6, 5), (0, 2, 1)),
        ((2, 5, 9), (0, 2, 1), (9, 6), ()),
    ],
)
def test_matmul_layouts_of_a_training_step(a_shape, a_layout, b_shape, b_layout):
    """The small products of a network's forward and backward, each operand
    stored as a training step stores it (transposed views included): the kernel
    may take a different route for each layout, and every route must agree with
    NumPy, the rows of a partial last block included."""
    rng = np.random.default_rng(len(a_shape) + sum(b_shape))
    x, y = rng.normal(size=a_shape), rng.normal(size=b_shape)
    a, b = Strided.of(x, a_layout), Strided.of(y, b_layout)
    np.testing.assert_allclose(run_matmul(matmul_kernel(), a, b), x @ y)
    # The same with an infinity in the last row of a and the last column of b:
    # the rows and columns a block computes past the edge of out are not
    # written, so the NaNs and infinities land only where NumPy has them.
    x[..., -1, 0], y[..., 0, -1] = np.inf, -np.inf
    a, b = Strided.of(x, a_layout), Strided.of(y, b_layout)
    with np.errstate(invalid="ignore"):
        expected = x @ y
    result = run_matmul(matmul_kernel(), a, b)
    np.testing.assert_array_equal(np.isnan(result), np.isnan(expected))
    finite = np.isfinite(expected)
    np.testing.assert_array_equal(np.isinf(result), np.isinf(expected))
    np.testing.assert_allclose(result[finite], expected[finite])


@pytest.mark.parametrize("out_layout", [(), (1, 0)])
@pytest.mark.parametrize("n, m, p", [(66, 130, 135), (5, 7, 195)])
def test_matmul_larger_than_the_cache_panels(n, m, p, out_layout):
    """More columns than one panel of b (64), more rows than one block: every
    task. 195 columns are 3 panels and 3 more columns: a 4th panel. Into an out
    stored by rows and into one stored by columns (where the panel that starts
    at column 64 starts 64 column strides into its row, not 64 entries)."""
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=(n, m)), rng.normal(size=(m, p))
    b = Strided.of(y, (1, 0))
    result = run_matmul(matmul_kernel(), Strided.of(x), b, out_layout)
    np.testing.assert_allclose(result, x @ y)


@pytest.mark.parametrize(
    "a_shape, b_shape", [((0, 3), (3, 4)), ((3, 4), (4, 0)), ((2, 0), (0, 3))]
)
def test_matmul_empty(a_shape, b_shape):
    """An empty inner dimension gives zeros, no rows or no columns an empty
    result (and nothing divides by them)."""
    result = run_matmul(matmul_kernel(), Strided.empty(a_shape), Strided.empty(b_shape))
    np.testing.assert_array_equal(result, np.zeros((a_shape[0], b_shape[1])))


def test_matmul_propagates_inf_and_nan():
    x = np.array([[np.inf, 1.0], [1.0, 1.0]])
    y = np.array([[1.0, 0.0], [np.nan, 1.0]])
    with np.errstate(invalid="ignore"):
        expected = x @ y
    result = run_matmul(matmul_kernel(), Strided.of(x), Strided.of(y))
    np.testing.assert_array_equal(np.isnan(result), np.isnan(expected))
    np.testing.assert_array_equal(
        result[~np.isnan(result)], expected[~np.isnan(expected)]
    )


@pytest.mark.parametrize(
    "a_shape, b_shape, layout",
    [
        ((64, 16, 8), (64, 8, 16), ()),
        ((64, 32, 16), (64, 16, 32), (2, 0, 1)),
        ((4, 128, 64), (4, 64, 128), ()),
    ],
)
def test_matmul_above_the_parallel_threshold_repeatedly(
    a_shape, b_shape, layout, every_thread
):
    """Work large enough that the prange loop really runs on several threads,
    repeated (30 calls): workers that share scratch space (index buffers
    allocated once, before the ``prange`` loop, and written by every worker)
    overwrite each other's indices at random, so a product comes out wrong in
    some calls only (on 2 threads of a loaded machine, the first shape's
    products were wrong in few calls, the larger ones' in most). Each call is
    compared with NumPy's ``@`` (a serial reference)."""
    rng = np.random.default_rng(32)
    x, y = rng.normal(size=a_shape), rng.normal(size=b_shape)
    expected = x @ y
    kernel = matmul_kernel()
    calls = 30
    for call in range(calls):
        got = run_matmul(kernel, Strided.of(x), Strided.of(y), layout)
        wrong = np.argwhere(~np.isclose(got, expected, rtol=1e-7, atol=1e-9))
        first = tuple(int(i) for i in wrong[0]) if wrong.size else ()
        assert wrong.size == 0, (
            f"matrix multiply {a_shape} @ {b_shape}, call {call + 1} of {calls}: "
            f"{len(wrong)} wrong entries, the first at {first}: {got[first]} "
            f"instead of {expected[first]}. Every worker of a prange "
            "loop needs its own scratch arrays (allocate them inside the loop "
            "body): buffers shared by all workers are overwritten by the others."
        )


def test_matmul_runs_in_parallel():
    run_matmul(matmul_kernel(), Strided.empty((8, 8)), Strided.empty((8, 8)))
    assert parallel_loops(matmul_kernel()) >= 1


# ---------------------------------------------------------------- tensor level
@given(st.data(), matmul_shapes(max_side=5))
def test_tensor_matmul_on_fast_backend(data, pair):
    a_shape, b_shape = pair
    x, _ = data.draw(strided_arrays(a_shape))
    y, _ = data.draw(strided_arrays(b_shape))
    a = kt.tensor(x, backend=FastBackend)
    b = kt.tensor(y, backend=FastBackend)
    out = a @ b
    assert out.backend is FastBackend
    np.testing.assert_allclose(out.to_numpy(), x @ y)


def test_matmul_calls_the_entry_point_only_on_storages_that_own_their_memory():
    # As map, zip and reduce (test_fast_ops.py), the matmul wrapper skips
    # Numba's dispatcher where both storages own their memory; a storage that
    # is a NumPy view (every other entry of a larger array) goes through it.
    values = np.arange(1.0, 41.0)
    shapes = {"a": (4, 5), "b": (5, 4)}
    owned = {
        k: kt.Tensor(kt.TensorData(values[::2].copy(), s), FastBackend)
        for k, s in shapes.items()
    }
    strided = {
        k: kt.Tensor(kt.TensorData(values[::2], s), FastBackend)
        for k, s in shapes.items()
    }
    assert owned["a"]._tensor._storage.base is None
    assert strided["a"]._tensor._storage.base is not None
    x, y = values[::2].reshape(4, 5), values[::2].reshape(5, 4)
    for a in (owned["a"], strided["a"]):
        for b in (owned["b"], strided["b"]):
            result = FastBackend.matrix_multiply(a, b).to_numpy()
            np.testing.assert_allclose(result, x @ y)
    kernel, direct = FastBackend.ops._matmul[False]
    assert direct is not kernel and callable(direct)


def test_tensor_matmul_gradients_against_central_differences():
    rng = np.random.default_rng(4)
    x, y = rng.normal(size=(2, 3, 4)), rng.normal(size=(4, 5))
    w = rng.normal(size=(2, 3, 5))
    a = kt.tensor(x, backend=FastBackend, requires_grad=True)
    b = kt.tensor(y, backend=FastBackend, requires_grad=True)
    ((a @ b) * kt.tensor(w, backend=FastBackend)).sum().backward()

    def loss(x, y):
        return float(np.sum((x @ y) * w))

    for value, grad, which in ((x, a.grad, 0), (y, b.grad, 1)):
        numeric = np.zeros_like(value)
        for index in np.ndindex(value.shape):
            step = np.zeros_like(value)
            step[index] = 1e-6
            args_plus = [x, y]
            args_minus = [x, y]
            args_plus[which] = value + step
            args_minus[which] = value - step
            numeric[index] = (loss(*args_plus) - loss(*args_minus)) / 2e-6
        np.testing.assert_allclose(grad.to_numpy(), numeric, rtol=1e-5, atol=1e-6)
