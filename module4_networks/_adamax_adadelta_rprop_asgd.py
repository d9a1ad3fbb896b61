"""Four optimizers of ``torch.optim``, given code: ``Adamax``, ``Adadelta``,
``Rprop`` and ``ASGD`` (private: the facade ``optim/__init__.py`` exports them
beside the optimizers of ``optimizers.py``, whose ``Optimizer`` they build on),
each with PyTorch's hyperparameters, defaults and state entries (``opt.state[p]``
holds the buffers under PyTorch's names, with ``step``), so ``state_dict`` round
trips work as for the other optimizers. Each is an ``update`` rule from tensor
operations; ``Optimizer.step`` handles ``maximize`` (it negates $g$)."""

from __future__ import annotations

from typing import Any, Dict, Iterable, Tuple

from module2_tensors.function_forms import where
from module2_tensors.tensor import Tensor

from ._optimizer_state import State, _counted
from .optimizers import Optimizer

__all__ = ["Adamax", "Adadelta", "Rprop", "ASGD"]


class Adamax(Optimizer):
    r"""Adam with the infinity norm, as ``torch.optim.Adamax``:
    $m \leftarrow \beta_1 m + (1 - \beta_1) g$, $u \leftarrow \max(\beta_2 u,
    |g| + \epsilon)$, $p - \frac{\eta}{1 - \beta_1^t} \frac{m}{u}$ (state
    ``step``, ``exp_avg`` $m$, ``exp_inf`` $u$)."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 2e-3,
        betas: Tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        *,
        maximize: bool = False,
        **flags: Any,
    ) -> None:
        super().__init__(params, locals())

    def update(self, p: Tensor, g: Tensor, state: State, group: Dict) -> Tensor:
        beta1, beta2 = group["betas"]
        g, p, t = _counted(p, g, state, group, exp_avg=0.0, exp_inf=0.0)
        state["exp_avg"] = beta1 * state["exp_avg"] + (1.0 - beta1) * g
        state["exp_inf"] = (beta2 * state["exp_inf"]).maximum(g.abs() + group["eps"])
        return p - group["lr"] / (1.0 - beta1**t) * state["exp_avg"] / state["exp_inf"]


class Adadelta(Optimizer):
    r"""Adadelta, as ``torch.optim.Adadelta``: $v \leftarrow \rho v + (1 - \rho)
    g^2$, $\Delta = \sqrt{a + \epsilon} / \sqrt{v + \epsilon}\; g$,
    $a \leftarrow \rho a + (1 - \rho) \Delta^2$, $p - \eta \Delta$ (state
    ``step``, ``square_avg`` $v$, ``acc_delta`` $a$)."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0.0,
        *,
        maximize: bool = False,
        **flags: Any,
    ) -> None:
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        super().__init__(params, locals())

    def update(self, p: Tensor, g: Tensor, state: State, group: Dict) -> Tensor:
        rho, eps = group["rho"], group["eps"]
        g, p, _ = _counted(p, g, state, group, square_avg=0.0, acc_delta=0.0)
        v = state["square_avg"] = rho * state["square_avg"] + (1.0 - rho) * g * g
        delta = (state["acc_delta"] + eps).sqrt() / (v + eps).sqrt() * g
        state["acc_delta"] = rho * state["acc_delta"] + (1.0 - rho) * delta * delta
        return p - group["lr"] * delta


class Rprop(Optimizer):
    r"""Resilient backpropagation, as ``torch.optim.Rprop``: each entry has its
    own step size $s$ (``lr`` at first), multiplied by $\eta_+$ where the
    gradient kept its sign since the last step and by $\eta_-$ where it
    flipped (then that entry's gradient counts as 0), clamped to
    ``step_sizes``; $p - \operatorname{sign}(g)\, s$ (state ``step``, ``prev``,
    ``step_size``)."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        etas: Tuple[float, float] = (0.5, 1.2),
        step_sizes: Tuple[float, float] = (1e-6, 50.0),
        *,
        maximize: bool = False,
        **flags: Any,
    ) -> None:
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, locals())

    def update(self, p: Tensor, g: Tensor, state: State, group: Dict) -> Tensor:
        minus, plus = group["etas"]
        _counted(p, g, state, group, prev=0.0, step_size=group["lr"])
        sign = (g * state["prev"]).sign()  # (1.0 + sign: 1 where 0, in g.dtype)
        factor = where(sign > 0.0, plus, where(sign < 0.0, minus, 1.0 + sign))
        state["step_size"] = (state["step_size"] * factor).clamp(*group["step_sizes"])
        state["prev"] = g = where(factor == minus, 0.0, g)
        return p - g.sign() * state["step_size"]


class ASGD(Optimizer):
    r"""Averaged SGD, as ``torch.optim.ASGD``: $p \leftarrow p (1 - \lambda
    \eta_t) - \eta_t g$; the running average $\bar p \leftarrow \bar p +
    \mu_t (p - \bar p)$ (``ax``); then $\eta_{t} = \eta / (1 + \lambda \eta
    t)^\alpha$ and $\mu_t = 1 / \max(1, t - t_0)$ (state ``step``, ``eta``,
    ``mu``, ``ax``)."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        lambd: float = 1e-4,
        alpha: float = 0.75,
        t0: float = 1e6,
        weight_decay: float = 0.0,
        *,
        maximize: bool = False,
        **flags: Any,
    ) -> None:
        super().__init__(params, locals())

    def update(self, p: Tensor, g: Tensor, state: State, group: Dict) -> Tensor:
        lr, lambd = group["lr"], group["lambd"]
        g, p, t = _counted(p, g, state, group, ax=0.0)
        eta, mu = state.get("eta", lr), state.get("mu", 1.0)
        p = p * (1.0 - lambd * eta) - eta * g
        state["ax"] = p if mu == 1.0 else state["ax"] + mu * (p - state["ax"])
        state["eta"] = lr / (1.0 + lambd * lr * t) ** group["alpha"]
        state["mu"] = 1.0 / max(1.0, t - group["t0"])
        return p
