"""Given device functions of Tasks 3.3-3.4's kernels: where a GPU thread's entries
lie in strided storages, computed by arithmetic, and how many blocks cover a size.

Module 2 goes ordinal -> index (an array) -> position. A GPU thread keeps such an
index array in slow per-thread *local* memory (a stack frame), and it costs many
registers. These functions write the entry number in the mixed radix of ``out``'s
shape once, digit by digit from the last dimension, and move every tensor's
position by its stride for that digit, so nothing is stored. They read the packed
shapes and strides of ``_cuda_runtime.layout``: ``[d, out_shape (d), out_strides
(d), strides of input 1 (d), ...]``, each input's strides as ``out`` sees them
(0 where it broadcasts).
"""

from ._cuda_runtime import cuda

__all__ = ["two_positions", "three_positions", "blocks_for"]


@cuda.jit(device=True)
def two_positions(ordinal, packed):  # type: ignore
    """``(position in out, position in the input)`` of entry number ``ordinal`` of
    ``out`` (row-major), from a ``layout`` of ``out`` and one input:
    ``ordinal`` is written in the mixed radix ``out_shape`` ONCE, digit by digit
    from the last dimension, and each digit (an index) moves both positions by its
    stride. A broadcast input has stride 0 there, so it reads index 0."""
    d = packed[0]
    out_position = in_position = 0
    for k in range(d, 0, -1):  # packed[k] is the size of dimension k - 1
        index = ordinal % packed[k]
        ordinal //= packed[k]
        out_position += index * packed[d + k]
        in_position += index * packed[2 * d + k]
    return out_position, in_position


@cuda.jit(device=True)
def three_positions(ordinal, packed):  # type: ignore
    """``(position in out, in a, in b)`` of entry number ``ordinal`` of ``out``,
    from a ``layout`` of ``out`` and two inputs: as :func:`two_positions`, one
    decomposition of ``ordinal`` shared by the three tensors."""
    d = packed[0]
    out_position = a_position = b_position = 0
    for k in range(d, 0, -1):
        index = ordinal % packed[k]
        ordinal //= packed[k]
        out_position += index * packed[d + k]
        a_position += index * packed[2 * d + k]
        b_position += index * packed[3 * d + k]
    return out_position, a_position, b_position


def blocks_for(size: int, threads: int) -> int:
    """The number of blocks of ``threads`` threads that cover ``size`` entries:
    $\\lceil \\mathrm{size} / \\mathrm{threads} \\rceil$."""
    return (size + threads - 1) // threads
