"""Tasks 4.1 and 4.2: the convolution kernels on raw storage.

Each kernel is run on strided NumPy storage (random layouts, so non-contiguous
inputs are covered) and compared with the NumPy reference of ``reference.py``;
the backward kernels are compared with central differences of that reference on
every entry.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given

from module4_networks import fast_conv
from tests.module4.reference import (
    conv1d_ref,
    conv2d_grads_ref,
    conv2d_ref,
    empty_strided,
    numeric_grad,
    strided,
)
from tests.module3.kernels import parallel_loops
from tests.module4.strategies import conv1d_problems, conv2d_problems

task4_1 = pytest.mark.task4_1
task4_2 = pytest.mark.task4_2


# ------------------------------------------------------------------ conv1d
@task4_1
@given(conv1d_problems())
def test_conv1d_forward_matches_reference(problem):
    x, w = problem.arrays()
    expected = conv1d_ref(x, w, problem.stride, problem.padding)
    out, read = empty_strided(expected.shape, problem.input_order)
    fast_conv.conv1d_forward(
        out,
        strided(x, problem.input_order),
        strided(w, problem.weight_order),
        problem.stride,
        problem.padding,
    )
    np.testing.assert_allclose(read(), expected, rtol=1e-10, atol=1e-10)


@task4_1
@given(conv1d_problems(max_width=7))
def test_conv1d_backward_kernels_match_central_differences(problem):
    x, w = problem.arrays()
    s, p = problem.stride, problem.padding
    g = np.random.default_rng(problem.seed + 1).normal(
        size=conv1d_ref(x, w, s, p).shape
    )

    def f(a, b):
        return conv1d_ref(a, b, s, p)

    dx, read_dx = empty_strided(x.shape, problem.weight_order)
    fast_conv.conv1d_backward_input(
        dx, strided(g, problem.input_order), strided(w, problem.weight_order), s, p
    )
    np.testing.assert_allclose(read_dx(), numeric_grad(f, (x, w), g, 0), atol=1e-6)

    dw, read_dw = empty_strided(w.shape, problem.input_order)
    fast_conv.conv1d_backward_weight(
        dw, strided(x, problem.input_order), strided(g, problem.weight_order), s, p
    )
    np.testing.assert_allclose(read_dw(), numeric_grad(f, (x, w), g, 1), atol=1e-6)


@task4_1
def test_conv1d_is_correlation_not_convolution():
    # A one-hot kernel [0, 1, 0] shifts nothing; [1, 0, 0] reads the left neighbour
    # (a true convolution would flip the kernel and read the right one).
    x = np.arange(1.0, 6.0).reshape(1, 1, 5)
    w = np.array([1.0, 0.0, 0.0]).reshape(1, 1, 3)
    out, read = empty_strided((1, 1, 5))
    fast_conv.conv1d_forward(out, strided(x), strided(w), 1, 1)
    np.testing.assert_array_equal(read()[0, 0], [0.0, 1.0, 2.0, 3.0, 4.0])


@task4_1
def test_conv1d_stride_and_padding_by_hand():
    # width 6, kernel 2, stride 2, padding 1: windows [0,x0], [x1,x2], [x3,x4], [x5,0]
    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).reshape(1, 1, 6)
    w = np.array([10.0, 1.0]).reshape(1, 1, 2)
    out, read = empty_strided((1, 1, 4))
    fast_conv.conv1d_forward(out, strided(x), strided(w), 2, 1)
    np.testing.assert_array_equal(read()[0, 0], [1.0, 23.0, 45.0, 60.0])


# ------------------------------------------------------------------ conv2d
@task4_2
@given(conv2d_problems())
def test_conv2d_forward_matches_reference(problem):
    x, w = problem.arrays()
    expected = conv2d_ref(x, w, problem.stride, problem.padding)
    out, read = empty_strided(expected.shape, problem.weight_order)
    fast_conv.conv2d_forward(
        out,
        strided(x, problem.input_order),
        strided(w, problem.weight_order),
        problem.stride,
        problem.padding,
    )
    np.testing.assert_allclose(read(), expected, rtol=1e-10, atol=1e-10)


@task4_2
@given(conv2d_problems(max_side=5))
def test_conv2d_backward_kernels_match_central_differences(problem):
    x, w = problem.arrays()
    s, p = problem.stride, problem.padding
    g = np.random.default_rng(problem.seed + 1).normal(
        size=conv2d_ref(x, w, s, p).shape
    )

    def f(a, b):
        return conv2d_ref(a, b, s, p)

    dx, read_dx = empty_strided(x.shape, problem.weight_order)
    fast_conv.conv2d_backward_input(
        dx, strided(g, problem.input_order), strided(w, problem.weight_order), s, p
    )
    np.testing.assert_allclose(read_dx(), numeric_grad(f, (x, w), g, 0), atol=1e-6)

    dw, read_dw = empty_strided(w.shape, problem.input_order)
    fast_conv.conv2d_backward_weight(
        dw, strided(x, problem.input_order), strided(g, problem.weight_order), s, p
    )
    np.testing.assert_allclose(read_dw(), numeric_grad(f, (x, w), g, 1), atol=1e-6)


@task4_2
def test_conv2d_accepts_an_int_or_a_pair_for_stride_and_padding():
    x = np.random.default_rng(0).normal(size=(1, 2, 7, 6))
    w = np.random.default_rng(1).normal(size=(3, 2, 3, 2))
    out, read = empty_strided((1, 3, 4, 4))
    fast_conv.conv2d_forward(out, strided(x), strided(w), 2, 1)
    np.testing.assert_allclose(read(), conv2d_ref(x, w, (2, 2), (1, 1)), atol=1e-12)
    out, read = empty_strided((1, 3, 3, 7))
    fast_conv.conv2d_forward(out, strided(x), strided(w), (3, 1), (1, 1))
    np.testing.assert_allclose(read(), conv2d_ref(x, w, (3, 1), (1, 1)), atol=1e-12)


# ------------------------------------------------------- races at large batch
@pytest.mark.parametrize(
    "spatial, x_shape, w_shape",
    [
        pytest.param(spatial, x_shape, w_shape, marks=task, id=f"conv{spatial}d-{i}")
        for i, (spatial, task, x_shape, w_shape) in enumerate(
            [
                (1, task4_1, (64, 2, 6), (3, 2, 2)),
                (1, task4_1, (1024, 2, 6), (3, 2, 2)),
                (1, task4_1, (4096, 1, 4), (4, 1, 1)),
                (2, task4_2, (64, 2, 3, 3), (2, 2, 2, 2)),
                (2, task4_2, (256, 2, 3, 3), (2, 2, 2, 2)),
                (2, task4_2, (2048, 1, 2, 2), (4, 1, 1, 1)),
                (2, task4_2, (4096, 2, 8, 8), (2, 2, 3, 3)),
            ]
        )
    ],
)
def test_conv_backward_kernels_at_large_batch_repeatedly(
    spatial, x_shape, w_shape, every_thread
):
    """The backward kernels at batches of 64 to 4096 (their prange loops run on
    several threads, long enough to overlap), called 60 times, against the NumPy
    reference (``conv2d_grads_ref``; conv1d as conv2d of height 1). A kernel
    whose workers split the batch and add into the same ``dw`` entries (or the
    same ``dx`` entries) loses some of the additions when two workers update
    one entry at once: wrong in some calls only (on 2 threads of this VM, in a
    third to all of the calls, fewer in a process's first calls, while its
    threads start).
    Each call runs the student's kernel through the launcher (no fast path)."""
    rng = np.random.default_rng(64)
    x, w = rng.normal(size=x_shape), rng.normal(size=w_shape)
    if spatial == 1:
        s, p, two_d = 1, 1, ((1, 1), (0, 1))
        g = rng.normal(size=conv1d_ref(x, w, s, p).shape)
        dx_ref, dw_ref = conv2d_grads_ref(
            x[:, :, None], w[:, :, None], g[:, :, None], *two_d
        )
        dx_ref, dw_ref = dx_ref[:, :, 0], dw_ref[:, :, 0]
    else:
        s, p = (1, 2), (1, 0)
        g = rng.normal(size=conv2d_ref(x, w, s, p).shape)
        dx_ref, dw_ref = conv2d_grads_ref(x, w, g, s, p)
    weight = getattr(fast_conv, f"conv{spatial}d_backward_weight")
    inputs = getattr(fast_conv, f"conv{spatial}d_backward_input")
    calls = 60
    for call in range(calls):
        for name, launch, shape, first, second, expected in (
            ("weight", weight, w.shape, x, g, dw_ref),
            ("input", inputs, x.shape, g, w, dx_ref),
        ):
            result, read = empty_strided(shape)
            launch(result, strided(first), strided(second), s, p)
            got = read()
            wrong = np.argwhere(~np.isclose(got, expected, rtol=1e-9, atol=1e-9))
            at = tuple(int(i) for i in wrong[0]) if wrong.size else ()
            assert wrong.size == 0, (
                f"conv{spatial}d_backward_{name} at batch {x_shape[0]}, call "
                f"{call + 1} of {calls}: {len(wrong)} wrong entries, the first at "
                f"{at}: {got[at]} instead of {expected[at]}. When two prange "
                "workers add into the same entry at once, one addition is lost: "
                "give each worker whole entries of the result (prange over them) "
                "and sum inside."
            )


# ------------------------------------------------------------- parallel loops
@pytest.mark.parametrize(
    "spatial, kind",
    [
        pytest.param(spatial, kind, marks=task, id=f"conv{spatial}d_{kind}")
        for spatial, task in ((1, task4_1), (2, task4_2))
        for kind in ("forward", "backward_input", "backward_weight")
    ],
)
def test_conv_kernels_run_in_parallel(spatial, kind):
    """Each kernel is ``njit(parallel=True)`` with a ``prange`` that Numba keeps
    (nothing in its body forces a serial loop): run once, then read the compiled
    code's parallel loops (``tests/module3/kernels.py``)."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(1, 2) + (5,) * spatial)
    w = rng.normal(size=(3, 2) + (2,) * spatial)
    one, zero = (1, 0) if spatial == 1 else ((1, 1), (0, 0))
    g = rng.normal(size=(conv1d_ref if spatial == 1 else conv2d_ref)(x, w).shape)
    result_shape, first, second = {
        "forward": (g.shape, x, w),
        "backward_input": (x.shape, g, w),
        "backward_weight": (w.shape, x, g),
    }[kind]
    result, _ = empty_strided(result_shape)
    launch = getattr(fast_conv, f"conv{spatial}d_{kind}")
    launch(result, strided(first), strided(second), one, zero)
    name = f"conv{spatial}d_{kind}"
    assert parallel_loops(fast_conv.kernel(name)) >= 1, (
        f"{name}: Numba kept no parallel loop; compile it with njit(parallel=True) "
        "and loop over the output with prange"
    )
