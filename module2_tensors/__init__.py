"""Module 2: strided tensors, broadcasting, tensor autodiff and shape operations.

Re-exports Module 1's public API (and through it Module 0's), so
``import module2_tensors as kt`` gives everything built so far.
"""

import sys as _sys

from module1_scalar_autodiff import *

from . import autograd, linalg
from .shape_functions import inference_mode, no_grad, pad
from .tensor_api.reductions import MaxResult, SortResult, TopKResult
from .tensor import *  # noqa: F403 (its __all__)
from .function_forms import *  # noqa: F403 (its __all__)
from .engine.devices import cuda, device, get_default_backend, name_backend
from .engine.devices import register_backend, set_default_backend
from .engine.autograd import Function
from .engine.grad_modes import enable_grad, is_grad_enabled, set_grad_enabled
from .engine.dtypes import dtype, float16, float32, float64, int32, int64
from .engine.dtypes import get_default_dtype, result_type, set_default_dtype


from .serialization import load, save
from .tensor_data import (
    TensorData,
    broadcast_index,
    index_to_position,
    shape_broadcast,
    strides_from_shape,
    to_index,
)
from .tensor_functions import grad_check, unbroadcast
from .tensor_ops import SimpleBackend, SimpleOps, TensorOps
from ._backend import TensorBackend
from .engine import dtypes as _dtypes, higher_order as _higher_order
from .tensor import Tensor as _T

# The function forms are the methods, which keep the tensor's dtype (kt.flip of
# int64 is int64, kt.split of a mask gives masks): kt.exp(x) is x.exp(), kt.max(x,
# y) x.max(y). (Here, not in function_forms.py: sum, abs, max, min and round would
# hide Python's built-ins in a module that computes.)
exp, log, sqrt, sigmoid, tanh = _T.exp, _T.log, _T.sqrt, _T.sigmoid, _T.tanh
sum, mean, prod, cumsum, abs = _T.sum, _T.mean, _T.prod, _T.cumsum, _T.abs
maximum, minimum, clamp, clip = _T.maximum, _T.minimum, _T.clamp, _T.clamp
max, min, argmax, argmin, sort = _T.max, _T.min, _T.argmax, _T.argmin, _T.sort
topk, argsort, matmul, mm, bmm = _T.topk, _T.argsort, _T.matmul, _T.mm, _T.bmm
gather, index_select, tril, triu = _T.gather, _T.index_select, _T.tril, _T.triu
equal, allclose, isclose = _T.equal, _T.allclose, _T.isclose
flip, roll, split, chunk, narrow = _T.flip, _T.roll, _T.split, _T.chunk, _T.narrow
unsqueeze, index_add, scatter_add = _T.unsqueeze, _T.index_add, _T.scatter_add
squeeze, tile, reshape, transpose = _T.squeeze, _T.tile, _T.reshape, _T.transpose
flatten, expand, repeat, retain_grad = _T.flatten, _T.expand, _T.repeat, _T.retain_grad
broadcast_to, movedim, nonzero = _T.broadcast_to, _T.movedim, _T.nonzero
unbind, var, logsumexp, norm = _T.unbind, _T.var, _T.logsumexp, _T.norm
diff, take_along_dim = _T.diff, _T.take_along_dim
amax, amin, cumprod, median = _T.amax, _T.amin, _T.cumprod, _T.median
kthvalue, unique, permute, diag = _T.kthvalue, _T.unique, _T.permute, _T.diag
diagonal, masked_select, unflatten = _T.diagonal, _T.masked_select, _T.unflatten
repeat_interleave = _T.repeat_interleave
empty, empty_like = zeros, zeros_like  # noqa: F405 (zeros: as good as any values)

# backward(create_graph=True) differentiates with the engine's recorded formulas,
# kept by class name: hand it the package's modules, which define the classes.
_higher_order.install(
    *[m for n, m in list(_sys.modules.items()) if n.startswith(__name__ + ".")]
)

# PyTorch's function forms of the operators and elementwise methods (kt.eq(a, b),
# kt.div(a, b, rounding_mode="floor"), kt.isnan(x), ...): the methods themselves.
add, sub, subtract, mul, multiply = _T.add, _T.sub, _T.sub, _T.mul, _T.mul
div, divide, true_divide, floor_divide = _T.div, _T.div, _T.true_divide, _T.floor_divide
remainder, fmod, atan2, neg, negative = _T.remainder, _T.fmod, _T.atan2, _T.neg, _T.neg
eq, ne, lt, le, gt, ge = _T.eq, _T.ne, _T.lt, _T.le, _T.gt, _T.ge
logical_not, logical_and, logical_or = _T.logical_not, _T.logical_and, _T.logical_or
logical_xor, isnan, isinf, isfinite = _T.logical_xor, _T.isnan, _T.isinf, _T.isfinite
nan_to_num, count_nonzero, lerp = _T.nan_to_num, _T.count_nonzero, _T.lerp
ceil, floor, trunc, frac, round = _T.ceil, _T.floor, _T.trunc, _T.frac, _T.round
sign, square, relu = _T.sign, _T.square, _T.relu
all, any, clone, sin, cos, std = _T.all, _T.any, _T.clone, _T.sin, _T.cos, _T.std
numel, log1p, expm1, not_equal = _T.numel, _T.log1p, _T.expm1, _T.ne
rsqrt, erf, masked_fill, scatter = _T.rsqrt, _T.erf, _T.masked_fill, _T.scatter
greater, greater_equal, less, less_equal, t = _T.gt, _T.ge, _T.lt, _T.le, _T.t
is_floating_point, absolute, arctan2 = _T.is_floating_point, _T.abs, _T.atan2
swapaxes, swapdims, sgn, tan, asin = _T.transpose, _T.transpose, _T.sgn, _T.tan, _T.asin
moveaxis, clamp_min, clamp_max, exp2 = _T.movedim, _T.clamp_min, _T.clamp_max, _T.exp2
reciprocal, deg2rad, rad2deg, arcsin = _T.reciprocal, _T.deg2rad, _T.rad2deg, _T.asin
acos, atan, sinh, cosh, asinh = _T.acos, _T.atan, _T.sinh, _T.cosh, _T.asinh
acosh, atanh, log2, log10, erfc = _T.acosh, _T.atanh, _T.log2, _T.log10, _T.erfc
logit, sinc, arccos, arctan, arcsinh = _T.logit, _T.sinc, _T.acos, _T.atan, _T.asinh
arccosh, arctanh, dot, mv, outer = _T.acosh, _T.atanh, _T.dot, _T.mv, _T.outer
ger, trace, ravel, logaddexp = _T.outer, _T.trace, _T.ravel, _T.logaddexp
nansum, nanmean, argwhere = _T.nansum, _T.nanmean, _T.argwhere
addcmul, addcdiv, bernoulli = _T.addcmul, _T.addcdiv, _T.bernoulli
multinomial, fliplr, flipud, take = _T.multinomial, _T.fliplr, _T.flipud, _T.take
select, diagflat, tensor_split = _T.select, _T.diagflat, _T.tensor_split
inner, isposinf, isneginf = _T.inner, _T.isposinf, _T.isneginf
msort, signbit, isreal, vdot = _T.msort, _T.signbit, _T.isreal, _T.vdot
logaddexp2, hsplit, vsplit, dsplit = _T.logaddexp2, _T.hsplit, _T.vsplit, _T.dsplit
fmax, fmin, dist, aminmax = _T.fmax, _T.fmin, _T.dist, _T.aminmax
hypot, heaviside = _T.hypot, _T.heaviside
rot90, kron, diag_embed = _T.rot90, _T.kron, _T.diag_embed
cummax, cummin = _T.cummax, _T.cummin
bitwise_and, bitwise_or, bitwise_xor = _T.bitwise_and, _T.bitwise_or, _T.bitwise_xor
bitwise_not, bincount = _T.bitwise_not, _T.bincount
addmm, addmv, baddbmm = _T.addmm, _T.addmv, _T.baddbmm
erfinv, cross, cov, ldexp = _T.erfinv, _T.cross, _T.cov, _T.ldexp


def __getattr__(name: str) -> object:
    # PyTorch's short dtype names (kt.bool, kt.float, kt.long...) are here, not
    # module globals: ``from module2_tensors import *`` must not hide Python's
    # bool, float and int.
    if name in _dtypes.NAMES:
        return _dtypes.NAMES[name]
    raise AttributeError(f"module 'module2_tensors' has no attribute {name!r}")
