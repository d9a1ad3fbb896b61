"""Where pickles written before the engine moved into ``engine/`` find a dtype
(``module2_tensors._dtype._by_name``). Nothing else imports this module."""

from .engine.dtypes import _by_name  # noqa: F401
