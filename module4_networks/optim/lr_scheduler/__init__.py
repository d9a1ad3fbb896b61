"""``module4_networks.optim.lr_scheduler``: learning-rate schedules, as
``torch.optim.lr_scheduler`` (``optim.lr_scheduler.StepLR(opt, 10)``).

A facade: it defines nothing, and assembles the base class, the schedules
indexed by epoch, their compositions and ``ReduceLROnPlateau``
(``lr_scheduler.py``) and the cyclic schedules (``lr_cycles.py``:
``CosineAnnealingWarmRestarts``, ``OneCycleLR``, ``CyclicLR``).
"""

from ...lr_cycles import *  # noqa: F403
from ...lr_scheduler import *  # noqa: F403

# A facade defines nothing: it exports every public name it imports.
__all__ = [name for name in dir() if not name.startswith("_")]
