"""A parallel batched matrix multiply on the CPU with Numba (Task 3.2).

``tensor_matrix_multiply()`` returns the compiled kernel that ``FastOps`` (in
``fast_ops.py``) calls for ``a @ b``, with the interface of Module 2's kernels: flat
float64 storage, shapes and strides as int64 arrays. The compiled index helpers it
may call (:func:`to_index`, :func:`broadcast_index`, :func:`index_to_position`,
:func:`kernel_size`, :func:`workers_for`) are given, in ``kernel_indexing.py``.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from module2_tensors.tensor_data import Shape, Storage, Strides

from .kernel_indexing import MatMulKernel, broadcast_index, index_to_position
from .kernel_indexing import kernel_size, to_index, workers_for

__all__ = ["tensor_matrix_multiply"]

# ---------------------------------------------------------------------------
# Task 3.2: parallel batched matrix multiply
# ---------------------------------------------------------------------------


def tensor_matrix_multiply() -> MatMulKernel:
    """The parallel batched matrix-multiply kernel:

    $$\\mathrm{out}[\\dots, i, j] = \\sum_{k=0}^{m-1} a[\\dots, i, k]\\, b[\\dots, k,
    j]$$

    Returns ``_matmul(out, out_shape, out_strides, a_storage, a_shape, a_strides,
    b_storage, b_shape, b_strides)``, compiled with ``njit(parallel=True)``, with
    the semantics of Module 2's ``tensor_matrix_multiply``: ``a_shape = (..., n, m)``,
    ``b_shape = (..., m, p)``, ``out_shape = batch + (n, p)`` where the batch
    dimensions broadcast; any strides; ``out`` holds zeros on entry.

    Speed comes from the order of memory accesses, not from the arithmetic:

    - the textbook order ``for i, j: for k: a[i, k] * b[k, j]`` over strides reads
      ``b`` down a column, a new cache line per multiply;
    - the order ``i, k, j`` (for each ``a[i, k]``, sweep row ``k`` of ``b`` and
      row ``i`` of ``out``) reads and writes rows, which the compiler turns into
      vector instructions: a correct and reasonable solution;
    - faster still: copy (*pack*) each matrix of ``a`` row by row and each matrix
      of ``b`` column by column into contiguous buffers, so every dot product
      reads two contiguous rows, then compute ``out`` in small blocks whose running
      sums stay in CPU registers (each number loaded is used several times).

    Parallelise over independent pieces of ``out`` (batches, blocks of rows): no
    two workers may write the same entry.
    """

    # BEGIN SOLUTION 3.2: the batched matmul kernel (see the hints above)
    # Rows and columns of the block of out one step computes.
    BLOCK = 4
    # Multiply-adds up to which a product with contiguous rows of b skips the
    # packing (rows): the layers of a small network, where copying costs as much
    # as computing.
    SMALL_PRODUCT = 1 << 18
    # Columns of b (rows of the packed b^T) swept together while they sit in the
    # core's L2 cache (64 columns of 512 float64 numbers take 256 KiB).
    PANEL = 64

    @njit
    def batch_starts(
        count: int,
        rows: int,
        cols: int,
        out_shape: Shape,
        shape: Shape,
        strides: Strides,
    ) -> np.ndarray:
        # Position, in storage, of matrix t of the batch, for every t (broadcast).
        starts = np.empty(count, np.int64)
        if count == 1:  # one matrix: it starts where the storage starts
            starts[0] = 0
            return starts
        out_index = np.empty(len(out_shape), np.int64)
        index = np.empty(len(shape), np.int64)
        for t in range(count):
            # The first entry of matrix t: its two matrix indices are 0.
            to_index(t * rows * cols, out_shape, out_index)
            broadcast_index(out_index, out_shape, shape, index)
            starts[t] = index_to_position(index, strides)
        return starts

    @njit
    def pack_rows(
        tile: int,
        pack: np.ndarray,
        storage: Storage,
        starts: np.ndarray,
        rows: int,
        row_step: int,
        col_step: int,
    ) -> None:
        # Rows 8 * tile ... of the flattened (matrix t, row i) of pack, copied from
        # storage in 8 x 8 squares: whichever way storage runs contiguously, each
        # square reads and writes only 8 cache lines. Rows past `rows` (padding) are
        # left as they are: dots never reads them.
        padded, m = pack.shape[1], pack.shape[2]
        tiles = (padded + 7) // 8
        t, first = tile // tiles, tile % tiles * 8
        last = min(first + 8, rows)
        if col_step == 1:  # rows contiguous in storage: plain copies
            for i in range(first, last):
                start = starts[t] + i * row_step
                pack[t, i, :] = storage[start : start + m]
            return
        for k0 in range(0, m, 8):
            for i in range(first, last):
                row = pack[t, i]
                start = starts[t] + i * row_step
                for k in range(k0, min(k0 + 8, m)):
                    row[k] = storage[start + k * col_step]

    # reassoc lets the compiler reorder the sums over k into vector registers,
    # contract lets it fuse multiply-adds; no flag changes NaN or inf handling.
    @njit(fastmath={"reassoc", "contract", "nsz"})
    def rows(
        out: Storage,
        out_starts: np.ndarray,
        out_row: int,
        out_col: int,
        a_storage: Storage,
        a_starts: np.ndarray,
        a_row: int,
        a_col: int,
        b_storage: Storage,
        b_starts: np.ndarray,
        b_row: int,
        n: int,
        m: int,
        p: int,
    ) -> None:
        # Small products whose rows of b are contiguous: no packing. BLOCK rows of
        # out at a time, each the sum over k of a[i, k] times row k of b, read in
        # place; the sweep along a row is what becomes vector instructions.
        if p < BLOCK:
            # Too few columns for a sweep to pay (a matrix times a vector): BLOCK
            # dot products at once, summed in registers. A block's missing rows
            # (past n) read row n - 1 again, and are not written.
            for t in range(len(out_starts)):
                for i in range(0, n, BLOCK):
                    last = min(BLOCK, n - i)
                    r1, r2 = min(1, last - 1) * a_row, min(2, last - 1) * a_row
                    r3 = min(3, last - 1) * a_row
                    for j in range(p):
                        at, bt = a_starts[t] + i * a_row, b_starts[t] + j
                        s0 = s1 = s2 = s3 = 0.0
                        for _ in range(m):
                            y = b_storage[bt]
                            s0 += a_storage[at] * y
                            s1 += a_storage[at + r1] * y
                            s2 += a_storage[at + r2] * y
                            s3 += a_storage[at + r3] * y
                            at += a_col
                            bt += b_row
                        sums = (s0, s1, s2, s3)
                        base = out_starts[t] + i * out_row + j * out_col
                        for r in range(last):
                            out[base + r * out_row] = sums[r]
            return
        # Four steps of k at a time: each sweep then reads and writes the four
        # rows of the block once for 16 multiply-adds instead of 4 (the sweep is
        # bound by its stores). Measured on (10, 100) @ (100, 100) and (100, 10)
        # @ (10, 100), the Task 3.5 layer's products (2-core VM, one thread,
        # fastest of 15 x 2,000 calls): 7.6 -> 4.7 us and 9.8 -> 5.1 us.
        acc = np.empty((BLOCK, p))
        for t in range(len(out_starts)):
            for i in range(0, n, BLOCK):
                last = min(BLOCK, n - i)  # rows of this block
                direct = out_col == 1 and last == BLOCK
                if direct:  # out holds zeros: sum into its rows in place
                    o = out_starts[t] + i * out_row
                    o0, o1 = out[o : o + p], out[o + out_row : o + out_row + p]
                    o = o + 2 * out_row
                    o2, o3 = out[o : o + p], out[o + out_row : o + out_row + p]
                else:  # (rows past n: computed, not written)
                    acc[:, :] = 0.0
                    o0, o1, o2, o3 = acc[0], acc[1], acc[2], acc[3]
                # Rows past n read row n - 1 again.
                r0 = a_starts[t] + i * a_row
                r1 = r0 + min(1, last - 1) * a_row
                r2 = r0 + min(2, last - 1) * a_row
                r3 = r0 + min(3, last - 1) * a_row
                k = 0
                while k + 4 <= m:
                    c0 = k * a_col
                    c1, c2, c3 = c0 + a_col, c0 + 2 * a_col, c0 + 3 * a_col
                    x00, x01 = a_storage[r0 + c0], a_storage[r0 + c1]
                    x02, x03 = a_storage[r0 + c2], a_storage[r0 + c3]
                    x10, x11 = a_storage[r1 + c0], a_storage[r1 + c1]
                    x12, x13 = a_storage[r1 + c2], a_storage[r1 + c3]
                    x20, x21 = a_storage[r2 + c0], a_storage[r2 + c1]
                    x22, x23 = a_storage[r2 + c2], a_storage[r2 + c3]
                    x30, x31 = a_storage[r3 + c0], a_storage[r3 + c1]
                    x32, x33 = a_storage[r3 + c2], a_storage[r3 + c3]
                    s0 = b_starts[t] + k * b_row
                    s1, s2, s3 = s0 + b_row, s0 + 2 * b_row, s0 + 3 * b_row
                    w0, w1 = b_storage[s0 : s0 + p], b_storage[s1 : s1 + p]
                    w2, w3 = b_storage[s2 : s2 + p], b_storage[s3 : s3 + p]
                    for j in range(p):
                        y0, y1, y2, y3 = w0[j], w1[j], w2[j], w3[j]
                        o0[j] += x00 * y0 + x01 * y1 + x02 * y2 + x03 * y3
                        o1[j] += x10 * y0 + x11 * y1 + x12 * y2 + x13 * y3
                        o2[j] += x20 * y0 + x21 * y1 + x22 * y2 + x23 * y3
                        o3[j] += x30 * y0 + x31 * y1 + x32 * y2 + x33 * y3
                    k += 4
                for k in range(k, m):  # the last m % 4 steps, one at a time
                    x0, x1 = a_storage[r0 + k * a_col], a_storage[r1 + k * a_col]
                    x2, x3 = a_storage[r2 + k * a_col], a_storage[r3 + k * a_col]
                    s0 = b_starts[t] + k * b_row
                    w0 = b_storage[s0 : s0 + p]
                    for j in range(p):
                        y = w0[j]
                        o0[j] += x0 * y
                        o1[j] += x1 * y
                        o2[j] += x2 * y
                        o3[j] += x3 * y
                if direct:
                    continue
                for r in range(last):
                    base = out_starts[t] + (i + r) * out_row
                    if out_col == 1:
                        out[base : base + p] = acc[r]
                    else:
                        for j in range(p):
                            out[base + j * out_col] = acc[r, j]

    @njit(fastmath={"reassoc", "contract", "nsz"})
    def dots(
        out: Storage,
        out_starts: np.ndarray,
        out_row: int,
        out_col: int,
        a_storage: Storage,
        a_starts: np.ndarray,
        a_row: int,
        b_storage: Storage,
        b_starts: np.ndarray,
        b_col: int,
        n: int,
        m: int,
        p: int,
    ) -> None:
        # Products whose rows of a and columns of b are both contiguous runs of
        # storage: the packed a and b^T (see strip), or, read in place without
        # packing, a small product whose b is a transposed view (x @ w.T in a
        # backward pass; measured on (10, 100) @ (100, 100).T, 2-core VM, one
        # thread, fastest of 15 x 2,000 calls: 8.6 us packed, 4.8 us here).
        # Every entry of out is a dot product of two runs, summed in 4 x 4
        # blocks (16 running sums in registers: every number loaded is used 4
        # times). A block's rows past n (columns past p) read row n - 1 (column
        # p - 1) again and are not written.
        for t in range(len(out_starts)):
            for i in range(0, n, BLOCK):
                rows_here = min(BLOCK, n - i)
                r0 = a_starts[t] + i * a_row
                r1 = r0 + min(1, rows_here - 1) * a_row
                r2 = r0 + min(2, rows_here - 1) * a_row
                r3 = r0 + min(3, rows_here - 1) * a_row
                a0, a1 = a_storage[r0 : r0 + m], a_storage[r1 : r1 + m]
                a2, a3 = a_storage[r2 : r2 + m], a_storage[r3 : r3 + m]
                for j in range(0, p, BLOCK):
                    cols_here = min(BLOCK, p - j)
                    q0 = b_starts[t] + j * b_col
                    q1 = q0 + min(1, cols_here - 1) * b_col
                    q2 = q0 + min(2, cols_here - 1) * b_col
                    q3 = q0 + min(3, cols_here - 1) * b_col
                    b0, b1 = b_storage[q0 : q0 + m], b_storage[q1 : q1 + m]
                    b2, b3 = b_storage[q2 : q2 + m], b_storage[q3 : q3 + m]
                    c00 = c01 = c02 = c03 = c10 = c11 = c12 = c13 = 0.0
                    c20 = c21 = c22 = c23 = c30 = c31 = c32 = c33 = 0.0
                    for k in range(m):
                        x0, x1, x2, x3 = b0[k], b1[k], b2[k], b3[k]
                        y = a0[k]
                        c00 += y * x0
                        c01 += y * x1
                        c02 += y * x2
                        c03 += y * x3
                        y = a1[k]
                        c10 += y * x0
                        c11 += y * x1
                        c12 += y * x2
                        c13 += y * x3
                        y = a2[k]
                        c20 += y * x0
                        c21 += y * x1
                        c22 += y * x2
                        c23 += y * x3
                        y = a3[k]
                        c30 += y * x0
                        c31 += y * x1
                        c32 += y * x2
                        c33 += y * x3
                    block = (
                        (c00, c01, c02, c03),
                        (c10, c11, c12, c13),
                        (c20, c21, c22, c23),
                        (c30, c31, c32, c33),
                    )
                    for r in range(rows_here):
                        base = out_starts[t] + (i + r) * out_row + j * out_col
                        for c in range(cols_here):
                            out[base + c * out_col] = block[r][c]

    @njit
    def strip(
        task: int,
        out: Storage,
        out_starts: np.ndarray,
        out_row: int,
        out_col: int,
        n: int,
        p: int,
        a_pack: np.ndarray,
        b_pack: np.ndarray,
    ) -> None:
        # One task: BLOCK rows of out times one PANEL of columns, summed by dots
        # from the packed rows of a and of b^T, contiguous runs as dots reads
        # them. Tasks are ordered panel-major, so a worker sweeps one panel of
        # b^T (kept in cache) over many blocks of rows.
        count, n_pad, m = a_pack.shape
        row_blocks = n_pad // BLOCK
        j = task // (count * row_blocks) * PANEL
        t = task % (count * row_blocks) // row_blocks
        i = task % row_blocks * BLOCK
        # Where the block starts in out, in the packed a and in the packed b^T.
        s = np.empty(3, np.int64)
        s[0] = out_starts[t] + i * out_row + j * out_col
        s[1] = (t * n_pad + i) * m
        s[2] = (t * b_pack.shape[1] + j) * m
        a, b = a_pack.reshape(-1), b_pack.reshape(-1)
        rows, cols = min(BLOCK, n - i), min(PANEL, p - j)
        dots(out, s[:1], out_row, out_col, a, s[1:2], m, b, s[2:], m, rows, m, cols)

    def _matmul(
        out: Storage,
        out_shape: Shape,
        out_strides: Strides,
        a_storage: Storage,
        a_shape: Shape,
        a_strides: Strides,
        b_storage: Storage,
        b_shape: Shape,
        b_strides: Strides,
    ) -> None:
        d, da, db = len(out_shape), len(a_shape), len(b_shape)
        n, p, m = out_shape[d - 2], out_shape[d - 1], a_shape[da - 1]
        if n * p == 0:
            return
        count = kernel_size(out_shape) // (n * p)
        a_starts = batch_starts(count, n, p, out_shape, a_shape, a_strides)
        b_starts = batch_starts(count, n, p, out_shape, b_shape, b_strides)
        out_starts = batch_starts(count, n, p, out_shape, out_shape, out_strides)
        small = count * n * m * p <= SMALL_PRODUCT
        b_row, b_col = b_strides[db - 2], b_strides[db - 1]
        if small and a_strides[da - 1] == 1 and b_row == 1 and b_col != 1:
            dots(
                out,
                out_starts,
                out_strides[d - 2],
                out_strides[d - 1],
                a_storage,
                a_starts,
                a_strides[da - 2],
                b_storage,
                b_starts,
                b_col,
                n,
                m,
                p,
            )
            return
        if small and b_col == 1:
            rows(
                out,
                out_starts,
                out_strides[d - 2],
                out_strides[d - 1],
                a_storage,
                a_starts,
                a_strides[da - 2],
                a_strides[da - 1],
                b_storage,
                b_starts,
                b_row,
                n,
                m,
                p,
            )
            return
        # Pack: each matrix of a row by row, each matrix of b column by column
        # (rows of b^T), padded with rows left unset to a multiple of BLOCK (which
        # dots never reads: it reads the last row again for a block's missing rows).
        n_pad = (n + BLOCK - 1) // BLOCK * BLOCK
        p_pad = (p + BLOCK - 1) // BLOCK * BLOCK
        a_pack = np.empty((count, n_pad, m))
        b_pack = np.empty((count, p_pad, m))
        a_steps = (a_strides[da - 2], a_strides[da - 1])
        b_steps = (b_strides[db - 1], b_strides[db - 2])  # b^T: swapped
        out_steps = (out_strides[d - 2], out_strides[d - 1])
        a_tiles = count * ((n_pad + 7) // 8)
        b_tiles = count * ((p_pad + 7) // 8)
        tasks = (p_pad + PANEL - 1) // PANEL * count * (n_pad // BLOCK)
        # A multiply-add from cache is ~8 times cheaper than a strided entry.
        if workers_for(count * n * m * p // 8) == 1:
            for tile in range(a_tiles):
                pack_rows(tile, a_pack, a_storage, a_starts, n, *a_steps)
            for tile in range(b_tiles):
                pack_rows(tile, b_pack, b_storage, b_starts, p, *b_steps)
            for task in range(tasks):
                strip(task, out, out_starts, *out_steps, n, p, a_pack, b_pack)
        else:
            for tile in prange(a_tiles):
                pack_rows(tile, a_pack, a_storage, a_starts, n, *a_steps)
            for tile in prange(b_tiles):
                pack_rows(tile, b_pack, b_storage, b_starts, p, *b_steps)
            for task in prange(tasks):
                strip(task, out, out_starts, *out_steps, n, p, a_pack, b_pack)

    return njit(parallel=True)(_matmul)
    # END SOLUTION
