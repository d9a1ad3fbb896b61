"""Tensor backends: ``map``, ``zip``, ``reduce`` and ``matrix_multiply`` over strided
storage (Task 2.3), and ``TensorBackend``, which specialises them once per backend.

Every tensor operation of the course is one of four patterns:

- **map** $\\mathrm{out}[i] = f(\\mathrm{in}[i])$, e.g. ``neg``, ``exp``, ``relu``;
- **zip** $\\mathrm{out}[i] = f(a[i], b[i])$ with broadcasting, e.g. ``add``, ``mul``;
- **reduce** $\\mathrm{out}[\\dots, 0, \\dots] = f(\\dots f(f(s, a_0), a_1) \\dots)$
  along one dimension, e.g. ``sum``, ``max``;
- **matrix multiply** $\\mathrm{out}[\\dots, i, j] = \\sum_k a[\\dots, i, k]\\,
  b[\\dots, k, j]$ over broadcast batch dimensions.

The low-level *kernels* (:func:`tensor_map`, :func:`tensor_zip`, :func:`tensor_reduce`,
:func:`tensor_matrix_multiply`) see only raw storage, shapes and strides, so the same
loops work for contiguous tensors, permuted views and broadcast inputs. An *ops class*
(:class:`SimpleOps` here; ``FastOps`` and ``CudaOps`` in Module 3) wraps them into
functions of tensors that allocate the output. ``TensorBackend(ops)`` (given, in
``_backend.py``) builds, from an ops class, the specialised functions the
``Tensor`` uses, once per backend so that a compiling backend compiles each kernel
once: ``neg_map``, ``sigmoid_map``, ``relu_map``, ``log_map``, ``exp_map``,
``id_map``, ``inv_map``, ... (``(a, out=None) -> Tensor``); ``add_zip``,
``mul_zip``, ``lt_zip``, ``eq_zip``, ``is_close_zip``, ``relu_back_zip``,
``log_back_zip``, ``inv_back_zip``, ... (``(a, b) -> Tensor``); ``add_reduce``,
``max_reduce`` (``(a, dim) -> Tensor``); and ``matrix_multiply``.
:func:`matmul_shape` gives the shape of ``a @ b``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Optional

import numpy as np

from .tensor_data import (
    Shape,
    Storage,
    Strides,
    broadcast_index,
    index_to_position,
    shape_broadcast,
    to_index,
)

# Given: TensorBackend (below) and matmul_shape live in _backend.py; the scalar
# functions of the numeric policy (IEEE arithmetic, as PyTorch) in ieee.py.
from ._backend import TensorBackend, matmul_shape

if TYPE_CHECKING:
    from .tensor import Tensor

__all__ = [
    "MapFn",
    "ZipFn",
    "ReduceFn",
    "tensor_map",
    "tensor_zip",
    "tensor_reduce",
    "tensor_matrix_multiply",
    "TensorOps",
    "SimpleOps",
    "SimpleBackend",
]

MapFn = Callable[["Tensor", Optional["Tensor"]], "Tensor"]
ZipFn = Callable[["Tensor", "Tensor"], "Tensor"]
ReduceFn = Callable[["Tensor", int], "Tensor"]


def _size(shape: Shape) -> int:
    """The number of entries of ``shape``: $\\prod_k \\mathrm{shape}_k$."""
    return int(np.prod(shape))


# ---------------------------------------------------------------------------
# Task 2.3: the kernels (pure Python loops over strided storage)
# ---------------------------------------------------------------------------


def tensor_map(
    fn: Callable[[float], float],
) -> Callable[[Storage, Shape, Strides, Storage, Shape, Strides], None]:
    """The map kernel for ``fn``: $\\mathrm{out}[i] = fn(\\mathrm{in}[i])$.

    The returned function ``_map(out, out_shape, out_strides, in_storage, in_shape,
    in_strides)`` fills ``out`` (a storage) in place. ``in_shape`` may be smaller
    than ``out_shape`` but must broadcast to it: every entry of ``out`` reads the
    input entry that :func:`broadcast_index` maps it to. Either side may have any
    strides (a permuted view, an expanded view, a slice).

    Hints: loop over the ``ordinal`` of every entry of ``out``; turn it into an
    index with :func:`to_index`, map that index into the input with
    :func:`broadcast_index`, and turn both indices into storage positions with
    :func:`index_to_position`. Allocate the two index buffers (int64 arrays) once,
    before the loop.
    """

    def _map(
        out: Storage,
        out_shape: Shape,
        out_strides: Strides,
        in_storage: Storage,
        in_shape: Shape,
        in_strides: Strides,
    ) -> None:
        # BEGIN SOLUTION 2.3: tensor_map's loop over every entry of out
        out_index = np.zeros(len(out_shape), dtype=np.int64)
        in_index = np.zeros(len(in_shape), dtype=np.int64)
        for ordinal in range(_size(out_shape)):
            to_index(ordinal, out_shape, out_index)
            broadcast_index(out_index, out_shape, in_shape, in_index)
            value = in_storage[index_to_position(in_index, in_strides)]
            out[index_to_position(out_index, out_strides)] = fn(value)
        # END SOLUTION

    return _map


def tensor_zip(
    fn: Callable[[float, float], float],
) -> Callable[
    [Storage, Shape, Strides, Storage, Shape, Strides, Storage, Shape, Strides], None
]:
    """The zip kernel for ``fn``: $\\mathrm{out}[i] = fn(a[i], b[i])$.

    The returned function ``_zip(out, out_shape, out_strides, a_storage, a_shape,
    a_strides, b_storage, b_shape, b_strides)`` fills ``out`` in place. ``out_shape``
    is the broadcast of ``a_shape`` and ``b_shape``; each input is read through
    :func:`broadcast_index`, as in :func:`tensor_map`.
    """

    def _zip(
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
        # BEGIN SOLUTION 2.3: tensor_zip's loop, broadcasting both inputs
        out_index = np.zeros(len(out_shape), dtype=np.int64)
        a_index = np.zeros(len(a_shape), dtype=np.int64)
        b_index = np.zeros(len(b_shape), dtype=np.int64)
        for ordinal in range(_size(out_shape)):
            to_index(ordinal, out_shape, out_index)
            broadcast_index(out_index, out_shape, a_shape, a_index)
            broadcast_index(out_index, out_shape, b_shape, b_index)
            x = a_storage[index_to_position(a_index, a_strides)]
            y = b_storage[index_to_position(b_index, b_strides)]
            out[index_to_position(out_index, out_strides)] = fn(x, y)
        # END SOLUTION

    return _zip


def tensor_reduce(
    fn: Callable[[float, float], float],
) -> Callable[[Storage, Shape, Strides, Storage, Shape, Strides, int], None]:
    """The reduce kernel for ``fn`` along one dimension.

    The returned function ``_reduce(out, out_shape, out_strides, a_storage, a_shape,
    a_strides, reduce_dim)`` folds dimension ``reduce_dim`` of ``a`` into ``out``,
    whose shape is ``a_shape`` with ``out_shape[reduce_dim] == 1``. ``out`` already
    holds the start value $s$ (0 for a sum, $-\\infty$ for a max): for every entry
    of ``out``,

    $$\\mathrm{out}[\\dots, 0, \\dots] \\leftarrow fn(\\dots fn(fn(s, a[\\dots, 0,
    \\dots]), a[\\dots, 1, \\dots]) \\dots, a[\\dots, n-1, \\dots]),$$

    the running value being the *first* argument of ``fn`` (as in Module 0's
    ``reduce``).

    Hint: for each entry of ``out``, start from its index (its ``reduce_dim`` entry
    is 0) and let the ``reduce_dim`` entry run over ``0 .. n-1`` to read ``a``; or,
    faster, find the position of the first entry once and step it by
    ``a_strides[reduce_dim]``.
    """

    def _reduce(
        out: Storage,
        out_shape: Shape,
        out_strides: Strides,
        a_storage: Storage,
        a_shape: Shape,
        a_strides: Strides,
        reduce_dim: int,
    ) -> None:
        # BEGIN SOLUTION 2.3: tensor_reduce's loop, folding reduce_dim into out
        out_index = np.zeros(len(out_shape), dtype=np.int64)
        step = int(a_strides[reduce_dim])
        for ordinal in range(_size(out_shape)):
            to_index(ordinal, out_shape, out_index)
            position = index_to_position(out_index, out_strides)
            # out_index has 0 at reduce_dim: it is also a's index of the first entry.
            a_position = index_to_position(out_index, a_strides)
            accumulated = out[position]
            for _ in range(a_shape[reduce_dim]):
                accumulated = fn(accumulated, a_storage[a_position])
                a_position += step
            out[position] = accumulated
        # END SOLUTION

    return _reduce


def tensor_matrix_multiply(
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
    """The batched matrix-multiply kernel:

    $$\\mathrm{out}[\\dots, i, j] = \\sum_{k=0}^{m-1} a[\\dots, i, k]\\,
    b[\\dots, k, j]$$

    for ``a_shape = (..., n, m)``, ``b_shape = (..., m, p)`` and ``out_shape =
    batch + (n, p)``, where the batch dimensions ``...`` of ``a`` and ``b`` broadcast
    to ``batch``. ``out`` holds zeros on entry; every tensor may have any strides.
    All three have at least 2 dimensions (the ops class checks the shapes).

    Hint: for each entry of ``out``, find the matching indices of ``a`` and ``b``
    with :func:`broadcast_index` (it handles the batch dimensions), then let the
    last entry of ``a``'s index and the second-to-last of ``b``'s run over ``k``.
    Rather than calling :func:`index_to_position` for every ``k``, find the
    positions for ``k = 0`` and step them by ``a``'s last stride and ``b``'s
    second-to-last stride: the inner loop is then two reads, a multiply and an
    add.
    """
    # BEGIN SOLUTION 2.3: the batched matmul loop (broadcast batch, sum over k)
    out_index = np.zeros(len(out_shape), dtype=np.int64)
    a_index = np.zeros(len(a_shape), dtype=np.int64)
    b_index = np.zeros(len(b_shape), dtype=np.int64)
    inner = int(a_shape[-1])
    # Stepping k by one moves a by its last stride and b by its second-to-last.
    a_step, b_step = int(a_strides[-1]), int(b_strides[-2])
    for ordinal in range(_size(out_shape)):
        to_index(ordinal, out_shape, out_index)
        broadcast_index(out_index, out_shape, a_shape, a_index)
        broadcast_index(out_index, out_shape, b_shape, b_index)
        a_index[len(a_shape) - 1] = 0
        b_index[len(b_shape) - 2] = 0
        a_position = index_to_position(a_index, a_strides)
        b_position = index_to_position(b_index, b_strides)
        total = 0.0
        for _ in range(inner):
            total += a_storage[a_position] * b_storage[b_position]
            a_position += a_step
            b_position += b_step
        out[index_to_position(out_index, out_strides)] = total
    # END SOLUTION


# ---------------------------------------------------------------------------
# Ops classes: the kernels as functions of tensors
# ---------------------------------------------------------------------------


class TensorOps:
    """The interface of a backend's ops class (``SimpleOps``, ``FastOps``,
    ``CudaOps``): four static methods, and a ``cuda`` flag.

    - ``map(fn)`` returns ``(a, out=None) -> Tensor``: ``fn`` on every entry of
      ``a``. With ``out`` given, ``a`` is broadcast to ``out``'s shape and the
      result is written into ``out`` (which may be any strided view) and returned.
    - ``zip(fn)`` returns ``(a, b) -> Tensor``: ``fn`` on the entries of ``a`` and
      ``b`` broadcast together.
    - ``reduce(fn, start)`` returns ``(a, dim) -> Tensor``: ``a`` folded along
      ``dim`` (a non-negative dimension), which stays with size 1.
    - ``matrix_multiply(a, b)``: ``(..., n, m) @ (..., m, p)`` with broadcast batch
      dimensions; both have at least 2 dimensions.

    Outputs are new contiguous tensors on the input's backend (except ``out``).
    """

    cuda: bool = False

    @staticmethod
    def map(fn: Callable[[float], float]) -> MapFn:
        raise NotImplementedError

    @staticmethod
    def zip(fn: Callable[[float, float], float]) -> ZipFn:
        raise NotImplementedError

    @staticmethod
    def reduce(fn: Callable[[float, float], float], start: float = 0.0) -> ReduceFn:
        raise NotImplementedError

    @staticmethod
    def matrix_multiply(a: "Tensor", b: "Tensor") -> "Tensor":
        raise NotImplementedError


#: A kernel run with NumPy's warnings off (``np.errstate`` as a decorator): see
#: :class:`SimpleOps`.
_quiet = np.errstate(all="ignore")


class SimpleOps(TensorOps):
    """The reference backend: the pure-Python kernels above. Slow (every entry is a
    few Python function calls) but easy to read and to debug.

    The kernels read storage entries as NumPy scalars, whose arithmetic warns on
    overflow and invalid operations (``np.float64(1e308) * 10``); by the numeric
    policy a tensor operation gives inf or nan silently, so the kernels run with
    NumPy's warnings off (``np.errstate``)."""

    @staticmethod
    def map(fn: Callable[[float], float]) -> MapFn:
        """See :class:`TensorOps`."""
        kernel = _quiet(tensor_map(fn))

        def apply(a: "Tensor", out: Optional["Tensor"] = None) -> "Tensor":
            out = a.new_zeros(a.shape) if out is None else out
            kernel(*out.tuple(), *a.tuple())
            return out

        return apply

    @staticmethod
    def zip(fn: Callable[[float, float], float]) -> ZipFn:
        """See :class:`TensorOps`."""
        kernel = _quiet(tensor_zip(fn))

        def apply(a: "Tensor", b: "Tensor") -> "Tensor":
            shape = a.shape if a.shape == b.shape else shape_broadcast(a.shape, b.shape)
            out = a.new_zeros(shape)
            kernel(*out.tuple(), *a.tuple(), *b.tuple())
            return out

        return apply

    @staticmethod
    def reduce(fn: Callable[[float, float], float], start: float = 0.0) -> ReduceFn:
        """See :class:`TensorOps`."""
        kernel = _quiet(tensor_reduce(fn))

        def apply(a: "Tensor", dim: int) -> "Tensor":
            out = a.new_full(a.shape[:dim] + (1,) + a.shape[dim + 1 :], start)
            kernel(*out.tuple(), *a.tuple(), dim)
            return out

        return apply

    @staticmethod
    def matrix_multiply(a: "Tensor", b: "Tensor") -> "Tensor":
        """See :class:`TensorOps`."""
        out = a.new_zeros(matmul_shape(a.shape, b.shape))
        _quiet(tensor_matrix_multiply)(*out.tuple(), *a.tuple(), *b.tuple())
        return out


#: The default backend: every tensor made without ``backend=`` lives here.
SimpleBackend = TensorBackend(SimpleOps)
