"""Optimizers: turn the derivatives that ``backward`` left on the parameters into
better parameters.

One training step is always the same four moves::

    optimizer.zero_grad()   # forget the derivatives of the previous step
    loss = ...              # forward pass
    loss.backward()         # every parameter's value gets .derivative
    optimizer.step()        # move every parameter downhill

``zero_grad`` is needed because derivatives *accumulate* (``backward`` adds into
``.derivative``, like PyTorch's ``.grad``).
"""

from __future__ import annotations

from typing import Any, Iterable, List, Optional

from module0_fundamentals import Parameter

from .scalar import Scalar

__all__ = ["Optimizer", "SGD"]


def _derivative(value: Any) -> Optional[Any]:
    """The derivative stored on a parameter's value: ``.derivative`` for a Scalar,
    ``.grad`` (PyTorch's name) for a value that has one; ``None`` if absent."""
    return getattr(value, "derivative" if isinstance(value, Scalar) else "grad", None)


class Optimizer:
    """Holds the parameters it updates (a list, so a generator is not used up)."""

    def __init__(self, parameters: Iterable[Parameter]) -> None:
        self.parameters: List[Parameter] = list(parameters)
        for p in self.parameters:
            if not isinstance(p, Parameter):
                raise TypeError(
                    f"{type(self).__name__} takes Parameters (e.g. "
                    f"model.parameters()), got {type(p).__name__}"
                )


class SGD(Optimizer):
    """Plain stochastic gradient descent: $\\theta \\leftarrow \\theta - \\eta\\,
    \\partial L / \\partial \\theta$ for every parameter $\\theta$, learning rate
    $\\eta$ = ``lr``.

    A parameter whose value has no derivative (``None``: the loss did not depend
    on it) is left as it is.
    """

    def __init__(self, parameters: Iterable[Parameter], lr: float = 1.0) -> None:
        super().__init__(parameters)
        if not lr > 0:
            raise ValueError(f"SGD needs a positive learning rate, got lr={lr}")
        self.lr = lr

    def zero_grad(self) -> None:
        """Clear the derivative of every parameter's value (set it to ``None``)."""
        # BEGIN SOLUTION 1.5: Scalars have zero_grad(); others store .grad
        for p in self.parameters:
            if isinstance(p.value, Scalar):
                p.value.zero_grad()
            elif hasattr(p.value, "grad"):
                p.value.grad = None
        # END SOLUTION

    def step(self) -> None:
        """One descent step: replace each value $\\theta$ by a fresh leaf holding
        $\\theta - \\eta\\, \\partial L / \\partial \\theta$, with ``p.update``.

        The new value must be a *leaf*, not the result of ``theta - lr * d``
        computed on Scalars: that would chain every step onto one ever-growing
        graph. Compute it from ``.data``, the value without history (a float for a
        Scalar, a detached tensor for a Tensor), so the step is not recorded.
        """
        # BEGIN SOLUTION 1.5: p.update(a new leaf); skip parameters without derivative
        for p in self.parameters:
            d = _derivative(p.value)
            if d is None:
                continue
            # .data has no history (a float for a Scalar, a detached Tensor), so
            # the step itself is not recorded: no graph, no bookkeeping. Adding
            # (-lr) * d gives the same numbers as subtracting lr * d, in one tensor
            # operation fewer (a tensor's a - b is a + (-b)).
            new = p.value.data + (-self.lr) * d
            if isinstance(p.value, Scalar):
                p.update(Scalar(new, name=p.value.name))
            else:  # a Tensor-like value: update() makes it require grad again
                p.update(new)
        # END SOLUTION
