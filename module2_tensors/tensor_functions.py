"""The differentiable functions of a ``Tensor``: forwards (Task 2.3) and backwards
(Task 2.4), un-broadcasting, and ``grad_check``.

Each operation is a :class:`Function` with two static methods, exactly as for
``Scalar`` in Module 1, except that the values are whole tensors:

* ``forward(ctx, *args)`` computes the result with the backend's specialised kernels
  (``a.backend.mul_zip(a, b)``) and saves what the backward pass needs with
  ``ctx.save_for_backward(...)``;
* ``backward(ctx, grad)`` receives $G = \\partial L / \\partial \\mathrm{out}$ (a tensor
  of the output's shape) and returns $\\partial L / \\partial x$ for each input $x$.

An operation is used through ``apply``, never instantiated: ``Neg.apply(a)`` runs
``Neg.forward(ctx, a)`` with a fresh ``Context`` and, when gradients are recorded
(:func:`is_grad_enabled`) and some input requires grad, gives the result a
``History`` (``last_fn``, ``ctx``, ``inputs``) so that ``backward`` can later call
``Neg.backward(ctx, grad)``. (The base class ``Function``, ``Context`` and this
bookkeeping live in ``engine/autograd.py``; you need not read them.) Arguments of
``forward`` may be tensors or plain values (a dim, a shape); ``backward`` returns
one gradient per argument, in order: a tensor for a tensor that needs one, ``None``
for anything else. A single tensor may be returned without a tuple and trailing
``None``s left out, so ``Sum.backward`` (of ``forward(ctx, a, dim)``) may simply
return the gradient of ``a``. A function with ``differentiable = False``
(comparisons) records no history.

A backward may return a gradient in the *broadcast* shape: the engine sums it back to
the input's shape with :func:`unbroadcast` (Task 2.4) before handing it on. Backward
passes run with gradient recording switched off, so inside ``backward`` you may use
tensor operators (``grad * b``) freely: they build no graph.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Callable, Tuple

import numpy as np

# Given: Function and Context (described above) and their bookkeeping live in
# engine/autograd.py. More functions of the same pattern (sin, sqrt, pow,
# maximum, ...) are given in engine/elementwise.py; module2_tensors exports both.
from .engine.autograd import Context, Function, _new
from .engine.grad_modes import is_grad_enabled, set_grad_enabled

# Given: ``_mT(t)``, the transpose of the last two dimensions of ``t`` as a view
# (no copy), which ``MatMul.backward`` multiplies by.
from .engine.indexing import matrix_transpose as _mT
from .tensor_data import TensorData, UserShape

if TYPE_CHECKING:
    from .tensor import Tensor

__all__ = ["unbroadcast", "grad_check", "Neg", "Inv", "Add", "Mul", "Sigmoid", "ReLU"]
__all__ += ["Log", "Exp", "Tanh", "Sum", "Max", "All", "LT", "GT", "EQ", "IsClose"]
__all__ += ["Permute", "View", "Copy", "MatMul"]


# ---------------------------------------------------------------------------
# Task 2.4: un-broadcasting
# ---------------------------------------------------------------------------


def unbroadcast(grad: "Tensor", shape: UserShape) -> "Tensor":
    """Sum a gradient of the broadcast shape back to an input's ``shape``.

    If $x$ of shape ``shape`` was broadcast to $X$ (the shape of ``grad``), every
    entry of $x$ was used by several entries of $X$, and by the chain rule its
    gradient is the *sum* of theirs:

    $$\\frac{\\partial L}{\\partial x_{j}} = \\sum_{i \\,:\\, i \\mapsto j}
    \\frac{\\partial L}{\\partial X_{i}} .$$

    So sum ``grad`` over its extra leading dimensions and over every dimension where
    ``shape`` has size 1 but ``grad`` does not. For ``shape = (3, 1)`` and a grad of
    shape ``(2, 3, 4)``: sum dimensions 0 and 2, giving ``(3, 1)``.

    Returns ``grad`` itself when the shapes already agree.

    Raises:
        ValueError: ``grad`` does not broadcast from ``shape`` (a backward returned
            a wrong shape); the message names both shapes.
    """
    # BEGIN SOLUTION 2.4: sum over the broadcast dimensions, then view as shape
    shape = tuple(shape)
    if grad.shape == shape:
        return grad
    extra = grad.dims - len(shape)
    if extra < 0:
        raise ValueError(
            f"cannot sum a gradient of shape {grad.shape} back to shape {shape}"
        )
    out = grad
    for k in range(grad.dims):
        size = shape[k - extra] if k >= extra else 1
        if size == 1 and grad.shape[k] != 1:
            # The backend's reduce keeps dim k with size 1 (and, unlike
            # out.sum(...), skips the Function machinery: nothing records here).
            out = out.backend.add_reduce(out, k)
        elif size != grad.shape[k]:
            raise ValueError(
                f"cannot sum a gradient of shape {grad.shape} back to shape {shape}"
            )
    return out.contiguous().view(shape)
    # END SOLUTION


# ---------------------------------------------------------------------------
# The functions. Forwards: Task 2.3. Backwards: Task 2.4.
# ---------------------------------------------------------------------------


class Neg(Function):
    """$f(a) = -a$."""

    @staticmethod
    def forward(ctx: Context, a: "Tensor") -> "Tensor":
        # BEGIN SOLUTION 2.3: Neg.forward
        return a.backend.neg_map(a)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> "Tensor":
        # BEGIN SOLUTION 2.4: Neg.backward
        return grad.backend.neg_map(grad)
        # END SOLUTION


class Inv(Function):
    """$f(a) = 1 / a$; $f'(a) = -1 / a^2$ (``inv_back_zip``)."""

    @staticmethod
    def forward(ctx: Context, a: "Tensor") -> "Tensor":
        # BEGIN SOLUTION 2.3: Inv.forward (save what Inv.backward needs)
        ctx.save_for_backward(a)
        return a.backend.inv_map(a)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> "Tensor":
        # BEGIN SOLUTION 2.4: Inv.backward
        (a,) = ctx.saved_values
        return grad.backend.inv_back_zip(a, grad)
        # END SOLUTION


class Add(Function):
    """$f(a, b) = a + b$, broadcasting $a$ and $b$."""

    @staticmethod
    def forward(ctx: Context, a: "Tensor", b: "Tensor") -> "Tensor":
        # BEGIN SOLUTION 2.3: Add.forward
        return a.backend.add_zip(a, b)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> Tuple["Tensor", "Tensor"]:
        # BEGIN SOLUTION 2.4: Add.backward (unbroadcast does the summing)
        return grad, grad
        # END SOLUTION


class Mul(Function):
    """$f(a, b) = a \\cdot b$ entry by entry, broadcasting $a$ and $b$."""

    @staticmethod
    def forward(ctx: Context, a: "Tensor", b: "Tensor") -> "Tensor":
        # BEGIN SOLUTION 2.3: Mul.forward (save what Mul.backward needs)
        ctx.save_for_backward(a, b)
        return a.backend.mul_zip(a, b)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> Tuple["Tensor", "Tensor"]:
        # BEGIN SOLUTION 2.4: Mul.backward (needs_input_grad: optional)
        a, b = ctx.saved_values
        need_a, need_b = ctx.needs_input_grad or (True, True)
        mul = grad.backend.mul_zip
        return (mul(grad, b) if need_a else None), (mul(grad, a) if need_b else None)
        # END SOLUTION


class Sigmoid(Function):
    """$f(a) = \\sigma(a)$; $f'(a) = \\sigma(a)\\,(1 - \\sigma(a))$."""

    @staticmethod
    def forward(ctx: Context, a: "Tensor") -> "Tensor":
        # BEGIN SOLUTION 2.3: Sigmoid.forward (save what Sigmoid.backward needs)
        out = a.backend.sigmoid_map(a)
        ctx.save_for_backward(out)
        return out
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> "Tensor":
        # BEGIN SOLUTION 2.4: Sigmoid.backward
        (s,) = ctx.saved_values
        return grad * s * (1.0 - s)
        # END SOLUTION


class ReLU(Function):
    """$f(a) = \\max(a, 0)$; its derivative at 0 is 0 (``relu_back_zip``)."""

    @staticmethod
    def forward(ctx: Context, a: "Tensor") -> "Tensor":
        # BEGIN SOLUTION 2.3: ReLU.forward (save what ReLU.backward needs)
        ctx.save_for_backward(a)
        return a.backend.relu_map(a)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> "Tensor":
        # BEGIN SOLUTION 2.4: ReLU.backward
        (a,) = ctx.saved_values
        return grad.backend.relu_back_zip(a, grad)
        # END SOLUTION


class Log(Function):
    """$f(a) = \\ln a$; $f'(a) = 1 / a$ (``log_back_zip``)."""

    @staticmethod
    def forward(ctx: Context, a: "Tensor") -> "Tensor":
        # BEGIN SOLUTION 2.3: Log.forward (save what Log.backward needs)
        ctx.save_for_backward(a)
        return a.backend.log_map(a)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> "Tensor":
        # BEGIN SOLUTION 2.4: Log.backward
        (a,) = ctx.saved_values
        return grad.backend.log_back_zip(a, grad)
        # END SOLUTION


class Exp(Function):
    """$f(a) = e^a$; $f'(a) = e^a$."""

    @staticmethod
    def forward(ctx: Context, a: "Tensor") -> "Tensor":
        # BEGIN SOLUTION 2.3: Exp.forward (save what Exp.backward needs)
        out = a.backend.exp_map(a)
        ctx.save_for_backward(out)
        return out
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> "Tensor":
        # BEGIN SOLUTION 2.4: Exp.backward
        (out,) = ctx.saved_values
        return grad.backend.mul_zip(grad, out)
        # END SOLUTION


# A worked example of the pattern, given complete: read it before writing the others.
class Tanh(Function):
    """$f(a) = \\tanh a$; $f'(a) = 1 - \\tanh^2 a$."""

    @staticmethod
    def forward(ctx: Context, a: "Tensor") -> "Tensor":
        out = a.backend.tanh_map(a)
        # The backward needs tanh(a); saving the output avoids computing it again.
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> "Tensor":
        (t,) = ctx.saved_values
        # Gradient recording is off here, so tensor operators build no graph.
        return grad * (1.0 - t * t)


class Sum(Function):
    """$\\mathrm{out}[\\dots, 0, \\dots] = \\sum_j a[\\dots, j, \\dots]$ along ``dim``,
    which stays with size 1 (the ``Tensor`` method drops it unless ``keepdim``).

    Backward: every entry of $a$ along ``dim`` gets the same gradient, the one of
    the sum it went into, so broadcast ``grad`` back to $a$'s shape. Hint: a map
    with ``out=`` broadcasts its input into ``out``:
    ``grad.backend.id_map(grad, out=grad.new_zeros(shape))``.
    """

    @staticmethod
    def forward(ctx: Context, a: "Tensor", dim: int) -> "Tensor":
        # BEGIN SOLUTION 2.3: Sum.forward (save a's shape for Sum.backward)
        ctx.save_for_backward(a.shape)
        return a.backend.add_reduce(a, dim)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> "Tensor":
        # BEGIN SOLUTION 2.4: Sum.backward (broadcast grad to the input's shape)
        (shape,) = ctx.saved_values
        return grad.backend.id_map(grad, out=grad.new_zeros(shape))
        # END SOLUTION


class Max(Function):
    """$\\mathrm{out}[\\dots, 0, \\dots] = \\max_j a[\\dots, j, \\dots]$ along ``dim``
    (kept with size 1), like ``torch.amax``.

    Backward: the gradient goes to the entries that equal the maximum; when several
    tie, it is split evenly between them (``torch.amax``'s rule), so the gradient
    of each is $G / (\\text{number of ties})$.
    """

    @staticmethod
    def forward(ctx: Context, a: "Tensor", dim: int) -> "Tensor":
        # BEGIN SOLUTION 2.3: Max.forward (save what Max.backward needs)
        out = a.backend.max_reduce(a, dim)
        ctx.save_for_backward(a, out, dim)
        return out
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> "Tensor":
        # BEGIN SOLUTION 2.4: Max.backward (mask of the maxima / number of ties)
        a, out, dim = ctx.saved_values
        backend = grad.backend
        mask = backend.eq_zip(a, out)
        ties = backend.add_reduce(mask, dim)
        return backend.mul_zip(mask, backend.mul_zip(grad, backend.inv_map(ties)))
        # END SOLUTION


class All(Function):
    """$1$ where every entry along ``dim`` is non-zero, else $0$ (kept with size
    1). Not differentiable."""

    differentiable = False

    @staticmethod
    def forward(ctx: Context, a: "Tensor", dim: int) -> "Tensor":
        # BEGIN SOLUTION 2.3: All.forward (count the zeros along dim)
        backend = a.backend
        zero = a.new_tensor(0.0)
        zeros = backend.add_reduce(backend.eq_zip(a, zero), dim)
        return backend.eq_zip(zeros, zero)
        # END SOLUTION


class LT(Function):
    """$1$ where $a < b$, else $0$ (broadcasting). Not differentiable."""

    differentiable = False

    @staticmethod
    def forward(ctx: Context, a: "Tensor", b: "Tensor") -> "Tensor":
        # BEGIN SOLUTION 2.3: LT.forward
        return a.backend.lt_zip(a, b)
        # END SOLUTION


class GT(Function):
    """$1$ where $a > b$, else $0$ (broadcasting). Not differentiable."""

    differentiable = False

    @staticmethod
    def forward(ctx: Context, a: "Tensor", b: "Tensor") -> "Tensor":
        # BEGIN SOLUTION 2.3: GT.forward (a > b is b < a)
        return a.backend.lt_zip(b, a)
        # END SOLUTION


class EQ(Function):
    """$1$ where $a = b$ exactly, else $0$ (broadcasting). Not differentiable."""

    differentiable = False

    @staticmethod
    def forward(ctx: Context, a: "Tensor", b: "Tensor") -> "Tensor":
        # BEGIN SOLUTION 2.3: EQ.forward
        return a.backend.eq_zip(a, b)
        # END SOLUTION


class IsClose(Function):
    """$1$ where $|a - b| < 10^{-2}$ (``operators.is_close``), else $0$. Not
    differentiable."""

    differentiable = False

    @staticmethod
    def forward(ctx: Context, a: "Tensor", b: "Tensor") -> "Tensor":
        # BEGIN SOLUTION 2.3: IsClose.forward
        return a.backend.is_close_zip(a, b)
        # END SOLUTION


class Permute(Function):
    """A view with the dimensions reordered: ``out`` dimension ``k`` is ``a``'s
    dimension ``order[k]`` (no copy: ``TensorData.permute``).

    Backward: permute ``grad`` back with the inverse order.
    """

    @staticmethod
    def forward(ctx: Context, a: "Tensor", order: Tuple[int, ...]) -> "Tensor":
        # BEGIN SOLUTION 2.3: Permute.forward (a view: _new(a, a._tensor.permute(..)))
        ctx.save_for_backward(order)
        return _new(a, a._tensor.permute(*order))
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> "Tensor":
        # BEGIN SOLUTION 2.4: Permute.backward (the inverse permutation)
        (order,) = ctx.saved_values
        inverse = np.argsort(order).tolist()  # (inverse[order[k]] = k)
        return _new(grad, grad._tensor.permute(*inverse))
        # END SOLUTION


class View(Function):
    """The same numbers with a new ``shape`` of the same size. ``a`` is contiguous
    (``Tensor.view`` checks it), so the view is ``TensorData(storage, shape)``: no
    copy.

    Backward: view ``grad`` (made contiguous first) back to ``a``'s shape.
    """

    @staticmethod
    def forward(ctx: Context, a: "Tensor", shape: Tuple[int, ...]) -> "Tensor":
        # BEGIN SOLUTION 2.3: View.forward (share a's storage with the new shape)
        ctx.save_for_backward(a.shape)
        return _new(a, TensorData(a._tensor._storage, shape))
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> "Tensor":
        # BEGIN SOLUTION 2.4: View.backward
        (shape,) = ctx.saved_values
        return grad.contiguous().view(shape)
        # END SOLUTION


class Copy(Function):
    """A contiguous copy of ``a`` (``Tensor.contiguous`` of a non-contiguous
    tensor). Hint: ``id_map``."""

    @staticmethod
    def forward(ctx: Context, a: "Tensor") -> "Tensor":
        # BEGIN SOLUTION 2.3: Copy.forward
        return a.backend.id_map(a)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> "Tensor":
        # BEGIN SOLUTION 2.4: Copy.backward
        return grad
        # END SOLUTION


class MatMul(Function):
    """Batched matrix product: $\\mathrm{out} = a b$ for ``a`` of shape
    ``(..., n, m)`` and ``b`` of shape ``(..., m, p)``, batch dimensions broadcast
    (``Tensor.__matmul__`` checks the shapes and handles 1-D operands).

    Backward: $\\partial L / \\partial a = G\\, b^\\top$ and
    $\\partial L / \\partial b = a^\\top G$, with $^\\top$ swapping the last two
    dimensions (``_mT``, a view). Summing over broadcast batch dimensions is
    :func:`unbroadcast`'s job. Each product costs as much as the forward: skip one
    whose input needs no gradient (``ctx.needs_input_grad``; return ``None`` for
    it), as PyTorch does.
    """

    @staticmethod
    def forward(ctx: Context, a: "Tensor", b: "Tensor") -> "Tensor":
        # BEGIN SOLUTION 2.3: MatMul.forward (save what MatMul.backward needs)
        ctx.save_for_backward(a, b)
        return a.backend.matrix_multiply(a, b)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> Tuple["Tensor", "Tensor"]:
        # BEGIN SOLUTION 2.4: MatMul.backward (needs_input_grad: optional)
        a, b = ctx.saved_values
        need_a, need_b = ctx.needs_input_grad or (True, True)
        matmul = grad.backend.matrix_multiply
        grad_a = matmul(grad, _mT(b)) if need_a else None
        grad_b = matmul(_mT(a), grad) if need_b else None
        return grad_a, grad_b
        # END SOLUTION


# ---------------------------------------------------------------------------
# Task 2.4: checking gradients against central differences
# ---------------------------------------------------------------------------


def grad_check(
    f: Callable[..., "Tensor"],
    *tensors: "Tensor",
    epsilon: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-4,
    seed: int = 0,
) -> None:
    """Check the gradients of ``f`` at ``tensors``, entry by entry, against central
    differences.

    To test the whole Jacobian and not only its column sums, the scalar that is
    differentiated is $L = \\sum_i w_i\\, f(\\dots)_i$ with fixed random weights
    $w$ (seeded by ``seed``). ``backward`` gives $a_j = \\partial L / \\partial x_j$
    for every entry $x_j$ of every input. For each $x_j$, with a step scaled to
    its size, $h = \\varepsilon \\max(1, |x_j|)$, the outputs are differenced
    *entry by entry* before they are weighted, so large outputs elsewhere add no
    round-off:

    $$n_j = \\sum_i w_i\\, \\frac{f_i(x_j + h) - f_i(x_j - h)}{2 h},$$

    and the check passes when
    $|a_j - n_j| \\le \\mathrm{atol} + \\mathrm{rtol} \\max(|a_j|, |n_j|) + r_j$,
    where $r_j = 4\\, \\epsilon_{64} \\sum_i |w_i| \\max(|f_i(x_j + h)|,
    |f_i(x_j - h)|) / (2 h)$ bounds the round-off of the difference itself
    ($\\epsilon_{64} \\approx 2.2 \\cdot 10^{-16}$, ``np.finfo(float).eps``).
    An input that gets no gradient (``.grad`` is None) counts as $a_j = 0$. The
    2 calls of ``f`` an entry run with gradient recording off (the state before
    the check is restored afterwards), and every perturbed entry is set back to
    its exact original value.

    Args:
        f: a function of the tensors returning a tensor.
        *tensors: the inputs; each must require grad, and no two entries of one
            input may share storage (an expanded view would be perturbed twice).
        epsilon, atol, rtol: the relative step and the tolerances.
        seed: seeds the weights $w$.

    Raises:
        AssertionError: a gradient (a missing one counted as 0) differs; the
            message names the argument, the index and both values.

    Hints: clear every input's ``.grad`` before the backward pass; perturb an
    entry in place through its storage position (``t._tensor.index(idx)``) and
    restore it afterwards; evaluate ``f`` for the differences with gradient
    recording off (``set_grad_enabled``) and compare them as NumPy arrays
    (``to_numpy()``).
    """
    # BEGIN SOLUTION 2.4: backward once, then an entrywise central difference
    out = f(*tensors)
    rng = random.Random(seed)
    w = np.array([rng.uniform(-1.0, 1.0) for _ in range(out.size)])
    weights = out.new_tensor(w).view(out.shape)
    w = w.reshape(out.shape)

    for t in tensors:
        t.grad = None
    (out * weights).sum().backward()

    previous = is_grad_enabled()
    set_grad_enabled(False)
    try:
        for arg, t in enumerate(tensors):
            storage = t._tensor._storage
            for idx in t._tensor.indices():
                position = t._tensor.index(idx)
                original = float(storage[position])
                h = epsilon * max(1.0, abs(original))
                storage[position] = original + h
                up = f(*tensors).to_numpy()
                storage[position] = original - h
                down = f(*tensors).to_numpy()
                storage[position] = original
                numeric = float(np.sum(w * (up - down)) / (2.0 * h))
                roundoff = float(
                    4.0
                    * np.finfo(float).eps
                    * np.sum(np.abs(w) * np.maximum(np.abs(up), np.abs(down)))
                    / (2.0 * h)
                )
                analytic = 0.0 if t.grad is None else t.grad._tensor.get(idx)
                if t.grad is None and abs(numeric) > atol + roundoff:
                    raise AssertionError(
                        f"grad_check: argument {arg} got no gradient, but the "
                        f"central difference at index {idx} is {numeric}"
                    )
                scale = max(abs(analytic), abs(numeric))
                if not abs(analytic - numeric) <= atol + rtol * scale + roundoff:
                    raise AssertionError(
                        f"grad_check: argument {arg} at index {idx}: autodiff gives "
                        f"{analytic}, the central difference gives {numeric}"
                    )
    finally:
        set_grad_enabled(previous)
    # END SOLUTION
