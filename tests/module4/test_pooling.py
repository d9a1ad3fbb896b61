"""Task 4.3: window tiling and average pooling."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from module4_networks import functional as F
from tests.module4.helpers import check_grad, make

pytestmark = pytest.mark.task4_3


@st.composite
def pooling_problems(draw, max_side: int = 7, max_channels: int = 3):
    """An image batch ``(b, c, h, w)`` with a kernel that fits it (sides need not
    be multiples of the kernel), and a seed."""
    b, c = draw(st.integers(1, 2)), draw(st.integers(1, max_channels))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    h, w = draw(st.integers(kh, max(kh, max_side))), draw(
        st.integers(kw, max(kw, max_side))
    )
    return (b, c, h, w), (kh, kw), draw(st.integers(0, 2**16))


def windows_ref(x: np.ndarray, kh: int, kw: int) -> np.ndarray:
    """(b, c, h//kh, w//kw, kh*kw): each whole window, read row by row."""
    b, c, h, w = x.shape
    nh, nw = h // kh, w // kw
    out = np.empty((b, c, nh, nw, kh * kw))
    for i in range(nh):
        for j in range(nw):
            window = x[:, :, i * kh : (i + 1) * kh, j * kw : (j + 1) * kw]
            out[:, :, i, j] = window.reshape(b, c, kh * kw)
    return out


@given(pooling_problems())
def test_tile_matches_the_windows(problem):
    shape, (kh, kw), seed = problem
    x = np.random.default_rng(seed).normal(size=shape)
    tiled, nh, nw = F.tile(make(x), (kh, kw))
    assert (nh, nw) == (shape[2] // kh, shape[3] // kw)
    assert tiled.shape == (shape[0], shape[1], nh, nw, kh * kw)
    np.testing.assert_array_equal(tiled.to_numpy(), windows_ref(x, kh, kw))


def test_tile_reads_windows_row_by_row():
    x = np.arange(16.0).reshape(1, 1, 4, 4)
    tiled, _, _ = F.tile(make(x), (2, 2))
    np.testing.assert_array_equal(tiled.to_numpy()[0, 0, 0, 1], [2.0, 3.0, 6.0, 7.0])
    np.testing.assert_array_equal(tiled.to_numpy()[0, 0, 1, 0], [8.0, 9.0, 12.0, 13.0])


def test_tile_of_a_non_contiguous_input():
    x = np.random.default_rng(5).normal(size=(2, 3, 4, 6))
    tiled, _, _ = F.tile(make(x, order=(3, 1, 0, 2)), (2, 3))
    np.testing.assert_array_equal(tiled.to_numpy(), windows_ref(x, 2, 3))


@given(pooling_problems())
def test_avg_pool2d_matches_window_means(problem):
    shape, (kh, kw), seed = problem
    x = np.random.default_rng(seed).normal(size=shape)
    out = F.avg_pool2d(make(x), (kh, kw))
    np.testing.assert_allclose(out.to_numpy(), windows_ref(x, kh, kw).mean(-1))


def test_avg_pool2d_int_kernel_and_stride_equal_to_kernel():
    x = np.random.default_rng(6).normal(size=(1, 2, 6, 6))
    expected = x.reshape(1, 2, 3, 2, 3, 2).mean(axis=(3, 5))
    np.testing.assert_allclose(F.avg_pool2d(make(x), 2).to_numpy(), expected)
    np.testing.assert_allclose(F.avg_pool2d(make(x), 2, stride=2).to_numpy(), expected)


@settings(max_examples=8)
@given(pooling_problems(max_side=4, max_channels=2))
def test_avg_pool2d_gradient_matches_central_differences(problem):
    shape, kernel, seed = problem
    x = np.random.default_rng(seed).normal(size=shape)
    check_grad(lambda a: F.avg_pool2d(a, kernel), [x], seed=seed)


def test_avg_pool2d_gradient_spreads_evenly_and_skips_cropped_entries():
    x = make(np.ones((1, 1, 3, 5)), requires_grad=True)
    F.avg_pool2d(x, 2).sum().backward()
    expected = np.zeros((3, 5))
    expected[:2, :4] = 0.25  # the last row and column fill no window
    np.testing.assert_allclose(x.grad.to_numpy()[0, 0], expected)
