"""The activation layers of ``nn`` (given; the facade ``nn`` exports them):
``ReLU``, ``Tanh``, ``Sigmoid``, ``GELU``, ``SiLU``, ``LeakyReLU``, ``ELU``,
``Softplus``, ``LogSigmoid``, ``Hardtanh``, ``ReLU6``, ``Mish``, ``PReLU``,
``Softmax``, ``LogSoftmax``, ``SELU``, ``CELU``, ``Softsign``, ``Softmin``,
``Hardsigmoid``, ``Hardswish``, ``Hardshrink``, ``Softshrink``, ``Tanhshrink``,
``Threshold``, ``GLU`` and ``Softmax2d``. Each calls its function form
(``_activation_functions.py``, ``functional.py``'s ``softmax`` and
``log_softmax``) through :class:`FunctionLayer`, which the loss modules of
``_loss_layers.py`` share."""

from __future__ import annotations

import inspect
from typing import Any, Callable

from module0_fundamentals._exports import defined_here
from module0_fundamentals.module import Module
from module2_tensors.tensor import Tensor

from . import _activation_functions as A
from . import functional as F
from ._parameters import _parameter
from .weight_init import constant_


class FunctionLayer(Module):
    """A function as a layer: ``forward(*inputs)`` is ``function(*inputs,
    **settings)``. The settings are the function's parameters after its first
    ``inputs`` (the tensors ``forward`` passes), in its order and with its
    defaults, so ``nn.LeakyReLU(0.2)`` is ``F.leaky_relu(x, 0.2)`` as a layer;
    they are kept as attributes (``layer.negative_slope = 0.1`` changes the next
    call), a tensor as a buffer (a loss's ``weight``: in ``state_dict``, moved
    by ``.to``, as PyTorch's). A layer whose PyTorch signature takes them in
    another order names that order in ``order``; one whose signature differs
    otherwise defines its own ``__init__`` and passes the settings by name."""

    function: Callable[..., Tensor]  # a staticmethod of the subclass
    inputs: int = 1
    order = ""  # the settings' names in the layer's order, where it differs
    shown = ""  # the settings repr shows, as PyTorch's (and inplace=True if set)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()
        params = inspect.signature(self.function).parameters
        # (the settings' names, in order: all bound below, defaults applied)
        self._settings = names = self.order.split() or [*params][self.inputs :]
        try:
            bound = inspect.Signature([params[n] for n in names]).bind(*args, **kwargs)
        except TypeError as error:  # name the layer, not the signature's bind
            raise TypeError(f"{type(self).__name__}: {error}") from None
        bound.apply_defaults()
        for name, value in bound.arguments.items():
            if isinstance(value, Tensor):
                self.register_buffer(name, value)
            else:
                setattr(self, name, value)

    def forward(self, *inputs: Any) -> Tensor:
        return self.function(*inputs, **{n: getattr(self, n) for n in self._settings})

    def extra_repr(self) -> str:
        shown = [f"{name}={getattr(self, name)!r}" for name in self.shown.split()]
        if getattr(self, "inplace", False):
            shown.append("inplace=True")
        return ", ".join(shown)


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
    shown = "approximate"


class SiLU(FunctionLayer):
    """``F.silu(x)``: $x\\, \\sigma(x)$."""

    function = staticmethod(A.silu)


class LeakyReLU(FunctionLayer):
    """``F.leaky_relu(x, negative_slope)``."""

    function = staticmethod(A.leaky_relu)
    shown = "negative_slope"


class ELU(FunctionLayer):
    """``F.elu(x, alpha)``."""

    function = staticmethod(A.elu)
    shown = "alpha"


class Softplus(FunctionLayer):
    """``F.softplus(x, beta, threshold)``."""

    function = staticmethod(A.softplus)
    shown = "beta threshold"


class LogSigmoid(FunctionLayer):
    """``F.logsigmoid(x)``: $\\log \\sigma(x)$."""

    function = staticmethod(A.logsigmoid)


class Hardtanh(FunctionLayer):
    """``F.hardtanh(x, min_val, max_val)``: $x$ clamped to the range."""

    function = staticmethod(A.hardtanh)
    shown = "min_val max_val"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.min_val > self.max_val:  # (checked when built, as PyTorch's)
            raise ValueError("min_val cannot be greater than max_val")


class ReLU6(Hardtanh):
    """``F.relu6``: $\\min(\\max(x, 0), 6)$."""

    shown = ""  # (as PyTorch's: the range is fixed)

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)


class Mish(FunctionLayer):
    """``F.mish``: $x \\tanh(\\operatorname{softplus}(x))$."""

    function = staticmethod(A.mish)


class PReLU(Module):
    """``F.prelu`` with a learned slope: ``weight`` of shape
    ``(num_parameters,)`` (1, or the number of channels), filled with
    ``init``."""

    def __init__(
        self, num_parameters: int = 1, init: float = 0.25, backend: Any = None
    ) -> None:
        super().__init__()
        self.num_parameters = num_parameters
        self.weight = constant_(_parameter((num_parameters,), backend), init)

    def forward(self, x: Tensor) -> Tensor:
        return A.prelu(x, self.weight.value)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class Softmax(FunctionLayer):
    """``F.softmax(x, dim)``."""

    function = staticmethod(F.softmax)
    shown = "dim"


class LogSoftmax(FunctionLayer):
    """``F.log_softmax(x, dim)``."""

    function = staticmethod(F.log_softmax)
    shown = "dim"


class SELU(FunctionLayer):
    """``F.selu``."""

    function = staticmethod(A.selu)


class CELU(FunctionLayer):
    """``F.celu(x, alpha)``."""

    function = staticmethod(A.celu)
    shown = "alpha"


class Softsign(FunctionLayer):
    """``F.softsign``: $x / (1 + |x|)$."""

    function = staticmethod(A.softsign)


class Softmin(FunctionLayer):
    """``F.softmin(x, dim)``."""

    function = staticmethod(A.softmin)
    order = shown = "dim"


class _InplaceUnshown(FunctionLayer):
    """A layer whose repr shows nothing, ``inplace=True`` neither (PyTorch's)."""

    def extra_repr(self) -> str:
        return ""


class Hardsigmoid(_InplaceUnshown):
    """``F.hardsigmoid``: $\\operatorname{relu6}(x + 3) / 6$."""

    function = staticmethod(A.hardsigmoid)


class Hardswish(_InplaceUnshown):
    """``F.hardswish``: $x \\operatorname{relu6}(x + 3) / 6$."""

    function = staticmethod(A.hardswish)


class _Shrink(FunctionLayer):
    """A shrinkage layer: its repr is ``lambd`` alone, as PyTorch's."""

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class Hardshrink(_Shrink):
    """``F.hardshrink(x, lambd)``."""

    function = staticmethod(A.hardshrink)


class Softshrink(_Shrink):
    """``F.softshrink(x, lambd)``."""

    function = staticmethod(A.softshrink)


class Tanhshrink(FunctionLayer):
    """``F.tanhshrink``: $x - \\tanh x$."""

    function = staticmethod(A.tanhshrink)


class Threshold(FunctionLayer):
    """``F.threshold(x, threshold, value)``."""

    function = staticmethod(A.threshold)
    shown = "threshold value"


class GLU(FunctionLayer):
    """``F.glu(x, dim)``."""

    function = staticmethod(A.glu)
    shown = "dim"


class Softmax2d(Module):
    """``F.softmax`` over the channels (dim $-3$) of ``(N, C, H, W)`` or ``(C, H,
    W)``."""

    def forward(self, input: Tensor) -> Tensor:
        return input.softmax(-3)


# (last: the names defined above)
__all__ = defined_here(globals(), but=("FunctionLayer",))
