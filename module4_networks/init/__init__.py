"""``module4_networks.init``: weight initialisation, as ``torch.nn.init`` (also
``kt.nn.init``, the same module).

A facade: it defines nothing, and assembles the initialisers of Task 4.6
(``weight_init.py``: ``calculate_gain``, ``calculate_fan_in_and_fan_out``,
``uniform_``, ``normal_``, ``constant_``, ``zeros_``, ``ones_`` and the Xavier and
Kaiming families) and the given ones of ``_structured_init.py`` (``trunc_normal_``,
``orthogonal_``, ``eye_``, ``dirac_``).
"""

from .._structured_init import *  # noqa: F403
from ..weight_init import *  # noqa: F403

# A facade defines nothing: it exports every public name it imports.
__all__ = [name for name in dir() if not name.startswith("_")]
