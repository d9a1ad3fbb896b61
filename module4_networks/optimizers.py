"""Optimizers (Task 4.6): ``SGD``, ``RMSprop``, ``Adam`` and ``AdamW``, as
``torch.optim`` (and, given, ``Adagrad``, ``RAdam`` and ``NAdam``). Code reaches
them through ``kt.optim`` (the facade ``optim/__init__.py``), which adds the given
optimizers of ``_adamax_adadelta_rprop_asgd.py`` and ``optim.lr_scheduler``.

An optimizer holds the parameters of a model and, after ``loss.backward()`` has
filled every ``.grad``, ``step()`` moves each parameter $\\theta$ against its
gradient $g$. Use it exactly as in PyTorch::

    opt = optim.Adam(model.parameters(), lr=1e-3)
    for x, y in batches:
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()

The update rules (step $t = 1, 2, \\dots$; $\\lambda$ is ``weight_decay``):

* **SGD** with momentum $\\mu$: $g \\leftarrow g + \\lambda \\theta$;
  $b \\leftarrow \\mu b + g$ ($b$ a copy of $g$ at the first step);
  $\\theta \\leftarrow \\theta - \\eta b$ (Nesterov: $\\theta \\leftarrow \\theta -
  \\eta (g + \\mu b)$).
* **RMSprop**: $v \\leftarrow \\alpha v + (1 - \\alpha) g^2$; $\\theta \\leftarrow
  \\theta - \\eta\\, g / (\\sqrt{v} + \\epsilon)$.
* **Adam**: $m \\leftarrow \\beta_1 m + (1 - \\beta_1) g$, $v \\leftarrow \\beta_2 v
  + (1 - \\beta_2) g^2$; the averages start at 0 and are biased towards it, so
  they are corrected: $\\hat m = m / (1 - \\beta_1^t)$, $\\hat v = v / (1 -
  \\beta_2^t)$; $\\theta \\leftarrow \\theta - \\eta\\, \\hat m / (\\sqrt{\\hat v} +
  \\epsilon)$. Adam's ``weight_decay`` adds $\\lambda \\theta$ to $g$ (L2).
* **AdamW**: the same, but the decay is *decoupled* from the gradient statistics:
  $\\theta \\leftarrow \\theta (1 - \\eta \\lambda)$ before the Adam step.

Updates run under ``no_grad`` and write into the parameter tensors in place
(``copy_``), so the model keeps the same tensor objects.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Iterable, Optional, Tuple

from module2_tensors.engine.grad_modes import enable_grad
from module2_tensors.shape_functions import no_grad
from module2_tensors.tensor import Tensor

from . import _fused_optim
from ._optimizer_state import OptimizerState, State, _amsgrad_step
from ._optimizer_state import _counted, _decayed, _moments

__all__ = ["Optimizer", "SGD", "RMSprop", "Adam", "AdamW", "Adagrad", "RAdam", "NAdam"]


class Optimizer(OptimizerState):
    """Base class: parameter groups, state, ``zero_grad`` and the ``step`` loop.

    ``params`` is an iterable of ``Parameter``s or tensors, or of dicts
    ``{"params": [...], "lr": ...}`` that override the defaults for a group (as in
    PyTorch). ``param_groups[i]["lr"]`` may be changed between steps (a learning
    rate schedule). ``state[p]`` holds parameter ``p``'s buffers.
    ``state_dict()`` and ``load_state_dict()`` save and restore both, in PyTorch's
    layout. A subclass takes its hyperparameters as ``__init__`` arguments,
    passes them on as ``Optimizer.__init__(params, locals())`` (their defaults)
    and writes :meth:`update`.
    """

    def step(self, closure: Optional[Callable[[], Any]] = None) -> Any:
        """Update every parameter that has a gradient. ``closure`` (optional)
        recomputes the loss with gradients; its result is returned."""
        with enable_grad():  # (closure: it zeroes the gradients, calls backward)
            loss = None if closure is None else closure()
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    # (An entry only once a step stores something, as torch.)
                    state = self.state.get(p, {})
                    maximize = group.get("maximize", False)  # ascend: descend on -g
                    g = -p.grad.detach() if maximize else p.grad.detach()
                    # On the GPU, SGD, Adam and AdamW run as one kernel launch per
                    # parameter once they agree with update() (see _fused_optim).
                    if maximize or not _fused_optim.step(self, p, g, state, group):
                        p.copy_(self.update(p.detach(), g, state, group))
                    if state:
                        self.state[p] = state
        return loss

    def update(self, p: Tensor, g: Tensor, state: State, group: State) -> Tensor:
        """The new value of one parameter ``p`` with gradient ``g``; ``state`` is
        this parameter's own dict of buffers (empty at the first step)."""
        raise NotImplementedError


class SGD(Optimizer):
    """Stochastic gradient descent with optional momentum, dampening, Nesterov
    momentum and (L2) weight decay, as ``torch.optim.SGD``."""

    _switches = ("foreach", "differentiable", "fused")

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        momentum: float = 0.0,
        dampening: float = 0.0,
        weight_decay: float = 0.0,
        nesterov: bool = False,
        maximize: bool = False,
        **flags: Any,
    ) -> None:
        if nesterov and (momentum <= 0.0 or dampening != 0.0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, locals())

    def update(self, p: Tensor, g: Tensor, state: State, group: State) -> Tensor:
        r"""$g \leftarrow g + \lambda p$; with momentum $\mu > 0$: $b \leftarrow g$
        at the first step (a copy, ``g.clone()``: ``g`` may be the parameter's
        ``.grad`` itself, which ``zero_grad(set_to_none=False)`` zeroes in place,
        and the buffer must keep its numbers), then $b \leftarrow \mu b + (1 -
        \text{dampening})\, g$, and $g \leftarrow b$ (or $g + \mu b$ with
        Nesterov); $p - \eta g$."""
        # BEGIN SOLUTION 4.6: SGD update (momentum buffer in state["momentum_buffer"])
        if group["weight_decay"] != 0.0:
            g = g + group["weight_decay"] * p
        momentum = group["momentum"]
        if momentum != 0.0:
            if "momentum_buffer" not in state:
                buffer = g.clone()  # (g may be p.grad, zeroed in place later)
            else:
                buffer = (
                    momentum * state["momentum_buffer"] + (1.0 - group["dampening"]) * g
                )
            state["momentum_buffer"] = buffer
            g = g + momentum * buffer if group["nesterov"] else buffer
        return p - group["lr"] * g
        # END SOLUTION


class RMSprop(Optimizer):
    """RMSprop, as ``torch.optim.RMSprop``: divide the gradient by a running root
    mean square of recent gradients. ``centered`` also subtracts the running mean
    of the gradient (an estimate of its variance instead of its second moment)."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        momentum: float = 0.0,
        centered: bool = False,
        *,
        maximize: bool = False,
        **flags: Any,
    ) -> None:
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        super().__init__(params, locals())

    def update(self, p: Tensor, g: Tensor, state: State, group: State) -> Tensor:
        r"""$v \leftarrow \alpha v + (1 - \alpha) g^2$ ($v_0 = 0$); the denominator
        is $d = \sqrt{v} + \epsilon$ (centered: $\sqrt{v - \bar g^2} + \epsilon$
        with $\bar g \leftarrow \alpha \bar g + (1 - \alpha) g$); with momentum
        $\mu$: $b \leftarrow \mu b + g / d$ and $p - \eta b$, else $p - \eta g / d$.
        """
        state["step"] = state.get("step", 0) + 1  # (read by users, as PyTorch's)
        # BEGIN SOLUTION 4.6: RMSprop (state: square_avg, grad_avg, momentum_buffer)
        alpha, eps = group["alpha"], group["eps"]
        if group["weight_decay"] != 0.0:
            g = g + group["weight_decay"] * p
        square_avg = state.get("square_avg", p * 0.0)
        square_avg = alpha * square_avg + (1.0 - alpha) * g * g
        state["square_avg"] = square_avg
        if group["centered"]:
            grad_avg = alpha * state.get("grad_avg", p * 0.0) + (1.0 - alpha) * g
            state["grad_avg"] = grad_avg
            denom = (square_avg - grad_avg * grad_avg).sqrt() + eps
        else:
            denom = square_avg.sqrt() + eps
        if group["momentum"] > 0.0:
            buffer = (
                group["momentum"] * state.get("momentum_buffer", p * 0.0) + g / denom
            )
            state["momentum_buffer"] = buffer
            return p - group["lr"] * buffer
        return p - group["lr"] * g / denom
        # END SOLUTION


class Adam(Optimizer):
    """Adam, as ``torch.optim.Adam``: momentum on the gradient ($m$) and on its
    square ($v$), both bias-corrected. ``weight_decay`` is an L2 term added to the
    gradient; prefer :class:`AdamW` for decoupled weight decay (or pass
    ``decoupled_weight_decay=True``, as in PyTorch)."""

    _switches = ("foreach", "capturable", "differentiable", "fused")

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: Tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        maximize: bool = False,
        amsgrad: bool = False,
        *,
        decoupled_weight_decay: bool = False,
        **flags: Any,
    ) -> None:
        super().__init__(params, locals())

    def update(self, p: Tensor, g: Tensor, state: State, group: State) -> Tensor:
        r"""$t \leftarrow t + 1$; $m \leftarrow \beta_1 m + (1 - \beta_1) g$;
        $v \leftarrow \beta_2 v + (1 - \beta_2) g^2$;
        $p - \eta\, \frac{m / (1 - \beta_1^t)}{\sqrt{v / (1 - \beta_2^t)} +
        \epsilon}$ (with $g \leftarrow g + \lambda p$ first, or with
        ``decoupled_weight_decay`` $p \leftarrow p (1 - \eta \lambda)$ as AdamW's)."""
        if group.get("amsgrad", False):  # given: v_hat from the largest v so far
            return _amsgrad_step(p, g, state, group)
        g, p = _decayed(g, p, group)
        return _adam_step(p, g, state, group)


class AdamW(Adam):
    """AdamW, as ``torch.optim.AdamW``: Adam with *decoupled* weight decay,
    $p \\leftarrow p (1 - \\eta \\lambda)$, applied to the parameter directly
    instead of through the gradient (where Adam's scaling would weaken it)."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: Tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        maximize: bool = False,
        amsgrad: bool = False,
        **flags: Any,
    ) -> None:
        args = (params, lr, betas, eps, weight_decay, maximize, amsgrad)
        super().__init__(*args, decoupled_weight_decay=True, **flags)

    def update(self, p: Tensor, g: Tensor, state: State, group: State) -> Tensor:
        r"""$p \leftarrow p (1 - \eta \lambda)$, then the Adam step without decay."""
        if group.get("amsgrad", False):  # given: Adam.update's, decoupled
            return super().update(p, g, state, group)
        # BEGIN SOLUTION 4.6: decay p directly, then the plain Adam step
        p = p * (1.0 - group["lr"] * group["weight_decay"])
        return _adam_step(p, g, state, group)
        # END SOLUTION


def _adam_step(p: Tensor, g: Tensor, state: State, group: State) -> Tensor:
    """The Adam update of ``p`` by ``g`` (no weight decay); buffers ``step``,
    ``exp_avg`` ($m$) and ``exp_avg_sq`` ($v$) live in ``state``."""
    # BEGIN SOLUTION 4.6: the bias-corrected Adam step
    beta1, beta2 = group["betas"]
    t = state.get("step", 0) + 1
    m = beta1 * state.get("exp_avg", p * 0.0) + (1.0 - beta1) * g
    v = beta2 * state.get("exp_avg_sq", p * 0.0) + (1.0 - beta2) * g * g
    state.update(step=t, exp_avg=m, exp_avg_sq=v)
    m_hat = m / (1.0 - beta1**t)
    v_hat = v / (1.0 - beta2**t)
    return p - group["lr"] * m_hat / (v_hat.sqrt() + group["eps"])
    # END SOLUTION


class Adagrad(Optimizer):
    r"""Adagrad, as ``torch.optim.Adagrad``: $s \leftarrow s + g^2$;
    $p - \tilde\eta\, g / (\sqrt{s} + \epsilon)$ with the decayed rate
    $\tilde\eta = \eta / (1 + (t - 1)\, \text{lr\_decay})$ (and $g \leftarrow
    g + \lambda p$ first). (Given.)"""

    _switches = ("foreach", "differentiable", "fused")

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        lr_decay: float = 0.0,
        weight_decay: float = 0.0,
        initial_accumulator_value: float = 0.0,
        eps: float = 1e-10,
        *,
        maximize: bool = False,
        **flags: Any,
    ) -> None:
        super().__init__(params, locals())
        # As PyTorch: the state is filled when the optimizer is built (a
        # checkpoint saved before the first step already has every sum), from
        # the argument (a group's own initial_accumulator_value is not read).
        for p in self._all_params():
            full = p.new_full(p.shape, initial_accumulator_value)
            self.state[p].update(step=0, sum=full)

    def update(self, p: Tensor, g: Tensor, state: State, group: State) -> Tensor:
        g, p, t = _counted(p, g, state, group, sum=group["initial_accumulator_value"])
        state["sum"] = state["sum"] + g * g
        lr = group["lr"] / (1.0 + (t - 1) * group["lr_decay"])
        return p - lr * g / (state["sum"].sqrt() + group["eps"])


class RAdam(Optimizer):
    r"""Rectified Adam, as ``torch.optim.RAdam`` (Adam's hyperparameters, a
    rectified update): Adam's moments; while the
    variance estimate is unreliable ($\rho_t \le 5$, the first steps) a plain
    momentum step $p - \eta \hat m$, then $p - \eta\, \hat m\, r_t
    \sqrt{1 - \beta_2^t} / (\sqrt{v} + \epsilon)$ with the rectification
    $r_t = \sqrt{\frac{(\rho_t - 4)(\rho_t - 2)\rho_\infty}{(\rho_\infty - 4)
    (\rho_\infty - 2)\rho_t}}$, $\rho_\infty = 2/(1 - \beta_2) - 1$, $\rho_t =
    \rho_\infty - 2t\beta_2^t/(1 - \beta_2^t)$. ``decoupled_weight_decay``:
    the decay as AdamW's, on the parameter. (Given.)"""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: Tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        decoupled_weight_decay: bool = False,
        *,
        maximize: bool = False,
        **flags: Any,
    ) -> None:
        super().__init__(params, locals())

    def update(self, p: Tensor, g: Tensor, state: State, group: State) -> Tensor:
        beta1, beta2 = group["betas"]
        _, p, t, m, v = _moments(p, g, state, group)
        m_hat = m / (1.0 - beta1**t)
        rho_inf = 2.0 / (1.0 - beta2) - 1.0
        rho_t = rho_inf - 2.0 * t * beta2**t / (1.0 - beta2**t)
        if rho_t <= 5.0:
            return p - group["lr"] * m_hat
        rect = (rho_t - 4.0) * (rho_t - 2.0) * rho_inf
        rect = math.sqrt(rect / ((rho_inf - 4.0) * (rho_inf - 2.0) * rho_t))
        adaptive = math.sqrt(1.0 - beta2**t) / (v.sqrt() + group["eps"])
        return p - group["lr"] * m_hat * rect * adaptive


class NAdam(Optimizer):
    r"""Adam with Nesterov momentum, as ``torch.optim.NAdam``: with the momentum
    schedule $\mu_t = \beta_1 (1 - \tfrac12 0.96^{t \psi})$ ($\psi$ =
    ``momentum_decay``) and $\Pi_t = \prod_{s \le t} \mu_s$,
    $p \leftarrow p - \eta \frac{1 - \mu_t}{1 - \Pi_t} \frac{g}{d}
    - \eta \frac{\mu_{t+1}}{1 - \Pi_t \mu_{t+1}} \frac{m}{d}$, where
    $d = \sqrt{v / (1 - \beta_2^t)} + \epsilon$. ``decoupled_weight_decay``: the
    decay as AdamW's, on the parameter. (Given.)"""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 2e-3,
        betas: Tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False,
        *,
        maximize: bool = False,
        **flags: Any,
    ) -> None:
        super().__init__(params, locals())

    def update(self, p: Tensor, g: Tensor, state: State, group: State) -> Tensor:
        beta1, beta2 = group["betas"]
        psi = group["momentum_decay"]
        g, p, t, m, v = _moments(p, g, state, group)
        mu, mu_next = (beta1 * (1.0 - 0.5 * 0.96 ** (s * psi)) for s in (t, t + 1))
        state["mu_product"] = product = state.get("mu_product", 1.0) * mu
        denom = (v / (1.0 - beta2**t)).sqrt() + group["eps"]
        p = p - group["lr"] * (1.0 - mu) / (1.0 - product) * g / denom
        return p - group["lr"] * mu_next / (1.0 - product * mu_next) * m / denom
