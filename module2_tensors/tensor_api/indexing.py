"""Indexing: ``t[key]``, ``t[key] = value``, ``gather``, ``scatter``, ``sort``,
``topk``, ``nonzero``, ..."""

from __future__ import annotations

import functools

import numpy as np
from typing import TYPE_CHECKING, Any, Optional

from .. import indexing_functions as ixf
from ..engine import dtypes, grad_modes, indexing, versions
from .core import CoreMixin, TensorLike
from .dtype_device import kept_dtype, keeps_dtype
from .inplace import check_not_leaf, check_writable
from .reductions import ValuesIndices, _found

if TYPE_CHECKING:
    from ..tensor import Tensor


def _nests(k: Any) -> bool:
    """Whether an entry of a list key makes PyTorch read the list as a tuple."""
    return k is None or k is Ellipsis or isinstance(k, (list, tuple, slice, CoreMixin))


def _in_own_dtype(fn: Any) -> Any:
    """``fn`` (of a tensor first) giving its result in that tensor's dtype, as
    PyTorch's out-of-place scatters do (an integer tensor stays whole)."""
    return functools.wraps(fn)(lambda t, *a, **k: fn(t, *a, **k)._as_dtype(t.dtype))


def _int_indexed(fn: Any, name: str) -> Any:
    """``fn(t, dim, index)`` refusing a float tensor ``index``, as PyTorch's
    ``name`` does (a float index would be truncated silently)."""

    def checked(t: "Tensor", dim: int, index: Any) -> "Tensor":
        if isinstance(index, CoreMixin) and index.is_floating_point():
            raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
        return fn(t, dim, index)

    return functools.wraps(fn)(checked)


class IndexingMixin:
    """Reading and writing parts of a tensor by position."""

    # Functions of the tensor first, bound as methods (keeps_dtype: the result
    # has this tensor's dtype).
    scatter_add = _in_own_dtype(indexing.scatter_add)
    index_add = _in_own_dtype(indexing.index_add)
    index_select = keeps_dtype(_int_indexed(ixf.index_select, "index_select"))
    gather = keeps_dtype(_int_indexed(ixf.gather, "gather"))
    nonzero = indexing.nonzero  # (int64 indices)

    def index_copy(self, dim: int, index: "Tensor", source: "Tensor") -> "Tensor":
        """``torch.Tensor.index_copy``: a copy with slice ``index[k]`` along ``dim``
        replaced by ``source``'s slice ``k``: :meth:`index_fill` with 0, then
        :meth:`index_add` (the gradient reaches ``source`` and the entries kept)."""
        return self.index_fill(dim, index, 0).index_add(dim, index, source)

    def masked_select(self, mask: "Tensor") -> "Tensor":
        """The entries where ``mask`` (broadcast with this tensor) is true, as a
        1-D tensor (``torch.masked_select``; differentiable)."""
        shape = np.broadcast_shapes(self.shape, mask.shape)
        return self.expand(*shape)[mask.expand(*shape)]

    def take_along_dim(self, indices: "Tensor", dim: Optional[int] = None):
        """``torch.take_along_dim``: :meth:`gather` along ``dim`` after this
        tensor and ``indices`` are broadcast against each other outside ``dim``
        (of the flattened tensor for ``None``)."""
        if dim is None:
            return self.reshape(-1).gather(0, indices.reshape(-1))
        x, index = self.movedim(dim, -1), indices.movedim(dim, -1)
        outer = np.broadcast_shapes(x.shape[:-1], index.shape[:-1])
        x = x.expand(*outer, x.shape[-1]).gather(-1, index.expand(*outer, -1))
        return x.movedim(-1, dim)

    def index_fill(self, dim: int, index: "Tensor", value: Any) -> "Tensor":
        """``torch.Tensor.index_fill``: a copy with the slices ``index`` along
        ``dim`` set to ``value`` (the gradient reaches the other entries)."""
        x = self.movedim(dim, -1)  # (a mask of the last dim broadcasts)
        hit = x.new_zeros(x.shape[-1], dtype=dtypes.bool_)
        hit[index] = True  # (a float index raises, as in PyTorch)
        return x.masked_fill(hit, value).movedim(-1, dim)

    def index_put_(self, indices: Any, values: Any, accumulate: bool = False) -> Any:
        """``self[indices] = values`` in place, or with ``accumulate`` ``+=``
        where a repeated index adds each time (``torch.Tensor.index_put_``)."""
        if not accumulate:
            self[tuple(indices)] = values
            return self
        key = indexing._numpy_key(tuple(indices), self)
        embed = indexing.EmbedInZeros.apply  # (values broadcast to the selection)
        return self._in_place(
            "index_put_", lambda a, v: a + embed(v, a.shape, key), values
        )

    def scatter(
        self,
        dim: int,
        index: "Tensor",
        src: Optional[TensorLike] = None,
        *,
        value: Optional[float] = None,
    ) -> "Tensor":
        """``torch.Tensor.scatter`` (out of place): a copy of this tensor with
        ``out[..., index[p], ...] = src[p]`` along ``dim`` (``src`` a tensor of
        at least ``index``'s sizes, or a number; ``value=`` is PyTorch's keyword
        for a number). Where ``index`` repeats a position, the last write in
        row-major order stays (PyTorch calls this unspecified; its CPU kernel
        does the same). The gradient reaches this tensor at the positions not
        written, and every entry of ``src`` from the position it writes (an
        overwritten one too, as in PyTorch)."""
        src = value if src is None else src
        if src is None:
            raise TypeError("scatter() needs src or value")
        if not isinstance(src, CoreMixin):
            src = self.new_full(index.shape, float(src))
        src = src[tuple(slice(0, n) for n in index.shape)]  # (the part used)
        d = dim % max(self.dims, 1)
        # Overwritten entries add 0 to the value and still get their position's
        # gradient, as PyTorch's backward (``grad.gather(dim, index)``) gives.
        last = self.new_tensor(indexing.last_writers(index, d, self.shape))
        kept = src + -(src.detach() * (1.0 - last))  # (src may be a bool mask)
        # (each position written has one last writer)
        written = indexing.scatter_add(self.new_zeros(self.shape), dim, index, last)
        placed = indexing.scatter_add(self.new_zeros(self.shape), dim, index, kept)
        return ixf.where(written > 0, placed, self)._as_dtype(self.dtype)

    def argsort(self, dim: int = -1, descending: bool = False, stable: bool = False):
        """``torch.argsort``: the indices that sort along ``dim`` (the sort is
        always stable here)."""
        return self.sort(dim, descending).indices

    def sort(
        self, dim: int = -1, descending: bool = False, stable: bool = False
    ) -> ValuesIndices:
        """``(values, indices)`` sorted along ``dim`` (stable, whatever ``stable``
        says; NaN is the largest), as a named tuple."""
        return _found(self, *ixf.sort(self, dim, descending))

    def topk(
        self, k: int, dim: int = -1, largest: bool = True, sorted: bool = True
    ) -> ValuesIndices:
        """``(values, indices)`` of the ``k`` largest (or smallest) along ``dim``,
        as a named tuple."""
        return _found(self, *ixf.topk(self, k, dim, largest, sorted))

    def __getitem__(self, key: Any) -> "Tensor":
        # PyTorch reads a list holding lists (slices, None, ...) as a tuple of
        # index lists: x[[[0, 1], [2, 3]]] is x[[0, 1], [2, 3]].
        if type(key) is list and len(key) < 32 and any(_nests(k) for k in key):
            key = tuple(key)
        return kept_dtype(self, ixf.getitem(self, key))  # (self: unchanged)

    def __setitem__(self, key: Any, value: TensorLike) -> None:
        """Write ``value`` (broadcast) into ``self[key]``, in place (through
        every view of the same storage). ``key`` may also hold integer tensors
        and boolean masks (see :func:`indexing_functions.getitem`)."""
        value = self._other(value)
        if grad_modes.is_grad_enabled() and (self.requires_grad or value.requires_grad):
            check_not_leaf(self, "item assignment")
            raise RuntimeError(
                "item assignment with autograd (into a tensor that requires grad, "
                "or of a value that does) is not supported; build the result "
                "with where(mask, value, x) instead"
            )
        # (cast as PyTorch's: 2.7 -> 2, 2 -> True; a copy of a value in this
        # tensor's storage, as x[1:] = x[:-1] reads every entry first in NumPy)
        shared = versions.storage_root(value) is versions.storage_root(self)
        value = value.to(self.backend, self.dtype, copy=shared)
        # (leading 1s dropped, as PyTorch's: out[i] = model(x[i : i + 1]) fits)
        value = value.view(*np.trim_zeros(np.subtract(value.shape, 1), "f") + 1)
        if indexing.is_advanced_key(key):
            indexing.set_advanced(self, key, value)
        else:
            target = self._new(ixf.index_view(self._tensor, key))
            check_writable(value.shape, target.shape)
            self.backend.id_map(value, out=target)
        versions.bump_version(self)
