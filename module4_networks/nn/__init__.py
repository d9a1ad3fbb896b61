"""``module4_networks.nn``: layers, as ``torch.nn``.

A facade, as ``torch.nn`` is: it defines nothing, and assembles the layers of
Task 4.6 (``layers.py``, with ``Module`` and the other containers from Module 0), the
recurrent layers of Task 4.7 (``recurrent.py``), attention and the Transformer of
Task 4.8 (``attention.py``, ``transformer.py``), the given layers of
``_activation_layers.py``, ``_loss_layers.py``, ``_normalization_layers.py`` and
``_spatial_layers.py``, ``ParameterDict`` (with the other containers, from
Module 0), gradient clipping (``nn.utils``), ``nn.init`` and
``nn.functional`` (the facade of :mod:`module4_networks.nn.functional`). Nothing
in the library imports it back.
"""

from module0_fundamentals.containers import ModuleDict, ParameterDict, ParameterList
from module0_fundamentals.module import Module, ModuleList, Parameter, Sequential

from .. import init  # torch.nn.init's path: nn.init
from .. import nn_utils as utils  # torch.nn.utils's path: nn.utils
from .._activation_layers import *  # noqa: F403
from .._loss_layers import *  # noqa: F403
from .._normalization_layers import *  # noqa: F403
from .._spatial_layers import *  # noqa: F403
from ..attention import MultiheadAttention
from ..layers import *  # noqa: F403
from ..recurrent import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNCell
from ..transformer import (
    PositionalEncoding,
    TransformerEncoder,
    TransformerEncoderLayer,
)
from . import functional  # torch.nn.functional's path: nn.functional

# A facade defines nothing: it exports every public name it imports.
__all__ = [name for name in dir() if not name.startswith("_")]
