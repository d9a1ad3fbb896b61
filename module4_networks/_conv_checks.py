"""Argument and storage checks of the convolution kernels (private: students
never edit or need to read this file).

A Numba kernel that reads past its storage crashes the process instead of raising:
``fast_conv.py``'s wrappers call these checks first, so bad input gets an error
that names the shapes (COURSE_DESIGN section 5).
"""

from __future__ import annotations

from typing import Sequence, Tuple, Union

import numpy as np

from module2_tensors.engine.layout import _read_only

Storage = np.ndarray  # flat float64
Index = np.ndarray  # int64 shape or strides
Strided = Tuple[Storage, Index, Index]  # (storage, shape, strides)
IntPair = Union[int, Tuple[int, int], Sequence[int]]


def pair(value: IntPair, name: str) -> Tuple[int, int]:
    """``3 -> (3, 3)``; ``(2, 3) -> (2, 3)``; ``(3,) -> (3, 3)``: PyTorch's rule
    for 2-D sizes."""
    values = (value,) if isinstance(value, (int, np.integer)) else tuple(value)
    values = values * 2 if len(values) == 1 else values
    if len(values) != 2 or not all(isinstance(v, (int, np.integer)) for v in values):
        raise TypeError(f"{name} must be an int or a pair of ints, got {value!r}")
    return int(values[0]), int(values[1])


def sizes(name: str, label: str, value: object, spatial: int) -> Tuple[int, ...]:
    """A convolution's ``label`` (stride, padding, dilation) per spatial dim:
    conv2d's by :func:`pair`; conv1d's an int, or a 1-tuple of one (PyTorch
    accepts both)."""
    if spatial == 2:
        return pair(value, label)  # type: ignore[arg-type]
    if isinstance(value, (tuple, list)) and len(value) == 1:
        value = value[0]
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
        raise TypeError(f"{name}: {label} must be an int, got {value!r}")
    return (int(value),)


def _check_groups(name: str, c_in: int, c_out: int, groups: int) -> None:
    """A convolution's ``groups`` (its function's or its layer's): at least 1,
    and dividing both channel counts."""
    if groups < 1 or c_in % groups or c_out % groups:
        raise ValueError(
            f"{name}: in_channels ({c_in}) and out_channels ({c_out}) must both "
            f"be divisible by groups ({groups})"
        )


def pair_2d(values: Sequence[int], fill: int) -> Tuple[int, int]:
    """conv2d's ``(height, width)`` of a stride, padding or spatial shape: conv1d's
    ``(length,)`` is ``(fill, length)`` (a height of 1)."""
    return tuple(int(n) for n in (fill, *values)[-2:])


def conv_output_shape(
    name: str,
    input_shape: Sequence[int],
    weight_shape: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
) -> Tuple[int, ...]:
    """Check a convolution's arguments and return the output shape.

    ``input_shape`` is ``(batch, in_channels, *spatial)`` and ``weight_shape`` is
    ``(out_channels, in_channels, *kernel)``; ``stride`` and ``padding`` have one
    entry per spatial dimension. Raises ``ValueError`` naming both shapes when they
    do not fit together.
    """
    spatial = len(stride)
    input_shape = tuple(int(n) for n in input_shape)
    weight_shape = tuple(int(n) for n in weight_shape)
    axes = ("length", "kernel") if spatial == 1 else ("height, width", "kh, kw")
    for what, shape, dims in (
        ("input", input_shape, f"batch, channels, {axes[0]}"),
        ("weight", weight_shape, f"out_channels, in_channels, {axes[1]}"),
    ):
        if len(shape) != spatial + 2:
            raise ValueError(
                f"{name}: {what} must have {spatial + 2} dims ({dims}), got shape "
                f"{shape}"
            )
    if input_shape[1] != weight_shape[1]:
        raise ValueError(
            f"{name}: input has {input_shape[1]} channels but the weight expects "
            f"{weight_shape[1]} (input shape {input_shape}, weight shape "
            f"{weight_shape})"
        )
    if any(s < 1 for s in stride):
        raise ValueError(f"{name}: stride must be positive, got {tuple(stride)}")
    if any(p < 0 for p in padding):
        raise ValueError(f"{name}: padding must be non-negative, got {tuple(padding)}")
    if min(input_shape[1:]) < 1 or min(weight_shape) < 1:  # (a batch may be 0)
        raise ValueError(
            f"{name}: empty input or weight (input shape {input_shape}, weight "
            f"shape {weight_shape})"
        )
    dims = zip(input_shape[2:], weight_shape[2:], stride, padding)
    out = [(n + 2 * p - k) // s + 1 for n, k, s, p in dims]
    if min(out) < 1:  # (a kernel larger than the padded input)
        raise ValueError(
            f"{name}: kernel {weight_shape[2:]} is larger than the padded input "
            f"(input shape {input_shape}, padding {tuple(padding)})"
        )
    return (input_shape[0], weight_shape[0], *out)


def _check_storage(name: str, storage: Storage, shape: Index, strides: Index) -> None:
    """Refuse storage that a kernel would read out of bounds (a crash, not an error)."""
    if len(shape) != len(strides):
        raise ValueError(f"{name}: shape {tuple(shape)} and strides {tuple(strides)}")
    last = int(sum((int(n) - 1) * int(s) for n, s in zip(shape, strides)))
    if min(strides, default=0) < 0 or last >= storage.size:
        raise ValueError(
            f"{name}: storage of size {storage.size} is too small for shape "
            f"{tuple(shape)} with strides {tuple(strides)}"
        )


def _as_strided(name: str, triple: Strided) -> Strided:
    """Normalise a triple's types (float64 storage, read-only int64 shape and
    strides, as ``TensorData`` holds them), so every call hits the same compiled
    kernel."""
    storage, shape, strides = triple
    if not isinstance(storage, np.ndarray) or storage.dtype != np.float64:
        raise TypeError(f"{name}: storage must be a float64 NumPy array")
    if storage.ndim != 1:
        raise ValueError(f"{name}: storage must be flat, got shape {storage.shape}")
    return storage, _read_only(shape), _read_only(strides)
