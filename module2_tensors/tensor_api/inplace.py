"""In-place operations (PyTorch's trailing underscore: ``add_``, ``+=``, ``copy_``,
``fill_``, ``normal_``, ...): the numbers change, the version counter moves,
and autograd records the change where the tensor is in a graph."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, Callable, Tuple

from .. import shape_functions as sf
from ..engine import autograd, dtypes, grad_modes, versions
from ..engine.versions import storage_root
from .core import CoreMixin, FACTORIES, TensorLike

if TYPE_CHECKING:
    from ..tensor import Tensor


def check_writable(value: Tuple[int, ...], target: Tuple[int, ...]) -> None:
    """Raise ``ValueError`` (naming both shapes) unless a value of shape ``value``
    broadcasts to ``target``, the shape it is written into."""
    extra = len(target) - len(value)  # (value aligned with target on the right)
    if extra < 0 or any(n not in (1, m) for n, m in zip(value, target[extra:])):
        raise ValueError(f"cannot write a value of shape {value} into shape {target}")


#: ``random_()``'s bound by dtype (PyTorch's), where not $2^{53}$.
_RANDOM_TO = {dtypes.float32: 2**24, dtypes.float16: 2**11, dtypes.bool_: 2}


class _Overwrite(autograd.Function):
    """``copy_``/``fill_``/``zero_`` on a tensor in the graph: the result is
    ``b`` broadcast to ``a``'s shape, so $\\partial L / \\partial a = 0$ (the old
    values are gone: PyTorch sends zeros to what made them) and
    $\\partial L / \\partial b = G$ (summed back to ``b``'s shape by the engine)."""

    @staticmethod
    def forward(ctx: autograd.Context, a: Tensor, b: Tensor) -> Tensor:
        check_writable(b.shape, a.shape)
        ctx.save_for_backward(a.shape)
        # (the map broadcasts b into its out, and returns it, as in Sum.backward)
        return a.backend.id_map(b, out=a.new_zeros(a.shape))

    @staticmethod
    def backward(ctx: autograd.Context, grad: Tensor) -> Tuple[Tensor, Tensor]:
        (shape,) = ctx.saved_values
        return grad.new_zeros(shape), grad


#: The in-place arithmetic, whose result dtype PyTorch checks against ``self``'s
#: (:func:`_in_place_form` adds its own).
_ARITHMETIC = {"add_", "sub_", "mul_", "div_", "clamp_"}


def _in_place_form(
    name: str, *, options: bool = False, recorded: bool = True, at: int = 0
) -> Callable[..., "Tensor"]:
    """The in-place form ``name_`` of the method ``name`` (``exp_`` of ``exp``,
    ``add_(other, alpha)`` of ``add``): its result written into ``self`` by
    :meth:`InPlaceMixin._in_place`, with the first argument (``other``), if
    any, as the recorded operation's second input (its gradient flows); or the
    argument at position ``at`` (``scatter_add_(dim, index, src)``: 2).

    ``options``: the arguments are options, not tensors (``x.cumsum_(0)``,
    ``x.tril_(-1)``): all of them go to the method as they are. ``recorded``:
    see :meth:`InPlaceMixin._in_place` (PyTorch records no ``logical_*_``)."""
    what = name.strip("_") + "_"  # (its name in errors: and_ for a &= b's __and__)
    _ARITHMETIC.add(what)

    def in_place(self: "Tensor", *args: Any, **kwargs: Any) -> "Tensor":
        """The method without its trailing underscore (``x.exp_()``: ``x.exp()``)
        with these arguments, its result written into this tensor; returns it."""
        # The recorded argument given by name (add_(other=y), scatter_add_(...,
        # src=s)): bound to the method's signature first, so that it is recorded.
        if kwargs and len(args) <= at and not options:
            bound = inspect.signature(getattr(self, name)).bind(*args, **kwargs)
            args, kwargs = bound.args, bound.kwargs

        def op(a: "Tensor", v: Any) -> "Tensor":  # (v: args[at], made a tensor)
            given = args if options else (*args[:at], v, *args[at + 1 :])[: len(args)]
            return getattr(a, name)(*given, **kwargs)

        value = args[at] if len(args) > at and not options else 0.0
        return self._in_place(what, op, value, recorded=recorded)

    return in_place


def _reshaping_form(name: str) -> Callable[..., "Tensor"]:
    """The in-place form ``name_`` of the view method ``name`` (``squeeze_``):
    ``self`` takes the view's shape (the same storage); in the graph it becomes
    the view of a node that holds its old history."""

    def in_place(self: "Tensor", *args: Any, **kwargs: Any) -> "Tensor":
        """The view method without the trailing underscore (``x.squeeze_(0)``:
        ``x.squeeze(0)``), made this tensor's shape in place; returns it."""
        check_not_leaf(self, name + "_")
        old = self._new(self._tensor)
        old.history, old._requires_grad = self.history, self._requires_grad
        out = getattr(old, name)(*args, **kwargs)
        self._tensor, self.history = out._tensor, out.history or self.history
        return self

    return in_place


def check_not_leaf(t: "Tensor", what: str) -> None:
    """Raise PyTorch's error where ``what`` would change ``t`` in place while it
    is a leaf that requires grad (with gradient recording on)."""
    if grad_modes.is_grad_enabled() and t.requires_grad and t.is_leaf:
        raise RuntimeError(
            f"a leaf Variable that requires grad is being used in an in-place "
            f"operation ({what}); do it inside `with no_grad():` or use the "
            f"out-of-place form"
        )


class InPlaceMixin:
    """In-place forms of the operations; each returns ``self``."""

    # In-place forms (PyTorch's trailing underscore): see _in_place for autograd.
    # (the value or source recorded: the argument at 1 or 2)
    masked_fill_ = _in_place_form("masked_fill", at=1)
    index_fill_, index_add_, index_copy_, scatter_, scatter_add_ = (
        _in_place_form(n, at=2)
        for n in "index_fill index_add index_copy scatter scatter_add".split()
    )

    def normal_(
        self, mean: float = 0.0, std: float = 1.0, *, generator: Any = None
    ) -> "Tensor":
        """Fill with samples of $N(\\text{mean}, \\text{std}^2)$, in place (from
        the generator :func:`manual_seed` sets, or ``generator``)."""
        z = FACTORIES["randn"](self.shape, backend=self.backend, generator=generator)
        return self._in_place("normal_", _Overwrite.apply, z * std + mean)

    def uniform_(
        self, a: float = 0.0, b: float = 1.0, *, generator: Any = None
    ) -> "Tensor":
        """Fill with samples of $U(a, b)$, in place."""
        u = FACTORIES["rand"](self.shape, backend=self.backend, generator=generator)
        return self._in_place("uniform_", _Overwrite.apply, u * (b - a) + a)

    def random_(self, *bounds: int, generator: Any = None, **named: int) -> "Tensor":
        """``random_(from=0, to)``, ``random_(to)``: whole numbers drawn uniformly
        from ``[from, to)``, in place (``random_()``: to $2^{24}$ for float32,
        else $2^{53}$, the whole numbers the dtype holds; 2 for bool)."""
        bounds = bounds + tuple(named.values()) or (_RANDOM_TO.get(self.dtype, 2**53),)
        low, high = (0, *bounds)[-2:]
        drawn = FACTORIES["rng"](None, generator).integers(low, high, self.shape)
        return self._in_place("random_", _Overwrite.apply, self.new_tensor(drawn))

    def exponential_(self, lambd: float = 1.0, *, generator: Any = None) -> "Tensor":
        """Fill with samples of the exponential distribution of rate $\\lambda$,
        $-\\ln(1 - U) / \\lambda$ for $U \\sim U(0, 1)$, in place (a float tensor)."""
        return self.uniform_(generator=generator).neg_().log1p_().div_(-lambd)

    def _in_place(
        self,
        what: str,
        op: Callable[["Tensor", "Tensor"], "Tensor"],
        value: TensorLike,
        recorded: bool = True,
    ) -> "Tensor":
        """Compute ``op(self, value)`` and write it into this tensor's storage
        (so every view of it sees the change); returns ``self``.

        With autograd (gradient recording on and ``self`` or ``value`` requiring
        grad) this tensor becomes the result of ``op`` in the graph, as in
        PyTorch; its old value is kept, copied, for that ``op``'s backward. A
        result without history (a comparison's) is then recorded as overwriting
        it, so zeros go back (PyTorch's ``EqBackward``); with ``recorded=False``
        this tensor keeps its old history instead.

        Raises:
            RuntimeError: (PyTorch's rules) ``self`` is a leaf that requires grad;
                entries of ``self`` share memory (an expanded tensor); the
                result does not have ``self``'s shape.
        """
        other = self._other(value)
        # (arithmetic with a Python number: the number, for the result dtype, and
        # scatter_(dim, index, 5.0)'s value, which as a 0-d tensor reads as a src)
        plain = what in _ARITHMETIC and not isinstance(value, CoreMixin)
        # (NumPy gives an empty array zero strides: it has no entry to share)
        if self._tensor.size and any(
            n > 1 and s == 0 for n, s in zip(self.shape, self._tensor.strides)
        ):
            raise RuntimeError(
                f"unsupported operation: more than one element of the written-to "
                f"tensor refers to a single memory location ({what} on an expanded "
                f"tensor of shape {self.shape}); clone() it first"
            )
        if grad_modes.is_grad_enabled() and (self.requires_grad or other.requires_grad):
            check_not_leaf(self, what)
            if any(storage_root(p) is storage_root(self) for p in self.parents):
                raise RuntimeError(
                    f"{what} with autograd on a view of a tensor that requires "
                    f"grad is not supported here; use the out-of-place form "
                    f"(y = y + 1)"
                )
            # The old value, as its own node with this tensor's history.
            old = self._new(self.backend.id_map(self)._tensor)
            old.history, old._requires_grad = self.history, self._requires_grad
            out = op(old, old if other is self else value if plain else other)
            # x.eq_(0): zeros go back to x's history; unless not ``recorded``
            # (PyTorch records no logical_*_ at all: x keeps its history).
            if out.history is None and recorded:
                out = _Overwrite.apply(old, out)
        else:
            with sf.no_grad():
                out = op(self, value if plain else other)
        if out.shape != self.shape:
            raise RuntimeError(
                f"{what}: output with shape {self.shape} doesn't match the "
                f"broadcast shape {out.shape}"
            )
        if not self.is_floating_point():
            # (i += 0.5 would hold 0.5 labelled int64, b += 2 a 3 labelled bool)
            if what in _ARITHMETIC and (
                out.is_floating_point() or out.is_mask < self.is_mask
            ):
                raise RuntimeError(
                    f"{what}: result type {out.dtype.name} can't be cast to the "
                    f"desired output type {self.dtype.name}"
                )
            out = out._as_dtype(self.dtype)  # (copy_, fill_ truncate as PyTorch's)
        self.backend.id_map(out, out=self)
        versions.bump_version(self)
        if out.history is not None:  # (a float: an integer result has none)
            self.history, self._requires_grad = out.history, True
        return self

    # In-place forms of the methods: x.add_(y, alpha=2) writes x.add(y, alpha=2)
    # into x (by _in_place, y the recorded input), x.exp_() writes x.exp(), ...
    add_, sub_, mul_, div_, pow_, relu_, sin_, cos_, tan_, erf_, log1p_, expm1_ = map(
        _in_place_form, "add sub mul div pow relu sin cos tan erf log1p expm1".split()
    )
    exp_, log_, sqrt_, abs_, neg_, sigmoid_, tanh_, rsqrt_, asin_, acos_, atan_ = map(
        _in_place_form, "exp log sqrt abs neg sigmoid tanh rsqrt asin acos atan".split()
    )
    floor_, ceil_, round_, trunc_, frac_, sign_, sinh_, cosh_, log2_, sgn_ = map(
        _in_place_form, "floor ceil round trunc frac sign sinh cosh log2 sgn".split()
    )
    asinh_, acosh_, atanh_, log10_, exp2_, reciprocal_, erfc_, logit_ = map(
        _in_place_form, "asinh acosh atanh log10 exp2 reciprocal erfc logit".split()
    )

    addcmul_, addcdiv_ = map(_in_place_form, ("addcmul", "addcdiv"))
    clamp_ = clip_ = _in_place_form("clamp")  # (min, the first bound, as other)
    sinc_, deg2rad_, rad2deg_, square_, lerp_, atan2_, xlogy_, hypot_ = map(
        _in_place_form, "sinc deg2rad rad2deg square lerp atan2 xlogy hypot".split()
    )
    float_power_, heaviside_ = map(_in_place_form, ("float_power", "heaviside"))
    fmod_, remainder_, floor_divide_, clamp_min_, clamp_max_ = map(
        _in_place_form, "fmod remainder floor_divide clamp_min clamp_max".split()
    )
    eq_, ne_, lt_, le_, gt_, ge_ = map(_in_place_form, "eq ne lt le gt ge".split())
    logical_and_, logical_or_, logical_xor_, logical_not_ = (
        _in_place_form(n, recorded=False)
        for n in "logical_and logical_or logical_xor logical_not".split()
    )
    # (their arguments are not tensors: the dimension, the diagonal, the numbers)
    cumsum_, cumprod_, tril_, triu_, nan_to_num_ = (
        _in_place_form(n, options=True)
        for n in "cumsum cumprod tril triu nan_to_num".split()
    )
    # PyTorch's other names of some of them
    arcsin_, arccos_, arctan_, arctan2_ = asin_, acos_, atan_, atan2_
    absolute_, negative_, multiply_, subtract_ = abs_, neg_, mul_, sub_
    divide_ = true_divide_ = div_
    greater_, greater_equal_, less_, less_equal_, not_equal_ = gt_, ge_, lt_, le_, ne_

    # a += b is a.add_(b), ... (without these Python would rebind a to a + b,
    # leaving its views and other names of it unchanged)
    __iadd__, __isub__, __imul__, __itruediv__ = add_, sub_, mul_, div_
    __ipow__, __ifloordiv__, __imod__ = pow_, floor_divide_, remainder_
    __iand__, __ior__, __ixor__ = map(_in_place_form, ("__and__", "__or__", "__xor__"))
    addmm_, addmv_, baddbmm_ = map(_in_place_form, ("addmm", "addmv", "baddbmm"))
    erfinv_, ldexp_ = map(_in_place_form, ("erfinv", "ldexp"))
    bitwise_and_, bitwise_or_, bitwise_xor_, bitwise_not_ = map(
        _in_place_form, "bitwise_and bitwise_or bitwise_xor bitwise_not".split()
    )

    def copy_(self, src: TensorLike) -> "Tensor":
        """Copy ``src`` (broadcast, moved to this backend) into this tensor, in
        place; returns ``self``. Differentiable with respect to ``src``."""
        src = src.to(self.backend) if isinstance(src, CoreMixin) else src
        return self._in_place("copy_", _Overwrite.apply, src)

    def fill_(self, value: float) -> "Tensor":
        """Set every entry to ``value``, in place; returns ``self``. The old
        values no longer matter: no gradient flows to what made them."""
        return self._in_place("fill_", _Overwrite.apply, float(value))

    def zero_(self) -> "Tensor":
        """Set every entry to 0, in place; returns ``self`` (see :meth:`fill_`)."""
        return self._in_place("zero_", _Overwrite.apply, 0.0)

    def bernoulli_(self, p: Any = 0.5, *, generator: Any = None) -> "Tensor":
        """Fill with 1 with probability ``p``, else 0 (:meth:`bernoulli`), in place."""
        draws = self.bernoulli(p, generator=generator)
        return self._in_place("bernoulli_", _Overwrite.apply, draws)

    # x.squeeze_(0) makes x x.squeeze(0): a view, a new shape.
    squeeze_, unsqueeze_ = map(_reshaping_form, ("squeeze", "unsqueeze"))
    t_, transpose_ = map(_reshaping_form, ("t", "transpose"))
    swapaxes_ = swapdims_ = transpose_

    def detach_(self) -> "Tensor":
        """:meth:`detach`, in place: this tensor becomes a leaf that does not
        require grad.

        Raises:
            RuntimeError: a view made in the graph, as PyTorch's.
        """
        if any(storage_root(p) is storage_root(self) for p in self.parents):
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self.history, self._requires_grad = None, False
        return self
