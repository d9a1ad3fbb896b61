"""Numerical derivatives by finite differences: the reference every other
derivative in the course is checked against.

For a smooth $f$, Taylor's theorem gives

$$f(x \\pm h) = f(x) \\pm h f'(x) + \\tfrac{h^2}{2} f''(x) \\pm \\tfrac{h^3}{6}
f'''(x) + O(h^4),$$

so the *forward* difference $(f(x+h) - f(x)) / h$ is off by about
$\\tfrac{h}{2} f''(x)$ (first order), while in the *central* difference
$(f(x+h) - f(x-h)) / 2h$ the even terms cancel and the error is about
$\\tfrac{h^2}{6} f'''(x)$ (second order). Floating point adds a rounding error of
about $\\varepsilon_{\\text{mach}} |f(x)| / h$ that *grows* as $h$ shrinks, so each
formula has a best step: near $10^{-8}$ for forward, near $10^{-5}$ for central.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence

__all__ = [
    "central_difference",
    "forward_difference",
    "StepSizeStudy",
    "step_size_study",
    "DEFAULT_STEPS",
]

# Step sizes 1e-1, 10^-1.5, ..., 1e-13: wide enough to show both error regimes.
DEFAULT_STEPS: List[float] = [10.0 ** (-k / 2) for k in range(2, 27)]


def _check(vals: Sequence[float], arg: int, epsilon: float) -> None:
    if not vals:
        raise ValueError("a finite difference needs at least one value")
    if not -len(vals) <= arg < len(vals):
        raise IndexError(
            f"arg={arg} is out of range for a function of {len(vals)} value(s)"
        )
    if not epsilon > 0:
        raise ValueError(f"epsilon must be positive, got {epsilon}")


def central_difference(
    f: Callable[..., float], *vals: float, arg: int = 0, epsilon: float = 1e-6
) -> float:
    """Estimate $\\partial f / \\partial x_i$ at ``vals`` (with $i$ = ``arg``) by

    $$\\frac{f(\\dots, x_i + h, \\dots) - f(\\dots, x_i - h, \\dots)}{2h},
    \\qquad h = \\varepsilon.$$

    Args:
        f: a function of ``len(vals)`` floats returning a float.
        *vals: the point $x_0, \\dots, x_{n-1}$.
        arg: which argument to differentiate with respect to.
        epsilon: the step $h$.

    Returns:
        The estimate (error $O(h^2)$ for a smooth $f$).
    """
    _check(vals, arg, epsilon)
    # BEGIN SOLUTION 1.1: move only vals[arg], by +epsilon and by -epsilon
    up = list(vals)
    down = list(vals)
    up[arg] = up[arg] + epsilon
    down[arg] = down[arg] - epsilon
    return (f(*up) - f(*down)) / (2.0 * epsilon)
    # END SOLUTION


def forward_difference(
    f: Callable[..., float], *vals: float, arg: int = 0, epsilon: float = 1e-6
) -> float:
    """Estimate $\\partial f / \\partial x_i$ by the one-sided difference

    $$\\frac{f(\\dots, x_i + h, \\dots) - f(\\dots, x_i, \\dots)}{h}$$

    (error $O(h)$). Arguments as in :func:`central_difference`.
    """
    _check(vals, arg, epsilon)
    # BEGIN SOLUTION 1.1: one-sided: f at vals[arg] + epsilon against f at vals
    up = list(vals)
    up[arg] = up[arg] + epsilon
    return (f(*up) - f(*vals)) / epsilon
    # END SOLUTION


@dataclass
class StepSizeStudy:
    """Absolute errors of both difference formulas at each step size.

    ``steps[k]`` produced ``central_errors[k]`` $= |D_c(h_k) - f'(x)|$ and
    ``forward_errors[k]`` $= |D_f(h_k) - f'(x)|$.
    """

    steps: List[float]
    central_errors: List[float]
    forward_errors: List[float]

    def best_step(self, method: str = "central") -> float:
        """The step with the smallest error for ``method`` ("central"/"forward")."""
        if method not in ("central", "forward"):
            raise ValueError(f"method must be 'central' or 'forward', got {method!r}")
        errors = self.central_errors if method == "central" else self.forward_errors
        return self.steps[errors.index(min(errors))]


def step_size_study(
    f: Callable[[float], float],
    df: Callable[[float], float],
    x: float,
    steps: Optional[Sequence[float]] = None,
) -> StepSizeStudy:
    """Measure how the error of each formula depends on the step size.

    Args:
        f: a smooth function of one float.
        df: its exact derivative $f'$.
        x: the point.
        steps: step sizes $h$ to try (default :data:`DEFAULT_STEPS`, $10^{-1}$
            down to $10^{-13}$).

    Returns:
        A :class:`StepSizeStudy`: on a log-log plot the errors fall with slope 2
        (central) and 1 (forward) while truncation dominates, then rise with
        slope -1 once rounding dominates.
    """
    steps = list(DEFAULT_STEPS if steps is None else steps)
    # BEGIN SOLUTION 1.1: one central and one forward estimate per step
    exact = df(x)
    central = [abs(central_difference(f, x, epsilon=h) - exact) for h in steps]
    forward = [abs(forward_difference(f, x, epsilon=h) - exact) for h in steps]
    return StepSizeStudy(steps, central, forward)
    # END SOLUTION
