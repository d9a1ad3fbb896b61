"""Two-dimensional toy datasets for binary classification (Task 0.5).

Every dataset is a :class:`Graph`: ``n`` points $(x_1, x_2)$ in the unit square
$[0, 1]^2$ with labels $y \\in \\{0, 1\\}$. Each generator ``f(n, seed=0)`` is
deterministic: the same ``n`` and ``seed`` always give the same points, because it
draws from its own ``random.Random(seed)`` and never from Python's global random state.

- ``simple``, ``diag``, ``split``: one straight line separates the classes;
- ``xor``, ``circle``: no straight line does (a hidden layer is needed);
- ``spiral``, ``moons``: points along curves, labelled by the curve they lie on.

You write the rules (``simple_label``, ..., ``moons_point``); the sampling is given.
"""

from __future__ import annotations

import math  # noqa: F401 (only your solutions use it)
import random
from collections.abc import Callable
from dataclasses import dataclass

Point = tuple[float, float]


@dataclass
class Graph:
    """A labelled 2-D dataset: ``X[i]`` is the point $(x_1, x_2)$, ``y[i]`` its label.

    ``n`` points; ``X`` is a list of ``n`` pairs in $[0, 1]^2$; ``y`` a list of ``n``
    ints, each 0 or 1.
    """

    n: int
    X: list[Point]
    y: list[int]

    def __post_init__(self) -> None:
        if len(self.X) != self.n or len(self.y) != self.n:
            raise ValueError(
                f"Graph: n = {self.n} but {len(self.X)} points and "
                f"{len(self.y)} labels"
            )


def _rng(n: int, seed: int) -> random.Random:
    """The generator's own random numbers, once ``n`` is checked."""
    if not isinstance(n, int) or n < 0:
        raise ValueError(f"the number of points must be an int >= 0, got {n!r}")
    return random.Random(seed)


def _labelled(n: int, seed: int, label: Callable[[float, float], int]) -> Graph:
    """Points drawn uniformly from the unit square, each labelled by the rule
    ``label(x1, x2)``."""
    rng = _rng(n, seed)
    X = [(rng.random(), rng.random()) for _ in range(n)]
    return Graph(n, X, [label(x1, x2) for x1, x2 in X])


def _along_curves(n: int, seed: int, point: Callable[[float, int], Point]) -> Graph:
    """Points on two curves: label ``i % 2``, a uniform position ``t`` in [0, 1] on
    the curve ``point(t, label)``, and a little uniform jitter (at most 0.02 in each
    coordinate, which keeps points that start at least 0.02 from the edge inside the
    unit square)."""
    rng = _rng(n, seed)
    y = [i % 2 for i in range(n)]
    X: list[Point] = []
    for label in y:
        x1, x2 = point(rng.random(), label)
        X.append((x1 + rng.uniform(-0.02, 0.02), x2 + rng.uniform(-0.02, 0.02)))
    return Graph(n, X, y)


# -- the rules (Task 0.5) -----------------------------------------------------------


def simple_label(x1: float, x2: float) -> int:
    """``simple``: the left half is class 1. $y = 1$ if $x_1 < 0.5$ else $0$."""
    # BEGIN SOLUTION 0.5
    return 1 if x1 < 0.5 else 0
    # END SOLUTION


def diag_label(x1: float, x2: float) -> int:
    """``diag``: the corner at the origin, below the anti-diagonal, is class 1.

    $y = 1$ if $x_1 + x_2 < 1$ else $0$.
    """
    # BEGIN SOLUTION 0.5
    return 1 if x1 + x2 < 1.0 else 0
    # END SOLUTION


def split_label(x1: float, x2: float) -> int:
    """``split``: the square split by a tilted line off the centre; above it is 1.

    $y = 1$ if $x_1 + 2 x_2 > 1.4$ else $0$ (about 55% of the points are class 1).
    """
    # BEGIN SOLUTION 0.5
    return 1 if x1 + 2.0 * x2 > 1.4 else 0
    # END SOLUTION


def xor_label(x1: float, x2: float) -> int:
    """``xor``: class 1 in the top-left and bottom-right quarters.

    $y = 1$ if exactly one of $x_1 < 0.5$ and $x_2 < 0.5$ holds, else $0$.
    """
    # BEGIN SOLUTION 0.5
    return 1 if (x1 < 0.5) != (x2 < 0.5) else 0
    # END SOLUTION


def circle_label(x1: float, x2: float) -> int:
    r"""``circle``: class 1 inside a circle around the centre of the square.

    $y = 1$ if $(x_1 - 0.5)^2 + (x_2 - 0.5)^2 < \frac{1}{2\pi}$ else $0$: the circle
    of area $\frac{1}{2}$ (radius $\approx 0.399$), so the classes are the same size.
    """
    # BEGIN SOLUTION 0.5
    return 1 if (x1 - 0.5) ** 2 + (x2 - 0.5) ** 2 < 1.0 / (2.0 * math.pi) else 0
    # END SOLUTION


def spiral_point(t: float, label: int) -> Point:
    r"""``spiral``: the point at position ``t`` in [0, 1] on spiral arm ``label``.

    Two arms wind 1.5 turns out from the centre, half a turn apart:

    $r = 0.05 + 0.35 t$, $\theta = 3 \pi t + \pi \cdot label$,
    $(x_1, x_2) = (0.5 + r \cos\theta, 0.5 + r \sin\theta)$,

    so every point lies in $[0.1, 0.9]^2$.
    """
    # BEGIN SOLUTION 0.5
    r = 0.05 + 0.35 * t
    theta = 3.0 * math.pi * t + math.pi * label
    return (0.5 + r * math.cos(theta), 0.5 + r * math.sin(theta))
    # END SOLUTION


def moons_point(t: float, label: int) -> Point:
    r"""``moons``: the point at position ``t`` in [0, 1] on half-moon ``label``.

    With $\theta = \pi t$, the two interleaved half circles are

    - label 0: $(u, v) = (\cos\theta, \sin\theta)$ (the upper moon),
    - label 1: $(u, v) = (1 - \cos\theta, 0.5 - \sin\theta)$ (the lower moon),

    which fill $u \in [-1, 2]$, $v \in [-0.5, 1]$. Rescale them into $[0.1, 0.9]^2$:
    $(x_1, x_2) = (0.1 + 0.8 \frac{u + 1}{3}, 0.1 + 0.8 \frac{v + 0.5}{1.5})$.
    """
    # BEGIN SOLUTION 0.5
    theta = math.pi * t
    if label == 0:
        u, v = math.cos(theta), math.sin(theta)
    else:
        u, v = 1.0 - math.cos(theta), 0.5 - math.sin(theta)
    return (0.1 + 0.8 * (u + 1.0) / 3.0, 0.1 + 0.8 * (v + 0.5) / 1.5)
    # END SOLUTION


# -- the generators (given) ---------------------------------------------------------


def simple(n: int, seed: int = 0) -> Graph:
    """``n`` uniform points labelled by :func:`simple_label`."""
    return _labelled(n, seed, simple_label)


def diag(n: int, seed: int = 0) -> Graph:
    """``n`` uniform points labelled by :func:`diag_label`."""
    return _labelled(n, seed, diag_label)


def split(n: int, seed: int = 0) -> Graph:
    """``n`` uniform points labelled by :func:`split_label`."""
    return _labelled(n, seed, split_label)


def xor(n: int, seed: int = 0) -> Graph:
    """``n`` uniform points labelled by :func:`xor_label`."""
    return _labelled(n, seed, xor_label)


def circle(n: int, seed: int = 0) -> Graph:
    """``n`` uniform points labelled by :func:`circle_label`."""
    return _labelled(n, seed, circle_label)


def spiral(n: int, seed: int = 0) -> Graph:
    """``n`` points on the two arms of :func:`spiral_point`, alternating labels."""
    return _along_curves(n, seed, spiral_point)


def moons(n: int, seed: int = 0) -> Graph:
    """``n`` points on the two half-moons of :func:`moons_point`, alternating labels."""
    return _along_curves(n, seed, moons_point)


#: Every dataset by name: ``DATASETS["xor"](100, seed=1)``.
DATASETS = {f.__name__: f for f in (simple, diag, split, xor, circle, spiral, moons)}
