"""PyTorch's other elementwise functions (``tan``, ``asinh``, ``log10``,
``logit``, ...) and other names of the methods (``absolute``, ``swapaxes``),
composed of the methods of the other mixins where that is exact (autograd then
follows), else computed by NumPy (``engine/elementwise.HostMap``)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Optional, Sequence

import numpy as np

from ..engine.elementwise import HostMap
from .arithmetic import ArithmeticMixin as _A
from .core import FACTORIES, CoreMixin as _C
from .dtype_device import floated

if TYPE_CHECKING:
    from ..tensor import Tensor

_erfc = np.vectorize(math.erfc, otypes=[float])  # (NumPy has no erfc)


class ElementaryMixin:
    """Elementary functions and PyTorch's aliases of the other mixins' methods."""

    __slots__ = ()

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
        return self.atan2(((1.0 - self) * (1.0 + self)).sqrt())

    def acos(self) -> "Tensor":
        """$\\arccos x = \\mathrm{atan2}(\\sqrt{(1 - x)(1 + x)}, x)$."""
        return ((1.0 - self) * (1.0 + self)).sqrt().atan2(self)

    def atan(self) -> "Tensor":
        """$\\arctan x = \\mathrm{atan2}(x, 1)$."""
        return self.atan2(1.0)

    def atanh(self) -> "Tensor":
        """$\\mathrm{artanh}\\, x = \\frac12 \\ln(1 + \\frac{2x}{1 - x})$ by
        ``log1p`` (accurate for small $x$; $\\pm\\infty$ at $\\pm 1$)."""
        return (2.0 * self / (1.0 - self)).log1p() * 0.5

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
        z = self if eps is None else self.clamp(eps, 1.0 - eps)
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

    # Products, random draws and in-place forms, composed of the other methods.
    def addcmul(self, tensor1: Any, tensor2: Any, *, value: Any = 1) -> "Tensor":
        """``torch.addcmul``: $x + v\\, t_1 t_2$."""
        return self + value * tensor1 * tensor2

    def addcdiv(self, tensor1: Any, tensor2: Any, *, value: Any = 1) -> "Tensor":
        """``torch.addcdiv``: $x + v\\, t_1 / t_2$."""
        return self + value * (tensor1 / tensor2)

    def dot(self, other: "Tensor") -> "Tensor":
        """``torch.dot``: $\\sum_i x_i y_i$ of two 1-D tensors."""
        if self.dims != 1 or other.dims != 1:
            raise ValueError(f"1D tensors expected, got {self.shape}, {other.shape}")
        return self @ other

    def mv(self, vec: "Tensor") -> "Tensor":
        """``torch.mv``: a matrix times a 1-D vector."""
        return self.mm(vec.unsqueeze(1)).squeeze(1)

    def outer(self, vec2: "Tensor") -> "Tensor":
        """``torch.outer`` (``ger``): $x_i y_j$ of two 1-D tensors."""
        return self.unsqueeze(1) * vec2.unsqueeze(0)

    def trace(self) -> "Tensor":
        """``torch.trace``: the sum of a matrix's diagonal."""
        return self.diagonal().sum()

    def multinomial(
        self, num_samples: int, replacement: bool = False, *, generator: Any = None
    ) -> "Tensor":
        """``num_samples`` indices drawn from the weights (1-D, or one row of weights
        per draw), without ``replacement`` unless asked (``int64``, no gradient)."""
        w = self.to_numpy().reshape(-1, self.shape[-1])
        n = num_samples if replacement else w.shape[1]
        u = FACTORIES["rand"](len(w), n, generator=generator).to_numpy()
        if replacement:  # (the inverse of the cumulative weights)
            cdf = w.cumsum(1)
            drawn = [np.searchsorted(c, r * c[-1], "right") for c, r in zip(cdf, u)]
        else:  # (the largest keys u^(1/w): Efraimidis and Spirakis's draw)
            with np.errstate(divide="ignore"):  # (weight 0: key 0, drawn last)
                drawn = np.argsort(-(u ** (1.0 / w)), 1, kind="stable")[:, :num_samples]
        out = np.reshape(drawn, (*self.shape[:-1], num_samples))
        return FACTORIES["tensor"](out.astype(np.int64), backend=self.backend)

    def bernoulli(self, p: Any = None, *, generator: Any = None) -> "Tensor":
        """1 with probability ``p`` (by default this tensor's entries), else 0, in this
        tensor's dtype (no gradient), as ``torch.bernoulli``."""
        p = self.detach() if p is None else p
        u = FACTORIES["rand"](self.shape, backend=self.backend, generator=generator)
        return (u < p)._as_dtype(self.dtype)

    def bernoulli_(self, p: Any = 0.5, *, generator: Any = None) -> "Tensor":
        """Fill with samples of :meth:`bernoulli` of probability ``p``, in place."""
        return self.copy_(self.bernoulli(p, generator=generator))

    def ravel(self) -> "Tensor":
        """``torch.ravel``: the entries as one 1-D tensor."""
        return self.reshape(-1)

    def logaddexp(self, other: "Tensor") -> "Tensor":
        """$\\log(e^x + e^y) = \\max(x, y) + \\log(1 + e^{-|x - y|})$ (stable; equal
        infinities give themselves, as PyTorch's)."""
        gap = (self - other).abs().nan_to_num(0.0)
        return self.maximum(other) + (-gap).exp().log1p()

    def logaddexp2(self, other: "Tensor") -> "Tensor":
        """$\\log_2(2^x + 2^y)$, by :meth:`logaddexp` in units of $\\ln 2$."""
        return (self * math.log(2.0)).logaddexp(other * math.log(2.0)) / math.log(2.0)

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

    def rot90(self, k: int = 1, dims: Sequence[int] = (0, 1)) -> "Tensor":
        """``torch.rot90``: ``k`` quarter turns, from dim ``dims[0]`` toward ``dims[1]``
        (each a flip of ``dims[1]`` and a transpose, as NumPy's)."""
        out = self.clone()
        for _ in range(k % 4):
            out = out.flip(dims[1]).transpose(*dims)
        return out

    def cross(self, other: "Tensor", dim: Optional[int] = None) -> "Tensor":
        """``torch.cross``: the cross product along ``dim`` (by default the first
        of size 3): $(a \\times b)_i = a_{i+1} b_{i+2} - a_{i+2} b_{i+1}$."""
        dim = list(self.shape).index(3) if dim is None else dim
        ab = self.roll(-1, dim) * other.roll(-2, dim)
        return ab - self.roll(-2, dim) * other.roll(-1, dim)

    def signbit(self) -> "Tensor":
        """``torch.signbit``: whether the sign bit is set ($x < 0$, and $-0.0$)."""
        return FACTORIES["tensor"](np.signbit(self.to_numpy()), backend=self.backend)

    def isposinf(self) -> "Tensor":
        """``torch.isposinf``: whether $x = +\\infty$ (``bool``)."""
        return self == math.inf

    def isneginf(self) -> "Tensor":
        """``torch.isneginf``: whether $x = -\\infty$ (``bool``)."""
        return self == -math.inf

    def isreal(self) -> "Tensor":
        """``torch.isreal``: ``True`` everywhere (no complex dtypes here)."""
        return self.isnan().logical_or(~self.isnan())

    def argwhere(self) -> "Tensor":
        """``torch.argwhere``: the indices of the non-zero entries, one row each."""
        return self.nonzero()
