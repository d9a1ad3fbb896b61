# kindling: instructor-only
"""Plausible wrong solutions of Module 3's tasks (see ``__init__.py``)."""

MISTAKES = [
    {
        "name": "mm-practice-from-global-memory",
        "task": "3.4",
        "file": "module3_fast_ops/cuda_ops.py",
        "find": (
            "        a_tile = cuda.shared.array((PRACTICE_TILE, PRACTICE_TILE), "
            "numba.float64)\n"
            "        b_tile = cuda.shared.array((PRACTICE_TILE, PRACTICE_TILE), "
            "numba.float64)\n"
            "        x = cuda.threadIdx.x\n"
            "        y = cuda.threadIdx.y\n"
            "        if x < size and y < size:\n"
            "            a_tile[y, x] = a[y * size + x]\n"
            "            b_tile[y, x] = b[y * size + x]\n"
            "        cuda.syncthreads()\n"
            "        if x < size and y < size:\n"
            "            total = 0.0\n"
            "            for k in range(size):\n"
            "                total += a_tile[y, k] * b_tile[k, x]\n"
        ),
        "replace": (
            "        x = cuda.threadIdx.x\n"
            "        y = cuda.threadIdx.y\n"
            "        if x < size and y < size:\n"
            "            total = 0.0\n"
            "            for k in range(size):\n"
            "                total += a[y * size + k] * b[k * size + x]\n"
        ),
        "description": "the one-block matmul reads a and b from global memory for "
        "every product: right numbers, no shared-memory tiles",
    },
    {
        "name": "cuda-matmul-adds-into-out",
        "task": "3.4",
        "file": "module3_fast_ops/cuda_ops.py",
        "find": "out[out_start + i * o_si + j * o_sj] = acc[r, c]",
        "replace": "out[out_start + i * o_si + j * o_sj] += acc[r, c]",
        "description": "the tiled matmul adds its sums into out, which the CUDA "
        "backend does not zero",
    },
    {
        "name": "fast-reduce-shared-index-buffer",
        "task": "3.1",
        "file": "module3_fast_ops/fast_ops.py",
        "find": (
            "            for w in prange(workers):\n"
            "                lo, hi = w * size // workers, (w + 1) * size // workers\n"
            "                reduce_slice(lo, hi, *args, reduce_dim)\n"
        ),
        "replace": (
            "            out_index = np.empty(len(out_shape), np.int64)\n"
            "            length = a_shape[reduce_dim]\n"
            "            step = a_strides[reduce_dim]\n"
            "            for w in prange(workers):\n"
            "                lo, hi = w * size // workers, (w + 1) * size // workers\n"
            "                for ordinal in range(lo, hi):\n"
            "                    to_index(ordinal, out_shape, out_index)\n"
            "                    target = index_to_position(out_index, out_strides)\n"
            "                    position = index_to_position(out_index, a_strides)\n"
            "                    accumulated = out[target]\n"
            "                    for _ in range(length):\n"
            "                        accumulated = f(accumulated, "
            "a_storage[position])\n"
            "                        position += step\n"
            "                    out[target] = accumulated\n"
        ),
        "description": "the reduce's workers share one index buffer, allocated "
        "before the prange loop: right on one thread, wrong entries at random on "
        "several",
    },
    {
        "name": "fast-map-serial-range",
        "task": "3.1",
        "file": "module3_fast_ops/fast_ops.py",
        "find": (
            "            for w in prange(workers):\n"
            "                lo, hi = w * size // workers, (w + 1) * size // workers\n"
            "                map_slice(lo, hi, aligned, *args)\n"
        ),
        "replace": (
            "            for w in range(workers):\n"
            "                lo, hi = w * size // workers, (w + 1) * size // workers\n"
            "                map_slice(lo, hi, aligned, *args)\n"
        ),
        "description": "the map kernel's slice loop with range, not prange: right "
        "numbers, one thread",
    },
    {
        "name": "fast-map-slices-drop-remainder",
        "task": "3.1",
        "file": "module3_fast_ops/fast_ops.py",
        "find": (
            "                lo, hi = w * size // workers, (w + 1) * size // workers\n"
            "                map_slice(lo, hi, aligned, *args)\n"
        ),
        "replace": (
            "                chunk = size // workers\n"
            "                lo, hi = w * chunk, (w + 1) * chunk\n"
            "                map_slice(lo, hi, aligned, *args)\n"
        ),
        "description": "map slices of size // workers entries each: when workers "
        "does not divide size, the last size % workers entries are never written",
    },
    {
        "name": "fast-reduce-from-zero",
        "task": "3.1",
        "file": "module3_fast_ops/fast_ops.py",
        "find": "            accumulated = out[target]\n",
        "replace": "            accumulated = 0.0\n",
        "description": "reduce that folds from 0.0, not from the start value in out "
        "(wrong for max of negatives, for product, for a start of 100)",
    },
    {
        "name": "fast-matmul-serial",
        "task": "3.2",
        "file": "module3_fast_ops/fast_matmul.py",
        "find": (
            "            for tile in prange(a_tiles):\n"
            "                pack_rows(tile, a_pack, a_storage, a_starts, n, "
            "*a_steps)\n"
            "            for tile in prange(b_tiles):\n"
            "                pack_rows(tile, b_pack, b_storage, b_starts, p, "
            "*b_steps)\n"
            "            for task in prange(tasks):\n"
        ),
        "replace": (
            "            for tile in range(a_tiles):\n"
            "                pack_rows(tile, a_pack, a_storage, a_starts, n, "
            "*a_steps)\n"
            "            for tile in range(b_tiles):\n"
            "                pack_rows(tile, b_pack, b_storage, b_starts, p, "
            "*b_steps)\n"
            "            for task in range(tasks):\n"
        ),
        "description": "the matmul kernel with range for prange: right numbers, "
        "one thread",
    },
    {
        "name": "fast-matmul-block-sums-not-reset",
        "task": "3.2",
        "file": "module3_fast_ops/fast_matmul.py",
        "find": (
            "                else:  # (rows past n: computed, not written)\n"
            "                    acc[:, :] = 0.0\n"
        ),
        "replace": "                else:  # (rows past n: computed, not written)\n",
        "description": "the row-sweep matmul reuses its block of running sums "
        "without zeroing it: each block adds onto the last one's sums",
    },
    {
        "name": "fast-matmul-panels-floor",
        "task": "3.2",
        "file": "module3_fast_ops/fast_matmul.py",
        "find": (
            "        tasks = (p_pad + PANEL - 1) // PANEL * count * (n_pad // BLOCK)\n"
        ),
        "replace": "        tasks = p_pad // PANEL * count * (n_pad // BLOCK)\n",
        "description": "the number of column panels by floor division: the columns "
        "past the last full panel are never computed",
    },
    {
        "name": "cuda-map-no-size-guard",
        "task": "3.3",
        "file": "module3_fast_ops/cuda_ops.py",
        "find": (
            "    def _map(out, size, same, packed, in_storage):\n"
            "        i = cuda.grid(1)\n"
            "        if i >= size:\n"
            "            return\n"
        ),
        "replace": (
            "    def _map(out, size, same, packed, in_storage):\n"
            "        i = cuda.grid(1)\n"
        ),
        "description": "a CUDA map without the i < size guard: the idle threads of "
        "the last block read and write past the end",
    },
    {
        "name": "cuda-reduce-no-tree-sync",
        "task": "3.3",
        "file": "module3_fast_ops/cuda_ops.py",
        "find": (
            "                partial[t] = f(partial[t], partial[t + half])\n"
            "            cuda.syncthreads()\n"
            "            half //= 2\n"
        ),
        "replace": (
            "                partial[t] = f(partial[t], partial[t + half])\n"
            "            half //= 2\n"
        ),
        "description": "a block reduce with no syncthreads between the tree's "
        "levels: a thread reads a partner's value before it is combined",
    },
    {
        "name": "cuda-reduce-from-zero",
        "task": "3.3",
        "file": "module3_fast_ops/cuda_ops.py",
        "find": "        value = start\n",
        "replace": "        value = 0.0\n",
        "description": "a CUDA reduce whose threads start from 0.0, not the start "
        "value it is given (max of negatives gives 0)",
    },
    {
        "name": "fast-matmul-shared-index-buffers",
        "task": "3.2",
        "file": "module3_fast_ops/fast_matmul.py",
        "find": "        count = kernel_size(out_shape) // (n * p)\n",
        "replace": (
            "        out_index = np.empty(d, np.int64)\n"
            "        a_index = np.empty(da, np.int64)\n"
            "        b_index = np.empty(db, np.int64)\n"
            "        for row in prange(kernel_size(out_shape) // p):\n"
            "            for j in range(p):\n"
            "                to_index(row * p + j, out_shape, out_index)\n"
            "                broadcast_index(\n"
            "                    out_index, out_shape, a_shape, a_index\n"
            "                )\n"
            "                broadcast_index(\n"
            "                    out_index, out_shape, b_shape, b_index\n"
            "                )\n"
            "                i = out_index[d - 2]\n"
            "                total = 0.0\n"
            "                for k in range(m):\n"
            "                    a_index[da - 2] = i\n"
            "                    a_index[da - 1] = k\n"
            "                    b_index[db - 2] = k\n"
            "                    b_index[db - 1] = j\n"
            "                    total += (\n"
            "                        a_storage[index_to_position(a_index, a_strides)]"
            "\n"
            "                        * b_storage[index_to_position(b_index, b_strides)]"
            "\n"
            "                    )\n"
            "                out[index_to_position(out_index, out_strides)] = total\n"
            "        return\n"
            "        count = kernel_size(out_shape) // (n * p)\n"
        ),
        "description": "a textbook matmul, parallel over rows of out, whose "
        "index buffers are allocated once, before the prange loop, and shared by "
        "all workers: right numbers on one thread, wrong entries at random on "
        "several",
    },
    {
        "name": "fast-epoch-without-zero-grad",
        "task": "3.5",
        "file": "project/run_fast_tensor.py",
        "find": "        optimizer.zero_grad()\n",
        "replace": "",
        "description": "the mini-batch loop without zero_grad: each step adds the "
        "gradients of the earlier batches",
    },
    {
        "name": "fast-epoch-zero-grad-once-per-epoch",
        "task": "3.5",
        "file": "project/run_fast_tensor.py",
        "find": (
            "    for start in range(0, len(order), batch):\n"
            "        idx = order[start : start + batch]\n"
            "        xb, yb = batch_tensors(X, y, idx, backend)\n"
            "        optimizer.zero_grad()\n"
        ),
        "replace": (
            "    optimizer.zero_grad()\n"
            "    for start in range(0, len(order), batch):\n"
            "        idx = order[start : start + batch]\n"
            "        xb, yb = batch_tensors(X, y, idx, backend)\n"
        ),
        "description": "zero_grad once per epoch, before the batch loop: with an "
        "optimizer that keeps gradients across a step (torch.optim's), each batch "
        "adds its gradient to the earlier batches'",
    },
    {
        "name": "fast-epoch-ignores-order",
        "task": "3.5",
        "file": "project/run_fast_tensor.py",
        "find": "        idx = order[start : start + batch]\n",
        "replace": "        idx = np.arange(start, min(start + batch, len(order)))\n",
        "description": "batches of consecutive points, not the shuffled order: "
        "every epoch sees the same batches",
    },
    {
        "name": "fast-epoch-drops-last-batch",
        "task": "3.5",
        "file": "project/run_fast_tensor.py",
        "find": "    for start in range(0, len(order), batch):\n",
        "replace": "    for start in range(0, len(order) - batch + 1, batch):\n",
        "description": "the mini-batch loop that skips the last, smaller batch",
    },
    {
        "name": "cuda-reduce-one-entry-per-thread",
        "task": "3.3",
        "file": "module3_fast_ops/cuda_ops.py",
        "find": (
            "        j = t\n"
            "        while j < length:\n"
            "            value = f(value, a_storage[first + j * step])\n"
            "            j += cuda.blockDim.x\n"
        ),
        "replace": (
            "        if t < length:\n"
            "            value = f(value, a_storage[first + t * step])\n"
        ),
        "description": "a CUDA reduce whose threads read one entry each: a "
        "dimension longer than the block loses every entry past the block size",
    },
    {
        "name": "sum-practice-no-tree-sync",
        "task": "3.3",
        "file": "module3_fast_ops/cuda_ops.py",
        "find": (
            "                cache[t] += cache[t + step]\n"
            "            cuda.syncthreads()\n"
            "            step *= 2\n"
        ),
        "replace": (
            "                cache[t] += cache[t + step]\n" "            step *= 2\n"
        ),
        "description": "the practice block sum with no syncthreads between the "
        "tree's levels: a thread adds a partner's value before it is complete",
    },
    {
        "name": "sum-practice-no-size-guard",
        "task": "3.3",
        "file": "module3_fast_ops/cuda_ops.py",
        "find": "        cache[t] = a[i] if i < size else 0.0\n",
        "replace": "        cache[t] = a[i]\n",
        "description": "the practice block sum reads a[i] for every thread: the last "
        "block's idle threads read past the end",
    },
    {
        "name": "cuda-matmul-no-second-sync",
        "task": "3.4",
        "file": "module3_fast_ops/cuda_ops.py",
        "find": (
            "                                acc[r, c] += a_value * b_row[c]\n"
            "                    cuda.syncthreads()\n"
        ),
        "replace": "                                acc[r, c] += a_value * b_row[c]\n",
        "description": "the tiled matmul without the syncthreads after the "
        "products: a fast thread loads the next tiles while others still read these",
    },
    {
        "name": "cuda-matmul-tiles-not-zeroed",
        "task": "3.4",
        "file": "module3_fast_ops/cuda_ops.py",
        "find": (
            "                            value = 0.0\n"
            "                            if i < n and k < m:\n"
            "                                value = a_storage[a_first + row"
            " * a_si + k * a_sk]\n"
            "                            a_tile[row // DOWN, row % DOWN, kk] = value\n"
            "                    for q in range(B_LOADS):\n"
            "                        e = t + q * THREADS\n"
            "                        if B_EVEN or e < B_ENTRIES:\n"
            "                            kk, col = e // TILE_COLS, e % TILE_COLS\n"
            "                            k, j = k0 + kk, j0 + col\n"
            "                            value = 0.0\n"
            "                            if k < m and j < p:\n"
            "                                value = b_storage[b_first + k"
            " * b_sk + col * b_sj]\n"
            "                            b_tile[kk, col // ACROSS, col % ACROSS]"
            " = value\n"
        ),
        "replace": (
            "                            if i < n and k < m:\n"
            "                                value = a_storage[a_first + row"
            " * a_si + k * a_sk]\n"
            "                                a_tile[row // DOWN, row % DOWN,"
            " kk] = value\n"
            "                    for q in range(B_LOADS):\n"
            "                        e = t + q * THREADS\n"
            "                        if B_EVEN or e < B_ENTRIES:\n"
            "                            kk, col = e // TILE_COLS, e % TILE_COLS\n"
            "                            k, j = k0 + kk, j0 + col\n"
            "                            if k < m and j < p:\n"
            "                                value = b_storage[b_first + k"
            " * b_sk + col * b_sj]\n"
            "                                b_tile[kk, col // ACROSS, col"
            " % ACROSS] = value\n"
        ),
        "description": "the tiled matmul loads its tiles only where they lie in a "
        "and b: past the end of k both tiles keep the last step's values, and "
        "their products are added in again",
    },
    {
        "name": "fast-epoch-loss-per-point",
        "task": "3.5",
        "file": "project/run_fast_tensor.py",
        "find": "    return total / max(batches, 1), correct\n",
        "replace": "    return total / max(len(order), 1), correct\n",
        "description": "the epoch's loss as the batch losses' sum over the number of "
        "points, not the mean batch loss: batch times too small",
    },
    {
        "name": "fast-map-aligned-by-shape-only",
        "task": "3.1",
        "file": "module3_fast_ops/fast_ops.py",
        "find": (
            "            and equal_arrays(out_shape, in_shape)\n"
            "            and equal_arrays(out_strides, in_strides)\n"
            "        )\n"
            "        args = (out, out_shape, out_strides, in_storage,"
            " in_shape, in_strides)\n"
        ),
        "replace": (
            "            and equal_arrays(out_shape, in_shape)\n"
            "        )\n"
            "        args = (out, out_shape, out_strides, in_storage,"
            " in_shape, in_strides)\n"
        ),
        "description": (
            "the map's aligned path chosen by shape alone: a "
            "transposed input of out's shape is read in storage "
            "order, entry i of out from storage position i"
        ),
    },
    {
        "name": "fast-zip-number-path-ignores-layout",
        "task": "3.1",
        "file": "module3_fast_ops/fast_ops.py",
        "find": "        elif a_like and len(b_storage) == 1:\n",
        "replace": "        elif len(b_storage) == 1:\n",
        "description": (
            "the zip's one-number path for b taken without checking "
            "a's layout: a transposed (or broadcast) a plus a number "
            "is read in storage order"
        ),
    },
    {
        "name": "fast-map-run-past-the-row",
        "task": "3.1",
        "file": "module3_fast_ops/fast_ops.py",
        "find": (
            "            run = min(last - (out_index[d - 1] if d > 0 "
            "else 0), hi - ordinal)\n"
            "            next_row(out_index, out_shape)\n"
            "            for j in range(run):\n"
        ),
        "replace": (
            "            run = hi - ordinal\n"
            "            next_row(out_index, out_shape)\n"
            "            for j in range(run):\n"
        ),
        "description": (
            "the map's run continues to the end of the slice, not the"
            " end of the row: past a row's end, constant steps leave "
            "the input's and out's layouts"
        ),
    },
    {
        "name": "fast-reduce-rows-path-without-stride-check",
        "task": "3.1",
        "file": "module3_fast_ops/fast_ops.py",
        "find": (
            "        if reduce_dim < d - 1 and out_strides[d - 1] == "
            "1 and a_strides[d - 1] == 1:\n"
        ),
        "replace": "        if reduce_dim < d - 1 and out_strides[d - 1] == 1:\n",
        "description": (
            "the reduce's run path taken without checking that a is "
            "contiguous along its last dim: a transposed input's runs"
            " are read as if they were"
        ),
    },
    {
        "name": "fast-matmul-dots-without-a-check",
        "task": "3.2",
        "file": "module3_fast_ops/fast_matmul.py",
        "find": (
            "        if small and a_strides[da - 1] == 1 and b_row =="
            " 1 and b_col != 1:\n"
        ),
        "replace": "        if small and b_row == 1 and b_col != 1:\n",
        "description": (
            "the matmul's dot-product path taken without checking "
            "that a's rows are contiguous: a transposed a times a "
            "transposed b reads a's columns as rows"
        ),
    },
    {
        "name": "fast-matmul-batch-starts-by-first-stride",
        "task": "3.2",
        "file": "module3_fast_ops/fast_matmul.py",
        "find": (
            "            broadcast_index(out_index, out_shape, shape,"
            " index)\n"
            "            starts[t] = index_to_position(index, strides)\n"
        ),
        "replace": "            starts[t] = t * strides[0]\n",
        "description": (
            "matrix t of a batch taken to start at t times the first "
            "stride: right for one batch dim of equal size, wrong for"
            " a broadcast operand or two batch dims"
        ),
    },
    {
        "name": "fast-matmul-pack-as-contiguous",
        "task": "3.2",
        "file": "module3_fast_ops/fast_matmul.py",
        "find": (
            "        if col_step == 1:  # rows contiguous in storage:" " plain copies\n"
        ),
        "replace": "        if True:  # rows contiguous in storage: plain copies\n",
        "description": (
            "the matmul packs every operand's rows as contiguous "
            "copies: a transposed operand of a large product is "
            "packed from the wrong entries"
        ),
    },
]
