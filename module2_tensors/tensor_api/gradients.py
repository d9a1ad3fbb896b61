"""The autograd surface of a tensor: ``backward``, ``.grad``, ``requires_grad``,
``detach``, hooks, ``retain_grad``. The backward pass is the engine's
(``engine/autograd.py``): ``backward``, ``register_hook`` and the members Module
1's ``backpropagate`` walks (``is_leaf``, ``is_constant``, ``parents``,
``chain_rule``, ``accumulate_derivative``) are its functions, bound here as
methods."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from .. import shape_functions as sf
from ..engine import autograd, hooks, versions
from .core import CoreMixin
from .dtype_device import keeps_dtype

if TYPE_CHECKING:
    from ..tensor import Tensor


class GradientMixin:
    """What a tensor offers for gradients; the backward pass itself is the
    engine's."""

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
                "you can only change requires_grad flags of leaf tensors: "
                "requires_grad_(False) only works on leaves; use .detach() to get "
                "a computed tensor without history"
            )
        if value and not self.is_floating_point():
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
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
        # shape) and dtype, as PyTorch's, keeping t's history and flags;
        # ``w.data -= ...`` ends here, with the very storage w already has.
        if not isinstance(value, CoreMixin):
            raise TypeError(f"data must be a Tensor, got {type(value).__name__}")
        self._tensor = value.to(self.backend)._tensor  # (itself if there already)
        self._dtype, self.is_mask = value._dtype, value.is_mask

    # How many in-place operations changed this tensor's storage (shared by its
    # views), PyTorch's ``t._version``.
    _version = property(versions.version_of)

    # The protocol that Module 1's topological_sort and backpropagate (Task 1.4)
    # walk, as they walk Scalars: the engine's functions, bound as methods here,
    # so the backward pass calls the engine directly (no method in between).
    is_leaf = property(autograd.is_leaf)
    is_constant = autograd.is_constant
    parents = property(autograd.parents)
    chain_rule = autograd.chain_rule
    accumulate_derivative = autograd.accumulate_derivative

    # ``t.backward(grad)``: the engine's, from checking ``grad`` to the pass
    # (as ``torch.autograd.backward`` is ``torch.Tensor.backward``'s body).
    backward = autograd.backward

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        """Switch gradient tracking of a leaf on or off, in place; returns
        ``self``. A frozen leaf (``False``) is a constant: its ``.grad`` stays
        ``None``.

        Raises:
            RuntimeError: switching off a computed (non-leaf) tensor.
        """
        self.requires_grad = requires_grad  # (the setter checks)
        return self

    @keeps_dtype
    def detach(self) -> "Tensor":
        """The same numbers (shared, no copy) without history: a new leaf that
        does not require grad."""
        return self._new(self._tensor)

    # Keep ``.grad`` on this computed tensor after ``backward`` (Task 2.6).
    retain_grad = sf.retain_grad

    # ``t.register_hook(hook)``: PyTorch's hooks (the engine's, documented there).
    register_hook = hooks.register_hook
