"""The fused optimizer step of one parameter, wherever its storage lives.

Interface: :func:`step`, called by ``Optimizer.step`` for each parameter: one
Numba loop over a parameter in host memory (``_fused_optim``), one kernel launch
for a parameter in GPU memory (``_fused_optim_cuda``). Each returns ``False`` for
a parameter it does not handle, and both follow the same protocol: they take over
from a student's ``update`` only after it has agreed with them.
"""

from __future__ import annotations

from typing import Any, Dict

from . import _fused_optim, _fused_optim_cuda

__all__ = ["step"]


def step(optimizer: Any, p: Any, state: Dict[str, Any], group: Dict[str, Any]) -> bool:
    """Update ``p`` by the fused step for its memory; ``False`` (nothing done)
    when the caller must run the student's ``update`` instead."""
    return _fused_optim.step(optimizer, p, state, group) or _fused_optim_cuda.step(
        optimizer, p, state, group
    )
