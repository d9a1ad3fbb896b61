"""New tensors on a tensor's backend (``new_zeros``, ``new_tensor``, ``clone``,
...)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from .. import shape_functions as sf
from .. import tensor_functions as tf
from ..engine import dtypes
from ..tensor_data import TensorData, UserShape
from .core import FACTORIES
from .dtype_device import keeps_dtype, label

if TYPE_CHECKING:
    from ..tensor import Tensor


def _labelled(out: "Tensor", d: Optional[dtypes.dtype]) -> "Tensor":
    """``out`` (a fresh float64 tensor) converted to ``d`` (a float: the label
    only)."""
    if d is None or d is dtypes.float64:
        return out
    return label(out, d) if d.is_floating_point else out._as_dtype(d)


class CreationMixin:
    """New tensors on this tensor's backend, and copies."""

    def _new_dtype(self, dtype: Optional[dtypes.dtype]) -> Optional[dtypes.dtype]:
        """The dtype of a ``new_*`` tensor: ``dtype`` if given, else this tensor's
        when it is a float (``x.float().new_zeros(2)`` is float32, as PyTorch's).
        An integer or bool tensor's ``new_*`` are float64 (unlike PyTorch's): the
        engine's kernels make their outputs with ``new_zeros`` and ``new_full``
        of their inputs, and a float result must not be labelled integer."""
        return dtype or (self.dtype if self.is_floating_point() else None)

    def new_full(
        self, shape: UserShape, value: float, *, dtype: Optional[dtypes.dtype] = None
    ) -> "Tensor":
        """A new contiguous tensor of ``shape`` filled with ``value``, on this
        tensor's backend (dtype: see :meth:`_new_dtype`; an integer ``dtype``
        truncates)."""
        out = self._new(TensorData.full(tuple(shape), float(value)))
        return _labelled(out, self._new_dtype(dtype))

    def new_zeros(self, *shape: Any, dtype: Optional[dtypes.dtype] = None) -> "Tensor":
        """A new tensor of zeros on this tensor's backend: ``new_zeros(2, 3)`` or
        ``new_zeros((2, 3))``, as PyTorch's (dtype as :meth:`new_full`)."""
        return self.new_full(sf._shape_args(shape), 0.0, dtype=dtype)

    new_empty = new_zeros  # (Tensor.new_empty: any values will do)

    def new_ones(self, *shape: Any, dtype: Optional[dtypes.dtype] = None) -> "Tensor":
        """A new tensor of ones on this tensor's backend (shape and dtype as
        :meth:`new_zeros`)."""
        return self.new_full(sf._shape_args(shape), 1.0, dtype=dtype)

    def new_tensor(self, data: Any, dtype: Optional[dtypes.dtype] = None) -> "Tensor":
        """A new tensor of ``data`` (numbers, nested lists) on this backend
        (dtype: ``dtype``, this tensor's float dtype, or inferred from ``data``)."""
        return FACTORIES["tensor"](
            data, backend=self.backend, dtype=self._new_dtype(dtype)
        )

    def bernoulli(self, p: Any = None, *, generator: Any = None) -> "Tensor":
        """1 with probability ``p`` (by default this tensor's entries), else 0,
        entrywise, in this tensor's dtype (no gradient), as ``torch.bernoulli``;
        from the generator :func:`manual_seed` seeds, or ``generator``."""
        u = FACTORIES["rand"](self.shape, backend=self.backend, generator=generator)
        return (u < (self.detach() if p is None else p))._as_dtype(self.dtype)

    def multinomial(
        self, num_samples: int, replacement: bool = False, *, generator: Any = None
    ) -> "Tensor":
        """``num_samples`` indices drawn from the weights (1-D, or one row of
        weights per draw), without ``replacement`` unless asked (``int64``), as
        ``torch.multinomial``."""
        rng = FACTORIES["rng"](None, generator)
        rows = self.to_numpy().reshape(-1, self.shape[-1])  # (a draw from each row)
        drawn = [
            rng.choice(len(w), num_samples, replacement, w / w.sum()) for w in rows
        ]
        out = np.reshape(drawn, (*self.shape[:-1], num_samples))
        return FACTORIES["tensor"](out, backend=self.backend)

    @keeps_dtype
    def clone(self) -> "Tensor":
        """A copy with its own storage; differentiable (the gradient flows back
        to this tensor)."""
        return tf.Copy.apply(self)
