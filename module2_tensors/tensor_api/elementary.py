"""PyTorch's other elementwise functions (``tan``, ``asinh``, ``log10``,
``logit``, ...) and other names of the methods (``absolute``, ``swapaxes``),
composed of the methods of the other mixins where that is exact (autograd then
follows), else computed by NumPy (``engine/elementwise.HostMap``)."""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import TYPE_CHECKING, Any, NamedTuple, Optional

import numpy as np

from ..engine.elementwise import HostMap
from .arithmetic import ArithmeticMixin as _A, _typed
from .core import CoreMixin as _C
from .dtype_device import floated

if TYPE_CHECKING:
    from ..tensor import Tensor

_erfc = np.vectorize(math.erfc, otypes=[float])  # (NumPy has no erfc)
_LN2 = math.log(2.0)
_SQRTPI_2 = math.sqrt(math.pi) / 2.0
#: ``torch.aminmax``'s result: ``(min, max)`` by these names.
MinMax = NamedTuple("aminmax", [("min", Any), ("max", Any)])


def _erfinv(y: float) -> float:
    """$\\mathrm{erf}^{-1}(y)$: the normal quantile of the tail $(1 - |y|) / 2$
    (exact there), then a Newton step on ``math.erf`` (full precision near 0,
    where that tail rounds to 1/2); $\\pm\\infty$ at $\\pm 1$, NaN beyond."""
    if not abs(y) < 1.0:
        return math.copysign(math.inf, y) if abs(y) == 1.0 else math.nan
    x = math.copysign(NormalDist().inv_cdf((1.0 - abs(y)) / 2.0) / -math.sqrt(2), y)
    return x - (math.erf(x) - y) / (math.exp(-x * x) * 2.0 / math.sqrt(math.pi))


def _added_product(product: str) -> Any:
    """``torch.addmm`` (``product`` ``"mm"``), ``addmv`` (``"mv"``) and
    ``baddbmm`` (``"bmm"``) as a method."""

    def added_product(self: "Tensor", a: Any, b: Any, *, beta: Any = 1, alpha: Any = 1):
        """$\\beta x + \\alpha\\, a b$, the product of ``a`` and ``b`` by
        PyTorch's rule for this name; ``beta = 0`` leaves ``x`` out, so that its
        NaN and infinities do not reach the result."""
        out = getattr(a, product)(b) * alpha
        return out if beta == 0 else self * beta + out

    return added_product


class ElementaryMixin:
    """Elementary functions and PyTorch's aliases of the other mixins' methods."""

    absolute, arctan2, sgn = _A.abs, _A.atan2, _A.sign
    nelement, ndimension = _C.numel, _C.dim

    def clamp_min(self, min: Any) -> "Tensor":
        """``torch.clamp_min``: ``clamp(min=min)``."""
        return self.clamp(min)

    def clamp_max(self, max: Any) -> "Tensor":
        """``torch.clamp_max``: ``clamp(max=max)``."""
        return self.clamp(None, max)

    def tan(self) -> "Tensor":
        """$\\tan x = \\sin x / \\cos x$."""
        return self.sin() / self.cos()

    def asin(self) -> "Tensor":
        """$\\arcsin x = \\mathrm{atan2}(x, \\sqrt{(1 - x)(1 + x)})$ (NaN for
        $|x| > 1$; the product is exact near $\\pm 1$, where $1 - x^2$ is not)."""
        x = self._real()
        return x.atan2(((1.0 - x) * (1.0 + x)).sqrt())

    def acos(self) -> "Tensor":
        """$\\arccos x = \\mathrm{atan2}(\\sqrt{(1 - x)(1 + x)}, x)$."""
        x = self._real()
        return ((1.0 - x) * (1.0 + x)).sqrt().atan2(x)

    def atan(self) -> "Tensor":
        """$\\arctan x = \\mathrm{atan2}(x, 1)$."""
        return self.atan2(1.0)

    def atanh(self) -> "Tensor":
        """$\\mathrm{artanh}\\, x = \\frac12 \\ln(1 + \\frac{2x}{1 - x})$ by
        ``log1p`` (accurate for small $x$; $\\pm\\infty$ at $\\pm 1$)."""
        x = self._real()
        return (2.0 * x / (1.0 - x)).log1p() * 0.5

    def _real(self) -> "Tensor":
        """A mask as the default float (PyTorch's ``asin`` of ``bool``), else itself."""
        return floated(self, self.double()) if self.is_mask else self

    def _host(self, fn: Any, derivative: Any) -> "Tensor":
        """$f(x)$ by NumPy's ``fn``, $f'$ the tensor function ``derivative``."""
        return floated(self, HostMap.apply(self, fn, derivative))

    def sinh(self) -> "Tensor":
        """$\\sinh x$ (NumPy's: accurate for small $x$, as $\\mathrm{expm1}$, and
        finite up to $x \\approx 710.47$, where $e^x$ is not); $f' = \\cosh$."""
        return self._host(np.sinh, lambda a: a.cosh())

    def cosh(self) -> "Tensor":
        """$\\cosh x$ (NumPy's); $f'(x) = \\sinh x$."""
        return self._host(np.cosh, lambda a: a.sinh())

    def asinh(self) -> "Tensor":
        """$\\mathrm{arsinh}\\, x$ (NumPy's); $f'(x) = 1 / \\sqrt{x^2 + 1}$."""
        return self._host(np.arcsinh, lambda a: (a * a + 1.0).rsqrt())

    def acosh(self) -> "Tensor":
        """$\\mathrm{arcosh}\\, x$ (NumPy's; NaN for $x < 1$);
        $f'(x) = 1 / \\sqrt{(x - 1)(x + 1)}$."""
        return self._host(np.arccosh, lambda a: ((a - 1.0) * (a + 1.0)).rsqrt())

    def log2(self) -> "Tensor":
        """$\\log_2 x$ (NumPy's: exact at powers of 2); $f'(x) = 1 / (x \\ln 2)$."""
        return self._host(np.log2, lambda a: 1.0 / (a * math.log(2.0)))

    def log10(self) -> "Tensor":
        """$\\log_{10} x$ (NumPy's: ``log10(1000.) == 3.0``, as PyTorch's, which
        $\\ln x / \\ln 10$ is not); $f'(x) = 1 / (x \\ln 10)$."""
        return self._host(np.log10, lambda a: 1.0 / (a * math.log(10.0)))

    def erfc(self) -> "Tensor":
        """$1 - \\mathrm{erf}(x)$ (``math.erfc``: accurate where it is small);
        $f'(x) = -\\frac{2}{\\sqrt\\pi} e^{-x^2}$."""
        return self._host(_erfc, lambda a: (-a * a).exp() * (-2.0 / math.sqrt(math.pi)))

    def exp2(self) -> "Tensor":
        """$2^x$."""
        return 2.0**self

    def reciprocal(self) -> "Tensor":
        """$1 / x$."""
        return 1.0 / self

    def logit(self, eps: Optional[float] = None) -> "Tensor":
        """$\\ln(z / (1 - z)) = \\ln z - \\ln(1 - z)$ (gradient $\\infty$ at 0 and 1,
        as PyTorch's), $z$ the input clamped to $[\\epsilon, 1 - \\epsilon]$ when
        ``eps`` is given (``torch.logit``)."""
        z = self._real() if eps is None else self._real().clamp(eps, 1.0 - eps)
        return z.log() - (-z).log1p()

    def sinc(self) -> "Tensor":
        """$\\sin(\\pi x) / (\\pi x)$; 1, with gradient 0, for $|x| < 10^{-9}$ (where
        it rounds to 1: the quotient's gradient would be NaN or infinite)."""
        safe = self.masked_fill(self.abs() < 1e-9, 1.0) * math.pi
        return (safe.sin() / safe).masked_fill(self.abs() < 1e-9, 1.0)

    def deg2rad(self) -> "Tensor":
        """$x \\pi / 180$."""
        return self * (math.pi / 180.0)

    def rad2deg(self) -> "Tensor":
        """$180 x / \\pi$."""
        return self * (180.0 / math.pi)

    arcsin, arccos, arctan = asin, acos, atan
    arcsinh, arccosh, arctanh = asinh, acosh, atanh

    def fliplr(self) -> "Tensor":
        """``torch.fliplr``: :meth:`flip` of dim 1 (left to right)."""
        return self.flip(1)

    def flipud(self) -> "Tensor":
        """``torch.flipud``: :meth:`flip` of dim 0 (up to down)."""
        return self.flip(0)

    def isposinf(self) -> "Tensor":
        """``torch.isposinf``: whether $x = +\\infty$ (``bool``)."""
        return self == math.inf

    def isneginf(self) -> "Tensor":
        """``torch.isneginf``: whether $x = -\\infty$ (``bool``)."""
        return self == -math.inf

    def signbit(self) -> "Tensor":
        """``torch.signbit``: whether the sign bit is set ($-0$ and $-$NaN too)."""
        return self.new_tensor(np.signbit(self.to_numpy())).bool()

    def isreal(self) -> "Tensor":
        """``torch.isreal``: ``True`` everywhere (every dtype here is real)."""
        return self.new_ones(self.shape).bool()

    def element_size(self) -> int:
        """``Tensor.element_size``: the dtype's size in bytes (its label's)."""
        return self.dtype.itemsize

    def msort(self) -> "Tensor":
        """``torch.msort``: the values of :meth:`sort` along dim 0."""
        return self.sort(0)[0]

    # Products, NaN-skipping sums and the like, composed of the other methods.

    def addcmul(self, tensor1: Any, tensor2: Any, *, value: Any = 1) -> "Tensor":
        """``torch.addcmul``: $x + v\\, t_1 t_2$ (``value`` $v$)."""
        return self + value * tensor1 * tensor2

    def addcdiv(self, tensor1: Any, tensor2: Any, *, value: Any = 1) -> "Tensor":
        """``torch.addcdiv``: $x + v\\, t_1 / t_2$ (``value`` $v$)."""
        return self + value * (tensor1 / tensor2)

    addmm, addmv, baddbmm = map(_added_product, ("mm", "mv", "bmm"))

    def bincount(self, weights: Any = None, minlength: int = 0) -> "Tensor":
        """``torch.bincount``: how many times each of $0, 1, \\dots$ occurs in
        this 1-D integer tensor (at least ``minlength`` of them, ``int64``), or
        the sum of ``weights`` where it occurs (their float dtype); no gradient."""
        if self.is_floating_point() or self.dims != 1:
            raise RuntimeError(
                "bincount only supports 1-d non-negative integral inputs."
            )
        w = None if weights is None else weights.to_numpy()
        counts = np.bincount(self.to_numpy().astype(np.int64), w, minlength)
        return self.new_tensor(counts) if w is None else weights.new_tensor(counts)

    def erfinv(self) -> "Tensor":
        """$\\mathrm{erf}^{-1}(x)$ (NumPy has none: :func:`_erfinv` entry by entry);
        $f'(x) = \\frac{\\sqrt\\pi}{2} e^{f(x)^2}$."""
        inverse = np.vectorize(_erfinv, otypes=[float])
        return self._host(inverse, lambda a: a.erfinv().square().exp() * _SQRTPI_2)

    def ldexp(self, other: Any) -> "Tensor":
        """``torch.ldexp``: $x\\, 2^{e}$ (``other`` $e$)."""
        return self * 2.0**other

    def cross(self, other: "Tensor", dim: Optional[int] = None) -> "Tensor":
        """``torch.cross``: $c_i = a_{i+1} b_{i+2} - a_{i+2} b_{i+1}$ (indices
        mod 3) along ``dim``, by default the first dim of size 3."""
        dim = (self.shape.index(3) if 3 in self.shape else 0) if dim is None else dim
        if self.shape[dim] != 3 or other.shape[dim] != 3:
            raise RuntimeError(f"cross: dimension {dim} must have length 3")
        a, b = self.roll(-1, dim), other.roll(-2, dim)
        return a * b - self.roll(-2, dim) * other.roll(-1, dim)

    def cov(self, *, correction: int = 1) -> "Tensor":
        """``torch.cov``: the covariance of the variables in the rows (a 1-D
        tensor is one), observations in the columns: $\\frac{1}{N - c}
        \\sum_k (x_{ik} - \\bar x_i)(x_{jk} - \\bar x_j)$ (``c = correction``)."""
        x = self.reshape(-1, self.shape[-1] if self.dims else 1)
        x = x - x.mean(1, keepdim=True)
        out = x.matmul(x.t()) / max(x.shape[1] - correction, 0)  # (0: inf, as torch)
        return out if x.shape[0] > 1 else out.reshape(())  # (one variable: 0-d)

    def dot(self, other: "Tensor") -> "Tensor":
        """``torch.dot``: $\\sum_i x_i y_i$ of two 1-D tensors."""
        if self.dims != 1 or other.dims != 1:
            raise RuntimeError(f"1D tensors expected, got {self.shape}, {other.shape}")
        return self @ other

    vdot = dot  # (torch.vdot: the conjugate is itself for real tensors)

    def inner(self, other: "Tensor") -> "Tensor":
        """``torch.inner``: $\\sum_k x_{\\dots k} y_{\\dots k}$ over the last dims
        (the product for a 0-d operand)."""
        if self.dims == 0 or other.dims == 0:
            return self * other
        flat = other.reshape(-1, other.shape[-1]).t()
        return self.matmul(flat).reshape(*self.shape[:-1], *other.shape[:-1])

    def mv(self, vec: "Tensor") -> "Tensor":
        """``torch.mv``: a matrix times a 1-D vector."""
        return self.mm(vec.unsqueeze(1)).squeeze(1)

    def outer(self, vec2: "Tensor") -> "Tensor":
        """``torch.outer`` (``ger``): $x_i y_j$ of two 1-D tensors."""
        return self.unsqueeze(1) * vec2.unsqueeze(0)

    def trace(self) -> "Tensor":
        """``torch.trace``: the sum of a matrix's diagonal."""
        return self.diagonal().sum()

    def ravel(self) -> "Tensor":
        """``torch.ravel``: the entries as one 1-D tensor."""
        return self.reshape(-1)

    def logaddexp(self, other: "Tensor") -> "Tensor":
        """$\\log(e^x + e^y) = \\max(x, y) + \\log(1 + e^{-|x - y|})$ (stable; equal
        infinities give themselves, as PyTorch's)."""
        gap = (self - other).abs().nan_to_num(0.0)
        return self.maximum(other) + (-gap).exp().log1p()

    def logaddexp2(self, other: "Tensor") -> "Tensor":
        """$\\log_2(2^x + 2^y)$: :meth:`logaddexp` of $x \\ln 2$ and $y \\ln 2$, over
        $\\ln 2$."""
        return (self * _LN2).logaddexp(other * _LN2) / _LN2

    def fmax(self, other: "Tensor") -> "Tensor":
        """``torch.fmax``: :meth:`maximum`, but NaN only where both are (the other
        where one is); ties and NaN pairs give ``self`` the gradient, as PyTorch."""
        return self.where((self >= other) | other.isnan(), other)

    def fmin(self, other: "Tensor") -> "Tensor":
        """``torch.fmin``: :meth:`minimum`, NaN only where both are."""
        return self.where((self <= other) | other.isnan(), other)

    def dist(self, other: Any, p: float = 2) -> "Tensor":
        """``torch.dist``: the ``p``-norm of ``self - other`` (broadcast)."""
        return (self - other).norm(p)

    def aminmax(self, *, dim: Any = None, keepdim: bool = False) -> MinMax:
        """``torch.aminmax``: ``(amin, amax)`` over ``dim`` (all if ``None``)."""
        return MinMax(self.amin(dim, keepdim), self.amax(dim, keepdim))

    def float_power(self, exponent: Any) -> "Tensor":
        """``torch.float_power``: :meth:`pow` computed and reported as ``float64``."""
        return self.double().pow(exponent).double()

    def hypot(self, other: "Tensor") -> "Tensor":
        """$\\sqrt{x^2 + y^2}$ as $s \\sqrt{(x/s)^2 + (y/s)^2}$, $s = \\max(|x|, |y|)$
        (no overflow at $10^{200}$; $\\infty$ where either is, NaN or not)."""
        s = self.abs().maximum(other.abs()).detach().nan_to_num(1.0, 1.0)
        s = s.clamp(1e-300)  # (1 for NaN and inf, no 0: no 0/0 or inf/inf)
        h = s * ((self / s).square() + (other / s).square()).sqrt()
        return h.masked_fill(self.isinf() | other.isinf(), math.inf)

    def xlogy(self, other: Any) -> "Tensor":
        """``torch.xlogy``: $x \\ln y$, 0 where $x = 0$ unless $y$ is NaN; its
        $x$-gradient $\\ln y$ is 0 there for $y \\le 0$ (and $y = \\infty$)."""
        y = self._other(other)
        zero = (self == 0) & ((y <= 0) | (y == math.inf))
        return _typed(self * y.log().masked_fill(zero, 0.0), self, y, other, True)

    def heaviside(self, values: "Tensor") -> "Tensor":
        """``torch.heaviside``: 0 for $x < 0$ (and NaN), ``values`` at 0, 1 above."""
        if values.dtype != self.dtype:
            raise RuntimeError(f"heaviside: dtypes {self.dtype} and {values.dtype}")
        return values.where(self == 0, self > 0)

    def nansum(
        self, dim: Any = None, keepdim: bool = False, *, dtype: Any = None
    ) -> "Tensor":
        """:meth:`sum` with NaN counted as 0 (``torch.nansum``; gradient 0 there)."""
        return self.masked_fill(self.isnan(), 0).sum(dim, keepdim, dtype=dtype)

    def nanmean(
        self, dim: Any = None, keepdim: bool = False, *, dtype: Any = None
    ) -> "Tensor":
        """:meth:`mean` of the entries that are not NaN (``torch.nanmean``)."""
        count = self.isnan().logical_not().sum(dim, keepdim)
        return self.nansum(dim, keepdim, dtype=dtype) / count

    def argwhere(self) -> "Tensor":
        """``torch.argwhere``: the indices of the non-zero entries, one row each."""
        return self.nonzero()
