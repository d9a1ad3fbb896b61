"""``Module.state_dict`` and ``Module.register_parameter`` (private: given code
of Task 0.4's ``Module``, kept out of the file students edit)."""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Callable, Iterator, Optional, Tuple

if TYPE_CHECKING:
    from .module import Module


def entries(
    module: "Module", start: str = ""
) -> Iterator[Tuple[str, "Module", str, bool, Any]]:
    """``(dotted name, module, attribute, is_parameter, value)`` for every
    parameter and persistent buffer of the tree, in ``state_dict``'s order
    (``load_state_dict`` writes them back). A module reached by two paths (a shared
    layer) is listed under both names, as PyTorch's ``state_dict`` lists it."""
    for attribute, parameter in module._parameters.items():
        yield start + attribute, module, attribute, True, parameter.value
    for attribute, value in module._buffers.items():
        if value is not None and attribute not in module._non_persistent:
            yield start + attribute, module, attribute, False, value
    for name, child in module.named_children():
        yield from entries(child, f"{start}{name}.")


def state_dict(
    self: "Module",
    destination: Optional[OrderedDict] = None,
    prefix: str = "",
    keep_vars: bool = False,
) -> "OrderedDict[str, Any]":
    """``{dotted name: value}`` of every parameter and persistent buffer, like
    PyTorch's: tensors are detached but share their numbers with the model
    (save a copy, e.g. with ``kt.save``-style code, to keep them);
    ``keep_vars=True`` gives the parameters and buffers themselves (attached to
    the graph). ``prefix`` starts every key; ``destination`` is filled and
    returned when given."""
    state = OrderedDict() if destination is None else destination
    for key, *_, value in entries(self):
        detach = not keep_vars and hasattr(value, "detach")
        state[prefix + key] = value.detach() if detach else value
    return state


def methods(parameter_type: type) -> Tuple[Callable, Callable]:
    """``(state_dict, register_parameter)`` for ``Module``, whose parameters
    are instances of ``parameter_type`` (``Parameter``, passed in because
    ``module.py`` imports this file)."""

    def register_parameter(self: "Module", name: str, param: Any) -> None:
        """Register ``param`` as the parameter ``name`` (as assigning the
        attribute does); ``None`` leaves the attribute ``None`` and no parameter,
        as ``m.bias = None``. PyTorch's checks and messages.

        Raises:
            TypeError: ``param`` is neither a Parameter nor ``None``.
            KeyError: an empty name, a name with ".", or one that is already a
                non-parameter attribute.
        """
        if param is not None and not isinstance(param, parameter_type):
            raise TypeError(
                f"cannot assign '{type(param).__name__}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        if not isinstance(name, str) or not name or "." in name:
            raise KeyError(
                f'parameter name can\'t be empty or contain ".", got: {name}'
            )
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        setattr(self, name, param)  # (None: as ``m.bias = None``)

    return state_dict, register_parameter
