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

A :class:`~.autograd.DifferentiableBackward` (most of the engine's own given
functions: ``Sin``, ``Pow``, ``AdvancedIndex``...) needs no formula: its
``backward`` is already written with differentiable tensor operations on its
saved inputs, and runs as it is, recorded. Any other function without a formula
(a user's own ``Function``; the fast kernels of Module 4) is *once
differentiable*, as PyTorch's ``@once_differentiable``: its
``backward`` gives the gradient, and differentiating that gradient again raises
``RuntimeError`` naming the function, rather than silently returning zero.
:func:`register` adds a formula (Module 4 registers the ones it can).

This module imports no file that defines the functions (an engine module
imports none of the files students edit): its formulas are kept by class name
(:data:`NAMED`), and the package hands it the modules that define the classes
(:func:`install`); the formulas compute with the tensors' own methods.

Interface: :func:`install`, :func:`register` (:data:`FORMULAS`); importing
it sets ``engine.autograd.RECORDED`` (:func:`recorded_grads`,
:func:`unbroadcast` and :func:`recorded_accumulate`, which the
``create_graph`` branches of ``engine.autograd`` call).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Dict, Tuple

import numpy as np

from . import autograd
from .autograd import Context, DifferentiableBackward, Function, _new
from .grad_modes import set_grad_enabled
from .hooks import run_hooks
from .indexing import EmbedInZeros, scatter_positions

if TYPE_CHECKING:
    from ..tensor import Tensor

Formula = Callable[[Context, "Tensor", Tuple[Any, ...], "Tensor"], Any]

#: The recorded backward of each function class that has one.
FORMULAS: Dict[type, Formula] = {}


def register(*classes: type) -> Callable[[Formula], Formula]:
    """Decorator: the formula is the recorded backward of each of ``classes``."""

    def add(fn: Formula) -> Formula:
        FORMULAS.update(dict.fromkeys(classes, fn))
        return fn

    return add


# ---------------------------------------------------------------------------
# The recorded backward pass
# ---------------------------------------------------------------------------


def unbroadcast(grad: "Tensor", shape: Tuple[int, ...]) -> "Tensor":
    """``grad`` summed back to ``shape`` (as Task 2.4's ``unbroadcast``), with
    differentiable operations: ``sum(dims, keepdim=True)`` and a view.
    ``shape`` is a tuple (``chain_rule`` passes the input's ``shape``).

    Raises:
        ValueError: ``grad`` does not broadcast from ``shape``.
    """
    extra = grad.dims - len(shape)
    if extra < 0 or any(n not in (1, m) for n, m in zip(shape, grad.shape[extra:])):
        raise ValueError(
            f"cannot sum a gradient of shape {grad.shape} back to shape {shape}"
        )
    # The extra leading dims, and those where shape has 1 and grad does not.
    dims = [k for k, n in enumerate(grad.shape) if k < extra or shape[k - extra] != n]
    return (grad.sum(tuple(dims), keepdim=True) if dims else grad).reshape(shape)


def recorded_grads(t: "Tensor", d_output: "Tensor") -> Tuple:
    """The gradients of ``t``'s function for ``create_graph``, one per input,
    computed as a graph (``run_backward`` switched recording on): its formula,
    or the ``backward`` of a :class:`DifferentiableBackward`, else its
    ``backward`` made once differentiable; ``t``'s hooks first run on
    ``d_output`` (this pass calls no hooked ``_backward``). ``chain_rule`` does
    the rest (checks, freeing, :func:`unbroadcast`; a formula's tuple may be
    shorter than the inputs: ``None`` for the rest)."""
    h = t.history
    d_output = run_hooks(t.__dict__.get("_hooks", []), d_output.to(t.dtype))
    # The formula of its class or of the class it derives from (a tensor with a
    # hook has a subclass of its function: register_hook); None if none.
    fn = next((FORMULAS[k] for k in h.last_fn.__mro__ if k in FORMULAS), None)
    if fn is not None:
        grads = fn(h.ctx, d_output, h.inputs, t)
        return grads if isinstance(grads, tuple) else (grads,)
    if issubclass(h.last_fn, DifferentiableBackward):
        return autograd.backward_tuple(h.last_fn, h.ctx, d_output, len(h.inputs))
    # Once differentiable: its backward with recording off, each result then marked
    # so that differentiating it again raises (NotTwiceDifferentiable); without
    # sources, NotTwiceDifferentiable records nothing: g as it is.
    with set_grad_enabled(False):
        grads = autograd.backward_tuple(h.last_fn, h.ctx, d_output, len(h.inputs))
    sources = [x for x in (d_output,) + tuple(h.parents) if x._requires_grad]
    mark, name = NotTwiceDifferentiable.apply, h.last_fn.__name__
    return tuple(
        mark(g, name, *sources) if isinstance(g, autograd._Tensor) else g for g in grads
    )


def recorded_accumulate(t: "Tensor", d: "Tensor") -> None:
    """``accumulate_derivative`` with ``create_graph``: as PyTorch, ``.grad``
    becomes ``.grad + d``, a new tensor with a history (never changed in place,
    which would break the graph that uses the old gradient)."""
    if t.grad is not None:
        d = t.grad + d
    else:  # a copy of its own: d may be another tensor's .grad, or a view
        d = d.clone()  # (which zero_grad(set_to_none=False) could not detach_)
    d._is_grad, d._dtype = True, t._dtype  # (a float32 leaf's gradient: float32)
    t.grad = d


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


# ---------------------------------------------------------------------------
# Helpers of the formulas
# ---------------------------------------------------------------------------


def _max_weights(ctx: Context) -> "Tensor":
    """The weights ``Max.backward`` gives (constants): 1 / (number of ties) at
    the maxima along the saved dim, 0 elsewhere, from ``Max``'s context."""
    a, out, dim = ctx.saved_values
    backend = a.backend
    mask = backend.eq_zip(a, out)
    return backend.mul_zip(mask, backend.inv_map(backend.add_reduce(mask, dim)))


# ---------------------------------------------------------------------------
# The formulas, by the name of the function class (``install`` finds the
# classes: this engine module imports none of the files that define them).
# Each is the function's backward, written with recorded tensor operations.
# ---------------------------------------------------------------------------


def _each(*grads: Callable[..., Any]) -> Formula:
    """The formula whose gradient of input ``k`` is ``grads[k](g, *inputs,
    out)``, computed only where that input needs one (``a * b``, ``a @ b``,
    ``a ** b``)."""

    def formula(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        needs = ctx.needs_input_grad  # (a recorded history's: one flag an input)
        return tuple(f(g, *inputs, out) if n else None for f, n in zip(grads, needs))

    return formula


def _reduction(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
    # Reduction.backward, recorded: a Sum's steps broadcast the gradient back
    # over the layout, a Max (always one step: Tensor._reduction_plan) weights
    # it by its maxima.
    a, fn, layout = inputs[:3]
    _, _, steps, kept, scale = ctx.saved_values[:5]
    g = (g * scale if scale != 1.0 else g).reshape(kept)
    if fn.__name__ == "Max":  # (tensor_functions.Max: classes go by name here)
        return (g * _max_weights(steps[0])).reshape(a.shape)
    return g.expand(*layout).reshape(a.shape)


def _embedded(key: Callable[..., Any]) -> Formula:
    """The formula of a function that picks entries of ``inputs[0]`` (a view or
    a copy: ``a[key]``, ``index_select``, ``gather``): ``g`` added into zeros
    of its shape at the NumPy index ``key(*inputs)``."""

    def formula(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
        return EmbedInZeros.apply(g, inputs[0].shape, key(*inputs))

    return formula


def _view_key(a: "Tensor", key: Any) -> Any:
    # The entries the view ``a[key]`` shows, as a NumPy index of arrays in the
    # view's shape (NumPy's basic indexing is the library's).
    return np.unravel_index(np.arange(a.numel()).reshape(a.shape)[key], a.shape)


def _cat(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
    dim = inputs[0]  # each tensor's gradient is its part of g (a view)
    return (None, *g.split([t.shape[dim] for t in inputs[1:]], dim))


def _where(ctx: Context, g: "Tensor", inputs: Tuple, out: "Tensor") -> Any:
    other = inputs[0] == 0.0
    return None, g.masked_fill(other, 0.0), g.where(other, 0.0)


def _selected_key(a: "Tensor", dim: int, index: Any) -> Any:
    return (slice(None),) * dim + (np.asarray(index, dtype=np.int64),)


def _pow_a(g: "Tensor", a: "Tensor", b: "Tensor", out: "Tensor") -> "Tensor":
    # 0 where b = 0 (a^0 is constant)
    return (g * b * a ** (b - 1.0)).masked_fill(b == 0.0, 0.0)


def _pow_b(g: "Tensor", a: "Tensor", b: "Tensor", out: "Tensor") -> "Tensor":
    zero = out * a == 0.0  # 0 where a = 0, b >= 0 (PowTensor), log of a safe 1 there
    return (g * out * a.masked_fill(zero, 1.0).log()).masked_fill(zero, 0.0)


#: The formula of each library function, by class name: ``(ctx, g, inputs,
#: out)`` to one gradient per input, as above; ``g`` is $G$, ``out`` the result.
NAMED: Dict[str, Formula] = {
    "Neg": lambda ctx, g, inputs, out: -g,
    "Inv": lambda ctx, g, inputs, out: -(g * out * out),  # -G / a^2
    "Add": lambda ctx, g, inputs, out: (g, g),
    "Mul": _each(lambda g, a, b, out: g * b, lambda g, a, b, out: g * a),
    "Sigmoid": lambda ctx, g, inputs, out: g * out * (1.0 - out),
    "ReLU": lambda ctx, g, inputs, out: g * (inputs[0] > 0.0),  # (a mask)
    "Log": lambda ctx, g, inputs, out: g / inputs[0],
    "Exp": lambda ctx, g, inputs, out: g * out,
    "Tanh": lambda ctx, g, inputs, out: g * (1.0 - out * out),
    "Sum": lambda ctx, g, inputs, out: g.expand(*inputs[0].shape).contiguous(),
    "Max": lambda ctx, g, inputs, out: g * _max_weights(ctx),
    "Permute": lambda ctx, g, inputs, out: g.permute(*np.argsort(inputs[1])),
    "View": lambda ctx, g, inputs, out: g.reshape(inputs[0].shape),
    "Squeeze": lambda ctx, g, inputs, out: g.reshape(inputs[0].shape),
    "Unsqueeze": lambda ctx, g, inputs, out: g.reshape(inputs[0].shape),
    "Copy": lambda ctx, g, inputs, out: g,
    "Expand": lambda ctx, g, inputs, out: g,  # (unbroadcast sums it)
    "MatMul": _each(lambda g, a, b, out: g @ b.mT, lambda g, a, b, out: a.mT @ g),
    "Expm1": lambda ctx, g, inputs, out: g * (out + 1.0),
    "Abs": lambda ctx, g, inputs, out: g * inputs[0].sign(),  # 0 at 0
    "PowTensor": _each(_pow_a, _pow_b),
    "Sqrt": lambda ctx, g, inputs, out: g * 0.5 / out,
    "Reduction": _reduction,
    "GetItem": _embedded(_view_key),
    "Pad": lambda ctx, g, inputs, out: g[inputs[2]],  # the inner part
    "Cat": _cat,
    "_Overwrite": lambda ctx, g, inputs, out: (g * 0.0, g),  # (old values gone)
    "Where": _where,
    "IndexSelect": _embedded(_selected_key),
    "Gather": _embedded(lambda a, dim, index: scatter_positions(index, dim)),
}


def install(*modules: Any) -> None:
    """Register the formulas of :data:`NAMED` for the function classes of those
    names found in ``modules`` (the package passes all of its modules, so a
    class may move between them).

    Raises:
        LookupError: a name of :data:`NAMED` is in none of ``modules``, or
            names two different classes (a renamed function would otherwise
            lose its recorded backward, or get another's).
    """
    for name, fn in NAMED.items():
        found = [getattr(m, name, None) for m in modules]
        classes = {c for c in found if isinstance(c, type) and issubclass(c, Function)}
        if len(classes) != 1:
            raise LookupError(
                f"higher_order.install: {len(classes)} function classes {name!r}"
            )
        FORMULAS[classes.pop()] = fn


# The recorded pass that ``engine.autograd`` runs under ``create_graph``.
autograd.RECORDED.grads = recorded_grads
autograd.RECORDED.unbroadcast = unbroadcast
autograd.RECORDED.accumulate = recorded_accumulate
