"""The autograd surface of a tensor: ``backward``, ``.grad``, ``requires_grad``,
``detach``, hooks, ``retain_grad``; the engine (``engine/autograd.py``) does the
work, given the student's ``backpropagate``. The members Module 1's backward pass
walks (``is_leaf``, ``is_constant``, ``parents``, ``chain_rule``,
``accumulate_derivative``) are the engine's functions themselves."""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Optional

from module1_scalar_autodiff.autodiff import backpropagate

from .. import shape_functions as sf
from ..engine import autograd
from .core import FACTORIES, CoreMixin, TensorLike
from .dtype_device import keeps_dtype

if TYPE_CHECKING:
    from ..tensor import Tensor


class GradientMixin:
    """What a tensor offers for gradients; the backward pass itself is the
    engine's."""

    __slots__ = ()

    @property
    def requires_grad(self) -> bool:
        """Whether operations on this tensor are recorded for ``backward``."""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        # PyTorch's rule: a computed tensor keeps recording (its gradient flows
        # back to its inputs); only leaves can be switched off.
        if not value and self.history is not None:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf tensors; use "
                ".detach() to get a computed tensor without history"
            )
        self._requires_grad = bool(value)

    @property
    def grad_fn(self) -> Optional[type]:
        """The function that made this tensor (``None`` for a leaf)."""
        return None if self.history is None else self.history.last_fn

    # --------------------------------------------------------------- autodiff
    @property
    def data(self) -> "Tensor":
        """The same numbers without history (PyTorch's ``t.data``; prefer
        :meth:`detach`). In-place changes through it are not recorded
        (``w.data -= lr * w.grad``)."""
        return self.detach()

    @data.setter
    def data(self, value: "Tensor") -> None:
        # ``t.data = other`` makes t show other's numbers (shared storage, any
        # shape), keeping t's history and flags; ``w.data -= ...`` ends here,
        # with the very storage w already has.
        if not isinstance(value, CoreMixin):
            raise TypeError(f"data must be a Tensor, got {type(value).__name__}")
        if value.backend is not self.backend:
            value = value.to(self.backend).detach()
        self._tensor = value._tensor

    # How many in-place operations changed this tensor's storage (shared by its
    # views), PyTorch's ``t._version``.
    _version = property(autograd.version_of)

    # The protocol that Module 1's topological_sort and backpropagate (Task 1.4)
    # walk, as they walk Scalars: the engine's functions, bound as methods here,
    # so the backward pass calls the engine directly (no method in between).
    is_leaf = property(autograd.is_leaf)
    is_constant = autograd.is_constant
    parents = property(autograd.parents)
    chain_rule = autograd.chain_rule
    accumulate_derivative = autograd.accumulate_derivative

    def backward(
        self,
        grad: Optional[TensorLike] = None,
        retain_graph: Optional[bool] = None,
        create_graph: bool = False,
        *,
        gradient: Optional[TensorLike] = None,
    ) -> None:
        """Backpropagate from this tensor: every leaf it depends on that requires
        grad gets $\\partial L / \\partial \\text{leaf}$ added into ``.grad``.

        Args:
            grad: $\\partial L / \\partial \\text{self}$, of this tensor's shape. It
                may be left out for a one-element tensor (a loss), where it is 1.
            retain_graph: keep the values the functions saved, so that the graph
                can be backpropagated again (by default they are freed, as in
                PyTorch).
            create_graph: record the backward pass itself, so that the
                gradients (``.grad``) have a history and can be differentiated
                again (higher-order gradients; ``engine/higher_order.py``).
                ``retain_graph`` then defaults to true, as in PyTorch.
            gradient: PyTorch's name for ``grad`` (``backward(gradient=v)``).

        Raises:
            RuntimeError: the tensor does not require grad; it has more than
                one element and no ``grad`` was given; the graph was already
                backpropagated without ``retain_graph=True``; or a value a
                function used was changed in place since.
        """
        if gradient is not None:
            if grad is not None:
                raise TypeError("backward() got both grad and gradient")
            grad = gradient
        if not self.requires_grad:
            raise RuntimeError(
                "backward() on a tensor that does not require grad (no input had "
                "requires_grad=True, or it was computed under no_grad())"
            )
        if grad is None:
            if self._tensor.size != 1:
                raise RuntimeError(
                    f"backward() without a gradient needs a tensor with one element "
                    f"(a scalar loss), got shape {self.shape}; pass grad=..."
                )
            grad = self.new_ones(self.shape)
        else:
            if isinstance(grad, numbers.Real):
                # A fresh tensor, never the shared one of _other(): the gradient
                # may end up as a leaf's .grad, which the user may change in place.
                grad = FACTORIES["tensor"](float(grad), backend=self.backend)
            elif not isinstance(grad, CoreMixin):
                grad = self._other(grad)  # (raises: not a number or a tensor)
            # (The slots, not the properties: a call less each on every pass.)
            if grad._tensor.shape != self._tensor.shape:
                raise ValueError(
                    f"backward(grad): grad has shape {grad.shape} but the tensor has "
                    f"shape {self.shape}"
                )
            if not (create_graph and grad._requires_grad):
                grad = self._new(grad._tensor)  # no history
            # (With create_graph, a seed that requires grad stays in the graph:
            # the gradients then depend on it, as in PyTorch.)
        retain = bool(create_graph if retain_graph is None else retain_graph)
        autograd.run_backward(self, grad, retain, backpropagate, bool(create_graph))

    def zero_grad_(self) -> None:
        """Forget the accumulated gradient (``.grad`` becomes ``None``)."""
        self.grad = None

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        """Switch gradient tracking of a leaf on or off, in place; returns
        ``self``. A frozen leaf (``False``) is a constant: its ``.grad`` stays
        ``None``.

        Raises:
            RuntimeError: switching off a computed (non-leaf) tensor.
        """
        if not requires_grad and self.history is not None:
            raise RuntimeError(
                "requires_grad_(False) only works on leaves; use .detach() for a "
                "computed tensor"
            )
        self.requires_grad = bool(requires_grad) or self.history is not None
        return self

    @keeps_dtype
    def detach(self) -> "Tensor":
        """The same numbers (shared, no copy) without history: a new leaf that
        does not require grad."""
        return self._new(self._tensor)

    def retain_grad(self) -> "Tensor":
        """Keep ``.grad`` on this computed tensor after ``backward``."""
        return sf.retain_grad(self)

    # ``t.register_hook(hook)``: PyTorch's hooks (the engine's, documented there).
    register_hook = autograd.register_hook
