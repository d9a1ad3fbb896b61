# kindling: instructor-only
"""Equivalent mutants of Module 0's solutions (see ``__init__.py``)."""

EQUIVALENT = {
    "module0_fundamentals/operators.py:max:cmp:>->>=": (
        "max with >= differs from > only at a tie, where it returns x instead of y: "
        "the same number, except max(0.0, -0.0), whose sign the docstring's rule "
        "fixes but no later task depends on"
    ),
    "module0_fundamentals/operators.py:sigmoid:cmp:>=->>": (
        "sigmoid's branch at x = 0: both formulas give exactly 0.5 there"
    ),
    "module0_fundamentals/operators.py:sigmoid:const:0.0->1.0": (
        "sigmoid's branch point moved to 1: for 0 <= x < 1 the second formula "
        "e^x / (1 + e^x) is the same function, exponentiates a number below 1 (no "
        "overflow) and agrees to the last bit or two"
    ),
    "module0_fundamentals/operators.py:relu:cmp:>->>=": (
        "relu with >= returns x at x = 0: zero either way (-0.0 for x = -0.0, whose "
        "sign no later task depends on)"
    ),
    "module0_fundamentals/datasets.py:circle_label:cmp:<-><=": (
        "circle with <= differs only for a point exactly on the circle of squared "
        "radius 1 / (2 pi), which no pair of floats in [0, 1] reaches exactly"
    ),
    "module0_fundamentals/datasets.py:spiral_point:op:+->-#2": (
        "theta - pi * label instead of + pi * label: the angles differ by 2 pi * "
        "label, so cos and sin, and the point, are the same"
    ),
}
