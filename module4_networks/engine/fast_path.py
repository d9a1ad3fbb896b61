"""The one mechanism by which Module 4's fast paths stand in for students' code.

A fast path computes what a student's function computes, faster (one BLAS call,
one compiled pass, one autograd node). The student's code stays the definition:
for each new *signature* (shapes, layouts, which inputs need a gradient,
backend; each path says what its key holds) the first call runs the student's
function forward and backward on detached copies, with a fixed pseudo-random
output gradient, and the fast path beside it. The fast path serves that
signature only when values and gradients agree; otherwise the student's code
keeps running (and showing its mistake), and a stub still raises where it did.

One :class:`FastPath` object per path, registered by name in
:data:`FAST_PATHS`, holds:

* the verdicts, one per signature, at most ``cap`` of them (a model with ever
  new shapes checks each, but memory stays bounded: past the cap a signature is
  checked each time);
* ``checking``: set while the student's code runs for a check, so that the
  path steps aside inside its own reference run (the student's function may call
  the very function the path stands in for);
* counters that tests and curious students read: ``served`` and ``declined``
  calls, ``agreed`` and ``differed`` signatures.

Each call site keeps one visible branch, as nanoGPT's ``if self.flash:``::

    fast = _pool_fast.max_pool2d(max_pool2d, input, kernel_size, stride, ...)
    if fast is not None:
        return fast
    ...  # the student's code

``with FAST_PATHS["matmul"].off():`` runs the student's code alone.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Dict, Hashable, Iterator, Tuple

import numpy as np

from module0_fundamentals._exports import defined_here
from module2_tensors.engine.dtypes import float64
from module2_tensors.engine.grad_modes import is_grad_enabled

#: Signatures a path remembers at the most (each verdict is a few bytes).
CAP = 4096

#: Relative tolerance of an agreement: a fast path and the students' code add
#: the same numbers in another order (BLAS blocks its sums), nothing more.
RTOL = 1e-9


class FastPath:
    """A fast path for the student's ``student`` (a description for messages, as
    ``"a @ b (Task 3.2's kernel)"``), deciding per signature whether it serves."""

    def __init__(self, name: str, student: str, cap: int = CAP) -> None:
        self.name, self.student, self.cap = name, student, cap
        self.reset()  # (no verdicts, counts 0, not checking)

    # ------------------------------------------------------------ deciding
    def verdict(self, key: Hashable, check: Callable[[], Any]) -> Any:
        """The verdict of signature ``key``: remembered, or ``check()`` (run once
        per signature, with :attr:`checking` set). A truthy verdict means the
        path serves the call (a path may return data with it, such as an output
        shape); a falsy one that the student's code runs."""
        if key in self._verdicts:
            verdict = self._verdicts[key]
        else:
            with self.off():  # (the path steps aside while the check runs)
                verdict = check()
            if len(self._verdicts) < self.cap:
                self._verdicts[key] = verdict
        self.served += bool(verdict)
        self.declined += not verdict
        return verdict

    @contextlib.contextmanager
    def off(self) -> Iterator["FastPath"]:
        """Run the student's code alone inside the block (tests, debugging)."""
        before, self.checking = self.checking, True
        try:
            yield self
        finally:
            self.checking = before

    # ------------------------------------------------------------ reporting
    @property
    def outcomes(self) -> Tuple[Any, ...]:
        """The verdicts remembered, in the order their signatures came."""
        return tuple(self._verdicts.values())

    @property
    def signatures(self) -> int:
        """Signatures checked and remembered."""
        return len(self._verdicts)

    @property
    def agreed(self) -> int:
        """Signatures on which the path agreed with the student's code."""
        return sum(1 for v in self._verdicts.values() if v)

    @property
    def differed(self) -> int:
        """Signatures on which it did not (the student's code runs there)."""
        return self.signatures - self.agreed

    def reset(self) -> None:
        """Forget every verdict and count (a student's code was edited, a test)."""
        self._verdicts: Dict[Hashable, Any] = {}
        self.served = self.declined = 0
        self.checking = False

    def __repr__(self) -> str:
        return (
            f"FastPath({self.name}: stands in for {self.student}; "
            f"{self.signatures} signature(s) checked, {self.agreed} agreed, "
            f"{self.differed} differed; {self.served} call(s) served, "
            f"{self.declined} declined)"
        )


#: Every fast path by name: the registry tests and the docs read.
FAST_PATHS: Dict[str, FastPath] = {}


def fast_path(name: str, student: str, cap: int = CAP) -> FastPath:
    """Register (once) and return the fast path ``name`` standing in for
    ``student``."""
    if name in FAST_PATHS:
        raise ValueError(f"a fast path named {name!r} is already registered")
    FAST_PATHS[name] = path = FastPath(name, student, cap)
    return path


def signature(*tensors: Any) -> Tuple[Hashable, Tuple[bool, ...]]:
    """The key of a call on ``tensors`` (``None`` allowed; the backend is the
    first one's): each one's shape and strides and whether it needs a gradient
    (none without recording: then a check compares the forward alone, the only
    part that will be used); and those needs."""
    grad = is_grad_enabled()
    needs = tuple(grad and t is not None and t.requires_grad for t in tensors)
    layouts = tuple(
        None if t is None else (t.shape, t.tuple()[2].tobytes()) for t in tensors
    )
    return (type(tensors[0].backend), needs, layouts), needs


def probe_gradient(shape: Tuple[int, ...]) -> np.ndarray:
    """The output gradient of a reference run: standard normal entries from a
    generator of its own (seed 0), so that a check never moves the seeded random
    stream a student's script relies on."""
    return np.random.default_rng(0).standard_normal(shape)


def ran_backward(out: Any, grad: Any) -> bool:
    """``out.backward(grad)`` in a reference run; ``False`` where the student's
    backward raised (a stub, a bug): the path then declines that signature, and
    the student's own code raises it where it did before, so a forward-only use
    of a half-finished task keeps working."""
    try:
        out.backward(grad)
    except Exception:  # noqa: BLE001 (any failure: the student's code decides)
        return False
    return True


def agrees(got: np.ndarray, want: Any) -> bool:
    """Whether ``got`` equals ``want`` (an array, or a tensor read through
    ``np.asarray``) to :data:`RTOL`, with an absolute floor of ``1e-12`` times
    the largest magnitude of ``want`` (at least 1). ``want=None`` (no gradient
    reached an input) stands for zeros; shapes must match."""
    want = np.zeros_like(got) if want is None else np.asarray(want)
    atol = 1e-12 * max(1.0, float(np.nanmax(np.abs(want), initial=0.0)))
    return got.shape == want.shape and np.allclose(got, want, rtol=RTOL, atol=atol)


def host_float64(t: Any) -> bool:
    """Whether ``t`` is a float64 tensor stored in host memory (a NumPy array):
    what the NumPy fast paths compute on (not CUDA, float32 or other objects; a
    tensor on a CUDA backend holds a device array: ``Tensor.__init__`` moves it
    there)."""
    return getattr(t, "dtype", None) is float64 and type(t.tuple()[0]) is np.ndarray


# (last: the names defined above)
__all__ = defined_here(globals(), "FAST_PATHS", "RTOL")
