"""``Tensor``: an n-dimensional array of floats that remembers how it was computed.

A ``Tensor`` is three things:

* its numbers, a :class:`~module2_tensors.tensor_data.TensorData` (flat storage,
  shape, strides);
* a *backend* (:class:`~module2_tensors.tensor_ops.TensorBackend`) whose kernels
  compute every operation;
* for a computed tensor, a *history* (the function, its context and inputs) that
  the shared autodiff engine of Module 1 walks backwards.

This file is given: it checks and normalises arguments the way PyTorch does (negative
dims, ``keepdim``, shapes with ``-1``, Python numbers on either side of an operator)
and hands the work to the functions of ``tensor_functions.py`` (Tasks 2.3 and 2.4)
and ``shape_functions.py`` (Task 2.6).

PyTorch semantics, with these differences:

* every tensor holds float64 numbers; comparisons give ``1.0``/``0.0`` and indices
  (``sort``, ``topk``) are floats too;
* ``t.size`` is the number of entries (an ``int``, as NumPy's ``a.size``), and it is
  also callable like PyTorch's method: ``t.size()`` is the shape, ``t.size(dim)``
  one size. ``t.numel()`` is the number of entries too;
* an in-place operation (``+=``, ``add_``, ...) with autograd on a *view* of a
  tensor that requires grad is refused (PyTorch rewrites the base's graph), and
  a tensor changed in place after a function used it fails that function's
  backward even where the function did not save it.
"""

from __future__ import annotations

import functools
import itertools
import math
import numbers
from typing import (
    Any,
    Callable,
    Dict,
    Iterator,
    List,
    NamedTuple,
    Optional,
    Sequence,
    Tuple,
    Union,
)

import numpy as np

from module0_fundamentals import module as _module
from module1_scalar_autodiff.autodiff import backpropagate

from .engine import autograd
from . import shape_functions as sf
from . import tensor_functions as tf
from .engine import dtypes
from .engine.devices import Device, backend_for, device_of, get_default_backend
from .engine.devices import backend_named, register_backend
from .engine.reductions import Reduction
from .engine.shapes import normalize_dim
from .tensor_data import TensorData, UserShape, shape_broadcast
from .tensor_ops import SimpleBackend, TensorBackend, matmul_shape

__all__ = [
    "Tensor",
    "Size",
    "MaxResult",
    "SortResult",
    "TopKResult",
    "tensor",
    "zeros",
    "ones",
    "full",
    "rand",
    "randn",
    "arange",
    "zeros_like",
    "ones_like",
    "full_like",
    "rand_like",
    "randn_like",
    "eye",
    "linspace",
    "randint",
    "randperm",
    "from_numpy",
    "manual_seed",
    "mm",
    "bmm",
    "concat",
    "concatenate",
    "clip",
    "equal",
    "allclose",
    "isclose",
    "argsort",
    "einsum",
]

TensorLike = Union[float, int, "Tensor"]

# Process-wide ids, never reused (unlike id()), for the engine's dictionaries.
_ids = itertools.count()
_next_id = _ids.__next__

#: The 0-d tensors of Python numbers used as operands (``x * 2.0``), per backend
#: and value: a training loop meets the same few numbers every step. They are only
#: ever inputs of operations (never returned to the user, never changed in place),
#: so one tensor per number can serve every operation.
_NUMBERS: Dict[Tuple[Any, float, float], "Tensor"] = {}
_MAX_NUMBERS = 1024

#: (shape, dim, keepdim, function, empty_ok, average) -> the plan of a reduction
#: (``Tensor._reduction_plan``), for an int or None dim.
_REDUCTIONS: Dict[Tuple[Any, ...], Tuple[Any, ...]] = {}
_MAX_REDUCTIONS = 4096


def _shape_args(args: Sequence[Any]) -> Tuple[Any, ...]:
    """``f(2, 3)`` and ``f((2, 3))`` both mean shape ``(2, 3)``."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return tuple(args)


# The default backend (one for factories and layers alike) is chosen in _device;
# SimpleBackend is its last resort, always ready.
register_backend(SimpleBackend, lambda: True)


def _as_int64(indices: "Tensor") -> "Tensor":
    """Positions (integral floats in storage) labelled ``int64``, as PyTorch's
    index results are: ``.item()`` gives an int, and they index."""
    indices._dtype = dtypes.int64
    return indices


class MaxResult(NamedTuple):
    """``t.max(dim)`` and ``t.min(dim)`` return ``(values, indices)``, like
    ``torch.max``; ``indices`` are floats without gradient."""

    values: "Tensor"
    indices: "Tensor"


class SortResult(NamedTuple):
    """``t.sort(dim)`` returns ``(values, indices)`` with these names, like
    ``torch.sort``."""

    values: "Tensor"
    indices: "Tensor"


class TopKResult(NamedTuple):
    """``t.topk(k)`` returns ``(values, indices)`` with these names, like
    ``torch.topk``."""

    values: "Tensor"
    indices: "Tensor"


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


class Size(int):
    """``t.size``: the number of entries (an ``int``), callable like PyTorch's
    ``t.size()`` (the shape) and ``t.size(dim)`` (one size; negative dims count from
    the end)."""

    _shape: Tuple[int, ...]

    def __new__(cls, shape: Tuple[int, ...]) -> "Size":
        count = 1
        for n in shape:
            count *= n
        obj = super().__new__(cls, count)
        obj._shape = shape
        return obj

    def __call__(self, dim: Optional[int] = None) -> Union[Tuple[int, ...], int]:
        if dim is None:
            return self._shape
        return self._shape[normalize_dim(dim, len(self._shape))]


class Tensor:
    """A differentiable n-dimensional array of float64 numbers.

    Make tensors with :func:`tensor`, :func:`zeros`, :func:`ones`, :func:`rand`,
    ...; the constructor takes a ``TensorData`` and is for library code.

    Args:
        data: the numbers.
        backend: the backend whose kernels compute on this tensor (default:
            :func:`get_default_backend`).
        history: how it was computed (set by ``Function.apply``).
        requires_grad: for a tensor made by the user, whether ``backward`` gives it
            a ``.grad``.

    Attributes:
        grad: $\\partial L / \\partial \\text{self}$ accumulated by ``backward`` (a
            tensor of the same shape), ``None`` until then.
        requires_grad: whether gradients flow to (or through) this tensor.
        history: the :class:`~module2_tensors.tensor_functions.History`, or
            ``None`` for a leaf.
    """

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
        history: Optional[tf.History] = None,
        requires_grad: bool = False,
        name: Optional[str] = None,
    ) -> None:
        if not isinstance(data, TensorData):
            raise TypeError(
                f"Tensor(...) takes a TensorData; use tensor({data!r}) to make a "
                f"tensor from numbers"
            )
        if backend is None:
            backend = get_default_backend()
        if backend.cuda and not hasattr(data._storage, "copy_to_host"):
            data = tf._in_memory_of(backend, data)  # CudaBackend: in GPU memory
        self.backend: TensorBackend = backend
        self._tensor = data
        self.history: Optional[tf.History] = history
        self.grad: Optional["Tensor"] = None
        if history is not None:
            self._requires_grad = True
        else:
            # (The attribute behind the requires_grad property, set directly: the
            # setter's check is for users.)
            self._requires_grad = bool(requires_grad)
        self.unique_id: int = _next_id()
        if name is not None:
            self.name = name

    # ------------------------------------------------------------- properties
    @property
    def requires_grad(self) -> bool:
        """Whether operations on this tensor are recorded for ``backward``."""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        # PyTorch's rule: a computed tensor keeps recording (its gradient flows
        # back to its inputs); only leaves can be switched off.
        if not value and self.history is not None:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf tensors; use "
                ".detach() to get a computed tensor without history"
            )
        self._requires_grad = bool(value)

    @property
    def shape(self) -> Tuple[int, ...]:
        """The size of each dimension."""
        return self._tensor.shape

    @property
    def size(self) -> Size:
        """The number of entries; also callable: ``t.size()``, ``t.size(dim)``."""
        return Size(self._tensor.shape)

    def numel(self) -> int:
        """The number of entries."""
        return self._tensor.size

    @property
    def dims(self) -> int:
        """The number of dimensions (0 for a 0-d tensor)."""
        return self._tensor.dims

    @property
    def ndim(self) -> int:
        """The number of dimensions (PyTorch's name)."""
        return self._tensor.dims

    def dim(self) -> int:
        """The number of dimensions (PyTorch's method)."""
        return self._tensor.dims

    @property
    def grad_fn(self) -> Optional[type]:
        """The function that made this tensor (``None`` for a leaf)."""
        return None if self.history is None else self.history.last_fn

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

    def tuple(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(storage, shape, strides)`` for the kernels."""
        return self._tensor.tuple()

    # ---------------------------------------------------------- conversions
    def item(self) -> Any:
        """The number in a one-element tensor, as a Python number of its dtype
        (as in PyTorch): a float, an int for an integer dtype, a bool for a
        ``bool`` tensor."""
        if self._tensor.size != 1:
            raise ValueError(
                f"item() needs a tensor with exactly one element, got shape "
                f"{self.shape}"
            )
        storage = self._tensor._storage
        if hasattr(storage, "copy_to_host"):  # in GPU memory: copy the one number
            value = float(self.to_numpy().reshape(-1)[0])
        else:
            value = float(storage[0])  # (a tensor's first entry is at position 0)
        d = self._dtype
        if self.is_mask or d is dtypes.bool_:
            return value != 0.0
        return value if d is None or d.is_floating_point else int(value)

    def to_numpy(self) -> np.ndarray:
        """A NumPy copy of the numbers, with this tensor's shape."""
        data = self._tensor
        storage = data._storage
        if data.row_major and type(storage) is np.ndarray:
            # Row-major in host memory: a copy of the first ``size`` entries.
            # (The flag alone, not is_contiguous(): that may be a Task 2.1 stub.)
            return storage[: data.size].reshape(data.shape).copy()
        if hasattr(storage, "copy_to_host"):
            # In GPU memory (CudaBackend): copy back only the span this view reaches.
            last = sum((n - 1) * s for n, s in zip(data.shape, data.strides))
            storage = storage[: last + 1].copy_to_host() if data.size else np.zeros(0)
        view = np.lib.stride_tricks.as_strided(
            storage,
            shape=data.shape,
            strides=tuple(8 * step for step in data.strides),
            writeable=False,
        )
        return np.array(view, dtype=np.float64)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        array = self.to_numpy()
        return array if dtype is None else array.astype(dtype)

    def __reduce__(self) -> Tuple[Any, Tuple[Any, ...]]:
        # pickle, copy.deepcopy, kt.save: the numbers, the backend's name and
        # the flag (rebuild_tensor rebuilds the tensor).
        return rebuild_tensor, (self.to_numpy(), self.backend.name, self.requires_grad)

    def numpy(self) -> np.ndarray:
        """A NumPy copy of the numbers (PyTorch's name; :meth:`to_numpy`). Call
        it on a tensor that does not require grad, or on ``t.detach()``."""
        if self.requires_grad:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use "
                "tensor.detach().numpy() instead."
            )
        return self.to_numpy()

    def tolist(self) -> Any:
        """Nested lists of Python numbers of the tensor's dtype (floats, ints
        or bools, as :meth:`item`; a number for a 0-d tensor)."""
        array = self.to_numpy()
        d = self._dtype
        if self.is_mask or d is dtypes.bool_:
            return (array != 0.0).tolist()
        if d is not None and not d.is_floating_point:
            return array.astype(np.int64).tolist()
        return array.tolist()

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
        array = self.to_numpy()
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

    # ------------------------------------------------------ making tensors
    def _new(self, data: TensorData) -> "Tensor":
        return Tensor(data, self.backend)

    def new_full(self, shape: UserShape, value: float) -> "Tensor":
        """A new contiguous tensor of ``shape`` filled with ``value``, on this
        tensor's backend."""
        return Tensor(TensorData.full(tuple(shape), float(value)), self.backend)

    def new_zeros(self, *shape: Any) -> "Tensor":
        """A new tensor of zeros on this tensor's backend: ``new_zeros(2, 3)`` or
        ``new_zeros((2, 3))``, as PyTorch's."""
        return Tensor(TensorData.full(sf._shape_args(shape)), self.backend)

    def new_ones(self, *shape: Any) -> "Tensor":
        """A new tensor of ones on this tensor's backend (shape as
        :meth:`new_zeros`)."""
        return self.new_full(sf._shape_args(shape), 1.0)

    def new_tensor(self, data: Any) -> "Tensor":
        """A new tensor of ``data`` (numbers, nested lists) on this backend."""
        return tensor(data, backend=self.backend)

    def to(self, *args: Any, **kwargs: Any) -> "Tensor":
        """This tensor on another backend (differentiable), as PyTorch's
        ``t.to(...)``: ``to(backend)``, ``to("cpu")``, ``to("cuda")``,
        ``to(device=...)``, ``to(kt.float32)``, ``to("cpu", kt.int64)``,
        ``to(other_tensor)`` (its backend and dtype); this tensor itself when
        nothing changes. The numbers are shared between
        backends that compute in the same memory, and copied to or from the GPU
        when one of the two is ``CudaBackend``."""
        target = kwargs.pop("device", None)
        wanted = kwargs.pop("dtype", None)
        for key in ("non_blocking", "copy"):
            kwargs.pop(key, None)
        if kwargs:
            raise TypeError(f"to() got unexpected arguments {sorted(kwargs)}")
        for arg in args:
            if isinstance(arg, dtypes.dtype):
                wanted = arg
            elif target is None and not isinstance(arg, bool):
                target = arg
        out = self
        if target is not None:
            if isinstance(target, Tensor):
                backend = target.backend
                wanted = target.dtype if wanted is None else wanted
            elif isinstance(target, TensorBackend):
                backend = target
            else:
                backend = backend_for(target)
            if backend is not self.backend:
                out = tf.ToBackend.apply(self, backend)
                if self.is_mask or self._dtype is not None:  # (keep what it was)
                    out = out._as_mask() if self.is_mask else out
                    out._dtype = self._dtype
        return out if wanted is None else out._as_dtype(wanted)

    @property
    def device(self) -> Device:
        """The device this tensor's backend computes on (``device('cpu')`` or
        ``device('cuda', 0)``); ``t.backend`` is the backend itself."""
        return device_of(self.backend)

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

    def _other(self, b: TensorLike) -> "Tensor":
        """``b`` as a tensor on this backend (a Python number becomes 0-d)."""
        if isinstance(b, Tensor):
            return b
        if type(b) is float or isinstance(b, numbers.Real):  # (float: no ABC check)
            value = float(b)
            # (-0.0 == 0.0 in a dict: the sign keeps them apart; NaN is never kept.)
            key = (self.backend, value, math.copysign(1.0, value))
            number = _NUMBERS.get(key)
            if number is None:
                number = Tensor(TensorData(np.array([value]), ()), self.backend)
                if len(_NUMBERS) < _MAX_NUMBERS and value == value:
                    _NUMBERS[key] = number
            return number
        raise TypeError(
            f"unsupported operand: a Tensor and a {type(b).__name__} ({b!r})"
        )

    # ---------------------------------------------------------- arithmetic
    def __add__(self, b: TensorLike) -> "Tensor":
        return tf.Add.apply(self, self._other(b))

    def __radd__(self, b: TensorLike) -> "Tensor":
        return tf.Add.apply(self._other(b), self)

    def __sub__(self, b: TensorLike) -> "Tensor":
        # a - 2.0 is a + (-2.0): one kernel, exact. (float first: no ABC check.)
        if type(b) is float or isinstance(b, numbers.Real):
            return tf.Add.apply(self, self._other(-b))
        return tf.Add.apply(self, tf.Neg.apply(self._other(b)))

    def __rsub__(self, b: TensorLike) -> "Tensor":
        return tf.Add.apply(self._other(b), tf.Neg.apply(self))

    def __mul__(self, b: TensorLike) -> "Tensor":
        return tf.Mul.apply(self, self._other(b))

    def __rmul__(self, b: TensorLike) -> "Tensor":
        return tf.Mul.apply(self._other(b), self)

    def __truediv__(self, b: TensorLike) -> "Tensor":
        return tf.Mul.apply(self, tf.Inv.apply(self._other(b)))

    def __rtruediv__(self, b: TensorLike) -> "Tensor":
        return tf.Mul.apply(self._other(b), tf.Inv.apply(self))

    def __neg__(self) -> "Tensor":
        return tf.Neg.apply(self)

    def __pos__(self) -> "Tensor":
        return self

    def __pow__(self, p: TensorLike) -> "Tensor":
        if isinstance(p, Tensor):
            return tf.PowTensor.apply(self, p)
        if not isinstance(p, numbers.Real):
            raise TypeError(f"the exponent must be a number, got {type(p).__name__}")
        return tf.Pow.apply(self, float(p))

    def __rpow__(self, b: TensorLike) -> "Tensor":
        """``2 ** x``: a number raised to a tensor."""
        return tf.PowTensor.apply(self._other(b), self)

    def pow(self, p: TensorLike) -> "Tensor":
        """``self ** p`` (``p`` a number or a tensor)."""
        return self**p

    def __floordiv__(self, b: TensorLike) -> "Tensor":
        """$\\lfloor a / b \\rfloor$ (gradient 0, as ``torch.floor_divide``)."""
        return (self / b).floor()

    def __rfloordiv__(self, b: TensorLike) -> "Tensor":
        return (self._other(b) / self).floor()

    def __mod__(self, b: TensorLike) -> "Tensor":
        """$a - b \\lfloor a / b \\rfloor$: the sign of the divisor, like Python's
        ``%`` and ``torch.remainder``."""
        b = self._other(b)
        return self - (self / b).floor() * b

    def __rmod__(self, b: TensorLike) -> "Tensor":
        return self._other(b) % self

    def __rmatmul__(self, b: Any) -> "Tensor":
        """``b @ t`` for a ``b`` that is not a tensor (a NumPy array, lists).

        Also a speed matter: for ``x @ p`` with ``p`` a ``Parameter`` (a Tensor
        subclass), Python first looks for the subclass's ``__rmatmul__``; where
        there was none, that failed lookup raised and cleared an AttributeError
        on every product (+1.3 us, about 1% of the Task 3.5 epoch)."""
        if not isinstance(b, Tensor):
            b = self.new_tensor(b)
        return b.__matmul__(self)

    def __matmul__(self, b: "Tensor") -> "Tensor":
        """Matrix product with PyTorch's rules: batched over leading dimensions
        (broadcast), and a 1-D operand is a row (left) or column (right) vector
        whose dimension is removed from the result."""
        if not isinstance(b, Tensor):
            raise TypeError(f"matmul needs two tensors, got a {type(b).__name__}")
        if self.dims == 0 or b.dims == 0:
            raise ValueError(
                f"matmul needs tensors of at least 1 dimension, got shapes "
                f"{self.shape} and {b.shape}"
            )
        a = self.contiguous().view(1, self.shape[0]) if self.dims == 1 else self
        c = b.contiguous().view(b.shape[0], 1) if b.dims == 1 else b
        # Checks the shapes here, so every backend reports errors the same way.
        try:
            shape = matmul_shape(a.shape, c.shape)
        except ValueError:
            raise ValueError(
                f"cannot multiply shapes {self.shape} and {b.shape}: the inner "
                f"sizes must agree and batch dimensions must broadcast"
            ) from None
        out = tf.MatMul.apply(a, c)
        if self.dims == 1 or b.dims == 1:
            keep = shape[:-2]
            keep += () if self.dims == 1 else shape[-2:-1]
            keep += () if b.dims == 1 else shape[-1:]
            out = out.view(keep)
        return out

    def matmul(self, b: "Tensor") -> "Tensor":
        """``self @ b``."""
        return self @ b

    # --------------------------------------------------------- comparisons
    # Comparisons give 1.0/0.0 tensors marked ``is_mask``: indexing with one
    # selects (``x[x > 0]``) instead of picking entries 0 and 1.
    def _as_mask(self) -> "Tensor":
        self.is_mask = True
        return self

    def __lt__(self, b: TensorLike) -> "Tensor":
        return tf.LT.apply(self, self._other(b))._as_mask()

    def __gt__(self, b: TensorLike) -> "Tensor":
        return tf.GT.apply(self, self._other(b))._as_mask()

    # a <= b as (a < b) + (a == b), never both, so a NaN gives 0 as in IEEE.
    def __le__(self, b: TensorLike) -> "Tensor":
        b = self._other(b)
        return tf.Add.apply(tf.LT.apply(self, b), tf.EQ.apply(self, b))._as_mask()

    def __ge__(self, b: TensorLike) -> "Tensor":
        b = self._other(b)
        return tf.Add.apply(tf.GT.apply(self, b), tf.EQ.apply(self, b))._as_mask()

    def __eq__(self, b: TensorLike) -> "Tensor":  # type: ignore[override]
        return tf.EQ.apply(self, self._other(b))._as_mask()

    def __ne__(self, b: TensorLike) -> "Tensor":  # type: ignore[override]
        b = self._other(b)
        return tf.EQ.apply(tf.EQ.apply(self, b), b.new_tensor(0.0))._as_mask()

    @property
    def dtype(self) -> dtypes.dtype:
        """``kt.bool`` for a mask, else the dtype the tensor was made or
        converted with (``kt.float64`` by default; arithmetic gives float64).
        The numbers are stored as float64 in every case."""
        d = self._dtype
        if d is None:
            return dtypes.bool_ if self.is_mask else dtypes.float64
        return d

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
        if d is dtypes.bool_:
            return self != 0.0
        if not d.is_floating_point:
            with sf.no_grad():
                out = (self.abs().floor() * self.sign())._copy_as_plain()
            out._dtype = d
            return out
        out = tf.Copy.apply(self)  # a new tensor, as PyTorch's conversions make
        out._dtype = None if d is dtypes.float64 else d
        return out

    def _copy_as_plain(self) -> "Tensor":
        """A new tensor object on the same numbers, without mask or dtype mark."""
        return Tensor(self._tensor, self.backend)

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

    # More of PyTorch's API: see shape_functions.py for the math and gradients.
    def prod(self, dim: Optional[int] = None, keepdim: bool = False) -> "Tensor":
        """$\\prod$ over ``dim``."""
        return sf.prod(self, dim, keepdim)

    def cumsum(self, dim: int) -> "Tensor":
        """Running sums along ``dim``."""
        return sf.cumsum(self, dim)

    def logsumexp(self, dim: Any, keepdim: bool = False) -> "Tensor":
        """$\\log \\sum e^x$ over ``dim``, stably."""
        return sf.logsumexp(self, dim, keepdim)

    def norm(self, p: Any = 2, dim: Any = None, keepdim: bool = False) -> "Tensor":
        """The ``p``-norm over ``dim``."""
        return sf.norm(self, p, dim, keepdim)

    def flip(self, dims: Union[int, Sequence[int]]) -> "Tensor":
        """Reversed along ``dims``."""
        return sf.flip(self, dims)

    def roll(self, shifts: Any, dims: Any = None) -> "Tensor":
        """Shifted along ``dims``, wrapping around."""
        return sf.roll(self, shifts, dims)

    def movedim(self, source: Any, destination: Any) -> "Tensor":
        """Dimensions moved (a view)."""
        return sf.movedim(self, source, destination)

    def unbind(self, dim: int = 0) -> Tuple["Tensor", ...]:
        """The slices along ``dim``."""
        return sf.unbind(self, dim)

    def tril(self, diagonal: int = 0) -> "Tensor":
        """The lower triangle."""
        return sf.tril(self, diagonal)

    def triu(self, diagonal: int = 0) -> "Tensor":
        """The upper triangle."""
        return sf.triu(self, diagonal)

    def scatter_add(self, dim: int, index: "Tensor", src: "Tensor") -> "Tensor":
        """``torch.Tensor.scatter_add`` (out of place)."""
        return sf.scatter_add(self, dim, index, src)

    def index_add(
        self, dim: int, index: Any, source: "Tensor", alpha: float = 1.0
    ) -> "Tensor":
        """``torch.Tensor.index_add`` (out of place)."""
        return sf.index_add(self, dim, index, source, alpha)

    def nonzero(self, as_tuple: bool = False) -> Any:
        """The indices of the non-zero entries."""
        return sf.nonzero(self, as_tuple)

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
        if dtype is None:
            return f"kindling.{self.dtype.name}"
        return self._as_dtype(dtype)

    def clone(self) -> "Tensor":
        """A copy with its own storage; differentiable (the gradient flows back
        to this tensor)."""
        return tf.Copy.apply(self)

    def t(self) -> "Tensor":
        """The transpose of a matrix (a 0-d or 1-D tensor is returned as is)."""
        if self.dims > 2:
            raise ValueError(
                f"t() expects a tensor with <= 2 dimensions, got {self.dims}"
            )
        return self if self.dims < 2 else self.permute(1, 0)

    def expand_as(self, other: "Tensor") -> "Tensor":
        """``self.expand(*other.shape)``."""
        return self.expand(*other.shape)

    def view_as(self, other: "Tensor") -> "Tensor":
        """``self.view(*other.shape)``."""
        return self.view(*other.shape)

    def reshape_as(self, other: "Tensor") -> "Tensor":
        """``self.reshape(*other.shape)``."""
        return self.reshape(*other.shape)

    def logical_not(self) -> "Tensor":
        """$1$ where zero, else $0$ (``~mask``)."""
        return self == 0.0

    __invert__ = logical_not

    def logical_and(self, b: TensorLike) -> "Tensor":
        """$1$ where both are non-zero (``mask & mask``)."""
        b = self._other(b)
        return tf.LT.apply(b.new_tensor(0.0), self.bool() * b.bool())._as_mask()

    __and__ = __rand__ = logical_and

    def logical_or(self, b: TensorLike) -> "Tensor":
        """$1$ where either is non-zero (``mask | mask``)."""
        b = self._other(b)
        return tf.LT.apply(b.new_tensor(0.0), self.bool() + b.bool())._as_mask()

    __or__ = __ror__ = logical_or

    def logical_xor(self, b: TensorLike) -> "Tensor":
        """$1$ where exactly one is non-zero (``mask ^ mask``)."""
        return (self.bool() != self._other(b).bool())._as_mask()

    __xor__ = __rxor__ = logical_xor

    # == builds a tensor, so hashing falls back to identity (as in PyTorch).
    __hash__ = object.__hash__

    def is_close(self, b: TensorLike) -> "Tensor":
        """$1$ where $|a - b| < 10^{-2}$, else $0$."""
        return tf.IsClose.apply(self, self._other(b))

    # ---------------------------------------------------- element functions
    def neg(self) -> "Tensor":
        """$-x$."""
        return tf.Neg.apply(self)

    def sigmoid(self) -> "Tensor":
        """$\\sigma(x) = 1 / (1 + e^{-x})$."""
        return tf.Sigmoid.apply(self)

    def relu(self) -> "Tensor":
        """$\\max(x, 0)$."""
        return tf.ReLU.apply(self)

    def log(self) -> "Tensor":
        """$\\ln x$."""
        return tf.Log.apply(self)

    def exp(self) -> "Tensor":
        """$e^x$."""
        return tf.Exp.apply(self)

    def tanh(self) -> "Tensor":
        """$\\tanh x$."""
        return tf.Tanh.apply(self)

    def sin(self) -> "Tensor":
        """$\\sin x$."""
        return tf.Sin.apply(self)

    def cos(self) -> "Tensor":
        """$\\cos x$."""
        return tf.Cos.apply(self)

    def sqrt(self) -> "Tensor":
        """$\\sqrt{x}$."""
        return tf.Sqrt.apply(self)

    def abs(self) -> "Tensor":
        """$|x|$ (gradient $\\mathrm{sign}(x)$, 0 at 0)."""
        return tf.Abs.apply(self)

    __abs__ = abs

    def erf(self) -> "Tensor":
        """The error function $\\mathrm{erf}(x)$."""
        return tf.Erf.apply(self)

    def log1p(self) -> "Tensor":
        """$\\ln(1 + x)$, accurate for small $x$."""
        return tf.Log1p.apply(self)

    def expm1(self) -> "Tensor":
        """$e^x - 1$, accurate for small $x$."""
        return tf.Expm1.apply(self)

    def rsqrt(self) -> "Tensor":
        """$1 / \\sqrt{x}$."""
        return 1.0 / self.sqrt()

    def floor(self) -> "Tensor":
        """$\\lfloor x \\rfloor$ (gradient 0)."""
        return tf.Piecewise.apply(self, tf._floor)

    def round(self) -> "Tensor":
        """The nearest whole number, halves to even (gradient 0)."""
        return tf.Piecewise.apply(self, tf._round)

    def sign(self) -> "Tensor":
        """$-1$, $0$ or $1$ (gradient 0)."""
        return tf.Piecewise.apply(self, tf._sign)

    def square(self) -> "Tensor":
        """$x^2$."""
        return self * self

    def maximum(self, other: TensorLike) -> "Tensor":
        """$\\max(x, y)$ entry by entry (``torch.maximum``): NaN propagates; a tie
        splits the gradient in halves."""
        return tf.Maximum.apply(self, self._other(other))

    def minimum(self, other: TensorLike) -> "Tensor":
        """$\\min(x, y) = -\\max(-x, -y)$ entry by entry (``torch.minimum``)."""
        return -tf.Maximum.apply(-self, -self._other(other))

    def clamp(
        self, min: Optional[TensorLike] = None, max: Optional[TensorLike] = None
    ) -> "Tensor":
        """Entries limited to ``[min, max]`` (numbers or tensors; either may be
        left out), like ``torch.clamp``: the gradient goes to ``self`` inside,
        to the bound (a tensor) where clamped."""
        if min is None and max is None:
            raise ValueError("clamp needs min or max")
        # min(max(x, low), high): a bound that is a tensor gets the gradient
        # where it is the result (x where low <= x <= high; high where low >
        # high), as in PyTorch.
        out = self
        if min is not None:
            low = self._other(min)
            out = sf.where(out < low, low, out)
        if max is not None:
            high = self._other(max)
            out = sf.where(out > high, high, out)
        return out

    clip = clamp

    def masked_fill(self, mask: "Tensor", value: TensorLike) -> "Tensor":
        """``value`` where ``mask`` is non-zero, this tensor elsewhere (``mask``
        broadcasts); the gradient flows to the entries that were kept."""
        return sf.where(mask, value, self)

    def where(self, condition: "Tensor", other: TensorLike) -> "Tensor":
        """``torch.Tensor.where``: this tensor where ``condition`` is non-zero,
        ``other`` elsewhere (``kt.where(condition, self, other)``)."""
        return sf.where(condition, self, other)

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
        for a number). Where ``index`` repeats a position the result is
        unspecified, as in PyTorch. The gradient reaches this tensor at the
        positions not written, and ``src`` at the entries that were."""
        if src is None:
            if value is None:
                raise TypeError("scatter() needs src or value")
            src = value
        if not isinstance(src, Tensor):
            src = self.new_full(index.shape, float(src))
        else:
            src = src[tuple(slice(0, n) for n in index.shape)]
        written = sf.scatter_add(self.new_zeros(self.shape), dim, index, index * 0 + 1)
        placed = sf.scatter_add(self.new_zeros(self.shape), dim, index, src)
        return sf.where(written > 0, placed, self)

    def equal(self, other: "Tensor") -> bool:
        """``torch.equal``: the same shape and the same numbers (NaN equals
        nothing)."""
        return self.shape == other.shape and bool(
            np.array_equal(self.to_numpy(), np.asarray(other))
        )

    def isclose(
        self,
        other: TensorLike,
        rtol: float = 1e-05,
        atol: float = 1e-08,
        equal_nan: bool = False,
    ) -> "Tensor":
        """``torch.isclose``: a mask of $|a - b| \\le \\text{atol} + \\text{rtol}
        \\cdot |b|$ (equal infinities are close; NaN only with ``equal_nan``)."""
        b = self._other(other)
        close = np.isclose(self.to_numpy(), b.to_numpy(), rtol, atol, equal_nan)
        return tensor(close.astype(np.float64), backend=self.backend)._as_mask()

    def allclose(
        self,
        other: TensorLike,
        rtol: float = 1e-05,
        atol: float = 1e-08,
        equal_nan: bool = False,
    ) -> bool:
        """``torch.allclose``: :meth:`isclose` everywhere."""
        b = self._other(other)
        return bool(np.allclose(self.to_numpy(), b.to_numpy(), rtol, atol, equal_nan))

    def argsort(self, dim: int = -1, descending: bool = False, stable: bool = False):
        """``torch.argsort``: the indices that sort along ``dim`` (the sort is
        always stable here)."""
        return self.sort(dim, descending).indices

    def log_softmax(self, dim: int, dtype: Any = None) -> "Tensor":
        """$x_i - \\log \\sum_j e^{x_j}$ along ``dim`` (``F.log_softmax``)."""
        return self - self.logsumexp(dim, keepdim=True)

    def softmax(self, dim: int, dtype: Any = None) -> "Tensor":
        """$e^{x_i} / \\sum_j e^{x_j}$ along ``dim`` (``F.softmax``), computed
        as ``exp(log_softmax)`` so large entries do not overflow."""
        return self.log_softmax(dim).exp()

    # In-place forms (PyTorch's trailing underscore): see _in_place for autograd.
    def masked_fill_(self, mask: "Tensor", value: TensorLike) -> "Tensor":
        """:meth:`masked_fill`, in place; returns ``self``."""
        return self._in_place("masked_fill_", lambda a, v: sf.where(mask, v, a), value)

    def clamp_(
        self, min: Optional[TensorLike] = None, max: Optional[TensorLike] = None
    ) -> "Tensor":
        """:meth:`clamp`, in place; returns ``self``."""
        return self._in_place("clamp_", lambda a, _: a.clamp(min, max), 0.0)

    clip_ = clamp_

    def relu_(self) -> "Tensor":
        """:meth:`relu`, in place; returns ``self``."""
        return self._in_place("relu_", lambda a, _: a.relu(), 0.0)

    def normal_(
        self, mean: float = 0.0, std: float = 1.0, *, generator: Any = None
    ) -> "Tensor":
        """Fill with samples of $N(\\text{mean}, \\text{std}^2)$, in place (from
        the generator :func:`manual_seed` sets, or ``generator``)."""
        noise = randn(*self.shape, backend=self.backend, generator=generator)
        return self._in_place("normal_", _Overwrite.apply, noise * std + mean)

    def uniform_(
        self, a: float = 0.0, b: float = 1.0, *, generator: Any = None
    ) -> "Tensor":
        """Fill with samples of $U(a, b)$, in place."""
        noise = rand(*self.shape, backend=self.backend, generator=generator)
        return self._in_place("uniform_", _Overwrite.apply, noise * (b - a) + a)

    # ----------------------------------------------------------- reductions
    def _reduce_dims(self, dim: Union[None, int, Sequence[int]]) -> Tuple[int, ...]:
        if dim is None:
            return tuple(range(self.dims))
        if self.dims == 0:
            # PyTorch lets a 0-d tensor be reduced over dim 0 or -1 (a no-op).
            for d in dim if isinstance(dim, (tuple, list)) else (dim,):
                if d not in (0, -1) or isinstance(d, bool):
                    raise IndexError(
                        f"dim={d} is out of range for a 0-d tensor (expected 0 or -1)"
                    )
            return ()
        if isinstance(dim, (tuple, list)):
            dims = sorted({normalize_dim(d, self.dims) for d in dim})
            if len(dims) != len(dim):
                raise ValueError(f"dim {tuple(dim)} names a dimension twice")
            return tuple(dims) if dims else tuple(range(self.dims))
        return (normalize_dim(dim, self.dims),)

    def _reduce(
        self,
        fn: type,
        dim: Union[None, int, Sequence[int]],
        keepdim: bool,
        name: str,
        empty_ok: bool = True,
        average: bool = False,
    ) -> "Tensor":
        """``fn`` (``Sum``, ``Max``, ``All``) over ``dim``, as one
        :class:`~module2_tensors.engine.reductions.Reduction`; ``average`` divides
        by the count of entries reduced (``mean``)."""
        # The plan depends on the shape and the arguments only: remembered for an
        # int or None dim (a loss's mean is planned once, not every step).
        key = None
        if dim is None or type(dim) is int:
            key = (self._tensor.shape, dim, keepdim, fn, empty_ok, average)
        plan = _REDUCTIONS.get(key) if key is not None else None
        if plan is None:
            plan = self._reduction_plan(fn, dim, keepdim, name, empty_ok, average)
            if key is not None and len(_REDUCTIONS) < _MAX_REDUCTIONS:
                _REDUCTIONS[key] = plan
        order, layout, steps, final, scale = plan
        source = self
        if order is not None:
            source = (self if order == () else self.permute(*order)).contiguous()
        args = (source, fn, layout, steps, final, scale)
        if not fn.differentiable:  # (All) nothing to record
            return Reduction.forward(tf.Context(), *args)
        return Reduction.apply(*args)

    def _reduction_plan(
        self,
        fn: type,
        dim: Union[None, int, Sequence[int]],
        keepdim: bool,
        name: str,
        empty_ok: bool,
        average: bool,
    ) -> Tuple[Any, ...]:
        """How :meth:`_reduce` reduces this shape: ``(order, layout, steps, final,
        scale)``. ``order`` is ``None`` to reduce this tensor as it is, ``()`` to
        reduce its contiguous form, or a permutation to apply first; then
        :class:`~module2_tensors.engine.reductions.Reduction` takes ``layout``,
        ``steps``, ``final`` (the result's shape) and ``scale``."""
        dims = self._reduce_dims(dim)
        if not empty_ok and any(self.shape[d] == 0 for d in dims):
            raise ValueError(
                f"{name}() of an empty selection: shape {self.shape} has no entries "
                f"along dimension {[d for d in dims if self.shape[d] == 0][0]}"
            )
        kept = tuple(1 if k in dims else n for k, n in enumerate(self.shape))
        final = (
            kept if keepdim else tuple(n for k, n in enumerate(kept) if k not in dims)
        )
        scale = 1.0
        if average:
            count = 1
            for d in dims:
                count *= self.shape[d]
            # The mean of nothing is 0/0 = nan, as in PyTorch.
            scale = 1.0 / count if count else float("nan")
        order: Optional[Tuple[int, ...]] = None
        layout, steps = self.shape, dims
        if len(dims) == self.dims and self.dims != 1:
            # One kernel over the flat tensor instead of one per dimension.
            order, layout, steps = (), (self._tensor.size,), (0,)
        elif len(dims) > 1 and fn is tf.Max:
            # One reduction over all the dims at once, so that ties across
            # several dims share the gradient evenly (torch.amax's rule).
            rest = [k for k in range(self.dims) if k not in dims]
            order = (*rest, *dims)
            layout = tuple(self.shape[k] for k in rest) + (
                math.prod(self.shape[k] for k in dims),
            )
            steps = (len(rest),)
        return order, layout, steps, final, scale

    def sum(
        self, dim: Union[None, int, Sequence[int]] = None, keepdim: bool = False
    ) -> "Tensor":
        """$\\sum$ over ``dim`` (an int, a tuple of ints, or ``None`` for all).
        The reduced dimensions are removed unless ``keepdim``."""
        return self._reduce(tf.Sum, dim, keepdim, "sum")

    def mean(
        self, dim: Union[None, int, Sequence[int]] = None, keepdim: bool = False
    ) -> "Tensor":
        """The average over ``dim`` (see :meth:`sum`)."""
        return self._reduce(tf.Sum, dim, keepdim, "mean", average=True)

    def amax(
        self, dim: Union[None, int, Sequence[int]] = None, keepdim: bool = False
    ) -> "Tensor":
        """The largest entry over ``dim`` (an int, a tuple, or ``None`` for all),
        values only, like ``torch.amax``: tied maxima share the gradient evenly."""
        return self._reduce(tf.Max, dim, keepdim, "amax", empty_ok=False)

    def amin(
        self, dim: Union[None, int, Sequence[int]] = None, keepdim: bool = False
    ) -> "Tensor":
        """The smallest entry over ``dim``, like ``torch.amin``: $-\\max(-x)$."""
        return -((-self).amax(dim, keepdim))

    def max(
        self, dim: Union[None, int, "Tensor"] = None, keepdim: bool = False
    ) -> Union["Tensor", MaxResult]:
        """Like ``torch.max``:

        * ``t.max()``: the largest entry (0-d); tied maxima share the gradient;
        * ``t.max(dim)``: ``MaxResult(values, indices)`` along ``dim`` (removed
          unless ``keepdim``); ``indices`` is the first maximum, and the gradient
          of ``values`` goes to that entry, as in PyTorch;
        * ``t.max(other)``: the entrywise :meth:`maximum`.

        Use :meth:`amax` for the values over several dims.
        """
        if isinstance(dim, Tensor):
            return self.maximum(dim)
        if dim is None:
            return self._reduce(tf.Max, None, keepdim, "max", empty_ok=False)
        if isinstance(dim, (tuple, list)):
            raise TypeError(
                "max(dim) takes one dim; use amax(dim) for several (values only)"
            )
        return self._max_along("max", dim, keepdim)

    def min(
        self, dim: Union[None, int, "Tensor"] = None, keepdim: bool = False
    ) -> Union["Tensor", MaxResult]:
        """Like ``torch.min`` (see :meth:`max`): $-\\max(-x)$."""
        if isinstance(dim, Tensor):
            return self.minimum(dim)
        if dim is None or isinstance(dim, (tuple, list)):
            if isinstance(dim, (tuple, list)):
                raise TypeError(
                    "min(dim) takes one dim; use amin(dim) for several (values only)"
                )
            return -((-self).max(None, keepdim))
        values, indices = (-self)._max_along("min", dim, keepdim)
        return MaxResult(-values, indices)

    def _max_along(self, name: str, dim: int, keepdim: bool) -> MaxResult:
        x = self.view(1) if self.dims == 0 else self
        d = normalize_dim(dim, max(self.dims, 1))
        if x.shape[d] == 0:
            raise IndexError(
                f"{name}(dim={dim}) of an empty dimension (shape {self.shape})"
            )
        indices = self._arg("max", x, d)
        values = tf.MaxAlong.apply(x, d, indices)
        final = list(x.shape)
        if self.dims == 0:
            final = []
        elif keepdim:
            final[d] = 1
        else:
            del final[d]
        return MaxResult(values.view(*final), _as_int64(indices.view(*final)))

    @staticmethod
    def _arg(kind: str, x: "Tensor", d: int) -> "Tensor":
        """The index of the first maximum (minimum) of ``x`` along ``d``, kept
        with size 1, as floats without gradient (NaN counts as the maximum)."""
        array = x.to_numpy()
        found = np.argmax(array, axis=d) if kind == "max" else np.argmin(array, axis=d)
        return tensor(np.expand_dims(found, d), backend=x.backend)

    def argmax(self, dim: Optional[int] = None, keepdim: bool = False) -> "Tensor":
        """The index of the first maximum along ``dim`` (of the flattened tensor
        for ``None``), like ``torch.argmax`` (floats, no gradient)."""
        return self._argext("max", dim, keepdim)

    def argmin(self, dim: Optional[int] = None, keepdim: bool = False) -> "Tensor":
        """The index of the first minimum, like ``torch.argmin``."""
        return self._argext("min", dim, keepdim)

    def _argext(self, kind: str, dim: Optional[int], keepdim: bool) -> "Tensor":
        if self.size == 0:
            raise ValueError(f"arg{kind}() of an empty tensor of shape {self.shape}")
        if dim is None:
            found = self._arg(kind, self.detach().contiguous().view(-1), 0)
            return _as_int64(
                found.view(*([1] * self.dims)) if keepdim else found.view(())
            )
        d = normalize_dim(dim, max(self.dims, 1))
        x = self.view(1) if self.dims == 0 else self
        found = self._arg(kind, x.detach(), d)
        shape = list(x.shape)
        if self.dims == 0:
            shape = []
        elif keepdim:
            shape[d] = 1
        else:
            del shape[d]
        return _as_int64(found.view(*shape))

    def all(
        self, dim: Union[None, int, Sequence[int]] = None, keepdim: bool = False
    ) -> "Tensor":
        """$1$ where every entry over ``dim`` is non-zero, else $0$."""
        return self._reduce(tf.All, dim, keepdim, "all")

    def any(
        self, dim: Union[None, int, Sequence[int]] = None, keepdim: bool = False
    ) -> "Tensor":
        """$1$ where some entry over ``dim`` is non-zero, else $0$."""
        return 1.0 - (self == 0.0).all(dim, keepdim)

    def var(
        self,
        dim: Union[None, int, Sequence[int]] = None,
        unbiased: bool = True,
        keepdim: bool = False,
        *,
        correction: Optional[int] = None,
    ) -> "Tensor":
        """The variance over ``dim`` (see :func:`shape_functions.var`)."""
        return sf.var(self, dim, unbiased, keepdim, correction=correction)

    def std(
        self,
        dim: Union[None, int, Sequence[int]] = None,
        unbiased: bool = True,
        keepdim: bool = False,
        *,
        correction: Optional[int] = None,
    ) -> "Tensor":
        """The standard deviation: $\\sqrt{\\mathrm{var}}$."""
        # The gradient of sqrt at a zero variance is taken as 0, not 0 * inf (a
        # constant row: PyTorch gives 0).
        return _StdSqrt.apply(self.var(dim, unbiased, keepdim, correction=correction))

    # ------------------------------------------------------------- views
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

    def permute(self, *order: int) -> "Tensor":
        """A view with dimension ``k`` of the result being dimension ``order[k]``
        of this tensor (``permute(1, 0)`` or ``permute((1, 0))``)."""
        order = _shape_args(order)
        order = tuple(normalize_dim(d, self.dims) for d in order)
        return tf.Permute.apply(self, order)

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
        shape = self._infer_shape(_shape_args(shape))
        if not self.is_contiguous():
            strides = _view_strides(self.shape, self._tensor.strides, shape)
            if strides is not None:
                return sf.StridedView.apply(self, shape, strides)
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
            if known == size:
                return shape
        for n in shape:
            if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
                raise TypeError(f"a shape holds integers, got {shape}")
        if list(shape).count(-1) > 1:
            raise ValueError(f"only one size may be -1, got shape {shape}")
        if any(n < -1 for n in shape):
            raise ValueError(f"sizes must be non-negative, got shape {shape}")
        known = 1
        for n in shape:
            if n != -1:
                known *= n
        size = self._tensor.size
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

    def reshape(self, *shape: int) -> "Tensor":
        """Like :meth:`view`, copying first when the tensor is not contiguous."""
        return sf.reshape(self, *shape)

    def transpose(self, dim0: int, dim1: int) -> "Tensor":
        """Swap two dimensions (a view)."""
        return sf.transpose(self, dim0, dim1)

    def squeeze(self, dim: Union[None, int, Sequence[int]] = None) -> "Tensor":
        """Remove dimensions of size 1 (all of them, or those in ``dim``)."""
        return sf.squeeze(self, dim)

    def unsqueeze(self, dim: int) -> "Tensor":
        """Insert a dimension of size 1 at ``dim``."""
        return sf.unsqueeze(self, dim)

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> "Tensor":
        """Merge dimensions ``start_dim .. end_dim`` into one."""
        return sf.flatten(self, start_dim, end_dim)

    def expand(self, *sizes: int) -> "Tensor":
        """Broadcast to a larger shape without copying (``-1`` keeps a size)."""
        return sf.expand(self, *sizes)

    def broadcast_to(self, shape: UserShape) -> "Tensor":
        """Broadcast to ``shape`` without copying."""
        return sf.broadcast_to(self, shape)

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

    def narrow(self, dim: int, start: int, length: int) -> "Tensor":
        """Entries ``start .. start+length-1`` along ``dim`` (a view)."""
        return sf.narrow(self, dim, start, length)

    def index_select(self, dim: int, index: Any) -> "Tensor":
        """The slices ``index[0], index[1], ...`` along ``dim``."""
        return sf.index_select(self, dim, index)

    def gather(self, dim: int, index: "Tensor") -> "Tensor":
        """$\\mathrm{out}[\\dots, i, \\dots] = \\mathrm{self}[\\dots,
        \\mathrm{index}[\\dots, i, \\dots], \\dots]$ along ``dim``."""
        return sf.gather(self, dim, index)

    def sort(self, dim: int = -1, descending: bool = False) -> SortResult:
        """``(values, indices)`` sorted along ``dim`` (stable; NaN is the
        largest), as a named tuple."""
        return SortResult(*sf.sort(self, dim, descending))

    def topk(
        self, k: int, dim: int = -1, largest: bool = True, sorted: bool = True
    ) -> TopKResult:
        """``(values, indices)`` of the ``k`` largest (or smallest) along ``dim``,
        as a named tuple."""
        return TopKResult(*sf.topk(self, k, dim, largest, sorted))

    def __getitem__(self, key: Any) -> "Tensor":
        out = sf.getitem(self, key)
        if out is not self:  # what it reads keeps its dtype, as in PyTorch
            if self.is_mask:
                out.is_mask = True
            elif self._dtype is not None and out._dtype is None:
                out._dtype = self._dtype
        return out

    def __setitem__(self, key: Any, value: TensorLike) -> None:
        """Write ``value`` (broadcast) into ``self[key]``, in place (through
        every view of the same storage). ``key`` may also hold integer tensors
        and boolean masks (see :func:`shape_functions.getitem`)."""
        value = self._other(value)
        if tf.is_grad_enabled() and (self.requires_grad or value.requires_grad):
            if self.requires_grad and self.is_leaf:
                raise RuntimeError(
                    "a leaf Variable that requires grad is being used in an "
                    "in-place operation (item assignment); do it inside "
                    "`with no_grad():`"
                )
            raise RuntimeError(
                "item assignment with autograd (into a tensor that requires grad, "
                "or of a value that does) is not supported; build the result "
                "with where(mask, value, x) instead"
            )
        if sf.is_advanced_key(key):
            sf.set_advanced(self, key, value)
        else:
            target = self._new(sf.index_view(self._tensor, key))
            self._copy_into(target, value)
        tf.bump_version(self)

    # ---------------------------------------------------- in-place helpers
    def _copy_into(self, target: "Tensor", value: TensorLike) -> None:
        value = self._other(value)
        if value.backend is not self.backend:
            value = value.to(self.backend)
        try:
            fits = shape_broadcast(value.shape, target.shape) == target.shape
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(
                f"cannot write a value of shape {value.shape} into shape "
                f"{target.shape}"
            )
        self.backend.id_map(value, out=target)

    def _in_place(
        self,
        what: str,
        op: Callable[["Tensor", "Tensor"], "Tensor"],
        value: TensorLike,
    ) -> "Tensor":
        """Compute ``op(self, value)`` and write it into this tensor's storage
        (so every view of it sees the change); returns ``self``.

        With autograd (gradient recording on and ``self`` or ``value`` requiring
        grad) this tensor becomes the result of ``op`` in the graph, as in
        PyTorch; its old value is kept, copied, for that ``op``'s backward.

        Raises:
            RuntimeError: (PyTorch's rules) ``self`` is a leaf that requires grad;
                entries of ``self`` share memory (an expanded tensor); the
                result does not have ``self``'s shape.
        """
        other = self._other(value)
        strides = self._tensor.strides
        if any(n > 1 and s == 0 for n, s in zip(self.shape, strides)):
            raise RuntimeError(
                f"unsupported operation: more than one element of the written-to "
                f"tensor refers to a single memory location ({what} on an expanded "
                f"tensor of shape {self.shape}); clone() it first"
            )
        if tf.is_grad_enabled() and (self.requires_grad or other.requires_grad):
            if self.requires_grad and self.is_leaf:
                raise RuntimeError(
                    f"a leaf Variable that requires grad is being used in an "
                    f"in-place operation ({what}); do it inside `with no_grad():` "
                    f"or use the out-of-place form"
                )
            root = autograd.storage_root(self)
            if any(autograd.storage_root(p) is root for p in self.parents):
                raise RuntimeError(
                    f"{what} with autograd on a view of a tensor that requires "
                    f"grad is not supported here; use the out-of-place form "
                    f"(y = y + 1)"
                )
            # The old value, as its own node with this tensor's history.
            old = Tensor(
                self.backend.id_map(self)._tensor,
                self.backend,
                history=self.history,
                requires_grad=self.requires_grad,
            )
            out = op(old, old if other is self else other)
        else:
            with sf.no_grad():
                out = op(self, other)
        if out.shape != self.shape:
            raise RuntimeError(
                f"{what}: output with shape {self.shape} doesn't match the "
                f"broadcast shape {out.shape}"
            )
        self.backend.id_map(out, out=self)
        tf.bump_version(self)
        if out.history is not None:
            self.history = out.history
            self.requires_grad = True
        return self

    def add_(self, other: TensorLike, alpha: float = 1.0) -> "Tensor":
        """``self += alpha * other``, in place."""
        if alpha == 1.0:
            return self._in_place("add_", lambda a, b: a + b, other)
        return self._in_place("add_", lambda a, b: a + alpha * b, other)

    def sub_(self, other: TensorLike, alpha: float = 1.0) -> "Tensor":
        """``self -= alpha * other``, in place."""
        if alpha == 1.0:
            return self._in_place("sub_", lambda a, b: a - b, other)
        return self._in_place("sub_", lambda a, b: a - alpha * b, other)

    def mul_(self, other: TensorLike) -> "Tensor":
        """``self *= other``, in place."""
        return self._in_place("mul_", lambda a, b: a * b, other)

    def div_(self, other: TensorLike) -> "Tensor":
        """``self /= other``, in place."""
        return self._in_place("div_", lambda a, b: a / b, other)

    def __iadd__(self, other: TensorLike) -> "Tensor":
        return self._in_place("+=", lambda a, b: a + b, other)

    def __isub__(self, other: TensorLike) -> "Tensor":
        return self._in_place("-=", lambda a, b: a - b, other)

    def __imul__(self, other: TensorLike) -> "Tensor":
        return self._in_place("*=", lambda a, b: a * b, other)

    def __itruediv__(self, other: TensorLike) -> "Tensor":
        return self._in_place("/=", lambda a, b: a / b, other)

    def copy_(self, src: TensorLike) -> "Tensor":
        """Copy ``src`` (broadcast, moved to this backend) into this tensor, in
        place; returns ``self``. Differentiable with respect to ``src``."""
        if isinstance(src, Tensor) and src.backend is not self.backend:
            src = src.to(self.backend)
        return self._in_place("copy_", _Overwrite.apply, src)

    def fill_(self, value: float) -> "Tensor":
        """Set every entry to ``value``, in place; returns ``self``. The old
        values no longer matter: no gradient flows to what made them."""
        return self._in_place("fill_", _Overwrite.apply, float(value))

    def zero_(self) -> "Tensor":
        """Set every entry to 0, in place; returns ``self`` (see :meth:`fill_`)."""
        return self._in_place("zero_", _Overwrite.apply, 0.0)

    # --------------------------------------------------------------- autodiff
    @property
    def data(self) -> "Tensor":
        """The same numbers without history (PyTorch's ``t.data``; prefer
        :meth:`detach`). In-place changes through it are not recorded
        (``w.data -= lr * w.grad``)."""
        return self.detach()

    @data.setter
    def data(self, value: "Tensor") -> None:
        # ``t.data = other`` makes t show other's numbers (shared storage, any
        # shape), keeping t's history and flags; ``w.data -= ...`` ends here,
        # with the very storage w already has.
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, got {type(value).__name__}")
        if value.backend is not self.backend:
            value = value.to(self.backend).detach()
        self._tensor = value._tensor

    @property
    def is_leaf(self) -> bool:
        """True for a tensor no recorded function produced (made by the user, or
        computed without gradient recording); a property, as in PyTorch."""
        return self.history is None

    @property
    def _version(self) -> int:
        """How many in-place operations changed this tensor's storage (shared by
        its views), PyTorch's ``t._version``."""
        return tf.version_of(self)

    def is_constant(self) -> bool:
        """True for a tensor that takes no gradient at all."""
        return not self._requires_grad

    @property
    def parents(self) -> Tuple["Tensor", ...]:
        """The tensor inputs of the function that made this tensor."""
        h = self.history
        return () if h is None else h.parents

    def chain_rule(self, d_output: "Tensor") -> List[Tuple["Tensor", "Tensor"]]:
        """The pairs ``(input, dL/d input)`` for the inputs that require grad,
        each gradient summed back to its input's shape (:func:`unbroadcast`). A
        backward that returns ``None`` for an input sends it no gradient."""
        return autograd.chain_rule(self, d_output, tf.unbroadcast)

    def accumulate_derivative(self, d: "Tensor") -> None:
        """Add ``d`` into ``.grad``."""
        autograd.accumulate_derivative(self, d)

    def backward(
        self,
        grad: Optional[TensorLike] = None,
        retain_graph: Optional[bool] = None,
        create_graph: bool = False,
        *,
        gradient: Optional[TensorLike] = None,
    ) -> None:
        """Backpropagate from this tensor: every leaf it depends on that requires
        grad gets $\\partial L / \\partial \\text{leaf}$ added into ``.grad``.

        Args:
            grad: $\\partial L / \\partial \\text{self}$, of this tensor's shape. It
                may be left out for a one-element tensor (a loss), where it is 1.
            retain_graph: keep the values the functions saved, so that the graph
                can be backpropagated again (by default they are freed, as in
                PyTorch).
            create_graph: record the backward pass itself, so that the
                gradients (``.grad``) have a history and can be differentiated
                again (higher-order gradients; ``engine/higher_order.py``).
                ``retain_graph`` then defaults to true, as in PyTorch.
            gradient: PyTorch's name for ``grad`` (``backward(gradient=v)``).

        Raises:
            RuntimeError: the tensor does not require grad; it has more than
                one element and no ``grad`` was given; the graph was already
                backpropagated without ``retain_graph=True``; or a value a
                function used was changed in place since.
        """
        if gradient is not None:
            if grad is not None:
                raise TypeError("backward() got both grad and gradient")
            grad = gradient
        if not self.requires_grad:
            raise RuntimeError(
                "backward() on a tensor that does not require grad (no input had "
                "requires_grad=True, or it was computed under no_grad())"
            )
        if grad is None:
            if self._tensor.size != 1:
                raise RuntimeError(
                    f"backward() without a gradient needs a tensor with one element "
                    f"(a scalar loss), got shape {self.shape}; pass grad=..."
                )
            grad = self.new_ones(self.shape)
        else:
            if isinstance(grad, numbers.Real):
                # A fresh tensor, never the shared one of _other(): the gradient
                # may end up as a leaf's .grad, which the user may change in place.
                grad = tensor(float(grad), backend=self.backend)
            grad = self._other(grad)
            if grad.shape != self.shape:
                raise ValueError(
                    f"backward(grad): grad has shape {grad.shape} but the tensor has "
                    f"shape {self.shape}"
                )
            if not (create_graph and grad.requires_grad):
                grad = Tensor(grad._tensor, self.backend)  # no history
            # (With create_graph, a seed that requires grad stays in the graph:
            # the gradients then depend on it, as in PyTorch.)
        if retain_graph is None:
            retain_graph = create_graph
        autograd.run_backward(
            self, grad, bool(retain_graph), backpropagate, bool(create_graph)
        )

    def zero_grad_(self) -> None:
        """Forget the accumulated gradient (``.grad`` becomes ``None``)."""
        self.grad = None

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        """Switch gradient tracking of a leaf on or off, in place; returns
        ``self``. A frozen leaf (``False``) is a constant: its ``.grad`` stays
        ``None``.

        Raises:
            RuntimeError: switching off a computed (non-leaf) tensor.
        """
        if not requires_grad and self.history is not None:
            raise RuntimeError(
                "requires_grad_(False) only works on leaves; use .detach() for a "
                "computed tensor"
            )
        self.requires_grad = bool(requires_grad) or self.history is not None
        return self

    def detach(self) -> "Tensor":
        """The same numbers (shared, no copy) without history: a new leaf that
        does not require grad."""
        return Tensor(self._tensor, self.backend)

    def retain_grad(self) -> "Tensor":
        """Keep ``.grad`` on this computed tensor after ``backward``."""
        return sf.retain_grad(self)

    def register_hook(self, hook: Callable[["Tensor"], Any]) -> "autograd.HookHandle":
        """Call ``hook(grad)`` with $\\partial L / \\partial \\text{self}$ during
        ``backward``, as PyTorch does; a tensor it returns replaces the gradient
        (for a leaf, before it is added into ``.grad``). Returns a handle whose
        ``remove()`` takes the hook away.

        Installed on this tensor alone (its own ``accumulate_derivative`` for a
        leaf, a subclass of its function for a computed tensor), so tensors
        without hooks pay nothing.

        Raises:
            RuntimeError: the tensor does not require grad.
        """
        return autograd.register_hook(self, hook)


# Function.apply makes (and the engine checks) values of this class.
autograd.register_tensor_class(Tensor)


def rebuild_tensor(array: np.ndarray, backend: str, requires_grad: bool) -> Tensor:
    """The inverse of ``Tensor.__reduce__``: the numbers on the loaded backend of
    that name (else the default backend)."""
    return tensor(array, backend=backend_named(backend), requires_grad=requires_grad)


class _StdSqrt(tf.Function):
    """$\\sqrt{v}$ of a variance, whose gradient $G / (2 \\sqrt v)$ is taken as 0
    where $v = 0$ (``std`` of a constant row, as PyTorch's ``std`` backward)."""

    @staticmethod
    def forward(ctx: tf.Context, v: Tensor) -> Tensor:
        out = v.backend.sqrt_map(v)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: tf.Context, grad: Tensor) -> Tensor:
        (out,) = ctx.saved_values
        backend = grad.backend
        zero = out.new_tensor(0.0)
        positive = backend.eq_zip(backend.eq_zip(out, zero), zero)
        return backend.select_zip(positive, grad * 0.5 / out)


class _Overwrite(tf.Function):
    """``copy_``/``fill_``/``zero_`` on a tensor in the graph: the result is
    ``b`` broadcast to ``a``'s shape, so $\\partial L / \\partial a = 0$ (the old
    values are gone: PyTorch sends zeros to what made them) and
    $\\partial L / \\partial b = G$ (summed back to ``b``'s shape by the engine)."""

    @staticmethod
    def forward(ctx: tf.Context, a: Tensor, b: Tensor) -> Tensor:
        if shape_broadcast(b.shape, a.shape) != a.shape:
            raise ValueError(
                f"cannot write a value of shape {b.shape} into shape {a.shape}"
            )
        ctx.save_for_backward(a.shape)
        out = a.new_zeros(a.shape)
        a.backend.id_map(b, out=out)  # (the map broadcasts b into out's shape)
        return out

    @staticmethod
    def backward(ctx: tf.Context, grad: Tensor) -> Tuple[Tensor, Tensor]:
        (shape,) = ctx.saved_values
        return grad.new_zeros(shape), grad


def _einsum_parts(equation: str, count: int) -> Tuple[List[str], str]:
    """``"ij,jk->ik"`` as ``(["ij", "jk"], "ik")``; without ``->`` the output
    is the letters used once, in alphabetical order (NumPy's and PyTorch's rule).

    Raises:
        ValueError: a wrong number of operands, ``...``, or a letter repeated
            inside one operand (a diagonal), which this library does not take.
    """
    equation = equation.replace(" ", "")
    if "." in equation:
        raise ValueError("einsum: '...' (ellipsis) is not supported here")
    left, arrow, out = equation.partition("->")
    inputs = left.split(",")
    if len(inputs) != count:
        raise ValueError(
            f"einsum(): the equation names {len(inputs)} operands but {count} "
            f"were given"
        )
    for subs in inputs:
        if len(set(subs)) != len(subs):
            raise ValueError(f"einsum: a repeated index in one operand ({subs!r})")
    if not arrow:
        letters = "".join(inputs)
        out = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    return inputs, out


class _Einsum(tf.Function):
    """``einsum`` computed by NumPy; the gradient of operand $k$ is the einsum of
    $G$ with the other operands onto $k$'s indices, broadcast along the indices
    only $k$ has (they were summed away)."""

    @staticmethod
    def forward(ctx: tf.Context, equation: str, *operands: Tensor) -> Tensor:
        inputs, out = _einsum_parts(equation, len(operands))
        arrays = [t.to_numpy() for t in operands]
        ctx.save_for_backward(inputs, out, arrays)
        result = np.einsum(f"{','.join(inputs)}->{out}", *arrays)
        return tensor(np.asarray(result, dtype=np.float64), backend=operands[0].backend)

    @staticmethod
    def backward(ctx: tf.Context, grad: Tensor) -> Tuple[Any, ...]:
        inputs, out, arrays = ctx.saved_values
        g = grad.to_numpy()
        grads: List[Any] = [None]
        for k, subs in enumerate(inputs):
            others = [(s, a) for j, (s, a) in enumerate(zip(inputs, arrays)) if j != k]
            known = set(out).union(*[set(s) for s, _ in others])
            target = "".join(c for c in subs if c in known)
            spec = ",".join([out] + [s for s, _ in others]) + "->" + target
            part = np.einsum(spec, g, *[a for _, a in others])
            shape = [
                arrays[k].shape[i] if c in known else 1 for i, c in enumerate(subs)
            ]
            full = np.broadcast_to(part.reshape(shape), arrays[k].shape)
            grads.append(tensor(np.array(full), backend=grad.backend))
        return tuple(grads)


def einsum(equation: str, *operands: Any) -> Tensor:
    """``torch.einsum``: products summed over the indices the output leaves
    out, e.g. ``einsum("bij,bjk->bik", a, b)`` (a batched matrix product) or
    ``einsum("i,i->", x, y)`` (a dot product). Operands may also be given as
    one list. Differentiable; computed on the host.

    Raises:
        ValueError: see :func:`_einsum_parts`.
    """
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return _Einsum.apply(equation, *operands)


# ---------------------------------------------------------------------------
# Making tensors
# ---------------------------------------------------------------------------

_generator = np.random.default_rng()


def manual_seed(seed: int) -> None:
    """Seed the generator that :func:`rand` and :func:`randn` use by default."""
    global _generator
    _generator = np.random.default_rng(seed)


def _from_array(
    array: np.ndarray,
    backend: Optional[TensorBackend],
    requires_grad: bool,
    device: Any = None,
    dtype: Optional[dtypes.dtype] = None,
) -> Tensor:
    if device is not None:
        backend = _backend_of_device(backend, device)
    integers = np.issubdtype(np.asarray(array).dtype, np.integer)
    array = np.array(array, dtype=np.float64, order="C")  # a copy, even of 0-d
    # (A fresh flat array of exactly the shape's size: a remembered layout fits.)
    data = TensorData.contiguous(array.reshape(-1), array.shape)
    out = Tensor(data, backend, requires_grad=requires_grad)
    if dtype is not None:
        if requires_grad and not dtype.is_floating_point:
            raise RuntimeError(
                "Only Tensors of floating point dtype can require gradients"
            )
        converted = out._as_dtype(dtype)
        if converted is not out:  # (a fresh leaf, keeping requires_grad)
            converted = Tensor(converted._tensor, backend, requires_grad=requires_grad)
            converted._dtype = None if dtype is dtypes.float64 else dtype
            if dtype is dtypes.bool_:
                converted._as_mask()
        return converted
    if integers and not requires_grad:
        out._dtype = dtypes.int64  # Python or NumPy integers: int64, as PyTorch
    return out


def tensor(
    data: Any,
    backend: Optional[TensorBackend] = None,
    requires_grad: bool = False,
    *,
    device: Any = None,
    dtype: Optional[dtypes.dtype] = None,
) -> Tensor:
    """A new tensor holding ``data``: a number (a 0-d tensor), nested lists of
    numbers, a NumPy array or a tensor (its numbers are copied).

    Raises:
        ValueError: the nested lists are ragged, or hold something that is not a
            number.
    """
    if isinstance(data, Tensor):
        array = data.to_numpy()
        mask = data.is_mask
        kind = data._dtype
    else:
        # Python or NumPy bools make a mask (PyTorch's bool tensor): indexing
        # with it selects, x[tensor([True, False, True])], not positions 1, 0, 1.
        # Integers report int64.
        found = _kind(data)
        mask = found == "bool"
        kind = dtypes.int64 if found == "int" else None
        try:  # (_from_array copies: an array is not copied twice)
            array = np.asarray(data, dtype=np.float64)
        except (ValueError, TypeError) as error:
            raise ValueError(
                f"tensor() needs a number or nested lists of numbers with equal "
                f"lengths ({error})"
            ) from None
    out = _from_array(array, backend, requires_grad, device, dtype)
    if dtype is None:
        if mask:
            out._as_mask()
        elif kind is not None and not requires_grad:
            out._dtype = kind
    return out


def _kind(data: Any) -> Optional[str]:
    """``"bool"`` if ``data`` holds bools only (a NumPy bool array, a Python
    bool, or nested lists of them), ``"int"`` if integers only, else ``None``
    (an empty list too)."""
    if isinstance(data, np.ndarray):
        kind = data.dtype
    elif isinstance(data, (bool, np.bool_)):
        return "bool"
    elif isinstance(data, (int, np.integer)):
        return "int"
    elif isinstance(data, (list, tuple)) and data:
        try:
            kind = np.asarray(data).dtype
        except (ValueError, TypeError):
            return None
    else:
        return None
    if kind == np.bool_:
        return "bool"
    return "int" if np.issubdtype(kind, np.integer) else None


def _is_bool(data: Any) -> bool:
    """Whether ``data`` holds bools only (see :func:`_kind`)."""
    return _kind(data) == "bool"


def _make_shape(shape: Sequence[Any]) -> Tuple[int, ...]:
    shape = _shape_args(shape)
    for n in shape:
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
            raise TypeError(f"a shape holds integers, got {shape}")
        if n < 0:
            raise ValueError(f"sizes must be non-negative, got shape {shape}")
    return tuple(int(n) for n in shape)


def full(
    shape: UserShape,
    value: float,
    backend: Optional[TensorBackend] = None,
    requires_grad: bool = False,
    *,
    device: Any = None,
    dtype: Optional[dtypes.dtype] = None,
) -> Tensor:
    """A tensor of ``shape`` filled with ``value``. Without ``dtype`` the dtype
    comes from ``value``, as in PyTorch: a bool gives ``bool``, an int
    ``int64``, a float the default ``float64``; an integer ``dtype`` truncates
    (``full((2,), 2.7, dtype=kt.int64)`` holds 2, 2)."""
    if dtype is None and isinstance(value, (bool, np.bool_)):
        dtype = dtypes.bool_
    elif dtype is None and isinstance(value, (int, np.integer)):
        dtype = dtypes.int64
    return _from_array(
        np.full(_make_shape((shape,)), float(value)),
        backend,
        requires_grad,
        device,
        dtype,
    )


def zeros(
    *shape: Any,
    backend: Optional[TensorBackend] = None,
    requires_grad: bool = False,
    device: Any = None,
    dtype: Optional[dtypes.dtype] = None,
) -> Tensor:
    """A tensor of zeros: ``zeros(2, 3)`` or ``zeros((2, 3))``; ``zeros(())`` is
    0-d."""
    return _from_array(
        np.zeros(_make_shape(shape)), backend, requires_grad, device, dtype
    )


def ones(
    *shape: Any,
    backend: Optional[TensorBackend] = None,
    requires_grad: bool = False,
    device: Any = None,
    dtype: Optional[dtypes.dtype] = None,
) -> Tensor:
    """A tensor of ones (shape as for :func:`zeros`)."""
    return _from_array(
        np.ones(_make_shape(shape)), backend, requires_grad, device, dtype
    )


def _rng(seed: Optional[int], generator: Optional[np.random.Generator]) -> Any:
    if generator is not None:
        return generator
    return _generator if seed is None else np.random.default_rng(seed)


def rand(
    *shape: Any,
    backend: Optional[TensorBackend] = None,
    requires_grad: bool = False,
    device: Any = None,
    dtype: Optional[dtypes.dtype] = None,
    seed: Optional[int] = None,
    generator: Optional[np.random.Generator] = None,
) -> Tensor:
    """Uniform random numbers in $[0, 1)$. Reproducible with ``seed=`` or a NumPy
    ``generator=``; otherwise from the generator that :func:`manual_seed` seeds."""
    values = _rng(seed, generator).random(_make_shape(shape))
    return _from_array(values, backend, requires_grad, device, dtype)


def randn(
    *shape: Any,
    backend: Optional[TensorBackend] = None,
    requires_grad: bool = False,
    device: Any = None,
    dtype: Optional[dtypes.dtype] = None,
    seed: Optional[int] = None,
    generator: Optional[np.random.Generator] = None,
) -> Tensor:
    """Standard normal random numbers (seeding as for :func:`rand`)."""
    values = _rng(seed, generator).standard_normal(_make_shape(shape))
    return _from_array(values, backend, requires_grad, device, dtype)


def arange(
    start: float,
    end: Optional[float] = None,
    step: float = 1,
    backend: Optional[TensorBackend] = None,
    requires_grad: bool = False,
    *,
    device: Any = None,
    dtype: Optional[dtypes.dtype] = None,
) -> Tensor:
    """``start, start + step, ...`` below ``end`` (``arange(n)`` is ``0 .. n-1``)."""
    if end is None:
        start, end = 0, start
    return _from_array(
        np.arange(start, end, step), backend, requires_grad, device, dtype
    )


def zeros_like(t: Tensor, requires_grad: bool = False) -> Tensor:
    """Zeros of ``t``'s shape, on ``t``'s backend."""
    return zeros(t.shape, backend=t.backend, requires_grad=requires_grad)


def ones_like(t: Tensor, requires_grad: bool = False) -> Tensor:
    """Ones of ``t``'s shape, on ``t``'s backend."""
    return ones(t.shape, backend=t.backend, requires_grad=requires_grad)


def full_like(t: Tensor, value: float, requires_grad: bool = False) -> Tensor:
    """``value`` in ``t``'s shape, on ``t``'s backend, with ``t``'s dtype (as
    PyTorch's: not inferred from ``value``)."""
    return full(
        t.shape, value, backend=t.backend, requires_grad=requires_grad, dtype=t.dtype
    )


def rand_like(t: Tensor, requires_grad: bool = False) -> Tensor:
    """Uniform $[0, 1)$ numbers in ``t``'s shape, on ``t``'s backend."""
    return rand(t.shape, backend=t.backend, requires_grad=requires_grad)


def randn_like(t: Tensor, requires_grad: bool = False) -> Tensor:
    """Standard normal numbers in ``t``'s shape, on ``t``'s backend."""
    return randn(t.shape, backend=t.backend, requires_grad=requires_grad)


def eye(
    n: int,
    m: Optional[int] = None,
    backend: Optional[TensorBackend] = None,
    requires_grad: bool = False,
    *,
    device: Any = None,
    dtype: Optional[dtypes.dtype] = None,
) -> Tensor:
    """The ``n`` by ``m`` (default ``n``) identity matrix."""
    return _from_array(
        np.eye(n, n if m is None else m), backend, requires_grad, device, dtype
    )


def linspace(
    start: float,
    end: float,
    steps: int,
    backend: Optional[TensorBackend] = None,
    requires_grad: bool = False,
    *,
    device: Any = None,
    dtype: Optional[dtypes.dtype] = None,
) -> Tensor:
    """``steps`` evenly spaced numbers from ``start`` to ``end``, both included."""
    return _from_array(
        np.linspace(start, end, steps), backend, requires_grad, device, dtype
    )


def randint(
    low: int,
    high: Optional[int] = None,
    size: UserShape = (),
    backend: Optional[TensorBackend] = None,
    seed: Optional[int] = None,
    generator: Optional[np.random.Generator] = None,
    device: Any = None,
    dtype: Optional[dtypes.dtype] = None,
) -> Tensor:
    """Whole numbers in ``[low, high)`` (``randint(high, size)`` starts at 0),
    as floats."""
    if high is None:
        low, high = 0, low
    values = _rng(seed, generator).integers(low, high, size=_make_shape((size,)))
    return _from_array(values, backend, False, device, dtype)  # (int64, as PyTorch)


def randperm(
    n: int,
    backend: Optional[TensorBackend] = None,
    seed: Optional[int] = None,
    generator: Optional[np.random.Generator] = None,
    device: Any = None,
    dtype: Optional[dtypes.dtype] = None,
) -> Tensor:
    """A random permutation of ``0 .. n-1`` (as floats): an index for
    shuffling, ``x[randperm(len(x))]``."""
    return _from_array(
        _rng(seed, generator).permutation(n), backend, False, device, dtype
    )


def from_numpy(
    array: np.ndarray, backend: Optional[TensorBackend] = None, device: Any = None
) -> Tensor:
    """A tensor of ``array``'s numbers (copied: tensors hold float64 only); a
    bool array gives a mask, and the dtype reported is the array's (float32,
    int32 ...; as ``torch.from_numpy``)."""
    array = np.asarray(array)
    out = _from_array(array, backend, False, device)
    if _is_bool(array):
        return out._as_mask()
    reported = dtypes.NAMES.get(array.dtype.name)
    if reported is not None and reported is not dtypes.float64:
        out._dtype = reported
    return out


def _backend_of_device(backend: Optional[TensorBackend], device: Any) -> TensorBackend:
    """The backend a factory's ``device=`` names (``"cpu"``, ``"cuda"``, a
    :class:`~module2_tensors.engine.devices.device`, or a backend itself).

    Raises:
        ValueError: ``backend=`` and ``device=`` name different backends.
    """
    named = device if isinstance(device, TensorBackend) else backend_for(device)
    if backend is not None and backend is not named:
        raise ValueError(
            f"backend={backend.name} and device={device!r} disagree; give one"
        )
    return named


def _keeps_dtype(method: Callable[..., Any]) -> Callable[..., Any]:
    """``method`` (a view or copy of the same numbers, same order of entries or
    not) made to give its result this tensor's dtype, as PyTorch's do: an int64
    tensor stays int64 through ``view``, ``detach`` ..., and a mask stays a mask
    (so ``x.view(-1)[mask.view(-1)]`` selects, as in PyTorch)."""

    @functools.wraps(method)
    def wrapped(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        out = method(self, *args, **kwargs)
        if (self._dtype is not None or self.is_mask) and out is not self:
            if self.is_mask:
                out.is_mask = True
            elif out._dtype is None:
                out._dtype = self._dtype
        return out

    return wrapped


for _name in (
    "view",
    "reshape",
    "detach",
    "clone",
    "flatten",
    "unsqueeze",
    "squeeze",
    "permute",
    "transpose",
    "t",
    "expand",
    "expand_as",
    "view_as",
    "reshape_as",
    "repeat",
    "flip",
    "movedim",
    "narrow",
):
    setattr(Tensor, _name, _keeps_dtype(getattr(Tensor, _name)))


class Parameter(Tensor, _module.Parameter):
    """A tensor that a ``Module`` trains: ``torch.nn.Parameter``.

    ``nn.Parameter(t)`` (Module 0's :class:`~module0_fundamentals.module.Parameter`
    given a tensor) makes one: a *leaf* tensor on ``t``'s numbers (shared, not
    copied) with ``requires_grad=True``, unless ``requires_grad=False``. Being a
    tensor, it is used directly (``F.linear(x, layer.weight)``, ``p.shape``,
    ``p.grad``); being a Module 0 ``Parameter``, a module registers it, and its
    ``.value`` is the parameter itself. ``p.requires_grad = False`` freezes it:
    ``backward`` gives it no ``.grad`` and an optimizer leaves it alone.

    Its operations give ordinary tensors (every result is made as a ``Tensor``),
    so a subclass costs nothing per operation.
    """

    def __new__(cls, data: Any = None, *args: Any, **kwargs: Any) -> Any:
        # Library code makes a result like its input, ``type(t)(TensorData,
        # backend)`` (views, FastOps' outputs): from a parameter, that is an
        # ordinary tensor, never a new parameter.
        if isinstance(data, TensorData):
            return Tensor(data, *args, **kwargs)
        return object.__new__(cls)

    def __init__(
        self,
        data: Any = None,
        requires_grad: Any = True,
        name: Optional[str] = None,
    ) -> None:
        if isinstance(requires_grad, str):  # Module 0's Parameter(value, name)
            requires_grad, name = True, requires_grad
        if data is None:
            data = zeros((0,))
        elif not isinstance(data, Tensor):
            data = tensor(data)
        Tensor.__init__(
            self, data._tensor, data.backend, requires_grad=bool(requires_grad)
        )
        if data._dtype is not None:
            self._dtype = data._dtype
        if name is not None:
            self.name = name
        # Module 0's ``p.value``: the parameter itself, until ``update`` is given
        # a tensor that records gradients (see there). A plain attribute rather
        # than a property: Task 3.5's loop reads it 40 times a batch, and a
        # property call measured +1% of its epoch.
        self.value: Tensor = self

    def update(self, value: Any) -> None:
        """Take ``value``'s numbers (shared), backend and dtype, keeping this
        object and its flags: ``model.to(device)``, ``load_state_dict`` and Module
        1's optimizer end here. A value computed from this parameter (``p.to(...)``,
        ``p.float()``) keeps its gradient, moved along; any other value is a new
        value, whose gradient is ``None``.

        Module 0's meaning of ``update`` is "the value is now ``value``": when
        ``value`` records gradients (a leaf that requires grad, or a computed
        tensor) and was not computed from this parameter, ``p.value`` *is*
        ``value`` from then on, so a forward that reads ``p.value`` sends its
        gradient to ``value`` (a gradient check substitutes its inputs so).
        Assigning ``p.value = v`` directly sets only that attribute, as for
        Module 0's parameters.
        """
        if value is self:
            return
        if not isinstance(value, Tensor):
            value = tensor(value, backend=self.backend)
        derived = value.history is not None and any(
            parent is self for parent in value.history.parents
        )
        # (A plain attribute, as Module 0's: read on every forward and step.)
        self.value = value if value.requires_grad and not derived else self
        if not derived:
            self.grad = None  # a new value (Module 0: a fresh leaf) has no gradient
        elif self.grad is not None and self.grad.backend is not value.backend:
            self.grad = self.grad.to(value.backend).detach()  # moved: it follows
        self.backend = value.backend
        self._tensor = value._tensor
        if value._dtype is not None or self._dtype is not None:
            self._dtype = value._dtype

    def _track_gradient(self) -> None:
        pass  # (requires_grad is set by the constructor)

    def __repr__(self) -> str:
        return f"Parameter containing:\n{Tensor.__repr__(self)}"

    def __reduce__(self) -> Tuple[Any, Tuple[Any, ...]]:
        # pickle, deepcopy, kt.save: a Parameter comes back as a Parameter.
        return _rebuild_parameter, (Tensor.__reduce__(self), self.name)


def _rebuild_parameter(reduced: Tuple[Any, Tuple[Any, ...]], name: Any) -> Parameter:
    rebuild, args = reduced
    value = rebuild(*args)
    return Parameter(value, value.requires_grad, name)


# Module 0's Parameter(value) reads this: a tensor's parameter is a Parameter.
Tensor._parameter_type = Parameter


# Function forms PyTorch scripts use (``kt.mm(a, b)``); none hides a built-in.
def mm(a: Tensor, b: Tensor) -> Tensor:
    """``torch.mm``: the product of two matrices, shapes $(n, m)$ and $(m, p)$.

    Raises:
        ValueError: an operand that is not 2-D (naming both shapes).
    """
    if a.dims != 2 or b.dims != 2:
        raise ValueError(f"mm expects two matrices, got shapes {a.shape} and {b.shape}")
    return a @ b


def bmm(a: Tensor, b: Tensor) -> Tensor:
    """``torch.bmm``: batched products, $(B, n, m)$ times $(B, m, p)$.

    Raises:
        ValueError: operands that are not 3-D or whose batch sizes differ.
    """
    if a.dims != 3 or b.dims != 3 or a.shape[0] != b.shape[0]:
        raise ValueError(
            f"bmm expects two 3-D tensors with the same batch size, got shapes "
            f"{a.shape} and {b.shape}"
        )
    return a @ b


def concat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """``torch.concat`` (also ``concatenate``): :func:`cat`."""
    return sf.cat(tensors, dim)


concatenate = concat


def clip(
    t: Tensor, min: Optional[TensorLike] = None, max: Optional[TensorLike] = None
) -> Tensor:
    """``torch.clip``: ``t.clamp(min, max)``."""
    return t.clamp(min, max)


def equal(a: Tensor, b: Tensor) -> bool:
    """``torch.equal``: ``a.equal(b)``."""
    return a.equal(b)


def allclose(
    a: Tensor,
    b: TensorLike,
    rtol: float = 1e-05,
    atol: float = 1e-08,
    equal_nan: bool = False,
) -> bool:
    """``torch.allclose``: ``a.allclose(b, ...)``."""
    return a.allclose(b, rtol, atol, equal_nan)


def isclose(
    a: Tensor,
    b: TensorLike,
    rtol: float = 1e-05,
    atol: float = 1e-08,
    equal_nan: bool = False,
) -> Tensor:
    """``torch.isclose``: ``a.isclose(b, ...)``."""
    return a.isclose(b, rtol, atol, equal_nan)


def argsort(t: Tensor, dim: int = -1, descending: bool = False, stable: bool = False):
    """``torch.argsort``: ``t.argsort(dim, descending)``."""
    return t.argsort(dim, descending, stable)
