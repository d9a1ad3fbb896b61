"""Module 4's engine: what makes the students' networks fast without standing in
the way of their code. It imports nothing from the files students edit; their
functions reach it as arguments.

* :mod:`.fast_path`: the one mechanism by which a fast path stands in for a
  student's function, on the signatures where it agrees with it.
"""

# The names of fast_path.py, listed once there.
from .fast_path import *  # noqa: F403
from .fast_path import __all__  # noqa: F401
