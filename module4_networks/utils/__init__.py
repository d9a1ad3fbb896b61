"""``module4_networks.utils``: as ``torch.utils``, the facade of
:mod:`module4_networks.utils.data` (``kt.utils.data.DataLoader``); it defines
nothing."""

from . import data

__all__ = ["data"]
