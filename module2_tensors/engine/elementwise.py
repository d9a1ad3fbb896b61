"""More differentiable tensor functions, given complete (engine layer: no task
edits it).

Tasks 2.3 and 2.4 ask for the forwards and backwards of ``tensor_functions.py``;
the other elementwise functions and comparisons a PyTorch user expects follow the
same pattern and live here, so the student file stays about the task:

* elementwise maps of a scalar function (``sin``, ``erf``, ``sqrt``, ``abs``,
  ``floor``, ...), each compiled once per backend on first use
  (:func:`unary_map`), with their derivatives;
* powers (:class:`Pow`, :class:`PowTensor`) and ``torch.maximum``
  (:class:`Maximum`);
* :class:`ToBackend` (``t.to(backend)``) and :func:`_in_memory_of`.

Interface: its names without a leading underscore, which ``Tensor``'s methods
call.
This module imports only the engine (``Function``), never ``tensor_functions``.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Tuple

import numpy as np

from ..ieee import cos, sin, sqrt
from .autograd import Context, DifferentiableBackward, Function

if TYPE_CHECKING:
    from .._backend import TensorBackend
    from ..tensor import Tensor
    from ..tensor_data import TensorData


def _erf(x: float) -> float:
    return math.erf(x)


def _log1p(x: float) -> float:  # (math.log1p raises at -1 and below)
    return math.log1p(x) if x > -1.0 else -math.inf if x == -1.0 else math.nan


def _expm1(x: float) -> float:
    return math.inf if x > 709.0 else math.expm1(x)  # (math.expm1 overflows)


# From 2^52 on every float is whole, its own floor and rounding: floor and round
# only below it, where Numba's int64 results cannot overflow (-1e300 gave -2^63),
# and inf and NaN fail the test.
def _floor(x: float) -> float:
    return float(math.floor(x)) if abs(x) < 2.0**52 else x


def _round(x: float) -> float:
    # Round half to even, like torch.round (and Python's round).
    return float(round(x)) if abs(x) < 2.0**52 else x


def _sign(x: float) -> float:
    # 0, -0 and NaN give 0, as torch.sign (and so |x|'s gradient at NaN is 0)
    return 1.0 if x > 0.0 else -1.0 if x < 0.0 else 0.0


def _abs(x: float) -> float:
    return abs(x)


@functools.cache  # (compiling is slow on FastOps)
def unary_map(backend: "TensorBackend", fn: Callable[[float], float]) -> Any:
    """``backend.ops.map(fn)``, compiled once per backend and function."""
    return backend.ops.map(fn)


class Unary(Function):
    """$f(a)$ entry by entry, for a subclass's scalar function ``fn`` (compiled
    once per backend: :func:`unary_map`) and its derivative, written with tensor
    operations: ``derivative(a)``, or ``derivative(out)`` of the result for a
    subclass with ``of_result`` (``sqrt``, ``expm1``: the result is saved
    instead of ``a``, and ``engine/higher_order.py`` has the formula that
    records it). Backward: $G\\, f'(a)$. (Given.)"""

    fn: Callable[[float], float]
    derivative: Callable[["Tensor"], "Tensor"]
    of_result: ClassVar[bool] = False

    @classmethod
    def forward(cls, ctx: Context, a: "Tensor") -> "Tensor":
        out = unary_map(a.backend, cls.fn)(a)
        ctx.save_for_backward(out if cls.of_result else a)
        return out

    @classmethod
    def backward(cls, ctx: Context, grad: "Tensor") -> "Tensor":
        (saved,) = ctx.saved_values
        return grad * cls.derivative(saved)


class Sin(Unary, DifferentiableBackward):
    """$f(a) = \\sin a$; $f'(a) = \\cos a$. (Given.)"""

    fn, derivative = sin, lambda a: a.cos()


class Cos(Unary, DifferentiableBackward):
    """$f(a) = \\cos a$; $f'(a) = -\\sin a$. (Given.)"""

    fn, derivative = cos, lambda a: -a.sin()


class Erf(Unary, DifferentiableBackward):
    """$\\mathrm{erf}(a) = \\frac{2}{\\sqrt\\pi} \\int_0^a e^{-t^2} dt$;
    $f'(a) = \\frac{2}{\\sqrt\\pi} e^{-a^2}$. (Given.)"""

    fn, derivative = _erf, lambda a: (-(a * a)).exp() * (2.0 / math.sqrt(math.pi))


class Log1p(Unary, DifferentiableBackward):
    """$\\ln(1 + a)$, accurate for small $a$; $f'(a) = 1 / (1 + a)$. (Given.)"""

    fn, derivative = _log1p, lambda a: 1.0 / (a + 1.0)


class Expm1(Unary):
    """$e^a - 1$, accurate for small $a$; $f'(a) = e^a$, the result plus 1.
    (Given.)"""

    fn, derivative, of_result = _expm1, lambda out: out + 1.0, True


class Abs(Unary):
    """$|a|$; $f'(a) = \\mathrm{sign}(a)$, 0 at 0 (as in PyTorch). (Given.)

    Its backward multiplies on the backend, without a ``Function`` of its own:
    Task 3.5's loss takes ``abs`` once a batch, where ``grad * a.sign()`` cost
    two more ``Function`` applications a batch (the epoch 1.41-1.45 ms before,
    1.46-1.50 ms with them; one thread, 2-core VM, interleaved runs).
    ``engine/higher_order.py`` has its recorded formula."""

    fn = _abs

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> "Tensor":
        (a,) = ctx.saved_values
        return grad.backend.mul_zip(grad, unary_map(a.backend, _sign)(a))


class Piecewise(DifferentiableBackward):
    """A step function of ``a`` (``floor``, ``round``, ``sign``): its gradient
    is 0 almost everywhere, as in PyTorch. (Given.)"""

    @staticmethod
    def forward(ctx: Context, a: "Tensor", fn: Callable[[float], float]) -> "Tensor":
        return unary_map(a.backend, fn)(a)

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> "Tensor":
        return grad.new_zeros(grad.shape)  # (grad has the shape of a)


class Sqrt(Unary):
    """$f(a) = \\sqrt{a}$; $f'(a) = 1 / (2 \\sqrt{a})$, of the result. (Given.)"""

    fn, derivative, of_result = sqrt, lambda out: 0.5 / out, True


class Pow(DifferentiableBackward):
    """$f(a) = a^p$ for a number $p$; $f'(a) = p\\, a^{p-1}$, and 0 for $p = 0$
    (also at $a = 0$, as in PyTorch). (Given.)"""

    @staticmethod
    def forward(ctx: Context, a: "Tensor", p: float) -> "Tensor":
        ctx.save_for_backward(a, p)
        return a.backend.pow_zip(a, a.new_tensor(p))

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> "Tensor":
        a, p = ctx.saved_values
        # a^0 = 1 everywhere: gradient 0, also at a = 0 (not 0 * inf)
        return grad.new_zeros(grad.shape) if p == 0.0 else grad * p * a ** (p - 1.0)


class PowTensor(Function):
    """$f(a, b) = a^b$ with a tensor exponent (broadcasting); $\\partial f /
    \\partial a = b\\, a^{b-1}$ (0 where $b = 0$), $\\partial f / \\partial b = a^b
    \\ln a$ (0 where $a^b a = 0$: at $a = 0$ with $b \\ge 0$, where $0^b$ is 0 or 1
    and PyTorch gives 0, not $1 \\cdot \\ln 0$). (Given.) Its backward masks on the
    backend, not with ``masked_fill`` (Task 2.6's ``where``): Task 2.4's tests of
    ``a ** b``'s gradient need only Task 2.4; ``engine/higher_order.py`` has its
    recorded formula."""

    @staticmethod
    def forward(ctx: Context, a: "Tensor", b: "Tensor") -> "Tensor":
        out = a.backend.pow_zip(a, b)
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> Tuple["Tensor", "Tensor"]:
        a, b, out = ctx.saved_values
        backend = grad.backend
        # 0 where b = 0 (a^0 is constant; b a^{b-1} would be 0 * inf at a = 0):
        # select_zip keeps an entry where its condition, b here, is non-zero.
        grad_a = backend.select_zip(b, grad * b * backend.pow_zip(a, b - 1.0))
        nonzero = out * a != 0.0  # (inf and NaN too: 0 * out would be NaN there)
        grad_b = backend.select_zip(nonzero, grad * out * a.log())
        return grad_a, grad_b


class Maximum(DifferentiableBackward):
    """$\\max(a, b)$ entry by entry, broadcasting, like ``torch.maximum``: NaN in
    either gives NaN; on a tie each input gets half the gradient. (Given.)"""

    @staticmethod
    def forward(ctx: Context, a: "Tensor", b: "Tensor") -> "Tensor":
        backend = a.backend
        a_is_nan = backend.eq_zip(backend.eq_zip(a, a), a.new_tensor(0.0))
        take_a = backend.add_zip(backend.lt_zip(b, a), a_is_nan)  # never both
        tie = backend.eq_zip(a, b)
        weight_a = backend.add_zip(take_a, backend.mul_zip(tie, a.new_tensor(0.5)))
        ctx.save_for_backward(weight_a)
        return backend.maximum_zip(a, b)  # (ieee.maximum: NaN in either gives NaN)

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> Tuple["Tensor", "Tensor"]:
        (weight_a,) = ctx.saved_values
        grad_a = grad * weight_a
        return grad_a, grad - grad_a


class HostMap(DifferentiableBackward):
    """$f(a, \\dots)$ entry by entry, broadcasting, computed by NumPy's ``fn`` on
    the host (``np.log10``, ``np.arcsinh``, ``np.arctan2``, ``np.fmod``: correctly
    rounded or exact where a composition would not be, IEEE at the domain's edges,
    no warnings): ``HostMap.apply(a, ..., fn, partials)``. Backward: $G\\,
    \\partial f / \\partial x_i$, the tensor function ``partials`` of the inputs
    giving the derivative (one input) or a tuple of them. (Given.)"""

    @staticmethod
    def forward(ctx: Context, *args: Any) -> "Tensor":
        *inputs, fn, partials = args
        ctx.save_for_backward(partials, *inputs)
        with np.errstate(all="ignore"):
            return inputs[0].new_tensor(fn(*[x.to_numpy() for x in inputs]))

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> Tuple["Tensor", ...]:
        partials, *inputs = ctx.saved_values
        d = partials(*inputs)
        return tuple(grad * p for p in (d if isinstance(d, tuple) else (d,)))


class ToBackend(DifferentiableBackward):
    """The same numbers on another backend (``t.to(backend)``); the gradient goes
    back to the original backend. (Given.)"""

    @staticmethod
    def forward(ctx: Context, a: "Tensor", backend: "TensorBackend") -> "Tensor":
        ctx.save_for_backward(a.backend)
        return type(a)(_in_memory_of(backend, a._tensor), backend)

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> "Tensor":
        (backend,) = ctx.saved_values
        return grad.to(backend)


def _in_memory_of(backend: "TensorBackend", data: TensorData) -> TensorData:
    """``data`` in the memory ``backend`` computes in: GPU memory for a backend whose
    ops move storage there (``CudaOps.to_device``), host memory for the others.
    Unchanged (shared) when it is there already. (Given.)"""
    storage = data._storage
    to_device = getattr(backend.ops, "to_device", None)
    # Without one, a GPU storage is copied back and a host one stays.
    to_host = getattr(storage, "copy_to_host", lambda: storage)
    moved = to_host() if to_device is None else to_device(storage)
    return data if moved is storage else type(data)(moved, data.shape, data.strides)
