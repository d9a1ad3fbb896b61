"""Dtypes and devices: ``t.to(...)``, ``.float()``, ``.long()``, ``.cuda()``,
``.device``.

Every tensor stores float64 numbers; a dtype is a label that conversions and
factories set (PyTorch's names), and a device names a backend."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Callable, Optional

from .. import tensor_functions as tf
from ..engine import dtypes, elementwise
from ..engine.devices import backend_for, device as Device
from .._backend import TensorBackend
from .core import FACTORIES, CoreMixin

if TYPE_CHECKING:
    from ..tensor import Tensor


def keeps_dtype(method: Callable[..., Any]) -> Callable[..., Any]:
    """``method`` (a view or copy of the same numbers, same order of entries or
    not) made to give its result this tensor's dtype, as PyTorch's do: an int64
    tensor stays int64 through ``view``, ``detach`` ..., and a mask stays a mask
    (so ``x.view(-1)[mask.view(-1)]`` selects, as in PyTorch)."""
    return functools.wraps(method)(
        lambda self, *a, **k: kept_dtype(self, method(self, *a, **k))
    )


def keeps_dtypes(method: Callable[..., Any]) -> Callable[..., Any]:
    """:func:`keeps_dtype` for a method that returns a tuple (every piece)."""
    return functools.wraps(method)(
        lambda self, *a, **k: tuple(kept_dtype(self, p) for p in method(self, *a, **k))
    )


def kept_dtype(source: "Tensor", out: "Tensor") -> "Tensor":
    """``out`` (entries of ``source``, moved or copied) reporting ``source``'s
    dtype; a mask stays a mask."""
    if source.is_mask:
        out.is_mask = True
    elif source._dtype is not None and out._dtype is None:
        out._dtype = source._dtype
    return out


def floated(source: "Tensor", out: "Tensor") -> "Tensor":
    """``out`` (an elementwise function of ``source``: ``exp``, ``sqrt`` ...; a mean)
    reporting PyTorch's dtype: ``source``'s if a float, else the default float
    (the functions whose values stay whole use :func:`kept_dtype` instead)."""
    d = source.dtype if source.is_floating_point() else dtypes.get_default_dtype()
    out._dtype = None if d is dtypes.float64 else d  # (not label's mask reset)
    return out


def label(out: "Tensor", d: dtypes.dtype) -> "Tensor":
    """``out`` (a fresh result) reporting ``d``; a ``bool`` result becomes a mask
    of its non-zero entries (``mask + mask`` is True where either is, as in
    PyTorch)."""
    if d is dtypes.bool_:
        return out != 0.0
    out._dtype = None if d is dtypes.float64 else d
    out.is_mask = False
    return out


class DtypeDeviceMixin:
    """Conversions between dtypes and devices, as PyTorch spells them."""

    def to(self, *args: Any, **kwargs: Any) -> "Tensor":
        """This tensor on another backend (differentiable), as PyTorch's
        ``t.to(...)``: ``to(backend)``, ``to("cpu")``, ``to("cuda")``,
        ``to(device=...)``, ``to(kt.float32)``, ``to("cpu", kt.int64)``,
        ``to(other_tensor)`` (its backend and dtype); this tensor itself when
        nothing changes (a copy with ``copy=True``). The numbers are shared between
        backends that compute in the same memory, and copied to or from the GPU
        when one of the two is ``CudaBackend``."""
        target, wanted = kwargs.pop("device", None), kwargs.pop("dtype", None)
        if unknown := sorted(set(kwargs) - {"non_blocking", "copy"}):
            raise TypeError(f"to() got unexpected arguments {unknown}")
        for arg in args:
            if isinstance(arg, dtypes.dtype):
                wanted = arg
            elif target is None and not isinstance(arg, bool):
                target = arg
        if isinstance(target, CoreMixin):  # (its backend and dtype)
            target, wanted = target.backend, wanted or target.dtype
        elif target is not None and not isinstance(target, TensorBackend):
            target = backend_for(target)
        out = self.clone() if kwargs.get("copy") else self  # (copy=True: never self)
        if target is not None and target is not self.backend:
            out = kept_dtype(self, elementwise.ToBackend.apply(self, target))
        return out if wanted is None else out._as_dtype(wanted)

    @property
    def device(self) -> Device:
        """The device this tensor's backend computes on (``device('cpu')`` or
        ``device('cuda', 0)``); ``t.backend`` is the backend itself."""
        return Device("cuda", 0) if self.backend.cuda else Device("cpu")

    @property
    def is_cuda(self) -> bool:
        """Whether the tensor lives on the GPU (``CudaBackend``)."""
        return self.backend.cuda

    def cpu(self) -> "Tensor":
        """This tensor on the default CPU backend (itself if on a CPU backend)."""
        return self if not self.backend.cuda else self.to("cpu")

    def cuda(self, device: Any = None) -> "Tensor":
        """This tensor on the CUDA backend.

        Raises:
            RuntimeError: no CUDA GPU (the message says how to use Numba's
                simulator instead: ``NUMBA_ENABLE_CUDASIM=1``).
        """
        return self.to("cuda")

    @property
    def dtype(self) -> dtypes.dtype:
        """``kt.bool`` for a mask, else the dtype the tensor was made or
        converted with (``kt.float64`` by default; arithmetic gives PyTorch's
        promoted dtype, ``kt.result_type``).
        The numbers are stored as float64 in every case."""
        return self._dtype or (dtypes.bool_ if self.is_mask else dtypes.float64)

    def is_floating_point(self) -> bool:
        """Whether :attr:`dtype` is a floating-point type."""
        return self.dtype.is_floating_point

    def _as_dtype(self, d: dtypes.dtype) -> "Tensor":
        """This tensor converted to ``d`` (itself when it has that dtype): an
        integer type truncates toward zero (no gradient, as in PyTorch), bool
        makes a mask, a float type copies (differentiable)."""
        if not isinstance(d, dtypes.dtype):
            raise TypeError(f"expected a dtype such as kt.float32, got {d!r}")
        if self.dtype is d:
            return self
        if not d.is_floating_point:  # (tensor() truncates toward zero; bool: a mask)
            return FACTORIES["tensor"](self.to_numpy(), backend=self.backend, dtype=d)
        return label(tf.Copy.apply(self), d)  # (a new tensor, as PyTorch's)

    def type_as(self, other: "Tensor") -> "Tensor":
        """This tensor converted to ``other``'s dtype (``torch.Tensor.type_as``)."""
        return self._as_dtype(other.dtype)

    def bool(self) -> "Tensor":
        """A mask: $1$ where non-zero, else $0$ (``x.bool()``, ``kt.bool``)."""
        return self if self.is_mask else self != 0.0

    def float(self) -> "Tensor":
        """The same numbers as a ``kt.float32`` tensor (stored as float64; a
        mask becomes an ordinary tensor). Differentiable."""
        return self._as_dtype(dtypes.float32)

    def half(self) -> "Tensor":
        """The same numbers as a ``kt.float16`` tensor (stored as float64)."""
        return self._as_dtype(dtypes.float16)

    def long(self) -> "Tensor":
        """The entries rounded toward zero, as ``kt.int64`` (PyTorch's integer
        conversion; the numbers stay float64 here). No gradient."""
        return self._as_dtype(dtypes.int64)

    def int(self) -> "Tensor":
        """The entries rounded toward zero, as ``kt.int32``."""
        return self._as_dtype(dtypes.int32)

    def double(self) -> "Tensor":
        """The same numbers as a ``kt.float64`` tensor (a mask becomes an
        ordinary tensor). Differentiable."""
        return self._as_dtype(dtypes.float64)

    def type(self, dtype: Optional[dtypes.dtype] = None) -> Any:
        """``t.type(kt.float32)`` converts (as :meth:`to`); ``t.type()`` is the
        dtype's name."""
        return f"kindling.{self.dtype.name}" if dtype is None else self._as_dtype(dtype)
