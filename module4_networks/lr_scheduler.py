"""``optim.lr_scheduler``: learning-rate schedules, as ``torch.optim.lr_scheduler``
(given code).

A scheduler wraps an optimizer and sets ``param_groups[i]["lr"]`` from a formula
of the step count ``last_epoch``; call ``scheduler.step()`` after
``optimizer.step()`` (once per epoch, or once per batch for :class:`OneCycleLR`)::

    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)
    for epoch in range(30):
        train_one_epoch(...)
        sched.step()

Every schedule here is computed in closed form from the initial rates, so the
rates are the ones PyTorch gives when nothing else changes them.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

__all__ = ["LRScheduler", "StepLR", "CosineAnnealingLR", "LambdaLR", "OneCycleLR"]


class LRScheduler:
    """Base class: keeps ``base_lrs`` (each group's ``initial_lr``) and
    ``last_epoch``; :meth:`step` advances the count and writes
    :meth:`get_lr` into the optimizer. Constructing one takes the first step
    (``last_epoch = 0``), as in PyTorch; a schedule that is a multiple of the
    current rate (``keeps_lr_at_start``: ``StepLR``, ``CosineAnnealingLR``)
    leaves the rate as it is at step 0, so a scheduler rebuilt for an optimizer
    whose state was loaded keeps the loaded rate. With ``last_epoch >= 0``
    (resuming) every group must have its ``initial_lr``."""

    #: Whether the step taken at construction keeps each group's current lr.
    keeps_lr_at_start: bool = False

    def __init__(self, optimizer: Any, last_epoch: int = -1) -> None:
        self.optimizer = optimizer
        for k, group in enumerate(optimizer.param_groups):
            if last_epoch == -1:
                group.setdefault("initial_lr", group["lr"])
            elif "initial_lr" not in group:
                raise KeyError(
                    f"param 'initial_lr' is not specified in param_groups[{k}] "
                    f"when resuming scheduler with last_epoch >= 0 (load the "
                    f"optimizer's state_dict first)"
                )
        self.base_lrs: List[float] = [g["initial_lr"] for g in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._last_lr: List[float] = []
        self.step()

    def get_lr(self) -> List[float]:
        """The rate of each group at step ``last_epoch``."""
        raise NotImplementedError

    def step(self) -> None:
        """Advance one step and set every group's ``lr``."""
        self.last_epoch += 1
        if not (self.last_epoch == 0 and self.keeps_lr_at_start):
            for group, lr in zip(self.optimizer.param_groups, self.get_lr()):
                group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def get_last_lr(self) -> List[float]:
        """The rates set by the last :meth:`step`."""
        return list(self._last_lr)

    def state_dict(self) -> Dict[str, Any]:
        """Everything but the optimizer (and functions, which do not save)."""
        return {
            key: value
            for key, value in self.__dict__.items()
            if key != "optimizer"
            and not callable(value)
            and not (isinstance(value, list) and value and callable(value[0]))
        }

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        """Restore what :meth:`state_dict` saved."""
        self.__dict__.update(state_dict)


class StepLR(LRScheduler):
    """$\\eta_t = \\eta_0\\, \\gamma^{\\lfloor t / \\text{step\\_size} \\rfloor}$."""

    keeps_lr_at_start = True

    def __init__(
        self, optimizer: Any, step_size: int, gamma: float = 0.1, last_epoch: int = -1
    ) -> None:
        self.step_size, self.gamma = int(step_size), float(gamma)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> List[float]:
        factor = self.gamma ** (self.last_epoch // self.step_size)
        return [base * factor for base in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """$\\eta_t = \\eta_{\\min} + \\tfrac12 (\\eta_0 - \\eta_{\\min})
    (1 + \\cos(\\pi t / T_{\\max}))$."""

    keeps_lr_at_start = True

    def __init__(
        self, optimizer: Any, T_max: int, eta_min: float = 0.0, last_epoch: int = -1
    ) -> None:
        self.T_max, self.eta_min = int(T_max), float(eta_min)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> List[float]:
        cosine = 1.0 + math.cos(math.pi * self.last_epoch / self.T_max)
        return [
            self.eta_min + (base - self.eta_min) * cosine / 2.0
            for base in self.base_lrs
        ]


class LambdaLR(LRScheduler):
    """$\\eta_t = \\eta_0\\, \\lambda(t)$ for a function ``lr_lambda`` (or one per
    group)."""

    def __init__(
        self,
        optimizer: Any,
        lr_lambda: Union[Callable[[int], float], Sequence[Callable[[int], float]]],
        last_epoch: int = -1,
    ) -> None:
        count = len(optimizer.param_groups)
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != count:
                raise ValueError(
                    f"Expected {count} lr_lambdas, but got {len(lr_lambda)}"
                )
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * count
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> List[float]:
        return [
            base * fn(self.last_epoch)
            for base, fn in zip(self.base_lrs, self.lr_lambdas)
        ]


class OneCycleLR(LRScheduler):
    """The 1cycle policy (``torch.optim.lr_scheduler.OneCycleLR``, two phases),
    stepped once per *batch*: the rate rises from ``max_lr / div_factor`` to
    ``max_lr`` over the first ``pct_start`` of ``total_steps``, then falls to
    ``initial_lr / final_div_factor`` (cosine or linear annealing); with
    ``three_phase`` it first falls back to the start over as many steps, then
    anneals to the end. With
    ``cycle_momentum`` the momentum (SGD's ``momentum``, Adam's ``beta1``) moves
    the opposite way, between ``max_momentum`` and ``base_momentum``.

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
                    "You must define either total_steps OR (epochs AND "
                    "steps_per_epoch)"
                )
            total_steps = epochs * steps_per_epoch
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', got "
                f"{anneal_strategy!r}"
            )
        self.total_steps = int(total_steps)
        self.anneal = anneal_strategy
        groups = optimizer.param_groups
        peaks = (
            list(max_lr)
            if isinstance(max_lr, (list, tuple))
            else [max_lr] * len(groups)
        )
        rise = float(pct_start) * self.total_steps - 1
        if three_phase:  # up, back down to the start, then the final anneal
            self.phases = [
                (rise, "initial_lr", "max_lr"),
                (2 * float(pct_start) * self.total_steps - 2, "max_lr", "initial_lr"),
                (self.total_steps - 1, "initial_lr", "min_lr"),
            ]
        else:
            self.phases = [
                (rise, "initial_lr", "max_lr"),
                (self.total_steps - 1, "max_lr", "min_lr"),
            ]
        for group, peak in zip(groups, peaks):
            group["initial_lr"] = peak / div_factor
            group["max_lr"] = peak
            group["min_lr"] = group["initial_lr"] / final_div_factor
        self.momentum_key: Optional[str] = None
        if cycle_momentum:
            if "momentum" in optimizer.defaults:
                self.momentum_key = "momentum"
            elif "betas" in optimizer.defaults:
                self.momentum_key = "betas"
            else:
                raise ValueError(
                    "optimizer must support momentum or beta1 with `cycle_momentum` "
                    "option enabled"
                )
        self.base_momentum, self.max_momentum = base_momentum, max_momentum
        super().__init__(optimizer, last_epoch)

    def _interpolate(self, start: float, end: float, pct: float) -> float:
        if self.anneal == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1.0)
        return (end - start) * pct + start

    def _at(self, step: int, start: float, peak: float, end: float) -> float:
        """The value at ``step`` of a curve start -> peak (phase 1) -> end."""
        values = {"initial_lr": start, "max_lr": peak, "min_lr": end}
        begin = 0.0
        for k, (last, a, b) in enumerate(self.phases):
            if step <= last or k == len(self.phases) - 1:
                pct = (step - begin) / (last - begin) if last > begin else 1.0
                return self._interpolate(values[a], values[b], pct)
            begin = last
        raise AssertionError("unreachable")

    def get_lr(self) -> List[float]:
        step = self.last_epoch
        if step > self.total_steps:  # (step total_steps itself is allowed)
            raise ValueError(
                f"Tried to step {step} times. The specified number of total steps "
                f"is {self.total_steps}"
            )
        lrs = []
        for group in self.optimizer.param_groups:
            lrs.append(
                self._at(step, group["initial_lr"], group["max_lr"], group["min_lr"])
            )
            if self.momentum_key is not None:
                # High momentum while the rate is low, and the other way round.
                momentum = self._at(
                    step, self.max_momentum, self.base_momentum, self.max_momentum
                )
                if self.momentum_key == "betas":
                    group["betas"] = (momentum, group["betas"][1])
                else:
                    group["momentum"] = momentum
        return lrs
