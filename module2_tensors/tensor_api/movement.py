"""Movement: views and copies that rearrange the same numbers (``view``,
``reshape``, ``permute``, ``transpose``, ``squeeze``, ``expand``, ``flip``, ...)."""

from __future__ import annotations

import math
from functools import partialmethod
from typing import TYPE_CHECKING, Any, Optional, Tuple

import numpy as np

from .. import indexing_functions as ixf
from .. import shape_functions as sf
from .. import tensor_functions as tf
from ..engine import dtypes, indexing, layout
from ..engine.shapes import normalize_dim, normalize_dims
from ..tensor_data import _as_shape
from .dtype_device import kept_dtype, keeps_dtype, keeps_dtypes, label

if TYPE_CHECKING:
    from ..tensor import Tensor


class MovementMixin:
    """Shape changes, as views where the strides allow (PyTorch's rules)."""

    @property
    def T(self) -> "Tensor":
        """The dimensions in reverse order (the transpose of a matrix)."""
        return self.permute(*reversed(range(self.dims)))

    @property
    def mT(self) -> "Tensor":
        """The last two dimensions swapped (a batch of transposed matrices)."""
        if self.dims < 2:
            raise ValueError(f"mT needs at least 2 dimensions, got shape {self.shape}")
        return self.permute(*range(self.dims - 2), self.dims - 1, self.dims - 2)

    # The engine's given functions of a tensor, bound as methods: each takes the
    # tensor first; keeps_dtype gives the result this tensor's dtype.
    flip = keeps_dtype(indexing.flip)
    roll = keeps_dtype(indexing.roll)
    movedim = moveaxis = indexing.movedim  # (moveaxis: PyTorch's other name)
    unbind = indexing.unbind
    tril = keeps_dtype(indexing.tril)
    triu = keeps_dtype(indexing.triu)

    def t(self) -> "Tensor":
        """The transpose of a matrix (of a 0-d or 1-D tensor: a view of it as it is)."""
        if self.dims > 2:
            raise ValueError(
                f"t() expects a tensor with <= 2 dimensions, got {self.dims}"
            )
        return self.permute(*reversed(range(self.dims)))

    def expand_as(self, other: "Tensor") -> "Tensor":
        """``self.expand(*other.shape)``."""
        return self.expand(*other.shape)

    def view_as(self, other: "Tensor") -> "Tensor":
        """``self.view(*other.shape)``."""
        return self.view(*other.shape)

    def reshape_as(self, other: "Tensor") -> "Tensor":
        """``self.reshape(*other.shape)``."""
        return self.reshape(*other.shape)

    def is_contiguous(self) -> bool:
        """Whether the entries lie in storage in row-major order, without gaps
        (known without a check for a fresh output: ``TensorData.row_major``)."""
        return self._tensor.row_major or self._tensor.is_contiguous()

    def contiguous(self) -> "Tensor":
        """This tensor if it is contiguous, else a contiguous copy."""
        # (a kept_dtype copy: a mask's copy still selects)
        return self if self.is_contiguous() else kept_dtype(self, tf.Copy.apply(self))

    @keeps_dtype
    def permute(self, *order: int) -> "Tensor":
        """A view with dimension ``k`` of the result being dimension ``order[k]``
        of this tensor (``permute(1, 0)`` or ``permute((1, 0))``)."""
        return tf.Permute.apply(self, normalize_dims(sf._shape_args(order), self.dims))

    @keeps_dtype
    def view(self, *shape: int) -> "Tensor":
        """The same numbers with another shape of the same size, without copying
        (``view(2, 3)``, ``view((2, 3))``; one size may be ``-1``, inferred).

        A non-contiguous tensor can be viewed too where PyTorch's rule allows it:
        each run of dimensions that is laid out contiguously may be split or
        merged (``zeros(3, 4).T.view(4, 3, 1)``).

        Raises:
            ValueError: no strides can show this tensor in ``shape`` without a
                copy (use ``reshape`` or ``contiguous().view``), or the sizes do
                not match.
        """
        shape = self._infer_shape(sf._shape_args(shape))
        if not self.is_contiguous():
            # PyTorch's rule (each run of dimensions contiguous within itself may
            # be split or merged; sizes 1 are free; an empty tensor always fits)
            # is NumPy's for reshaping in place: asked of a strided view over a
            # one-entry buffer (only its strides are read), in bytes.
            view = layout.host_view(np.empty(1), self.shape, self._tensor.strides)
            try:
                view.shape = shape  # (NumPy refuses where it would have to copy)
            except AttributeError:
                raise ValueError(
                    f"view size is not compatible with input tensor's size and "
                    f"stride: a tensor of shape {self.shape} with strides "
                    f"{self._tensor.strides} cannot be viewed as {shape} without a "
                    f"copy; use .reshape(...) or .contiguous().view(...)"
                ) from None
            strides = tuple(step // 8 for step in view.strides)
            return indexing.StridedView.apply(self, shape, strides)
        return tf.View.apply(self, shape)

    def _infer_shape(self, shape: Tuple[Any, ...]) -> Tuple[int, ...]:
        """Check a target shape for view/reshape and fill in a ``-1``."""
        size = self._tensor.size
        known = 1
        for n in shape:
            if type(n) is not int or n < 0:
                break
            known *= n
        else:  # the common case, kept fast: sizes that are plain ints, no -1
            # (Measured as for arithmetic._NUMBERS: ``x.view(100, 10)`` 3.1 -> 1.8
            # us, the Task 3.5 epoch -3.3% (1.446 -> 1.399 ms); A/A 0.5%.)
            if known == size:
                return shape
        shape = _as_shape(shape)  # (TypeError: not integers)
        if shape.count(-1) > 1:
            raise ValueError(f"only one size may be -1, got shape {shape}")
        if any(n < -1 for n in shape):
            raise ValueError(f"sizes must be non-negative, got shape {shape}")
        known = math.prod(n for n in shape if n != -1)
        if -1 in shape and known and size % known == 0:
            shape = tuple(size // known if n == -1 else n for n in shape)
        if -1 in shape or math.prod(shape) != size:  # (-1 left: it fits no size)
            raise ValueError(
                f"cannot view a tensor of shape {self.shape} ({size} entries) as "
                f"shape {shape}"
            )
        return shape

    # The shape functions of Task 2.6 (and narrow), bound as methods (as flip).
    reshape = keeps_dtype(sf.reshape)  # (a copy first when not contiguous)
    transpose = swapaxes = swapdims = keeps_dtype(sf.transpose)
    squeeze = keeps_dtype(sf.squeeze)
    unsqueeze = keeps_dtype(sf.unsqueeze)
    flatten = keeps_dtype(sf.flatten)
    expand = keeps_dtype(sf.expand)
    broadcast_to = keeps_dtype(sf.broadcast_to)
    repeat = keeps_dtype(sf.repeat)
    tile = keeps_dtype(sf.tile)
    chunk = keeps_dtypes(sf.chunk)
    narrow = keeps_dtype(ixf.narrow)

    @keeps_dtypes
    def split(
        self, split_size_or_sections: Any = None, dim: int = 0, split_size: Any = None
    ) -> Tuple[Any, ...]:
        """Task 2.6's :func:`~shape_functions.split` (``torch.split``), also by the
        method's keyword ``split_size`` (``x.split(split_size=2)``)."""
        return sf.split(self, split_size or split_size_or_sections, dim)

    @keeps_dtype
    def diagonal(self, offset: int = 0, dim1: int = 0, dim2: int = 1) -> "Tensor":
        """The entries $(i, i + \\text{offset})$ of dims ``dim1`` and ``dim2``, as
        the last dim of the result (``torch.diagonal``; a copy here, not a view;
        the gradient goes back to those entries)."""
        x = self.movedim((dim1, dim2), (0, 1))
        rows_cols = np.nonzero(np.eye(x.shape[0], x.shape[1], offset))
        return indexing.AdvancedIndex.apply(x, rows_cols).movedim(0, -1)

    @keeps_dtype
    def diag(self, diagonal: int = 0) -> "Tensor":
        """``torch.diag``: the ``diagonal``-th diagonal of a matrix, or a square
        matrix with this 1-D tensor there (zeros elsewhere; differentiable)."""
        if self.dims == 2:
            return self.diagonal(diagonal)
        n = self.shape[0] + abs(diagonal)
        place = np.nonzero(np.eye(n, k=diagonal))  # (self.shape[0] positions)
        return indexing.EmbedInZeros.apply(self, (n, n), place)

    def diagflat(self, offset: int = 0) -> "Tensor":
        """``torch.diagflat``: a matrix with the flattened entries on diagonal
        ``offset``."""
        return self.reshape(-1).diag(offset)

    def take(self, index: "Tensor") -> "Tensor":
        """``torch.take``: the entries of the flattened tensor at ``index``."""
        return self.reshape(-1)[index]

    def select(self, dim: int, index: int) -> "Tensor":
        """``torch.select``: ``x[..., index, ...]`` at dim ``dim`` (a view)."""
        return self.movedim(dim, 0)[index]

    def tensor_split(
        self, indices_or_sections: Any = None, dim: int = 0, **kw: Any
    ) -> Tuple[Any, ...]:
        """``torch.tensor_split``: views of ``n`` near-equal parts along ``dim`` (the
        first ``size % n`` one longer), or split before each of the ``indices`` (a
        list or a tensor, a 0-d one being ``n``; also by PyTorch's keywords
        ``sections=n`` and ``indices=``)."""
        at = np.asarray(kw.get("sections", kw.get("indices", indices_or_sections)))
        parts = np.array_split(np.arange(self.shape[dim]), at)
        return tuple(self.narrow(dim, p[0] if len(p) else 0, len(p)) for p in parts)

    def _split_on(self, sections: Any, dim: int, least: int) -> Tuple[Any, ...]:
        """:meth:`tensor_split` along ``dim`` (the last, if fewer) of a tensor of at
        least ``least`` dims, ``sections`` equal parts or split at indices."""
        dim, equal = min(dim, self.dims - 1), isinstance(sections, int)
        if self.dims < least or equal and (sections < 1 or self.shape[dim] % sections):
            raise RuntimeError(
                f"cannot split a tensor of shape {self.shape} along dim {dim} into "
                f"{sections} equal parts (it needs {least} dims or more)"
            )
        return self.tensor_split(sections, dim)

    # torch.hsplit (dim 1, dim 0 of a 1-D tensor), vsplit (dim 0), dsplit (dim 2)
    hsplit = partialmethod(_split_on, dim=1, least=1)
    vsplit = partialmethod(_split_on, dim=0, least=2)
    dsplit = partialmethod(_split_on, dim=2, least=3)

    def rot90(self, k: int = 1, dims: Any = (0, 1)) -> "Tensor":
        """``torch.rot90``: turned ``k`` quarter turns from dim ``dims[0]`` towards
        ``dims[1]`` (a copy): a flip of ``dims[1]`` and a transpose for one turn,
        of both for two, of ``dims[0]`` and a transpose for three."""
        if self.dims < 2 or len({d % self.dims for d in dims}) != 2:
            raise RuntimeError(f"rot90: two different dims of {self.shape}, not {dims}")
        out = self.flip([(), dims[1:], dims, dims[:1]][k % 4])
        return out.transpose(*dims) if k % 2 else out

    def kron(self, other: "Tensor") -> "Tensor":
        """``torch.kron``: the Kronecker product, blocks $x_{i} y$ (dims aligned on
        the right): the outer product, each dim of ``self`` before ``other``'s.
        """
        a = self.reshape(*[m for s in self.shape for m in (s, 1)])  # (a0, 1, a1, 1..)
        ab = a * other.reshape(*[m for s in other.shape for m in (1, s)])
        return ab.reshape(*[p * q for p, q in zip(ab.shape[::2], ab.shape[1::2])])

    def diag_embed(self, offset: int = 0, dim1: int = -2, dim2: int = -1) -> "Tensor":
        """``torch.diag_embed``: the last dim as diagonal ``offset`` of matrices in
        dims ``dim1``, ``dim2`` of the result (zeros elsewhere)."""
        k, j, eye = max(offset, 0), max(-offset, 0), np.eye(self.shape[-1])
        out = sf.pad(self.unsqueeze(-1) * self.new_tensor(eye), (k, j, j, k))
        return kept_dtype(self, out.movedim((-2, -1), (dim1, dim2)))

    def unflatten(self, dim: int, sizes: Tuple[int, ...]) -> "Tensor":
        """Dim ``dim`` split into ``sizes`` (one may be -1), as PyTorch's."""
        return self.reshape(*self.shape[:dim], *sizes, *self.shape[dim:][1:])

    def repeat_interleave(self, repeats: Any, dim: Optional[int] = None) -> "Tensor":
        """Each entry (slice along ``dim``; of the flattened tensor for ``None``)
        repeated ``repeats`` times (an int, or one count per entry), as
        ``torch.repeat_interleave``."""
        x, d = (self.reshape(-1), 0) if dim is None else (self, dim)
        index = np.repeat(np.arange(x.shape[d]), np.asarray(repeats, dtype=np.int64))
        return x.index_select(d, index.tolist())

    def unfold(self, dimension: int, size: int, step: int) -> "Tensor":
        """``torch.Tensor.unfold``: the slices of ``size`` entries along
        ``dimension``, starting ``step`` apart, in a new last dim (a copy here,
        not a view; the gradient goes back to the entries each slice holds)."""
        d = normalize_dim(dimension, self.dims)
        index = np.arange(0, self.shape[d] - size + 1, step)[:, None] + np.arange(size)
        x = self.index_select(d, index.reshape(-1).tolist()).unflatten(d, index.shape)
        return x.movedim(d + 1, -1)

    def diff(self, n: int = 1, dim: int = -1, prepend: Any = None, append: Any = None):
        """``torch.diff``: the ``n``-th forward difference $x_{i+1} - x_i$ along
        ``dim``, of this tensor joined with ``prepend`` and ``append`` there
        (of a bool tensor, $x_{i+1} \ne x_i$), in the dtype the three promote to."""
        parts = [t for t in (prepend, self, append) if t is not None]
        x = label(sf.cat(parts, dim), dtypes.result_type(*parts))
        for _ in range(n):
            before, after = x.unfold(dim, 2, 1).unbind(-1)
            x = after != before if x.is_mask else after - before
        return x
