"""The tests' own finite differences: the oracle for every Module 1 derivative.

Task 1.1 asks students to write ``central_difference``; the tests of later tasks
must not trust it (a student's wrong Task 1.1 would otherwise pass a wrong
backward, and a test of Task 1.4 would stop at Task 1.1's stub). This is the same
formula, written once for the tests: ``(f(x + h) - f(x - h)) / 2h`` in argument
``arg``.
"""

from __future__ import annotations

from typing import Callable


def central_difference(
    f: Callable[..., float], *vals: float, arg: int = 0, epsilon: float = 1e-6
) -> float:
    """$\\partial f / \\partial x_{arg}$ at ``vals`` by a central difference."""
    up = [float(v) for v in vals]
    down = list(up)
    up[arg] += epsilon
    down[arg] -= epsilon
    return (f(*up) - f(*down)) / (2.0 * epsilon)
