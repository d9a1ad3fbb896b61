"""``Module.to``, ``cpu``, ``cuda``, ``float`` and ``double`` (private: given
code of Task 0.4's ``Module``, kept out of the file students edit).

Each changes every parameter and buffer of the tree that has a ``.to`` method (a
tensor), in place: a parameter through ``update`` (so an optimizer made earlier
still holds it), a buffer by replacing it. Values without ``.to`` (floats,
Scalars) are left alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from .module import Module

__all__ = ["METHODS"]


def to(self, *args: Any, **kwargs: Any) -> "Module":
    """Move or convert every parameter and buffer that has a ``.to`` method,
    as ``model.to(device)`` / ``model.to(dtype)`` in PyTorch; returns self.
    Parameters are changed in place (an optimizer made earlier keeps them)."""
    return self._apply(lambda value: value.to(*args, **kwargs))


def cpu(self) -> "Module":
    """``to("cpu")``: every parameter and buffer on the CPU; returns self."""
    return self._apply(lambda value: value.cpu())


def cuda(self, device: Any = None) -> "Module":
    """``to("cuda")``: every parameter and buffer on the GPU; returns self."""
    return self._apply(lambda value: value.cuda())


def float_(self) -> "Module":
    """Floating-point parameters and buffers as float32; returns self."""
    return self._apply(lambda value: value.float(), floating_only=True)


def double(self) -> "Module":
    """Floating-point parameters and buffers as float64; returns self."""
    return self._apply(lambda value: value.double(), floating_only=True)


def _apply(self, fn: Callable[[Any], Any], floating_only: bool = False) -> "Module":
    """Replace every tensor-like parameter value and buffer ``v`` (one with a
    ``to`` method) by ``fn(v)``: parameters through ``update`` (in place)."""

    def applies(value: Any) -> bool:
        if not hasattr(value, "to"):
            return False
        return not floating_only or value.is_floating_point()

    for module in self.modules():
        for parameter in module._parameters.values():
            if applies(parameter.value):
                parameter.update(fn(parameter.value))
        buffers = module.__dict__.get("_buffers", {})
        for name, value in buffers.items():
            if applies(value):
                buffers[name] = fn(value)
    return self


METHODS = (to, cpu, cuda, float_, double, _apply)
