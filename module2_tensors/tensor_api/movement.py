"""Movement: views and copies that rearrange the same numbers (``view``,
``reshape``, ``permute``, ``transpose``, ``squeeze``, ``expand``, ``flip``, ...)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Optional, Sequence, Tuple, Union

import numpy as np

from .. import indexing_functions as ixf
from .. import shape_functions as sf
from .. import tensor_functions as tf
from ..engine import indexing
from ..engine.shapes import normalize_dim
from ..tensor_data import UserShape
from .dtype_device import keeps_dtype

if TYPE_CHECKING:
    from ..tensor import Tensor


def _view_strides(
    shape: Tuple[int, ...], strides: Tuple[int, ...], new_shape: Tuple[int, ...]
) -> Optional[Tuple[int, ...]]:
    """Strides that show a (possibly non-contiguous) tensor as ``new_shape``
    without copying, or ``None`` when no such strides exist (PyTorch's rule for
    ``view``): each run of dimensions that is contiguous *within itself* may be
    split or merged freely; dimensions of size 1 are free."""
    if len(shape) == 0:
        return None
    out = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    base_stride = strides[-1]
    tensor_numel, view_numel = 1, 1
    for d in range(len(shape) - 1, -1, -1):
        tensor_numel *= shape[d]
        # A run ends where the next dimension out does not continue it.
        if d == 0 or (
            shape[d - 1] != 1 and strides[d - 1] != tensor_numel * base_stride
        ):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                out[view_d] = view_numel * base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                base_stride = strides[d - 1]
                tensor_numel, view_numel = 1, 1
    if view_d != -1:
        return None
    return tuple(out)


class MovementMixin:
    """Shape changes, as views where the strides allow (PyTorch's rules)."""

    __slots__ = ()

    @property
    def T(self) -> "Tensor":
        """The dimensions in reverse order (the transpose of a matrix)."""
        return self.permute(*reversed(range(self.dims)))

    @property
    def mT(self) -> "Tensor":
        """The last two dimensions swapped (a batch of transposed matrices)."""
        if self.dims < 2:
            raise ValueError(f"mT needs at least 2 dimensions, got shape {self.shape}")
        order = list(range(self.dims))
        order[-2], order[-1] = order[-1], order[-2]
        return self.permute(*order)

    @keeps_dtype
    def flip(self, dims: Union[int, Sequence[int]]) -> "Tensor":
        """Reversed along ``dims``."""
        return indexing.flip(self, dims)

    def roll(self, shifts: Any, dims: Any = None) -> "Tensor":
        """Shifted along ``dims``, wrapping around."""
        return indexing.roll(self, shifts, dims)

    @keeps_dtype
    def movedim(self, source: Any, destination: Any) -> "Tensor":
        """Dimensions moved (a view)."""
        return indexing.movedim(self, source, destination)

    def unbind(self, dim: int = 0) -> Tuple["Tensor", ...]:
        """The slices along ``dim``."""
        return indexing.unbind(self, dim)

    @keeps_dtype
    def tril(self, diagonal: int = 0) -> "Tensor":
        """The lower triangle."""
        return indexing.tril(self, diagonal)

    @keeps_dtype
    def triu(self, diagonal: int = 0) -> "Tensor":
        """The upper triangle."""
        return indexing.triu(self, diagonal)

    @keeps_dtype
    def t(self) -> "Tensor":
        """The transpose of a matrix (a 0-d or 1-D tensor is returned as is)."""
        if self.dims > 2:
            raise ValueError(
                f"t() expects a tensor with <= 2 dimensions, got {self.dims}"
            )
        return self if self.dims < 2 else self.permute(1, 0)

    @keeps_dtype
    def expand_as(self, other: "Tensor") -> "Tensor":
        """``self.expand(*other.shape)``."""
        return self.expand(*other.shape)

    @keeps_dtype
    def view_as(self, other: "Tensor") -> "Tensor":
        """``self.view(*other.shape)``."""
        return self.view(*other.shape)

    @keeps_dtype
    def reshape_as(self, other: "Tensor") -> "Tensor":
        """``self.reshape(*other.shape)``."""
        return self.reshape(*other.shape)

    def is_contiguous(self) -> bool:
        """Whether the entries lie in storage in row-major order, without gaps
        (known without a check for a fresh output: ``TensorData.row_major``)."""
        data = self._tensor
        return data.row_major or data.is_contiguous()

    def contiguous(self) -> "Tensor":
        """This tensor if it is contiguous, else a contiguous copy."""
        if self.is_contiguous():
            return self
        return tf.Copy.apply(self)

    @keeps_dtype
    def permute(self, *order: int) -> "Tensor":
        """A view with dimension ``k`` of the result being dimension ``order[k]``
        of this tensor (``permute(1, 0)`` or ``permute((1, 0))``)."""
        order = sf._shape_args(order)
        order = tuple(normalize_dim(d, self.dims) for d in order)
        return tf.Permute.apply(self, order)

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
            strides = _view_strides(self.shape, self._tensor.strides, shape)
            if strides is not None:
                return indexing.StridedView.apply(self, shape, strides)
            raise ValueError(
                f"view size is not compatible with input tensor's size and stride: "
                f"a tensor of shape {self.shape} with strides "
                f"{self._tensor.strides} cannot be viewed as {shape} without a "
                f"copy; use .reshape(...) or .contiguous().view(...)"
            )
        if shape == self.shape:
            return self
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
        for n in shape:
            if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
                raise TypeError(f"a shape holds integers, got {shape}")
        if list(shape).count(-1) > 1:
            raise ValueError(f"only one size may be -1, got shape {shape}")
        if any(n < -1 for n in shape):
            raise ValueError(f"sizes must be non-negative, got shape {shape}")
        known = math.prod(n for n in shape if n != -1)
        if -1 in shape:
            if known == 0 or size % known != 0:
                raise ValueError(
                    f"cannot view a tensor of shape {self.shape} ({size} entries) as "
                    f"shape {shape}"
                )
            shape = tuple(size // known if n == -1 else int(n) for n in shape)
        elif known != size:
            raise ValueError(
                f"cannot view a tensor of shape {self.shape} ({size} entries) as "
                f"shape {shape} ({known} entries)"
            )
        return tuple(int(n) for n in shape)

    @keeps_dtype
    def reshape(self, *shape: int) -> "Tensor":
        """Like :meth:`view`, copying first when the tensor is not contiguous."""
        return sf.reshape(self, *shape)

    @keeps_dtype
    def transpose(self, dim0: int, dim1: int) -> "Tensor":
        """Swap two dimensions (a view)."""
        return sf.transpose(self, dim0, dim1)

    @keeps_dtype
    def squeeze(self, dim: Union[None, int, Sequence[int]] = None) -> "Tensor":
        """Remove dimensions of size 1 (all of them, or those in ``dim``)."""
        return sf.squeeze(self, dim)

    @keeps_dtype
    def unsqueeze(self, dim: int) -> "Tensor":
        """Insert a dimension of size 1 at ``dim``."""
        return sf.unsqueeze(self, dim)

    @keeps_dtype
    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> "Tensor":
        """Merge dimensions ``start_dim .. end_dim`` into one."""
        return sf.flatten(self, start_dim, end_dim)

    @keeps_dtype
    def expand(self, *sizes: int) -> "Tensor":
        """Broadcast to a larger shape without copying (``-1`` keeps a size)."""
        return sf.expand(self, *sizes)

    def broadcast_to(self, shape: UserShape) -> "Tensor":
        """Broadcast to ``shape`` without copying."""
        return sf.broadcast_to(self, shape)

    @keeps_dtype
    def repeat(self, *sizes: int) -> "Tensor":
        """Tile the tensor ``sizes[k]`` times along each dimension."""
        return sf.repeat(self, *sizes)

    def split(
        self, split_size_or_sections: Union[int, Sequence[int]], dim: int = 0
    ) -> Tuple["Tensor", ...]:
        """Pieces along ``dim``: of ``split_size`` each, or of the given sizes."""
        return sf.split(self, split_size_or_sections, dim)

    def chunk(self, chunks: int, dim: int = 0) -> Tuple["Tensor", ...]:
        """``chunks`` pieces of (nearly) equal size along ``dim``."""
        return sf.chunk(self, chunks, dim)

    @keeps_dtype
    def narrow(self, dim: int, start: int, length: int) -> "Tensor":
        """Entries ``start .. start+length-1`` along ``dim`` (a view)."""
        return ixf.narrow(self, dim, start, length)
