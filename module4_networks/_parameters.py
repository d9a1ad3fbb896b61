"""How the layers make their parameters (private helper: the layers of
``layers.py``, ``recurrent.py`` and ``attention.py`` share it)."""

from __future__ import annotations

import math
from typing import Optional, Tuple, Union

from module0_fundamentals.module import Parameter
from module2_tensors._backend import TensorBackend
from module2_tensors.tensor import Tensor, zeros

from . import weight_init as init


def _parameter(shape: Tuple[int, ...], backend: Optional[TensorBackend]) -> Parameter:
    """A zero tensor of ``shape`` wrapped as a Parameter (filled by ``init`` next)."""
    return Parameter(zeros(shape, backend=backend))


def _value(p: Optional[Parameter]) -> Optional[Tensor]:
    """What a forward reads of an optional parameter: ``p.value`` (the leaf a
    ``p.update(t)`` put there, so its gradient reaches it), or ``None``."""
    return None if p is None else p.value


def _uniform_fan_in(p: Parameter, fan_in: int) -> None:
    """PyTorch's default for Linear and Conv: $U(-1/\\sqrt{\\text{fan\\_in}},
    1/\\sqrt{\\text{fan\\_in}})$, which is ``kaiming_uniform_(w, a=sqrt(5))``."""
    bound = 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0
    init.uniform_(p, -bound, bound)


# --------------------------------------------------------------- parameterised


def _scale_and_shift(
    shape: Union[int, Tuple[int, ...]], backend: Optional[TensorBackend], affine: bool
) -> Tuple[Optional[Parameter], Optional[Parameter]]:
    """A normalization's learned $\\gamma$ (ones) and $\\beta$ (zeros) of ``shape``,
    or ``(None, None)`` without ``affine``."""
    if not affine:
        return None, None
    return init.ones_(_parameter(shape, backend)), _parameter(shape, backend)
