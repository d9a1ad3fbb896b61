"""Checks that an error message *names* the right things, in any wording.

A test of an error the student writes checks what the message must tell its
reader (the index, the shapes, the dimension), not a phrase no document states:
``(2, 3)`` may be written ``(2, 3)``, ``[2, 3]`` or ``torch.Size([2, 3])``, as
PyTorch writes it, and a number stands alone (``5`` is not found in ``15``).
"""

from __future__ import annotations

import re
from typing import List, Sequence, Union

Named = Union[int, str, Sequence[int]]


def pattern(value: Named) -> str:
    """A regular expression that finds ``value`` written in a message."""
    if isinstance(value, str):
        return re.escape(value)
    if isinstance(value, int):
        return rf"(?<![\w.]){re.escape(str(value))}(?![\w.])"
    entries = r"\s*,\s*".join(re.escape(str(int(v))) for v in value)
    return rf"[(\[]\s*{entries}\s*,?\s*[)\]]"


def missing(message: str, *values: Named) -> List[Named]:
    """The ``values`` that ``message`` does not name."""
    return [v for v in values if not re.search(pattern(v), message, re.IGNORECASE)]


def assert_names(error: BaseException, *values: Named) -> None:
    """Fail, saying what is missing, unless ``error``'s message names every value."""
    message = str(error)
    absent = missing(message, *values)
    assert not absent, (
        f"the {type(error).__name__} message should name "
        + ", ".join(repr(v) for v in absent)
        + f"; it says: {message!r}"
    )
