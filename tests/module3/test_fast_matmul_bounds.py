"""Task 3.2: the matmul kernel indexes only inside its arrays and is valid
Python, checked as Task 3.1's kernels are (``kernels.run_child``): in a child
Python with ``NUMBA_BOUNDSCHECK=1``, then with ``NUMBA_DISABLE_JIT=1``, on every
path (a matrix times a few columns, the sweep along rows with out stored either
way, the packed blocks serial and parallel, broadcast batches, empty products),
each product compared with NumPy.

Compiled, a block of rows past the end of a matrix may read whatever memory
follows it and still write the right numbers (the rows it reads are not
written); checked, or as Python, that read fails.
"""

import textwrap

import pytest

from .kernels import CHILD_SETTINGS, run_child

pytestmark = pytest.mark.task3_2

CHILD = textwrap.dedent("""
    import numpy as np

    from module3_fast_ops import fast_matmul
    from tests.module3.strategies import Strided

    matmul = fast_matmul.tensor_matrix_multiply()
    rng = np.random.default_rng(0)
    cases = [  # (a's shape, b's shape, b stored by columns, out's layout)
        # n rows of a past every whole block of 4 (1, 2, 3 left over)
        ((n, 3), (3, p), False, layout)
        for n in (1, 2, 3, 5)
        for p in (1, 3, 9)
        for layout in ((0, 1), (1, 0))
    ] + [
        ((5, 7), (7, 9), True, (0, 1)),  # rows of b not contiguous: packed
        ((2, 5, 3), (3, 9), False, (0, 1, 2)),  # a batch beside one matrix
        ((1, 3, 2), (2, 2, 4), False, (0, 1, 2)),  # a batch of 1 broadcast
        ((70, 65), (65, 67), False, (0, 1)),  # packed, parallel, with padding
        ((3, 4), (4, 0), False, (0, 1)),  # no columns
        ((0, 4), (4, 3), False, (0, 1)),  # no rows
        ((3, 0), (0, 2), False, (0, 1)),  # no inner dim: zeros
    ]
    for a_shape, b_shape, by_columns, layout in cases:
        x, y = rng.normal(size=a_shape), rng.normal(size=b_shape)
        b = Strided.of(y, (1, 0) if by_columns else ())
        want = x @ y
        out = Strided.empty(want.shape, layout)
        print(f"matmul {a_shape} @ {b_shape} into {layout}", flush=True)
        matmul(*out.args(), *Strided.of(x).args(), *b.args())
        np.testing.assert_allclose(out.to_numpy(), want, err_msg=str(a_shape))
    print("every index inside its array")
    """)


@pytest.mark.long
@pytest.mark.parametrize("setting", sorted(CHILD_SETTINGS))
def test_the_matmul_holds_with_bounds_checks_and_as_plain_python(setting):
    run_child(CHILD, setting)
