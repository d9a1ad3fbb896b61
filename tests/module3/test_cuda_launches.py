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
from module3_fast_ops import _cuda_runtime
from module3_fast_ops.cuda_ops import CudaBackend

pytestmark = pytest.mark.task3_3

launches = _cuda_runtime.launches


def on_gpu(array):
    return kt.tensor(array).to(CudaBackend)


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


@pytest.mark.parametrize("dim", [0, 1])
def test_a_sum_along_a_dimension_is_one_launch(dim):
    x = np.random.default_rng(0).normal(size=(3, 4))
    a = on_gpu(x)
    a.sum(dim)
    with launches.counting() as seen:
        total = a.sum(dim)
    assert sum(seen.values()) == 1, dict(seen)
    np.testing.assert_allclose(total.to_numpy(), x.sum(axis=dim))


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
