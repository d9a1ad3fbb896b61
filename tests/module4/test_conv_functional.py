"""Tasks 4.1 and 4.2 through the tensor API: ``F.conv1d`` and ``F.conv2d``.

Forward values against the NumPy reference (with bias, strides, padding and
non-contiguous inputs); gradients of input, weight and bias against central
differences on every entry.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings

from module4_networks import functional as F
from tests.module4.helpers import check_grad, make
from tests.module4.reference import conv1d_ref, conv2d_ref
from tests.module4.strategies import (
    Conv1dProblem,
    Conv2dProblem,
    conv1d_problems,
    conv2d_problems,
)

task4_1 = pytest.mark.task4_1
task4_2 = pytest.mark.task4_2


@task4_1
@given(conv1d_problems())
def test_conv1d_forward_with_bias_matches_reference(problem):
    x, w = problem.arrays()
    bias = np.random.default_rng(problem.seed).normal(size=w.shape[0])
    out = F.conv1d(
        make(x, order=problem.input_order),
        make(w, order=problem.weight_order),
        make(bias),
        stride=problem.stride,
        padding=problem.padding,
    )
    expected = conv1d_ref(x, w, problem.stride, problem.padding) + bias[:, None]
    assert out.shape == expected.shape
    np.testing.assert_allclose(out.to_numpy(), expected, atol=1e-10)


@task4_1
@settings(max_examples=4)
@given(conv1d_problems(max_width=6))
# One case with everything at once: stride, padding, batch, channels, layouts.
@example(Conv1dProblem((2, 2, 6), (3, 2, 3), 2, 1, 5, (2, 0, 1), (1, 2, 0)))
def test_conv1d_gradients_match_central_differences(problem):
    x, w = problem.arrays()
    bias = np.random.default_rng(problem.seed).normal(size=w.shape[0])
    check_grad(
        lambda a, b, c: F.conv1d(a, b, c, problem.stride, problem.padding),
        [x, w, bias],
        orders=[problem.input_order, problem.weight_order, None],
        seed=problem.seed,
    )


@task4_1
def test_conv1d_without_bias_and_unbatched():
    rng = np.random.default_rng(0)
    x, w = rng.normal(size=(3, 7)), rng.normal(size=(2, 3, 3))
    out = F.conv1d(make(x), make(w), padding=1)
    assert out.shape == (2, 7)
    np.testing.assert_allclose(out.to_numpy(), conv1d_ref(x[None], w, 1, 1)[0])


@task4_1
def test_conv1d_gives_only_the_gradients_asked_for():
    rng = np.random.default_rng(1)
    x = make(rng.normal(size=(1, 2, 5)))
    w = make(rng.normal(size=(3, 2, 2)), requires_grad=True)
    F.conv1d(x, w).sum().backward()
    assert x.grad is None and w.grad.shape == (3, 2, 2)


@task4_2
@given(conv2d_problems())
def test_conv2d_forward_with_bias_matches_reference(problem):
    x, w = problem.arrays()
    bias = np.random.default_rng(problem.seed).normal(size=w.shape[0])
    out = F.conv2d(
        make(x, order=problem.input_order),
        make(w, order=problem.weight_order),
        make(bias),
        stride=problem.stride,
        padding=problem.padding,
    )
    expected = conv2d_ref(x, w, problem.stride, problem.padding)
    expected += bias[:, None, None]
    assert out.shape == expected.shape
    np.testing.assert_allclose(out.to_numpy(), expected, atol=1e-10)


@task4_2
@settings(max_examples=4)
@given(conv2d_problems(max_side=4))
@example(
    Conv2dProblem(
        (2, 2, 4, 3), (2, 2, 2, 2), (2, 1), (1, 1), 7, (3, 1, 0, 2), (2, 3, 0, 1)
    )
)
def test_conv2d_gradients_match_central_differences(problem):
    x, w = problem.arrays()
    bias = np.random.default_rng(problem.seed).normal(size=w.shape[0])
    check_grad(
        lambda a, b, c: F.conv2d(a, b, c, problem.stride, problem.padding),
        [x, w, bias],
        orders=[problem.input_order, problem.weight_order, None],
        seed=problem.seed,
    )


@task4_2
def test_conv2d_unbatched_and_int_stride_padding():
    rng = np.random.default_rng(2)
    x, w = rng.normal(size=(2, 6, 5)), rng.normal(size=(3, 2, 3, 3))
    out = F.conv2d(make(x), make(w), stride=2, padding=1)
    assert out.shape == (3, 3, 3)
    np.testing.assert_allclose(
        out.to_numpy(), conv2d_ref(x[None], w, (2, 2), (1, 1))[0], atol=1e-12
    )
