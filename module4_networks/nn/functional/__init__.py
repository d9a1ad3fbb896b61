"""``module4_networks.nn.functional``: the operations of a network, as
``torch.nn.functional`` (``from module4_networks.nn import functional as F``).

A facade: it defines nothing, and assembles the functions of
``module4_networks/functional.py`` (Tasks 4.1-4.4: convolution, pooling, softmax,
dropout, ``linear`` and ``embedding``), the losses of ``losses.py`` (Task 4.6),
``scaled_dot_product_attention`` of ``attention.py`` (Task 4.8), and the given
functions of ``_activation_functions.py``, ``_loss_functions.py``,
``_normalization_functions.py``, ``_spatial_functions.py``, ``_embedding.py``
(``one_hot``), ``_padding.py`` and ``_unfold.py``.
"""

from ..._activation_functions import *  # noqa: F403
from ..._embedding import one_hot
from ..._loss_functions import *  # noqa: F403
from ..._normalization_functions import *  # noqa: F403
from ..._padding import pad
from ..._spatial_functions import *  # noqa: F403
from ..._unfold import unfold
from ...attention import scaled_dot_product_attention
from ...functional import *  # noqa: F403
from ...losses import *  # noqa: F403

# A facade defines nothing: it exports every public name it imports.
__all__ = [name for name in dir() if not name.startswith("_")]
