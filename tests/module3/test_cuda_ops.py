"""Task 3.3: CUDA map, zip, reduce and the shared-memory block sum.

Without a GPU these run in Numba's CUDA simulator (``tests/conftest.py`` turns it on
before Numba is imported), one Python thread per GPU thread: the shapes are tiny and
the example counts small.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import module3_fast_ops as kt
from module0_fundamentals import operators
from module3_fast_ops import _cuda_runtime, cuda_ops
from module3_fast_ops._cuda_runtime import compiled
from module3_fast_ops.cuda_ops import CudaBackend

from .kernels import run_cuda_reduce, run_map, run_zip
from .strategies import Strided, broadcast_pairs, layouts, shapes, strided_arrays

pytestmark = pytest.mark.task3_3

tiny_shapes = shapes(max_dims=3, max_side=4, max_size=24)
few = settings(max_examples=8)


def neg_kernel():
    return compiled(cuda_ops.tensor_map, operators.neg)


def mul_kernel():
    return compiled(cuda_ops.tensor_zip, operators.mul)


def add_kernel():
    return compiled(cuda_ops.tensor_reduce, operators.add)


def max_kernel():
    return compiled(cuda_ops.tensor_reduce, operators.max)


@few
@given(st.data(), tiny_shapes)
def test_map_any_layouts(data, shape):
    array, a = data.draw(strided_arrays(shape))
    out = Strided.empty(shape, data.draw(layouts(len(shape))))
    np.testing.assert_allclose(run_map(neg_kernel(), out, a), -array)


@few
@given(st.data(), broadcast_pairs(max_dims=3, max_size=24))
def test_map_broadcasts_input(data, pair):
    big, small = pair
    array, a = data.draw(strided_arrays(small))
    out = Strided.empty(big)
    np.testing.assert_allclose(
        run_map(neg_kernel(), out, a), np.broadcast_to(-array, big)
    )


def test_map_more_entries_than_one_block():
    """Several blocks, the last one partly idle: threads past the end do nothing."""
    size = 2 * cuda_ops.THREADS_PER_BLOCK + 3
    array = np.arange(float(size))
    out = Strided.of(np.full(size, 99.0))
    np.testing.assert_array_equal(run_map(neg_kernel(), out, Strided.of(array)), -array)


@few
@given(st.data(), broadcast_pairs(max_dims=3, max_size=24))
def test_zip_broadcasts_both_sides(data, pair):
    big, small = pair
    x, a = data.draw(strided_arrays(small))
    y, b = data.draw(strided_arrays(big))
    out_shape = np.broadcast_shapes(big, small)
    out = Strided.empty(out_shape, data.draw(layouts(len(out_shape))))
    np.testing.assert_allclose(run_zip(mul_kernel(), out, a, b), x * y)


def test_zip_aligned_layouts(monkeypatch):
    """One layout for all: the kernel gets ``same`` = True (what ``aligned``
    says) and reads position i of each; a < b is not symmetric, so the two
    inputs must keep their order there too."""
    sames = []
    launch = _cuda_runtime.launch

    def spy(kernel, grid, block, out, size, same, *rest):
        sames.append(same)
        launch(kernel, grid, block, out, size, same, *rest)

    monkeypatch.setattr(cuda_ops, "launch", spy)
    x = np.arange(12.0).reshape(3, 4)
    y = x[::-1].copy()
    layout = (1, 0)
    for fn, expected in ((operators.mul, x * y), (operators.lt, 1.0 * (x < y))):
        out = Strided.empty((3, 4), layout)
        kernel = compiled(cuda_ops.tensor_zip, fn)
        result = run_zip(kernel, out, Strided.of(x, layout), Strided.of(y, layout))
        np.testing.assert_array_equal(result, expected)
    run_map(neg_kernel(), Strided.empty((3, 4), layout), Strided.of(x, layout))
    assert sames == [True] * 3, f"the kernel's `same` argument was {sames}"
    run_zip(mul_kernel(), Strided.empty((3, 4)), Strided.of(x), Strided.of(y[:1]))
    assert sames[-1] is False  # a broadcast input is not aligned


def test_map_and_zip_of_empty_tensors_launch_nothing():
    """No entries, no launch: a GPU refuses a grid of 0 blocks. One entry is
    one thread (the smallest launch)."""
    empty = Strided.empty((3, 0))
    assert run_map(neg_kernel(), Strided.empty((3, 0)), empty).shape == (3, 0)
    assert run_zip(mul_kernel(), Strided.empty((3, 0)), empty, empty).shape == (3, 0)
    two, three = Strided.of(np.array([2.0])), Strided.of(np.array([3.0]))
    assert run_map(neg_kernel(), Strided.empty((1,)), two).tolist() == [-2.0]
    assert run_zip(mul_kernel(), Strided.empty((1,)), two, three).tolist() == [6.0]


@few
@given(st.data(), shapes(max_dims=3, max_side=4, max_size=12))
def test_reduce_sum_and_max(data, shape):
    array, a = data.draw(strided_arrays(shape))
    dim = data.draw(st.integers(0, len(shape) - 1))
    np.testing.assert_allclose(
        run_cuda_reduce(add_kernel(), a, dim, 0.0), array.sum(axis=dim, keepdims=True)
    )
    np.testing.assert_array_equal(
        run_cuda_reduce(max_kernel(), a, dim, -math.inf),
        array.max(axis=dim, keepdims=True),
    )


def test_reduce_dimension_longer_than_a_block():
    """Each thread folds several inputs before the tree in shared memory."""
    length = 2 * cuda_ops.THREADS_PER_BLOCK + 5
    array = np.random.default_rng(0).normal(size=(2, length))
    result = run_cuda_reduce(add_kernel(), Strided.of(array, (1, 0)), 1, 0.0)
    np.testing.assert_allclose(result, array.sum(axis=1, keepdims=True))
    result = run_cuda_reduce(max_kernel(), Strided.of(array), 1, -math.inf)
    np.testing.assert_array_equal(result, array.max(axis=1, keepdims=True))


def test_reduce_starts_from_its_start_argument_not_from_out():
    """``out`` arrives uninitialised (here NaN): every entry is the fold of its
    inputs from ``start``. A product over an empty dimension is its start, 1."""
    mul = compiled(cuda_ops.tensor_reduce, operators.mul)
    result = run_cuda_reduce(mul, Strided.empty((2, 0)), 1, 1.0)
    np.testing.assert_array_equal(result, np.ones((2, 1)))
    array = np.array([[1.5, -2.0, 4.0], [0.5, 3.0, -1.0]])
    result = run_cuda_reduce(mul, Strided.of(array), 1, 1.0)
    np.testing.assert_array_equal(result, array.prod(axis=1, keepdims=True))


def test_reduce_empty_dimension_gives_the_start_value():
    result = run_cuda_reduce(add_kernel(), Strided.empty((3, 0)), 1, 0.0)
    np.testing.assert_array_equal(result, np.zeros((3, 1)))
    # an empty out (no entries to reduce into) is no launch: a GPU refuses 0 blocks
    assert run_cuda_reduce(add_kernel(), Strided.empty((0, 3)), 1, 0.0).shape == (0, 1)


# ------------------------------------------------------------------- launches
@pytest.mark.parametrize(
    "grid, block",
    [
        (1, 2048),  # more than 1024 threads in a block
        (1, (32, 64)),  # 2048 threads over two dimensions
        (1, (1, 1, 65)),  # z of a block at most 64
        ((1, 65536), 32),  # y (and z) of a grid at most 65,535
        ((1, 1, 65536), 32),
        (2**31, 32),  # x of a grid at most 2^31 - 1
        (0, 32),  # an empty grid
        ((1, 1, 1, 1), 32),  # four dimensions
    ],
)
def test_launch_refuses_what_a_gpu_refuses(grid, block):
    """The simulator would run these launches; a GPU refuses them, so
    ``_cuda_runtime.launch`` does, before touching the kernel, on both."""
    with pytest.raises(ValueError, match="a GPU refuses|dimensions"):
        _cuda_runtime.launch(None, grid, block, np.zeros(1))


def test_launch_takes_the_largest_launches_a_gpu_takes():
    for grid, block in [(2**31 - 1, 1024), ((1, 65535, 65535), (32, 32)), (1, 1)]:
        _cuda_runtime.check_launch(grid, block)
    _cuda_runtime.check_launch((2, 3), (4, 4, 64))


# ----------------------------------------------------------------- sum practice
@pytest.mark.parametrize("size", [1, 31, 32, 33, 100])
def test_sum_practice_block_sums(size):
    values = np.random.default_rng(size).normal(size=size)
    result = cuda_ops.sum_practice(kt.tensor(values))
    block = cuda_ops.PRACTICE_THREADS
    expected = [values[i : i + block].sum() for i in range(0, size, block)]
    assert result.shape == (len(expected),)
    np.testing.assert_allclose(result.to_numpy(), expected)


# ---------------------------------------------------------------- tensor level
def test_tensor_forward_and_backward_on_cuda():
    x = np.array([[0.5, -1.0, 2.0], [0.0, 1.5, -0.5]])
    w = np.array([1.0, -2.0, 0.5])
    a = kt.tensor(x, backend=CudaBackend, requires_grad=True)
    out = (a.sigmoid() * kt.tensor(w, backend=CudaBackend)).sum(1)
    s = 1.0 / (1.0 + np.exp(-x))
    np.testing.assert_allclose(out.to_numpy(), (s * w).sum(axis=1))
    out.sum().backward()
    np.testing.assert_allclose(a.grad.to_numpy(), s * (1 - s) * w)
    assert out.backend is CudaBackend and a.grad.backend is CudaBackend


def test_to_moves_to_cuda_and_back():
    x = np.arange(6.0).reshape(2, 3)
    t = kt.tensor(x).to(CudaBackend)
    assert t.backend is CudaBackend
    np.testing.assert_allclose((t + t).to(kt.SimpleBackend).to_numpy(), 2 * x)


def test_ieee_results_like_pytorch():
    """Tensor ops follow IEEE arithmetic on the GPU too: inf and NaN, no exceptions."""
    t = kt.tensor([1.0, 0.0, -1.0], backend=CudaBackend)
    np.testing.assert_array_equal(t.log().to_numpy(), [0.0, -np.inf, np.nan])
    big = kt.tensor([1000.0], backend=CudaBackend)
    np.testing.assert_array_equal(big.exp().to_numpy(), [np.inf])
