"""The CUDA kernels as the resource checks compile them (private: students never
edit or need to read this file).

A GPU runs only what Numba's CUDA target compiles, within its registers and shared
memory; the simulator runs any Python. ``kindling kernels`` and
``tests/module3/test_cuda_resources.py`` therefore compile every kernel and scalar
function for a GPU (PTX and ``ptxas``), from what this module lists:
:func:`kernel_specs` (Tasks 3.3-3.4's kernels, with the argument types and block
size they are launched with; Module 4's given kernels list theirs through
:func:`given_kernels`) and :func:`device_functions`.
"""

from typing import Any, Callable, Dict, List, NamedTuple, Tuple

import numba

from ._cuda_cache import persist
from ._cuda_runtime import compiled, kernel_in

#: The Numba types of kernel arguments: float64 and int64 arrays, an int, a bool.
f64, i64, count, flag = numba.float64[::1], numba.int64[::1], numba.int64, numba.boolean


class KernelSpec(NamedTuple):
    """One CUDA kernel as it is launched, for the resource check
    (``tests/module3/test_cuda_resources.py``) and ``kindling kernels``.

    ``build()`` returns the ``@cuda.jit`` kernel (building it may raise the
    ``NotImplementedError`` of an unfinished task); ``argtypes`` are the Numba types
    of its arguments; ``threads`` is the number of threads per block it is launched
    with."""

    name: str
    task: str
    build: Callable[[], Any]
    argtypes: Tuple[Any, ...]
    threads: int


def given_kernels(
    task: str, threads: int, kernels: Dict[str, Tuple[Any, Tuple[Any, ...]]]
) -> List[KernelSpec]:
    """Module 4's given ``kernels`` of ``task``, ``{name: (kernel, argument types)}``,
    launched with ``threads`` per block, as :class:`KernelSpec` rows; on a GPU each
    kernel's compiled code is kept on disk under its name (``_cuda_cache.persist``,
    before its first launch: call this where the kernels are defined)."""
    specs = []
    for name, (kernel, types) in kernels.items():
        persist(kernel, name)
        specs.append(KernelSpec(name, task, lambda k=kernel: k, types, threads))
    return specs


def device_functions() -> List[Tuple[str, Callable[..., float], int]]:
    """Every scalar function that CUDA kernels compile in, as ``(name, function,
    arity)``: those a ``TensorBackend`` hands to ``map``, ``zip`` and ``reduce``
    (Task 0.1's operators among them) and Module 2's given scalar functions for
    ``unary_map`` (``erf``, ``floor``, ..., in ``engine/elementwise.py``; ``sin``,
    ``cos``, ``sqrt``, ... in ``ieee.py``). The simulator
    runs any Python; a GPU runs only what Numba's CUDA target compiles, so
    ``kindling kernels`` compiles each of these for a GPU too."""
    import inspect

    from module2_tensors import ieee, tensor_functions
    from module2_tensors.engine import elementwise
    from module2_tensors._backend import TensorBackend

    found: Dict[Any, Tuple[str, Callable[..., float], int]] = {}

    def note(fn: Callable[..., float], *start: float) -> None:
        found.setdefault(fn, (fn.__name__, fn, len(inspect.signature(fn).parameters)))

    class _Recording:
        """An ops class that only notes the functions it is given."""

        map = zip = reduce = staticmethod(note)
        matrix_multiply = None

    TensorBackend(_Recording)  # type: ignore[arg-type]
    for module in (tensor_functions, elementwise, ieee):
        for name, fn in vars(module).items():
            if inspect.isfunction(fn) and fn.__module__ == module.__name__:
                parameters = inspect.signature(fn).parameters.values()
                if parameters and all(p.annotation == "float" for p in parameters):
                    found.setdefault(fn, (name, fn, len(parameters)))
    return list(found.values())


def kernel_specs(kernels: Any) -> List[KernelSpec]:
    """Every kernel of ``kernels`` (the module ``cuda_ops``, passed by the
    caller: a private module imports no student file) with the argument types
    and block size it is launched with (the scalar functions are representative
    ones: each compiles to its own kernel)."""
    from module0_fundamentals import operators

    k, threads = kernels, kernels.THREADS_PER_BLOCK
    # The matmul's block: one thread per WORK_ROWS x WORK_COLS group of its tile.
    matmul_threads = (k.TILE_ROWS // k.WORK_ROWS) * (k.TILE_COLS // k.WORK_COLS)

    # out, size, same, the packed layout (one int64 array for every shape and
    # stride), then the inputs' storages
    elementwise = (f64, count, flag, i64)
    reduce_args = (f64, i64, f64, count, count, numba.float64)
    matmul_args = (f64, i64, f64, f64, count, count)
    tile = k.PRACTICE_TILE * k.PRACTICE_TILE
    specs = [
        ("map(sigmoid)", "3.3", k.tensor_map, operators.sigmoid, (*elementwise, f64)),
        ("zip(mul)", "3.3", k.tensor_zip, operators.mul, (*elementwise, f64, f64)),
        ("reduce(add)", "3.3", k.tensor_reduce, operators.add, reduce_args),
        ("sum_practice", "3.3", k.sum_practice_kernel, None, (f64, f64, count)),
        ("mm_practice", "3.4", k.mm_practice_kernel, None, (f64, f64, f64, count)),
        ("matmul", "3.4", k.tensor_matrix_multiply, None, matmul_args),
    ]
    blocks = (threads, threads, threads, k.PRACTICE_THREADS, tile, matmul_threads)
    # kernel_in gives back a factory's result that is the kernel itself.
    return [
        KernelSpec(name, task, lambda f=f, fn=fn: kernel_in(compiled(f, fn)), args, n)
        for (name, task, f, fn, args), n in zip(specs, blocks)
    ]
