"""Launches per operation on ``CudaBackend``, counted in the simulator.

On a GPU each kernel launch costs tens of microseconds of host time (issue 40:
65-113 us through numba-cuda's dispatcher), more than the work of a small operation,
so the runtime holds operations to few launches: one per elementwise operation and
per reduce. Every CUDA kernel starts through ``_cuda_runtime.launch``, which counts
into ``_cuda_runtime.launches``; the simulator makes the same launches as a GPU.
"""

import numpy as np
import pytest

import module3_fast_ops as kt
from module3_fast_ops import _cuda_runtime, cuda_ops
from module3_fast_ops._cuda_runtime import on_device
from module3_fast_ops.cuda_ops import CudaBackend

task3_3 = pytest.mark.task3_3

launches = _cuda_runtime.launches


def on_gpu(array):
    return kt.tensor(array).to(CudaBackend)


@task3_3
def test_the_counter_counts_each_launch_by_kernel_inside_its_block():
    a = on_gpu(np.arange(6.0).reshape(2, 3))
    a.exp()  # compiled outside the count
    before = launches.total
    with launches.counting() as outer:
        a.exp()
        with launches.counting() as inner:
            a * a
    assert launches.total == before + 2
    assert sum(outer.values()) == 2 and sum(inner.values()) == 1
    assert outer["_zip"] == inner["_zip"] == 1
    a.exp()
    assert sum(outer.values()) == 2  # closed with its block


@task3_3
@pytest.mark.parametrize("dim", [0, 1])
def test_a_sum_along_a_dimension_is_one_launch(dim):
    x = np.random.default_rng(0).normal(size=(3, 4))
    a = on_gpu(x)
    a.sum(dim)
    with launches.counting() as seen:
        total = a.sum(dim)
    assert sum(seen.values()) == 1, dict(seen)
    np.testing.assert_allclose(total.to_numpy(), x.sum(axis=dim))


@task3_3
def test_a_max_reduces_in_one_launch_from_minus_infinity():
    """All entries below 0: a reduce that started from 0 (not its start value,
    $-\\infty$) would give 0. (``amax`` may launch more than the reduce.)"""
    x = -np.abs(np.random.default_rng(1).normal(size=(2, 5))) - 1.0
    a = on_gpu(x)
    a.amax(1)
    with launches.counting() as seen:
        largest = a.amax(1)
    assert seen["_reduce"] == 1, dict(seen)
    np.testing.assert_array_equal(largest.to_numpy(), x.max(axis=1))


@task3_3
def test_the_backward_of_a_product_sum_takes_at_most_four_launches():
    """Forward: the product and the reduce (2). Backward: Task 2.4's ``Sum``
    broadcasts the gradient back (a map), then ``Mul`` multiplies it by each
    factor (two zips): 3, within issue 40's budget of 4."""
    rng = np.random.default_rng(2)
    x, y = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))

    def leaves():
        return [on_gpu(v).requires_grad_(True) for v in (x, y)]

    a, b = leaves()
    (a * b).sum().backward()  # compile every kernel first
    a, b = leaves()
    with launches.counting() as forward:
        loss = (a * b).sum()
    with launches.counting() as backward:
        loss.backward()
    assert sum(forward.values()) == 2, dict(forward)
    assert sum(backward.values()) <= 4, dict(backward)
    np.testing.assert_allclose(a.grad.to_numpy(), y)
    np.testing.assert_allclose(b.grad.to_numpy(), x)


# ------------------------------------------------------- arguments per launch
#: What numba-cuda makes of one array argument: 7 kernel parameters (its memory's
#: owner, parent, size, item size, data pointer, shape, strides), each wrapped in
#: Python at every launch; a scalar is one.
PARAMETERS_PER_ARRAY = 7


@pytest.mark.task3_4  # (also runs Task 3.4's matmul)
def test_elementwise_and_reduce_launches_pass_one_array_of_shapes_and_strides(
    monkeypatch,
):
    """Map, broadcast zip, reduce and batched matmul each launch with ``out``,
    their inputs' storages and ONE integer array for every shape and stride
    (issue 40: the zip passed 9 arrays, 65 kernel parameters, 65-113 us of host
    time per launch on an H200; now 4 arrays, 30 parameters)."""
    seen = []
    launch = _cuda_runtime.launch

    def spy(kernel, grid, block, out, *args):
        seen.append((out, *args))
        launch(kernel, grid, block, out, *args)

    monkeypatch.setattr(cuda_ops, "launch", spy)
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=(3, 4)), rng.normal(size=(4,))
    z = rng.normal(size=(2, 4, 5))
    a, b, c = on_gpu(x), on_gpu(y), on_gpu(z)
    for op, inputs, expected in (
        (lambda: a.permute(1, 0).exp(), 1, np.exp(x.T)),
        (lambda: a * b, 2, x * y),
        (lambda: a.sum(1), 1, x.sum(axis=1)),
        (lambda: a @ c, 2, x @ z),  # a broadcast over c's batch
    ):
        seen.clear()
        result = op()
        np.testing.assert_allclose(result.to_numpy(), expected)
        (arguments,) = seen
        arrays = [v for v in arguments if isinstance(v, np.ndarray) or on_device(v)]
        integer = [v for v in arrays if np.dtype(v.dtype).kind in "iu"]
        scalars = len(arguments) - len(arrays)
        parameters = len(arrays) * PARAMETERS_PER_ARRAY + scalars
        what = f"{len(arrays)} arrays ({len(integer)} of integers), {scalars} scalars"
        assert len(arrays) == 1 + inputs + 1 and len(integer) == 1, what
        assert parameters <= 30, what


@task3_3
def test_a_layout_packs_out_and_each_input_as_out_sees_it():
    """``[d, out_shape, out_strides, input strides]``, the input's strides aligned
    on the right and 0 where it broadcasts; made once per distinct layout."""
    out_shape, out_strides = np.array([2, 3, 4]), np.array([12, 4, 1])
    row = (np.zeros(4), np.array([1, 4]), np.array([4, 1]))  # shape (1, 4)
    col = (np.zeros(3), np.array([3, 1]), np.array([1, 1]))  # shape (3, 1)
    packed = _cuda_runtime.layout(out_shape, out_strides, *row, *col)
    assert packed.copy_to_host().tolist() == [
        3,
        *[2, 3, 4],
        *[12, 4, 1],
        *[0, 0, 1],  # row: no dimension 0, broadcast along 1
        *[0, 1, 0],  # col: no dimension 0, broadcast along 2
    ]
    again = (np.array([2, 3, 4]), np.array([12, 4, 1]), *row, *col)
    assert _cuda_runtime.layout(*again) is packed
    other = _cuda_runtime.layout(out_shape, np.array([1, 2, 6]), *row, *col)
    assert other is not packed
