"""Kernel dispatch for ``FastOps`` (private: students never edit or need to read
this file).

``fast_ops.py`` holds the kernel factories a student writes (``tensor_map``,
``tensor_zip``, ``tensor_reduce``, ``tensor_matrix_multiply``). This module turns
them into a backend's ops class, behind one interface, :class:`NumbaOps`: a
subclass names its four factories and gets Module 2's ``TensorOps`` methods, which

* build each kernel at its first call (a stubbed task fails where it is used, not
  at import), once per process (:func:`compiled`), kept on disk for the next
  processes (``kernel_cache.persist``);
* announce the kernels a run may compile (``compile_progress.expect``: the compile
  notice's "n of m", and the compile helpers that compile the others in other
  processes while this one works);
* allocate outputs with ``TensorData``'s cached layouts (through the plain
  functions of ``module2_tensors/engine/layout.py``: a class method call costs
  more) and call the kernel on the raw storage, shape and strides, with no other
  Python in between;
* choose the matmul kernel: for small products while the parallel kernel is
  neither compiled nor cached, its serial twin (:func:`serial_twin`), which
  compiles in a fraction of the time.
"""

from __future__ import annotations

import functools
import math
import types
from typing import Any, Callable, Dict, Optional, Tuple

from numba import int64, jit, typeof

from module2_tensors._backend import SHAPE_PAIRS, matmul_shape
from module2_tensors.engine.autograd import _new
from module2_tensors.engine.layout import empty_data, full_data
from module2_tensors.tensor_data import TensorData, shape_broadcast
from module2_tensors.tensor_ops import MapFn, ReduceFn, TensorOps, ZipFn

from . import compile_progress, kernel_cache
from .kernel_indexing import MIN_PARALLEL_WORK

_COMPILED: Dict[Tuple[Callable[..., Any], Any], Any] = {}


def kernel_label(
    factory: Callable[..., Any], fn: Optional[Callable[..., float]] = None
) -> str:
    """A short name for the kernel ``factory(fn)``, as the compile notice shows it:
    ``map(exp)``, ``zip(add)``, ``matrix_multiply``."""
    name = factory.__name__.replace("tensor_", "")
    return name if fn is None else f"{name}({getattr(fn, '__name__', fn)})"


def compiled(
    factory: Callable[..., Any],
    fn: Optional[Callable[..., float]] = None,
    persist: Callable[[Any, str], Any] = kernel_cache.persist,
) -> Any:
    """The kernel ``factory(fn)`` (``factory()`` without ``fn``), built once per
    process: every backend and test asking for the same kernel shares one Numba
    compilation, and its machine code is kept on disk for the next processes
    (``persist``, by default :func:`module3_fast_ops.kernel_cache.persist`: the
    cache key hashes the sources the kernel is built from, so editing any of them
    recompiles it; the CUDA backend passes its own)."""
    key = (factory, fn)
    if key not in _COMPILED:
        kernel = factory() if fn is None else factory(fn)
        _COMPILED[key] = persist(kernel, kernel_label(factory, fn))
    return _COMPILED[key]


def _layout(*shape: int) -> tuple:
    """Zeros of ``shape``: storage, and int64 shape and contiguous strides as
    every call passes them (``TensorData``'s kernel arrays)."""
    data = TensorData.full(tuple(shape))
    return data._storage, data._kernel_shape, data._kernel_strides


#: For each kind of kernel, a call on small arrays of the types every call has
#: (float64 storage, int64 shapes and strides): it compiles the kernel.
_WARM: Dict[str, Callable[[Any], None]] = {
    "map": lambda k: k(*_layout(2, 3), *_layout(2, 3)),
    "zip": lambda k: k(*_layout(2, 3), *_layout(2, 3), *_layout(2, 3)),
    "reduce": lambda k: k(*_layout(2, 1), *_layout(2, 3), 1),
    "matrix_multiply": lambda k: k(*_layout(2, 2), *_layout(2, 3), *_layout(3, 2)),
}


def _expect(
    kind: str,
    factory: Callable[..., Any],
    fn: Optional[Callable[..., float]],
    module: str,
) -> Callable[[], Tuple[Any, Any]]:
    """Count ``factory(fn)`` among the kernels this run may compile (for the
    compile notice's "n of m", and for the compile helpers that compile them in
    other processes, importing ``module``); nothing is built now. Returns what
    builds it: a function of no arguments that returns the kernel (once per
    process, :func:`compiled`) and its :func:`entry_point`."""
    build = functools.partial(compiled, factory, fn)
    compile_progress.expect(kernel_label(factory, fn), build, _WARM[kind], module)
    return lambda: (build(), entry_point(build(), kind))


def entry_point(kernel: Any, kind: str) -> Any:
    """``kernel`` compiled for the arguments of every call from the wrappers below
    whose storages own their memory (float64 storages and int64 shapes and
    strides, all 1-D, C-contiguous, aligned: a NumPy array whose ``base`` is
    ``None``), as its machine code's entry point; else ``kernel`` itself.

    A speed trick: Numba's dispatcher types every argument of every call to
    choose a compiled version (0.1-0.15 us of a 0.5-0.7 us call, nine arrays
    for a zip); the wrappers skip that where the storages own their memory, the
    version chosen then being known. Measured on the Task 3.5 epoch, alternating
    the two in one process: 1.6% (fastest epoch) to 3.3% (median)
    (module3_fast_ops/BENCHMARKS.md, "Less Python per result").
    tests/module3/test_fast_ops.py checks the results of both paths and that a
    storage that does not own its memory goes through the dispatcher."""
    _WARM[kind](kernel)  # compiles the kernel for those types, if not yet
    owned = (typeof(_layout(1)[0]), typeof(_layout(1)[1]), int64)
    overloads = getattr(kernel, "overloads", {})  # (none: NUMBA_DISABLE_JIT=1)
    found = [r for s, r in overloads.items() if all(t in owned for t in s)]
    return found[0].entry_point if found else kernel


#: :func:`shape_broadcast`, the shapes met so far remembered (errors are not).
_broadcast = functools.lru_cache(maxsize=SHAPE_PAIRS)(shape_broadcast)


@functools.lru_cache(maxsize=SHAPE_PAIRS)
def _product(a: Tuple[int, ...], b: Tuple[int, ...]) -> Tuple[Tuple[int, ...], bool]:
    """``(matmul_shape(a, b), large)``: the product's shape, and whether its work
    in multiply-adds / 8 reaches ``MIN_PARALLEL_WORK`` (what
    :meth:`NumbaOps._choose_matmul` decides by), both remembered per shape pair."""
    shape = matmul_shape(a, b)
    return shape, math.prod(shape) * (a[-1] if a else 1) // 8 >= MIN_PARALLEL_WORK


def serial_twin(kernel: Any, label: str) -> Any:
    """The same kernel compiled without ``parallel=True`` (``prange`` is then
    ``range``), under its own name, kept by the disk cache like the original.

    Compiling Numba's parallel loops is most of a kernel's compile time, and a
    kernel whose work is below ``MIN_PARALLEL_WORK`` never runs them (its
    ``workers_for`` is 1). The parallel matmul takes several seconds more to
    compile than this twin, so a run that only ever multiplies small matrices (the
    Task 3.5 training) compiles the twin alone."""
    py_func = kernel.py_func
    twin = types.FunctionType(
        py_func.__code__,
        py_func.__globals__,
        argdefs=py_func.__defaults__,
        closure=py_func.__closure__,
    )
    twin.__qualname__ = py_func.__qualname__ + "_serial"
    options = dict(kernel.targetoptions, parallel=False)  # (nopython=True among them)
    return kernel_cache.persist(jit(**options)(twin), label)


class NumbaOps(TensorOps):
    """Module 2's ``TensorOps`` on compiled kernels. A subclass names its kernel
    factories (class attributes ``map_kernel``, ``zip_kernel``, ``reduce_kernel``,
    ``matmul_kernel``, plain functions); the four ops below build and call the
    kernels.

    The wrappers that ``map``, ``zip`` and ``reduce`` return run once per tensor
    operation, so they reach into the TensorData (``_tensor``: storage and the
    int64 shape and strides arrays) directly, and allocate outputs with
    ``TensorData``'s cached layouts."""

    map_kernel: Callable[..., Any]
    zip_kernel: Callable[..., Any]
    reduce_kernel: Callable[..., Any]
    matmul_kernel: Callable[..., Any]
    #: The matmul kernel chosen for small (False) and large (True) work, and its
    #: :func:`entry_point`.
    _matmul: Dict[bool, Tuple[Any, Any]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._matmul = {}  # (each backend chooses its own)
        _expect("matrix_multiply", cls.matmul_kernel, None, cls.__module__)

    @classmethod
    def map(cls, fn: Callable[[float], float]) -> MapFn:
        """See ``TensorOps.map``."""
        build = _expect("map", cls.map_kernel, fn, cls.__module__)
        kernel = direct = None

        def apply(a: Any, out: Optional[Any] = None) -> Any:
            nonlocal kernel, direct
            if out is None:  # (the kernel writes every entry: no need to zero)
                out = _new(a, empty_data(TensorData, a._tensor.shape))
            if kernel is None:
                kernel, direct = build()
            o, x = out._tensor, a._tensor
            (direct if o._storage.base is None is x._storage.base else kernel)(
                o._storage,
                o._kernel_shape,
                o._kernel_strides,
                x._storage,
                x._kernel_shape,
                x._kernel_strides,
            )
            return out

        return apply

    @classmethod
    def zip(cls, fn: Callable[[float, float], float]) -> ZipFn:
        """See ``TensorOps.zip``."""
        build = _expect("zip", cls.zip_kernel, fn, cls.__module__)
        kernel = direct = None

        def apply(a: Any, b: Any) -> Any:
            nonlocal kernel, direct
            x, y = a._tensor, b._tensor
            shape = x.shape
            if shape != y.shape:
                shape = _broadcast(shape, y.shape)
            o = empty_data(TensorData, shape)
            if kernel is None:
                kernel, direct = build()
            (direct if x._storage.base is None is y._storage.base else kernel)(
                o._storage,
                o._kernel_shape,
                o._kernel_strides,
                x._storage,
                x._kernel_shape,
                x._kernel_strides,
                y._storage,
                y._kernel_shape,
                y._kernel_strides,
            )
            return _new(a, o)

        return apply

    @classmethod
    def reduce(
        cls, fn: Callable[[float, float], float], start: float = 0.0
    ) -> ReduceFn:
        """See ``TensorOps.reduce``."""
        build = _expect("reduce", cls.reduce_kernel, fn, cls.__module__)
        kernel = direct = None
        # A start of +0.0 (a sum's) as np.zeros: 0.15-0.25 us less than filling
        # an empty array, for 10 to 1,000 entries (2-core VM).
        fill = None if start == 0.0 and math.copysign(1.0, start) > 0 else start

        def apply(a: Any, dim: int) -> Any:
            nonlocal kernel, direct
            x = a._tensor
            shape = list(x.shape)
            shape[dim] = 1
            o = full_data(TensorData, tuple(shape), fill)
            if kernel is None:
                kernel, direct = build()
            (direct if x._storage.base is None else kernel)(
                o._storage,
                o._kernel_shape,
                o._kernel_strides,
                x._storage,
                x._kernel_shape,
                x._kernel_strides,
                dim,
            )
            return _new(a, o)

        return apply

    @classmethod
    def matrix_multiply(cls, a: Any, b: Any) -> Any:
        """See ``TensorOps.matrix_multiply``."""
        x, y = a._tensor, b._tensor
        shape, large = _product(x.shape, y.shape)
        o = full_data(TensorData, shape)
        kernel, direct = cls._matmul.get(large) or cls._choose_matmul(large)
        (direct if x._storage.base is None is y._storage.base else kernel)(
            o._storage,
            o._kernel_shape,
            o._kernel_strides,
            x._storage,
            x._kernel_shape,
            x._kernel_strides,
            y._storage,
            y._kernel_shape,
            y._kernel_strides,
        )
        return _new(a, o)

    @classmethod
    def _choose_matmul(cls, large: bool) -> Any:
        """The matmul kernel for large work (``MIN_PARALLEL_WORK`` multiply-adds
        /8 or more: :func:`_product`) or small, chosen once per process for each
        kind of work: the parallel one, or, for small work (run on one thread)
        while the parallel one is neither compiled in this process nor in the disk
        cache, its :func:`serial_twin`. (Large work makes the parallel one the
        choice for both.)"""
        kernel = parallel = compiled(cls.matmul_kernel)
        cached = getattr(getattr(parallel, "_cache", None), "is_cached", bool)
        # Unless compiled, on disk, or about to be compiled for large work:
        if not (large or getattr(parallel, "signatures", True) or cached()):
            label = kernel_label(cls.matmul_kernel) + " (serial)"
            kernel = serial_twin(parallel, label)
        chosen = cls._matmul[False] = (kernel, entry_point(kernel, "matrix_multiply"))
        if kernel is parallel:
            cls._matmul[True] = chosen
        return chosen
