"""``optim.lr_scheduler``'s cyclic learning-rate schedules, as
``torch.optim.lr_scheduler``'s (given code; the base class and the schedules
indexed by epoch are in ``lr_scheduler.py``): SGDR's warm restarts
(:class:`CosineAnnealingWarmRestarts`, once per epoch or per fraction of one),
and the per-*batch* cycles :class:`OneCycleLR` and :class:`CyclicLR`, which
move the momentum (SGD's ``momentum`` or Adam's ``beta1``) against the rate::

    sched = optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=1000)
    for batch in loader:
        train_step(batch)
        sched.step()

None of them is chainable, as in PyTorch: each sets the rate from its position
in the cycle, computed from the initial rates (``CyclicLR``: its ``base_lr``
and ``max_lr``).
"""

from __future__ import annotations

import math
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

from .lr_scheduler import LRScheduler, _cosine, _per_group

__all__ = ["CosineAnnealingWarmRestarts", "OneCycleLR", "CyclicLR"]


def _momentum_key(optimizer: Any) -> str:
    """What a cyclic schedule moves: Adam's ``betas`` (its beta1) or SGD's
    ``momentum``."""
    for key in ("betas", "momentum"):
        if key in optimizer.defaults:
            return key
    raise ValueError(
        "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
    )


def _set_momenta(groups: List[Dict[str, Any]], key: str, momenta: List[float]) -> None:
    """Set each group's Adam beta1 or SGD momentum (``key``: see
    :func:`_momentum_key`) to its entry of ``momenta``."""
    for group, momentum in zip(groups, momenta):
        group[key] = (momentum, *group["betas"][1:]) if key == "betas" else momentum


class CosineAnnealingWarmRestarts(LRScheduler):
    """SGDR: cosine annealing from $\\eta_0$ to ``eta_min`` over a period that
    restarts, the $i$-th lasting $T_i = T_0\\, T_{\\text{mult}}^i$ steps:
    $\\eta_t = \\eta_{\\min} + \\tfrac12 (\\eta_0 - \\eta_{\\min})(1 + \\cos(\\pi
    T_{\\text{cur}} / T_i))$, $T_{\\text{cur}}$ the steps since the last restart.
    ``step(epoch)`` takes a fractional epoch too (``epoch + i / iters`` per
    batch)."""

    def __init__(
        self,
        optimizer: Any,
        T_0: int,
        T_mult: int = 1,
        eta_min: float = 0.0,
        last_epoch: int = -1,
    ) -> None:
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        self.T_0, self.T_mult, self.eta_min = T_0, T_mult, float(eta_min)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> List[float]:
        if self.last_epoch < 0:
            raise ValueError(f"Expected non-negative epoch, but got {self.last_epoch}")
        # The period running (T_i) and how far into it (T_cur): the restarts are
        # at T_0, T_0 + T_0 m, ...
        start, period = 0, self.T_0
        while start + period <= self.last_epoch:
            start, period = start + period, period * self.T_mult
        pct = (self.last_epoch - start) / period  # T_cur / T_i
        return [_cosine(self.eta_min, base, pct) for base in self.base_lrs]


class OneCycleLR(LRScheduler):
    """The 1cycle policy (``torch.optim.lr_scheduler.OneCycleLR``, two phases),
    stepped once per *batch*: the rate rises from ``max_lr / div_factor`` to
    ``max_lr`` over the first ``pct_start`` of ``total_steps``, then falls to
    ``initial_lr / final_div_factor`` (cosine or linear annealing); with
    ``three_phase`` it first falls back to the start over as many steps, then
    anneals to the end. With ``cycle_momentum`` the momentum (SGD's
    ``momentum``, Adam's ``beta1``) moves the opposite way, between
    ``max_momentum`` and ``base_momentum``.

    Raises:
        ValueError: no way to know ``total_steps``, or a step past its end.
    """

    def __init__(
        self,
        optimizer: Any,
        max_lr: Union[float, Sequence[float]],
        total_steps: Optional[int] = None,
        epochs: Optional[int] = None,
        steps_per_epoch: Optional[int] = None,
        pct_start: float = 0.3,
        anneal_strategy: str = "cos",
        cycle_momentum: bool = True,
        base_momentum: float = 0.85,
        max_momentum: float = 0.95,
        div_factor: float = 25.0,
        final_div_factor: float = 1e4,
        three_phase: bool = False,
        last_epoch: int = -1,
    ) -> None:
        if total_steps is None:
            if epochs is None or steps_per_epoch is None:
                raise ValueError(
                    "You must define either total_steps OR (epochs AND steps_per_epoch)"
                )
            total_steps = epochs * steps_per_epoch
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', got "
                f"{anneal_strategy!r}"
            )
        self.total_steps, self.anneal = int(total_steps), anneal_strategy
        rise = float(pct_start) * self.total_steps - 1
        self.phases = [(rise, "initial_lr", "max_lr")]
        if three_phase:  # up, back down to the start, then the final anneal
            self.phases.append((2 * rise, "max_lr", "initial_lr"))
        self.phases.append((self.total_steps - 1, self.phases[-1][2], "min_lr"))
        peaks = _per_group("max_lr", optimizer, max_lr)
        for group, peak in zip(optimizer.param_groups, peaks):
            start = peak / div_factor
            group.update(initial_lr=start, max_lr=peak, min_lr=start / final_div_factor)
        self.momentum_key = _momentum_key(optimizer) if cycle_momentum else None
        self.base_momentum, self.max_momentum = base_momentum, max_momentum
        super().__init__(optimizer, last_epoch)

    def _at(self, step: int, values: Dict[str, Any]) -> float:
        """The value at ``step`` of the curve ``values["initial_lr"]`` ->
        ``values["max_lr"]`` (phase 1) -> ``values["min_lr"]`` (a group's rates,
        or the momentum's)."""
        # The phase running: the first that ends at or after step, else the last.
        k = sum(step > last for last, _, _ in self.phases[:-1])
        begin = self.phases[k - 1][0] if k else 0.0
        last, a, b = self.phases[k]
        pct = (step - begin) / (last - begin) if last > begin else 1.0
        if self.anneal == "cos":
            return _cosine(values[b], values[a], pct)
        return (values[b] - values[a]) * pct + values[a]

    def get_lr(self) -> List[float]:
        step = self.last_epoch
        if step > self.total_steps:  # (step total_steps itself is allowed)
            raise ValueError(
                f"Tried to step {step} times. The specified number of total steps "
                f"is {self.total_steps}"
            )
        groups = self.optimizer.param_groups
        if self.momentum_key is not None:
            # High momentum while the rate is low, and the other way round.
            top, bottom = self.max_momentum, self.base_momentum
            momentum = self._at(step, dict(initial_lr=top, max_lr=bottom, min_lr=top))
            _set_momenta(groups, self.momentum_key, [momentum] * len(groups))
        return [self._at(step, group) for group in groups]


class CyclicLR(LRScheduler):
    """The cyclical learning rate (``torch.optim.lr_scheduler.CyclicLR``),
    stepped once per *batch*: the rate climbs linearly from ``base_lr`` to
    ``max_lr`` over ``step_size_up`` steps, falls back over ``step_size_down``
    (default: as many), and repeats, the height of cycle $c = 1, 2, \\dots$
    scaled by ``mode``: ``"triangular"`` 1, ``"triangular2"`` $2^{1 - c}$,
    ``"exp_range"`` $\\gamma^t$ at step $t$ (or ``scale_fn`` of the cycle, or
    of $t$ with ``scale_mode="iterations"``). With ``cycle_momentum`` the
    momentum (SGD's, or Adam's ``beta1``) moves the other way, between
    ``max_momentum`` and ``base_momentum``. Not chainable, as PyTorch's: it
    sets each rate from its cycle position."""

    def __init__(
        self,
        optimizer: Any,
        base_lr: Union[float, Sequence[float]],
        max_lr: Union[float, Sequence[float]],
        step_size_up: int = 2000,
        step_size_down: Optional[int] = None,
        mode: str = "triangular",
        gamma: float = 1.0,
        scale_fn: Optional[Callable[[float], float]] = None,
        scale_mode: str = "cycle",
        cycle_momentum: bool = True,
        base_momentum: Union[float, Sequence[float]] = 0.8,
        max_momentum: Union[float, Sequence[float]] = 0.9,
        last_epoch: int = -1,
    ) -> None:
        base_lrs = _per_group("base_lr", optimizer, base_lr)
        self.max_lrs = _per_group("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size, self.step_ratio = up + down, up / (up + down)
        if mode not in ("triangular", "triangular2", "exp_range") and not scale_fn:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode, self.gamma, self.custom_scale_fn = mode, gamma, scale_fn
        by_mode = "iterations" if mode == "exp_range" else "cycle"
        self.scale_mode = by_mode if scale_fn is None else scale_mode
        self.momentum_key = _momentum_key(optimizer) if cycle_momentum else None
        if cycle_momentum:
            self.base_momentums = _per_group("base_momentum", optimizer, base_momentum)
            self.max_momentums = _per_group("max_momentum", optimizer, max_momentum)
        if last_epoch == -1:  # a fresh schedule: each group starts at its base_lr
            for k, group in enumerate(optimizer.param_groups):
                group["lr"] = base_lrs[k]
                if cycle_momentum:  # (the first step sets each momentum to its max)
                    group["max_momentum"] = self.max_momentums[k]
                    group["base_momentum"] = self.base_momentums[k]
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def scale_fn(self, x: float) -> float:
        """The height factor of cycle (or step) ``x``."""
        if self.custom_scale_fn is not None:
            return self.custom_scale_fn(x)
        if self.mode == "triangular":
            return 1.0
        return 1 / (2.0 ** (x - 1)) if self.mode == "triangular2" else self.gamma**x

    def get_lr(self) -> List[float]:
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        ratio = self.step_ratio  # the rising part of a cycle
        position = x / ratio if x <= ratio else (x - 1) / (ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)

        def between(starts: List[float], ends: List[float]) -> List[float]:
            """Each start moved towards its end by the cycle's scaled position."""
            return [a + (b - a) * position * scale for a, b in zip(starts, ends)]

        if self.momentum_key is not None:  # (from its max at the lowest rate)
            momenta = between(self.max_momentums, self.base_momentums)
            _set_momenta(self.optimizer.param_groups, self.momentum_key, momenta)
        return between(self.base_lrs, self.max_lrs)
