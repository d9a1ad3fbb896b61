"""Argument checks of the given shape functions (engine layer: no task edits it).

``shape_functions.py`` and ``indexing_functions.py`` keep what a student needs
next to the stubs: each given wrapper (``expand``, ``cat``, ``pad``, ``gather``,
``index_select``) reads as "check the arguments, then apply the Function". The
checks themselves, with the error messages that name both shapes, the dim and
the sizes (the course's error rules), live here. They are pure functions of
shapes and indices: this module imports nothing from the package but NumPy.

Interface: :func:`expanded_shape`, :func:`check_cat`, :func:`padded_layout`,
:func:`check_gather`, :func:`as_indices`, :func:`normalize_dim`,
:func:`normalize_dims`.
"""

from __future__ import annotations

from typing import Any, List, Sequence, Tuple

import numpy as np


def expanded_shape(shape: Tuple[int, ...], sizes: Tuple[int, ...]) -> Tuple[int, ...]:
    """The shape ``expand(*sizes)`` gives a tensor of ``shape`` (``-1`` keeps a
    size, new dimensions go on the left).

    Raises:
        ValueError: the shape cannot be reached (naming both shapes and the dim).
    """
    extra = len(sizes) - len(shape)
    if extra < 0:
        raise ValueError(
            f"cannot expand shape {shape} to {sizes}: fewer dimensions than the "
            f"tensor"
        )
    out = []
    for k, n in enumerate(sizes):
        have = shape[k - extra] if k >= extra else None
        if n == -1:
            if have is None:
                raise ValueError(
                    f"cannot expand shape {shape} to {sizes}: a new dimension "
                    f"({k}) cannot be -1"
                )
            n = have
        if n < 0 or (have is not None and have != 1 and have != n):
            raise ValueError(
                f"cannot expand shape {shape} to {sizes}: dimension {k} has size "
                f"{have}, which is neither {n} nor 1"
            )
        out.append(int(n))
    return tuple(out)


def check_cat(shapes: Sequence[Tuple[int, ...]], dim: int) -> None:
    """Raise ``ValueError`` (naming both shapes) unless every shape equals the
    first outside dimension ``dim``."""
    # Each shape's number of dimensions and its sizes before and after ``dim``.
    outside = [(len(s), s[:dim], s[dim + 1 :]) for s in shapes]
    for shape, sizes in zip(shapes, outside):
        if sizes != outside[0]:
            raise ValueError(
                f"cat(dim={dim}): shapes {shapes[0]} and {shape} differ outside "
                f"dimension {dim}"
            )


def padded_layout(
    shape: Tuple[int, ...], pad: Tuple[int, ...]
) -> Tuple[Tuple[int, ...], Tuple[slice, ...]]:
    """For ``pad(t, pad)`` of a tensor of ``shape``: the padded shape, and the
    slices of it where ``t``'s entries go.

    Raises:
        ValueError: an odd number of entries, more pairs than dimensions, or a
            negative entry.
    """
    dims = len(shape)
    if len(pad) % 2 or len(pad) > 2 * dims:
        raise ValueError(
            f"pad {pad} needs (before, after) pairs for at most {dims} dimensions "
            f"of shape {shape}"
        )
    if any(p < 0 for p in pad):
        raise ValueError(f"pad sizes must be non-negative, got {pad}")
    out: List[int] = list(shape)
    inner = [slice(None)] * dims
    # The pairs pad the last dimension first, then the one before it...
    for d, before, after in zip(range(dims - 1, -1, -1), pad[::2], pad[1::2]):
        out[d] += before + after
        inner[d] = slice(before, before + shape[d])
    return tuple(out), tuple(inner)


def check_gather(shape: Tuple[int, ...], dim: int, index: Any) -> None:
    """Raise unless ``index`` (a tensor) fits ``gather(dim)`` of a tensor of
    ``shape``: same number of dimensions, no larger sizes outside ``dim``
    (``ValueError``), whole numbers in ``[0, shape[dim])`` (``IndexError``)."""
    if index.dims != len(shape) or any(
        index.shape[k] > shape[k] for k in range(len(shape)) if k != dim
    ):
        raise ValueError(
            f"gather(dim={dim}): an index of shape {index.shape} does not fit a "
            f"tensor of shape {shape}"
        )
    values = index.to_numpy()
    if not np.all((values == np.round(values)) & (values >= 0) & (values < shape[dim])):
        raise IndexError(
            f"gather: indices must be whole numbers in [0, {shape[dim]}), got "
            f"{values.min()} .. {values.max()}"
        )


def as_indices(index: Any, what: str) -> Tuple[int, ...]:
    """A 1-D (or 0-d, as PyTorch's) tensor or sequence of whole numbers as a
    tuple of ints."""
    # (a tensor: its __array__)
    values = np.atleast_1d(np.asarray(index, dtype=np.float64))
    if values.ndim != 1:
        raise ValueError(f"{what} needs a 1-D index, got shape {values.shape}")
    if not np.all(values == np.round(values)):
        raise ValueError(f"{what} needs whole-number indices, got {values.tolist()}")
    return tuple(int(i) for i in values)


def normalize_dim(dim: int, dims: int) -> int:
    """A dimension in ``[-dims, dims)`` as a non-negative one.

    Raises:
        IndexError: out of range; the message names the dim and the number of
            dimensions.
    """
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
        raise TypeError(f"dim must be an integer, got {type(dim).__name__}")
    if not -dims <= dim < dims:
        if dims == 0:
            raise IndexError(f"dim={dim} is out of range for a 0-d tensor")
        raise IndexError(
            f"dim={dim} is out of range for a tensor of {dims} dimensions "
            f"(expected a dim in [{-dims}, {dims - 1}])"
        )
    return int(dim) + dims if dim < 0 else int(dim)


def normalize_dims(dims: Any, count: int) -> Tuple[int, ...]:
    """One dim or a tuple or list of them (``flip``, ``roll``, ``movedim``,
    ``squeeze``), each made non-negative by :func:`normalize_dim`."""
    dims = dims if isinstance(dims, (tuple, list)) else (dims,)
    return tuple(normalize_dim(d, count) for d in dims)
