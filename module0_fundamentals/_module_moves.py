"""``Module.to``, ``cpu``, ``cuda``, ``float``, ``double`` and ``half`` (private: given
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


def _is_dtype(arg: Any) -> bool:
    """Whether ``arg`` is a dtype: its ``is_floating_point`` is a flag, as
    ``kt.float32``'s (a tensor's is a method)."""
    return isinstance(getattr(arg, "is_floating_point", None), bool)


def to(self, *args: Any, **kwargs: Any) -> "Module":
    """Move or convert every parameter and buffer that has a ``.to`` method,
    as ``model.to(device)`` / ``model.to(dtype)`` in PyTorch; returns self.
    Parameters are changed in place (an optimizer made earlier keeps them).
    As in PyTorch, a dtype converts the floating-point values only (an integer
    buffer keeps its dtype, and moves to the device if one is given).

    Raises:
        TypeError: a dtype that is not floating point (PyTorch's message).
    """
    dtype = next(filter(_is_dtype, (*args, kwargs.get("dtype"))), None)
    if dtype is not None and not dtype.is_floating_point:
        raise TypeError(
            f"nn.Module.to only accepts floating point or complex dtypes, but got "
            f"desired dtype={dtype}"
        )
    # What a value that is not floating point is given: the arguments but the dtype.
    rest = tuple(a for a in args if a is not dtype)
    rest_kwargs = {k: v for k, v in kwargs.items() if k != "dtype"}

    def convert(value: Any) -> Any:
        if value.is_floating_point():
            return value.to(*args, **kwargs)
        return value.to(*rest, **rest_kwargs) if rest or rest_kwargs else value

    return self._apply(convert)


def cpu(self) -> "Module":
    """``to("cpu")``: every parameter and buffer on the CPU; returns self."""
    return self._apply(lambda value: value.cpu())


def cuda(self, device: Any = None) -> "Module":
    """``to("cuda")``: every parameter and buffer on the GPU; returns self."""
    return self._apply(lambda value: value.cuda())


def float_(self) -> "Module":
    """Floating-point parameters and buffers as float32; returns self."""
    return self._apply(lambda v: v.float() if v.is_floating_point() else v)


def double(self) -> "Module":
    """Floating-point parameters and buffers as float64; returns self."""
    return self._apply(lambda v: v.double() if v.is_floating_point() else v)


def half(self) -> "Module":
    """Floating-point parameters and buffers as float16; returns self."""
    return self._apply(lambda v: v.half() if v.is_floating_point() else v)


def _apply(self, fn: Callable[[Any], Any]) -> "Module":
    """Replace every tensor-like parameter value and buffer ``v`` (one with a
    ``to`` method) by ``fn(v)``: parameters through ``update`` (in place)."""
    for module in self.modules():
        for parameter in module._parameters.values():
            if hasattr(parameter.value, "to"):
                parameter.update(fn(parameter.value))
        for name, value in module._buffers.items():
            if hasattr(value, "to"):
                module._buffers[name] = fn(value)
    return self


METHODS = (to, cpu, cuda, float_, double, half, _apply)
