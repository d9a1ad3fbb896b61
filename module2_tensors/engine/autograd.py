"""The autograd engine: ``Function`` and what ``Function.apply`` does (engine
layer: students never edit or need to read this file; it imports none of theirs).

``tensor_functions.py`` is what a student reads: each operation's ``forward`` and
``backward``. This module holds the machinery that makes ``Function.apply`` cheap
and safe, behind a small interface:

* :class:`Function`, the base class of every tensor operation (exported by the
  package; ``tensor_functions``'s docstring teaches what a subclass defines);
* :class:`Context` (what a forward leaves its backward), :class:`History` and
  :func:`apply` (``Function.apply``): run a forward and, when gradients are
  recorded, give the result its history; :func:`backward_tuple`
  (``Function._backward``) normalises what a backward returns;
* the backward pass of a tensor: the protocol Module 1's ``backpropagate`` walks
  (:func:`is_constant`, :func:`is_leaf`, :func:`parents`, :func:`chain_rule`,
  :func:`accumulate_derivative`) and :func:`backward`, which are ``Tensor``'s
  methods of those names; the student's ``unbroadcast`` and ``backpropagate``
  come by registration (:func:`register_tensor_class`).

Beside it, one file per concept: the autograd switches (``MODES``,
``set_grad_enabled``...) are ``engine/grad_modes.py``'s, version counters
``engine/versions.py``'s, ``register_hook`` ``engine/hooks.py``'s, anomaly mode's
checks and the user's line an error names ``engine/anomaly.py``'s. (The whole
``a * b`` forward and backward runs through this file alone of the engine's,
with ``layout.py``: docs/DESIGN.md.)
"""

from __future__ import annotations

import itertools
import sys
from typing import TYPE_CHECKING, Any, Callable, ClassVar, List, Optional, Set, Tuple

from module1_scalar_autodiff.context import Context as ScalarContext

from .anomaly import check_backward, check_forward, user_call
from .grad_modes import MODES
from .versions import check_versions, version_of, versions

if TYPE_CHECKING:
    from ..tensor import Tensor
    from ..tensor_data import TensorData

# ---------------------------------------------------------------------------
# Context, History and Function.apply
# ---------------------------------------------------------------------------


class Context(ScalarContext):
    """What a tensor function's ``forward`` leaves behind for its ``backward``:
    Module 1's ``Context`` (``save_for_backward``, ``saved_values``,
    ``needs_input_grad``, ``requires_grad``) and ``freed``, set once a backward
    pass has released the saved values; a second pass then needs
    ``backward(retain_graph=True)``, as in PyTorch."""

    __slots__ = ("freed",)

    def __init__(self, needs_input_grad: Tuple[bool, ...] = ()) -> None:
        self.needs_input_grad = tuple(needs_input_grad)
        self.saved_values, self.freed = (), False

    def save_for_backward(self, *values: Any) -> None:
        """Store ``values`` for the backward pass (read back as ``saved_values``).
        Defined again here (the same body) so that a tensor function's forward
        stays in the engine's file: the ``a * b`` path (docs/DESIGN.md)."""
        self.saved_values = values


class History:
    """How a tensor was made: by ``last_fn`` from ``inputs`` (tensors and other
    arguments such as dims, in call order), with ``ctx`` holding what
    ``last_fn.forward`` saved, ``parents`` the tensors among ``inputs`` (in order:
    ``Tensor.parents``), and ``versions`` the version (:func:`version_of`) of each
    tensor input when it was used, checked again by the backward pass (``()`` when
    no storage had been changed in place yet: every version was 0).
    ``saved_output`` is ``(k, version)`` when the forward saved its own result as
    ``ctx.saved_values[k]`` (``Exp``, ``Sigmoid``, ``Sqrt``...), with the version of
    the result's storage then; the backward pass checks it too, so changing a saved
    result in place (``y = x.exp(); y.add_(1)``) raises as in PyTorch. ``None``
    when the forward did not save its result.

    Slots rather than a dataclass: one is made per recorded operation.
    """

    __slots__ = ("last_fn", "ctx", "inputs", "versions", "parents")

    #: (A class default: only :class:`SavedOutputHistory` stores one, so the
    #: history of an ordinary operation costs nothing more to build.)
    saved_output: Optional[Tuple[int, int]] = None

    def __init__(
        self,
        last_fn: type,
        ctx: Context,
        inputs: Tuple[Any, ...],
        parents: Tuple[Any, ...],
        versions: Tuple[int, ...] = (),
    ) -> None:
        self.last_fn, self.ctx, self.inputs = last_fn, ctx, inputs
        self.parents, self.versions = parents, versions


class SavedOutputHistory(History):
    """The history of a result that its forward saved for backward
    (``saved_output`` set)."""

    __slots__ = ("saved_output",)


def backward_tuple(cls: type, ctx: Context, grad: "Tensor", count: int) -> Tuple:
    """``cls.backward(ctx, grad)`` as a tuple of exactly ``count`` entries (a
    single gradient may come without a tuple; trailing ``None``\\ s may be left
    out)."""
    grads = cls.backward(ctx, grad)  # type: ignore[attr-defined]
    grads = grads if isinstance(grads, tuple) else (grads,)
    if len(grads) > count:
        raise RuntimeError(
            f"{cls.__name__}.backward returned {len(grads)} gradients for "
            f"{count} arguments"
        )
    return grads + (None,) * (count - len(grads))


def apply(cls: type, *args: Any) -> "Tensor":
    """``Function.apply``: run ``cls.forward`` and, when gradients are being
    recorded and some input requires grad, give the result a :class:`History`.

    Raises:
        ValueError: tensor arguments live on different backends.
    """
    Tensor = _Tensor
    backend = None
    record = False
    for x in args:
        if isinstance(x, Tensor):
            if backend is None:
                backend = x.backend
            elif x.backend is not backend:
                op, _ = user_call()
                raise ValueError(
                    f"{op}: tensors on different backends ({backend.name} and "
                    f"{x.backend.name}); move one with t.to(other.backend), "
                    f"or make every tensor on one backend "
                    f"(set_default_backend(...) sets the default)"
                )
            if x._requires_grad:
                record = True
    record = record and MODES.grad and cls.differentiable  # type: ignore
    # The Context's (and below the History's) slots set here rather than by
    # calling the class, whose __init__ CPython 3.11 reaches by a slower path
    # than a function: 60 objects a batch of the Task 3.5 epoch, 1.2% of it
    # (alternating in one process). tests/module2/test_engine.py checks that
    # they hold what the constructors would give them.
    ctx = _object_new(Context)
    ctx.saved_values, ctx.freed, ctx.needs_input_grad = (), False, ()
    if record:
        ctx.needs_input_grad = tuple(
            [isinstance(x, Tensor) and x._requires_grad for x in args]
        )
    out = cls.forward(ctx, *args)  # type: ignore[attr-defined]
    if MODES.anomaly:
        check_forward(cls, ctx, args, out, Tensor)
    if not record:
        return out
    # Versions are all 0 until some storage is changed in place; then () stands
    # for "all 0", which the backward pass checks just the same.
    parents = tuple([x for x in args if isinstance(x, Tensor)])
    seen = tuple(version_of(x) for x in parents) if versions else ()
    history = h = _object_new(History)
    h.last_fn, h.ctx, h.inputs, h.parents, h.versions = cls, ctx, args, parents, seen
    if out.history is None and sys.getrefcount(out) <= FRESH:
        # Nothing but this function holds the result (the forward made it): it
        # takes the history itself, instead of a second Tensor object being
        # built around the same numbers. A speed trick, kept because it pays:
        # 0.3-0.5 us of a recorded ``a * w`` (5.3 us on the loaded 2-core
        # machine), 1.5-3% of the Task 3.5 epoch, whose margin to the 1.5x
        # target is 1-4% (module3_fast_ops/BENCHMARKS.md, "Issue 26"). Its
        # invariant (an input or a saved result is never given a history) is
        # tested in tests/module2/test_engine.py.
        out.history = history
        out._requires_grad = True
        return out
    # Else a fresh Tensor object shares the result's numbers but carries the
    # history (a forward may return a view, or even an input, which must stay as
    # it is; and a result that a forward saved for backward must not point back
    # at its own history: that would be a reference cycle). A saved result is
    # found here, off the fast path above (only a result something else holds
    # can have been saved), and its storage's version recorded: one counter read.
    for k, v in enumerate(ctx.saved_values):
        if v is out:
            history = SavedOutputHistory(cls, ctx, args, parents, seen)
            history.saved_output = (k, version_of(out))
            break
    result = Tensor(out._tensor, out.backend, history)
    if out._dtype is not None or out.is_mask:  # (the forward's label, kept)
        result._dtype, result.is_mask = out._dtype, out.is_mask
    return result


def _references_of_a_fresh_local() -> int:
    """What ``sys.getrefcount`` reports for an object held by one local variable
    only (2 on most CPythons: the variable and the call's argument; newer ones may
    borrow the argument's reference)."""
    fresh = object()
    return sys.getrefcount(fresh)


#: :func:`apply` gives its history to a forward's result when the result's
#: reference count is at most this: no input, saved value or cache holds it.
FRESH = _references_of_a_fresh_local()


def register_tensor_class(cls: type, unbroadcast: Any, backpropagate: Any) -> None:
    """Name the class of the values :func:`apply` makes and checks (``Tensor``),
    the student's ``unbroadcast`` (Task 2.4), with which :func:`chain_rule` sums
    a gradient back to its input's shape, and ``backpropagate`` (Task 1.4), which
    :func:`backward` runs: tensor.py registers them, since this module imports
    neither tensor.py (which imports it) nor a file students edit."""
    global _Tensor, _unbroadcast, _backpropagate
    _Tensor, _unbroadcast, _backpropagate = cls, unbroadcast, backpropagate


_Tensor: Any = None  # the Tensor class, registered by tensor.py
_unbroadcast: Any = None  # tensor_functions.unbroadcast, registered by tensor.py
_backpropagate: Any = None  # autodiff.backpropagate, registered by tensor.py


# ---------------------------------------------------------------------------
# Function: the base class of every operation (``tensor_functions`` subclasses
# it; its module docstring tells a student what a subclass defines)
# ---------------------------------------------------------------------------


class Function:
    """Base class of every tensor operation; subclasses define ``forward`` and
    ``backward`` and are used through ``apply``, never instantiated.

    ``Neg.apply(a)`` runs ``Neg.forward(ctx, a)`` with a fresh ``Context`` and, when
    gradients are being recorded (:func:`is_grad_enabled`) and some input requires
    grad, gives the result a :class:`History` (``last_fn``, ``ctx``, ``inputs``), so
    that ``backward`` can later call ``Neg.backward(ctx, grad)``. It also checks that
    every tensor argument is on one backend, and records each input's version
    (:func:`version_of`) so a backward pass can tell if a saved value was changed
    in place since. (This module does that bookkeeping.)

    Arguments of ``forward`` may be tensors or plain values (a dim, a shape).
    ``backward`` returns one gradient per argument, in order: a tensor for a tensor
    that needs one, ``None`` for everything else. A single tensor may be returned
    without a tuple, and trailing ``None``s may be left out, so ``Sum.backward`` (for
    ``forward(ctx, a, dim)``) may simply return the gradient of ``a``.

    A function with ``differentiable = False`` (comparisons) never records history:
    its result does not require grad, as in PyTorch.
    """

    differentiable: ClassVar[bool] = True

    @staticmethod
    def forward(ctx: Context, *args: Any) -> "Tensor":
        """The result (a new tensor, or a view of an input)."""
        raise NotImplementedError

    @staticmethod
    def backward(ctx: Context, grad: "Tensor") -> Any:
        """$\\partial L / \\partial x$ for each argument $x$, given
        $G = \\partial L / \\partial \\mathrm{out}$."""
        raise NotImplementedError

    # Run forward and record the history, as described above.
    apply = classmethod(apply)
    # backward's result as a tuple of one entry per argument.
    _backward = classmethod(backward_tuple)


class DifferentiableBackward(Function):
    """A :class:`Function` whose ``backward`` computes with differentiable tensor
    operations (``grad * a.cos()``) on the inputs it saved, never on its own saved
    result (which has no history). With ``create_graph=True`` the engine runs
    that very ``backward`` with recording on, so the gradient it gives can be
    differentiated again: it needs no separate formula in
    ``engine/higher_order.py``. (In an ordinary pass recording is off, and the
    same operations build no graph.)"""


#: Process-wide tensor ids (``Tensor.unique_id``), never reused (unlike id()), for
#: the engine's dictionaries.
next_id = itertools.count().__next__


def _new(like: "Tensor", data: TensorData) -> "Tensor":
    """``type(like)(data, like.backend)``: a tensor of ``data`` on ``like``'s
    backend, without history (views; FastOps' kernel outputs).

    For a ``Tensor`` (not a subclass) on host memory it sets what
    ``Tensor.__init__`` sets for these arguments, without the call through the
    class (its checks are for users' calls; CPython 3.11 calls an ``__init__``
    through a slower path than a function): with ``layout.empty_data``, 0.07-0.1
    us less per result, 70 results a batch of the Task 3.5 epoch
    (module3_fast_ops/BENCHMARKS.md, "Less Python per result").
    tests/module2/test_engine.py checks that both build the same tensor."""
    cls = type(like)
    if cls is not _Tensor and cls not in PLAIN_RESULTS or like.backend.cuda:
        return cls(data, like.backend)
    t = _object_new(_Tensor)
    t.backend, t._tensor, t.history, t.grad = like.backend, data, None, None
    t._requires_grad, t.unique_id = False, next_id()
    return t


_object_new = object.__new__

#: Subclasses of ``Tensor`` whose results are ordinary tensors (``Parameter``,
#: registered by tensor.py): :func:`_new` makes them as it makes a ``Tensor``'s,
#: without the call through the class. Measured: ``p.data`` of a parameter 1.1 ->
#: 0.7 us (2-core VM); 6 a Task 3.5 batch (SGD's step reads ``p.value.data``). The
#: invariant (the result is the plain ``Tensor`` the class would give) is tested
#: in tests/module2/test_engine.py.
PLAIN_RESULTS: Set[type] = set()


# ---------------------------------------------------------------------------
# The backward pass of a tensor. Module 1's ``backpropagate`` (Task 1.4) walks a
# graph of tensors as one of scalars, through five members of each node: the
# first five functions below, which ``Tensor`` has as its methods of those names
# (``tensor_api/gradients.py``), so the walk calls into this file directly. The
# student's ``unbroadcast`` (Task 2.4) and ``backpropagate`` are registered;
# :func:`backward` (``Tensor.backward``) runs the pass.
# ---------------------------------------------------------------------------


def is_constant(t: "Tensor") -> bool:
    """``t.is_constant()``: True for a tensor that takes no gradient at all."""
    return not t._requires_grad


def is_leaf(t: "Tensor") -> bool:
    """``t.is_leaf``: True for a tensor no recorded function produced (made by
    the user, or computed without gradient recording); a property, as in
    PyTorch."""
    return t.history is None


def parents(t: "Tensor") -> Tuple["Tensor", ...]:
    """``t.parents``: the tensor inputs of the function that made ``t``."""
    return () if t.history is None else t.history.parents


def chain_rule(t: "Tensor", d_output: "Tensor") -> List[Tuple["Tensor", "Tensor"]]:
    """``t.chain_rule(d_output)``: the pairs ``(input, dL/d input)`` for the
    inputs of ``t``'s function that require grad, each gradient summed back to
    its input's shape by the registered ``unbroadcast(g, shape)`` where the
    shapes differ (where they agree it would return ``g`` itself). A backward
    that returns ``None`` for an input sends it no gradient.

    Raises:
        RuntimeError: ``t`` is a leaf; its function's saved tensors were freed by
            an earlier backward; an input was changed in place since the
            forward; a backward returned something else than a tensor or
            ``None`` for an input that needs a gradient.
    """
    Tensor = _Tensor
    h = t.history
    if h is None:
        raise RuntimeError("chain_rule needs a computed tensor, got a leaf")
    ctx = h.ctx
    if ctx.freed:
        raise RuntimeError(
            f"Trying to backward through the graph a second time "
            f"({h.last_fn.__name__} has freed its saved tensors); specify "
            f"retain_graph=True on the first backward() to backward twice"
        )
    inputs = h.inputs
    # Only once some storage has been changed in place can a version differ
    # (``h.versions`` is ``()`` when all were 0 at the forward).
    if versions:
        check_versions(h, h.last_fn.__name__)  # raises if one differs
    if MODES.create_graph:  # backward(create_graph=True): a recorded pass
        grads = RECORDED.grads(t, d_output)
        unbroadcast = RECORDED.unbroadcast
    else:
        grads = h.last_fn._backward(ctx, d_output, len(inputs))
        unbroadcast = _unbroadcast
    if MODES.anomaly_backward:
        check_backward(h.last_fn, ctx, d_output, grads, Tensor)
    if not MODES.retain_graph:
        for v in ctx.saved_values:
            if isinstance(v, Tensor):
                ctx.saved_values = ()
                ctx.freed = True
                break
    pairs = []
    for k, (x, g) in enumerate(zip(inputs, grads)):
        if g is None or not isinstance(x, Tensor) or not x._requires_grad:
            continue  # None: no gradient flows to x (e.g. where's condition)
        if not isinstance(g, Tensor):
            raise RuntimeError(
                f"{h.last_fn.__name__}.backward returned "
                f"{type(g).__name__} for argument {k}, which needs a gradient "
                f"tensor"
            )
        shape = x._tensor.shape
        pairs.append((x, g if g._tensor.shape == shape else unbroadcast(g, shape)))
    return pairs


def accumulate_derivative(t: "Tensor", d: "Tensor") -> None:
    """``t.accumulate_derivative(d)``: add ``d`` into ``t.grad``.

    Raises:
        RuntimeError: ``d``'s shape is not ``t``'s.
    """
    if d._tensor.shape != t._tensor.shape:
        raise RuntimeError(
            f"a gradient of shape {d.shape} reached a tensor of shape {t.shape}"
        )
    if MODES.create_graph:  # out of place, keeping d's history
        return RECORDED.accumulate(t, d)
    g = t.grad
    if g is None:
        # Each tensor gets its own .grad, numbers included (a backward may hand
        # one gradient to several leaves: w1 + w2), so that adding below, or an
        # in-place change (clip_grad_norm_'s mul_), touches only it.
        d = d.backend.id_map(d) if d._is_grad else d
        d._is_grad = True
        d._dtype = t._dtype  # (a float32 leaf's gradient is float32)
        t.grad = d
    else:
        # Accumulate into the same object, as PyTorch does in place: a reference
        # to x.grad that the user holds stays current. (The sum gets new numbers:
        # the old ones may be shared with another gradient. The backend's add:
        # nothing is recorded here, and only the numbers are kept.)
        g._tensor = g.backend.add_zip(g, d)._tensor


class Recorded:
    """The recorded backward pass of ``create_graph=True``, set by
    ``engine/higher_order.py`` when imported (it imports this module, never the
    other way round): a function's gradients as a graph (``grads``), summed
    back to an input's shape (``unbroadcast``) and accumulated out of place
    (``accumulate``) with recorded operations."""

    grads: Callable[["Tensor", "Tensor"], Tuple]
    unbroadcast: Callable[..., "Tensor"]
    accumulate: Callable[["Tensor", "Tensor"], None]


RECORDED = Recorded()


def backward(
    t: "Tensor",
    grad: Any = None,
    retain_graph: Optional[bool] = None,
    create_graph: bool = False,
    *,
    gradient: Any = None,
) -> None:
    """``t.backward(grad)``: backpropagate from ``t``: every leaf it depends on
    that requires grad gets $\\partial L / \\partial \\text{leaf}$ added into
    ``.grad``.

    Args:
        grad: $\\partial L / \\partial t$, of ``t``'s shape. It may be left out
            for a one-element tensor (a loss), where it is 1.
        retain_graph: keep the values the functions saved, so that the graph
            can be backpropagated again (by default they are freed, as in
            PyTorch).
        create_graph: record the backward pass itself, so that the gradients
            (``.grad``) have a history and can be differentiated again
            (higher-order gradients; ``engine/higher_order.py``).
            ``retain_graph`` then defaults to true, as in PyTorch.
        gradient: PyTorch's name for ``grad`` (``backward(gradient=v)``).

    Once ``grad`` is checked, the pass: gradient recording off (on with
    ``create_graph``: the pass is then recorded), the modes of the pass set
    (retain-graph; anomaly mode checks each backward as a whole, naming the
    user's operation, not the tensor operations inside it), then the student's
    ``backpropagate(t, grad)`` (Task 1.4, registered); every mode restored
    afterwards, whatever happens.

    Raises:
        RuntimeError: ``t`` does not require grad; it has more than one element
            and no ``grad`` was given; the graph was already backpropagated
            without ``retain_graph=True``; or a value a function used was
            changed in place since.
    """
    if grad is not None and gradient is not None:
        raise TypeError("backward() got both grad and gradient")
    grad = gradient if grad is None else grad
    if not t._requires_grad:
        raise RuntimeError(
            "backward() on a tensor that does not require grad (no input had "
            "requires_grad=True, or it was computed under no_grad())"
        )
    if grad is None:
        if t._tensor.size != 1:
            raise RuntimeError(
                f"backward() without a gradient needs a tensor with one element "
                f"(a scalar loss), got shape {t.shape}; pass grad=..."
            )
        grad = t.new_ones(t.shape)
    elif not isinstance(grad, _Tensor):  # (a number too, as PyTorch's)
        raise TypeError(f"gradients can be Tensors or None, not {type(grad).__name__}")
    if grad._tensor.shape != t._tensor.shape:
        raise ValueError(
            f"backward(grad): grad has shape {grad.shape} but the tensor has "
            f"shape {t.shape}"
        )
    # The seed without history. (With create_graph, a seed that requires grad
    # stays in the graph: the gradients then depend on it, as in PyTorch.)
    grad = grad if create_graph and grad._requires_grad else _new(t, grad._tensor)
    previous, anomaly, create = MODES.grad, MODES.anomaly, bool(create_graph)
    MODES.grad = MODES.create_graph = create
    MODES.retain_graph = bool(create if retain_graph is None else retain_graph)
    MODES.anomaly, MODES.anomaly_backward = False, anomaly
    try:
        _backpropagate(t, grad)
    finally:
        MODES.retain_graph = MODES.create_graph = False
        MODES.anomaly, MODES.anomaly_backward = anomaly, False
        MODES.grad = previous
