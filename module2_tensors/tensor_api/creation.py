"""New tensors on a tensor's backend (``new_zeros``, ``new_tensor``, ``clone``,
...)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import shape_functions as sf
from .. import tensor_functions as tf
from ..tensor_data import TensorData, UserShape
from .core import FACTORIES
from .dtype_device import keeps_dtype

if TYPE_CHECKING:
    from ..tensor import Tensor


class CreationMixin:
    """New tensors on this tensor's backend, and copies."""

    __slots__ = ()

    def new_full(self, shape: UserShape, value: float) -> "Tensor":
        """A new contiguous tensor of ``shape`` filled with ``value``, on this
        tensor's backend."""
        return self._new(TensorData.full(tuple(shape), float(value)))

    def new_zeros(self, *shape: Any) -> "Tensor":
        """A new tensor of zeros on this tensor's backend: ``new_zeros(2, 3)`` or
        ``new_zeros((2, 3))``, as PyTorch's."""
        return self._new(TensorData.full(sf._shape_args(shape)))

    def new_ones(self, *shape: Any) -> "Tensor":
        """A new tensor of ones on this tensor's backend (shape as
        :meth:`new_zeros`)."""
        return self.new_full(sf._shape_args(shape), 1.0)

    def new_tensor(self, data: Any) -> "Tensor":
        """A new tensor of ``data`` (numbers, nested lists) on this backend."""
        return FACTORIES["tensor"](data, backend=self.backend)

    @keeps_dtype
    def clone(self) -> "Tensor":
        """A copy with its own storage; differentiable (the gradient flows back
        to this tensor)."""
        return tf.Copy.apply(self)
