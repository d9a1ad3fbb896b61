"""Compiled kernels that persist across processes, and a notice while they compile.

Numba compiles a kernel the first time it is called, in every new process: a second
or so for a map kernel, several for the matmul. Numba's own on-disk cache
(``njit(cache=True)``) would keep the machine code, but it checks only the *file* a
function is defined in: a kernel made by ``tensor_map(operators.exp)`` inlines
Module 0's ``exp`` and Module 2's index helpers, and an edit of either would go
unnoticed, so a student could run stale code. It also cannot tell apart the closures
one factory returns for different scalar functions.

:func:`persist` gives a compiled kernel a disk cache whose key is computed from what
the kernel really depends on. Starting from the kernel's Python function, it follows
every function, Numba dispatcher and closure value the code refers to (the inlined
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
is simply not cached; a class of ours that it reads is covered by its whole file.

Where the files go: ``$KINDLING_CACHE_DIR`` if set, else the ``__pycache__`` folder
beside the kernel's source file, else (read-only install) the user cache folder
``$XDG_CACHE_HOME/kindling`` (``~/.cache/kindling``). When none is writable the
kernels are compiled in memory as before. Delete the ``*.nbi``/``*.nbc`` files (or
the folder) to start afresh.

Processes share the work: a lock file per kernel lets one process compile it while
others that need it (pytest's workers) wait and load the result. And when cores are
idle, the first compilation of a run starts *compile helpers*, one per idle core
(:func:`helper_count`): processes that compile the run's other announced kernels
(:func:`expect`) into the cache while the first process works
(``KINDLING_COMPILE_HELPER=0`` turns them off, ``=on`` starts one even on a busy
machine). ``python -m module3_fast_ops.precompile`` fills
the cache ahead of time, one process per core (:func:`main`).

While a kernel compiles, one line on stderr says so, with the kernel's name and its
number among the kernels this run may still compile (on a terminal the line is
rewritten in place; elsewhere it is printed at most every few seconds), and a
summary is printed at exit. ``KINDLING_QUIET=1`` silences it.
"""

from __future__ import annotations

import atexit
import hashlib
import importlib
import os
import subprocess
import sys
import tempfile
import threading
import time
import types
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
from numba.core.caching import (
    CompileResultCacheImpl,
    FunctionCache,
    IndexDataCacheFile,
    _CacheLocator,
)

__all__ = [
    "persist",
    "expect",
    "cache_root",
    "kernel_key",
    "dependencies",
    "CompileProgress",
    "progress",
]

#: Top-level packages whose code is not the course's: not hashed, not followed.
_EXTERNAL = frozenset(sys.stdlib_module_names) | {
    "builtins",
    "numba",
    "numpy",
    "llvmlite",
    "scipy",
}


def _is_external(module: Optional[str]) -> bool:
    return (module or "builtins").split(".")[0] in _EXTERNAL


_FILE_DIGESTS: Dict[Tuple[str, int, int], str] = {}


def _file_digest(path: str) -> str:
    """SHA-256 of a file's bytes, remembered per (path, mtime, size)."""
    stat = os.stat(path)
    memo = (path, stat.st_mtime_ns, stat.st_size)
    if memo not in _FILE_DIGESTS:
        with open(path, "rb") as f:
            _FILE_DIGESTS[memo] = hashlib.sha256(f.read()).hexdigest()
    return _FILE_DIGESTS[memo]


def _code_names(code: types.CodeType) -> List[str]:
    """The global names a code object (and the functions nested in it) reads."""
    names = list(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names.extend(_code_names(const))
    return names


_SIMPLE = (bool, int, float, complex, str, bytes, type(None), np.generic)


def _stable_repr(value: Any) -> str:
    """``repr`` that is the same in every process: sets (``fastmath={...}``) are
    sorted, since their order follows the per-process string hash seed."""
    if isinstance(value, (set, frozenset)):
        return "{" + ", ".join(sorted(_stable_repr(v) for v in value)) + "}"
    if isinstance(value, dict):
        items = sorted((_stable_repr(k), _stable_repr(v)) for k, v in value.items())
        return "{" + ", ".join(f"{k}: {v}" for k, v in items) + "}"
    if isinstance(value, (list, tuple)):
        return type(value).__name__ + "(" + ", ".join(map(_stable_repr, value)) + ")"
    return repr(value)


def _code_digest(code: types.CodeType) -> str:
    """SHA-256 of what Numba compiles from a code object: its bytecode, constants
    (nested functions' code included), names and argument layout. Line numbers
    are left out: moving a function in its file does not change its machine code."""
    parts: List[str] = [
        code.co_code.hex(),
        repr(code.co_names),
        repr(code.co_varnames),
        repr(code.co_freevars),
        repr(code.co_cellvars),
        repr(
            (
                code.co_argcount,
                code.co_posonlyargcount,
                code.co_kwonlyargcount,
                code.co_flags,
            )
        ),
    ]
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            parts.append("code:" + _code_digest(const))
        else:  # the type too: 1, 1.0 and True compare equal
            parts.append(f"{type(const).__name__}:{_stable_repr(const)}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


class _Describer:
    """Walks what a kernel depends on; collects the facts to hash (functions'
    code, dispatcher options, constants) and the modules they come from."""

    def __init__(self) -> None:
        self.modules: set = set()  # modules whose code the facts cover
        self.facts: List[str] = []
        self.seen: set = set()  # functions described
        self.visits: set = set()  # (module, names) described
        self.cachable = True

    def value(self, name: str, value: Any, attributes: Sequence[str] = ()) -> None:
        if isinstance(value, _SIMPLE):
            self.facts.append(f"{name}={value!r}")
        elif isinstance(value, tuple) and all(isinstance(v, _SIMPLE) for v in value):
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
                        self.value(
                            f"{value.__name__}.{attribute}",
                            vars(value)[attribute],
                            attributes,
                        )
        elif isinstance(value, (types.BuiltinFunctionType, type)):
            module = getattr(value, "__module__", None)
            if not _is_external(module):
                # A class of ours: its methods are not followed, so its whole
                # file stands for it.
                self.facts.append(f"{name}={value!r}")
                source = getattr(sys.modules.get(module or ""), "__file__", None)
                if source is None or not os.path.isfile(source):
                    self.cachable = False
                else:
                    self.facts.append(f"file {module} {_file_digest(source)}")
        elif _is_external(type(value).__module__):
            self.facts.append(f"{name}={type(value).__qualname__}")
        else:
            self.cachable = False  # something of ours we cannot describe

    def function(self, fn: types.FunctionType) -> None:
        if fn in self.seen:
            return
        self.seen.add(fn)
        name = f"{fn.__module__}.{fn.__qualname__}"
        if _is_external(fn.__module__):
            self.facts.append(name)
            return
        self.modules.add(fn.__module__)
        self.facts.append(f"{name}:{_code_digest(fn.__code__)}")
        names = _code_names(fn.__code__)
        for global_name in names:
            if global_name in fn.__globals__:
                self.value(global_name, fn.__globals__[global_name], names)
        for free, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
            try:
                contents = cell.cell_contents
            except ValueError:  # an empty cell (a name assigned later)
                continue
            self.value(free, contents, names)
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
    describer.function(py_func)  # type: ignore[arg-type]
    if not describer.cachable:
        return None
    # The kernel's own name and those of every function it reaches (the scalar
    # function among them): stable across edits, unlike the stamp.
    names = sorted(f"{fn.__module__}.{fn.__qualname__}" for fn in describer.seen)
    identity = hashlib.sha256("|".join(names).encode()).hexdigest()[:12]
    text = "\n".join([f"options {_options(options or {})}"] + describer.facts)
    return identity, hashlib.sha256(text.encode()).hexdigest()


def dependencies(py_func: Callable[..., Any]) -> List[str]:
    """The modules whose functions the kernel's key covers (sorted names)."""
    describer = _Describer()
    describer.function(py_func)  # type: ignore[arg-type]
    return sorted(describer.modules)


# ---------------------------------------------------------------------------
# Where the files go
# ---------------------------------------------------------------------------


def cache_root() -> str:
    """The user-wide folder: ``$KINDLING_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/kindling`` (default ``~/.cache/kindling``)."""
    explicit = os.environ.get("KINDLING_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
        os.path.expanduser("~"), ".cache"
    )
    return os.path.join(base, "kindling")


def _writable(path: str) -> bool:
    try:
        os.makedirs(path, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
        return True
    except OSError:
        return False


def _cache_path(py_file: str) -> Optional[str]:
    """The first writable folder for the kernels of ``py_file``, or ``None``."""
    folder = os.path.dirname(os.path.abspath(py_file))
    # One sub-folder per source folder: two editions never share index files.
    sub = f"{os.path.basename(folder)}_{hashlib.sha1(folder.encode()).hexdigest()}"
    candidates = [os.path.join(cache_root(), "kernels", sub)]
    if not os.environ.get("KINDLING_CACHE_DIR"):
        candidates.insert(0, os.path.join(folder, "__pycache__"))
    for path in candidates:
        if _writable(path):
            return path
    return None


# ---------------------------------------------------------------------------
# The Numba cache classes
# ---------------------------------------------------------------------------


class _Locator(_CacheLocator):
    def __init__(self, py_file: str, path: str, stamp: str, tag: str) -> None:
        self._py_file = py_file
        self._path = path
        self._stamp = stamp
        self._tag = tag

    def ensure_cache_path(self) -> None:
        os.makedirs(self._path, exist_ok=True)

    def get_cache_path(self) -> str:
        return self._path

    def get_source_stamp(self) -> str:
        return self._stamp

    def get_disambiguator(self) -> str:
        return self._tag


class _Impl(CompileResultCacheImpl):
    def __init__(self, py_func: Callable[..., Any], locator: _Locator) -> None:
        # Not CacheImpl.__init__: that picks one of Numba's file-stamp locators.
        self._lineno = py_func.__code__.co_firstlineno
        self._locator = locator
        modname = os.path.splitext(os.path.basename(locator._py_file))[0]
        fullname = f"{modname}.{py_func.__qualname__}"
        self._filename_base = self.get_filename_base(fullname, sys.abiflags)


class _DataFiles(IndexDataCacheFile):
    def save(self, key: Any, data: Any) -> None:
        # One data file per (signature, target) rather than numbered files: two
        # processes compiling different signatures at once cannot swap data files.
        overloads = self._load_index()
        name = self._data_name_pattern.format(
            number=int(hashlib.sha1(repr(key[:2]).encode()).hexdigest()[:8], 16)
        )
        if overloads.get(key) != name:
            overloads[key] = name
            self._save_index(overloads)
        self._save_data(name, data)


class _LazyMetadata(dict):
    """The compile metadata of a kernel loaded from the disk cache.

    Numba does not store metadata such as ``parfor_diagnostics`` (what
    ``parallel_diagnostics`` prints) in its cache. Asked for a key it lacks, this
    dict compiles a fresh, uncached copy of the kernel once, and takes that copy's
    metadata: diagnostics keep working, and only those who ask pay for them."""

    def __init__(self, py_func: Callable[..., Any], options: Dict[str, Any], sig: Any):
        super().__init__()
        self._source = (py_func, options, sig)

    def _fill(self) -> None:
        if self._source is None:
            return
        py_func, options, sig = self._source
        self._source = None
        from numba import njit

        fresh = njit(**options)(py_func)
        fresh.compile(sig)
        for key, value in next(iter(fresh.overloads.values())).metadata.items():
            self.setdefault(key, value)

    def __getitem__(self, key: Any) -> Any:
        if key not in self:
            self._fill()
        return super().__getitem__(key)

    def get(self, key: Any, default: Any = None) -> Any:
        if key not in self:
            self._fill()
        return super().get(key, default)


class KernelCache(FunctionCache):
    """A Numba function cache keyed by :func:`kernel_key` (see the module
    docstring); reports compilations to :data:`progress`."""

    def __init__(
        self,
        py_func: Callable[..., Any],
        label: str,
        key: Optional[Tuple[str, str]],
        options: Optional[Dict[str, Any]] = None,
    ) -> None:
        self._name = repr(py_func)
        self._py_func = py_func
        self.label = label
        # The options to compile a fresh copy with (njit sets nopython itself).
        self.options: Dict[str, Any] = {
            k: v for k, v in (options or {}).items() if k != "nopython"
        }
        py_file = py_func.__code__.co_filename
        path = _cache_path(py_file) if key is not None else None
        identity, stamp = key if key is not None else ("none", "none")
        self._stamp = stamp
        self._impl = _Impl(py_func, _Locator(py_file, path or "", stamp, f"{identity}"))
        self._cache_path = path or ""
        self._cache_file = _DataFiles(
            cache_path=self._cache_path,
            filename_base=self._impl.filename_base,
            source_stamp=stamp,
        )
        self._enabled = path is not None

    def _index_key(self, sig: Any, codegen: Any) -> Any:
        # Numba's key pickles the closure (dispatchers carry a per-process id, so it
        # would never match); the stamp already covers the closure.
        return (sig, codegen.magic_tuple(), self._stamp)

    def is_cached(self) -> bool:
        """Whether the disk holds compiled code for this exact source (any
        signature)."""
        if not self._enabled:
            return False
        try:
            return bool(self._cache_file._load_index())
        except Exception:  # noqa: BLE001 - a damaged index means "not cached"
            return False

    # -------------------------------------------------- one compiler at a time
    # Several processes may want the same kernel at once (pytest's workers, the
    # compile helper below). A lock file per kernel lets one compile while the
    # others wait and then load its result, instead of compiling it again.

    def _lock_path(self) -> str:
        return os.path.join(self._cache_path, self._impl.filename_base + ".lock")

    def _try_lock(self) -> bool:
        path = self._lock_path()
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return False
        except OSError:
            return True  # no locking possible here: just compile
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(str(os.getpid()))
        self._locked = True
        return True

    def _lock_owner_alive(self) -> bool:
        path = self._lock_path()
        try:
            with open(path, encoding="ascii", errors="replace") as f:
                text = f.read().strip()
            if time.time() - os.path.getmtime(path) > LOCK_PATIENCE:
                raise ValueError("stale")
            if not text:
                return True  # just created; its owner is writing its pid
            pid = int(text)
            if pid <= 0 or pid == os.getpid() or not process_alive(pid):
                raise ValueError("not a live owner")
            return True
        except FileNotFoundError:
            return False
        except (OSError, ValueError):
            # A lock left by a dead (or stuck) process: take it over.
            try:
                os.unlink(path)
            except OSError:
                pass
            return False

    def release(self) -> None:
        """Remove this process's lock file, if it holds one."""
        if getattr(self, "_locked", False):
            self._locked = False
            try:
                os.unlink(self._lock_path())
            except OSError:
                pass

    def _load(self, sig: Any, target_context: Any) -> Any:
        try:
            return super().load_overload(sig, target_context)
        except Exception:  # noqa: BLE001 - a damaged file: compile afresh
            return None

    def load_overload(self, sig: Any, target_context: Any) -> Any:
        data = None
        if self._enabled:
            data = self._load(sig, target_context)
            while data is None and not self._try_lock():
                if helper_mode():
                    raise KernelBusy(self.label)  # the helper skips it
                # Another process compiles this kernel: wait, then load its work.
                if self._lock_owner_alive():
                    time.sleep(0.1)
                data = self._load(sig, target_context)
        else:
            target_context.refresh()
        if data is None:
            progress.started(self.label)
            return None
        progress.loaded(self.label)
        return data._replace(metadata=_LazyMetadata(self._py_func, self.options, sig))

    def save_overload(self, sig: Any, data: Any) -> None:
        progress.finished(self.label)
        if self._enabled:
            try:
                super().save_overload(sig, data)
            except OSError:  # disk full, folder removed: the kernel still runs
                pass
        self.release()


#: Seconds after which a kernel's lock file is taken for abandoned (a compile that
#: failed in a process still running, say).
LOCK_PATIENCE = 120.0


def _kernel32() -> Tuple[Any, Callable[[], int]]:
    """Windows' kernel32 and the reader of its last error code (a seam for tests)."""
    import ctypes

    dll = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined]
    return dll, ctypes.get_last_error  # type: ignore[attr-defined]


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` is still running, on every operating system.

    POSIX answers through ``os.kill(pid, 0)``, which sends no signal. Windows must not
    be asked that way: there ``os.kill`` with 0 is ``CTRL_C_EVENT`` and would interrupt
    the lock's owner. It opens the process for a query instead, and reads whether its
    exit code is still ``STILL_ACTIVE``."""
    if os.name == "nt":
        import ctypes

        query_limited_information, still_active, access_denied = 0x1000, 259, 5
        kernel32, last_error = _kernel32()
        handle = kernel32.OpenProcess(query_limited_information, False, pid)
        if not handle:
            # A process of another user exists but may not be opened.
            return last_error() == access_denied
        try:
            code = ctypes.c_ulong()
            if not kernel32.GetExitCodeProcess(handle, ctypes.byref(code)):
                return True
            return code.value == still_active
        finally:
            kernel32.CloseHandle(handle)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # alive, owned by another user
    except OSError:
        return False
    return True


class KernelBusy(RuntimeError):
    """Raised in the compile helper for a kernel another process is compiling."""


def helper_mode() -> bool:
    """Whether this process is a compile helper (see :func:`warm_up`)."""
    return os.environ.get("KINDLING_IS_COMPILE_HELPER") == "1"


def _rename_closures(kernel: Any, tag: str, seen: Optional[set] = None) -> None:
    """Give the kernel, and the compiled functions defined inside its factory,
    names unique to this kernel.

    Numba names a compiled function after its ``__qualname__`` and a counter that
    restarts in every process. ``tensor_map(log)`` and ``tensor_map(relu)`` both
    contain a ``tensor_map.<locals>.map_slice``: compiled in two processes, both can
    get the same symbol name, and once both are loaded from the cache into one
    process the machine code of one would call the other's. A tag from the
    kernel's identity keeps the names apart."""
    seen = set() if seen is None else seen
    py_func = getattr(kernel, "py_func", None)
    if not isinstance(py_func, types.FunctionType) or py_func in seen:
        return
    seen.add(py_func)
    if "<locals>" in py_func.__qualname__ and not getattr(
        py_func, "_kindling_tag", None
    ):
        py_func.__qualname__ = f"{py_func.__qualname__}_k{tag}"
        py_func._kindling_tag = tag  # type: ignore[attr-defined]
    for cell in py_func.__closure__ or ():
        try:
            _rename_closures(cell.cell_contents, tag, seen)
        except ValueError:  # an empty cell
            continue


def persist(kernel: Any, label: str) -> Any:
    """Give a Numba-compiled ``kernel`` (a CPU dispatcher) the disk cache of this
    module, under the name ``label`` (shown while it compiles), and return it.

    Anything else (a plain Python function, a CUDA kernel) is returned unchanged.
    Call it before the kernel's first call.
    """
    py_func = getattr(kernel, "py_func", None)
    if py_func is None or not hasattr(kernel, "_cache") or kernel.overloads:
        return kernel
    try:
        key = kernel_key(py_func, kernel.targetoptions)
    except (OSError, TypeError, ValueError):
        key = None
    if key is not None:
        _rename_closures(kernel, key[0])
    kernel._cache = cache = KernelCache(py_func, label, key, kernel.targetoptions)
    compile_signature = kernel.compile

    def compile(sig: Any) -> Any:
        # A compilation that fails (a bug in the kernel) must not leave its lock
        # file for other processes to wait on.
        try:
            return compile_signature(sig)
        finally:
            cache.release()

    kernel.compile = compile
    progress.known(label, cache)
    return kernel


def expect(
    label: str,
    build: Callable[[], Any],
    warm: Optional[Callable[[Any], None]] = None,
    module: Optional[str] = None,
) -> None:
    """Announce a kernel that this run may compile later.

    ``build()`` returns it (made with :func:`persist`); it is called only at the
    first compilation of the run, to count, in the compile notice, how many
    kernels may still compile (one that raises, a stub, is not counted).

    ``warm(kernel)`` calls the kernel once on small typical arguments, and
    ``module`` is the module whose import announces it: with both, the first
    compilation of a run also starts a *compile helper*, a second process that
    compiles the run's other pending kernels into the disk cache while this one
    works (:func:`warm_up`).
    """
    progress.expected.append((label, build, warm, module))


#: The module that runs :func:`main` (the compile helper, the warm-up command).
_COMMAND = "module3_fast_ops.precompile"


def warm_up(module: str, labels: Sequence[str] = ()) -> int:
    """Compile the kernels ``labels`` (default: all) announced by ``module`` into
    the disk cache, in that order, skipping those another process is compiling.
    Returns how many this call compiled or found cached. The compile helper runs
    this, and so does ``python -m module3_fast_ops.precompile``."""
    importlib.import_module(module)
    done = 0
    wanted = {label: (build, warm) for label, build, warm, _ in progress.expected}
    for label in labels or list(wanted):
        if label not in wanted or wanted[label][1] is None:
            continue
        build, warm = wanted[label]
        try:
            kernel = build()
            warm(kernel)  # type: ignore[misc]
            done += 1
        except Exception:  # noqa: BLE001 - busy elsewhere, or a stub: next one
            continue
    return done


#: At most this many compile helpers at once (each is a Python with Numba loaded,
#: about 150 MB).
MAX_HELPERS = 8


def helper_count() -> int:
    """How many compile helpers the free cores allow: the cores less the busy ones,
    counting this process as busy (the load average includes it once it runs), at
    most :data:`MAX_HELPERS`. On a busy machine a helper only competes with this
    process, so 0; on an idle 8-core laptop 7 helpers compile 7 kernels at once."""
    try:
        busy = max(1.0, os.getloadavg()[0])
    except OSError:
        return 0
    return max(0, min(MAX_HELPERS, int((os.cpu_count() or 1) - busy)))


def _start_helper(current: str) -> None:
    """Start compile helpers for the kernels of this run that are neither cached
    nor being compiled here (once per process), one per idle core
    (:func:`helper_count`; ``KINDLING_COMPILE_HELPER=on`` starts at least one even
    on a busy machine, ``=0`` none)."""
    setting = os.environ.get("KINDLING_COMPILE_HELPER", "")
    jobs = helper_count()
    if setting == "on":
        jobs = max(1, jobs)
    if helper_mode() or setting == "0" or jobs == 0:
        return
    by_module: Dict[str, List[str]] = {}
    for label, _, warm, module in progress.expected:
        cache = progress.caches.get(label)
        if (
            warm is None
            or module is None
            or label == current
            or cache is None
            or not cache._enabled
            or cache.is_cached()
        ):
            continue
        by_module.setdefault(module, []).append(label)
    env = dict(os.environ, KINDLING_IS_COMPILE_HELPER="1", KINDLING_QUIET="1")
    for module, labels in by_module.items():
        try:
            helper = subprocess.Popen(
                [sys.executable, "-m", _COMMAND, "--jobs", str(jobs), module, *labels],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        except OSError:
            return
        progress.helpers.append(helper)


def _stop_helpers() -> None:
    # The helper's work so far stays in the cache; the rest is not needed now.
    for helper in progress.helpers:
        if helper.poll() is None:
            helper.terminate()


# ---------------------------------------------------------------------------
# The compile notice
# ---------------------------------------------------------------------------


class CompileProgress:
    """Tells the user, on stderr, that kernels are compiling.

    The first compilation prints ``kindling: compiling kernels (first run only;
    later runs load them from the cache) ...``; each one then shows ``[n/m] name``
    (``m``: the kernels this run knows of that are not cached yet), rewritten in
    place on a terminal and printed at most every :attr:`interval` seconds
    elsewhere; at exit one line sums up. ``KINDLING_QUIET=1`` silences it.
    """

    interval = 5.0

    def __init__(self) -> None:
        self.expected: List[Tuple[str, Callable[[], Any], Any, Optional[str]]] = []
        self.caches: Dict[str, KernelCache] = {}
        self.compiled: List[str] = []
        self.loaded_count = 0
        self.pending: Optional[int] = None
        self.started_at: Optional[float] = None
        self.last_line = 0.0
        self.seconds = 0.0
        self.current: Optional[Tuple[str, float]] = None
        self.stream: Any = None  # None: sys.stderr at the time of writing
        self.helpers: List[Any] = []
        self.lock = threading.Lock()

    def known(self, label: str, cache: KernelCache) -> None:
        self.caches[label] = cache

    def _quiet(self) -> bool:
        return os.environ.get("KINDLING_QUIET", "") not in ("", "0")

    def _write(self, text: str) -> None:
        stream = self.stream or sys.stderr
        try:
            stream.write(text)
            stream.flush()
        except (OSError, ValueError):
            pass

    def _tty(self) -> bool:
        stream = self.stream or sys.stderr
        try:
            return bool(stream.isatty())
        except (AttributeError, ValueError):
            return False

    def _count_pending(self) -> int:
        # Kernels known to this run that have no cached code yet.
        for label, build, _, _ in self.expected:
            if label not in self.caches:
                try:
                    build()
                except Exception:  # noqa: BLE001 - a stub: not counted
                    pass
        return sum(1 for cache in self.caches.values() if not cache.is_cached())

    def started(self, label: str) -> None:
        with self.lock:
            now = time.perf_counter()
            self.current = (label, now)
            first = self.pending is None
            if first:
                self.pending = self._count_pending()
                _start_helper(label)
                atexit.register(_stop_helpers)
            if self._quiet():
                return
            if self.started_at is None:
                self.started_at = now
                self._write(
                    "kindling: compiling kernels (first run only; later runs load "
                    "them from the cache) ...\n"
                )
                atexit.register(self.summary)
            n = len(self.compiled) + 1
            total = max(self.pending or 0, n)
            line = f"  [{n}/{total}] compiling {label} ..."
            if self._tty():
                self._write("\r" + line + "\x1b[K")
            elif n == 1 or now - self.last_line >= self.interval:
                self._write(line + "\n")
                self.last_line = now

    def finished(self, label: str) -> None:
        with self.lock:
            if self.current is not None:
                self.seconds += time.perf_counter() - self.current[1]
            self.current = None
            self.compiled.append(label)
            if not self._quiet() and self._tty():
                self._write("\r\x1b[K")  # the script's own output starts clean

    def loaded(self, label: str) -> None:
        self.loaded_count += 1

    def summary(self) -> None:
        """The closing line (registered with ``atexit`` at the first compile)."""
        if self._quiet() or not self.compiled:
            return
        clear = "\r\x1b[K" if self._tty() else ""
        where = {c.cache_path for c in self.caches.values() if c._enabled}
        place = f" in {sorted(where)[0]}" if len(where) == 1 else ""
        self._write(
            f"{clear}kindling: compiled {len(self.compiled)} kernel(s) in "
            f"{self.seconds:.1f} s; they are cached{place} for the next runs\n"
        )


#: The process-wide compile notice.
progress = CompileProgress()


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``python -m module3_fast_ops.precompile [--jobs N] [MODULE [LABEL ...]]``:
    compile the kernels of ``MODULE`` (default ``module3_fast_ops.fast_ops``: every
    FastOps kernel) into the disk cache now, in ``N`` processes (default: one per
    core). Later runs then start without compiling. The compile helper is this
    command with one job and the labels a run still lacks."""
    import argparse

    parser = argparse.ArgumentParser(prog=f"python -m {_COMMAND}")
    parser.add_argument("module", nargs="?", default="module3_fast_ops.fast_ops")
    parser.add_argument("labels", nargs="*")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    # Every process skips a kernel another one is compiling (its lock is held).
    os.environ["KINDLING_IS_COMPILE_HELPER"] = "1"
    importlib.import_module(args.module)
    labels = list(args.labels) or [label for label, *_ in progress.expected]
    jobs = max(1, min(args.jobs, len(labels)))
    children = []
    started = time.perf_counter()
    for job in range(1, jobs):  # each starts its list at another place
        order = list(dict.fromkeys(labels[job::jobs] + labels))
        command = [sys.executable, "-m", _COMMAND]
        children.append(
            subprocess.Popen(command + ["--jobs", "1", args.module, *order])
        )
    warm_up(args.module, list(dict.fromkeys(labels[0::jobs] + labels)))
    for child in children:
        child.wait()
    cached = 0
    for label in labels:
        cache = progress.caches.get(label)
        cached += bool(cache is not None and cache.is_cached())
    print(
        f"kindling: {cached} of {len(labels)} kernels of {args.module} are in the "
        f"cache ({time.perf_counter() - started:.1f} s, {jobs} process(es))"
    )
    return 0 if cached == len(labels) else 1
