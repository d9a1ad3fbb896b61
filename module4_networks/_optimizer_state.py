"""The bookkeeping of ``optim.Optimizer`` (private: students never edit or need
to read this file): parameter groups and their checks, saving and restoring an
optimizer's state in PyTorch's ``state_dict`` layout, and the pieces of update
rules that the given optimizers share (weight decay, L2 or decoupled; a step count
with buffers filled at the first step; Adam's moments; AMSGrad's step).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Callable, DefaultDict, Dict, Iterable, List, Tuple

from module2_tensors.tensor import Tensor

from .weight_init import _tensor_of

#: A parameter's ``state`` (its buffers) or a parameter group, by name.
State = Dict[str, Any]
Step = Tuple[Tensor, Tensor, int]
Moments = Tuple[Tensor, Tensor, int, Tensor, Tensor]
#: PyTorch's implementation switches, with its defaults. ``foreach`` changes only
#: torch's speed (accepted, ignored); the others ask for what Kindling lacks (an
#: update that records a graph, CUDA graph capture, torch's fused kernels).
_SWITCHES = dict(foreach=None, capturable=False, differentiable=False, fused=None)


def _decayed(g: Tensor, p: Tensor, group: State) -> Tuple[Tensor, Tensor]:
    """The gradient and the parameter after weight decay $\\lambda$: $g +
    \\lambda p$ (L2; $g$ itself when $\\lambda = 0$) and $p$, or under
    ``decoupled_weight_decay`` (Adam's, RAdam's and NAdam's option: AdamW's) $g$
    and $p (1 - \\eta \\lambda)$, the parameter decayed before the step."""
    decay = group.get("weight_decay", 0.0)
    if group.get("decoupled_weight_decay", False):
        return g, p * (1.0 - group["lr"] * decay)
    return (g if decay == 0.0 else g + decay * p), p


def _counted(p: Tensor, g: Tensor, state: State, group: State, **fills: float) -> Step:
    """The start of a given optimizer's step: the gradient and the parameter
    after weight decay (:func:`_decayed`), and ``state["step"]`` advanced, each
    named buffer that is not there first filled with ``p``'s shape and the given
    value; ``(g, p, step)``."""
    state |= {n: p.new_full(p.shape, v) for n, v in fills.items() if n not in state}
    state["step"] = state.get("step", 0) + 1
    return (*_decayed(g, p, group), state["step"])


def _moments(p: Tensor, g: Tensor, state: State, group: State) -> Moments:
    r"""Adam's step count and moments, after weight decay (:func:`_counted`),
    advanced by ``g`` and kept in ``state``: $t + 1$, $m = \beta_1 m + (1 -
    \beta_1) g$ and $v = \beta_2 v + (1 - \beta_2) g^2$ (for the given variants:
    AMSGrad, RAdam and NAdam); ``(g, p, t, m, v)``."""
    beta1, beta2 = group["betas"]
    g, p, t = _counted(p, g, state, group, exp_avg=0.0, exp_avg_sq=0.0)
    m = state["exp_avg"] = beta1 * state["exp_avg"] + (1.0 - beta1) * g
    v = state["exp_avg_sq"] = beta2 * state["exp_avg_sq"] + (1.0 - beta2) * g * g
    return g, p, t, m, v


def _mapped(buffers: State, fn: Callable[[Tensor], Tensor]) -> State:
    """``buffers`` with ``fn`` applied to each tensor (other values kept)."""
    return {k: fn(v) if isinstance(v, Tensor) else v for k, v in buffers.items()}


def _amsgrad_step(p: Tensor, g: Tensor, state: State, group: State) -> Tensor:
    r"""Adam's step with AMSGrad (Reddi et al., 2018; PyTorch's ``amsgrad=True``):
    the denominator uses the largest second moment so far, $u_t = \max(u_{t-1},
    v_t)$ (``state["max_exp_avg_sq"]``), as $\sqrt{u_t / (1 - \beta_2^t)} +
    \epsilon$; the rest is Adam's step (its weight decay: :func:`_moments`)."""
    beta1, beta2 = group["betas"]
    _, p, t, m, v = _moments(p, g, state, group)
    v_max = state["max_exp_avg_sq"] = state.get("max_exp_avg_sq", v).maximum(v)
    denominator = (v_max / (1.0 - beta2**t)).sqrt() + group["eps"]
    return p - group["lr"] * (m / (1.0 - beta1**t)) / denominator


class OptimizerState:
    """Parameter groups (``param_groups``: dicts of hyperparameters with their
    ``params``), per-parameter buffers (``state``, keyed by the parameter itself
    as in PyTorch: ``opt.state[p]["exp_avg"]``; a parameter not stepped yet reads
    as ``{}``), ``state_dict`` and ``load_state_dict``; ``optim.Optimizer`` adds
    the update step."""

    #: The switches of :data:`_SWITCHES` this optimizer takes (as PyTorch's).
    _switches: Tuple[str, ...] = ("foreach", "capturable", "differentiable")

    def __init__(self, params: Iterable[Any], defaults: Dict[str, Any]) -> None:
        """``defaults``: each hyperparameter's default by name. An optimizer passes
        its ``__init__``'s ``locals()``: its arguments are its hyperparameters
        (``self``, ``params`` and the ``__class__`` that ``super()`` reads are
        left out; its ``**flags`` are PyTorch's switches: :attr:`_switches`).

        Raises:
            TypeError: a flag that this optimizer does not take, or ``params`` a
                tensor (not a list of them), as PyTorch's.
        """
        if isinstance(params, Tensor):  # (iterating it would give its rows)
            raise TypeError("params should be an iterable of Tensors or dicts")
        params = list(params)
        if not params:
            raise ValueError("optimizer got an empty parameter list")
        skip = ("self", "params", "__class__", "flags")
        flags = defaults.get("flags", {})
        for name in set(flags) - set(self._switches):
            raise TypeError(f"__init__() got an unexpected keyword argument '{name}'")
        self.defaults = {k: v for k, v in defaults.items() if k not in skip}
        self.defaults.update({k: flags.get(k, _SWITCHES[k]) for k in self._switches})
        self.param_groups: List[Dict[str, Any]] = []
        # Tensors hash by identity (``__hash__ = object.__hash__``), so a dict
        # keyed by them finds each parameter by identity, as torch's does.
        self.state: DefaultDict[Tensor, Dict[str, Any]] = defaultdict(dict)
        # A list of groups (dicts), or one group of all the parameters.
        for group in params if isinstance(params[0], dict) else [{"params": params}]:
            self.add_param_group(group)

    def add_param_group(self, group: Dict[str, Any]) -> None:
        """Add a group ``{"params": [...], <hyperparameter>: value, ...}``; the
        hyperparameters it leaves out take the optimizer's defaults (as in
        PyTorch, for example to train a newly unfrozen layer at its own rate).

        Raises:
            ValueError: a parameter is already in a group (it would be stepped twice
                per step), or a hyperparameter is invalid.
        """
        if not isinstance(group, dict) or "params" not in group:
            raise TypeError("a parameter group is a dict with a 'params' entry")
        params = group["params"]
        params = [params] if isinstance(params, Tensor) else params
        # Keys beyond the defaults (a group's "name") are kept, as in PyTorch.
        filled = {**self.defaults, **group, "params": [_tensor_of(p) for p in params]}
        ids = {p.unique_id for p in filled["params"]}
        seen = {p.unique_id for p in self._all_params()}
        if any(not p.is_leaf for p in filled["params"]):  # (never stepped)
            raise ValueError("can't optimize a non-leaf Tensor")
        if ids & seen or len(ids) != len(filled["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        # Invalid hyperparameters, with PyTorch's messages: the settings that
        # must not be negative, in its words and order.
        words = dict(lr="learning rate", eps="epsilon value", momentum="momentum value")
        for key, what in {**words, "weight_decay": "weight_decay value"}.items():
            if filled.get(key, 0.0) < 0.0:
                raise ValueError(f"Invalid {what}: {filled[key]}")
        for k, beta in enumerate(filled.get("betas", ())):
            if not 0.0 <= beta < 1.0:
                raise ValueError(f"Invalid beta parameter at index {k}: {beta}")
        for key in ("capturable", "differentiable", "fused"):
            if filled.get(key):  # (None and False: not asked for)
                raise NotImplementedError(f"{key}=True: not in Kindling's optimizers")
        self.param_groups.append(filled)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget every parameter's gradient, so the next ``backward`` does not add
        to the old one: ``.grad = None`` (PyTorch's default), or zeros in place."""
        for p in self._all_params():  # (detached: no history of create_graph)
            p.grad = None if set_to_none or p.grad is None else p.grad.detach_().zero_()

    def _all_params(self) -> List[Tensor]:
        return [p for group in self.param_groups for p in group["params"]]

    def state_dict(self) -> Dict[str, Any]:
        """PyTorch's layout: ``{"state": {index: buffers}, "param_groups": [...]}``
        with parameters named by their position over all groups."""
        index = {id(p): k for k, p in enumerate(self._all_params())}
        state = {index[id(p)]: _mapped(b, Tensor.detach) for p, b in self.state.items()}
        groups = []
        for group in self.param_groups:
            groups.append({**group, "params": [index[id(p)] for p in group["params"]]})
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        """Restore hyperparameters and buffers saved by :meth:`state_dict` (the
        parameters themselves come from the model's ``load_state_dict``).

        Raises:
            ValueError: the groups or their sizes differ.
        """
        groups = state_dict["param_groups"]
        sizes = [len(group["params"]) for group in self.param_groups]
        if [len(saved["params"]) for saved in groups] != sizes:
            raise ValueError(
                "loaded state dict has a different number of parameter groups or "
                "parameters per group"
            )
        params = self._all_params()
        for saved, group in zip(groups, self.param_groups):
            group.update({k: v for k, v in saved.items() if k != "params"})
        self.state = defaultdict(dict)
        for k, buffers in state_dict["state"].items():  # (k: the parameter's index)
            # (a saved tensor becomes a copy on its parameter's backend, in its dtype)
            self.state[params[int(k)]] = _mapped(buffers, params[int(k)].new_tensor)
