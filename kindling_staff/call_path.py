"""``kindling layers --trace-mul``: the files that ``a * b`` and its backward pass
run through, as a reader following the calls would open them (issue 38, item 2:
micrograd's ``a * b`` runs in one file, MiniTorch's in seven).

Traced with :func:`sys.settrace`, which reports every call of a Python function:
``a * b`` on ``FastBackend`` with 2 x 2 operands that require grad, then
``c.backward(ones)``, each phase on its own, after one warm-up of both (so that
no kernel compiles and no cache fills while traced). A *library file* is a
``.py`` file of a ``module0_*`` ... ``module9_*`` package of the tree measured; a
*call between files* is a call from a function of one library file into a
function of another (the first call, from the user's line into the library, is
not counted: every design has it). Compiled kernels and C functions (NumPy,
dict look-ups) run no Python frame, so they are not calls here; Python code of
other packages (Numba's, NumPy's) is not library code.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, Callable, Dict, List, Optional, Tuple

#: A call between files: ``(caller file, caller function, callee file, callee
#: function)``, files relative to the tree's root.
Hop = Tuple[str, str, str, str]


@dataclass
class Phase:
    """What one traced phase (``forward`` or ``backward``) ran."""

    name: str
    files: List[str]  # every library file a function of which ran, sorted
    calls: int  # calls of library functions, all of them
    hops: List[Hop]  # the calls between files, in the order they happened


def _library_file(root: Path, filename: str, seen: Dict[str, Optional[str]]) -> Any:
    """``filename`` relative to ``root`` if it is a library file, else ``None``
    (remembered per name: the tracer asks on every call)."""
    if filename not in seen:
        relative = None
        try:
            parts = Path(filename).resolve().relative_to(root).parts
        except ValueError:
            parts = ()
        if len(parts) > 1 and parts[0][:6] == "module" and parts[0][6:7].isdigit():
            relative = "/".join(parts)
        seen[filename] = relative
    return seen[filename]


def trace(root: Path, run: Callable[[], Any], name: str) -> Phase:
    """Run ``run()`` under :func:`sys.settrace` and gather its library calls."""
    root = Path(root).resolve()
    seen: Dict[str, Optional[str]] = {}
    files = set()
    calls: List[int] = [0]
    hops: List[Hop] = []

    def tracer(frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return None
        callee = _library_file(root, frame.f_code.co_filename, seen)
        if callee is None:
            return None
        files.add(callee)
        calls[0] += 1
        back = frame.f_back
        caller = (
            None if back is None else _library_file(root, back.f_code.co_filename, seen)
        )
        if caller is not None and caller != callee:
            hops.append((caller, back.f_code.co_name, callee, frame.f_code.co_name))
        return None  # no line events: calls are all this counts

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        run()
    finally:
        sys.settrace(previous)
    return Phase(name, sorted(files), calls[0], hops)


def trace_mul(root: Path) -> List[Phase]:
    """The two phases of ``c = a * b; c.backward(ones)`` on ``FastBackend``
    (2 x 2 operands that require grad), traced after one warm-up. The library is
    the one this process imports: run it from ``root``."""
    import module2_tensors as kt
    from module3_fast_ops import FastBackend

    def operands() -> Tuple[Any, Any, Any]:
        a = kt.tensor([[1.0, 2.0], [3.0, 4.0]], backend=FastBackend)
        b = kt.tensor([[5.0, 6.0], [7.0, 8.0]], backend=FastBackend)
        ones = kt.ones((2, 2), backend=FastBackend)
        return a.requires_grad_(), b.requires_grad_(), ones

    a, b, ones = operands()
    (a * b).backward(ones)  # the warm-up: compiles (or loads) the kernel
    a, b, ones = operands()
    out: Dict[str, Any] = {}
    forward = trace(root, lambda: out.setdefault("c", a * b), "forward")
    backward = trace(root, lambda: out["c"].backward(ones), "backward")
    return [forward, backward]


def measure(root: Path) -> List[Phase]:
    """:func:`trace_mul` of the tree under ``root``, in a fresh process that
    imports that tree's library (and nothing already warm): this file run as a
    script, so that the tree measured need not hold it."""
    root = Path(root).resolve()
    done = subprocess.run(
        [sys.executable, __file__, str(root)],
        cwd=root,
        env=dict(os.environ, PYTHONPATH=str(root)),
        capture_output=True,
        text=True,
        check=True,
    )
    return [
        Phase(p["name"], p["files"], p["calls"], [tuple(h) for h in p["hops"]])
        for p in json.loads(done.stdout)
    ]


def format_trace(phases: List[Phase]) -> str:
    """The report: per phase its files and calls between files (each hop with
    how often it happened), then the files of both phases together."""
    out = [
        "a * b on FastBackend (2 x 2, requires_grad), then c.backward(ones), "
        "after a warm-up:"
    ]
    for phase in phases:
        out.append(
            f"  {phase.name}: {len(phase.files)} files, {phase.calls} calls, "
            f"{len(phase.hops)} between files"
        )
        for hop, count in Counter(phase.hops).items():
            caller, caller_fn, callee, callee_fn = hop
            times = f"  x{count}" if count > 1 else ""
            out.append(f"    {caller}:{caller_fn} -> {callee}:{callee_fn}{times}")
    files = sorted({f for phase in phases for f in phase.files})
    hops = " / ".join(str(len(phase.hops)) for phase in phases)
    out.append(f"  files, both phases: {len(files)}: {', '.join(files)}")
    out.append(f"  calls between files, forward / backward: {hops}")
    return "\n".join(out)


if __name__ == "__main__":  # (measure's process: the tree's root first)
    sys.path.insert(0, sys.argv[1])
    json.dump([vars(p) for p in trace_mul(Path(sys.argv[1]))], sys.stdout)
