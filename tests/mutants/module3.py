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
        "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply.batch_starts:args:"
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
    "module3_fast_ops/cuda_ops.py:sum_practice_kernel._sum:op:+->-#2": (
        "cache[t - step] instead of cache[t + step]: Numba wraps a negative index "
        "as NumPy does (on a GPU too), so thread 0 adds cache[32 - step] and the "
        "pairs (t, t - step mod 32) form another tree over the same 32 entries, "
        "each added once: the same block sum"
    ),
    "module3_fast_ops/cuda_ops.py:sum_practice_kernel._sum:cmp:==->!=#2": (
        "threads 1..31 instead of thread 0 write the block's sum: after the last "
        "syncthreads every thread reads the same final cache[0]"
    ),
    "project/run_fast_tensor.py:train_epoch:cmp:>->>=#2": (
        "the labels are 0.0 and 1.0: y > 0.5 and y >= 0.5 pick the same points"
    ),
    "project/run_fast_tensor.py:train_epoch:args:batches, 1->1, batches": (
        "max(batches, 1) == max(1, batches) for ints"
    ),
    "module3_fast_ops/cuda_ops.py:tensor_map:const:True->False": (
        "cuda.jit(device=False) on fn: numba-cuda compiles a dispatcher that a "
        "kernel calls as a device function either way (the resource tests "
        "compile the kernel for sm_75 with it, and pass)"
    ),
    "module3_fast_ops/cuda_ops.py:tensor_zip:const:True->False": (
        "cuda.jit(device=False) on fn: numba-cuda compiles a dispatcher that a "
        "kernel calls as a device function either way (the resource tests "
        "compile the kernel for sm_75 with it, and pass)"
    ),
    "module3_fast_ops/cuda_ops.py:tensor_reduce:const:True->False": (
        "cuda.jit(device=False) on fn: numba-cuda compiles a dispatcher that a "
        "kernel calls as a device function either way (the resource tests "
        "compile the kernel for sm_75 with it, and pass)"
    ),
    (
        "module3_fast_ops/cuda_ops.py:tensor_reduce._reduce:args:value, "
        "a_storage[first + j * step]->a_storage[first + j * step], value"
    ): (
        "the reductions the backends build (add, mul, max: the docstring's "
        "identities) are commutative; the tree in shared memory already "
        "combines values in an order of its own"
    ),
    "module3_fast_ops/cuda_ops.py:tensor_matrix_multiply._matmul:op:-->+#4": (
        "(n + TILE_ROWS + 1) // TILE_ROWS row tiles instead of (n + TILE_ROWS - 1) "
        "// TILE_ROWS: the extra tile lies below row n, where every write is "
        "guarded (i < n): more work, the same out"
    ),
    (
        "module3_fast_ops/cuda_ops.py:tensor_matrix_multiply._matmul:const:"
        "0.0->1.0#2"
    ): (
        "a's padding 1.0 instead of 0.0: past column m it meets b's padding "
        "0.0 (1.0 * 0.0 = 0), and below row n its products are never written"
    ),
    (
        "module3_fast_ops/cuda_ops.py:tensor_reduce._reduce:args:partial[t], "
        "partial[t + half]->partial[t + half], partial[t]"
    ): (
        "the reductions the backends build (add, mul, max) are commutative: "
        "each step of the tree combines the same two values"
    ),
    "module3_fast_ops/cuda_ops.py:tensor_reduce._reduce:cmp:==->!=": (
        "after the tree's last syncthreads every thread reads the same final "
        "partial[0]: threads other than 0 write that same value to out[target]"
    ),
    "module3_fast_ops/cuda_ops.py:tensor_reduce._reduce:const:0->1#2": (
        "after the tree's last syncthreads every thread reads the same final "
        "partial[0]: thread 1 writes the value thread 0 would"
    ),
    (
        "module3_fast_ops/cuda_ops.py:tensor_matrix_multiply._matmul:const:"
        "0.0->1.0#3"
    ): (
        "b's padding 1.0 instead of 0.0: below row m it meets a's padding 0.0 "
        "(0.0 * 1.0 = 0), and right of column p its products are never written"
    ),
    (
        "module3_fast_ops/cuda_ops.py:tensor_matrix_multiply.run:args:"
        "blocks_for(n, TILE_ROWS), MAX_GRID->MAX_GRID, blocks_for(n, TILE_ROWS)"
    ): "min of two ints is symmetric",
    (
        "module3_fast_ops/cuda_ops.py:tensor_matrix_multiply.run:args:"
        "batches, MAX_GRID->MAX_GRID, batches"
    ): "min of two ints is symmetric",
    (
        "module3_fast_ops/cuda_ops.py:tensor_matrix_multiply.run:args:"
        "n, TILE_ROWS->TILE_ROWS, n"
    ): (
        "blocks_for(TILE_ROWS, n) row blocks instead of blocks_for(n, TILE_ROWS): the "
        "kernel strides over row tiles by gridDim.y, so any grid of at least "
        "one row block computes every row (a smaller grid, less parallel)"
    ),
    "module3_fast_ops/cuda_ops.py:sum_practice_kernel._sum:const:0->1#2": (
        "after the tree's last syncthreads every thread reads the same final "
        "cache[0]: thread 1 writes the value thread 0 would"
    ),
    "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply:const:1->2": (
        "SMALL_PRODUCT, the size below which Tensor matmuls take the serial "
        "twin: both compile the same code and compute the same products"
    ),
    "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply:const:18->19": (
        "SMALL_PRODUCT, the size below which Tensor matmuls take the serial "
        "twin: both compile the same code and compute the same products"
    ),
    "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply:const:64->65": (
        "PANEL, a tuning constant of the cache blocking: any panel width gives "
        "the same products (test_matmul_larger_than_the_cache_panels spans "
        "three panels and passes with 65)"
    ),
    (
        "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply.pack_rows:args:"
        "first + 8, rows->rows, first + 8"
    ): "min of two ints is symmetric",
    "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply.pack_rows:const:8->9#3": (
        "a tile of 9 rows instead of 8: its last row is the next tile's first, "
        "which both tiles pack with the same row of storage (none past the last "
        "row): more work, the same pack"
    ),
    (
        "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply.pack_rows:args:"
        "k0 + 8, m->m, k0 + 8"
    ): "min of two ints is symmetric",
    "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply.pack_rows:const:8->9#5": (
        "a square of 9 columns instead of 8 where a is read with strides: its "
        "last column is the next square's first, copied twice with the same "
        "value: more work, the same pack"
    ),
    "module3_fast_ops/fast_ops.py:tensor_map.map_slice:const:1->2#2": (
        "last = 2 instead of 1 for a 0-d out: its one entry is a slice of one "
        "(hi - ordinal = 1), so the run is min(2, 1) = 1 either way"
    ),
    (
        "module3_fast_ops/fast_ops.py:tensor_map.map_slice:args:"
        "out_index, out_strides->out_strides, out_index"
    ): (
        "index_to_position sums index[k] * strides[k]: the two arrays play "
        "symmetric parts, so swapping them gives the same position"
    ),
    (
        "module3_fast_ops/fast_ops.py:tensor_map.map_slice:args:"
        "in_index, in_strides->in_strides, in_index"
    ): (
        "index_to_position sums index[k] * strides[k]: the two arrays play "
        "symmetric parts, so swapping them gives the same position"
    ),
    (
        "module3_fast_ops/fast_ops.py:tensor_map.map_slice:args:"
        "last - (out_index[d - 1] if d > 0 else 0), hi - ordinal->hi - ordinal, "
        "last - (out_index[d - 1] if d > 0 else 0)"
    ): "min of two ints is symmetric",
    "module3_fast_ops/fast_ops.py:tensor_map.map_slice:const:0->1#2": (
        "d > 1 instead of d > 0 only changes a 1-d out, whose run is then "
        "min(last, hi - ordinal) instead of min(last - ordinal, hi - ordinal): "
        "a 1-d out is one row and hi <= last, so both are hi - ordinal"
    ),
    (
        "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply."
        "strip:args:BLOCK, n - i->n - i, BLOCK"
    ): "min of two ints is symmetric",
    (
        "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply."
        "strip:args:PANEL, p - j->p - j, PANEL"
    ): "min of two ints is symmetric",
    "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply.strip:const:3->4": (
        "np.empty(4) for the block's three starts: the fourth entry is never "
        "read (dots gets the one-entry views s[:1] and s[1:2], and s[2:])"
    ),
    "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply.strip:const:2->3#2": (
        "s[1:3] instead of s[1:2] for a's starts: dots reads a_starts[t] only "
        "for the t of out_starts, which has one entry: the same a_starts[0]"
    ),
    "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply.strip:const:1->2#3": (
        "reshape(-2) instead of reshape(-1): Numba takes any negative size as "
        "the one to infer (NumPy would raise), so it is the same flat view"
    ),
    "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply.strip:const:1->2#4": (
        "reshape(-2) instead of reshape(-1): Numba takes any negative size as "
        "the one to infer (NumPy would raise), so it is the same flat view"
    ),
    (
        "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply."
        "rows:args:BLOCK, n - i->n - i, BLOCK"
    ): "min of two ints is symmetric",
    (
        "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply."
        "rows:args:BLOCK, n - i->n - i, BLOCK#2"
    ): "min of two ints is symmetric",
    (
        "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply."
        "rows:args:1, last - 1->last - 1, 1"
    ): "min of two ints is symmetric",
    (
        "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply."
        "rows:args:2, last - 1->last - 1, 2"
    ): "min of two ints is symmetric",
    (
        "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply."
        "rows:args:3, last - 1->last - 1, 3"
    ): "min of two ints is symmetric",
    "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply.rows:const:3->4": (
        "min(4, last - 1) is min(3, last - 1): last = min(BLOCK, n - i) is at " "most 4"
    ),
    "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply._matmul:op:*->/#3": (
        "count / n * m * p <= SMALL_PRODUCT: products up to n * n times bigger "
        "skip the packing and take rows or dots, which are right for any size "
        "where they are chosen (the choice is speed only): the same out, slower"
    ),
    "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply._matmul:op:*->/#5": (
        "count * n * m / p <= SMALL_PRODUCT: products up to p * p times bigger "
        "skip the packing and take rows or dots, which are right for any size "
        "where they are chosen (the choice is speed only; p = 0 returned "
        "earlier): the same out, slower"
    ),
    "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply._matmul:cmp:<=-><": (
        "a product of exactly SMALL_PRODUCT multiply-adds is packed instead of "
        "taking rows or dots: each is right (the choice is speed only), the same out"
    ),
    "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply._matmul:op:-->+#14": (
        "(n + BLOCK + 1) // BLOCK * BLOCK pads a with a block of zero rows more "
        "for some n: strip computes that block too and writes none of it "
        "(only rows i + r < n are written): more work, the same out"
    ),
    "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply._matmul:op:-->+#15": (
        "(p + BLOCK + 1) // BLOCK * BLOCK pads b^T with a block of zero rows "
        "more for some p: strip computes those columns too and writes none of "
        "them (only columns j + c < p are written): more work, the same out"
    ),
    "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply._matmul:op:*->/#12": (
        "workers_for(count / n * m * p // 8): "
        "the serial loops and the parallel ones run the same pack_rows and "
        "strip calls, each writing its own entries: which runs is speed only (no "
        "test sees a matmul's threads: 3.1's kernels show theirs through fn), "
        "the same out"
    ),
    "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply._matmul:op:*->/#14": (
        "workers_for(count * n * m / p // 8): "
        "the serial loops and the parallel ones run the same pack_rows and "
        "strip calls, each writing its own entries: which runs is speed only (no "
        "test sees a matmul's threads: 3.1's kernels show theirs through fn), "
        "the same out"
    ),
    "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply._matmul:op://->%#8": (
        "workers_for(count * n * m * p % 8): "
        "the serial loops and the parallel ones run the same pack_rows and "
        "strip calls, each writing its own entries: which runs is speed only (no "
        "test sees a matmul's threads: 3.1's kernels show theirs through fn), "
        "the same out"
    ),
    "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply._matmul:const:8->9#3": (
        "workers_for(count * n * m * p // 9) == 1: "
        "the serial loops and the parallel ones run the same pack_rows and "
        "strip calls, each writing its own entries: which runs is speed only (no "
        "test sees a matmul's threads: 3.1's kernels show theirs through fn), "
        "the same out"
    ),
    "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply._matmul:cmp:==->!=#5": (
        "workers_for(...) != 1: "
        "the serial loops and the parallel ones run the same pack_rows and "
        "strip calls, each writing its own entries: which runs is speed only (no "
        "test sees a matmul's threads: 3.1's kernels show theirs through fn), "
        "the same out"
    ),
    "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply._matmul:const:1->2#18": (
        "workers_for(...) == 2: "
        "the serial loops and the parallel ones run the same pack_rows and "
        "strip calls, each writing its own entries: which runs is speed only (no "
        "test sees a matmul's threads: 3.1's kernels show theirs through fn), "
        "the same out"
    ),
    "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply._matmul:op:-->+#22": (
        "(p_pad + PANEL + 1) // PANEL adds a panel of tasks where p_pad is a "
        "multiple of PANEL: their sweeps start at p_pad and are empty"
    ),
    "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply._matmul:const:1->2#17": (
        "(p_pad + PANEL - 2) // PANEL is (p_pad + PANEL - 1) // PANEL: they "
        "differ only where p_pad % PANEL == 1, and p_pad is a multiple of BLOCK"
    ),
    "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply.rows:cmp:<-><=": (
        "p <= BLOCK: products exactly BLOCK columns wide take the "
        "matrix-times-vector branch (BLOCK dot products in registers), which is "
        "right for any p, instead of the sweep along rows: the same out, slower"
    ),
    "module3_fast_ops/fast_ops.py:tensor_map.map_slice:op:-->+#5": (
        "min(..., hi + ordinal): a slice's last run goes on to the end of its row "
        "past hi, writing entries of the next slice with the values that slice "
        "writes too (the same fn of the same input): the same out"
    ),
    "module3_fast_ops/fast_ops.py:tensor_zip:const:3->4": (
        "NUMBER_B, one of the labels of _zip's paths, 4 instead of 3: _zip "
        "sets it and zip_slice compares with it, and it stays unlike the others"
    ),
    "module3_fast_ops/fast_ops.py:tensor_map._map:cmp:==->!=": (
        "the aligned path is a shortcut: with this test flipped it is taken "
        "only where out's storage is not exactly size entries long (never, "
        "for the storages kernels get; and where taken, both layouts are the "
        "same dense one, so position i of one is position i of the other): "
        "the general path computes the same out, slower"
    ),
    "module3_fast_ops/fast_ops.py:tensor_map._map:cmp:==->!=#2": (
        "the aligned path is a shortcut: with this test flipped it is taken "
        "only where in's storage is not exactly size entries long, and then "
        "never (its strides would have to equal out's, a dense layout of "
        "size entries): the general path computes the same out, slower"
    ),
    (
        "module3_fast_ops/fast_ops.py:tensor_map._map:args:"
        "out_shape, in_shape->in_shape, out_shape"
    ): "equal_arrays is symmetric",
    (
        "module3_fast_ops/fast_ops.py:tensor_map._map:args:"
        "out_strides, in_strides->in_strides, out_strides"
    ): "equal_arrays is symmetric",
    "module3_fast_ops/fast_ops.py:tensor_map._map:const:1->2": (
        "workers == 2 instead of 1: workers_for gives 1 slice, or at least 4 "
        "(MIN_PARALLEL_WORK // (MIN_PARALLEL_WORK // 4)), never 2; one slice in "
        "the prange loop is the same call map_slice(0, size) as the serial branch"
    ),
    "module3_fast_ops/fast_ops.py:tensor_map._map:op:*->/": (
        "lo = w / size // workers is 0 for every slice: the slices overlap, "
        "each starting at entry 0, and every entry is written by one or more "
        "workers with the same value fn(in): more work, the same out"
    ),
    "module3_fast_ops/fast_ops.py:tensor_map._map:op://->%": (
        "lo = w * size % workers, a number below workers: the slices overlap "
        "from near entry 0 to their own hi, and every entry is written by one or "
        "more workers with the same value fn(in): more work, the same out"
    ),
    "module3_fast_ops/fast_ops.py:tensor_reduce.reduce_slice:cmp:<-><=": (
        "reduce_dim <= d - 1 also sends a reduction of the last dimension down the "
        "path of contiguous runs; there each run is one entry long (the reduced "
        "dimension has size 1 in out), so it adds the same inputs in the same "
        "order as the general loop"
    ),
    "module3_fast_ops/fast_ops.py:tensor_reduce.reduce_slice:const:1->2": (
        "reduce_dim < d - 2 sends a reduction of the second-to-last dimension "
        "to the general loop instead of the path of contiguous runs (a speed "
        "shortcut): each entry of out gets the same inputs added in the same "
        "order"
    ),
    (
        "module3_fast_ops/fast_ops.py:tensor_reduce.reduce_slice:args:"
        "out_index, a_strides->a_strides, out_index"
    ): (
        "index_to_position sums index[k] * strides[k]: the two arrays play "
        "symmetric parts, so swapping them gives the same position"
    ),
    (
        "module3_fast_ops/fast_ops.py:tensor_reduce.reduce_slice:args:"
        "last - out_index[d - 1], hi - ordinal->hi - ordinal, last - out_index[d - 1]"
    ): "min of two ints is symmetric",
    (
        "module3_fast_ops/fast_ops.py:tensor_zip.zip_slice:args:"
        "out_index, out_strides->out_strides, out_index"
    ): (
        "index_to_position sums index[k] * strides[k]: the two arrays play "
        "symmetric parts, so swapping them gives the same position"
    ),
    (
        "module3_fast_ops/fast_ops.py:tensor_zip.zip_slice:args:"
        "a_index, a_strides->a_strides, a_index"
    ): (
        "index_to_position sums index[k] * strides[k]: the two arrays play "
        "symmetric parts, so swapping them gives the same position"
    ),
    (
        "module3_fast_ops/fast_ops.py:tensor_zip.zip_slice:args:"
        "b_index, b_strides->b_strides, b_index"
    ): (
        "index_to_position sums index[k] * strides[k]: the two arrays play "
        "symmetric parts, so swapping them gives the same position"
    ),
    (
        "module3_fast_ops/fast_ops.py:tensor_reduce.reduce_slice:args:"
        "out_index, out_strides->out_strides, out_index#2"
    ): (
        "index_to_position sums index[k] * strides[k]: the two arrays play "
        "symmetric parts, so swapping them gives the same position"
    ),
    (
        "module3_fast_ops/fast_ops.py:tensor_reduce.reduce_slice:args:"
        "out_index, a_strides->a_strides, out_index#2"
    ): (
        "index_to_position sums index[k] * strides[k]: the two arrays play "
        "symmetric parts, so swapping them gives the same position"
    ),
    (
        "module3_fast_ops/fast_ops.py:tensor_reduce.reduce_slice:args:"
        "out_run[j], a_run[j]->a_run[j], out_run[j]"
    ): (
        "the reductions the backends build (add, mul, max: the docstring's "
        "identities) are commutative: fn(a, acc) is fn(acc, a)"
    ),
    (
        "module3_fast_ops/fast_ops.py:tensor_reduce.reduce_slice:args:"
        "accumulated, a_storage[position]->a_storage[position], accumulated"
    ): (
        "the reductions the backends build (add, mul, max: the docstring's "
        "identities) are commutative: fn(a, acc) is fn(acc, a)"
    ),
    (
        "module3_fast_ops/fast_ops.py:tensor_reduce._reduce:args:"
        "workers_for(kernel_size(a_shape)), size->size, "
        "workers_for(kernel_size(a_shape))"
    ): "min of two ints is symmetric",
    "module3_fast_ops/fast_ops.py:tensor_reduce._reduce:cmp:<=-><": (
        "workers < 1 instead of <= 1: only an empty out has no worker (and "
        "then prange(0) does nothing either); one slice in the prange loop "
        "is the same call reduce_slice(0, size) as the serial branch"
    ),
    (
        "module3_fast_ops/fast_ops.py:tensor_zip.zip_slice:args:"
        "last - (out_index[d - 1] if d > 0 else 0), hi - ordinal->hi - ordinal, "
        "last - (out_index[d - 1] if d > 0 else 0)"
    ): "min of two ints is symmetric",
    "module3_fast_ops/fast_ops.py:tensor_zip.zip_slice:const:1->2#2": (
        "last = 2 instead of 1 for a 0-d out: its one entry is a slice of one "
        "(hi - ordinal = 1), so the run is min(2, 1) = 1 either way"
    ),
    "module3_fast_ops/fast_ops.py:tensor_zip.zip_slice:const:0->1#4": (
        "d > 1 instead of d > 0 only changes a 1-d out, whose run is then "
        "min(last, hi - ordinal) instead of min(last - ordinal, hi - ordinal): "
        "a 1-d out is one row and hi <= last, so both are hi - ordinal"
    ),
    "module3_fast_ops/fast_ops.py:tensor_zip.zip_slice:op:-->+#7": (
        "min(..., hi + ordinal): a slice's last run goes on to the end of its row "
        "past hi, writing entries of the next slice with the values that slice "
        "writes too (the same fn of the same inputs): the same out"
    ),
    "module3_fast_ops/fast_ops.py:tensor_zip._zip:del:path = ALIGNED->pass": (
        "the aligned path is a shortcut: without it, a and b laid out as out "
        "take the general path, which computes the same out, slower"
    ),
    "module3_fast_ops/fast_ops.py:tensor_zip._zip:del:path = NUMBER_B->pass": (
        "the one-number path is a shortcut: without it, b of one entry beside a "
        "laid out as out takes the general path (b broadcast, stride 0), which "
        "computes the same out, slower"
    ),
    "module3_fast_ops/fast_ops.py:tensor_zip._zip:del:path = NUMBER_A->pass": (
        "the one-number path is a shortcut: without it, a of one entry beside b "
        "laid out as out takes the general path (a broadcast, stride 0), which "
        "computes the same out, slower"
    ),
    "module3_fast_ops/fast_ops.py:tensor_zip._zip:cmp:==->!=": (
        "the aligned path (and a number beside an aligned tensor) is a "
        "shortcut: with this test of out's storage flipped it is taken only where "
        "a storage is not exactly size entries long, and then its layout is "
        "the same dense one as the others' (position i of one is position i "
        "of the other): the general path computes the same out, slower"
    ),
    "module3_fast_ops/fast_ops.py:tensor_zip._zip:cmp:==->!=#2": (
        "the aligned path (and a number beside an aligned tensor) is a "
        "shortcut: with this test of a's storage flipped it is taken only where "
        "a storage is not exactly size entries long, and then its layout is "
        "the same dense one as the others' (position i of one is position i "
        "of the other): the general path computes the same out, slower"
    ),
    "module3_fast_ops/fast_ops.py:tensor_zip._zip:cmp:==->!=#3": (
        "the aligned path (and a number beside an aligned tensor) is a "
        "shortcut: with this test of out's storage flipped it is taken only where "
        "a storage is not exactly size entries long, and then its layout is "
        "the same dense one as the others' (position i of one is position i "
        "of the other): the general path computes the same out, slower"
    ),
    "module3_fast_ops/fast_ops.py:tensor_zip._zip:cmp:==->!=#4": (
        "the aligned path (and a number beside an aligned tensor) is a "
        "shortcut: with this test of b's storage flipped it is taken only where "
        "a storage is not exactly size entries long, and then its layout is "
        "the same dense one as the others' (position i of one is position i "
        "of the other): the general path computes the same out, slower"
    ),
    (
        "module3_fast_ops/fast_ops.py:tensor_zip._zip:args:"
        "out_shape, a_shape->a_shape, out_shape"
    ): "equal_arrays is symmetric",
    (
        "module3_fast_ops/fast_ops.py:tensor_zip._zip:args:"
        "out_strides, a_strides->a_strides, out_strides"
    ): "equal_arrays is symmetric",
    (
        "module3_fast_ops/fast_ops.py:tensor_zip._zip:args:"
        "out_shape, b_shape->b_shape, out_shape"
    ): "equal_arrays is symmetric",
    (
        "module3_fast_ops/fast_ops.py:tensor_zip._zip:args:"
        "out_strides, b_strides->b_strides, out_strides"
    ): "equal_arrays is symmetric",
    "module3_fast_ops/fast_ops.py:tensor_zip._zip:const:1->2#3": (
        "workers == 2 instead of 1: workers_for gives 1 slice, or at least 4 "
        "(MIN_PARALLEL_WORK // (MIN_PARALLEL_WORK // 4)), never 2; one slice in "
        "the prange loop is the same call zip_slice(0, size) as the serial branch"
    ),
    (
        "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply."
        "rows:args:1, last - 1->last - 1, 1#2"
    ): "min of two ints is symmetric",
    (
        "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply."
        "rows:args:2, last - 1->last - 1, 2#2"
    ): "min of two ints is symmetric",
    (
        "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply."
        "rows:args:3, last - 1->last - 1, 3#2"
    ): "min of two ints is symmetric",
    "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply.rows:const:3->4#3": (
        "min(4, last - 1) is min(3, last - 1): last = min(BLOCK, n - i) is at " "most 4"
    ),
    "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply.rows:cmp:<=-><": (
        "while k + 4 < m: when m is a multiple of 4 the last four steps of k "
        "are taken one at a time by the loop after it: the same products, "
        "summed in another order (the sums agree to rounding, as NumPy's do)"
    ),
    (
        "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply."
        "dots:args:BLOCK, n - i->n - i, BLOCK"
    ): "min of two ints is symmetric",
    (
        "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply."
        "dots:args:BLOCK, p - j->p - j, BLOCK"
    ): "min of two ints is symmetric",
    (
        "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply."
        "dots:args:1, rows_here - 1->rows_here - 1, 1"
    ): "min of two ints is symmetric",
    (
        "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply."
        "dots:args:1, cols_here - 1->cols_here - 1, 1"
    ): "min of two ints is symmetric",
    (
        "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply."
        "dots:args:2, rows_here - 1->rows_here - 1, 2"
    ): "min of two ints is symmetric",
    (
        "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply."
        "dots:args:2, cols_here - 1->cols_here - 1, 2"
    ): "min of two ints is symmetric",
    (
        "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply."
        "dots:args:3, rows_here - 1->rows_here - 1, 3"
    ): "min of two ints is symmetric",
    (
        "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply."
        "dots:args:3, cols_here - 1->cols_here - 1, 3"
    ): "min of two ints is symmetric",
    "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply.dots:const:3->4": (
        "min(4, rows_here - 1) is min(3, rows_here - 1): rows_here = "
        "min(BLOCK, n - i) is at most 4"
    ),
    "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply.dots:const:3->4#2": (
        "min(4, cols_here - 1) is min(3, cols_here - 1): cols_here = "
        "min(BLOCK, p - j) is at most 4"
    ),
    "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply._matmul:cmp:!=->==": (
        "dots only where b_col == 1 too (b's rows and columns both "
        "contiguous: m or p is 1): a transposed b is packed instead, which is "
        "right for it: the same out, slower"
    ),
    "module3_fast_ops/fast_matmul.py:tensor_matrix_multiply._matmul:const:1->2#7": (
        "b_col != 2: a b whose rows and columns are both contiguous (m or p "
        "is 1) takes dots, right for it; one with b_col == 2 is packed, right "
        "too: the choice is speed only, the same out"
    ),
}
