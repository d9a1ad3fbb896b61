"""The CUDA runtime's pool of device storage (``_cuda_runtime.DevicePool``).

Every result of ``CudaBackend`` is a fresh device array; on a GPU, allocating and
freeing one costs driver calls, and numba's frees wait for the whole GPU. The pool
keeps the buffer of a dead storage by size and hands it to the next result of that
size. In the simulator a "buffer" is the NumPy array under the simulator's device
array, so these tests check the same bookkeeping as on a GPU.
"""

import gc
import weakref

import numpy as np
import pytest

import module3_fast_ops as kt
from module3_fast_ops import _cuda_runtime
from module3_fast_ops._cuda_runtime import DevicePool, _memory_of
from module3_fast_ops.cuda_ops import CudaBackend


def buffer_of(array):
    """A weak reference to the buffer under ``array`` (a strong one would count as
    a user of the buffer, which keeps it out of the pool)."""
    return weakref.ref(_memory_of(array))


def test_a_freed_buffer_is_handed_out_again_for_the_same_size():
    pool = DevicePool()
    x = pool.take(10)
    buffer = buffer_of(x)
    del x
    assert len(pool) == 1 and pool.held == 80
    y = pool.take(10)
    assert _memory_of(y) is buffer()
    assert (pool.allocated, pool.reused, len(pool), pool.held) == (1, 1, 0, 0)


def test_a_freed_buffer_is_not_handed_out_for_another_size():
    pool = DevicePool()
    x = pool.take(10)
    buffer = buffer_of(x)
    del x
    y = pool.take(11)
    assert _memory_of(y) is not buffer() and y.shape == (11,)
    assert len(pool) == 1  # still there for the next 10
    assert _memory_of(pool.take(10)) is buffer()


def test_the_pool_holds_at_most_its_limit():
    pool = DevicePool(limit=200)  # two buffers of 10 float64
    arrays = [pool.take(10) for _ in range(4)]
    del arrays
    assert len(pool) == 2 and pool.held == 160
    pool.clear()
    assert len(pool) == 0 and pool.held == 0


def test_a_buffer_that_a_view_still_uses_is_not_reused():
    pool = DevicePool()
    x = pool.take(10)
    x.copy_to_device(np.arange(10.0))
    view = x[2:5]
    del x
    gc.collect()
    assert len(pool) == 0
    y = pool.take(10)
    y.copy_to_device(np.zeros(10))
    np.testing.assert_array_equal(view.copy_to_host(), [2.0, 3.0, 4.0])


def test_an_empty_storage_takes_nothing_from_the_pool():
    pool = DevicePool()
    pool.take(3)  # dead at once: its buffer goes to the pool
    empty = pool.take(0)
    assert empty.shape == (0,) and len(pool) == 1


def test_a_failed_allocation_empties_the_pool_and_tries_again(monkeypatch):
    pool = DevicePool()
    pool.take(4)
    real = _cuda_runtime.cuda.device_array
    calls = []

    def out_of_memory_once(*args, **kwargs):
        calls.append(len(pool))
        if len(calls) == 1:
            raise MemoryError("CUDA_ERROR_OUT_OF_MEMORY")
        return real(*args, **kwargs)

    monkeypatch.setattr(_cuda_runtime.cuda, "device_array", out_of_memory_once)
    assert pool.take(5).shape == (5,)
    assert calls == [1, 0]  # the second try came after the pool was emptied
    monkeypatch.setattr(_cuda_runtime.cuda, "device_array", out_of_memory_always)
    with pytest.raises(MemoryError):  # nothing left to free: the error stands
        pool.take(6)


def out_of_memory_always(*args, **kwargs):
    raise MemoryError("CUDA_ERROR_OUT_OF_MEMORY")


@pytest.mark.task3_4  # its loop runs the matmul too (3.4 builds on 3.3)
def test_tensor_results_reuse_dead_storages_and_stay_right():
    """A loop of operations on the backend: after the first step every result of
    the step finds the buffer of the previous step's dead result, and the values
    are NumPy's."""
    rng = np.random.default_rng(3)
    x, w = rng.normal(size=(4, 3)), rng.normal(size=(3, 2))
    a, b = kt.tensor(x).to(CudaBackend), kt.tensor(w).to(CudaBackend)
    expected = np.exp(x @ w * 2.0).sum(1)
    ((a @ b) * 2.0).exp().sum(1)  # compiled, and the sizes seen once
    pool = _cuda_runtime.pool
    before = pool.reused
    for _ in range(3):
        got = ((a @ b) * 2.0).exp().sum(1)
        np.testing.assert_allclose(got.to_numpy().ravel(), expected)
    assert pool.reused - before >= 3 * 3  # matmul, zip, exp (the sum's as well)


def test_on_a_gpu_numbas_view_count_decides_whether_a_buffer_is_shared(monkeypatch):
    """On a GPU the buffer is numba's pointer object, whose ``refct`` counts the
    array's own reference plus one per view (``OwnedPointer``): only a count of 1
    may be pooled. (No GPU here: pointer stand-ins with that attribute.)"""

    class Pointer:
        def __init__(self, refct):
            self.refct = refct

    monkeypatch.setattr(_cuda_runtime, "SIMULATOR", False)
    pool = DevicePool()
    alone, viewed = Pointer(1), Pointer(2)
    pool._give(10, alone)
    pool._give(10, viewed)
    assert pool._free == {10: [alone]}
