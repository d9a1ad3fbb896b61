"""``module4_networks.nn``: layers, as ``torch.nn``.

A facade, as ``torch.nn`` is: the layers of Task 4.6 (``layers.py``), the
recurrent layers of Task 4.7 (``recurrent.py``), attention and the Transformer of
Task 4.8 (``attention.py``, ``transformer.py``), gradient clipping
(``nn.utils``) and ``nn.functional``. It imports them and nothing imports it back,
so the modules form one stack: parameters, functional, layers, recurrent and
attention, transformer, then ``nn``.
"""

from . import functional  # noqa: F401 (torch.nn.functional's path: nn.functional)
from . import init  # noqa: F401 (torch.nn.init's path: nn.init)
from . import nn_utils as utils
from ._extra_layers import *  # noqa: F401,F403
from ._extra_layers import __all__ as _extra_layers
from .attention import MultiheadAttention
from .layers import *  # noqa: F401,F403
from .layers import __all__ as _layers
from .recurrent import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNCell
from .transformer import (
    PositionalEncoding,
    TransformerEncoder,
    TransformerEncoderLayer,
)

__all__ = (
    _layers
    + _extra_layers
    + [
        "RNNCell",
        "LSTMCell",
        "GRUCell",
        "RNN",
        "LSTM",
        "GRU",
        "utils",
        "init",
        "MultiheadAttention",
        "PositionalEncoding",
        "TransformerEncoderLayer",
        "TransformerEncoder",
    ]
)
