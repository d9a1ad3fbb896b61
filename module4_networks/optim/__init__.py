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

from .. import _adamax_adadelta_rprop_asgd, optimizers
from . import lr_scheduler
from .._adamax_adadelta_rprop_asgd import *  # noqa: F403
from ..optimizers import *  # noqa: F403

# lr_scheduler: torch.optim.lr_scheduler's path, optim.lr_scheduler.
__all__ = [*optimizers.__all__, *_adamax_adadelta_rprop_asgd.__all__, "lr_scheduler"]
