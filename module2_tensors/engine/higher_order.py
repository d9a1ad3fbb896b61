"""Higher-order gradients: the backward pass recorded as a graph, for
``backward(create_graph=True)`` and ``autograd.grad(..., create_graph=True)``
(engine layer: students never edit or need to read this file).

An ordinary backward pass runs with gradient recording off, and the backwards of
``tensor_functions.py`` may compute on raw storage (``grad.backend.mul_zip(grad,
b)``): the gradients they return are plain numbers, with no history. To
differentiate a gradient again, the pass that computes it must itself be a graph.
So with ``create_graph=True`` the engine does not call a function's ``backward``
but its *formula* here: the same mathematics written with differentiable tensor
operations (``grad * b``, ``grad @ b.mT``), run with recording on. Each formula
takes

* ``ctx``: the function's context (what its forward saved: shapes, dims, masks);
* ``grad``: $G = \\partial L / \\partial \\mathrm{out}$ (it may have a history
  itself);
* ``inputs``: the forward's arguments, the very tensors of the graph, so that the
  gradient depends on them and can be differentiated with respect to them;
* ``out``: the result, with its history (``Exp``'s gradient is $G\\,e^a$, the
  result itself);

and returns one gradient per argument, as a ``backward`` does.

A function without a formula (a user's own ``Function``; the fast kernels of
Module 4) is *once differentiable*, as PyTorch's ``@once_differentiable``: its
``backward`` gives the gradient, and differentiating that gradient again raises
``RuntimeError`` naming the function, rather than silently returning zero.
:func:`register` adds a formula (Module 4 registers the ones it can).

Interface: :func:`recorded_chain_rule` and :func:`recorded_accumulate` (called by
``engine.autograd`` on the ``create_graph`` branch), :func:`register`,
:func:`formula_of`, :func:`unbroadcast`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from module1_scalar_autodiff.context import Context

from . import autograd
from .autograd import MODES, Function, _new

if TYPE_CHECKING:
    from ..tensor import Tensor

__all__ = [
    "register",
    "formula_of",
    "unbroadcast",
    "recorded_chain_rule",
    "recorded_accumulate",
    "FORMULAS",
]

Formula = Callable[[Context, "Tensor", Tuple[Any, ...], "Tensor"], Any]

#: The recorded backward of each function class that has one.
FORMULAS: Dict[type, Formula] = {}


def register(*classes: type) -> Callable[[Formula], Formula]:
    """Decorator: the formula is the recorded backward of each of ``classes``."""

    def add(fn: Formula) -> Formula:
        for cls in classes:
            FORMULAS[cls] = fn
        return fn

    return add


def formula_of(cls: type) -> Optional[Formula]:
    """The formula of ``cls`` or of the class it derives from (a tensor with a
    hook has a subclass of its function: ``register_hook``); None if none."""
    for k in cls.__mro__:
        fn = FORMULAS.get(k)
        if fn is not None:
            return fn
        if k is Function:
            break
    return None


# ---------------------------------------------------------------------------
# The recorded backward pass
# ---------------------------------------------------------------------------


def unbroadcast(grad: "Tensor", shape: Tuple[int, ...]) -> "Tensor":
    """``grad`` summed back to ``shape`` (as Task 2.4's ``unbroadcast``), with
    differentiable operations: ``sum(dims, keepdim=True)`` and a view.

    Raises:
        ValueError: ``grad`` does not broadcast from ``shape``.
    """
    shape = tuple(shape)
    if grad.shape == shape:
        return grad
    extra = grad.dims - len(shape)
    dims = []
    for k in range(grad.dims):
        size = shape[k - extra] if k >= extra else 1
        if extra < 0 or (size != grad.shape[k] and size != 1):
            raise ValueError(
                f"cannot sum a gradient of shape {grad.shape} back to shape {shape}"
            )
        if size == 1 and grad.shape[k] != 1:
            dims.append(k)
    out = grad.sum(tuple(dims), keepdim=True) if dims else grad
    return out.reshape(shape)


def recorded_chain_rule(
    t: "Tensor", d_output: "Tensor"
) -> List[Tuple["Tensor", "Tensor"]]:
    """``chain_rule`` with the gradients computed as a graph (recording is on:
    ``run_backward`` switched it on for ``create_graph``). Checks of freed
    values and versions were made by the caller."""
    Tensor = autograd.tensor_class()
    h = t.history
    cls, ctx, inputs = h.last_fn, h.ctx, h.inputs
    hooks = t.__dict__.get("_hooks")
    if hooks:
        d_output = autograd._run_hooks(hooks, d_output)
    if not _READY:
        _register_formulas()
    fn = formula_of(cls)
    if fn is not None:
        grads = fn(ctx, d_output, inputs, t)
        if not isinstance(grads, tuple):
            grads = (grads,)
        grads = grads + (None,) * (len(inputs) - len(grads))
    else:
        grads = _once_differentiable(cls, h, d_output)
    if MODES.anomaly_backward:
        autograd.check_backward(cls, ctx, d_output, grads)
    if not MODES.retain_graph:
        for v in ctx.saved_values:
            if isinstance(v, Tensor):
                ctx.saved_values = ()
                ctx.freed = True
                break
    pairs = []
    for k, x in enumerate(inputs):
        g = grads[k]
        if g is None or not isinstance(x, Tensor) or not x._requires_grad:
            continue
        if not isinstance(g, Tensor):
            raise RuntimeError(
                f"{cls.__name__}.backward returned {type(g).__name__} for "
                f"argument {k}, which needs a gradient tensor"
            )
        pairs.append((x, unbroadcast(g, x._tensor.shape)))
    return pairs


def recorded_accumulate(t: "Tensor", d: "Tensor") -> None:
    """``accumulate_derivative`` with ``create_graph``: as PyTorch, ``.grad``
    becomes ``.grad + d``, a new tensor with a history (never changed in place,
    which would break the graph that uses the old gradient)."""
    g = t.grad
    if g is None:
        if d._is_grad:  # already another tensor's .grad: a tensor of its own
            d = Alias.apply(d)
        d._is_grad = True
        t.grad = d
    else:
        total = g + d
        total._is_grad = True
        t.grad = total


def _once_differentiable(cls: type, h: Any, d_output: "Tensor") -> Tuple:
    """The gradients of a function without a formula: its ``backward`` with
    recording off, each result then marked so that differentiating it again
    raises (:class:`NotTwiceDifferentiable`)."""
    previous = MODES.grad
    MODES.grad = False
    try:
        grads = autograd.backward_tuple(cls, h.ctx, d_output, len(h.inputs))
    finally:
        MODES.grad = previous
    Tensor = autograd.tensor_class()
    sources = [x for x in (d_output,) + tuple(h.parents) if x._requires_grad]
    if not sources:
        return grads
    return tuple(
        (
            NotTwiceDifferentiable.apply(g, cls.__name__, *sources)
            if isinstance(g, Tensor)
            else g
        )
        for g in grads
    )


class NotTwiceDifferentiable(Function):
    """The gradient ``g`` a function without a recorded backward returned under
    ``create_graph=True``, linked to what it depends on (``sources``) so that
    differentiating it raises, naming the function (PyTorch's
    ``@once_differentiable``), instead of silently counting as a constant."""

    @staticmethod
    def forward(ctx: Context, g: "Tensor", name: str, *sources: "Tensor") -> "Tensor":
        ctx.save_for_backward(name)
        return _new(g, g._tensor)

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> Any:
        (name,) = ctx.saved_values
        raise RuntimeError(
            f"trying to differentiate twice the function {name}, whose backward "
            f"is not recorded (once differentiable): the engine has no "
            f"differentiable formula for it, so a gradient computed through it "
            f"with create_graph=True cannot be backpropagated again"
        )


FORMULAS[NotTwiceDifferentiable] = lambda ctx, g, inputs, out: (
    NotTwiceDifferentiable.backward(ctx, g)
)


class Alias(Function):
    """The same numbers as ``a`` in a new tensor object (for a gradient handed
    to two leaves: each ``.grad`` its own object). Gradient: $G$."""

    @staticmethod
    def forward(ctx: Context, a: "Tensor") -> "Tensor":
        return _new(a, a._tensor)

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> "Tensor":
        return grad


# ---------------------------------------------------------------------------
# Helpers of the formulas
# ---------------------------------------------------------------------------


def _needs(ctx: Context, count: int) -> Tuple[bool, ...]:
    return ctx.needs_input_grad or (True,) * count


def _constant(t: "Tensor") -> "Tensor":
    """``t``'s numbers as a tensor without history (a mask, a local
    derivative that is piecewise constant)."""
    return _new(t, t._tensor)


class EmbedInZeros(Function):
    """Zeros of ``shape`` with ``g`` added at ``key`` (NumPy's ``np.add.at``:
    an entry picked twice gets both): the adjoint of indexing ``a[key]``, so
    the recorded backward of ``GetItem``, ``AdvancedIndex``, ``Pad``...
    Gradient: ``G[key]``."""

    @staticmethod
    def forward(
        ctx: Context, g: "Tensor", shape: Tuple[int, ...], key: Any
    ) -> "Tensor":
        ctx.save_for_backward(key)
        out = np.zeros(shape)
        np.add.at(out, key, g.to_numpy())
        return g.new_tensor(out)

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> "Tensor":
        (key,) = ctx.saved_values
        return grad.new_tensor(grad.to_numpy()[key])


@register(EmbedInZeros)
def _embed_in_zeros(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
    (key,) = ctx.saved_values
    return _pick(g, key)


def _max_weights(ctx: Context) -> "Tensor":
    """The weights ``Max.backward`` gives (constants): 1 / (number of ties) at
    the maxima along the saved dim, 0 elsewhere, from ``Max``'s context."""
    a, out, dim = ctx.saved_values
    backend = a.backend
    mask = backend.eq_zip(a, out)
    return backend.mul_zip(mask, backend.inv_map(backend.add_reduce(mask, dim)))


def _view_positions(shape: Tuple[int, ...], key: Any) -> Tuple[np.ndarray, ...]:
    """The entries the basic-indexing view ``t[key]`` of a tensor of ``shape``
    shows, as a NumPy index of arrays (one per dimension, in the view's
    shape): NumPy's basic indexing is the library's (ints, slices, None,
    Ellipsis)."""
    flat = np.arange(int(np.prod(shape, dtype=np.int64))).reshape(shape)
    return np.unravel_index(flat[key], shape)


def _pick(g: "Tensor", key: Any) -> "Tensor":
    """``g[key]`` recorded (``AdvancedIndex``: any NumPy key)."""
    from .._tensor_api import AdvancedIndex

    return AdvancedIndex.apply(g, key)


_READY = False


def _register_formulas() -> None:
    """The formulas of the library's own functions (registered at the first
    recorded backward, not at import: the modules that define the functions
    import the engine)."""
    global _READY
    _READY = True
    from .. import _more_functions as mf
    from .. import _tensor_api as api
    from .. import shape_functions as sf
    from ..tensor import _Overwrite, _StdSqrt
    from .. import tensor_functions as tf
    from .._reduction import Reduction

    @register(tf.Neg)
    def neg(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        return -g

    @register(tf.Inv)
    def inv(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        return -(g * out * out)

    @register(tf.Add)
    def add(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        return g, g

    @register(tf.Mul)
    def mul(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        a, b = inputs
        need_a, need_b = _needs(ctx, 2)
        return (g * b if need_a else None), (g * a if need_b else None)

    @register(tf.Sigmoid)
    def sigmoid(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        return g * out * (1.0 - out)

    @register(tf.ReLU)
    def relu(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        (a,) = inputs
        return g * (a > 0.0)

    @register(tf.Log)
    def log(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        return g / inputs[0]

    @register(tf.Exp)
    def exp(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        return g * out

    @register(tf.Tanh)
    def tanh(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        return g * (1.0 - out * out)

    @register(tf.Sum)
    def sum_(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        return g.expand(*inputs[0].shape).contiguous()

    @register(tf.Max)
    def max_(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        return g * _max_weights(ctx)

    @register(tf.Permute)
    def permute(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        order = inputs[1]
        inverse = [0] * len(order)
        for k, source in enumerate(order):
            inverse[source] = k
        return g.permute(*inverse)

    @register(tf.View, api.StridedView, sf.Squeeze, sf.Unsqueeze)
    def view(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        return g.reshape(inputs[0].shape)

    @register(tf.Copy, sf.Expand, Alias)
    def identity(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        return g  # (Expand: the engine's unbroadcast sums it back)

    @register(tf.MatMul)
    def matmul(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        a, b = inputs
        need_a, need_b = _needs(ctx, 2)
        return (
            g @ b.transpose(-2, -1) if need_a else None,
            a.transpose(-2, -1) @ g if need_b else None,
        )

    @register(mf.Sin)
    def sin(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        return g * inputs[0].cos()

    @register(mf.Cos)
    def cos(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        return -(g * inputs[0].sin())

    @register(mf.Erf)
    def erf(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        (a,) = inputs
        return g * (-(a * a)).exp() * (2.0 / math.sqrt(math.pi))

    @register(mf.Log1p)
    def log1p(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        return g / (inputs[0] + 1.0)

    @register(mf.Expm1)
    def expm1(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        return g * (out + 1.0)

    @register(mf.Abs)
    def abs_(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        return g * _constant(inputs[0].sign())

    @register(mf.Piecewise)
    def piecewise(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        return g * 0.0

    @register(mf.Sqrt)
    def sqrt(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        return g * 0.5 / out

    @register(mf.Pow)
    def pow_(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        a, p = inputs
        if p == 0.0:
            return g * 0.0
        if p == 1.0:
            return g
        return g * p * a ** (p - 1.0)

    @register(mf.PowTensor)
    def pow_tensor(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        a, b = inputs
        need_a, need_b = _needs(ctx, 2)
        grad_a = grad_b = None
        if need_a:  # 0 where b = 0 (a^0 is constant)
            grad_a = sf.where(b != 0.0, g * b * a ** (b - 1.0), 0.0)
        if need_b:  # 0 where a^b = 0; log of a safe a elsewhere
            nonzero = out != 0.0
            safe = sf.where(nonzero, a, 1.0)
            grad_b = sf.where(nonzero, g * out * safe.log(), 0.0)
        return grad_a, grad_b

    @register(mf.MaxAlong)
    def max_along(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        (one_hot,) = ctx.saved_values
        return g * one_hot

    @register(mf.Maximum)
    def maximum(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        (weight_a,) = ctx.saved_values
        grad_a = g * weight_a
        return grad_a, g - grad_a

    @register(mf.ToBackend)
    def to_backend(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        return mf.ToBackend.apply(g, inputs[0].backend)

    @register(Reduction)
    def reduction(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        # Reduction.backward's steps in reverse, each recorded: a Sum step
        # broadcasts the gradient back, a Max step weights it by its maxima.
        shape, fn, steps, kept, scale = ctx.saved_values
        if scale != 1.0:
            g = g * scale
        g = g.reshape(kept)
        for step in reversed(steps):
            if fn is tf.Max:
                g = g * _max_weights(step)
            else:
                (before,) = step.saved_values
                g = g.expand(*before).contiguous()
        return g.reshape(shape)

    @register(sf.GetItem)
    def get_item(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        a, key = inputs
        # The selected entries of zeros of a's shape: the storage positions of
        # the view, made an index NumPy can add into.
        return EmbedInZeros.apply(g, a.shape, _view_positions(a.shape, key))

    @register(api.AdvancedIndex)
    def advanced_index(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        a, key = inputs
        return EmbedInZeros.apply(g, a.shape, key)

    @register(sf.Pad)
    def pad(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        return sf.GetItem.apply(g, inputs[2])  # the inner part

    @register(sf.Cat)
    def cat(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        dim = inputs[0]
        grads: List[Any] = [None]
        start = 0
        for t in inputs[1:]:
            n = t.shape[dim]
            grads.append(g.narrow(dim, start, n))
            start += n
        return tuple(grads)

    @register(sf.Where)
    def where(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        condition = inputs[0]
        return None, sf.where(condition, g, 0.0), sf.where(condition, 0.0, g)

    @register(sf.IndexSelect)
    def index_select(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        a, dim, index = inputs
        key = (slice(None),) * dim + (np.asarray(index, dtype=np.int64),)
        return EmbedInZeros.apply(g, a.shape, key)

    @register(sf.Gather)
    def gather(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        a, dim, index = inputs
        return EmbedInZeros.apply(g, a.shape, api._scatter_positions(index, dim))

    @register(api.NormRoot)
    def norm_root(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        s, p = inputs
        positive = s > 0.0
        safe = sf.where(positive, s, 1.0)  # (no inf * 0 where s = 0)
        return sf.where(positive, g * safe ** (1.0 / p - 1.0) / p, 0.0)

    @register(api.ScatterAdd)
    def scatter_add(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        positions, src_shape = ctx.saved_values
        picked = _pick(g, positions)
        inner = tuple(slice(0, n) for n in positions[0].shape)
        return g, None, None, EmbedInZeros.apply(picked, src_shape, inner)

    @register(_StdSqrt)
    def std_sqrt(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        positive = out != 0.0
        safe = sf.where(positive, out, 1.0)
        return sf.where(positive, g * 0.5 / safe, 0.0)

    @register(_Overwrite)
    def overwrite(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        return g * 0.0, g
