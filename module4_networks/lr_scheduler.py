"""``optim.lr_scheduler``: the learning-rate schedules indexed by epoch, as
``torch.optim.lr_scheduler`` (given code; the cyclic ones are in
``lr_cycles.py``, and ``optim.lr_scheduler`` assembles both).

A scheduler wraps an optimizer and sets ``param_groups[i]["lr"]`` at each step
``last_epoch``; call ``scheduler.step()`` after ``optimizer.step()``, once per
epoch::

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
``epoch`` with the closed form from the initial rates. ``LambdaLR`` computes
from the initial rates, as PyTorch's does.
"""

from __future__ import annotations

import bisect
import math
from collections import Counter
from typing import Any, Callable, Dict, List, Optional, Sequence, Union
from module0_fundamentals._exports import defined_here

Lambdas = Union[Callable[[int], float], Sequence[Callable[[int], float]]]


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


def _cosine(low: float, high: float, pct: float) -> float:
    """Half a cosine from ``high`` (``pct`` 0) down to ``low`` (``pct`` 1):
    $\\text{low} + \\tfrac12 (\\text{high} - \\text{low})(1 + \\cos \\pi\\,
    \\text{pct})$."""
    return low + (high - low) * (1.0 + math.cos(math.pi * pct)) / 2.0


def _check_factor(tag: str, factor: float) -> None:
    """PyTorch's check of ``ConstantLR``'s and ``LinearLR``'s factors."""
    if factor > 1.0 or factor < 0:
        raise ValueError(f"{tag} multiplicative factor expected to be between 0 and 1.")


class LRScheduler:
    """Base class: keeps ``base_lrs`` (each group's ``initial_lr``) and
    ``last_epoch``; :meth:`step` advances it and writes :meth:`get_lr` into
    the optimizer. A chainable schedule says only the factor $f(t)$ on the
    initial rates at step $t$ (:meth:`_closed_factor`, which ``step(epoch)``
    uses as it is); each step multiplies the current rates
    by $f(t) / f(t - 1)$ (:meth:`_factor`). Constructing one takes the first
    step (``last_epoch = 0``, factor $f(0)$: ``LinearLR`` and ``ConstantLR``
    apply their starting factor, the others leave the rate as it is) with
    ``_is_initial`` set, as in PyTorch. With ``last_epoch >= 0`` (resuming)
    every group must have its ``initial_lr``, and the schedules with
    ``_resume_keeps_rate`` leave the loaded rate as it is at that first step
    (as PyTorch's ``ExponentialLR``, ``LinearLR`` and ``PolynomialLR``)."""

    _is_initial: bool = False
    _resume_keeps_rate: bool = False

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
        self._initial_step()

    def _initial_step(self) -> None:
        """The step taken at construction (``_is_initial`` set while it runs)."""
        self._is_initial = True
        self.step()
        self._is_initial = False

    def _current(self) -> List[float]:
        """Each group's rate now: what a chainable schedule multiplies."""
        return [group["lr"] for group in self.optimizer.param_groups]

    def _factor(self) -> float:
        """What step ``last_epoch`` multiplies the current rates by: $f(t) /
        f(t - 1)$ (1 once $f(t - 1)$ is 0: the rate stays 0); for a power
        $f(t) = \\gamma^{e(t)}$, $\\gamma^{e(t) - e(t - 1)}$, which is 0 at a
        boundary when $\\gamma = 0$ whatever the rate is now (as PyTorch)."""
        t = self.last_epoch
        if t == 0:
            return self._closed_factor(0)  # type: ignore[return-value]
        if self._is_initial and self._resume_keeps_rate:
            return 1.0
        if self._exponent(t) is not None:
            return self.gamma ** (self._exponent(t) - self._exponent(t - 1))
        before = self._closed_factor(t - 1)
        return self._closed_factor(t) / before if before else 1.0  # type: ignore

    def _exponent(self, t: int) -> Optional[int]:
        """$e(t)$ where the schedule is $f(t) = \\gamma^{e(t)}$, else None."""
        return None

    def _closed_factor(self, t: int) -> Optional[float]:
        """The factor $f(t)$ on the initial rates at step ``t``; None where the
        schedule has no closed form (``step(epoch)`` then uses get_lr)."""
        e = self._exponent(t)
        return None if e is None else self.gamma**e

    def get_lr(self) -> List[float]:
        """The rate of each group at step ``last_epoch``: the current rates
        times :meth:`_factor` (the schedules that are not chainable, or not
        by one factor for all groups, override this)."""
        factor = self._factor()
        return [lr * factor for lr in self._current()]

    def _get_closed_form_lr(self) -> List[float]:
        factor = self._closed_factor(self.last_epoch)
        return self.get_lr() if factor is None else [b * factor for b in self.base_lrs]

    def step(self, epoch: Optional[float] = None) -> None:
        """Advance one step and set every group's ``lr``; ``step(epoch)`` jumps
        to step ``epoch`` instead (with the closed form where the class has
        one, as in PyTorch)."""
        if epoch is None:
            self.last_epoch += 1
            values = self.get_lr()
        else:
            self.last_epoch = epoch  # type: ignore[assignment]
            values = self._get_closed_form_lr()
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = self._current()

    def get_last_lr(self) -> List[float]:
        """The rates set by the last :meth:`step`."""
        return list(self._last_lr)

    def state_dict(self) -> Dict[str, Any]:
        """Everything but the optimizer and functions (``LambdaLR``'s
        ``lr_lambdas``, a ``CyclicLR``'s own ``scale_fn``: they do not save);
        the state of each scheduler held inside (``SequentialLR``,
        ``ChainedScheduler``)."""
        state = {
            key: value
            for key, value in self.__dict__.items()
            if key not in ("optimizer", "_schedulers", "lr_lambdas")
            and not callable(value)
        }
        if "_schedulers" in self.__dict__:
            state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        """Restore what :meth:`state_dict` saved."""
        state = dict(state_dict)
        inner = state.pop("_schedulers", [])  # (SequentialLR, ChainedScheduler)
        for scheduler, saved in zip(self.__dict__.get("_schedulers", []), inner):
            scheduler.load_state_dict(saved)
        self.__dict__.update(state)


class StepLR(LRScheduler):
    """Multiply the rate by ``gamma`` every ``step_size`` steps:
    $\\eta_t = \\eta_0\\, \\gamma^{\\lfloor t / \\text{step\\_size} \\rfloor}$
    when nothing else changes it."""

    def __init__(
        self, optimizer: Any, step_size: int, gamma: float = 0.1, last_epoch: int = -1
    ) -> None:
        self.step_size, self.gamma = int(step_size), float(gamma)
        super().__init__(optimizer, last_epoch)

    def _exponent(self, t: int) -> int:
        return t // self.step_size


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
        self.milestones, self.gamma = Counter(int(m) for m in milestones), float(gamma)
        super().__init__(optimizer, last_epoch)

    def _exponent(self, t: int) -> int:
        return sum(n for m, n in self.milestones.items() if m <= t)


class ConstantLR(LRScheduler):
    """Multiply the rate by ``factor`` for the first ``total_iters`` steps,
    then restore it (multiply by ``1 / factor`` at step ``total_iters``)."""

    def __init__(
        self,
        optimizer: Any,
        factor: float = 1.0 / 3,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        _check_factor("Constant", factor)
        self.factor, self.total_iters = float(factor), int(total_iters)
        super().__init__(optimizer, last_epoch)

    def _closed_factor(self, t: int) -> float:
        return 1.0 if t >= self.total_iters else self.factor


class ExponentialLR(LRScheduler):
    """Multiply the rate by ``gamma`` at every step: $\\eta_t = \\eta_0\\,
    \\gamma^t$ when nothing else changes it."""

    _resume_keeps_rate = True

    def __init__(self, optimizer: Any, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = float(gamma)
        super().__init__(optimizer, last_epoch)

    def _exponent(self, t: int) -> int:
        return t


class LinearLR(LRScheduler):
    """A warm-up: the factor on the rate moves linearly from ``start_factor``
    $s$ to ``end_factor`` $e$ over ``total_iters`` $T$ steps, then stays,
    $\\eta_t = \\eta_0 (s + (e - s) \\min(t, T) / T)$ when nothing else changes
    the rate."""

    _resume_keeps_rate = True

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
        _check_factor("Ending", end_factor)
        self.start_factor, self.end_factor = float(start_factor), float(end_factor)
        self.total_iters = int(total_iters)
        super().__init__(optimizer, last_epoch)

    def _closed_factor(self, t: int) -> float:
        done = min(self.total_iters, t) / self.total_iters
        return self.start_factor + (self.end_factor - self.start_factor) * done


class PolynomialLR(LRScheduler):
    """Decay to 0 over ``total_iters`` steps: $\\eta_t = \\eta_0 (1 - \\min(t,
    T)/T)^p$ when nothing else changes the rate."""

    _resume_keeps_rate = True

    def __init__(
        self,
        optimizer: Any,
        total_iters: int = 5,
        power: float = 1.0,
        last_epoch: int = -1,
    ) -> None:
        self.total_iters, self.power = int(total_iters), float(power)
        super().__init__(optimizer, last_epoch)

    def _closed_factor(self, t: int) -> float:
        return (1.0 - min(self.total_iters, t) / self.total_iters) ** self.power


class LambdaLR(LRScheduler):
    """$\\eta_t = \\eta_0\\, \\lambda(t)$ for a function ``lr_lambda`` (or one per
    group)."""

    def __init__(
        self, optimizer: Any, lr_lambda: Lambdas, last_epoch: int = -1
    ) -> None:
        self.lr_lambdas = _per_group("lr_lambda", optimizer, lr_lambda)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(
                    f"lr_lambda should be a function, but got {type(fn).__name__}"
                )
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> List[float]:
        return self._scaled(self.base_lrs)

    def _scaled(self, rates: List[float]) -> List[float]:
        """Each group's rate in ``rates`` times its function of ``last_epoch``."""
        return [rate * fn(self.last_epoch) for rate, fn in zip(rates, self.lr_lambdas)]


class MultiplicativeLR(LambdaLR):
    """Multiply the rate by ``lr_lambda(t)`` at every step $t \\ge 1$ (one
    function for all groups, or one per group; set up as :class:`LambdaLR`)."""

    def get_lr(self) -> List[float]:
        return self._current() if self._is_initial else self._scaled(self._current())


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
        now = self._current()
        if self._is_initial:
            return now
        if (t - 1 - period) % (2 * period) == 0:  # leaving eta_min (ratio 0/0)
            rise = (1.0 - math.cos(math.pi / period)) / 2.0
            return [lr + (base - low) * rise for lr, base in zip(now, self.base_lrs)]
        ratio = _cosine(0.0, 1.0, t / period) / _cosine(0.0, 1.0, (t - 1) / period)
        return [low + (lr - low) * ratio for lr in now]

    def _get_closed_form_lr(self) -> List[float]:
        pct = self.last_epoch / self.T_max
        return [_cosine(self.eta_min, base, pct) for base in self.base_lrs]


def _hold(holder: Any, schedulers: Sequence[Any], optimizer: Any) -> None:
    """Check that ``schedulers`` (at least one, none a ``ReduceLROnPlateau``, as
    PyTorch) all step ``optimizer``, then keep both on ``holder`` (a
    ``SequentialLR`` or ``ChainedScheduler``)."""
    kind = type(holder).__name__
    if len(schedulers) < 1:
        raise ValueError(f"{kind} expects at least one scheduler")
    for k, scheduler in enumerate(schedulers):
        if isinstance(scheduler, ReduceLROnPlateau):  # (its step takes a metric)
            raise ValueError(
                f"{kind} does not support `ReduceLROnPlateau` scheduler (index {k})"
            )
        if scheduler.optimizer is not optimizer:
            raise ValueError(
                f"{kind} expects all schedulers to belong to the same optimizer, "
                f"but got scheduler at index {k} with a different one"
            )
    holder.optimizer, holder._schedulers = optimizer, list(schedulers)


def _undo_step(scheduler: Any) -> None:
    """Take back the count of the step a scheduler took when it was made (all
    the schedulers inside one that holds others)."""
    if hasattr(scheduler, "_schedulers"):
        for inner in scheduler._schedulers:
            _undo_step(inner)
    elif hasattr(scheduler, "last_epoch"):
        scheduler.last_epoch -= 1


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
        _hold(self, schedulers, optimizer)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                f"Sequential Schedulers expects number of schedulers provided to be "
                f"one more than the number of milestone points, but got number of "
                f"schedulers {len(schedulers)} and the number of milestones to be "
                f"equal to {len(milestones)}"
            )
        self._milestones = [int(m) for m in milestones]
        self.last_epoch = last_epoch + 1
        # Each scheduler stepped once when it was made: undo that, and start
        # the one running at step 0 again from the initial rates.
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        _undo_step(self)  # (each of self._schedulers)
        self._schedulers[bisect.bisect_right(self._milestones, 0)]._initial_step()
        self._last_lr = self._current()

    def step(self, epoch: Optional[float] = None) -> None:  # type: ignore[override]
        """Advance one step of the schedule now running."""
        self.last_epoch += 1
        k = bisect.bisect_right(self._milestones, self.last_epoch)
        # A restart (at a milestone): the closed form at step 0.
        self._schedulers[k].step(0 if self.last_epoch in self._milestones else None)
        self._last_lr = self._current()


class ChainedScheduler(LRScheduler):
    """Step several chainable schedulers together at every :meth:`step` (each
    multiplies the rate the one before it left)."""

    def __init__(
        self, schedulers: Sequence[LRScheduler], optimizer: Optional[Any] = None
    ) -> None:
        optimizer = optimizer or (schedulers[0].optimizer if schedulers else None)
        _hold(self, schedulers, optimizer)
        self._last_lr = self._current()

    def step(self, epoch: Optional[float] = None) -> None:  # type: ignore[override]
        """Step every scheduler, in order."""
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = self._current()


class ReduceLROnPlateau(LRScheduler):
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
        self.min_lrs = [float(v) for v in _per_group("min_lr", optimizer, min_lr)]
        self.optimizer = optimizer
        self.mode, self.factor, self.patience = mode, float(factor), int(patience)
        self.threshold, self.threshold_mode = float(threshold), threshold_mode
        self.cooldown, self.eps = int(cooldown), float(eps)
        self.best = math.inf if mode == "min" else -math.inf
        self.num_bad_epochs = self.cooldown_counter = self.last_epoch = 0
        self._last_lr = self._current()

    def is_better(self, a: float, best: float) -> bool:
        """Whether metric ``a`` improves on ``best`` (see the class)."""
        sign = 1.0 if self.mode == "min" else -1.0  # "max": the same on -a, -best
        if self.threshold_mode == "rel":
            return sign * a < sign * best * (1.0 - sign * self.threshold)
        return sign * a < sign * best - self.threshold

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
                new = max(group["lr"] * self.factor, floor)
                if group["lr"] - new > self.eps:
                    group["lr"] = new
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
        self._last_lr = self._current()

    @property
    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0


# (last: the names defined above)
__all__ = defined_here(globals())
