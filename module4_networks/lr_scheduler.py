"""``optim.lr_scheduler``: learning-rate schedules, as ``torch.optim.lr_scheduler``
(given code).

A scheduler wraps an optimizer and sets ``param_groups[i]["lr"]`` at each step
``last_epoch``; call ``scheduler.step()`` after ``optimizer.step()`` (once per
epoch, or once per batch for :class:`OneCycleLR`)::

    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)
    for epoch in range(30):
        train_one_epoch(...)
        sched.step()

As in PyTorch, the multiplicative schedules (``StepLR``, ``MultiStepLR``,
``ExponentialLR``, ``LinearLR``, ``ConstantLR``, ``PolynomialLR``,
``MultiplicativeLR``, ``CosineAnnealingLR``) are *chainable*: each step
multiplies the group's **current** rate by a factor, so two schedulers on one
optimizer compose (ExponentialLR(0.95) with MultiStepLR([2, 4], 0.5) gives 0.1,
0.095, 0.045125, ...), and a rate set by hand in ``param_groups`` is kept and
scaled from there. ``step(epoch)`` (deprecated in PyTorch) jumps to step
``epoch`` with the closed form from the initial rates. ``LambdaLR``,
``OneCycleLR`` and ``CosineAnnealingWarmRestarts`` compute from the initial
rates, as PyTorch's do, and so does ``CyclicLR`` (from its ``base_lr`` and
``max_lr``).
"""

from __future__ import annotations

import bisect
import math
from collections import Counter
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

__all__ = [
    "LRScheduler",
    "StepLR",
    "MultiStepLR",
    "ConstantLR",
    "ExponentialLR",
    "LinearLR",
    "PolynomialLR",
    "MultiplicativeLR",
    "CosineAnnealingLR",
    "CosineAnnealingWarmRestarts",
    "LambdaLR",
    "OneCycleLR",
    "CyclicLR",
    "SequentialLR",
    "ChainedScheduler",
    "ReduceLROnPlateau",
]


class LRScheduler:
    """Base class: keeps ``base_lrs`` (each group's ``initial_lr``),
    ``last_epoch`` and ``_step_count``; :meth:`step` advances the count and
    writes :meth:`get_lr` into the optimizer. Constructing one takes the first
    step (``last_epoch = 0``) with ``_is_initial`` set, as in PyTorch: a
    chainable schedule then leaves the current rate as it is (``LinearLR`` and
    ``ConstantLR`` apply their starting factor), so a scheduler rebuilt for an
    optimizer whose state was loaded keeps the loaded rate. With
    ``last_epoch >= 0`` (resuming) every group must have its ``initial_lr``."""

    _is_initial: bool = False

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
        self._initial_step()

    def _initial_step(self) -> None:
        """The step taken at construction (``_is_initial`` set while it runs)."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def _current(self) -> List[float]:
        """Each group's rate now: what a chainable schedule multiplies."""
        return [group["lr"] for group in self.optimizer.param_groups]

    def get_lr(self) -> List[float]:
        """The rate of each group at step ``last_epoch``, from the current
        rates (chainable schedules) or the initial ones."""
        raise NotImplementedError

    def step(self, epoch: Optional[float] = None) -> None:
        """Advance one step and set every group's ``lr``; ``step(epoch)`` jumps
        to step ``epoch`` instead (with ``_get_closed_form_lr`` where the class
        has one, as in PyTorch)."""
        self._step_count += 1
        self._update_lr(epoch)

    def _update_lr(self, epoch: Optional[float] = None) -> None:
        if epoch is None:
            self.last_epoch += 1
            values = self.get_lr()
        else:
            self.last_epoch = epoch  # type: ignore[assignment]
            closed_form = getattr(self, "_get_closed_form_lr", None)
            values = closed_form() if closed_form is not None else self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = self._current()

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
    """Multiply the rate by ``gamma`` every ``step_size`` steps:
    $\\eta_t = \\eta_0\\, \\gamma^{\\lfloor t / \\text{step\\_size} \\rfloor}$
    when nothing else changes it."""

    def __init__(
        self, optimizer: Any, step_size: int, gamma: float = 0.1, last_epoch: int = -1
    ) -> None:
        self.step_size, self.gamma = int(step_size), float(gamma)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> List[float]:
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._current()
        return [lr * self.gamma for lr in self._current()]

    def _get_closed_form_lr(self) -> List[float]:
        factor = self.gamma ** (self.last_epoch // self.step_size)
        return [base * factor for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the rate by ``gamma`` at each of the ``milestones`` (by
    $\\gamma^k$ at a milestone given $k$ times, as in PyTorch):
    $\\eta_t = \\eta_0\\, \\gamma^{m(t)}$, $m(t)$ the number of milestones
    $\\le t$, when nothing else changes it."""

    def __init__(
        self,
        optimizer: Any,
        milestones: Sequence[int],
        gamma: float = 0.1,
        last_epoch: int = -1,
    ) -> None:
        self.milestones = Counter(int(m) for m in milestones)
        self.gamma = float(gamma)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> List[float]:
        if self.last_epoch not in self.milestones:
            return self._current()
        factor = self.gamma ** self.milestones[self.last_epoch]
        return [lr * factor for lr in self._current()]

    def _get_closed_form_lr(self) -> List[float]:
        milestones = sorted(self.milestones.elements())
        factor = self.gamma ** bisect.bisect_right(milestones, self.last_epoch)
        return [base * factor for base in self.base_lrs]


class ConstantLR(LRScheduler):
    """Multiply the rate by ``factor`` for the first ``total_iters`` steps,
    then restore it (divide by ``factor`` at step ``total_iters``)."""

    def __init__(
        self,
        optimizer: Any,
        factor: float = 1.0 / 3,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError(
                "Constant multiplicative factor expected to be between 0 and 1."
            )
        self.factor, self.total_iters = float(factor), int(total_iters)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> List[float]:
        if self.last_epoch == 0:
            return [lr * self.factor for lr in self._current()]
        if self.last_epoch != self.total_iters:
            return self._current()
        return [lr / self.factor for lr in self._current()]

    def _get_closed_form_lr(self) -> List[float]:
        factor = 1.0 if self.last_epoch >= self.total_iters else self.factor
        return [base * factor for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the rate by ``gamma`` at every step: $\\eta_t = \\eta_0\\,
    \\gamma^t$ when nothing else changes it."""

    def __init__(self, optimizer: Any, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = float(gamma)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> List[float]:
        if self._is_initial:
            return self._current()
        return [lr * self.gamma for lr in self._current()]

    def _get_closed_form_lr(self) -> List[float]:
        return [base * self.gamma**self.last_epoch for base in self.base_lrs]


class LinearLR(LRScheduler):
    """A warm-up: the factor on the rate moves linearly from ``start_factor``
    $s$ to ``end_factor`` $e$ over ``total_iters`` $T$ steps, then stays,
    $\\eta_t = \\eta_0 (s + (e - s) \\min(t, T) / T)$ when nothing else changes
    the rate. Step $t \\le T$ multiplies the current rate by the ratio of
    consecutive factors, $1 + (e - s) / (T s + (t - 1)(e - s))$."""

    def __init__(
        self,
        optimizer: Any,
        start_factor: float = 1.0 / 3,
        end_factor: float = 1.0,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        if not 0.0 < start_factor <= 1.0:
            raise ValueError(
                "Starting multiplicative factor expected to be greater than 0 and "
                "less or equal to 1."
            )
        if not 0.0 <= end_factor <= 1.0:
            raise ValueError(
                "Ending multiplicative factor expected to be between 0 and 1."
            )
        self.start_factor, self.end_factor = float(start_factor), float(end_factor)
        self.total_iters = int(total_iters)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> List[float]:
        if self.last_epoch == 0:
            return [lr * self.start_factor for lr in self._current()]
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current()
        rise = self.end_factor - self.start_factor
        ratio = 1.0 + rise / (
            self.total_iters * self.start_factor + (self.last_epoch - 1) * rise
        )
        return [lr * ratio for lr in self._current()]

    def _get_closed_form_lr(self) -> List[float]:
        done = min(self.total_iters, self.last_epoch) / self.total_iters
        factor = self.start_factor + (self.end_factor - self.start_factor) * done
        return [base * factor for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decay to 0 over ``total_iters`` steps: $\\eta_t = \\eta_0 (1 - \\min(t,
    T)/T)^p$ when nothing else changes the rate (each step multiplies by the
    ratio of consecutive factors)."""

    def __init__(
        self,
        optimizer: Any,
        total_iters: int = 5,
        power: float = 1.0,
        last_epoch: int = -1,
    ) -> None:
        self.total_iters, self.power = int(total_iters), float(power)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> List[float]:
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current()
        t, total = self.last_epoch, self.total_iters
        ratio = ((1.0 - t / total) / (1.0 - (t - 1) / total)) ** self.power
        return [lr * ratio for lr in self._current()]

    def _get_closed_form_lr(self) -> List[float]:
        left = 1.0 - min(self.total_iters, self.last_epoch) / self.total_iters
        return [base * left**self.power for base in self.base_lrs]


def _one_per_group(optimizer: Any, fn: Any) -> List[Callable[[int], float]]:
    """``fn`` for every group, or a list of one function per group."""
    count = len(optimizer.param_groups)
    if isinstance(fn, (list, tuple)):
        if len(fn) != count:
            raise ValueError(f"Expected {count} lr_lambdas, but got {len(fn)}")
        return list(fn)
    return [fn] * count


class MultiplicativeLR(LRScheduler):
    """Multiply the rate by ``lr_lambda(t)`` at every step $t \\ge 1$."""

    def __init__(
        self,
        optimizer: Any,
        lr_lambda: Union[Callable[[int], float], Sequence[Callable[[int], float]]],
        last_epoch: int = -1,
    ) -> None:
        self.lr_lambdas = _one_per_group(optimizer, lr_lambda)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(
                    f"lr_lambda should be a function, but got {type(fn).__name__}"
                )
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> List[float]:
        if self._is_initial:
            return self._current()
        return [
            lr * fn(self.last_epoch) for lr, fn in zip(self._current(), self.lr_lambdas)
        ]


class CosineAnnealingLR(LRScheduler):
    """$\\eta_t = \\eta_{\\min} + \\tfrac12 (\\eta_0 - \\eta_{\\min})
    (1 + \\cos(\\pi t / T_{\\max}))$ when nothing else changes the rate; as in
    PyTorch each step scales the current distance to ``eta_min`` by the ratio
    of consecutive cosine terms, $\\eta_{t} = \\eta_{\\min} + (\\eta_{t-1} -
    \\eta_{\\min}) \\frac{1 + \\cos(\\pi t / T)}{1 + \\cos(\\pi (t - 1) / T)}$
    (past $T_{\\max}$ the rate climbs back, a period of $2 T_{\\max}$)."""

    def __init__(
        self, optimizer: Any, T_max: int, eta_min: float = 0.0, last_epoch: int = -1
    ) -> None:
        self.T_max, self.eta_min = int(T_max), float(eta_min)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> List[float]:
        t, period, low = self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return self._current()
        if self._step_count == 1 and t > 0:  # the first step after a resume
            return self._get_closed_form_lr()
        if (t - 1 - period) % (2 * period) == 0:  # leaving eta_min (ratio 0/0)
            rise = (1.0 - math.cos(math.pi / period)) / 2.0
            return [
                lr + (base - low) * rise
                for lr, base in zip(self._current(), self.base_lrs)
            ]
        ratio = (1.0 + math.cos(math.pi * t / period)) / (
            1.0 + math.cos(math.pi * (t - 1) / period)
        )
        return [low + (lr - low) * ratio for lr in self._current()]

    def _get_closed_form_lr(self) -> List[float]:
        cosine = 1.0 + math.cos(math.pi * self.last_epoch / self.T_max)
        return [
            self.eta_min + (base - self.eta_min) * cosine / 2.0
            for base in self.base_lrs
        ]


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

    def _period(self, t: float) -> "tuple[float, float]":
        """``(T_cur, T_i)`` at step ``t``."""
        if self.T_mult == 1:
            return t % self.T_0, float(self.T_0)
        # The restarts are at T_0 (m^n - 1) / (m - 1): find the last one <= t.
        m = self.T_mult
        n = int(math.log(t / self.T_0 * (m - 1) + 1, m))
        while self.T_0 * (m ** (n + 1) - 1) / (m - 1) <= t:  # (rounding of log)
            n += 1
        while n > 0 and self.T_0 * (m**n - 1) / (m - 1) > t:
            n -= 1
        return t - self.T_0 * (m**n - 1) / (m - 1), float(self.T_0 * m**n)

    def get_lr(self) -> List[float]:
        if self.last_epoch < 0:
            raise ValueError(f"Expected non-negative epoch, but got {self.last_epoch}")
        t_cur, t_i = self._period(self.last_epoch)
        cosine = 1.0 + math.cos(math.pi * t_cur / t_i)
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
        self.lr_lambdas = _one_per_group(optimizer, lr_lambda)
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


def _per_group(name: str, optimizer: Any, value: Any) -> List[Any]:
    """``value`` for each group: a list of one per group, or one for all."""
    groups = optimizer.param_groups
    if not isinstance(value, (list, tuple)):
        return [value] * len(groups)
    if len(value) != len(groups):
        raise ValueError(
            f"{name} must have the same length as optimizer.param_groups. {name} "
            f"has {len(value)} values, param_groups has {len(groups)}."
        )
    return list(value)


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
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                group["lr"] = lr
        self.max_lrs = _per_group("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size, self.step_ratio = up + down, up / (up + down)
        if mode not in ("triangular", "triangular2", "exp_range") and not scale_fn:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode, self.gamma, self.custom_scale_fn = mode, gamma, scale_fn
        self.scale_mode = scale_mode
        if scale_fn is None:
            self.scale_mode = "iterations" if mode == "exp_range" else "cycle"
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if not {"momentum", "betas"} & set(optimizer.defaults):
                raise ValueError(
                    "optimizer must support momentum or beta1 with `cycle_momentum` "
                    "option enabled"
                )
            self.use_beta1 = "betas" in optimizer.defaults
            self.base_momentums = _per_group("base_momentum", optimizer, base_momentum)
            self.max_momentums = _per_group("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                for top, bottom, group in zip(
                    self.max_momentums, self.base_momentums, optimizer.param_groups
                ):
                    self._set_momentum(group, top)
                    group["max_momentum"], group["base_momentum"] = top, bottom
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _set_momentum(self, group: Dict[str, Any], momentum: float) -> None:
        if self.use_beta1:
            group["betas"] = (momentum, *group["betas"][1:])
        else:
            group["momentum"] = momentum

    def scale_fn(self, x: float) -> float:
        """The height factor of cycle (or step) ``x``."""
        if self.custom_scale_fn is not None:
            return self.custom_scale_fn(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma**x

    def get_lr(self) -> List[float]:
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            position = x / self.step_ratio
        else:
            position = (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        if self.cycle_momentum:
            for bottom, top, group in zip(
                self.base_momentums, self.max_momentums, self.optimizer.param_groups
            ):
                self._set_momentum(group, top - (top - bottom) * position * scale)
        return [
            base + (peak - base) * position * scale
            for base, peak in zip(self.base_lrs, self.max_lrs)
        ]


class SequentialLR(LRScheduler):
    """Schedules one after another: ``schedulers[k]`` runs from
    ``milestones[k - 1]`` (restarted at its step 0 there) to ``milestones[k]``,
    e.g. a ``LinearLR`` warm-up then ``CosineAnnealingLR``."""

    def __init__(
        self,
        optimizer: Any,
        schedulers: Sequence[LRScheduler],
        milestones: Sequence[int],
        last_epoch: int = -1,
    ) -> None:
        if len(schedulers) < 1:
            raise ValueError("SequentialLR expects at least one scheduler")
        for k, scheduler in enumerate(schedulers):
            if scheduler.optimizer is not optimizer:
                raise ValueError(
                    f"SequentialLR expects all schedulers to belong to the same "
                    f"optimizer, but got scheduler at index {k} with a different one"
                )
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                f"Sequential Schedulers expects number of schedulers provided to be "
                f"one more than the number of milestone points, but got number of "
                f"schedulers {len(schedulers)} and the number of milestones to be "
                f"equal to {len(milestones)}"
            )
        self.optimizer = optimizer
        self._schedulers = list(schedulers)
        self._milestones = [int(m) for m in milestones]
        self.last_epoch = last_epoch + 1
        # Each scheduler stepped once when it was made: undo that, and start
        # the one running at step 0 again from the initial rates.
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        for scheduler in self._schedulers:
            _undo_step(scheduler)
        first = self._schedulers[bisect.bisect_right(self._milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def step(self, epoch: Optional[float] = None) -> None:  # type: ignore[override]
        """Advance one step of the schedule now running."""
        self.last_epoch += 1
        k = bisect.bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[k]
        if k > 0 and self._milestones[k - 1] == self.last_epoch:
            scheduler._update_lr(0)  # restart it: the closed form at step 0
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    def state_dict(self) -> Dict[str, Any]:
        return {
            "last_epoch": self.last_epoch,
            "_milestones": list(self._milestones),
            "_last_lr": list(self._last_lr),
            "_schedulers": [s.state_dict() for s in self._schedulers],
        }

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        state = dict(state_dict)
        for scheduler, saved in zip(self._schedulers, state.pop("_schedulers")):
            scheduler.load_state_dict(saved)
        self.__dict__.update(state)


def _undo_step(scheduler: Any) -> None:
    """Take back the count of the step a scheduler took when it was made (all
    the schedulers inside one that holds others)."""
    if hasattr(scheduler, "_schedulers"):
        for inner in scheduler._schedulers:
            _undo_step(inner)
    elif hasattr(scheduler, "last_epoch"):
        scheduler.last_epoch -= 1


class ChainedScheduler(LRScheduler):
    """Step several chainable schedulers together at every :meth:`step` (each
    multiplies the rate the one before it left)."""

    def __init__(
        self, schedulers: Sequence[LRScheduler], optimizer: Optional[Any] = None
    ) -> None:
        if len(schedulers) < 1:
            raise ValueError(
                "ChainedScheduler expects at least one scheduler to be chained, "
                "but got no scheduler."
            )
        optimizer = optimizer or schedulers[0].optimizer
        for k, scheduler in enumerate(schedulers):
            if isinstance(scheduler, ReduceLROnPlateau):
                raise ValueError(
                    f"ChainedScheduler does not support `ReduceLROnPlateau` "
                    f"scheduler (index {k})"
                )
            if scheduler.optimizer is not optimizer:
                raise ValueError(
                    f"ChainedScheduler expects all schedulers to belong to the "
                    f"same optimizer, but got scheduler at index {k} with a "
                    f"different one"
                )
        self.optimizer = optimizer
        self._schedulers = list(schedulers)
        self._last_lr = self._current()

    def step(self, epoch: Optional[float] = None) -> None:  # type: ignore[override]
        """Step every scheduler, in order."""
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = self._current()

    def state_dict(self) -> Dict[str, Any]:
        state = {
            k: v
            for k, v in self.__dict__.items()
            if k not in ("optimizer", "_schedulers")
        }
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        state = dict(state_dict)
        for scheduler, saved in zip(self._schedulers, state.pop("_schedulers")):
            scheduler.load_state_dict(saved)
        self.__dict__.update(state)


class ReduceLROnPlateau:
    """Divide the rate by ``1 / factor`` when a metric stops improving
    (``torch.optim.lr_scheduler.ReduceLROnPlateau``): call ``step(metric)``
    once per epoch (a validation loss with ``mode="min"``, an accuracy with
    ``"max"``).

    A metric *improves* on the best so far when it beats it by more than
    ``threshold``: relatively ($a < b (1 - \\theta)$ in ``"min"`` mode,
    ``threshold_mode="rel"``) or absolutely ($a < b - \\theta$, ``"abs"``).
    After more than ``patience`` epochs without improvement each group's rate
    becomes $\\max(\\eta\\, f, \\eta_{\\min})$ (unless that changes it by no more
    than ``eps``), and ``cooldown`` epochs pass before bad epochs count again.
    """

    def __init__(
        self,
        optimizer: Any,
        mode: str = "min",
        factor: float = 0.1,
        patience: int = 10,
        threshold: float = 1e-4,
        threshold_mode: str = "rel",
        cooldown: int = 0,
        min_lr: Union[float, Sequence[float]] = 0.0,
        eps: float = 1e-8,
    ) -> None:
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        if mode not in ("min", "max"):
            raise ValueError(f"mode {mode} is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"threshold mode {threshold_mode} is unknown!")
        groups = optimizer.param_groups
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(groups):
                raise ValueError(f"expected {len(groups)} min_lrs, got {len(min_lr)}")
            self.min_lrs = [float(v) for v in min_lr]
        else:
            self.min_lrs = [float(min_lr)] * len(groups)
        self.optimizer = optimizer
        self.mode, self.factor, self.patience = mode, float(factor), int(patience)
        self.threshold, self.threshold_mode = float(threshold), threshold_mode
        self.cooldown, self.eps = int(cooldown), float(eps)
        self.best = math.inf if mode == "min" else -math.inf
        self.num_bad_epochs = 0
        self.cooldown_counter = 0
        self.last_epoch = 0
        self._last_lr = [group["lr"] for group in groups]

    def is_better(self, a: float, best: float) -> bool:
        """Whether metric ``a`` improves on ``best`` (see the class)."""
        if self.threshold_mode == "rel":
            scale = 1.0 - self.threshold if self.mode == "min" else 1.0 + self.threshold
            return a < best * scale if self.mode == "min" else a > best * scale
        if self.mode == "min":
            return a < best - self.threshold
        return a > best + self.threshold

    def step(self, metrics: Any, epoch: Optional[int] = None) -> None:
        """Record this epoch's metric (a number or a one-element tensor)."""
        current = float(metrics)
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        if self.is_better(current, self.best):
            self.best, self.num_bad_epochs = current, 0
        else:
            self.num_bad_epochs += 1
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0  # bad epochs in cooldown do not count
        if self.num_bad_epochs > self.patience:
            for group, floor in zip(self.optimizer.param_groups, self.min_lrs):
                old = group["lr"]
                new = max(old * self.factor, floor)
                if old - new > self.eps:
                    group["lr"] = new
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def get_last_lr(self) -> List[float]:
        """The rates after the last :meth:`step`."""
        return list(self._last_lr)

    @property
    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0

    def state_dict(self) -> Dict[str, Any]:
        """Everything but the optimizer."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        """Restore what :meth:`state_dict` saved."""
        self.__dict__.update(state_dict)
