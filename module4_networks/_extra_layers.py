"""More of ``torch.nn``'s modules (private: ``nn`` re-exports them): the loss
modules of :mod:`module4_networks._extra_functional` and ``CosineSimilarity``."""

from __future__ import annotations

from typing import Any

from module0_fundamentals.module import Module
from module2_tensors.tensor import Tensor

from . import _extra_functional as XF

__all__ = ["SmoothL1Loss", "HuberLoss", "KLDivLoss", "CosineSimilarity"]


class SmoothL1Loss(Module):
    """``F.smooth_l1_loss`` as a module: ``nn.SmoothL1Loss(reduction, beta)``."""

    def __init__(self, reduction: str = "mean", beta: float = 1.0) -> None:
        super().__init__()
        self.reduction, self.beta = reduction, beta

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return XF.smooth_l1_loss(input, target, self.reduction, self.beta)


class HuberLoss(Module):
    """``F.huber_loss`` as a module: ``nn.HuberLoss(reduction, delta)``."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__()
        self.reduction, self.delta = reduction, delta

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return XF.huber_loss(input, target, self.reduction, self.delta)


class KLDivLoss(Module):
    """``F.kl_div`` as a module: ``nn.KLDivLoss(reduction, log_target)``."""

    def __init__(self, reduction: str = "mean", log_target: bool = False) -> None:
        super().__init__()
        self.reduction, self.log_target = reduction, log_target

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return XF.kl_div(input, target, self.reduction, self.log_target)


class CosineSimilarity(Module):
    """``F.cosine_similarity`` as a module: ``nn.CosineSimilarity(dim, eps)``."""

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return XF.cosine_similarity(x1, x2, self.dim, self.eps)
