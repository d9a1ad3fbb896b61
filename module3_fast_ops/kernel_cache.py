"""Compiled kernels that persist across processes.

Numba compiles a kernel the first time it is called, in every new process: a second
or so for a map kernel, several for the matmul. :func:`persist` gives a compiled
kernel a disk cache keyed by what the kernel really depends on
(``kernel_key.kernel_key``: the code of every function it runs or inlines, their
options and the constants they read; Numba's own ``cache=True`` checks only the
kernel's file, see ``kernel_key.py``): an edit of any of them recompiles the
kernel, an edit elsewhere does not.

Where the files go: ``$KINDLING_CACHE_DIR`` if set, else the ``__pycache__`` folder
beside the kernel's source file, else (read-only install) the user cache folder
``$XDG_CACHE_HOME/kindling`` (``~/.cache/kindling``). When none is writable the
kernels are compiled in memory as before. Delete the ``*.nbi``/``*.nbc`` files (or
the folder) to start afresh.

Processes share the work: a lock file per kernel lets one process compile it while
others that need it (pytest's workers) wait and load the result. What a run tells
the user while kernels compile, and the compile helpers that compile its other
kernels on idle cores, are in ``compile_progress.py``.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import sys
import tempfile
import time
import types
import zlib
from typing import Any, Callable, Dict, Optional, Tuple

from numba.core.caching import (
    CompileResultCacheImpl,
    FunctionCache,
    IndexDataCacheFile,
    _CacheLocator,
)

from . import compile_progress
from .kernel_key import kernel_key

# ---------------------------------------------------------------------------
# Where the files go
# ---------------------------------------------------------------------------


def cache_root() -> str:
    """The user-wide folder: ``$KINDLING_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/kindling`` (default ``~/.cache/kindling``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return os.environ.get("KINDLING_CACHE_DIR") or os.path.join(base, "kindling")


def _writable(path: str) -> bool:
    with contextlib.suppress(OSError):
        os.makedirs(path, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
        return True
    return False


def _cache_path(py_file: str) -> Optional[str]:
    """The first writable folder for the kernels of ``py_file``, or ``None``."""
    folder = os.path.dirname(os.path.abspath(py_file))
    # One sub-folder per source folder: two editions never share index files.
    sub = f"{os.path.basename(folder)}_{hashlib.sha1(folder.encode()).hexdigest()}"
    candidates = [os.path.join(cache_root(), "kernels", sub)]
    if not os.environ.get("KINDLING_CACHE_DIR"):
        candidates.insert(0, os.path.join(folder, "__pycache__"))
    return next((path for path in candidates if _writable(path)), None)


# ---------------------------------------------------------------------------
# The Numba cache classes
# ---------------------------------------------------------------------------


class _Locator(_CacheLocator):
    def __init__(self, py_file: str, path: str, stamp: str, tag: str) -> None:
        self._py_file, self._path, self._stamp, self._tag = py_file, path, stamp, tag

    def get_cache_path(self) -> str:
        return self._path

    def get_source_stamp(self) -> str:
        return self._stamp

    def get_disambiguator(self) -> str:
        return self._tag


class KeyedImpl:
    """The ``__init__`` of a Numba ``CacheImpl`` (numba's or numba-cuda's, the
    class after this one in a subclass's bases) located by a :class:`_Locator`."""

    def __init__(self, py_func: Callable[..., Any], locator: _Locator) -> None:
        # Not CacheImpl.__init__: that picks one of Numba's file-stamp locators.
        self._lineno = py_func.__code__.co_firstlineno
        self._locator = locator
        modname = os.path.splitext(os.path.basename(locator._py_file))[0]
        self._filename_base = self.get_filename_base(  # type: ignore[attr-defined]
            f"{modname}.{py_func.__qualname__}", sys.abiflags
        )


class _Impl(KeyedImpl, CompileResultCacheImpl):
    """Numba's CPU cache implementation, located by key."""


class _DataFiles(IndexDataCacheFile):
    def save(self, key: Any, data: Any) -> None:
        # One data file per (signature, target) rather than numbered files: two
        # processes compiling different signatures at once cannot swap data files.
        overloads = self._load_index()
        name = self._data_name_pattern.format(number=zlib.crc32(repr(key[:2]).encode()))
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
        self._source = (py_func, options, sig)

    def _fill(self, key: Any) -> None:
        if key in self or self._source is None:
            return
        py_func, options, sig = self._source
        self._source = None
        from numba import jit

        fresh = jit(**options)(py_func)
        fresh.compile(sig)
        self.update({**next(iter(fresh.overloads.values())).metadata, **self})

    def __getitem__(self, key: Any) -> Any:
        self._fill(key)
        return super().__getitem__(key)

    def get(self, key: Any, default: Any = None) -> Any:
        self._fill(key)
        return super().get(key, default)


class KeyedCache:
    """What a Numba ``Cache`` (numba's or numba-cuda's, the class after this one
    in a subclass's bases) sets up in its ``__init__``, located by a kernel's key
    (:func:`kernel_key`; ``None``: no disk cache) instead of its file's stamp."""

    def _locate(
        self,
        py_func: Callable[..., Any],
        label: str,
        key: Optional[Tuple[str, str]],
        impl: Callable[..., Any],
        files: Callable[..., Any],
    ) -> None:
        py_file = py_func.__code__.co_filename
        path = self._cache_path = (_cache_path(py_file) if key else None) or ""
        identity, self._stamp = key or ("none", "none")
        self._name, self._py_func, self.label = repr(py_func), py_func, label
        self._impl = impl(py_func, _Locator(py_file, path, self._stamp, identity))
        self._cache_file = files(path, self._impl.filename_base, self._stamp)
        self._enabled = bool(path)

    def _load(self, sig: Any, target_context: Any) -> Any:
        """The cache's ``load_overload``, ``None`` for a damaged file (compiled
        afresh)."""
        with contextlib.suppress(Exception):  # (a damaged file: None, below)
            return super().load_overload(sig, target_context)  # type: ignore[misc]
        return None

    def save_overload(self, sig: Any, data: Any) -> None:
        # Disk full, folder removed, a kernel numba-cuda cannot serialise: the
        # kernel still runs, compiled in memory. (Numba's save does nothing for a
        # cache that is not enabled.)
        with contextlib.suppress(Exception):
            super().save_overload(sig, data)  # type: ignore[misc]


class KernelCache(KeyedCache, FunctionCache):
    """A Numba function cache keyed by :func:`kernel_key` (see the module
    docstring); reports compilations to ``compile_progress.progress``."""

    def __init__(
        self,
        py_func: Callable[..., Any],
        label: str,
        key: Optional[Tuple[str, str]],
        options: Optional[Dict[str, Any]] = None,
    ) -> None:
        # Not FunctionCache.__init__: that locates the files by the file's stamp.
        self._locate(py_func, label, key, _Impl, _DataFiles)
        # The options to compile a fresh copy with (numba.jit's, nopython among them).
        self.options: Dict[str, Any] = dict(options or {})

    def _index_key(self, sig: Any, codegen: Any) -> Any:
        # Numba's key pickles the closure (dispatchers carry a per-process id, so it
        # would never match); the stamp already covers the closure.
        return (sig, codegen.magic_tuple(), self._stamp)

    def is_cached(self) -> bool:
        """Whether the disk holds compiled code for this exact source (any
        signature)."""
        with contextlib.suppress(Exception):  # a damaged index means "not cached"
            return self._enabled and bool(self._cache_file._load_index())
        return False

    # -------------------------------------------------- one compiler at a time
    # Several processes may want the same kernel at once (pytest's workers, the
    # compile helpers). The operating system's lock on a file per kernel lets one
    # compile while the others wait and then load its result, instead of
    # compiling it again; the lock goes with its holder, however that ends.

    def _lock_path(self) -> str:
        return os.path.join(self._cache_path, self._impl.filename_base + ".lock")

    def _try_lock(self) -> bool:
        """Take the kernel's lock; ``False`` while another process holds it."""
        try:
            fd = os.open(self._lock_path(), os.O_CREAT | os.O_RDWR)
        except OSError:
            return True  # no locking possible here: just compile
        try:
            if os.name == "nt":
                import msvcrt

                msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            else:
                import fcntl

                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            os.close(fd)
            # Held (EAGAIN on POSIX, EACCES on Windows); else no locking here.
            return error.errno not in (errno.EAGAIN, errno.EACCES)
        self._lock_fd = fd
        return True

    def release(self) -> None:
        """Let go of this process's lock, if it holds one."""
        fd, self._lock_fd = getattr(self, "_lock_fd", None), None
        if fd is not None:
            os.close(fd)  # (which releases the lock)

    def load_overload(self, sig: Any, target_context: Any) -> Any:
        data = self._load(sig, target_context)  # None when not enabled
        give_up = time.monotonic() + LOCK_PATIENCE
        while self._enabled and data is None and not self._try_lock():
            if compile_progress.helper_mode():
                raise compile_progress.KernelBusy(self.label)  # the helper skips it
            if time.monotonic() > give_up:
                break  # its compiler seems stuck: compile here too
            # Another process compiles this kernel: wait, then load its work.
            time.sleep(0.1)
            data = self._load(sig, target_context)
        if data is None:
            compile_progress.progress.started(self.label)
            return None
        compile_progress.progress.loaded_count += 1
        return data._replace(metadata=_LazyMetadata(self._py_func, self.options, sig))

    def save_overload(self, sig: Any, data: Any) -> None:
        compile_progress.progress.finished(self.label)
        super().save_overload(sig, data)  # (persist's compile then releases the lock)


#: Seconds a process waits for another one's compilation of a kernel before it
#: compiles the kernel itself (the other may be stopped in a debugger, say).
LOCK_PATIENCE = 120.0


def _rename_closures(kernel: Any, tag: str, seen: set) -> None:
    """Give the kernel, and the compiled functions defined inside its factory,
    names unique to this kernel.

    Numba names a compiled function after its ``__qualname__`` and a counter that
    restarts in every process. ``tensor_map(log)`` and ``tensor_map(relu)`` both
    contain a ``tensor_map.<locals>.map_slice``: compiled in two processes, both can
    get the same symbol name, and once both are loaded from the cache into one
    process the machine code of one would call the other's. A tag from the
    kernel's identity keeps the names apart. ``seen``: the functions visited."""
    py_func = getattr(kernel, "py_func", None)
    if not isinstance(py_func, types.FunctionType) or py_func in seen:
        return
    seen.add(py_func)
    if "<locals>" in py_func.__qualname__ and not hasattr(py_func, "_kindling_tag"):
        py_func.__qualname__ = f"{py_func.__qualname__}_k{tag}"
        py_func._kindling_tag = tag  # type: ignore[attr-defined]
    for cell in py_func.__closure__ or ():
        with contextlib.suppress(ValueError):  # an empty cell
            _rename_closures(cell.cell_contents, tag, seen)


def persist(kernel: Any, label: str) -> Any:
    """Give a Numba-compiled ``kernel`` (a CPU dispatcher) the disk cache of this
    module, under the name ``label`` (shown while it compiles), and return it.

    Anything else (a plain Python function, a CUDA kernel) is returned unchanged.
    Call it before the kernel's first call.
    """
    py_func = getattr(kernel, "py_func", None)
    if py_func is None or not hasattr(kernel, "_cache") or kernel.overloads:
        return kernel
    key = kernel_key(py_func, kernel.targetoptions)
    if key is not None:
        _rename_closures(kernel, key[0], set())
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
    compile_progress.progress.caches[label] = cache
    return kernel
