"""``Context``: what a ``ScalarFunction``'s ``forward`` leaves for its ``backward``
(given). The ``Function``s of ``Tensor`` (Module 2 and later) get one with the same
interface from their engine (``module2_tensors/engine/autograd.py``)."""

from __future__ import annotations

from typing import Any, Tuple

__all__ = ["Context"]


class Context:
    """What a function's ``forward`` leaves behind for its ``backward``.

    ``forward(ctx, ...)`` calls ``ctx.save_for_backward(a, b)``; ``backward`` reads
    ``a, b = ctx.saved_values``. ``needs_input_grad[i]`` tells whether input ``i``
    needs a derivative at all (PyTorch's name), so a backward may skip work.
    The saved values are kept after a backward pass, so a scalar graph can be
    walked backward again.
    """

    # One is made per operation: its attributes live in slots, quicker to set and
    # read than dict entries (``__dict__`` takes any other, as PyTorch's ctx does).
    __slots__ = ("needs_input_grad", "saved_values", "__dict__", "__weakref__")

    def __init__(self, needs_input_grad: Tuple[bool, ...] = ()) -> None:
        self.needs_input_grad: Tuple[bool, ...] = tuple(needs_input_grad)
        self.saved_values: Tuple[Any, ...] = ()

    def save_for_backward(self, *values: Any) -> None:
        """Store ``values`` for the backward pass (read back as ``saved_values``)."""
        self.saved_values = values

    @property
    def requires_grad(self) -> bool:
        """True when at least one input needs a derivative."""
        return any(self.needs_input_grad)
