"""``Tensor``: an n-dimensional array of floats that remembers how it was computed.

A ``Tensor`` is three things:

* its numbers, a :class:`~module2_tensors.tensor_data.TensorData` (flat storage,
  shape, strides);
* a *backend* (:class:`~module2_tensors.tensor_ops.TensorBackend`) whose kernels
  compute every operation;
* for a computed tensor, a *history* (the function, its context and inputs) that
  the shared autodiff engine of Module 1 walks backwards.

This file is given. It holds the class, the factories (``tensor``, ``zeros``,
``rand``, ...) and ``Parameter``; the methods are in ``tensor_api/``, one mixin per
concept (core, creation, dtype and device, arithmetic, reductions, movement,
indexing, in-place forms, gradients). They check and normalise arguments the way
PyTorch does (negative dims, ``keepdim``, shapes with ``-1``, Python numbers on
either side of an operator) and hand the work to the functions of
``tensor_functions.py`` (Tasks 2.3 and 2.4) and ``shape_functions.py`` (Task 2.6).

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

from typing import Any, Optional, Sequence, Tuple

import numpy as np

from module0_fundamentals._exports import defined_here
from module0_fundamentals import module as _module
from module1_scalar_autodiff.autodiff import backpropagate

from . import shape_functions as sf
from . import tensor_functions as tf
from .engine import autograd, dtypes
from .engine.devices import backend_for, backend_named, register_backend
from .tensor_api.arithmetic import ArithmeticMixin
from .tensor_api.core import FACTORIES, CoreMixin
from .tensor_api.creation import CreationMixin
from .tensor_api.dtype_device import DtypeDeviceMixin
from .tensor_api.elementary import ElementaryMixin
from .tensor_api.gradients import GradientMixin
from .tensor_api.indexing import IndexingMixin
from .tensor_api.inplace import InPlaceMixin
from .tensor_api.movement import MovementMixin
from .tensor_api.reductions import ReductionMixin
from .tensor_data import TensorData, UserShape, _as_shape
from .tensor_ops import SimpleBackend
from ._backend import TensorBackend

# The default backend (one for factories and layers alike) is chosen in _device;
# SimpleBackend is its last resort, always ready.
register_backend(SimpleBackend, lambda: True)


class Tensor(
    CoreMixin,
    CreationMixin,
    DtypeDeviceMixin,
    ArithmeticMixin,
    ElementaryMixin,
    ReductionMixin,
    MovementMixin,
    IndexingMixin,
    InPlaceMixin,
    GradientMixin,
):
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
        history: the :class:`~module2_tensors.engine.autograd.History`, or
            ``None`` for a leaf.

    Its methods are defined by concept in ``module2_tensors/tensor_api/``: core
    (storage, shape, printing), creation, dtype and device, arithmetic,
    reductions, movement, indexing, in-place forms, gradients.
    """

    def __reduce__(self) -> Tuple[Any, Tuple[Any, ...]]:
        # pickle, copy.deepcopy, kt.save: the numbers, the backend's name, the
        # flag and the dtype (rebuild_tensor rebuilds the tensor; the float64
        # storage keeps a float32 tensor's numbers exactly as they were).
        reduced = self.to_numpy(), self.backend.name, self.requires_grad, self.dtype
        return rebuild_tensor, reduced

    @staticmethod
    def _parameter_type() -> type:
        # What Module 0's Parameter(t) makes of a tensor: a Parameter (below),
        # itself a tensor, as torch.nn.Parameter is.
        return Parameter


# Function.apply makes (and the engine checks) values of this class; the mixins
# make tensors through it. Its backward pass is the student's backpropagate (Task
# 1.4), summing gradients back to an input's shape with their unbroadcast (2.4).
autograd.register_tensor_class(Tensor, tf.unbroadcast, backpropagate)


def rebuild_tensor(
    array: np.ndarray,
    backend: str,
    requires_grad: bool,
    dtype: Optional[dtypes.dtype] = None,
) -> Tensor:
    """The inverse of ``Tensor.__reduce__``: the numbers on the loaded backend of
    that name (else the default backend), labelled ``dtype`` (a pickle written
    before tensors kept theirs has none: float64)."""
    return tensor(array, backend_named(backend), requires_grad, dtype=dtype)


# ---------------------------------------------------------------------------
# Making tensors
# ---------------------------------------------------------------------------

_generator = np.random.default_rng()


def manual_seed(seed: int) -> None:
    """Seed the generator that :func:`rand` and :func:`randn` use by default."""
    global _generator
    _generator = np.random.default_rng(seed)


def seed() -> int:
    """``torch.seed``: seeds the default generator from the OS's randomness (as
    :func:`manual_seed` would) and returns the seed, a 63-bit number."""
    drawn = np.random.SeedSequence().entropy % 2**63
    manual_seed(drawn)
    return drawn


def _from_array(
    array: np.ndarray,
    backend: Optional[TensorBackend],
    requires_grad: bool,
    device: Any = None,
    dtype: Optional[dtypes.dtype] = None,
) -> Tensor:
    # (device: "cpu", "cuda" or a kt.device, as torch's; backend= names a backend)
    named = backend if device is None else backend_for(device)
    if backend is not None and backend is not named:
        raise ValueError(
            f"backend={backend.name} and device={device!r} disagree; give one"
        )
    backend = named
    integers = np.asarray(array).dtype.kind in dtypes.INTEGER_KINDS
    array = np.array(array, dtype=np.float64, order="C")  # a copy, even of 0-d
    if dtype is None:  # Python or NumPy integers: int64, as PyTorch; else floats
        dtype = dtypes.int64 if integers else dtypes.get_default_dtype()
    elif dtype is dtypes.bool_:
        array = (array != 0.0).astype(np.float64)
    elif not dtype.is_floating_point:
        array = np.trunc(array)  # (toward zero, as Tensor.long())
    # (A fresh flat array of exactly the shape's size: a remembered layout fits.)
    out = Tensor(TensorData.contiguous(array.reshape(-1), array.shape), backend)
    if dtype is not dtypes.float64:  # (the class default: no instance entry)
        out._dtype = dtype
    if requires_grad:  # (the setter: floating-point dtypes only, as PyTorch)
        out.requires_grad = True
    return out._as_mask() if dtype is dtypes.bool_ else out


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
        array, kind = data.to_numpy(), data.dtype
    else:
        # Python or NumPy bools make a mask (PyTorch's bool tensor): indexing
        # with it selects, x[tensor([True, False, True])], not positions 1, 0, 1.
        # Integers report int64 (and cannot require gradients, as in PyTorch).
        kind = dtypes.of_data(data)
        if isinstance(data, (np.ndarray, np.generic)):  # (its dtype, as from_numpy)
            # (NumPy's dtype.name is Python code, 1.4 us: float64, the common
            # case, by its one-letter code; tensor of a (10, 2) array 3.1 -> 1.6 us.)
            d = data.dtype
            kind = dtypes.float64 if d.char == "d" else dtypes.NAMES.get(d.name, kind)
        try:  # (_from_array copies: an array is not copied twice)
            array = np.asarray(data, dtype=np.float64)
        except (ValueError, TypeError) as error:
            raise ValueError(
                f"tensor() needs a number or nested lists of numbers with equal "
                f"lengths ({error})"
            ) from None
    return _from_array(array, backend, requires_grad, device, dtype or kind)


def _make_shape(shape: Sequence[Any]) -> Tuple[int, ...]:
    shape = _as_shape(sf._shape_args(shape))  # (TypeError: not integers)
    if any(n < 0 for n in shape):
        raise ValueError(f"sizes must be non-negative, got shape {shape}")
    return shape


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
    dtype = dtype or dtypes.of_data(value)  # (as tensor(value) would report it)
    values = np.full(_make_shape((shape,)), float(value))
    return _from_array(values, backend, requires_grad, device, dtype)


def zeros(
    *shape: Any,
    backend: Optional[TensorBackend] = None,
    requires_grad: bool = False,
    device: Any = None,
    dtype: Optional[dtypes.dtype] = None,
) -> Tensor:
    """A tensor of zeros: ``zeros(2, 3)`` or ``zeros((2, 3))``; ``zeros(())`` is
    0-d."""
    values = np.zeros(_make_shape(shape))
    return _from_array(values, backend, requires_grad, device, dtype)


def ones(
    *shape: Any,
    backend: Optional[TensorBackend] = None,
    requires_grad: bool = False,
    device: Any = None,
    dtype: Optional[dtypes.dtype] = None,
) -> Tensor:
    """A tensor of ones (shape as for :func:`zeros`)."""
    values = np.ones(_make_shape(shape))
    return _from_array(values, backend, requires_grad, device, dtype)


def _rng(seed: Optional[int], generator: Optional[np.random.Generator]) -> Any:
    return generator or (_generator if seed is None else np.random.default_rng(seed))


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
    # (NumPy's arange(n, None, step) counts from 0; 0-d tensors as their Python
    # numbers: arange(n) of an int64 n is int64)
    bounds = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    return _from_array(np.arange(*bounds), backend, requires_grad, device, dtype)


def zeros_like(
    t: Tensor, requires_grad: bool = False, *, dtype: Optional[dtypes.dtype] = None
) -> Tensor:
    """Zeros of ``t``'s shape, on ``t``'s backend, with ``t``'s dtype unless
    ``dtype`` is given (as PyTorch's ``*_like``)."""
    return full_like(t, 0.0, requires_grad, dtype=dtype)


def ones_like(
    t: Tensor, requires_grad: bool = False, *, dtype: Optional[dtypes.dtype] = None
) -> Tensor:
    """Ones of ``t``'s shape (see :func:`zeros_like`)."""
    return full_like(t, 1.0, requires_grad, dtype=dtype)


def full_like(
    t: Tensor,
    value: float,
    requires_grad: bool = False,
    *,
    dtype: Optional[dtypes.dtype] = None,
) -> Tensor:
    """``value`` in ``t``'s shape, on ``t``'s backend, with ``t``'s dtype (as
    PyTorch's: not inferred from ``value``) unless ``dtype`` is given."""
    return full(t.shape, value, t.backend, requires_grad, dtype=dtype or t.dtype)


def rand_like(t: Tensor, requires_grad: bool = False) -> Tensor:
    """Uniform $[0, 1)$ numbers in ``t``'s shape, on ``t``'s backend."""
    d = t.dtype if t.is_floating_point() else None  # (its float dtype, as PyTorch)
    return rand(t.shape, backend=t.backend, requires_grad=requires_grad, dtype=d)


def randn_like(t: Tensor, requires_grad: bool = False) -> Tensor:
    """Standard normal numbers in ``t``'s shape, on ``t``'s backend."""
    d = t.dtype if t.is_floating_point() else None
    return randn(t.shape, backend=t.backend, requires_grad=requires_grad, dtype=d)


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
    return _from_array(np.eye(n, m), backend, requires_grad, device, dtype)


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
    """``steps`` evenly spaced numbers from ``start`` to ``end``, both included (an
    integer ``dtype``: from the endpoints truncated, each value truncated)."""
    if dtype is not None and not dtype.is_floating_point:  # (as PyTorch)
        start, end = int(start), int(end)
    values = np.linspace(start, end, steps)
    return _from_array(values, backend, requires_grad, device, dtype)


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
    int64 unless ``dtype=``, as PyTorch's."""
    if isinstance(high, (tuple, list)):  # randint(high, size), as torch's
        high, size = None, high
    # (NumPy's integers(high, None) draws from [0, high), as randint(high, size))
    values = _rng(seed, generator).integers(low, high, size=_make_shape((size,)))
    return _from_array(values, backend, False, device, dtype)  # (int64, as PyTorch)


def randint_like(input: Tensor, low: int, high: Any = None, **kw: Any) -> Tensor:
    """``torch.randint_like``: :func:`randint` of ``input``'s shape, backend and
    dtype (unless ``dtype=``; ``randint_like(x, high)`` from 0)."""
    low, high = (0, low) if high is None else (low, high)
    return randint(low, high, input.shape, input.backend, **{"dtype": input.dtype} | kw)


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
    values = _rng(seed, generator).permutation(n)
    return _from_array(values, backend, False, device, dtype)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor of ``array``'s numbers (copied: tensors hold float64 only); a
    bool array gives a mask, and the dtype reported is the array's (float32,
    int32 ...; as ``torch.from_numpy``, which takes no backend or device)."""
    return tensor(np.asarray(array))  # (tensor's dtype rule)


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
        if not isinstance(data, Tensor):  # (None: an empty parameter)
            data = tensor([] if data is None else data)
        Tensor.__init__(self, data._tensor, data.backend)
        self._dtype = data._dtype
        self.requires_grad = bool(requires_grad)  # (the setter: floats only)
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
        derived = any(parent is self for parent in value.parents)
        # (A plain attribute, as Module 0's: read on every forward and step.)
        self.value = value if value.requires_grad and not derived else self
        if not derived:
            self.grad = None  # a new value (Module 0: a fresh leaf) has no gradient
        elif self.grad is not None:  # moved or cast (model.float()): it follows
            self.grad = self.grad.to(value).detach()
        self.backend = value.backend
        self._tensor = value._tensor
        self._dtype = value._dtype

    def __repr__(self) -> str:
        return f"Parameter containing:\n{Tensor.__repr__(self)}"

    def __reduce__(self) -> Tuple[Any, Tuple[Any, ...]]:
        # pickle, deepcopy, kt.save: a Parameter comes back as a Parameter.
        return _rebuild_parameter, (Tensor.__reduce__(self), self.name)


def _rebuild_parameter(reduced: Tuple[Any, Tuple[Any, ...]], name: Any) -> Parameter:
    value = rebuild_tensor(*reduced[1])  # (reduced: rebuild_tensor and its args)
    return Parameter(value, value.requires_grad, name)


# The factories the methods of tensor_api call (it cannot import this module).
FACTORIES.update(tensor=tensor, rand=rand, randn=randn, full=full, rng=_rng)
# A parameter's results are ordinary tensors (Parameter.__new__): made as such.
autograd.PLAIN_RESULTS.add(Parameter)


# (last: the names defined above)
__all__ = defined_here(globals(), but=("rebuild_tensor", "Parameter"))
