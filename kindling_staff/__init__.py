"""The instructor's half of the Kindling toolchain: ``kindling release``,
``classroom``, ``grade --batch`` and ``grade merge``, ``marks``, ``mistakes``,
``mutants``, ``layers``, ``release --stats`` and ``doctor --platforms``.

No student edition ships it (``kindling/tasks.toml``'s release excludes, and the
edition's ``pyproject.toml`` written by :func:`kindling_staff.release.release`).
It imports :mod:`kindling`; :mod:`kindling` never imports it, and finds what it
adds through the entry points ``pyproject.toml`` declares (:mod:`kindling.plugins`).
"""
