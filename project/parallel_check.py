"""Print Numba's parallel diagnostics for the FastOps kernels (Tasks 3.1 and 3.2).

    python project/parallel_check.py                 # every kernel, level 1
    python project/parallel_check.py --kernel map --level 3

Compiles each kernel by running it once on small arrays, then asks Numba what it
did with the ``prange`` loops (``dispatcher.parallel_diagnostics(level=...)``):

- *Parallel loop listing*: your source, with each loop Numba runs in parallel
  marked ``#0``, ``#1``, ... If a ``prange`` loop is missing there, Numba fell
  back to a serial loop (a ``return`` or ``raise`` inside it, for example).
- *Fusing loops*: neighbouring parallel loops merged into one.
- *Loop invariant code motion*: work moved out of the loops, notably
  *allocation hoisting* (an ``np.empty`` done once per worker, not per entry).

Levels 1-4 give more and more detail. A summary line per kernel says how many
parallel loops Numba kept.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable, Dict, Optional, Sequence, Tuple

import numpy as np

if __package__ in (None, ""):  # run as a script: make the library importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from module0_fundamentals import operators  # noqa: E402
from module3_fast_ops import _dispatch, fast_matmul, fast_ops  # noqa: E402
from project.script_tools import make_parser  # noqa: E402

Layout = Tuple[np.ndarray, np.ndarray, np.ndarray]


def layout(shape: Tuple[int, ...], order: Optional[Tuple[int, ...]] = None) -> Layout:
    """``(storage, shape, strides)`` of a tensor of ``shape`` holding 0, 1, 2, ...,
    stored with its dimensions in ``order`` (default: contiguous)."""
    order = order or tuple(range(len(shape)))
    stored = tuple(shape[k] for k in order)
    step, stored_strides = 1, [0] * len(shape)
    for k in reversed(range(len(stored))):
        stored_strides[k] = step
        step *= stored[k]
    strides = [0] * len(shape)
    for position, k in enumerate(order):
        strides[k] = stored_strides[position]
    size = int(np.prod(shape))
    return (
        np.arange(size, dtype=np.float64),
        np.array(shape, dtype=np.int64),
        np.array(strides, dtype=np.int64),
    )


def _run(kernel: Any, *args: Any) -> Any:
    kernel(*args)
    return kernel


#: name -> builds the kernel and runs it once (so that Numba compiles it).
KERNELS: Dict[str, Callable[[], Any]] = {
    "map": lambda: _run(
        _dispatch.compiled(fast_ops.tensor_map, operators.neg),
        *layout((4, 5)),
        *layout((4, 5), (1, 0)),
    ),
    "zip": lambda: _run(
        _dispatch.compiled(fast_ops.tensor_zip, operators.add),
        *layout((4, 5)),
        *layout((4, 5), (1, 0)),
        *layout((5,)),
    ),
    "reduce": lambda: _run(
        _dispatch.compiled(fast_ops.tensor_reduce, operators.add),
        *layout((4, 1)),
        *layout((4, 5)),
        1,
    ),
    "matmul": lambda: _run(
        _dispatch.compiled(fast_matmul.tensor_matrix_multiply),
        *layout((2, 4, 3)),
        *layout((2, 4, 5)),
        *layout((5, 3)),
    ),
}


def parallel_loops(kernel: Any) -> int:
    """How many parallel loops Numba kept in the compiled ``kernel``."""
    counts = [0]
    for compiled in kernel.overloads.values():
        diagnostics = compiled.metadata.get("parfor_diagnostics")
        if diagnostics is not None:
            counts.append(len(diagnostics.initial_parfors))
    return max(counts)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = make_parser(__doc__)
    parser.add_argument(
        "--kernel",
        choices=sorted(KERNELS),
        action="append",
        help="a kernel to check (repeat for several; default: all)",
    )
    parser.add_argument(
        "--level",
        type=int,
        default=1,
        choices=(1, 2, 3, 4),
        help="detail of Numba's diagnostics",
    )
    args = parser.parse_args(argv)
    for name in args.kernel or list(KERNELS):
        print(f"\n######## {name} ########")
        kernel = KERNELS[name]()
        kernel.parallel_diagnostics(level=args.level)
        print(f"==> {name}: {parallel_loops(kernel)} parallel loop(s) kept by Numba")
    return 0


if __name__ == "__main__":
    sys.exit(main())
