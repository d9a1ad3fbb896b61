"""The key of a compiled kernel's disk cache: what the kernel really depends on.

Numba's own on-disk cache (``njit(cache=True)``) checks only the *file* a function
is defined in: a kernel made by ``tensor_map(operators.exp)`` inlines Module 0's
``exp`` and Module 2's index helpers, and an edit of either would go unnoticed, so a
student could run stale code. It also cannot tell apart the closures one factory
returns for different scalar functions.

:func:`kernel_key` starts from the kernel's Python function, follows every
function, Numba dispatcher and closure value the code refers to (the inlined
scalar function, the index helpers, the per-worker slice functions) and hashes

- the compiled form (bytecode, constants, names) of each of those functions, and
  nothing else of their files,
- the options of every Numba dispatcher among them and of the kernel itself
  (``parallel``, ``fastmath``, ``inline``), and
- the values of the plain constants they read (``MIN_PARALLEL_WORK``, closure
  numbers), since Numba freezes them into the machine code.

An edit of any function the kernel runs or inlines gives a new key, and the kernel
is compiled again: a student never runs stale code. An edit elsewhere in the same
file (another kernel, a docstring of the file, lines moving) leaves the key alone,
so finishing Task 3.2's matmul recompiles the matmul, not the file's other 20
kernels. A kernel whose closure holds something that cannot be described this way
is not cached (``None``); a class of ours that it reads is covered by its whole
file. ``kernel_cache.persist`` (CPU kernels) and ``_cuda_cache.persist`` (CUDA
kernels) key their disk caches with it.
"""

import contextlib
import hashlib
import sys
import types
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

#: Top-level packages whose code is not the course's: not hashed, not followed
#: (the standard library's names include ``builtins``).
_EXTERNAL = frozenset(sys.stdlib_module_names) | {
    "numba",
    "numpy",
    "llvmlite",
    "scipy",
}


def _is_external(module: Optional[str]) -> bool:
    return (module or "builtins").split(".")[0] in _EXTERNAL


def _code_names(code: types.CodeType) -> List[str]:
    """The global names a code object (and the functions nested in it) reads."""
    nested = [c for c in code.co_consts if isinstance(c, types.CodeType)]
    return list(code.co_names) + [name for c in nested for name in _code_names(c)]


_SIMPLE = (bool, int, float, complex, str, bytes, type(None), np.generic)


def _stable_repr(value: Any) -> str:
    """``repr`` that is the same in every process: sets (``fastmath={...}``) are
    sorted, since their order follows the per-process string hash seed (a dict's
    follows its insertions)."""
    if isinstance(value, (set, frozenset)):
        return "{" + ", ".join(sorted(_stable_repr(v) for v in value)) + "}"
    if isinstance(value, (list, tuple)):
        return type(value).__name__ + "(" + ", ".join(map(_stable_repr, value)) + ")"
    return repr(value)


#: What a code object's digest covers beside its bytecode and constants.
_CODE_FIELDS = (
    "names varnames freevars cellvars argcount posonlyargcount kwonlyargcount flags"
).split()


def _code_digest(code: types.CodeType) -> str:
    """SHA-256 of what Numba compiles from a code object: its bytecode, constants
    (nested functions' code included), names and argument layout. Line numbers
    are left out: moving a function in its file does not change its machine code."""
    parts: List[str] = [code.co_code.hex()]
    parts += [repr(getattr(code, f"co_{name}")) for name in _CODE_FIELDS]
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            parts.append("code:" + _code_digest(const))
        else:  # the type too: 1, 1.0 and True compare equal
            parts.append(f"{type(const).__name__}:{_stable_repr(const)}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


class _Describer:
    """Walks what a kernel depends on; collects the facts to hash (functions'
    code, dispatcher options, constants); ``seen`` holds the functions
    described."""

    def __init__(self) -> None:
        self.facts: List[str] = []
        self.seen: set = set()  # functions described
        self.visits: set = set()  # (module, names) described

    def value(self, name: str, value: Any, attributes: Sequence[str] = ()) -> None:
        items = value if isinstance(value, tuple) else (value,)
        if all(isinstance(v, _SIMPLE) for v in items):
            self.facts.append(f"{name}={value!r}")
        elif isinstance(value, np.ndarray):
            digest = hashlib.sha256(np.ascontiguousarray(value).tobytes()).hexdigest()
            self.facts.append(f"{name}=array{value.shape}{value.dtype}{digest}")
        elif hasattr(value, "py_func") and hasattr(value, "targetoptions"):
            # A Numba dispatcher: its options (inline, fastmath, ...) and its code.
            self.facts.append(f"{name}=dispatcher{_options(value.targetoptions)}")
            self.function(value.py_func)
        elif isinstance(value, types.FunctionType):
            self.function(value)
        elif isinstance(value, types.ModuleType):
            visit = (value.__name__, tuple(attributes))
            if not _is_external(value.__name__) and visit not in self.visits:
                # ``module.name`` in the code: describe the names it may read there.
                self.visits.add(visit)
                self.facts.append(f"{name}=module {value.__name__}")
                for attribute in attributes:
                    if attribute in vars(value):
                        label = f"{value.__name__}.{attribute}"
                        self.value(label, vars(value)[attribute], attributes)
        elif isinstance(value, (types.BuiltinFunctionType, type)):
            module = getattr(value, "__module__", None)
            if not _is_external(module):
                # A class of ours: its methods are not followed, so its whole
                # file stands for it.
                source = getattr(sys.modules.get(module or ""), "__file__", None)
                # (None or no file: kernel_key's TypeError or OSError, no key)
                with open(source, "rb") as f:  # type: ignore[arg-type]
                    digest = hashlib.sha256(f.read()).hexdigest()
                self.facts += [f"{name}={value!r}", f"file {module} {digest}"]
        elif _is_external(type(value).__module__):
            self.facts.append(f"{name}={type(value).__qualname__}")
        else:  # something of ours we cannot describe: kernel_key gives no key
            raise TypeError(f"{name}: a {type(value).__qualname__} is not described")

    def function(self, fn: types.FunctionType) -> None:
        if fn in self.seen:
            return
        self.seen.add(fn)
        name = f"{fn.__module__}.{fn.__qualname__}"
        if _is_external(fn.__module__):
            self.facts.append(name)
            return
        self.facts.append(f"{name}:{_code_digest(fn.__code__)}")
        names = _code_names(fn.__code__)
        for global_name in names:
            if global_name in fn.__globals__:
                self.value(global_name, fn.__globals__[global_name], names)
        for free, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
            with contextlib.suppress(ValueError):  # an empty cell (assigned later)
                self.value(free, cell.cell_contents, names)
        for default in fn.__defaults__ or ():
            self.value("default", default)
        for key, default in sorted((fn.__kwdefaults__ or {}).items()):
            self.value(f"default {key}", default)


def _options(options: Dict[str, Any]) -> str:
    """A dispatcher's options, the same text in every process."""
    return repr(sorted((k, _stable_repr(v)) for k, v in options.items()))


def kernel_key(
    py_func: Callable[..., Any], options: Optional[Dict[str, Any]] = None
) -> Optional[Tuple[str, str]]:
    """``(identity, stamp)`` of a kernel's Python function, or ``None`` when it
    cannot be cached safely.

    ``identity`` names the kernel (its function, and the functions and numbers in
    its closure) and stays the same across edits; ``stamp`` hashes everything the
    compiled code depends on (see the module docstring: ``options`` are the
    kernel's own Numba options) and changes with any edit of that code.
    """
    describer = _Describer()
    try:
        describer.function(py_func)  # type: ignore[arg-type]
    except (OSError, TypeError, ValueError):  # a file gone, a value undescribed...
        return None
    # The kernel's own name and those of every function it reaches (the scalar
    # function among them): stable across edits, unlike the stamp.
    names = sorted(f"{fn.__module__}.{fn.__qualname__}" for fn in describer.seen)
    identity = hashlib.sha256("|".join(names).encode()).hexdigest()[:12]
    text = "\n".join([f"options {_options(options or {})}"] + describer.facts)
    return identity, hashlib.sha256(text.encode()).hexdigest()
