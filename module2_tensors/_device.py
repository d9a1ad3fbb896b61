"""Where pickles written before the engine moved into ``engine/`` find a backend
(``module2_tensors._device.backend_named``). Nothing else imports this module."""

from .engine.devices import backend_named  # noqa: F401
