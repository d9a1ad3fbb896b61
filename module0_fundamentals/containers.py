"""The containers of the module tree that no task asks for (given, as PyTorch's):
``ModuleDict``, ``ParameterList`` and ``ParameterDict``. Each keeps its entries in
one registry of :class:`~module0_fundamentals.module.Module` (``_modules`` or
``_parameters``), so the tree's walks (Task 0.4) see them."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Optional

from .module import Module, Parameter, _Container, _ModuleSequence

__all__ = ["ModuleDict", "ParameterList", "ParameterDict"]


class _Registry(_Container):
    """What a dict of named entries shares, over the registry ``_registry``:
    ``d[key]``, ``del d[key]``, ``len``, ``in``, iteration over the keys,
    ``keys()``, ``values()``, ``items()`` (insertion order) and ``update``."""

    def __getitem__(self, key: str) -> Any:
        return self._entries()[key]

    def __delitem__(self, key: str) -> None:
        delattr(self, key)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._entries()))

    def keys(self) -> list[str]:
        return list(self._entries())

    def values(self) -> list:
        return list(self._entries().values())

    def items(self) -> list[tuple[str, Any]]:
        return list(self._entries().items())

    def update(self, entries: Any) -> None:
        """Set every ``key, value`` of a mapping or of an iterable of pairs (what
        ``dict()`` takes), in order."""
        for key, value in dict(entries).items():
            self[key] = value


class ModuleDict(_Registry):
    """A dict of modules whose parameters the tree sees: ``ModuleDict({"enc":
    a, "dec": b})``; ``md["enc"]``, ``md["x"] = m``, ``len``, ``in``,
    ``keys()``, ``values()``, ``items()``, ``update`` and iteration over the keys
    work as for a dict (insertion order)."""

    def __init__(self, modules: Optional[Mapping[str, Module]] = None) -> None:
        super().__init__()
        self.update(modules or {})

    def __setitem__(self, name: str, module: Module) -> None:
        self.add_module(name, module)


class ParameterDict(_Registry):
    """A dict of parameters the tree sees, named by their keys, as
    ``nn.ParameterDict``: ``pd["w"] = Parameter(t)`` (a plain value is wrapped),
    ``pd["w"]``, ``del``, ``len``, ``in``, iteration over the keys, ``keys``,
    ``values``, ``items``, ``update``, ``get`` and ``pop``."""

    _registry = "_parameters"

    def __init__(self, parameters: Optional[Mapping[str, Any]] = None) -> None:
        super().__init__()
        self.update(parameters or {})

    def __setitem__(self, key: str, value: Any) -> None:
        parameter = value if isinstance(value, Parameter) else Parameter(value)
        self.register_parameter(key, parameter)

    def get(self, key: str, default: Any = None) -> Any:
        return self._parameters.get(key, default)

    def pop(self, key: str) -> Parameter:
        value = self[key]
        del self[key]
        return value


class ParameterList(_ModuleSequence):
    """A list of parameters the tree sees, named ``"0"``, ``"1"``, ...:
    ``ParameterList([Parameter(a), Parameter(b)])`` (plain values are wrapped);
    ``pl[i]``, ``pl[a:b]``, ``len``, iteration, ``append`` and ``extend`` work
    as for a list (and ``insert`` and ``del``, which PyTorch's lacks)."""

    _registry = "_parameters"

    def __init__(self, values: Iterable[Any] = ()) -> None:
        super().__init__()
        self.extend(values)

    def append(self, value: Any) -> ParameterList:
        parameter = value if isinstance(value, Parameter) else Parameter(value)
        setattr(self, str(len(self)), parameter)
        return self
