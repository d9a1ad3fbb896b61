"""``module4_networks.optim``: optimizers, as ``torch.optim``
(``from module4_networks import optim``; ``optim.Adam(model.parameters())``).

A facade: it defines nothing, and assembles the optimizers of Task 4.6
(``optimizers.py``: ``Optimizer``, ``SGD``, ``RMSprop``, ``Adam``, ``AdamW`` and the
given ``Adagrad``, ``RAdam``, ``NAdam``), the given ``Adamax``, ``Adadelta``,
``Rprop`` and ``ASGD`` (``_adamax_adadelta_rprop_asgd.py``) and
``optim.lr_scheduler`` (PyTorch's path), the facade of the learning-rate schedules
of ``lr_scheduler.py`` and ``lr_cycles.py``. Nothing in the library imports it
back.
"""

from . import lr_scheduler  # torch.optim.lr_scheduler's path: optim.lr_scheduler
from .._adamax_adadelta_rprop_asgd import *  # noqa: F403
from ..optimizers import *  # noqa: F403

# A facade defines nothing: it exports every public name it imports.
__all__ = [name for name in dir() if not name.startswith("_")]
