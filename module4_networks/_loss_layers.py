"""The loss modules of ``nn`` (given; the facade ``nn`` exports them):
``CrossEntropyLoss``, ``NLLLoss``, ``MSELoss``, ``L1Loss``, ``BCELoss``,
``BCEWithLogitsLoss`` (Task 4.6's ``losses.py``), ``SmoothL1Loss``, ``HuberLoss``,
``KLDivLoss``, ``MarginRankingLoss``, ``CosineEmbeddingLoss``,
``GaussianNLLLoss`` (``_loss_functions.py``), and ``CosineSimilarity``, which
compares two inputs as they do. Each is its function as a module: the settings
given to ``__init__`` are attributes passed to the function by name."""

from __future__ import annotations

from typing import Any, Optional

from module2_tensors.tensor import Tensor

from . import _loss_functions as L
from . import losses
from ._activation_layers import FunctionLayer
from ._normalization_functions import cosine_similarity

__all__ = [
    "CrossEntropyLoss",
    "NLLLoss",
    "MSELoss",
    "L1Loss",
    "BCELoss",
    "BCEWithLogitsLoss",
    "SmoothL1Loss",
    "HuberLoss",
    "KLDivLoss",
    "MarginRankingLoss",
    "CosineEmbeddingLoss",
    "GaussianNLLLoss",
    "CosineSimilarity",
]


class _Loss(FunctionLayer):
    """A loss function as a module, with its ``reduction`` (``"mean"``,
    ``"sum"`` or ``"none"``) shown in its ``repr``."""

    def __init__(self, reduction: str = "mean", **settings: Any) -> None:
        super().__init__(reduction=reduction, **settings)

    def extra_repr(self) -> str:
        return f"reduction={self.reduction!r}"


class CrossEntropyLoss(_Loss):
    """``F.cross_entropy`` as a module: ``nn.CrossEntropyLoss()(logits, target)``."""

    function = staticmethod(losses.cross_entropy)

    def __init__(
        self,
        weight: Optional[Tensor] = None,
        ignore_index: int = -100,
        reduction: str = "mean",
        label_smoothing: float = 0.0,
    ) -> None:
        super().__init__(
            reduction,
            weight=weight,
            ignore_index=ignore_index,
            label_smoothing=label_smoothing,
        )


class NLLLoss(_Loss):
    """``F.nll_loss`` as a module."""

    function = staticmethod(losses.nll_loss)

    def __init__(
        self,
        weight: Optional[Tensor] = None,
        ignore_index: int = -100,
        reduction: str = "mean",
    ) -> None:
        super().__init__(reduction, weight=weight, ignore_index=ignore_index)


class MSELoss(_Loss):
    """``F.mse_loss`` as a module."""

    function = staticmethod(losses.mse_loss)


class L1Loss(_Loss):
    """``F.l1_loss`` as a module."""

    function = staticmethod(losses.l1_loss)


class BCELoss(_Loss):
    """``F.binary_cross_entropy`` as a module (``weight`` as in PyTorch)."""

    function = staticmethod(losses.binary_cross_entropy)

    def __init__(
        self, weight: Optional[Tensor] = None, reduction: str = "mean"
    ) -> None:
        super().__init__(reduction, weight=weight)


class BCEWithLogitsLoss(_Loss):
    """``F.binary_cross_entropy_with_logits`` as a module (``weight``,
    ``pos_weight`` as in PyTorch)."""

    function = staticmethod(losses.binary_cross_entropy_with_logits)

    def __init__(
        self,
        weight: Optional[Tensor] = None,
        reduction: str = "mean",
        pos_weight: Optional[Tensor] = None,
    ) -> None:
        super().__init__(reduction, weight=weight, pos_weight=pos_weight)


class SmoothL1Loss(_Loss):
    """``F.smooth_l1_loss`` as a module: ``nn.SmoothL1Loss(reduction, beta)``."""

    function = staticmethod(L.smooth_l1_loss)

    def __init__(self, reduction: str = "mean", beta: float = 1.0) -> None:
        super().__init__(reduction, beta=beta)


class HuberLoss(_Loss):
    """``F.huber_loss`` as a module: ``nn.HuberLoss(reduction, delta)``."""

    function = staticmethod(L.huber_loss)

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction, delta=delta)


class KLDivLoss(_Loss):
    """``F.kl_div`` as a module: ``nn.KLDivLoss(reduction, log_target)``."""

    function = staticmethod(L.kl_div)

    def __init__(self, reduction: str = "mean", log_target: bool = False) -> None:
        super().__init__(reduction, log_target=log_target)


class MarginRankingLoss(_Loss):
    """``F.margin_ranking_loss`` as a module: ``(input1, input2, target)``."""

    function = staticmethod(L.margin_ranking_loss)

    def __init__(self, margin: float = 0.0, reduction: str = "mean") -> None:
        super().__init__(reduction, margin=margin)


class CosineEmbeddingLoss(MarginRankingLoss):
    """``F.cosine_embedding_loss`` as a module: ``(input1, input2, target)``."""

    function = staticmethod(L.cosine_embedding_loss)


class GaussianNLLLoss(_Loss):
    """``F.gaussian_nll_loss`` as a module: ``(input, target, var)``."""

    function = staticmethod(L.gaussian_nll_loss)

    def __init__(
        self, full: bool = False, eps: float = 1e-6, reduction: str = "mean"
    ) -> None:
        super().__init__(reduction, full=full, eps=eps)


class CosineSimilarity(FunctionLayer):
    """``F.cosine_similarity`` as a module: ``nn.CosineSimilarity(dim, eps)``."""

    function = staticmethod(cosine_similarity)

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__(dim=dim, eps=eps)
