"""PyTorch's general windows (overlapping, padded, ``ceil_mode``), ``dilation``
and ``return_indices`` for ``F.max_pool2d`` and ``nn.MaxPool2d`` (private, given
code: ``functional.max_pool2d`` hands these calls here, with its
``_pool_windows`` and Task 4.4's ``max``, which this file does not import:
functional imports it). The gradient goes to each window's
first maximum, as PyTorch's; the indices are read off the same windows of a
plane of positions."""

from __future__ import annotations

import math
from typing import Any, Callable, Optional

import numpy as np

from module2_tensors.tensor import Tensor, tensor


def max_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Optional[Any],
    padding: Any,
    ceil_mode: bool,
    dilation: Any,
    return_indices: bool,
    windows_of: Callable[..., Any],
    maximum: Callable[..., Any],
) -> Any:
    """The maxima of the (dilated) windows, and with ``return_indices`` also
    where each came from: ``h * W + w`` in its ``(H, W)`` input plane, an
    ``int64`` tensor of the output's shape."""
    options = (kernel_size, stride, padding, ceil_mode)
    windows, _ = windows_of("max_pool2d", input, *options, -math.inf, dilation)
    result = maximum(windows, dim=4)
    if not return_indices:
        return result.values
    h, w = input.shape[2:]
    plane = input.new_tensor(np.arange(h * w, dtype=np.float64).reshape(1, 1, h, w))
    positions, _ = windows_of("max_pool2d", plane, *options, -1.0, dilation)
    chosen = result.indices.to_numpy().astype(np.int64)[..., None]
    # (the one plane of positions broadcast against the batch and channels)
    indices = np.take_along_axis(positions.to_numpy(), chosen, axis=4)[..., 0]
    # (tensor() keeps an int64 array's dtype, as PyTorch's indices have)
    return result.values, tensor(indices.astype(np.int64), backend=input.backend)
