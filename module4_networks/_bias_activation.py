"""A linear layer's bias and the activation after it, in one GPU kernel each way.

On ``CudaBackend`` every kernel launch costs tens of microseconds of host time
(issue 40), more than a small layer's arithmetic. ``Linear`` then ``ReLU`` costs a
matmul, the bias add and the activation forward (3 launches), and the activation's
backward and the bias gradient's sum backward (2 more). Here, for
$z = x W^\\top + b$ and $y = f(z)$ with $f$ one of ReLU, tanh, sigmoid, GELU:

* forward: one kernel writes $y_{r, o} = f(p_{r, o} + b_o)$ from the matmul's
  result $p = x W^\\top$ (one thread per entry);
* backward: one kernel writes $\\partial L / \\partial p_{r, o} = g_{r, o}\\,
  f'(p_{r, o} + b_o)$ and, in the same pass, $\\partial L / \\partial b_o =
  \\sum_r \\partial L / \\partial p_{r, o}$: one *block* per feature $o$, whose
  threads stride over the rows and add their partial sums in a tree (as the
  reduce of Task 3.3).

Interface: :func:`sequential` (``nn.Sequential``'s one visible branch) and
:data:`KERNEL_SPECS` (``kindling kernels --task fused``, the resource test).

The students' code stays the definition, by ``engine.fast_path``: for each new
signature the first call runs the student's ``Linear`` and the activation module
forward and backward on the same inputs, and this path beside them, and serves
only where values and gradients agree.

On the CPU backends nothing is fused: there a "launch" of the fast backend is a
call into a compiled loop (microseconds), and a fused CPU kernel would be a
second copy of this arithmetic for a gain lost in the matmul (docs/DESIGN.md).
"""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence, Tuple

import numba

from module2_tensors.engine.autograd import Context
from module2_tensors.engine.autograd import Function
from module2_tensors.engine.grad_modes import enable_grad
from module2_tensors.tensor import Tensor
from module3_fast_ops._cuda_runtime import _result, cuda, launch
from module3_fast_ops._cuda_specs import given_kernels
from module3_fast_ops.cuda_ops import THREADS_PER_BLOCK as THREADS
from module3_fast_ops.cuda_positions import blocks_for

from ._matmul_blas import matmul
from .cuda_conv import block_sum
from .engine import agrees, fast_path, probe_gradient, signature

__all__ = ["sequential", "KERNEL_SPECS", "PATH"]

#: Per signature: does this path agree with the student's Linear and activation?
PATH = fast_path("bias_activation", "a Linear then its activation (Task 4.6)")

_SQRT_HALF = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


# ------------------------------------------------------------------ kernels
@cuda.jit(device=True)
def _activate(z, kind):  # type: ignore
    """$f(z)$: ReLU, tanh, sigmoid or GELU ($z\\, \\Phi(z)$) by ``kind``."""
    if kind == 0:
        return z if z > 0.0 else 0.0
    if kind == 1:
        return math.tanh(z)
    if kind == 2:
        if z >= 0.0:
            return 1.0 / (1.0 + math.exp(-z))
        e = math.exp(z)
        return e / (1.0 + e)
    return 0.5 * z * (1.0 + math.erf(z * _SQRT_HALF))


@cuda.jit(device=True)
def _slope(z, kind):  # type: ignore
    """$f'(z)$ (ReLU's is 0 at 0, as PyTorch's; GELU's $\\Phi(z) + z \\varphi(z)$)."""
    if kind == 0:
        return 1.0 if z > 0.0 else 0.0
    if kind == 1:
        t = math.tanh(z)
        return 1.0 - t * t
    if kind == 2:
        s = _activate(z, 2)
        return s * (1.0 - s)
    cdf = 0.5 * (1.0 + math.erf(z * _SQRT_HALF))
    return cdf + z * _INV_SQRT_2PI * math.exp(-0.5 * z * z)


@cuda.jit
def _forward(out, pre, bias, bias_step, features, size, kind):  # type: ignore
    # out and pre are row-major (rows, features); thread i computes entry i.
    i = cuda.grid(1)
    if i < size:
        out[i] = _activate(pre[i] + bias[(i % features) * bias_step], kind)


@cuda.jit
def _backward(  # type: ignore
    d_pre, d_bias, pre, bias, bias_step, g, g_row, g_col, rows, features, kind
):
    # Block o: column o of d_pre (row-major) and d_bias[o]; g is read through its
    # row and column strides.
    partial = cuda.shared.array(THREADS, numba.float64)
    o = cuda.blockIdx.x
    t = cuda.threadIdx.x
    b = bias[o * bias_step]
    acc = 0.0
    for r in range(t, rows, THREADS):
        at = r * features + o
        d = g[r * g_row + o * g_col] * _slope(pre[at] + b, kind)
        d_pre[at] = d
        acc += d
    total = block_sum(partial, acc)
    if t == 0:
        d_bias[o] = total


_f64, _n = numba.float64[::1], numba.int64
#: The two kernels with their argument types and block size (``kindling kernels``,
#: the resource test; on a GPU, kept on disk for the next processes).
_KERNELS = {
    "bias_act_forward": (_forward, (_f64, _f64, _f64, _n, _n, _n, _n)),
    "bias_act_backward": (_backward, (_f64,) * 4 + (_n, _f64) + (_n,) * 5),
}
KERNEL_SPECS = given_kernels("fused", THREADS, _KERNELS)


# --------------------------------------------------------------- the Function
class BiasActivation(Function):
    """``apply(pre, bias, kind)``: $f(\\mathrm{pre} + \\mathrm{bias})$, ``pre``
    row-major ``(..., features)``, ``bias`` ``(features,)``; gradients for both."""

    @staticmethod
    def forward(ctx: Context, pre: Tensor, bias: Tensor, kind: int) -> Tensor:
        pre = pre if pre.is_contiguous() else pre.contiguous()
        features, size = pre.shape[-1], pre.size
        out = _result(pre, pre.shape)
        b_storage, _, b_strides = bias.tuple()
        if size:
            args = (out.tuple()[0], pre.tuple()[0], b_storage, int(b_strides[0]))
            grid = blocks_for(size, THREADS)
            launch(_forward, grid, THREADS, *args, features, size, kind)
        ctx.save_for_backward(pre, bias, kind)
        return out

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tuple[Tensor, Tensor]:
        pre, bias, kind = ctx.saved_values
        features = pre.shape[-1]
        rows = pre.size // features if features else 0
        # ``grad`` as (rows, features), read through its row and column strides:
        # a 2-D one (transposed, broadcast) as it is, others row-major.
        if grad.dims != 2:
            grad = grad.contiguous().view(rows, features)
        strides = tuple(int(n) for n in grad.tuple()[2])
        d_pre, d_bias = _result(pre, pre.shape), _result(bias, bias.shape)
        b_storage, _, b_strides = bias.tuple()
        if features:
            args = (d_pre.tuple()[0], d_bias.tuple()[0], pre.tuple()[0], b_storage)
            args += (int(b_strides[0]), grad.tuple()[0], *strides, rows, features)
            launch(_backward, features, THREADS, *args, kind)
        return d_pre, d_bias


# ---------------------------------------------------------- the visible branch
#: (the ``Linear`` class, the activation classes in the kernels' ``kind`` order,
#: Module 0's ``Sequential`` whose loop the check runs), handed over by
#: ``layers.Sequential`` (a private module imports no student file).
Layers = Tuple[type, Tuple[type, ...], type]


def _kind(linear: Any, activation: Any, layers: Layers) -> Optional[int]:
    """The kernels' ``kind`` of ``activation`` after ``linear``, or ``None``
    where the pair is not fused (no bias, another layer, a subclass, GELU's tanh
    approximation)."""
    linear_class, activations, _ = layers
    fused = type(linear) is linear_class and linear.bias is not None
    if not fused or getattr(activation, "approximate", "none") != "none":
        return None
    kind = type(activation)
    return activations.index(kind) if kind in activations else None


def _fused(linear: Any, kind: int, x: Tensor) -> Tensor:
    pre = matmul(x, linear.weight.value.T)  # as F.linear: x W^T, then the bias
    return BiasActivation.apply(pre, linear.bias.value, kind)


def _check(
    linear: Any, activation: Any, kind: int, x: Tensor, need: bool, layers: Layers
) -> bool:
    """The student's ``Sequential(linear, activation)(x)`` (Task 0.4's loop,
    Task 4.6's ``Linear``) and this path, forward and (with ``need``) backward,
    on a detached ``x``; the parameters' gradients are given back as they
    were."""
    params = [linear.weight.value, linear.bias.value]
    saved = [p.grad for p in params]
    results: list = []  # per run: the output, the gradients of x and the parameters
    try:
        runs = (layers[2](linear, activation), lambda t: _fused(linear, kind, t))
        with enable_grad():
            for run in runs:  # (the student's layers, then this path)
                start = x.detach().requires_grad_(True)
                for p in params:
                    p.grad = None
                out = run(start)
                if need:
                    out.backward(out.new_tensor(probe_gradient(out.shape)))
                results.append([out, start.grad] + [p.grad for p in params])
    except Exception:  # noqa: BLE001 (a stub, a bug: the student's code decides)
        return False
    finally:
        for p, grad in zip(params, saved):
            p.grad = grad
    reference, mine = results
    pairs = zip(mine, reference) if need else [(mine[0], reference[0])]
    return all(a is not None and agrees(a.to_numpy(), b) for a, b in pairs)


def _loop_written(container: type, x: Tensor) -> bool:
    """Whether Task 0.4's ``Sequential`` loop runs (the empty one gives back its
    input): this path runs the modules in order itself, so a stub there must
    still raise where it did. (Asked at every call: about 1 us, against tens of
    microseconds for each of the path's launches.)"""
    try:
        return container()(x) is x
    except Exception:  # noqa: BLE001 (a stub: the student's code raises it)
        return False


def sequential(modules: Sequence[Any], x: Any, layers: Layers) -> Optional[Any]:
    """``modules`` applied to ``x`` in order, each ``Linear`` followed by ReLU,
    Tanh, Sigmoid or GELU (exact) as one matmul and one fused kernel where that
    agreed with the student's layers on this signature; ``None`` where the caller
    runs its own code (no such pair, a check in progress). ``layers.Sequential``
    calls it for a CUDA tensor only."""
    pairs = list(zip(modules, modules[1:]))
    if (
        PATH.checking
        or all(_kind(a, b, layers) is None for a, b in pairs)
        or not _loop_written(layers[2], x)
    ):
        return None
    k = 0
    while k < len(modules):
        kind = _kind(*pairs[k], layers) if k < len(pairs) else None
        if kind is not None:
            linear, activation = pairs[k]
            # (x's, the weight's and the bias's layouts and needs, the backend)
            key, needs = signature(x, linear.weight.value, linear.bias.value)
            need = any(needs)
            if PATH.verdict(
                (key, kind), lambda: _check(linear, activation, kind, x, need, layers)
            ):
                x = _fused(linear, kind, x)
                k += 2
                continue
        x = modules[k](x)
        k += 1
    return x
