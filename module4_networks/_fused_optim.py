"""Fused optimizer steps on the GPU: SGD, Adam and AdamW in one kernel launch per
parameter, for parameters whose storage lives on ``CudaBackend``.

Interface: :func:`step` (called by ``Optimizer.step`` for each parameter; it
returns ``False``, nothing done, where the student's ``update`` must run: on the
CPU backends always) and :func:`fuses` (the package registers the classes
served). The kernels, and their resource check (``kindling kernels --task
optim``), are in ``_cuda_optim_kernels``.

Task 4.6's update rules, written with tensor operations, cost one kernel launch per
operation on the GPU: an Adam step of a 2-layer MLP (4 parameters) was 88 launches,
a plain SGD step 5 per parameter (``lr * g``, a negation, a sum, and two copies in
``copy_``), each launch tens of microseconds of host time (issue 40). Here one
thread per entry does the whole update, reading ``p``, ``g`` and the buffers once
and writing ``p`` and the buffers in place: one launch per parameter. On the CPU
the same fusion (one Numba loop per parameter) was worth only 1.02-1.12x a
model's step and was deleted (``docs/DESIGN.md``, section 2): there the
student's formulas run as written.

The kernels perform *the same floating-point operations in the same order* as the
reference formulas (``a / b`` is ``a * (1 / b)`` there, as ``Tensor.__truediv__``
computes it; ``a - b`` is ``a + (-b)``, which is the same number), so in the
simulator (plain IEEE float64 arithmetic) they agree with the reference solution to
the last bit (``tests/module4/test_fused_optim_cuda.py``). On a GPU the compiler
may contract a multiply and an add into one fused multiply-add, which rounds once
instead of twice: within float64 rounding of the formulas.

A student's formulas stay the definition: for each parameter, the first
:data:`CHECKED_STEPS` steps run the student's ``update`` and this kernel (on
copies) side by side and compare them (within float64 rounding, since a correct
formula may round differently); only if every check agrees does the kernel take
over for that optimizer. A stub still raises, and a bug still shows in training.
"""

from __future__ import annotations

from typing import Any, Dict, Optional
from weakref import WeakKeyDictionary

import numpy as np

from ._optimizer_state import State, _mapped
from .engine import agrees

#: Steps per parameter on which the student's update is run and compared.
CHECKED_STEPS = 2

#: optimizer -> {"ok": bool, "checked": {parameter id: steps checked}}
_VERDICTS: "WeakKeyDictionary[Any, Dict[str, Any]]" = WeakKeyDictionary()

#: The optimizer classes the fused kernels serve, by kind ("sgd", "adam",
#: "adamw": the Adam kernel, its decay as the group's ``decoupled_weight_decay``
#: says): registered by the package with :func:`fuses` (this module does not
#: import ``optim``, which imports it).
_KINDS: Dict[type, str] = {}


def fuses(kinds: Dict[type, str]) -> None:
    """Register optimizer classes and the fused kernel of each."""
    _KINDS.update(kinds)


def _flat(t: Any) -> Optional[Any]:
    """The device storage of ``t`` when ``t`` is a dense view of all of it (every
    storage entry is one entry of ``t``, in any order: writing through ``t``'s
    strides reaches each entry once), else ``None``."""
    storage = t._tensor._storage
    if not hasattr(storage, "copy_to_host") or storage.size != t.size:
        return None
    size = 1
    for stride, n in sorted(zip(t._tensor.strides, t.shape)):
        if n != 1 and stride != size:
            return None
        size *= n
    return storage


def _owned(p: Any, value: Any) -> Any:
    """A fresh row-major tensor on ``p``'s backend, in GPU memory, with ``value``'s
    numbers (zeros for ``None``): a buffer this module may write in place."""
    array = np.zeros(p.shape) if value is None else value.to_numpy()
    storage = p.backend.ops.to_device(np.ascontiguousarray(array, np.float64).ravel())
    return type(p)(type(p._tensor)(storage, tuple(p.shape)), p.backend)


def _run(kind: str, p: Any, g: Any, state: Dict[str, Any], group: Dict) -> None:
    """One fused step of ``p`` (a dense view of its device storage) by the
    gradient ``g`` (a device tensor of ``p``'s shape, any strides), advancing
    ``state`` (whose row-major buffers this module owns) in place: one launch."""
    # Imported here: importing the kernels imports numba.cuda, which a CPU-only run
    # never needs (the runtime is loaded by now).
    from module3_fast_ops._cuda_runtime import launch, layout as pack
    from module3_fast_ops.cuda_ops import THREADS_PER_BLOCK as threads

    from . import _cuda_optim_kernels as kernels

    storage, shape, p_strides = p.tuple()
    g_storage, _, g_strides = g.tuple()
    same = p.is_contiguous() and g.is_contiguous()  # (both row-major)
    size = int(p.size)
    blocks = max(1, (size + threads - 1) // threads)
    # shape, p's strides and g's strides in ONE integer array (a device constant,
    # cached by content): each array argument is 7 kernel parameters on a GPU.
    layout = (pack(shape, p_strides, g_storage, shape, g_strides), same, size)
    lr, wd = float(group["lr"]), float(group["weight_decay"])
    if kind == "sgd":
        momentum = float(group["momentum"])
        first = momentum != 0.0 and "momentum_buffer" not in state
        if first:
            state["momentum_buffer"] = _owned(p, None)
        buf = _flat(state["momentum_buffer"]) if momentum != 0.0 else storage
        more = (float(group["dampening"]), bool(group["nesterov"]), first)
        args = (storage, g_storage, buf, *layout, lr, wd, momentum, *more)
        launch(kernels.sgd, blocks, threads, *args)
        return
    beta1, beta2 = (float(b) for b in group["betas"])
    t = state.get("step", 0) + 1
    state |= {n: _owned(p, None) for n in ("exp_avg", "exp_avg_sq") if n not in state}
    # AdamW's decay (Adam's with PyTorch's decoupled_weight_decay=True), or L2.
    decoupled = group.get("decoupled_weight_decay", False)
    decay = 1.0 - lr * wd if decoupled else 1.0
    moments = (_flat(state["exp_avg"]), _flat(state["exp_avg_sq"]))
    rates = (lr, beta1, beta2, float(group["eps"]), 0.0 if decoupled else wd)
    corrections = (decay, 1.0 / (1.0 - beta1**t), 1.0 / (1.0 - beta2**t))
    args = (storage, g_storage, *moments, *layout, *rates, *corrections)
    launch(kernels.adam, blocks, threads, *args)
    state["step"] = t


def _buffers_owned(state: Dict[str, Any]) -> bool:
    """Whether every buffer of ``state`` (its tensors) is a dense device storage
    this module may write in place."""
    return all(_flat(v) is not None for v in state.values() if hasattr(v, "to_numpy"))


def step(optimizer: Any, p: Any, g: Any, state: State, group: State) -> bool:
    """Update parameter ``p`` by its gradient ``g`` in one fused kernel launch,
    when ``optimizer`` is a plain ``SGD``, ``Adam`` or ``AdamW`` and ``p`` and its
    gradient live in GPU memory. The first :data:`CHECKED_STEPS` steps of each
    parameter run the student's ``update``, with the fused step on copies beside
    it; after they agree (parameter and buffers, ``step`` counts equal), the fused
    step runs alone, in place. One disagreement hands the optimizer back to the
    student's code for good. Returns ``False`` (nothing done) where the caller
    must run ``update``."""
    kind = _KINDS.get(type(optimizer))  # exact classes: a subclass may differ
    if kind is None or group.get("amsgrad", False) or _flat(p) is None:
        return False  # AMSGrad keeps one more buffer: the plain path computes it
    if g.shape != p.shape or not hasattr(g._tensor._storage, "copy_to_host"):
        return False  # a gradient in host memory: the formulas handle it
    verdict = _VERDICTS.setdefault(optimizer, {"ok": True, "checked": {}})
    if not verdict["ok"]:
        return False
    checked = verdict["checked"].get(p.unique_id, 0)
    if checked >= CHECKED_STEPS:
        if not _buffers_owned(state):
            return False  # buffers loaded from a state_dict, say: not ours to write
        from module2_tensors.engine import versions

        _run(kind, p, g, state, group)
        versions.bump_version(p)
        return True
    # A checked step: the student's update decides; the fused step runs on copies.
    mirror = _mapped(state, lambda value: _owned(p, value))
    shadow = _owned(p, p.detach())
    if not _buffers_owned(mirror):  # a buffer of another size: never launch
        verdict["ok"] = False
        return False
    _run(kind, shadow, g, mirror, group)
    p.copy_(optimizer.update(p.detach(), g, state, group))
    agree = _close(p, shadow) and all(
        _close(state.get(k), v) for k, v in mirror.items() if hasattr(v, "to_numpy")
    )
    verdict["ok"] = agree and state.get("step", 0) == mirror.get("step", 0)
    if verdict["ok"]:  # agreed: from now on the buffers are the fused step's copies
        state.update(mirror)
        verdict["checked"][p.unique_id] = checked + 1
    return True


def _close(a: Any, b: Any) -> bool:
    return a is not None and b is not None and agrees(a.to_numpy(), b.to_numpy())
