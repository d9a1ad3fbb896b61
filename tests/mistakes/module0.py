# kindling: instructor-only
"""Plausible wrong solutions of Module 0's tasks (see ``__init__.py``)."""

MISTAKES = [
    {
        "name": "is-close-le",
        "task": "0.1",
        "file": "module0_fundamentals/operators.py",
        "find": "return abs(x - y) < CLOSE_TOLERANCE",
        "replace": "return abs(x - y) <= CLOSE_TOLERANCE",
        "description": "is_close with <= where the docstring says |x - y| < 1e-2",
    },
    {
        "name": "mul-clipped",
        "task": "0.1",
        "file": "module0_fundamentals/operators.py",
        "find": "    return x * y\n",
        "replace": "    return math.copysign(min(abs(x), 999.0), x) * y\n",
        "description": "mul that clips its first argument: wrong for |x| >= 1000",
    },
    {
        "name": "sigmoid-unstable",
        "task": "0.1",
        "file": "module0_fundamentals/operators.py",
        "find": "    if x >= 0.0:\n        return 1.0 / (1.0 + math.exp(-x))\n",
        "replace": "    if True:\n        return 1.0 / (1.0 + math.exp(-x))\n",
        "description": "sigmoid by the textbook formula: overflows for large -x",
    },
]
