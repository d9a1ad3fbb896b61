"""When an engine path agrees with the students' code (shared by the engine modules
of Module 4 that check each new signature before they are trusted)."""

from __future__ import annotations

from typing import Optional

import numpy as np

#: Relative tolerance of an agreement: the engine path and the students' code add
#: the same numbers in another order (BLAS blocks its sums), nothing more.
RTOL = 1e-9


def agrees(got: np.ndarray, want: Optional[np.ndarray], nan: bool = False) -> bool:
    """Whether ``got`` equals ``want`` to ``RTOL``, with an absolute floor of
    ``1e-12`` times the largest magnitude of ``want`` (at least 1). ``want=None``
    (no gradient reached an input) stands for zeros; shapes must match; ``nan``:
    NaN agrees with NaN."""
    want = np.zeros_like(got) if want is None else np.asarray(want)
    if got.shape != want.shape:
        return False
    scale = max(1.0, float(np.nanmax(np.abs(want), initial=0.0)))
    return bool(np.allclose(got, want, rtol=RTOL, atol=1e-12 * scale, equal_nan=nan))
