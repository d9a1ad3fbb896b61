"""Module 4's engine: what makes the students' networks fast without standing in
the way of their code. It imports nothing from the files students edit; their
functions reach it as arguments.

* :mod:`.fast_path`: the one mechanism by which a fast path stands in for a
  student's function, on the signatures where it agrees with it.
"""

from .fast_path import (
    FAST_PATHS,
    RTOL,
    FastPath,
    agrees,
    fast_path,
    host_array,
    host_float64,
    probe_gradient,
    ran_backward,
)

__all__ = [
    "FAST_PATHS",
    "FastPath",
    "fast_path",
    "probe_gradient",
    "ran_backward",
    "agrees",
    "RTOL",
    "host_float64",
    "host_array",
]
