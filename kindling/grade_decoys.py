# kindling: instructor-only
"""The decoys of Task 0.2's mutation grading (instructor source only).

Rewrites of operators that are *correct* (the same results as the reference for
every float, NaN and -0.0 included), planted among the mutants in the same form
(:mod:`kindling.mutation`). A suite that fails on one tests the text of the code,
not what it computes, and scores 0. This module never reaches a student edition
(its first line): a test that knew the list could fail on every rewritten body
that is not in it, and so tell every mutant from every decoy by text alone.
"""

from kindling.mutation import Mutant

DECOYS = (
    Mutant("decoy_add", "", {"add": "return y + x"}),
    Mutant("decoy_mul", "", {"mul": "return y * x"}),
    Mutant("decoy_neg", "", {"neg": "return -1.0 * x"}),
    Mutant("decoy_lt", "", {"lt": "return 1.0 if y > x else 0.0"}),
    Mutant("decoy_eq", "", {"eq": "return 1.0 if y == x else 0.0"}),
)
