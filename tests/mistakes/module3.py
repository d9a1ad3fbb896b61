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
]
