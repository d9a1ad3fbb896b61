"""Fused optimizer steps on the GPU: SGD, Adam and AdamW in one kernel launch per
parameter, for parameters whose storage lives on ``CudaBackend``.

Interface: :func:`step` (called through ``_fused_steps.step`` by
``Optimizer.step`` for each parameter; ``_fused_optim`` handles parameters in host
memory). The kernels, and their resource check (``kindling kernels --task optim``),
are in ``_cuda_optim_kernels``.

Task 4.6's update rules, written with tensor operations, cost one kernel launch per
operation on the GPU: an Adam step of a 2-layer MLP (4 parameters) was 88 launches,
a plain SGD step 5 per parameter (``lr * g``, a negation, a sum, and two copies in
``copy_``), each launch tens of microseconds of host time (issue 40). Here one
thread per entry does the whole update, reading ``p``, ``g`` and the buffers once
and writing ``p`` and the buffers in place: one launch per parameter.

The kernels perform the floating-point operations of ``_fused_optim``'s CPU loops
in the same order, so in the simulator (plain IEEE float64 arithmetic) they agree
with them to the last bit (``tests/module4/test_fused_optim_cuda.py``). On a GPU the
compiler may contract a multiply and an add into one fused multiply-add, which
rounds once instead of twice: within float64 rounding of the formulas.

The protocol is ``_fused_optim``'s, and shares its verdicts: for each parameter,
the first ``CHECKED_STEPS`` steps run the student's ``update`` and this kernel (on
copies) side by side; only if every check agrees does the kernel take over for that
optimizer. A stub still raises, and a bug still shows in training.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import numpy as np


from . import _fused_optim

__all__ = ["step"]


# ----------------------------------------------------------------- plumbing
def _kernels() -> Any:
    """``_cuda_optim_kernels``, imported at the first parameter on a CUDA backend
    (importing it imports ``numba.cuda``, which a CPU-only run never needs)."""
    from . import _cuda_optim_kernels

    return _cuda_optim_kernels


def launch(*args: Any) -> None:
    """``module3_fast_ops._cuda_runtime.launch`` (imported when first called, for
    the reason of :func:`_kernels`): every launch of this module goes through it."""
    from module3_fast_ops._cuda_runtime import launch as run

    run(*args)


def _flat(t: Any) -> Optional[Any]:
    """The device storage of ``t`` when ``t`` is a dense view of all of it (every
    storage entry is one entry of ``t``, in any order: writing through ``t``'s
    strides reaches each entry once), else ``None``."""
    data = t._tensor
    storage = data._storage
    if not hasattr(storage, "copy_to_host") or storage.size != t.size:
        return None
    if data.row_major:
        return storage
    size = 1
    for stride, n in sorted(zip(data.strides, data.shape)):
        if n != 1 and stride != size:
            return None
        size *= n
    return storage


def _row_major(data: Any) -> bool:
    if data.row_major:
        return True
    expected = 1
    for stride, n in zip(reversed(data.strides), reversed(data.shape)):
        if n != 1 and stride != expected:
            return False
        expected *= n
    return True


def _owned(p: Any, value: Any) -> Any:
    """A fresh row-major tensor on ``p``'s backend, in GPU memory, with ``value``'s
    numbers (zeros for ``None``): a buffer this module may write in place."""
    array = np.zeros(p.shape) if value is None else value.to_numpy()
    storage = _kernels().cuda.to_device(
        np.ascontiguousarray(array, dtype=np.float64).ravel()
    )
    return type(p)(type(p._tensor)(storage, tuple(p.shape)), p.backend)


def _run(kind: str, p: Any, g: Any, state: Dict[str, Any], group: Dict) -> None:
    """One fused step of ``p`` (a dense view of its device storage) by the
    gradient ``g`` (a device tensor of ``p``'s shape, any strides), advancing
    ``state`` (whose row-major buffers this module owns) in place: one launch."""
    kernels = _kernels()
    storage, shape, p_strides = p.tuple()
    g_storage, _, g_strides = g.tuple()
    same = _row_major(p._tensor) and _row_major(g._tensor)
    size = int(p.size)
    threads = kernels.THREADS
    blocks = max(1, (size + threads - 1) // threads)
    # shape, p's strides and g's strides in ONE integer array (a device constant,
    # cached by content): each array argument is 7 kernel parameters on a GPU.
    parts = (shape, p_strides, g_strides)
    layout = (np.concatenate([np.asarray(v, np.int64) for v in parts]), same, size)
    if kind == "sgd":
        momentum = float(group["momentum"])
        first = momentum != 0.0 and "momentum_buffer" not in state
        if first:
            state["momentum_buffer"] = _owned(p, None)
        buf = _flat(state["momentum_buffer"]) if momentum != 0.0 else storage
        rates = (float(group["lr"]), float(group["weight_decay"]), momentum)
        more = (float(group["dampening"]), bool(group["nesterov"]), first)
        launch(
            kernels.sgd,
            blocks,
            threads,
            storage,
            g_storage,
            buf,
            *layout,
            *rates,
            *more,
        )
        return
    beta1, beta2 = (float(b) for b in group["betas"])
    t = state.get("step", 0) + 1
    for name in ("exp_avg", "exp_avg_sq"):
        if name not in state:
            state[name] = _owned(p, None)
    lr, wd = float(group["lr"]), float(group["weight_decay"])
    decay = 1.0 - lr * wd if kind == "adamw" else 1.0
    moments = (_flat(state["exp_avg"]), _flat(state["exp_avg_sq"]))
    rates = (lr, beta1, beta2, float(group["eps"]), wd if kind == "adam" else 0.0)
    corrections = (decay, 1.0 / (1.0 - beta1**t), 1.0 / (1.0 - beta2**t))
    args = (storage, g_storage, *moments, *layout, *rates, *corrections)
    launch(kernels.adam, blocks, threads, *args)
    state["step"] = t


GPU = _fused_optim.Memory(_flat, _owned, _run)


def step(optimizer: Any, p: Any, state: Dict[str, Any], group: Dict[str, Any]) -> bool:
    """Update parameter ``p`` (whose ``.grad`` is set) by one fused kernel launch,
    when ``optimizer`` is a plain ``SGD``, ``Adam`` or ``AdamW`` whose student
    formulas have agreed with it, and ``p`` and its gradient live in GPU memory
    (the protocol is :func:`_fused_optim.fused_step`'s)."""
    if not p.backend.cuda:
        return False  # host memory: _fused_optim's loops
    g = p.grad.detach()
    if g.shape != p.shape or not hasattr(g._tensor._storage, "copy_to_host"):
        return False  # a gradient in host memory: the formulas handle it
    return _fused_optim.fused_step(GPU, optimizer, p, g, state, group)
