"""The CUDA simulator as ``kindling.cudasim.configure_cuda_simulator`` leaves it: the
threads of a simulated block share their ``cuda.shared.array``, however the GIL hands
over."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from module3_fast_ops._cuda_runtime import SIMULATOR

pytestmark = pytest.mark.skipif(not SIMULATOR, reason="runs on a GPU, not simulated")


class _SlowLookup(dict):
    """The simulator's table of a block's shared arrays, with a pause after each
    look-up: other threads run between a look-up and the store that follows it, as
    they may at any moment during a simulated launch."""

    def get(self, key, default=None):
        found = super().get(key, default)
        time.sleep(0.002)
        return found


def test_the_threads_of_a_block_get_one_shared_array():
    from numba.cuda.simulator import kernelapi

    shared = kernelapi.FakeCUDAShared(0)
    shared._allocations = _SlowLookup()
    start = threading.Barrier(8)
    arrays = []

    def thread() -> None:
        start.wait()
        arrays.append(shared.array(8, np.float64))  # one line for every thread

    threads = [threading.Thread(target=thread) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(arrays) == 8
    assert all(a is arrays[0] for a in arrays)
    assert arrays[0].shape == (8,) and arrays[0].dtype == np.float64


def test_arrays_asked_for_on_different_lines_stay_apart():
    from numba import float64
    from numba.cuda.simulator import kernelapi

    shared = kernelapi.FakeCUDAShared(0)
    a = shared.array((2, 3), float64)  # a Numba type, as kernels pass it
    b = shared.array((2, 3), float64)
    assert a is not b and a.shape == (2, 3) and a.dtype == np.float64
    assert shared.array((2, 3), float64) is not a  # yet another line
    again = [shared.array(4, float64) for _ in range(2)]  # one line, twice
    assert again[0] is again[1]
