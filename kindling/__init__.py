"""The Kindling course toolchain: task registry, release, grading, classroom, bench.

The course library (``module0_fundamentals`` ... ``module4_networks``) never imports
this package; this package may import the library.
"""

__version__ = "0.1.0"
