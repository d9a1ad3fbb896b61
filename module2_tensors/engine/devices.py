"""Devices, as PyTorch users write them (private: the tensor modules use it).

A device *names* a backend; backends stay the mechanism. ``"cpu"`` is the default
backend when that computes in host memory (``FastBackend`` once Module 3 is
written, else ``SimpleBackend``), and ``"cuda"`` the backend Module 3 names
``"cuda"`` (``name_backend``: Module 2 must not import upwards), checked first for a
usable GPU.
"""

from __future__ import annotations

import functools
import os
import sys
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple, Union

if TYPE_CHECKING:
    from .._backend import TensorBackend

# ---------------------------------------------------------------------------
# The default backend: one for factories and layers alike. tensor.py registers
# SimpleBackend, the last resort; Module 3 registers FastBackend and names cuda.
# ---------------------------------------------------------------------------

_default_backend: Optional[TensorBackend] = None  # None: not chosen explicitly
_candidates: List[Tuple[TensorBackend, Callable[[], bool]]] = []
#: Backends a user may name (``set_default_backend("fast")``, ``KINDLING_BACKEND``):
#: name -> a function that returns the backend (importing it if need be).
_named: Dict[str, Callable[[], TensorBackend]] = {}
_from_environment: List[Optional[TensorBackend]] = []  # read once, when first needed


def register_backend(backend: TensorBackend, ready: Callable[[], bool]) -> None:
    """Offer a faster backend as the automatic default (Module 3 offers
    ``FastBackend`` when it is imported), also by its name. ``ready()`` says
    whether its kernels are written (a student edition may still have them
    stubbed: False, also where it raises ``NotImplementedError``); it is asked
    once."""

    @functools.cache
    def once() -> bool:
        try:
            return bool(ready())
        except NotImplementedError:
            return False

    if all(b is not backend for b, _ in _candidates):
        _candidates.append((backend, once))
    name_backend(backend.name, lambda: backend)


def name_backend(name: str, load: Callable[[], TensorBackend]) -> None:
    """Let users choose a backend by ``name`` (``set_default_backend(name)``,
    ``KINDLING_BACKEND``); ``load()`` returns it, importing it if need be (Module
    3 names ``cuda`` so, without importing numba-cuda before it is asked for)."""
    _named[name] = load


def _by_name(name: str) -> TensorBackend:
    loader = _named.get(name.strip().lower())
    if loader is None:
        raise ValueError(
            f"unknown backend {name!r}: choose one of {', '.join(sorted(_named))} "
            f"(import module3_fast_ops to make 'fast' and 'cuda' known)"
        )
    return loader()


def set_default_backend(backend: Union[None, str, TensorBackend]) -> None:
    """The backend of every tensor made without ``backend=`` (factories such as
    :func:`tensor`, :func:`zeros`, :func:`rand`, and the layers of Module 4): a
    ``TensorBackend`` or its name (``"simple"``, ``"fast"``, ``"cuda"``).
    ``None`` goes back to the choice of :func:`get_default_backend`."""
    global _default_backend
    backend = _by_name(backend) if isinstance(backend, str) else backend
    # TensorBackend is the class of the first backend registered (SimpleBackend):
    # this module does not import it.
    backend_class = type(_candidates[0][0]) if _candidates else object
    if backend is not None and not isinstance(backend, backend_class):
        raise TypeError(f"expected a TensorBackend, got {type(backend).__name__}")
    _default_backend = backend


def get_default_backend() -> TensorBackend:
    """The backend used where none is given, chosen in this order:

    1. the one given to :func:`set_default_backend`;
    2. the one named by the environment variable ``KINDLING_BACKEND``
       (``simple``, ``fast`` or ``cuda``; read once per process);
    3. automatically, the fastest backend whose kernels are written:
       ``FastBackend`` once Module 3 is imported and Tasks 3.1 and 3.2 are done,
       else ``SimpleBackend`` (registered first, always ready). A student whose
       Task 3.1 is unfinished therefore keeps working on ``SimpleBackend``,
       with no error; the check (do the kernel factories raise
       ``NotImplementedError``?) runs once per process.
    """
    if _default_backend is None and not _from_environment:
        name = os.environ.get("KINDLING_BACKEND", "").strip()
        _from_environment.append(_by_name(name) if name else None)
    return _default_backend or _from_environment[0] or _fastest()


def _fastest(host: bool = False) -> TensorBackend:
    """The last registered backend whose kernels are written (``host``: of those
    computing in host memory); SimpleBackend, registered first (by tensor.py, as
    the package is imported), is always ready, so there is one."""
    return next(
        b for b, ready in reversed(_candidates) if not (host and b.cuda) and ready()
    )


def backend_named(name: str) -> TensorBackend:
    """The loaded backend called ``name`` (``"simple"``, ``"fast"``, ...), or
    the default backend (how a pickled tensor or backend finds its backend)."""
    load = _named.get(name)
    # (CudaBackend only if loaded already: unpickling must not load numba-cuda.)
    loaded = name != "cuda" or "module3_fast_ops.cuda_ops" in sys.modules
    return load() if load is not None and loaded else get_default_backend()


class device:
    """``torch.device``: a type (``"cpu"`` or ``"cuda"``) and an optional index
    (``"cuda:0"``). Compares equal to another device of that type and index
    (not a string: ``device("cpu") != "cpu"``, as in PyTorch)."""

    __slots__ = ("type", "index")

    def __init__(self, spec: Union[str, "device"], index: Optional[int] = None):
        if not isinstance(spec, (str, device)):
            raise TypeError(f"a device is a string such as 'cpu', got {spec!r}")
        kind, _, number = str(spec).partition(":")  # (a device: its string)
        if kind not in ("cpu", "cuda"):
            raise RuntimeError(
                f"Expected one of cpu, cuda device type at start of device "
                f"string: {spec}"
            )
        if number and not number.isdigit():
            raise RuntimeError(f"Invalid device string: {spec!r}")
        self.type: str = kind
        self.index: Optional[int] = int(number) if number else index

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self) -> str:
        index = "" if self.index is None else f", index={self.index}"
        return f"device(type='{self.type}'{index})"

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type and (self.index or 0) == (other.index or 0)

    def __hash__(self) -> int:
        return hash((self.type, self.index or 0))


def backend_for(spec: Union[str, device]) -> "TensorBackend":
    """The backend a device names.

    Raises:
        RuntimeError: an unknown device, or CUDA where no CUDA backend is
            registered or available.
    """
    kind = device(spec).type
    if kind == "cpu":  # the default backend if on the host, else the fastest there
        backend = get_default_backend()
        return _fastest(host=True) if backend.cuda else backend
    load = _named.get(kind)  # the backends named so far (Module 3 names cuda)
    if load is None:
        raise RuntimeError(
            f"no backend for device {str(spec)!r}: import module3_fast_ops (or "
            f"module4_networks), which provides the CUDA backend"
        )
    _check_cuda()
    return load()


def _check_cuda() -> None:
    """Raise a clear error where Numba can run no CUDA code.

    Raises:
        RuntimeError: no usable GPU; the message names Numba's simulator switch,
            ``NUMBA_ENABLE_CUDASIM=1``.
    """
    from numba import cuda  # (only when CUDA is asked for)

    if not cuda.is_available():
        raise RuntimeError(
            "CUDA is not available on this machine (no usable GPU or driver). To "
            "run the CUDA backend in Numba's simulator instead (slow; for checking "
            "results), set NUMBA_ENABLE_CUDASIM=1 in the environment before "
            "Python starts"
        )


class _Cuda:
    """``torch.cuda``'s questions that a script asks before it picks a device
    (``kt.cuda.is_available()``). Random numbers are drawn on the host for every
    backend, so ``manual_seed`` is ``kt.manual_seed``'s business and these are
    no-ops."""

    @staticmethod
    def is_available() -> bool:
        """Whether a real GPU is there for ``device("cuda")``: Module 3 has named
        its CUDA backend and Numba finds a GPU. False in Numba's simulator
        (``NUMBA_ENABLE_CUDASIM=1``), where ``.cuda()`` still works: a script
        that picks its device by this question would crawl there."""
        if "cuda" not in _named:
            return False
        try:
            from numba import config

            _check_cuda()
        except (ImportError, RuntimeError):
            return False
        return not config.ENABLE_CUDASIM

    def device_count(self) -> int:
        """1 where CUDA is available (one GPU is used), else 0."""
        return int(self.is_available())

    @staticmethod
    def current_device() -> int:
        return 0

    @staticmethod
    def manual_seed(seed: int) -> None:
        pass

    manual_seed_all = manual_seed

    @staticmethod
    def synchronize(device: Any = None) -> None:
        pass


#: ``kt.cuda``, as ``torch.cuda``.
cuda = _Cuda()
