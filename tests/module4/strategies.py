"""Named Hypothesis strategies for Module 4: convolution problems and layouts.

A *problem* is everything one convolution call needs: input and weight shapes,
stride, padding and a seed for the values, always with a kernel that fits the
padded input. Shapes stay small so that the gradient checks (one central
difference per entry) stay fast.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple

import numpy as np
from hypothesis import strategies as st


@dataclass(frozen=True)
class Conv1dProblem:
    input_shape: Tuple[int, int, int]
    weight_shape: Tuple[int, int, int]
    stride: int
    padding: int
    seed: int
    input_order: Tuple[int, ...]
    weight_order: Tuple[int, ...]

    def arrays(self) -> Tuple[np.ndarray, np.ndarray]:
        rng = np.random.default_rng(self.seed)
        return rng.normal(size=self.input_shape), rng.normal(size=self.weight_shape)


@dataclass(frozen=True)
class Conv2dProblem:
    input_shape: Tuple[int, int, int, int]
    weight_shape: Tuple[int, int, int, int]
    stride: Tuple[int, int]
    padding: Tuple[int, int]
    seed: int
    input_order: Tuple[int, ...]
    weight_order: Tuple[int, ...]

    def arrays(self) -> Tuple[np.ndarray, np.ndarray]:
        rng = np.random.default_rng(self.seed)
        return rng.normal(size=self.input_shape), rng.normal(size=self.weight_shape)


seeds = st.integers(0, 2**16)
layouts3 = st.permutations([0, 1, 2]).map(tuple)
layouts4 = st.permutations([0, 1, 2, 3]).map(tuple)


@st.composite
def conv1d_problems(draw, max_width: int = 9) -> Conv1dProblem:
    """Batch 1-3, channels 1-3, width 1-``max_width``, kernel 1-4, stride 1-3,
    padding 0-2, with the kernel no wider than the padded input; random layouts."""
    batch, c_in, c_out = (draw(st.integers(1, 3)) for _ in range(3))
    width = draw(st.integers(1, max_width))
    padding = draw(st.integers(0, 2))
    kernel = draw(st.integers(1, min(4, width + 2 * padding)))
    stride = draw(st.integers(1, 3))
    return Conv1dProblem(
        (batch, c_in, width),
        (c_out, c_in, kernel),
        stride,
        padding,
        draw(seeds),
        draw(layouts3),
        draw(layouts3),
    )


@st.composite
def conv2d_problems(draw, max_side: int = 6) -> Conv2dProblem:
    """Batch 1-2, channels 1-3, sides 1-``max_side``, kernels 1-3, strides 1-2 and
    paddings 0-1 per axis (independently); random layouts."""
    batch = draw(st.integers(1, 2))
    c_in, c_out = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    sides, kernels, strides, paddings = [], [], [], []
    for _ in range(2):
        side = draw(st.integers(1, max_side))
        pad = draw(st.integers(0, 1))
        sides.append(side)
        paddings.append(pad)
        kernels.append(draw(st.integers(1, min(3, side + 2 * pad))))
        strides.append(draw(st.integers(1, 2)))
    return Conv2dProblem(
        (batch, c_in, *sides),
        (c_out, c_in, *kernels),
        tuple(strides),
        tuple(paddings),
        draw(seeds),
        draw(layouts4),
        draw(layouts4),
    )
