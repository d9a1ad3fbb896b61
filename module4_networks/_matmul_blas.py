"""Module 4's matrix products in NumPy's BLAS: the fast path of ``F.linear`` and of
``MultiheadAttention``'s projections and batched products.

Interface: :func:`matmul` (``matmul(a, b)`` is ``a @ b``).

Module 3's matmul (the students' Task 3.2 kernel) is what ``a @ b`` runs, and
Module 3's own benchmarks (Task 3.5) keep measuring it. In Module 4's models it
was most of a training step: 43% of the SST-2 Transformer's and 64% of the
character GPT's (cProfile, issue 29), the kernel itself rather than the Python
around it (the call overhead was 4% of the kernel time). Two things make
it slower than a BLAS here: the kernel's own speed on these shapes (2-4x slower
than a BLAS ``gemm`` on one thread), and the weight gradients of ``x @ W.T`` with
a batched ``x`` ``(B, T, in)``: ``MatMul.backward`` computes one small product
per batch entry, ``(B, in, T) x (B, T, out)``, and ``unbroadcast`` then sums the
``B`` results; here that is one ``gemm``, ``(in, B T) x (B T, out)``.

* forward: $C = A B$ (``A`` with its batch dimensions flattened into rows when
  ``B`` is a matrix: one ``gemm``);
* backward: $dA = G B^\\top$ and $dB = A^\\top G$, each summed over the batch
  dimensions its operand was broadcast along.

The students' code stays the definition. For each new signature (both shapes and
memory layouts, which operands need a gradient, backend) the first call runs ``a @
b`` (Module 2's ``MatMul`` on the students' kernel) forward and backward on
detached copies that need gradients where the operands do (a backward may branch
on ``needs_input_grad``), with a fixed pseudo-random output gradient, and this
path beside it; the fast path serves that signature only when the value and the
gradients agree (rtol 1e-9: the sums run in another order), so a wrong kernel
keeps running (and showing) and a stub still raises.

Measured (one thread, load average 1.4-1.8): the matrix products of one SST-2
Transformer step 124 ms by the course kernel, 31 ms by NumPy; of one character GPT
step 303 ms and 157 ms (the kernel times of the same shapes, best of 3). The
steps beside PyTorch (``kindling bench --threads 1``, load 1.6-2.2), before and
after this path and a softmax path since deleted: the Transformer 2.57x -> 1.34x,
the GPT 2.17x -> 1.43x (``module3_fast_ops/BENCHMARKS.md``, issue 29, part 3); this
path alone off, 1.38x and 1.30x the step time (``docs/DESIGN.md``, section 2).
"""

from __future__ import annotations

from typing import Optional, Tuple

import numpy as np

from .engine import agrees, fast_path, host_float64, signature
from .engine import probe_gradient, ran_backward

from module2_tensors.engine.autograd import Context, Function
from module2_tensors.engine.grad_modes import enable_grad
from module2_tensors.engine.higher_order import NAMED, register
from module2_tensors.engine.layout import host_view
from module2_tensors.tensor import Tensor

#: Per signature: does this path agree with the students' ``a @ b`` there?
PATH = fast_path("matmul", "a @ b (Module 2's MatMul on the Task 3.2 kernel)")


def _sum_to(x: np.ndarray, shape: Tuple[int, ...]) -> np.ndarray:
    """Sum ``x`` over the dimensions it was broadcast along to reach ``shape``."""
    extra = tuple(range(x.ndim - len(shape)))
    x = x.sum(axis=extra) if extra else x
    ones = tuple(k for k, n in enumerate(shape) if n == 1 and x.shape[k] != 1)
    return x.sum(axis=ones, keepdims=True) if ones else x


def _product(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """$x y$; a batch times a matrix as one ``gemm`` of all its rows (np.matmul
    runs one small ``gemm`` per batch entry: the GPT's ``(32, 64, 128) x (128,
    512)`` 4.9 -> 4.1 ms, one thread). An empty ``y`` (a ``Linear`` to or from 0
    features) by np.matmul too: ``reshape(-1, 0)`` is ambiguous."""
    if y.ndim > 2 or y.size == 0:
        return np.matmul(x, y)
    return (x.reshape(-1, x.shape[-1]) @ y).reshape(*x.shape[:-1], y.shape[-1])


def _grads(
    a: np.ndarray, b: np.ndarray, g: np.ndarray, need_a: bool, need_b: bool
) -> Tuple[Optional[np.ndarray], Optional[np.ndarray]]:
    """$(G b^\\top, a^\\top G)$, each summed to its operand's shape; for a
    matrix ``b``, $a^\\top G$ as one ``gemm`` over every batch entry's rows,
    which sums them (5.7 -> 4.3 ms on the shapes above); an empty ``b`` by
    np.matmul, as in :func:`_product`."""
    da = _sum_to(_product(g, np.swapaxes(b, -1, -2)), a.shape) if need_a else None
    if need_b and b.ndim == 2 and b.size:
        return da, a.reshape(-1, a.shape[-1]).T @ g.reshape(-1, g.shape[-1])
    db = _sum_to(np.matmul(np.swapaxes(a, -1, -2), g), b.shape) if need_b else None
    return da, db


class _MatMulBlas(Function):
    """``apply(a, b)``: $a b$ by ``np.matmul``, gradients by :func:`_grads`."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor) -> Tensor:
        x, y = host_view(*a.tuple()), host_view(*b.tuple())
        ctx.save_for_backward(x, y)
        return a.new_tensor(_product(x, y))

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tuple[Optional[Tensor], ...]:
        needs = ctx.needs_input_grad  # (a recorded history's: one flag an input)
        grads = _grads(*ctx.saved_values, host_view(*grad.tuple()), *needs)
        return tuple(None if d is None else grad.new_tensor(d) for d in grads)


# backward(create_graph=True) (module2_tensors/engine/higher_order.py): MatMul's
# recorded formula, G b^T and a^T G, each only where the operand needs it.
register(_MatMulBlas)(NAMED["MatMul"])


def _check(a: Tensor, b: Tensor, needs: Tuple[bool, bool]) -> bool:
    """Run ``a @ b`` (the students' ``MatMul`` and kernel) forward and backward
    on detached copies that need gradients where ``a`` and ``b`` do (a backward
    may branch on ``needs_input_grad``), and this path on the same numbers;
    whether the value and the gradients needed agree."""
    pa, pb = a.detach().requires_grad_(needs[0]), b.detach().requires_grad_(needs[1])
    with enable_grad():  # (inside no_grad() nothing needs a gradient)
        out = pa @ pb
        g = probe_gradient(out.shape)
        if any(needs) and not ran_backward(out, out.new_tensor(g)):
            return False
    x, y = host_view(*a.tuple()), host_view(*b.tuple())
    got = (_product(x, y), *_grads(x, y, g, *needs))  # (None: not needed)
    return all(d is None or agrees(d, w) for d, w in zip(got, (out, pa.grad, pb.grad)))


def matmul(a: Tensor, b: Tensor) -> Tensor:
    """``a @ b``, in NumPy's BLAS where that agreed with ``a @ b`` on this
    signature (see the module docstring); ``a @ b`` itself everywhere else (a
    1-D operand, a CUDA or float32 tensor, a signature where they differed).
    Shapes that do not fit raise ``a @ b``'s error, from :func:`_check`'s run
    of it (no verdict is kept)."""
    usable = host_float64(a) and host_float64(b) and a.backend is b.backend
    if PATH.checking or not usable or a.dims < 2 or b.dims < 2:
        return a @ b
    key, needs = signature(a, b)
    serve = PATH.verdict(key, lambda: _check(a, b, needs))
    return _MatMulBlas.apply(a, b) if serve else a @ b
