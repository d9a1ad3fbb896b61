# kindling: instructor-only
"""Equivalent mutants of Module 3's solutions (see ``__init__.py``); a literal
only (the file is read, never imported)."""

EQUIVALENT = {
    (
        "module3_fast_ops/fast_ops.py:tensor_reduce.reduce_slice:args:"
        "out_index, out_strides->out_strides, out_index"
    ): (
        "index_to_position sums index[k] * strides[k]: the two arrays play "
        "symmetric parts, so swapping them gives the same position"
    ),
    (
        "module3_fast_ops/fast_ops.py:tensor_matrix_multiply.batch_starts:args:"
        "index, strides->strides, index"
    ): (
        "index_to_position sums index[k] * strides[k]: the two arrays play "
        "symmetric parts, so swapping them gives the same position"
    ),
    "module3_fast_ops/fast_ops.py:tensor_reduce.reduce_slice:op:-->+": (
        "reduce_dim < d + 1 also sends a reduction of the last dimension down the "
        "path of contiguous runs; there each run is one entry long (the reduced "
        "dimension has size 1 in out), so it adds the same inputs in the same "
        "order as the general loop"
    ),
}
