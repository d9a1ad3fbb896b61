"""Module 4: convolutional networks, the nn library, and real training.

Re-exports Module 3's public API (and through it every earlier module's), so
``import module4_networks as kt`` gives the whole library, plus this module's own
namespaces, used the PyTorch way::

    import module4_networks as kt
    from module4_networks import nn, optim, init
    from module4_networks.nn import functional as F

    model = nn.Sequential(nn.Conv2d(1, 8, 3), nn.ReLU(), nn.Flatten(),
                          nn.Linear(8 * 6 * 6, 10))
    opt = optim.Adam(model.parameters(), lr=1e-3)
"""

from typing import Any

from module3_fast_ops import *

from . import (
    _fused_optim,
    data,
    fast_conv,
    functional,
    init,
    layers,
    losses,
    nn,
    nn_utils,
    optim,
    attention,
    recurrent,
    training,
    transformer,
    utils,
)
from .functional import (
    argmax,
    avg_pool2d,
    conv1d,
    conv2d,
    dropout,
    log_softmax,
    max_pool2d,
    softmax,
)

# On the GPU, fused kernels stand in for these classes' update (once they agree).
_fused_optim.fuses({optim.SGD: "sgd", optim.Adam: "adam", optim.AdamW: "adamw"})


def __getattr__(name: str) -> Any:
    # Module 3 imports its CUDA backend on first use; forward those names to it.
    import module3_fast_ops
    from module2_tensors.engine.dtypes import NAMES

    try:  # (NAMES: kt.bool, kt.float, kt.long, as module2_tensors's)
        return NAMES[name] if name in NAMES else getattr(module3_fast_ops, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
