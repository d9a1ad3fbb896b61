"""Tensors on ``CudaBackend`` live in GPU memory (given code around the Task 3.3/3.4
kernels): results of operations, gradients and optimizer updates stay there, and
only ``.to()``, ``to_numpy()``, ``item()`` and printing copy.

Under the simulator a "device array" is the simulator's stand-in, with the same
interface, so these tests check the same bookkeeping as on a GPU.
"""

import numpy as np
import pytest

import module3_fast_ops as kt
from module2_tensors import no_grad
from module3_fast_ops import _cuda_runtime
from module3_fast_ops._cuda_runtime import on_device
from module3_fast_ops.cuda_ops import CudaBackend


def storage(t):
    return t._tensor._storage


@pytest.fixture
def transfers(monkeypatch):
    """Counts of host-to-device copies (``cuda.to_device``) and device-to-host
    copies (``copy_to_host``) made while a test runs."""
    counts = {"to_device": 0, "to_host": 0}
    to_device = _cuda_runtime.cuda.to_device

    def counted_to_device(*args, **kwargs):
        counts["to_device"] += 1
        return to_device(*args, **kwargs)

    array_type = type(_cuda_runtime.pool.take(1))
    copy_to_host = array_type.copy_to_host

    def counted_copy_to_host(self, *args, **kwargs):
        counts["to_host"] += 1
        return copy_to_host(self, *args, **kwargs)

    monkeypatch.setattr(_cuda_runtime.cuda, "to_device", counted_to_device)
    monkeypatch.setattr(array_type, "copy_to_host", counted_copy_to_host)
    return counts


@pytest.mark.task3_3
def test_to_moves_the_storage_to_the_gpu_and_back():
    x = np.arange(6.0).reshape(2, 3)
    host = kt.tensor(x)
    gpu = host.to(CudaBackend)
    assert on_device(storage(gpu)) and not on_device(storage(host))
    back = gpu.to(kt.SimpleBackend)
    assert not on_device(storage(back))
    np.testing.assert_array_equal(back.to_numpy(), x)
    assert gpu.to(CudaBackend) is gpu


@pytest.mark.task3_4
def test_operations_read_and_write_gpu_memory_without_copies(transfers):
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(3, 4)), rng.normal(size=(4, 2))
    a = kt.tensor(x).to(CudaBackend)
    b = kt.tensor(y).to(CudaBackend)

    def run():
        return [a.exp(), a * a, (a * a).sum(1), a @ b, a.permute(1, 0).exp()]

    run()  # compile, and cache the shapes and strides on the device
    transfers.update(to_device=0, to_host=0)
    results = run()
    assert all(on_device(storage(r)) for r in results)
    assert transfers == {"to_device": 0, "to_host": 0}
    np.testing.assert_allclose(results[2].to_numpy(), (x * x).sum(1))
    np.testing.assert_allclose(results[3].to_numpy(), x @ y)
    np.testing.assert_allclose(results[4].to_numpy(), np.exp(x.T))
    assert transfers["to_host"] == 3


@pytest.mark.task3_3
def test_item_and_printing_copy_only_what_they_show():
    a = kt.tensor(np.arange(12.0).reshape(3, 4)).to(CudaBackend)
    total = a.sum(1).sum(0)
    assert on_device(storage(total))
    assert total.item() == 66.0
    assert "66" in repr(total)
    column = a[:, 2]  # a view into the device storage
    np.testing.assert_array_equal(column.to_numpy(), [2.0, 6.0, 10.0])


@pytest.mark.task3_4
def test_gradients_and_updates_stay_on_the_gpu():
    rng = np.random.default_rng(1)
    x, w0 = rng.normal(size=(5, 3)), rng.normal(size=(3, 2))
    data = kt.tensor(x).to(CudaBackend)
    w = kt.tensor(w0).to(CudaBackend).requires_grad_(True)
    loss = (data @ w).relu().sum()
    loss.backward()
    assert on_device(storage(w.grad))
    expected = x.T @ ((x @ w0) > 0).astype(float)
    np.testing.assert_allclose(w.grad.to_numpy(), expected)
    before = storage(w)
    with no_grad():
        w.copy_(w - 0.1 * w.grad)
    assert storage(w) is before  # updated in place, in GPU memory
    np.testing.assert_allclose(w.to_numpy(), w0 - 0.1 * expected)


@pytest.mark.task3_3
def test_gradient_flows_back_to_a_host_leaf_through_to():
    x = np.array([1.0, -2.0, 3.0])
    leaf = kt.tensor(x, backend=kt.FastBackend, requires_grad=True)  # host memory
    (leaf.to(CudaBackend) ** 2).sum().backward()
    assert leaf.grad.backend is kt.FastBackend
    assert not on_device(storage(leaf.grad))
    np.testing.assert_allclose(leaf.grad.to_numpy(), 2 * x)


@pytest.mark.task3_3
def test_shapes_and_strides_reach_the_gpu_once():
    shape = np.array([2, 3], dtype=np.int64)
    first = _cuda_runtime.device_constant(shape)
    assert _cuda_runtime.device_constant(np.array([2, 3], dtype=np.int64)) is first
    assert _cuda_runtime.device_constant(np.array([3, 2], dtype=np.int64)) is not first
