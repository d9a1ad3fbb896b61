"""``module4_networks.nn``: layers, as ``torch.nn``.

A facade, as ``torch.nn`` is: it defines nothing, and assembles the layers of
Task 4.6 (``layers.py``, with ``Module`` and the other containers from Module 0), the
recurrent layers of Task 4.7 (``recurrent.py``), attention and the Transformer of
Task 4.8 (``attention.py``, ``transformer.py``), the given layers of
``_extra_layers.py``, gradient clipping (``nn.utils``), ``nn.init`` and
``nn.functional`` (the facade of :mod:`module4_networks.nn.functional`). Nothing
in the library imports it back.
"""

from module0_fundamentals.module import (
    Module,
    ModuleDict,
    ModuleList,
    Parameter,
    ParameterList,
)

from .. import init  # torch.nn.init's path: nn.init
from .. import nn_utils as utils  # torch.nn.utils's path: nn.utils
from .._extra_layers import *  # noqa: F403
from .._extra_layers import __all__ as _extra_layers
from ..attention import MultiheadAttention
from ..layers import *  # noqa: F403
from ..layers import __all__ as _layers
from ..recurrent import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNCell
from ..transformer import (
    PositionalEncoding,
    TransformerEncoder,
    TransformerEncoderLayer,
)
from . import functional  # torch.nn.functional's path: nn.functional

__all__ = [
    "Module",
    "Parameter",
    "ModuleList",
    "ModuleDict",
    "ParameterList",
    *_layers,
    *_extra_layers,
    "RNNCell",
    "LSTMCell",
    "GRUCell",
    "RNN",
    "LSTM",
    "GRU",
    "functional",
    "utils",
    "init",
    "MultiheadAttention",
    "PositionalEncoding",
    "TransformerEncoderLayer",
    "TransformerEncoder",
]
