"""PyTorch's other elementwise functions (``tan``, ``asinh``, ``log10``,
``hypot``, ...) and other names of the methods (``absolute``, ``swapaxes``),
composed of the methods of the other mixins where that is exact (autograd then
follows), else computed by the engine's ``elementwise`` functions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .arithmetic import ArithmeticMixin as _A
from .core import TensorLike
from .movement import MovementMixin as _M

if TYPE_CHECKING:
    from ..tensor import Tensor


class ElementaryMixin:
    """Elementary functions and PyTorch's aliases of the other mixins' methods."""

    __slots__ = ()

    absolute, arctan2, moveaxis = _A.abs, _A.atan2, _M.movedim
    swapaxes = swapdims = _M.transpose

    def clamp_min(self, min: TensorLike) -> "Tensor":
        """``torch.clamp_min``: ``clamp(min=min)``."""
        return self.clamp(min)

    def clamp_max(self, max: TensorLike) -> "Tensor":
        """``torch.clamp_max``: ``clamp(max=max)``."""
        return self.clamp(None, max)
