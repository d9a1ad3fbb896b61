"""The decoys of Task 0.2's mutation grading (instructor source only).

Rewrites of operators that are *correct* (the same results as the reference for
every float, NaN and -0.0 included), planted among the mutants in the same form
(:mod:`kindling.mutation`). A suite that fails on one tests the text of the code,
not what it computes, and scores 0. This module never reaches a student edition
(no staff module does; the grader finds it by its entry point, ``decoys`` of the
group ``kindling.grading``: :func:`kindling.mutation.decoys`). A test that knew the
list could fail on every rewritten body that is not in it, and so tell every
mutant from every decoy by text alone.
"""

from kindling.mutation import Mutant

# Correct rewrites, by function: each is the reference exactly, for every float
# (NaN, infinities and -0.0 included) by IEEE 754's own rules: addition and
# multiplication commute, ``a - b`` is ``a + (-b)``, multiplying by 1.0 and
# negating are exact, ``y < x`` is ``x > y`` (both false for NaN), and a condition
# negated with its branches swapped is the same choice.
# (``0.0 - x`` is not ``-x``: it turns -0.0 into 0.0; no such rewrite is here.)
_REWRITES = {
    "add": ("y + x", "x - (-y)", "(x + y) * 1.0", "1.0 * (y + x)", "y - (-x)"),
    "mul": ("y * x", "(x * y) * 1.0", "x * (y * 1.0)", "(y * x) * 1.0"),
    "neg": ("-1.0 * x", "x * -1.0", "-(x * 1.0)", "-(1.0 * x)"),
    "lt": (
        "1.0 if y > x else 0.0",
        "0.0 if not x < y else 1.0",
        "0.0 if not y > x else 1.0",
    ),
    "eq": (
        "1.0 if y == x else 0.0",
        "0.0 if x != y else 1.0",
        "0.0 if y != x else 1.0",
    ),
    "max": ("y if not x > y else x", "x if y < x else y", "y if not y < x else x"),
    "relu": ("x if 0.0 < x else 0.0", "0.0 if not x > 0.0 else x"),
    "relu_back": ("d if 0.0 < x else 0.0", "0.0 if not x > 0.0 else d"),
}

DECOYS = tuple(
    Mutant(f"decoy_{function}_{number}", "", {function: f"return {expression}"})
    for function, expressions in sorted(_REWRITES.items())
    for number, expression in enumerate(expressions, 1)
)
