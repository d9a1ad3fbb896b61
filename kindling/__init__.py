"""The Kindling course toolchain, the part students and graders need: the task
registry, progress (the pytest plugin), grading, sync, bench, kernels, doctor.

It ships in every student edition. The instructor's tools (release, Classroom,
batch grading, course QA, platforms) are the sibling package ``kindling_staff``,
which imports this one and which this one never imports (:mod:`kindling.plugins`
finds its commands). The course library (``module0_fundamentals`` ...
``module4_networks``) never imports either; they may import the library.
"""

__version__ = "0.1.0"
