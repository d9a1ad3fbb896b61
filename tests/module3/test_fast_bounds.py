"""Task 3.1: the kernels index only inside their arrays, checked by Numba itself,
and they are valid Python.

Compiled code checks no index: a kernel that reads one entry before an empty
shape array, or writes through an empty slice of ``out``, reads and writes
whatever memory lies there, and often gets the right numbers by luck (the memory
after an empty view of ``out[t:t]`` *is* ``out[t]``). With ``NUMBA_BOUNDSCHECK=1``
Numba compiles a check into every index and raises ``IndexError`` instead.

Compiled code also reads a variable that some path never assigns as 0, where
Python raises ``UnboundLocalError``: a kernel whose path label is only set in the
branches (``GENERAL`` is 0) gets the general path by luck. With
``NUMBA_DISABLE_JIT=1`` every kernel runs as the plain Python it is written in
(``prange`` is ``range``), as a student debugging one with ``print`` runs it.

Each setting is read once per process, so the kernels are built and called in a
child Python, on every path (aligned, one number, general; one slice and many;
each reduced dim; the runs of reduce), and compared with NumPy there too.
"""

import textwrap

import pytest

from .kernels import CHILD_SETTINGS, run_child

pytestmark = pytest.mark.task3_1

CHILD = textwrap.dedent("""
    import numpy as np

    from module0_fundamentals import operators
    from module3_fast_ops import fast_ops, kernel_indexing
    from tests.module3.strategies import Strided

    neg = fast_ops.tensor_map(operators.neg)
    mul = fast_ops.tensor_zip(operators.mul)
    add = fast_ops.tensor_reduce(operators.add)
    rng = np.random.default_rng(0)
    big = 2 * kernel_indexing.MIN_PARALLEL_WORK // 64 + 3  # rows of 64: many slices


    def check(name, got, want):
        print(name, flush=True)  # the last name printed is the call that failed
        np.testing.assert_allclose(got, want, err_msg=name)


    for shape in [(), (5,), (3, 4), (2, 3, 4), (big, 64)]:
        x = rng.normal(size=shape)
        y = rng.normal(size=shape)
        for layout in {tuple(range(len(shape))), tuple(range(len(shape)))[::-1]}:
            a, b = Strided.of(x, layout), Strided.of(y, layout)
            for out_layout in {(), layout}:
                out = Strided.empty(shape, out_layout)
                neg(*out.args(), *a.args())
                check(f"map {shape} {layout}->{out_layout}", out.to_numpy(), -x)
                out = Strided.empty(shape, out_layout)
                mul(*out.args(), *a.args(), *b.args())
                check(f"zip {shape} {layout}->{out_layout}", out.to_numpy(), x * y)
            numbers = [Strided.of(np.float64(2.5))] + (
                [Strided.of(np.full((1,) * len(shape), 2.5))] if shape else []
            )
            for number in numbers:
                out = Strided.empty(shape, layout)
                mul(*out.args(), *a.args(), *number.args())
                check(f"zip {shape} by a number", out.to_numpy(), x * 2.5)
                out = Strided.empty(shape, layout)
                mul(*out.args(), *number.args(), *a.args())
                check(f"zip a number by {shape}", out.to_numpy(), 2.5 * x)
            if shape:
                # the first row, broadcast along every dim but the last
                r = y.reshape(-1, shape[-1])[:1]
                r = r.reshape((1,) * (len(shape) - 1) + shape[-1:])
                out = Strided.empty(shape)
                mul(*out.args(), *a.args(), *Strided.of(r).args())
                check(f"zip {shape} {layout} by a row", out.to_numpy(), x * r)
                out = Strided.empty(shape)
                neg(*out.args(), *Strided.of(r).args())
                want = -np.broadcast_to(r, shape)
                check(f"map a row to {shape}", out.to_numpy(), want)
            for dim in range(len(shape)):
                out_shape = shape[:dim] + (1,) + shape[dim + 1 :]
                for out_layout in {(), layout}:
                    out = Strided.empty(out_shape, out_layout, fill=0.5)
                    add(*out.args(), *a.args(), dim)
                    want = x.sum(axis=dim, keepdims=True) + 0.5
                    check(f"reduce {shape} {layout} dim {dim}", out.to_numpy(), want)
    # A 0-d view of a longer storage (x[1] of a vector): the general path, d = 0.
    empty = np.zeros(0, np.int64)
    view = Strided(np.array([3.0, 7.0, 9.0]), empty, empty)
    out = Strided.empty(())
    neg(*out.args(), *view.args())
    check("map of a 0-d view", out.to_numpy(), -3.0)
    out = Strided.empty(())
    mul(*out.args(), *view.args(), *view.args())
    check("zip of 0-d views", out.to_numpy(), 9.0)
    x = rng.normal(size=(2, 3, 7000))  # reduce slices across two rows of out
    out = Strided.empty((2, 1, 7000))
    add(*out.args(), *Strided.of(x).args(), 1)
    check("reduce (2, 3, 7000) dim 1", out.to_numpy(), x.sum(axis=1, keepdims=True))
    print("every index inside its array")
    """)


@pytest.mark.parametrize("setting", sorted(CHILD_SETTINGS))
def test_the_kernels_hold_with_bounds_checks_and_as_plain_python(setting):
    run_child(CHILD, setting)
