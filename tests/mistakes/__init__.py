# kindling: instructor-only
"""Plausible wrong solutions, kept as data and checked by ``kindling mistakes``.

Each ``moduleN.py`` here holds ``MISTAKES``: a list of dict literals, one per
mistake, with

- ``name``: a short slug, unique in the list;
- ``task``: the task whose tests must catch it (``"0.1"``);
- ``file``: the library file, relative to the repository root;
- ``find``: an exact snippet of one solution region of that task (found exactly
  once in the file: other engineers move code around, so no line numbers);
- ``replace``: what a student plausibly wrote instead;
- ``description``: one line saying what is wrong.

``kindling mistakes`` applies each to a copy of the instructor source and runs the
task's marker there: the task's tests must fail. These files hold reference code,
so they never reach a student edition (first line ``# kindling: instructor-only``).
"""
