"""``module4_networks.nn.functional``: the operations of a network, as
``torch.nn.functional`` (``from module4_networks.nn import functional as F``).

A facade: it defines nothing, and assembles the functions of
``module4_networks/functional.py`` (Tasks 4.1-4.4: convolution, pooling, softmax,
dropout, and the given activations), the losses of ``losses.py`` (Task 4.6),
``scaled_dot_product_attention`` of ``attention.py`` (Task 4.8), and the given
functions of ``_extra_functional.py``, ``_extra_conv.py``, ``_padding.py`` and
``_unfold.py``.
"""

from ..._extra_conv import *  # noqa: F403
from ..._extra_conv import __all__ as _extra_conv
from ..._extra_functional import (
    cosine_embedding_loss,
    cosine_similarity,
    gaussian_nll_loss,
    hardtanh,
    huber_loss,
    kl_div,
    layer_norm,
    margin_ranking_loss,
    mish,
    normalize,
    one_hot,
    prelu,
    relu6,
    smooth_l1_loss,
)
from ...attention import scaled_dot_product_attention
from ...functional import *  # noqa: F403
from ...functional import __all__ as _functional
from ..._padding import pad
from ..._unfold import unfold
from ...losses import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    l1_loss,
    mse_loss,
    nll_loss,
)

__all__ = [
    *_functional,
    "cross_entropy",
    "nll_loss",
    "mse_loss",
    "l1_loss",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "one_hot",
    "normalize",
    "cosine_similarity",
    "layer_norm",
    "smooth_l1_loss",
    "huber_loss",
    "kl_div",
    "hardtanh",
    "relu6",
    "mish",
    "prelu",
    "margin_ranking_loss",
    "cosine_embedding_loss",
    "gaussian_nll_loss",
    "scaled_dot_product_attention",
    "unfold",
    "pad",
    *_extra_conv,
]
