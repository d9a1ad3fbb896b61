"""Module and Parameter: the tree that holds a model's weights (Task 0.4).

A network is a tree of modules. Each ``Module`` owns some ``Parameter`` objects (the
numbers training changes) and some child modules, registered simply by assigning them
as attributes, exactly as in PyTorch::

    class Affine(Module):
        def __init__(self):
            super().__init__()
            self.weight = Parameter(2.0)
            self.bias = Parameter(0.5)

        def forward(self, x):
            return self.weight.value * x + self.bias.value

    class Net(Module):
        def __init__(self):
            super().__init__()
            self.layer1 = Affine()
            self.layer2 = Affine()

        def forward(self, x):
            return self.layer2(self.layer1(x))

    Net().named_parameters()
    # [("layer1.weight", ...), ("layer1.bias", ...),
    #  ("layer2.weight", ...), ("layer2.bias", ...)]

The registration plumbing (``__setattr__``, ``__getattr__``, ``add_module``,
``__call__``, ``__repr__``) is given; you write the walks over the tree.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Optional


class Parameter:
    """A value that training updates: a float now, a ``Scalar`` or ``Tensor`` later.

    ``Parameter(value, name=None)``. The value lives in ``.value``; replace it with
    ``.update(new_value)``. A module that stores a parameter in an attribute gives an
    unnamed parameter that attribute's name.

    When the value can track gradients (it has a ``requires_grad_`` method, as the
    ``Scalar`` of Module 1 and the ``Tensor`` of Module 2 do), the parameter switches
    that on, so that ``backward()`` fills in the derivatives an optimizer needs.
    """

    def __init__(self, value: Any, name: Optional[str] = None) -> None:
        self.name = name
        self.value = value
        self._track_gradient()

    def update(self, value: Any) -> None:
        """Replace the value (an optimizer step calls this)."""
        self.value = value
        self._track_gradient()

    def _track_gradient(self) -> None:
        if hasattr(self.value, "requires_grad_"):
            self.value.requires_grad_(True)

    def __repr__(self) -> str:
        named = "" if self.name is None else f", name={self.name!r}"
        return f"Parameter({self.value!r}{named})"


class Module:
    """Base class of every model: a node of the module tree.

    Attributes:
        training: ``True`` in training mode, ``False`` in evaluation mode (layers such
            as dropout behave differently); set on a whole tree by :meth:`train` and
            :meth:`eval`.
        _modules: the direct children, ``{attribute name: Module}``, in the order they
            were assigned.
        _parameters: this module's own parameters (not its children's),
            ``{attribute name: Parameter}``, in the order they were assigned.

    Subclasses call ``super().__init__()`` first, assign parameters and submodules as
    attributes, and define ``forward``; calling the module runs ``forward``.
    """

    training: bool

    def __init__(self) -> None:
        # object.__setattr__ skips our own __setattr__, which needs these dicts.
        object.__setattr__(self, "_modules", {})
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "training", True)

    # -- registration (given) ----------------------------------------------------

    def __setattr__(self, name: str, value: Any) -> None:
        registries = self.__dict__
        if "_modules" not in registries:
            raise RuntimeError(
                f"{type(self).__name__}: call super().__init__() in __init__ before "
                f"assigning attribute {name!r}"
            )
        modules, parameters = registries["_modules"], registries["_parameters"]
        if isinstance(value, Parameter):
            if value.name is None:
                value.name = name
            modules.pop(name, None)
            registries.pop(name, None)
            parameters[name] = value
        elif isinstance(value, Module):
            parameters.pop(name, None)
            registries.pop(name, None)
            modules[name] = value
        elif name in parameters:
            # A common slip: `self.w = 0.3` meant to change the weight, but it would
            # silently take the parameter out of training.
            raise TypeError(
                f"cannot assign {type(value).__name__} to parameter {name!r} of "
                f"{type(self).__name__}: assign a Parameter, or use "
                f"self.{name}.update(value)"
            )
        elif name in modules:
            raise TypeError(
                f"cannot assign {type(value).__name__} to submodule {name!r} of "
                f"{type(self).__name__}: assign a Module, or `del` it first"
            )
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        # Only called when normal lookup fails: look in the registries.
        registries = self.__dict__
        if name in registries.get("_parameters", {}):
            return registries["_parameters"][name]
        if name in registries.get("_modules", {}):
            return registries["_modules"][name]
        raise AttributeError(
            f"{type(self).__name__!r} object has no attribute {name!r}"
        )

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def add_module(self, name: str, module: Module) -> None:
        """Register ``module`` as the child ``name`` (like assigning an attribute).

        Useful when the name is not an identifier, e.g. ``"0"`` in a ``Sequential``.
        """
        if not isinstance(module, Module):
            raise TypeError(
                f"{type(self).__name__}.add_module({name!r}, ...): expected a Module, "
                f"got {type(module).__name__}"
            )
        setattr(self, name, module)

    def add_parameter(self, name: str, value: Any) -> Parameter:
        """Register ``Parameter(value, name)`` as the attribute ``name``; return it."""
        parameter = Parameter(value, name)
        setattr(self, name, parameter)
        return parameter

    def named_children(self) -> list[tuple[str, Module]]:
        """The direct submodules with their attribute names, in registration order."""
        return list(self._modules.items())

    # -- the tree walks (Task 0.4) -----------------------------------------------

    def children(self) -> list[Module]:
        """The direct submodules, in registration order (not grandchildren)."""
        # BEGIN SOLUTION 0.4
        return [module for _, module in self.named_children()]
        # END SOLUTION

    def named_modules(self) -> list[tuple[str, Module]]:
        """Every module of the tree with its dotted name, this module first.

        A pre-order walk: a module comes before its descendants, and siblings come in
        registration order. This module's name is ``""``; a child's name is its
        attribute name, a grandchild's ``"child.grandchild"``, and so on::

            [("", net), ("layer1", net.layer1), ("layer1.inner", ...), ("layer2", ...)]

        A module reachable by two paths (shared, e.g. the same layer used twice) is
        listed once, under the first name found, as in PyTorch.
        """
        # BEGIN SOLUTION 0.4: a pre-order walk with dotted names, shared modules once
        found: list[tuple[str, Module]] = []
        seen: set[int] = set()

        def visit(module: Module, name: str) -> None:
            if id(module) in seen:
                return
            seen.add(id(module))
            found.append((name, module))
            for child_name, child in module.named_children():
                visit(child, f"{name}.{child_name}" if name else child_name)

        visit(self, "")
        return found
        # END SOLUTION

    def modules(self) -> list[Module]:
        """Every module of the tree, this one first (the modules of named_modules)."""
        # BEGIN SOLUTION 0.4
        return [module for _, module in self.named_modules()]
        # END SOLUTION

    def named_parameters(self) -> list[tuple[str, Parameter]]:
        """Every parameter of the tree with its dotted name.

        For each module of :meth:`named_modules`, in that order, its own parameters
        (``module._parameters``) in registration order, named
        ``"<module name>.<attribute>"``, or just ``"<attribute>"`` for this module's
        own. A parameter shared by two modules is listed once, under its first name.
        """
        # BEGIN SOLUTION 0.4: dotted names, in named_modules order, shared ones once
        found: list[tuple[str, Parameter]] = []
        seen: set[int] = set()
        for module_name, module in self.named_modules():
            for attribute, parameter in module._parameters.items():
                if id(parameter) in seen:
                    continue
                seen.add(id(parameter))
                name = f"{module_name}.{attribute}" if module_name else attribute
                found.append((name, parameter))
        return found
        # END SOLUTION

    def parameters(self) -> list[Parameter]:
        """Every parameter of the tree (the parameters of named_parameters)."""
        # BEGIN SOLUTION 0.4
        return [parameter for _, parameter in self.named_parameters()]
        # END SOLUTION

    def train(self, mode: bool = True) -> Module:
        """Set ``training = mode`` on this module and every descendant; return self."""
        # BEGIN SOLUTION 0.4
        for module in self.modules():
            module.training = mode
        return self
        # END SOLUTION

    def eval(self) -> Module:
        """Evaluation mode for the whole tree: the same as ``train(False)``."""
        # BEGIN SOLUTION 0.4
        return self.train(False)
        # END SOLUTION

    # -- calling and printing (given) --------------------------------------------

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """What calling the module computes. Every subclass defines its own."""
        raise RuntimeError(
            f"{type(self).__name__} has no forward() method: define "
            f"forward(self, ...) in the class to say what calling it computes"
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    def extra_repr(self) -> str:
        """The text inside the parentheses of ``repr`` (override to show settings)."""
        return ""

    def __repr__(self) -> str:
        # A tree, one child per line, like PyTorch:
        #   Net(
        #     (layer1): Affine()
        #     (layer2): Affine()
        #   )
        # The registry is read directly, so printing works before Task 0.4 is done.
        name = type(self).__name__
        extra = self.extra_repr()
        lines = extra.splitlines() if extra else []
        for child_name, child in self._modules.items():
            child_text = repr(child).replace("\n", "\n  ")
            lines.append(f"({child_name}): {child_text}")
        if not self._modules:
            return f"{name}({extra})"
        body = "\n  ".join(lines)
        return f"{name}(\n  {body}\n)"


def _child_at(container: Module, index: int) -> Module:
    """The child at position ``index`` (negative counts from the end)."""
    children = list(container._modules.values())
    if not isinstance(index, int):
        raise TypeError(
            f"{type(container).__name__} indices must be integers or slices, "
            f"not {type(index).__name__}"
        )
    if not -len(children) <= index < len(children):
        raise IndexError(
            f"index {index} is out of range for {type(container).__name__} of "
            f"length {len(children)}"
        )
    return children[index]


class Sequential(Module):
    """Modules applied one after another: ``Sequential(a, b, c)(x) == c(b(a(x)))``.

    The modules are registered as children ``"0"``, ``"1"``, ...; ``seq[i]``,
    ``len(seq)`` and ``for m in seq`` work as for a list.
    """

    def __init__(self, *modules: Module) -> None:
        super().__init__()
        for index, module in enumerate(modules):
            self.add_module(str(index), module)

    def forward(self, x: Any) -> Any:
        """Feed ``x`` through the modules in order; the empty Sequential returns x."""
        # BEGIN SOLUTION 0.4: feed x through each module in order
        for module in self._modules.values():
            x = module(x)
        return x
        # END SOLUTION

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(list(self._modules.values()))

    def __getitem__(self, index: int | slice) -> Module:
        if isinstance(index, slice):
            return Sequential(*list(self._modules.values())[index])
        return _child_at(self, index)


class ModuleList(Module):
    """A list of modules whose parameters the tree sees: ``ModuleList([a, b])``.

    A plain Python list of modules would hide them from ``named_parameters``; a
    ``ModuleList`` registers them as children ``"0"``, ``"1"``, ... It has no
    ``forward``: the owner decides how to use its modules.
    """

    def __init__(self, modules: Iterable[Module] = ()) -> None:
        super().__init__()
        for module in modules:
            self.append(module)

    def append(self, module: Module) -> ModuleList:
        """Add ``module`` at the end (as the child named by its index); return self.

        Use :meth:`add_module`, which rejects anything that is not a Module.
        """
        # BEGIN SOLUTION 0.4: register module as the child named str(len(self))
        self.add_module(str(len(self)), module)
        return self
        # END SOLUTION

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        """Append every module of ``modules``; return self."""
        for module in modules:
            self.append(module)
        return self

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(list(self._modules.values()))

    def __getitem__(self, index: int | slice) -> Module:
        if isinstance(index, slice):
            return ModuleList(list(self._modules.values())[index])
        return _child_at(self, index)
