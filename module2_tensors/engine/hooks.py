"""Tensor hooks (engine layer): ``t.register_hook(hook)``, PyTorch's way to see
and replace a gradient during ``backward``. A hook is installed on one tensor
alone (the leaf's own ``accumulate_derivative``, or a subclass of the computed
tensor's function), so tensors without hooks pay nothing on the backward pass.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, List

from .autograd import accumulate_derivative

if TYPE_CHECKING:
    from ..tensor import Tensor


def register_hook(t: "Tensor", hook: Callable[["Tensor"], Any]) -> "HookHandle":
    """``t.register_hook(hook)``: call ``hook(grad)`` with $\\partial L /
    \\partial t$ during ``backward``, as PyTorch does; a tensor it returns
    replaces the gradient (for a leaf, before it is added into ``.grad``).
    Returns a handle whose ``remove()`` takes the hook away.

    Installed on ``t`` alone (its own ``accumulate_derivative`` for a leaf, a
    subclass of its function for a computed tensor), so tensors without hooks
    pay nothing.

    Raises:
        RuntimeError: ``t`` does not require grad.
    """
    if not t.requires_grad:
        raise RuntimeError(
            "cannot register a hook on a tensor that doesn't require gradient"
        )
    hooks = t.__dict__.get("_hooks")
    if hooks is None:
        hooks = t.__dict__["_hooks"] = []
        if t.history is None:
            t.accumulate_derivative = lambda d: accumulate_derivative(
                t, run_hooks(hooks, d.to(t.dtype))  # (a float32 t: a float32 d)
            )
        else:
            fn, dtype = t.history.last_fn, t.dtype

            def backward(cls: type, ctx: Any, d_output: "Tensor", count: int) -> Any:
                # ``fn._backward`` with the hooks run on the incoming gradient.
                return fn._backward(ctx, run_hooks(hooks, d_output.to(dtype)), count)

            methods = {"_backward": classmethod(backward)}
            t.history.last_fn = type(fn.__name__, (fn,), methods)
    hooks.append(hook)
    return HookHandle(hooks, hook)


def run_hooks(hooks: List[Callable[["Tensor"], Any]], grad: "Tensor") -> "Tensor":
    """``grad`` passed through ``hooks`` in order (a hook's tensor replaces it)."""
    for hook in list(hooks):
        if (replaced := hook(grad)) is not None:
            grad = replaced
    return grad


class HookHandle:
    """What ``register_hook`` returns: ``handle.remove()``."""

    def __init__(self, hooks: List[Any], hook: Any) -> None:
        self.hooks, self.hook = hooks, hook

    def remove(self) -> None:
        if self.hook in self.hooks:
            self.hooks.remove(self.hook)
