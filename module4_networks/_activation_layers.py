"""The activation layers of ``nn`` (given; the facade ``nn`` exports them):
``ReLU``, ``Tanh``, ``Sigmoid``, ``GELU``, ``SiLU``, ``LeakyReLU``, ``ELU``,
``Softplus``, ``Hardtanh``, ``ReLU6``, ``Mish``, ``PReLU``, ``Softmax`` and
``LogSoftmax``. Each calls its function form (``_activation_functions.py``,
``functional.py``'s ``softmax`` and ``log_softmax``) through
:class:`FunctionLayer`, which the loss modules of ``_loss_layers.py`` share."""

from __future__ import annotations

from typing import Any, Callable

from module0_fundamentals.module import Module
from module2_tensors.tensor import Tensor

from . import _activation_functions as A
from . import functional as F
from ._parameters import _parameter
from .weight_init import constant_

__all__ = [
    "ReLU",
    "Tanh",
    "Sigmoid",
    "GELU",
    "SiLU",
    "LeakyReLU",
    "ELU",
    "Softplus",
    "Hardtanh",
    "ReLU6",
    "Mish",
    "PReLU",
    "Softmax",
    "LogSoftmax",
]


class FunctionLayer(Module):
    """A function as a layer: ``forward(*inputs)`` is ``function(*inputs,
    **settings)``, the settings given to ``__init__`` by name and kept as
    attributes (so ``layer.alpha = 2.0`` changes the next call)."""

    function: Callable[..., Tensor]  # a staticmethod of the subclass

    def __init__(self, **settings: Any) -> None:
        super().__init__()
        self._settings = tuple(settings)
        for name, value in settings.items():
            setattr(self, name, value)

    def forward(self, *inputs: Any) -> Tensor:
        settings = {name: getattr(self, name) for name in self._settings}
        return self.function(*inputs, **settings)


class ReLU(FunctionLayer):
    """$\\max(x, 0)$."""

    function = staticmethod(A.relu)


class Tanh(FunctionLayer):
    """$\\tanh x$."""

    function = staticmethod(A.tanh)


class Sigmoid(FunctionLayer):
    """$1 / (1 + e^{-x})$."""

    function = staticmethod(A.sigmoid)


class GELU(FunctionLayer):
    """``F.gelu(x, approximate)``: $x\\, \\Phi(x)$."""

    function = staticmethod(A.gelu)

    def __init__(self, approximate: str = "none") -> None:
        super().__init__(approximate=approximate)


class SiLU(FunctionLayer):
    """``F.silu(x)``: $x\\, \\sigma(x)$."""

    function = staticmethod(A.silu)


class LeakyReLU(FunctionLayer):
    """``F.leaky_relu(x, negative_slope)``."""

    function = staticmethod(A.leaky_relu)

    def __init__(self, negative_slope: float = 0.01) -> None:
        super().__init__(negative_slope=negative_slope)


class ELU(FunctionLayer):
    """``F.elu(x, alpha)``."""

    function = staticmethod(A.elu)

    def __init__(self, alpha: float = 1.0) -> None:
        super().__init__(alpha=alpha)


class Softplus(FunctionLayer):
    """``F.softplus(x, beta, threshold)``."""

    function = staticmethod(A.softplus)

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__(beta=beta, threshold=threshold)


class Hardtanh(FunctionLayer):
    """``F.hardtanh(x, min_val, max_val)``: $x$ clamped to the range."""

    function = staticmethod(A.hardtanh)

    def __init__(
        self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False
    ) -> None:
        if min_val > max_val:
            raise ValueError("min_val cannot be greater than max_val")
        super().__init__(min_val=min_val, max_val=max_val)


class ReLU6(Hardtanh):
    """``F.relu6``: $\\min(\\max(x, 0), 6)$."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0)


class Mish(FunctionLayer):
    """``F.mish``: $x \\tanh(\\operatorname{softplus}(x))$."""

    function = staticmethod(A.mish)

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()


class PReLU(Module):
    """``F.prelu`` with a learned slope: ``weight`` of shape
    ``(num_parameters,)`` (1, or the number of channels), filled with
    ``init``."""

    def __init__(
        self, num_parameters: int = 1, init: float = 0.25, backend: Any = None
    ) -> None:
        super().__init__()
        self.num_parameters = num_parameters
        self.weight = _parameter((num_parameters,), backend)
        constant_(self.weight, init)

    def forward(self, x: Tensor) -> Tensor:
        return A.prelu(x, self.weight.value)


class Softmax(FunctionLayer):
    """``F.softmax(x, dim)``."""

    function = staticmethod(F.softmax)

    def __init__(self, dim: int) -> None:
        super().__init__(dim=dim)


class LogSoftmax(FunctionLayer):
    """``F.log_softmax(x, dim)``."""

    function = staticmethod(F.log_softmax)

    def __init__(self, dim: int) -> None:
        super().__init__(dim=dim)
