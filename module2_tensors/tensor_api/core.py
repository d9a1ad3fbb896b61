"""What every tensor is: its storage, backend, shape, printing and conversions to
Python and NumPy (``Tensor``'s :class:`CoreMixin`).

The other mixins of this package build on these attributes; ``Tensor`` itself,
composed of them all, is defined in ``module2_tensors/tensor.py``."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, Optional, Tuple, Union

import numpy as np

from ..engine import autograd, dtypes, elementwise, versions
from ..engine.devices import get_default_backend
from ..engine.layout import host_view
from ..engine.shapes import normalize_dim
from ..tensor_data import TensorData
from ..tensor_ops import SimpleBackend
from .._backend import TensorBackend

if TYPE_CHECKING:
    from ..tensor import Tensor

TensorLike = Union[float, int, "Tensor"]

#: The factories of ``tensor.py`` that methods call (``tensor``, ``rand``,
#: ``randn``), registered there: a mixin cannot import ``tensor.py``, which
#: imports the mixins.
FACTORIES: Dict[str, Callable[..., Any]] = {}


class Size(int):
    """``t.size``: the number of entries (an ``int``), callable like PyTorch's
    ``t.size()`` (the shape) and ``t.size(dim)`` (one size; negative dims count from
    the end)."""

    _shape: Tuple[int, ...]

    def __new__(cls, shape: Tuple[int, ...]) -> "Size":
        obj = super().__new__(cls, math.prod(shape))
        obj._shape = shape
        return obj

    def __call__(self, dim: Optional[int] = None) -> Union[Tuple[int, ...], int]:
        if dim is None:
            return self._shape
        return self._shape[normalize_dim(dim, len(self._shape))]


def tensor_operand(name: str, other: Any) -> "Tensor":
    """``other``, which must be a tensor (PyTorch's ``maximum(other)`` and
    ``minimum(other)``, whose Python-number form is ``clamp``).

    Raises:
        TypeError: ``other`` is not a tensor, in PyTorch's words.
    """
    if not isinstance(other, CoreMixin):
        what = type(other).__name__
        raise TypeError(
            f"{name}(): argument 'other' (position 1) must be Tensor, not {what}"
        )
    return other


class CoreMixin:
    """The attributes every tensor has (``backend``, ``_tensor``, ``history``, ``grad``,
    ...), its shape and its numbers read back as Python or NumPy values."""

    # NumPy defers to our reflected operators (np.float64(2.0) * t is a Tensor).
    __array_priority__ = 1000

    # Set on the 1.0/0.0 results of comparisons (PyTorch's bool tensors).
    is_mask: bool = False

    # Set on a tensor once it is some tensor's .grad (accumulate_derivative).
    _is_grad: bool = False

    # The dtype a conversion or factory asked for (None: float64, or bool for a
    # mask); the numbers are float64 whatever it says.
    _dtype: Optional[dtypes.dtype] = None

    # What every tensor has lives in slots (every operation makes a tensor, and
    # reads these): quicker to set and read than a dict entry. Anything else (a
    # name, retains_grad, an attribute a user adds) goes in the instance dict.
    __slots__ = (
        "backend",
        "_tensor",
        "history",
        "_requires_grad",
        "unique_id",
        "grad",
        "__dict__",
        "__weakref__",
    )

    # Defaults of the rarer attributes, kept on the class: an instance stores only
    # what differs.
    retains_grad: bool = False

    name: Optional[str] = None

    def __init__(
        self,
        data: TensorData,
        backend: Optional[TensorBackend] = None,
        history: Optional[autograd.History] = None,
        requires_grad: bool = False,
    ) -> None:
        if type(data) is not TensorData and not isinstance(data, TensorData):
            raise TypeError(
                f"Tensor(...) takes a TensorData; use tensor({data!r}) to make a "
                f"tensor from numbers"
            )
        backend = backend or get_default_backend()
        if backend.cuda and not hasattr(data._storage, "copy_to_host"):
            data = elementwise._in_memory_of(backend, data)  # (into GPU memory)
        self.backend: TensorBackend = backend
        self._tensor = data
        self.history: Optional[autograd.History] = history
        self.grad: Optional["Tensor"] = None
        # (The attribute behind the requires_grad property, set directly: the
        # setter's check is for users. Every operation's result passes here with
        # the defaults, which this expression settles without calling bool().)
        self._requires_grad = history is not None or (
            requires_grad is not False and bool(requires_grad)
        )
        # (Process-wide ids, never reused unlike id(), for the engine's dictionaries.)
        self.unique_id: int = autograd.next_id()

    @property
    def shape(self) -> Tuple[int, ...]:
        """The size of each dimension."""
        return self._tensor.shape

    @property
    def size(self) -> Size:
        """The number of entries; also callable: ``t.size()``, ``t.size(dim)``."""
        return Size(self._tensor.shape)

    def stride(self, dim: Optional[int] = None) -> Union[Tuple[int, ...], int]:
        """``Tensor.stride``: the step in storage, in entries, along each dim (or
        ``dim``) of this view, as ``size()`` gives the sizes."""
        return Size(self._tensor.strides)(dim)

    def storage_offset(self) -> int:
        """``Tensor.storage_offset``: how many entries into the storage it views
        this tensor starts (0 unless a view, ``x[1]``, starts further on)."""
        start = self._tensor._storage.__array_interface__["data"][0]
        return (start - versions.storage_root(self).__array_interface__["data"][0]) // 8

    def numel(self) -> int:
        """The number of entries."""
        return self._tensor.size

    @property
    def dims(self) -> int:
        """The number of dimensions (0 for a 0-d tensor)."""
        return self._tensor.dims

    ndim = dims  # (PyTorch's name)

    dim = dims.fget  # (PyTorch's method)

    def tuple(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(storage, shape, strides)`` for the kernels."""
        return self._tensor.tuple()

    def item(self) -> Any:
        """The number in a one-element tensor, as a Python number of its dtype
        (as in PyTorch): a float, an int for an integer dtype, a bool for a
        ``bool`` tensor."""
        if self._tensor.size != 1:
            raise ValueError(
                f"item() needs a tensor with exactly one element, got shape "
                f"{self.shape}"
            )
        return np.asarray(self).reshape(()).tolist()  # (__array__: of its dtype)

    def to_numpy(self) -> np.ndarray:
        """A NumPy copy of the numbers, with this tensor's shape."""
        data = self._tensor
        storage = data._storage
        if data.row_major and type(storage) is np.ndarray:
            # Row-major in host memory: a copy of the first ``size`` entries.
            # (The flag alone, not is_contiguous(): that may be a Task 2.1 stub.
            # Measured, NUMBA_NUM_THREADS=1, 12 interleaved rounds without and
            # with it: to_numpy of (10, 100) 9.3 -> 0.7 us, the Task 3.5 epoch
            # -2.5% fastest, -1.1% median; an A/A pair moved it 0.6%.)
            return storage[: data.size].reshape(data.shape).copy()
        if hasattr(storage, "copy_to_host"):
            # In GPU memory (CudaBackend): copy back only the span this view reaches.
            last = sum((n - 1) * s for n, s in zip(data.shape, data.strides))
            storage = storage[: last + 1].copy_to_host() if data.size else np.zeros(0)
        # A copy of a view of the storage (the view is never written).
        return np.array(host_view(storage, data.shape, data.strides), dtype=np.float64)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        # (an array of its dtype, as PyTorch's: np.asarray(labels) is int64,
        # tensor([t0, t1]) of float32 0-d tensors float32, tolist() rounds)
        if dtype is None and self.dtype is not dtypes.float64:
            dtype = self.dtype.name
        return np.asarray(self.to_numpy(), dtype)  # (a fresh copy already)

    def numpy(self) -> np.ndarray:
        """A NumPy copy of the numbers in the tensor's dtype (int64 labels give
        an int64 array, a mask a bool one, as PyTorch's; :meth:`to_numpy` gives
        the float64 storage). Call it on a tensor that does not require grad, or
        on ``t.detach()``."""
        if self.requires_grad:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use "
                "tensor.detach().numpy() instead."
            )
        return self.to_numpy().astype(self.dtype.name, copy=False)

    def tolist(self) -> Any:
        """Nested lists of Python numbers of the tensor's dtype (floats, ints
        or bools, as :meth:`item`; a number for a 0-d tensor)."""
        return np.asarray(self).tolist()  # (__array__: an array of its dtype)

    def __float__(self) -> float:
        return float(self.item())

    def __format__(self, spec: str) -> str:
        # f"{loss:.4f}": a 0-d tensor formats as its number, as in PyTorch.
        if self.dims == 0:
            return format(self.item(), spec)
        if spec:
            raise TypeError(
                f"unsupported format string passed to Tensor.__format__ (a tensor "
                f"of shape {self.shape}; only a 0-d tensor formats as a number)"
            )
        return repr(self)

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        """An integer tensor of one entry as an index: ``x[:n]``, ``range(n)``."""
        return int.__index__(self.item())  # (a float: TypeError, as in PyTorch)

    def __bool__(self) -> bool:
        if self._tensor.size != 1:
            raise ValueError(
                f"the truth value of a tensor of shape {self.shape} is ambiguous; "
                f"use .all() or .item()"
            )
        return self.item() != 0.0

    def __len__(self) -> int:
        if self.dims == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self) -> Iterator["Tensor"]:
        if self.dims == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self.shape[0]))

    def __repr__(self) -> str:
        # (its dtype's numbers, as PyTorch's: int64 prints 3, a mask True)
        array = np.asarray(self)
        whole = array.size > 0 and bool(np.all(np.isfinite(array) & (array % 1 == 0)))
        text = np.array2string(
            array,
            separator=", ",
            prefix="tensor(",
            precision=4,
            floatmode="maxprec" if whole else "fixed",
        )
        extra = ""
        if self.backend is not SimpleBackend:
            extra += f", backend='{self.backend.name}'"
        if self.history is not None:
            extra += f", grad_fn=<{self.history.last_fn.__name__}Backward>"
        elif self.requires_grad:
            extra += ", requires_grad=True"
        return f"tensor({text}{extra})"

    # A tensor of ``data`` on this backend, without history (a Tensor, also for
    # a Parameter): the engine's function, which builds it without the
    # constructor's checks.
    _new = autograd._new
