"""``kt.linalg``: the norms of ``torch.linalg`` (given code)."""

from typing import Any

from .engine import reductions


def vector_norm(x: Any, ord: Any = 2, dim: Any = None, keepdim: bool = False) -> Any:
    """$(\\sum_i |x_i|^{\\text{ord}})^{1/\\text{ord}}$ over ``dim`` (every entry
    for ``None``); ``ord`` may be ``inf``, ``-inf`` or 0 (see ``Tensor.norm``)."""
    return reductions.norm(x, ord, dim, keepdim)


def norm(x: Any, ord: Any = None, dim: Any = None, keepdim: bool = False) -> Any:
    """``torch.linalg.norm``: a vector norm over ``dim`` (of every entry when
    ``ord`` and ``dim`` are ``None``), or the Frobenius norm of matrices (``ord``
    ``None`` or ``"fro"`` over two dims, or of a matrix); other matrix norms
    (nuclear, spectral, ...) are not here."""
    several = isinstance(dim, (tuple, list)) and len(dim) == 2
    if ord not in (None, "fro") and (x.dims == 2 if dim is None else several):
        raise NotImplementedError(f"linalg.norm: matrix ord={ord!r} (only 'fro')")
    return reductions.norm(x, 2 if ord in (None, "fro") else ord, dim, keepdim)
