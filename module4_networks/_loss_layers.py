"""The loss modules of ``nn`` (given; the facade ``nn`` exports them):
``CrossEntropyLoss``, ``NLLLoss``, ``MSELoss``, ``L1Loss``, ``BCELoss``,
``BCEWithLogitsLoss`` (Task 4.6's ``losses.py``), ``SmoothL1Loss``, ``HuberLoss``,
``KLDivLoss``, ``MarginRankingLoss``, ``CosineEmbeddingLoss``,
``GaussianNLLLoss``, ``TripletMarginLoss``, ``SoftMarginLoss``,
``HingeEmbeddingLoss``, ``MultiLabelSoftMarginLoss`` (``_loss_functions.py``), and
``CosineSimilarity`` and ``PairwiseDistance``, which compare two inputs as they
do. Each is its function as a module (:class:`FunctionLayer`): the settings
given to ``__init__`` are the function's own, in its order, kept as attributes
and passed to it by name."""

from __future__ import annotations

from module0_fundamentals._exports import defined_here

from . import _loss_functions as L
from . import losses
from ._activation_layers import FunctionLayer
from ._normalization_functions import cosine_similarity


class _TwoInputs(FunctionLayer):
    """A function of two tensors as a module: a loss of ``(input, target)`` (its
    settings: the function's after its ``inputs`` tensors, ``reduction`` among
    them), or the two inputs ``CosineSimilarity`` and ``PairwiseDistance``
    compare; its ``repr`` shows no settings, as PyTorch's (``MSELoss()``)."""

    inputs = 2


class _ThreeInputs(_TwoInputs):
    """A loss of three tensors (``(input1, input2, target)``, ``(input, target,
    var)``, ``(anchor, positive, negative)``)."""

    inputs = 3


class CrossEntropyLoss(_TwoInputs):
    """``F.cross_entropy`` as a module: ``nn.CrossEntropyLoss()(logits, target)``."""

    function = staticmethod(losses.cross_entropy)


class NLLLoss(_TwoInputs):
    """``F.nll_loss`` as a module."""

    function = staticmethod(losses.nll_loss)


class MSELoss(_TwoInputs):
    """``F.mse_loss`` as a module."""

    function = staticmethod(losses.mse_loss)


class L1Loss(_TwoInputs):
    """``F.l1_loss`` as a module."""

    function = staticmethod(losses.l1_loss)


class BCELoss(_TwoInputs):
    """``F.binary_cross_entropy`` as a module (``weight`` as in PyTorch)."""

    function = staticmethod(losses.binary_cross_entropy)


class BCEWithLogitsLoss(_TwoInputs):
    """``F.binary_cross_entropy_with_logits`` as a module (``weight``,
    ``pos_weight`` as in PyTorch)."""

    function = staticmethod(losses.binary_cross_entropy_with_logits)


class SmoothL1Loss(_TwoInputs):
    """``F.smooth_l1_loss`` as a module: ``nn.SmoothL1Loss(reduction, beta)``."""

    function = staticmethod(L.smooth_l1_loss)


class HuberLoss(_TwoInputs):
    """``F.huber_loss`` as a module: ``nn.HuberLoss(reduction, delta)``."""

    function = staticmethod(L.huber_loss)


class KLDivLoss(_TwoInputs):
    """``F.kl_div`` as a module: ``nn.KLDivLoss(reduction, log_target)``."""

    function = staticmethod(L.kl_div)


class MarginRankingLoss(_ThreeInputs):
    """``F.margin_ranking_loss`` as a module: ``(input1, input2, target)``."""

    function = staticmethod(L.margin_ranking_loss)


class CosineEmbeddingLoss(_ThreeInputs):
    """``F.cosine_embedding_loss`` as a module: ``(input1, input2, target)``."""

    function = staticmethod(L.cosine_embedding_loss)


class GaussianNLLLoss(_ThreeInputs):
    """``F.gaussian_nll_loss`` as a module: ``(input, target, var)``."""

    function = staticmethod(L.gaussian_nll_loss)


class CosineSimilarity(_TwoInputs):
    """``F.cosine_similarity`` as a module: ``nn.CosineSimilarity(dim, eps)``."""

    function = staticmethod(cosine_similarity)


class PairwiseDistance(_TwoInputs):
    """``F.pairwise_distance`` as a module: ``nn.PairwiseDistance(p, eps,
    keepdim)``."""

    function = staticmethod(L.pairwise_distance)


class TripletMarginLoss(_ThreeInputs):
    """``F.triplet_margin_loss`` as a module: ``nn.TripletMarginLoss(margin, p,
    eps, swap, reduction)`` called on ``(anchor, positive, negative)``."""

    function = staticmethod(L.triplet_margin_loss)


class SoftMarginLoss(_TwoInputs):
    """``F.soft_margin_loss`` as a module: ``nn.SoftMarginLoss(reduction)``."""

    function = staticmethod(L.soft_margin_loss)


class HingeEmbeddingLoss(_TwoInputs):
    """``F.hinge_embedding_loss`` as a module: ``nn.HingeEmbeddingLoss(margin,
    reduction)``."""

    function = staticmethod(L.hinge_embedding_loss)


class MultiLabelSoftMarginLoss(_TwoInputs):
    """``F.multilabel_soft_margin_loss`` as a module:
    ``nn.MultiLabelSoftMarginLoss(weight, reduction)``."""

    function = staticmethod(L.multilabel_soft_margin_loss)


# (last: the names defined above)
__all__ = defined_here(globals())
