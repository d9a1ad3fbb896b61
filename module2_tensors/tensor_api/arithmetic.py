"""Elementwise arithmetic: the operators (``a * b``, ``a @ b``, ``a < b``, ...) and
the elementwise functions (``exp``, ``relu``, ``clamp``, ``where``, ...).

Each hands the work to a ``Function`` of ``tensor_functions.py`` (Tasks 2.3,
2.4), after turning a Python number on either side into a tensor."""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING, Any, Dict, Optional, Sequence, Tuple

import numpy as np

from .. import indexing_functions as ixf
from .. import tensor_functions as tf
from ..engine import dtypes, elementwise
from ..tensor_data import TensorData
from .._backend import matmul_shape
from .core import CoreMixin, FACTORIES, TensorLike, tensor_operand
from .dtype_device import floated as _floated, kept_dtype, label as _label

if TYPE_CHECKING:
    from ..tensor import Tensor

#: The 0-d tensors of Python numbers used as operands (``x * 2.0``), per backend
#: and value: a training loop meets the same few numbers every step. They are only
#: ever inputs of operations (never returned to the user, never changed in place),
#: so one tensor per number can serve every operation. (Measured, NUMBA_NUM_THREADS=1,
#: 10 interleaved rounds, cache off -> on, fastest: ``x * 2.0`` on (10, 100) 7.8 ->
#: 4.8 us, the Task 3.5 epoch 1.53 -> 1.42 ms, -7%; an A/A pair moved 0.5%.)
_NUMBERS: Dict[Tuple[Any, float, float], "Tensor"] = {}

_MAX_NUMBERS = 1024
#: ``torch.div``'s rounding modes, of NumPy's correctly rounded quotient (``div``).
_ROUNDED = {"floor": np.floor_divide, "trunc": lambda a, b: np.trunc(a / b)}


def _promoted(out: "Tensor", operands: Sequence[Any]) -> "Tensor":
    """``out`` reporting PyTorch's promoted dtype of ``operands`` (tensors,
    numbers); float64 operands, the usual case, leave it as it is."""
    if all(getattr(x, "_dtype", 0) is None and not x.is_mask for x in operands):
        return out
    return _label(out, dtypes.result_type(*operands))


def _typed(
    out: "Tensor", a: "Tensor", o: "Tensor", raw: Any, true_div: bool = False
) -> "Tensor":
    """The result ``out`` of an operator on ``a`` and ``raw`` (a tensor or a
    Python number; ``o`` the tensor it became) with PyTorch's promoted dtype:
    ``int64`` for integer operands, float where a float takes part (or for
    ``/``). Two plain float64 operands, the usual case, keep ``out``."""
    if a._dtype is o._dtype is None and not (a.is_mask or o.is_mask):
        return out
    d = dtypes.result_type(a, raw)
    return _label(
        out, dtypes.get_default_dtype() if true_div and not d.is_floating_point else d
    )


def _divided(out: "Tensor", d: dtypes.dtype, name: str = "div_floor") -> "Tensor":
    """``out`` (of ``//``, ``%``, ``div``) reporting ``d``; bools and integers by zero
    raise, as PyTorch's (float64 numbers would hold inf or nan labelled int64)."""
    if d is dtypes.bool_:
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for 'Bool'")
    if d.is_floating_point or np.isfinite(out.to_numpy()).all():
        return _label(out, d)
    raise RuntimeError("ZeroDivisionError")


def _whole(out: "Tensor") -> "Tensor":
    """``out`` (a power) toward zero where it is labelled an integer, as
    PyTorch's integer powers: ``2 ** -1`` is 0, ``(-1) ** -3`` is -1, ``0 ** -1`` 0."""
    if out.is_mask:
        raise NotImplementedError("\"pow\" not implemented for 'Bool'")
    if out.is_floating_point():
        return out
    v = np.trunc(np.nan_to_num(out.to_numpy(), posinf=0.0, neginf=0.0))
    return FACTORIES["tensor"](v, backend=out.backend, dtype=out.dtype)


# PyTorch's error for a - b with a bool operand.
_BOOL_SUB = (
    "Subtraction, the `-` operator, with a bool tensor is not supported. If you "
    "are trying to invert a mask, use the `~` or `logical_not()` operator instead."
)


def _bitwise(np_op: Any, logical: Any) -> Any:
    """An operator (``&``, ``|``, ``^``, ``~``): ``np_op`` on the integers where
    an operand is an integer tensor (PyTorch's bitwise one), else ``logical``."""

    def op(self: "Tensor", *b: TensorLike) -> "Tensor":
        d = dtypes.result_type(self, *b)
        if d.is_floating_point or d is dtypes.bool_:
            return logical(self, *b)
        out = np_op(*(np.asarray(t, np.int64) for t in (self, *b)))
        return FACTORIES["tensor"](out, backend=self.backend, dtype=d)

    return op


def _flat(a: "Tensor", b: "Tensor") -> Tuple[float, float]:
    """``a // b``'s partials: 0 and 0, as PyTorch's ``div(rounding_mode="floor")``."""
    return 0.0, 0.0


def _remainder_partials(a: "Tensor", b: "Tensor") -> Tuple[float, "Tensor"]:
    """``a % b``'s partials: 1 and $-\\lfloor a / b \\rfloor$."""
    return 1.0, -(a // b)


def _fmod_partials(a: "Tensor", b: "Tensor") -> Tuple[float, "Tensor"]:
    """``fmod(a, b)``'s partials: 1 and $-\\mathrm{trunc}(a / b)$."""
    return 1.0, -a.div(b, rounding_mode="trunc")


def _atan2_partials(y: "Tensor", x: "Tensor") -> Tuple["Tensor", "Tensor"]:
    """$\\partial\\, \\mathrm{atan2}(y, x) / \\partial y = x / r^2$, $\\partial /
    \\partial x = -y / r^2$ ($r^2 = x^2 + y^2$; both 0 where it is 0, as PyTorch's)."""
    r = (x * x + y * y).reciprocal().nan_to_num(math.nan, posinf=0.0)  # (1/0: 0)
    return x * r, -y * r


class ArithmeticMixin:
    """Operators and elementwise functions of tensors."""

    def _other(self, b: TensorLike) -> "Tensor":
        """``b`` as a tensor on this backend (a Python number becomes 0-d). (The
        commonest operators, ``+`` and ``*``, test for a tensor themselves before
        calling this: a call less per operation of two tensors, 11 a batch of the
        Task 3.5 epoch.)"""
        if isinstance(b, CoreMixin):
            return b
        if type(b) is float or isinstance(b, numbers.Real):  # (float: no ABC check)
            value = float(b)
            # (-0.0 == 0.0 in a dict: the sign keeps them apart; NaN is never kept.)
            key = (self.backend, value, math.copysign(1.0, value))
            number = _NUMBERS.get(key)
            if number is None:
                number = self._new(TensorData(np.array([value]), ()))
                if len(_NUMBERS) < _MAX_NUMBERS and value == value:
                    _NUMBERS[key] = number
            return number
        raise TypeError(
            f"unsupported operand: a Tensor and a {type(b).__name__} ({b!r})"
        )

    def __add__(self, b: TensorLike) -> "Tensor":
        o = b if isinstance(b, CoreMixin) else self._other(b)
        out = tf.Add.apply(self, o)
        if self._dtype is o._dtype is None and not (self.is_mask or o.is_mask):
            return out  # (float64, the usual case: no call, 28 a Task 3.5 batch)
        return _typed(out, self, o, b)

    __radd__ = __add__  # (b + a is a + b, exactly: IEEE addition commutes)

    def __sub__(self, b: TensorLike) -> "Tensor":
        # a - b is a + (-b): a number negated in Python (one kernel, exact), a
        # tensor by Neg; a bool operand raises, as in PyTorch.
        if self.is_mask or b is True or b is False or getattr(b, "is_mask", False):
            raise RuntimeError(_BOOL_SUB)
        if not isinstance(b, (float, int, CoreMixin, numbers.Real)):
            self._other(b)  # (raises, naming b as written: -b would not)
        return self + -b

    def __rsub__(self, b: TensorLike) -> "Tensor":
        if self.is_mask or type(b) is bool:
            raise RuntimeError(_BOOL_SUB)
        return -self + b  # (as a - b is a + (-b))

    def add(self, other: TensorLike, alpha: TensorLike = 1) -> "Tensor":
        """``torch.add``: $\\mathrm{self} + \\alpha \\cdot \\mathrm{other}$."""
        return self + (other if alpha == 1 else other * alpha)

    def sub(self, other: TensorLike, alpha: TensorLike = 1) -> "Tensor":
        """``torch.sub``: $\\mathrm{self} - \\alpha \\cdot \\mathrm{other}$."""
        return self - (other if alpha == 1 else other * alpha)

    def __mul__(self, b: TensorLike) -> "Tensor":
        o = b if isinstance(b, CoreMixin) else self._other(b)
        out = tf.Mul.apply(self, o)
        if self._dtype is o._dtype is None and not (self.is_mask or o.is_mask):
            return out  # (float64, the usual case: no call, 28 a Task 3.5 batch)
        return _typed(out, self, o, b)

    __rmul__ = __mul__  # (b * a is a * b, exactly)

    def __truediv__(self, b: TensorLike) -> "Tensor":
        o = self._other(b)
        return _typed(tf.Mul.apply(self, tf.Inv.apply(o)), self, o, b, True)

    def __rtruediv__(self, b: TensorLike) -> "Tensor":
        o = self._other(b)
        return _typed(tf.Mul.apply(o, tf.Inv.apply(self)), self, o, b, True)

    def __neg__(self) -> "Tensor":
        if self.is_mask:  # (-True labelled bool would be True)
            raise RuntimeError(
                "Negation or subtraction of a bool tensor: use ~ or logical_not()"
            )
        return _typed(tf.Neg.apply(self), self, self, self)

    def __pos__(self) -> "Tensor":
        return self

    def __pow__(self, p: TensorLike) -> "Tensor":
        if isinstance(p, CoreMixin):
            return _whole(_typed(elementwise.PowTensor.apply(self, p), self, p, p))
        if not isinstance(p, numbers.Real):
            raise TypeError(f"the exponent must be a number, got {type(p).__name__}")
        if p < 0 and isinstance(p, numbers.Integral) and not self.is_floating_point():
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        return _typed(elementwise.Pow.apply(self, float(p)), self, self, p)

    def __rpow__(self, b: TensorLike) -> "Tensor":
        """``2 ** x``: a number raised to a tensor."""
        o = self._other(b)
        return _whole(_typed(elementwise.PowTensor.apply(o, self), self, o, b))

    pow = __pow__  # (self ** p, p a number or a tensor)

    def _quotient(self, b: TensorLike, fn: Any, partials: Any, name: str) -> "Tensor":
        """``fn(self, b)`` (``//``, ``%``, ``fmod``, ``div``) by NumPy on the host,
        with the gradient ``partials`` gives, reporting :func:`_divided`'s dtype."""
        out = elementwise.HostMap.apply(self, self._other(b), fn, partials)
        return _divided(out, dtypes.result_type(self, b), name)

    def __floordiv__(self, b: TensorLike) -> "Tensor":
        """$\\lfloor a / b \\rfloor$ (gradient 0, as ``torch.floor_divide``), exactly:
        ``1 // 0.1`` is 9 (0.1 is a little over 1/10), as Python's and PyTorch's."""
        return self._quotient(b, np.floor_divide, _flat, "div_floor")

    def __rfloordiv__(self, b: TensorLike) -> "Tensor":
        return _divided(self._other(b) // self, dtypes.result_type(self, b))

    def __mod__(self, b: TensorLike) -> "Tensor":
        """$a - b \\lfloor a / b \\rfloor$: the sign of the divisor, like Python's
        ``%`` and ``torch.remainder``."""
        return self._quotient(b, np.remainder, _remainder_partials, "remainder")

    def __rmod__(self, b: TensorLike) -> "Tensor":
        return _divided(self._other(b) % self, dtypes.result_type(self, b), "remainder")

    # PyTorch's method names of the operators.
    mul, multiply, subtract = __mul__, __mul__, sub
    true_divide, floor_divide, remainder = __truediv__, __floordiv__, __mod__

    def div(self, other: TensorLike, *, rounding_mode: str | None = None) -> "Tensor":
        """``torch.div``: $a / b$, or its quotient rounded toward $-\\infty$
        (``rounding_mode="floor"``, as ``//``) or toward 0 (``"trunc"``), which
        keeps integers ``int64`` and has gradient 0, as PyTorch's. (Both round
        NumPy's exact quotient: ``(a / b).trunc()`` would truncate ``a * (1 /
        b)``, which for 0.3 / 0.1, just under 3, rounds up to 3.)"""
        if rounding_mode is None:
            return self / other
        if (fn := _ROUNDED.get(rounding_mode)) is None:
            raise RuntimeError(f"div: unknown rounding_mode {rounding_mode!r}")
        return self._quotient(other, fn, _flat, f"div_{rounding_mode}")

    divide = div

    def fmod(self, other: TensorLike) -> "Tensor":
        """``torch.fmod``: $a - b\\,\\mathrm{trunc}(a / b)$, with the sign of the
        dividend (C's ``fmod``, exact; ``%`` takes the divisor's)."""
        return self._quotient(other, np.fmod, _fmod_partials, "fmod")

    def atan2(self, other: TensorLike) -> "Tensor":
        """``torch.atan2``: the angle in $(-\\pi, \\pi]$ of the point $(x, y)$ =
        ``(other, self)``; a float, as PyTorch's."""
        o = self._other(other)
        out = elementwise.HostMap.apply(self, o, np.arctan2, _atan2_partials)
        return _typed(out, self, o, other, True)

    def lerp(self, end: TensorLike, weight: TensorLike) -> "Tensor":
        """``torch.lerp``: $a + w (b - a)$ (differentiable in all three)."""
        return self + weight * (self._other(end) - self)

    def __rmatmul__(self, b: Any) -> "Tensor":
        """``b @ t`` for a ``b`` that is not a tensor (a NumPy array, lists).

        Also a speed matter: for ``x @ p`` with ``p`` a ``Parameter`` (a Tensor
        subclass), Python first looks for the subclass's ``__rmatmul__``; where
        there was none, that failed lookup raised and cleared an AttributeError
        on every product (+1.3 us, about 1% of the Task 3.5 epoch)."""
        return self.new_tensor(b) @ self  # (b is never a tensor: __matmul__ took it)

    def __matmul__(self, b: "Tensor") -> "Tensor":
        """Matrix product with PyTorch's rules: batched over leading dimensions
        (broadcast), and a 1-D operand is a row (left) or column (right) vector
        whose dimension is removed from the result."""
        if not isinstance(b, CoreMixin):
            raise TypeError(f"matmul needs two tensors, got a {type(b).__name__}")
        # (The dims read once each: a property call, ten a product otherwise.)
        left, right = self._tensor.dims, b._tensor.dims
        if left == 0 or right == 0:
            raise ValueError(
                f"matmul needs tensors of at least 1 dimension, got shapes "
                f"{self.shape} and {b.shape}"
            )
        a = self.contiguous().view(1, self.shape[0]) if left == 1 else self
        c = b.contiguous().view(b.shape[0], 1) if right == 1 else b
        # Checks the shapes here, so every backend reports errors the same way.
        try:
            shape = matmul_shape(a.shape, c.shape)
        except ValueError:
            raise ValueError(
                f"cannot multiply shapes {self.shape} and {b.shape}: the inner "
                f"sizes must agree and batch dimensions must broadcast"
            ) from None
        out = tf.MatMul.apply(a, c)
        if left == 1 or right == 1:  # (without the dimension of a vector operand)
            matrix = [n for n, k in zip(shape[-2:], (left, right)) if k != 1]
            out = out.view(*shape[:-2], *matrix)
        return _typed(out, self, b, b)

    matmul = __matmul__

    def mm(self, b: "Tensor") -> "Tensor":
        """``torch.mm``: the product of two matrices, shapes $(n, m)$ and $(m, p)$
        (``ValueError``, naming both shapes, for an operand that is not 2-D)."""
        if self.dims != 2 or b.dims != 2:
            raise ValueError(
                f"mm expects two matrices, got shapes {self.shape} and {b.shape}"
            )
        return self @ b

    def bmm(self, b: "Tensor") -> "Tensor":
        """``torch.bmm``: batched products, $(B, n, m)$ times $(B, m, p)$
        (``ValueError`` for operands not 3-D or whose batch sizes differ)."""
        if self.dims != 3 or b.dims != 3 or self.shape[0] != b.shape[0]:
            raise ValueError(
                f"bmm expects two 3-D tensors with the same batch size, got shapes "
                f"{self.shape} and {b.shape}"
            )
        return self @ b

    # Comparisons give 1.0/0.0 tensors marked ``is_mask``: indexing with one
    # selects (``x[x > 0]``) instead of picking entries 0 and 1.
    def _as_mask(self) -> "Tensor":
        self.is_mask = True
        self._dtype = None  # (a kernel's output may carry its input's float label)
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
        return self._other(b) <= self  # (a >= b is b <= a, NaN included)

    def __eq__(self, b: TensorLike) -> "Tensor":  # type: ignore[override]
        return tf.EQ.apply(self, self._other(b))._as_mask()

    def __ne__(self, b: TensorLike) -> "Tensor":  # type: ignore[override]
        return (self == b) == 0.0  # (NaN: not equal, so 1)

    eq, ne, lt, le, gt, ge = __eq__, __ne__, __lt__, __le__, __gt__, __ge__
    greater, less, greater_equal, less_equal, not_equal = gt, lt, ge, le, ne

    def isnan(self) -> "Tensor":
        """A mask of the NaN entries (NaN is the one number unequal to itself)."""
        return self != self

    def isinf(self) -> "Tensor":
        """A mask of the entries $\\pm\\infty$."""
        return self.abs() == math.inf

    def isfinite(self) -> "Tensor":
        """A mask of the entries neither infinite nor NaN."""
        return self.abs() < math.inf

    def nan_to_num(
        self, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None
    ) -> "Tensor":
        """``torch.nan_to_num``: NaN, $+\\infty$ and $-\\infty$ replaced by
        ``nan``, ``posinf`` and ``neginf`` (by default the dtype's largest and
        smallest finite numbers); the gradient flows to the finite entries."""
        big = np.finfo(self.dtype.name).max if self.is_floating_point() else 0.0
        out = self.masked_fill(self.isnan(), nan)
        out = out.masked_fill(out == math.inf, big if posinf is None else posinf)
        return out.masked_fill(out == -math.inf, -big if neginf is None else neginf)

    def logical_not(self) -> "Tensor":
        """$1$ where zero, else $0$ (``~mask``)."""
        return self == 0.0

    __invert__ = _bitwise(np.bitwise_not, logical_not)

    def logical_and(self, b: TensorLike) -> "Tensor":
        """$1$ where both are non-zero (``mask & mask``): a product of masks is
        a mask (PyTorch's bool result type)."""
        return self.bool() * self._other(b).bool()

    __and__ = __rand__ = _bitwise(np.bitwise_and, logical_and)

    def logical_or(self, b: TensorLike) -> "Tensor":
        """$1$ where either is non-zero (``mask | mask``): a sum of masks is a
        mask, non-zero where either is (PyTorch's bool result type)."""
        return self.bool() + self._other(b).bool()

    __or__ = __ror__ = _bitwise(np.bitwise_or, logical_or)

    def logical_xor(self, b: TensorLike) -> "Tensor":
        """$1$ where exactly one is non-zero (``mask ^ mask``)."""
        return (self.bool() != self._other(b).bool())._as_mask()

    __xor__ = __rxor__ = _bitwise(np.bitwise_xor, logical_xor)
    bitwise_and, bitwise_or = __and__, __or__
    bitwise_xor, bitwise_not = __xor__, __invert__

    # == builds a tensor, so hashing falls back to identity (as in PyTorch).
    __hash__ = object.__hash__

    def is_close(self, b: TensorLike) -> "Tensor":
        """$1$ where $|a - b| < 10^{-2}$, else $0$."""
        return tf.IsClose.apply(self, self._other(b))

    neg = negative = __neg__

    def sigmoid(self) -> "Tensor":
        """$\\sigma(x) = 1 / (1 + e^{-x})$."""
        return _floated(self, tf.Sigmoid.apply(self))

    def relu(self) -> "Tensor":
        """$\\max(x, 0)$."""
        return kept_dtype(self, tf.ReLU.apply(self))

    def log(self) -> "Tensor":
        """$\\ln x$."""
        return _floated(self, tf.Log.apply(self))

    def exp(self) -> "Tensor":
        """$e^x$."""
        return _floated(self, tf.Exp.apply(self))

    def tanh(self) -> "Tensor":
        """$\\tanh x$."""
        return _floated(self, tf.Tanh.apply(self))

    def sin(self) -> "Tensor":
        """$\\sin x$."""
        return _floated(self, elementwise.Sin.apply(self))

    def cos(self) -> "Tensor":
        """$\\cos x$."""
        return _floated(self, elementwise.Cos.apply(self))

    def sqrt(self) -> "Tensor":
        """$\\sqrt{x}$."""
        return _floated(self, elementwise.Sqrt.apply(self))

    def abs(self) -> "Tensor":
        """$|x|$ (gradient $\\mathrm{sign}(x)$, 0 at 0)."""
        return kept_dtype(self, elementwise.Abs.apply(self))

    __abs__ = abs

    def erf(self) -> "Tensor":
        """The error function $\\mathrm{erf}(x)$."""
        return _floated(self, elementwise.Erf.apply(self))

    def log1p(self) -> "Tensor":
        """$\\ln(1 + x)$, accurate for small $x$."""
        return _floated(self, elementwise.Log1p.apply(self))

    def expm1(self) -> "Tensor":
        """$e^x - 1$, accurate for small $x$."""
        return _floated(self, elementwise.Expm1.apply(self))

    def rsqrt(self) -> "Tensor":
        """$1 / \\sqrt{x}$."""
        return 1.0 / self.sqrt()

    def floor(self) -> "Tensor":
        """$\\lfloor x \\rfloor$ (gradient 0)."""
        return kept_dtype(self, elementwise.Piecewise.apply(self, elementwise._floor))

    def round(self, decimals: int = 0) -> "Tensor":
        """The nearest whole number, halves to even (gradient 0); with
        ``decimals``, the nearest multiple of $10^{-\\text{decimals}}$."""
        if decimals:
            return (self * 10.0**decimals).round() / 10.0**decimals
        return kept_dtype(self, elementwise.Piecewise.apply(self, elementwise._round))

    def ceil(self) -> "Tensor":
        """$\\lceil x \\rceil = -\\lfloor -x \\rfloor$ (gradient 0)."""
        return -(-self).floor()

    def trunc(self) -> "Tensor":
        """$x$ rounded toward 0: $\\mathrm{sign}(x) \\lfloor |x| \\rfloor$
        (gradient 0)."""
        return self.sign() * self.abs().floor()

    def frac(self) -> "Tensor":
        """The fractional part $x - \\mathrm{trunc}(x)$, with $x$'s sign
        (gradient 1)."""
        return self - self.trunc()

    def sign(self) -> "Tensor":
        """$-1$, $0$ or $1$ (gradient 0)."""
        return kept_dtype(self, elementwise.Piecewise.apply(self, elementwise._sign))

    def square(self) -> "Tensor":
        """$x^2$ (``int64`` for a bool tensor, as PyTorch's ``square``)."""
        return self * self if not self.is_mask else self * 1

    def maximum(self, other: TensorLike) -> "Tensor":
        """$\\max(x, y)$ entry by entry (``torch.maximum``): NaN propagates; a tie
        splits the gradient in halves."""
        o = self._other(tensor_operand("maximum", other))
        return _promoted(elementwise.Maximum.apply(self, o), (self, o))

    def minimum(self, other: TensorLike) -> "Tensor":
        """$\\min(x, y) = -\\max(-x, -y)$ entry by entry (``torch.minimum``)."""
        # (A mask is negated as int64: -True labelled bool would be True.)
        other = tensor_operand("minimum", other)
        a, b = (t.long() if t.is_mask else t for t in (self, self._other(other)))
        return _promoted(-elementwise.Maximum.apply(-a, -b), (self, other))

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
        # high), as in PyTorch. (A NaN bound is ignored, where PyTorch's gives NaN:
        # testing for it costs an or-mask per bound, 14 ms for 2 ms here on a
        # (256, 1024) clamp(-1, 1), one thread; NaN inputs stay NaN.)
        low = self if min is None else ixf.where(self < min, min, self)
        out = low if max is None else ixf.where(low > max, max, low)
        # (PyTorch's promoted dtype of the tensor and the bounds given)
        return _promoted(out, [b for b in (self, min, max) if b is not None])

    clip = clamp

    def masked_fill(self, mask: "Tensor", value: TensorLike) -> "Tensor":
        """``value`` where ``mask`` is non-zero, this tensor elsewhere (``mask``
        broadcasts); the gradient flows to the entries that were kept. The
        result has this tensor's dtype, as PyTorch's (``value`` is cast: an
        integer tensor's fill is truncated)."""
        return ixf.where(mask, value, self)._as_dtype(self.dtype)  # (float64: itself)

    def where(self, condition: "Tensor", other: TensorLike) -> "Tensor":
        """``torch.Tensor.where``: this tensor where ``condition`` is non-zero,
        ``other`` elsewhere (``kt.where(condition, self, other)``), with
        PyTorch's promoted dtype."""
        return _promoted(ixf.where(condition, self, other), (self, other))

    def equal(self, other: "Tensor") -> bool:
        """``torch.equal``: the same shape and the same numbers (NaN equals
        nothing; ``np.array_equal`` compares the shapes too)."""
        return bool(np.array_equal(self.to_numpy(), np.asarray(other)))

    def isclose(
        self,
        other: TensorLike,
        rtol: float = 1e-05,
        atol: float = 1e-08,
        equal_nan: bool = False,
    ) -> "Tensor":
        """``torch.isclose``: a mask of $|a - b| \\le \\text{atol} + \\text{rtol}
        \\cdot |b|$ (equal infinities are close; NaN only with ``equal_nan``)."""
        close = np.isclose(self.to_numpy(), np.asarray(other), rtol, atol, equal_nan)
        return FACTORIES["tensor"](close, backend=self.backend)  # (bools: a mask)

    def allclose(
        self,
        other: TensorLike,
        rtol: float = 1e-05,
        atol: float = 1e-08,
        equal_nan: bool = False,
    ) -> bool:
        """``torch.allclose``: :meth:`isclose` everywhere."""
        return bool(self.isclose(other, rtol, atol, equal_nan).all())

    def log_softmax(self, dim: int, dtype: Any = None) -> "Tensor":
        """$x_i - \\log \\sum_j e^{x_j}$ along ``dim`` (``F.log_softmax``;
        ``dtype``: converted first)."""
        x = self if dtype is None else self.to(dtype)
        return x - x.logsumexp(dim, keepdim=True)

    def softmax(self, dim: int, dtype: Any = None) -> "Tensor":
        """$e^{x_i} / \\sum_j e^{x_j}$ along ``dim`` (``F.softmax``), computed
        as ``exp(log_softmax)`` so large entries do not overflow."""
        return self.log_softmax(dim, dtype).exp()
