# kindling: instructor-only
"""Mutants of the course's solutions that compute the same thing (``kindling mutants``).

Each ``moduleN.py`` here holds ``EQUIVALENT``: a dict literal from a mutant's id
(``file:line:kind:old->new``, as ``kindling mutants --list`` prints it) to the
reason no test can or should tell it from the reference. A surviving mutant that
is not listed here is a gap in the task's tests: add a test that kills it.
"""
