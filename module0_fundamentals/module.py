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

    list(Net().named_parameters())
    # [("layer1.weight", ...), ("layer1.bias", ...),
    #  ("layer2.weight", ...), ("layer2.bias", ...)]

The registration plumbing (``__setattr__``, ``__getattr__``, ``add_module``,
``__call__``, ``__repr__``) is given; you write the walks over the tree.
"""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, NamedTuple, Optional

from . import _module_moves, _module_state


class Parameter:
    """A value that training updates: a float now, a ``Scalar`` or ``Tensor`` later.

    ``Parameter(value, name=None)``. The value lives in ``.value``; replace it with
    ``.update(new_value)``. A module that stores a parameter in an attribute gives an
    unnamed parameter that attribute's name.

    When the value can track gradients (it has a ``requires_grad_`` method, as the
    ``Scalar`` of Module 1 does), the parameter switches that on, so that
    ``backward()`` fills in the derivatives an optimizer needs.

    A ``Tensor`` (Module 2) is the one value that brings its own kind of parameter:
    ``Parameter(t)`` is then a tensor itself, as ``torch.nn.Parameter`` is, so
    ``p.shape``, ``p.grad`` and ``p * x`` work on it, and ``p.value`` is ``p``.
    """

    def __new__(cls, *args: Any, **kwargs: Any) -> "Parameter":
        # The value's class may name its parameter class (``_parameter_type()``,
        # a subclass of this one): a Tensor's parameter *is* a tensor.
        value = args[0] if args else kwargs.get("value", kwargs.get("data"))
        named = getattr(type(value), "_parameter_type", None)
        if named is not None and not issubclass(cls, named()):
            cls = named()
        return object.__new__(cls)

    def __init__(self, value: Any, name: Optional[str] = None) -> None:
        self.name = name
        self.update(value)

    def update(self, value: Any) -> None:
        """Replace the value (an optimizer step calls this)."""
        self.value = value
        if hasattr(value, "requires_grad_"):  # (a Scalar of Module 1: track it)
            value.requires_grad_(True)

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
    #: Buffer names that load_state_dict lets a checkpoint leave out.
    _optional_state: tuple[str, ...] = ()

    def __init__(self) -> None:
        # Straight into __dict__: our own __setattr__ needs these dicts.
        registries = {"_modules": {}, "_parameters": {}, "_buffers": {}}
        vars(self).update(registries, _non_persistent=set(), training=True)

    # -- registration (given) ----------------------------------------------------

    def __setattr__(self, name: str, value: Any) -> None:
        if "_modules" not in self.__dict__:
            raise RuntimeError(
                f"{type(self).__name__}: call super().__init__() in __init__ before "
                f"assigning attribute {name!r}"
            )
        modules, parameters, buffers = self._modules, self._parameters, self._buffers
        if value is None:
            # ``m.bias = None`` (PyTorch allows it): no parameter or submodule
            # any more, and the attribute reads None (set below, as any other).
            parameters.pop(name, None)
            modules.pop(name, None)
        if isinstance(value, (Parameter, Module)):
            # Into its own registry (kept in place if there), out of the other.
            is_parameter = isinstance(value, Parameter)
            if is_parameter and value.name is None:
                value.name = name
            (modules if is_parameter else parameters).pop(name, None)
            buffers.pop(name, None)  # (a buffer's name given a parameter or module)
            (parameters if is_parameter else modules)[name] = value
            _mirror(self, name, value)
        elif name in buffers:
            buffers[name] = value  # a buffer stays a buffer (self.running_mean = ...)
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
        # Only called when normal lookup fails (the registered parameters and
        # submodules are mirrored in __dict__, see _mirror): look in the registries.
        for registry in ("_parameters", "_modules", "_buffers"):
            if name in self.__dict__.get(registry, {}):
                return self.__dict__[registry][name]
        raise AttributeError(
            f"{type(self).__name__!r} object has no attribute {name!r}"
        )

    def __delattr__(self, name: str) -> None:
        for entries in (self._parameters, self._modules, self._buffers):
            if name in entries:
                del entries[name]
                self.__dict__.pop(name, None)  # (the mirror, see _mirror)
                return
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
        setattr(self, name, Parameter(value, name))
        return self._parameters[name]

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

    def named_parameters(self) -> Iterator[tuple[str, Parameter]]:
        """Every parameter of the tree with its dotted name, as an iterator (as
        PyTorch's: ``next(model.named_parameters())`` is the first, ``list(...)``
        all of them); you fill the list ``found`` it iterates over.

        For each module of :meth:`named_modules`, in that order, its own parameters
        (``module._parameters``) in registration order, named
        ``"<module name>.<attribute>"``, or just ``"<attribute>"`` for this module's
        own. A parameter shared by two modules is listed once, under its first name.
        """
        found: list[tuple[str, Parameter]] = []
        # BEGIN SOLUTION 0.4: dotted names, in named_modules order, shared ones once
        seen: set[int] = set()
        for module_name, module in self.named_modules():
            for attribute, parameter in module._parameters.items():
                if id(parameter) in seen:
                    continue
                seen.add(id(parameter))
                name = f"{module_name}.{attribute}" if module_name else attribute
                found.append((name, parameter))
        # END SOLUTION
        return iter(found)

    def parameters(self) -> Iterator[Parameter]:
        """Every parameter of the tree (the parameters of named_parameters), as
        an iterator (``next(model.parameters())``, ``list(model.parameters())``)."""
        found: list[Parameter] = []
        # BEGIN SOLUTION 0.4
        found = [parameter for _, parameter in self.named_parameters()]
        # END SOLUTION
        return iter(found)

    def train(self, mode: bool = True) -> Module:
        """Set ``training = mode`` on this module, then call ``train(mode)`` on each
        child (so a child that overrides ``train``, to keep a part frozen, runs its
        own: the whole tree is reached through the children); return self."""
        # BEGIN SOLUTION 0.4
        self.training = mode
        for child in self.children():
            child.train(mode)
        return self
        # END SOLUTION

    def eval(self) -> Module:
        """Evaluation mode for the whole tree: the same as ``train(False)``."""
        # BEGIN SOLUTION 0.4
        return self.train(False)
        # END SOLUTION

    # -- buffers, state dicts and tree-wide helpers (given) ------------------------

    def register_buffer(self, name: str, value: Any, persistent: bool = True) -> None:
        """Register ``value`` as the buffer ``name``: state that is not trained (a
        running mean), read as ``self.name``, and saved in :meth:`state_dict`
        unless ``persistent=False``."""
        if isinstance(value, (Parameter, Module)):
            raise TypeError(f"buffer {name!r} must be a value, not a {value!r}")
        self.__dict__.pop(name, None)
        self._buffers[name] = value
        (self._non_persistent.discard if persistent else self._non_persistent.add)(name)

    def named_buffers(self) -> list[tuple[str, Any]]:
        """Every buffer of the tree with its dotted name (as named_parameters)."""
        return [
            (f"{module_name}.{attribute}" if module_name else attribute, value)
            for module_name, module in self.named_modules()
            for attribute, value in module.__dict__.get("_buffers", {}).items()
            if value is not None  # (register_buffer(name, None): a slot, as torch's)
        ]

    def buffers(self) -> list[Any]:
        """Every buffer of the tree."""
        return [value for _, value in self.named_buffers()]

    # state_dict (keep_vars=, prefix=) and register_parameter: given, in
    # _module_state.py.
    state_dict, register_parameter = _module_state.methods(Parameter)

    def load_state_dict(
        self, state_dict: Mapping[str, Any], strict: bool = True
    ) -> "IncompatibleKeys":
        """Copy the values of ``state_dict`` into this tree's parameters and
        buffers, in place (an optimizer holding them sees the new numbers).

        Returns ``(missing_keys, unexpected_keys)``.

        Raises:
            RuntimeError: with ``strict`` (the default), a key missing or
                unexpected; always, a shape that differs (naming the key and both
                shapes).
        """
        # {key: (module, attribute, is_parameter, value)}, the keys of state_dict()
        targets = {key: rest for key, *rest in _module_state.entries(self)}
        # Buffers a module lists in ``_optional_state`` may be absent from a
        # checkpoint (BatchNorm's num_batches_tracked, which older PyTorch
        # checkpoints lack): they keep their value and are not reported missing.
        missing = [
            key
            for key, (module, attribute, *_) in targets.items()
            if key not in state_dict and attribute not in module._optional_state
        ]
        unexpected = [key for key in state_dict if key not in targets]
        if strict and (missing or unexpected):
            raise RuntimeError(
                f"Error(s) in loading state_dict for {type(self).__name__}: "
                f"missing keys {missing}, unexpected keys {unexpected}"
            )
        for key, (module, attribute, is_parameter, current) in targets.items():
            if key not in state_dict:
                continue
            new = state_dict[key]
            if hasattr(current, "copy_") and hasattr(current, "detach"):
                # A tensor: the numbers written into it in place, through
                # ``detach()``, which shares the storage.
                shape = tuple(getattr(new, "shape", ()))
                if shape != tuple(current.shape):
                    raise RuntimeError(
                        f"size mismatch for {key}: copying a param with shape {shape} "
                        f"from checkpoint, the shape in current model is "
                        f"{tuple(current.shape)}"
                    )
                current.detach().copy_(new)
            elif is_parameter:
                module._parameters[attribute].update(new)  # (a Scalar: a leaf)
            else:
                module._buffers[attribute] = new
        return IncompatibleKeys(missing, unexpected)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradient of every parameter of the tree (``.grad = None``;
        ``set_to_none=False`` detaches and zeroes the gradient tensor in place
        instead, as PyTorch's and an optimizer's ``zero_grad``)."""
        for parameter in self.parameters():
            value = parameter.value
            if hasattr(value, "grad") and value.grad is not None:
                value.grad = None if set_to_none else value.grad.detach_().zero_()
            elif hasattr(value, "derivative"):
                value.derivative = None

    def apply(self, fn: Callable[[Module], Any]) -> Module:
        """Call ``fn`` on every submodule (children first) and then on this one,
        as PyTorch does (``model.apply(init_weights)``); returns self."""
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Switch gradient tracking of every parameter on or off (freeze a part
        of a model with ``requires_grad_(False)``); returns self."""
        for parameter in self.parameters():
            if hasattr(parameter.value, "requires_grad_"):
                parameter.value.requires_grad_(requires_grad)
        return self

    # model.to(device), .cpu(), .cuda(), .float(), .double(), .half(): given, in
    # _module_moves.py (they change every parameter and buffer in place).
    to, cpu, cuda, float, double, half, _apply = _module_moves.METHODS

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
        name, extra = type(self).__name__, self.extra_repr()
        if not self._modules:
            return f"{name}({extra})"
        children = [f"({key}): {child!r}" for key, child in self._modules.items()]
        # Every line of the settings and of the children's text indented once.
        body = "\n".join([*extra.splitlines(), *children]).replace("\n", "\n  ")
        return f"{name}(\n  {body}\n)"


class IncompatibleKeys(NamedTuple):
    """What :meth:`Module.load_state_dict` returns, as in PyTorch."""

    missing_keys: list
    unexpected_keys: list


def _mirror(module: Module, name: str, value: Any) -> None:
    """Keep the registered parameter or submodule ``name`` in ``module.__dict__``
    too, so that ``self.weight`` in a ``forward`` is an ordinary attribute lookup
    (``__getattr__`` runs only after that lookup fails). A name the class itself
    defines (a method, a property) is not mirrored: it keeps winning, as it does
    in PyTorch.

    A speed trick, kept because it pays: 0.08 us a lookup against 2.0-2.2 us
    through ``__getattr__`` (minimum of 15 x 20,000, loaded 2-core machine, issue
    26); the Task 3.5 network makes 45 such lookups an epoch, 2-3% of the epoch,
    whose margin to the 1.5x target is 1-4%. tests/module0/test_module_mirror.py
    checks that the mirror always agrees with the registries."""
    module.__dict__.pop(name, None)  # (any old mirror, or plain attribute)
    if not hasattr(type(module), name):
        module.__dict__[name] = value


class _Container(Module):
    """A container module (a list or a dict of modules or parameters): its entries
    are the registry ``_registry`` (``_modules`` or ``_parameters``), which ``len``
    counts."""

    _registry = "_modules"

    def _entries(self) -> dict:
        return self.__dict__[self._registry]

    def __len__(self) -> int:
        return len(self._entries())


class _ModuleSequence(_Container):
    """What ``Sequential``, ``ModuleList`` and ``ParameterList`` share over
    their entries (named ``"0"``, ``"1"``, ...): ``len``, iteration, ``seq[i]``
    (negative counts from the end) and ``seq[a:b]`` (a container of the same
    kind, its entries renumbered, or keeping their names where
    ``_keep_names``, as PyTorch's ``Sequential``)."""

    _keep_names = False

    def __iter__(self) -> Iterator[Any]:
        return iter(list(self._entries().values()))

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            part = type(self)()
            for name, entry in list(self._entries().items())[index]:
                setattr(part, name if self._keep_names else str(len(part)), entry)
            return part
        index = operator.index(index)  # (as torch: TypeError for a non-integer)
        if not -len(self) <= index < len(self):
            raise IndexError(
                f"index {index} is out of range for {type(self).__name__} of "
                f"length {len(self)}"
            )
        return list(self._entries().values())[index]

    def __delitem__(self, index: int | slice) -> None:
        """``del seq[i]`` or ``del seq[a:b]``: the entries left are renumbered
        ``"0"``, ``"1"``, ... (as PyTorch's, even a Sequential's named ones)."""
        kept = list(self)
        del kept[index]
        for name in list(self._entries()):
            delattr(self, name)
        self.extend(kept)

    def insert(self, index: int, entry: Any) -> Any:
        """Put ``entry`` before ``seq[index]`` (as ``list.insert``: a negative
        index counts from the end, one past either end clamps), renumbering the
        entries ``"0"``, ``"1"``, ...; return self."""
        self.append(entry)  # (checked, or wrapped, as append does)
        entries = list(self)
        entries.insert(index, entries.pop())
        del self[:]
        return self.extend(entries)

    def extend(self, entries: Iterable[Any]) -> Any:
        """Append every entry of ``entries``; return self."""
        for entry in entries:
            self.append(entry)
        return self


class Sequential(_ModuleSequence):
    """Modules applied one after another: ``Sequential(a, b, c)(x) == c(b(a(x)))``.

    The modules are registered as children ``"0"``, ``"1"``, ..., or under the
    keys of one ``OrderedDict`` (``Sequential(OrderedDict([("fc", ...), ...]))``,
    as PyTorch's); ``seq[i]``, ``len(seq)`` and ``for m in seq`` work as for a
    list, and a slice keeps the modules' names (``seq[::2]``: ``"0"``, ``"2"``).
    """

    _keep_names = True

    def __init__(self, *modules: Module | OrderedDict[str, Module]) -> None:
        super().__init__()
        one_dict = len(modules) == 1 and isinstance(modules[0], OrderedDict)
        for name, module in modules[0].items() if one_dict else enumerate(modules):
            self.add_module(str(name), module)

    def append(self, module: Module) -> Sequential:
        """Add ``module`` at the end (the child named by its index); return self."""
        self.add_module(str(len(self)), module)
        return self

    def forward(self, x: Any) -> Any:
        """Feed ``x`` through the modules in order; the empty Sequential returns x."""
        # BEGIN SOLUTION 0.4: feed x through each module in order
        for module in self._modules.values():
            x = module(x)
        return x
        # END SOLUTION


class ModuleList(_ModuleSequence):
    """A list of modules whose parameters the tree sees: ``ModuleList([a, b])``.

    A plain Python list of modules would hide them from ``named_parameters``; a
    ``ModuleList`` registers them as children ``"0"``, ``"1"``, ... It has no
    ``forward``: the owner decides how to use its modules.
    """

    def __init__(self, modules: Iterable[Module] = ()) -> None:
        super().__init__()
        self.extend(modules)

    def append(self, module: Module) -> ModuleList:
        """Add ``module`` at the end (as the child named by its index); return self.

        Use :meth:`add_module`, which rejects anything that is not a Module.
        """
        # BEGIN SOLUTION 0.4: register module as the child named str(len(self))
        self.add_module(str(len(self)), module)
        return self
        # END SOLUTION
