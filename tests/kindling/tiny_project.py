"""A tiny course for the tools that run a task's marker in a copy of the source
(`kindling mistakes`, `marks`, `mutants`): the progress plugin, one library file
with solution regions, one test file."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Sequence


def write_tiny_project(
    root: Path, library: str, tests: str, markers: Sequence[str] = ("task0_1",)
) -> Path:
    """``root/lib.py`` (``library``, dedented), ``root/tests/test_lib.py``, the
    plugin's ``conftest.py`` and a ``pytest.ini`` declaring ``markers``."""
    (root / "conftest.py").write_text(
        'pytest_plugins = ["kindling.pytest_plugin"]\n', encoding="utf-8"
    )
    declared = "".join(f"    {marker}: x\n" for marker in markers)
    (root / "pytest.ini").write_text(
        "[pytest]\naddopts = --disable-plugin-autoload -p xdist.plugin\n"
        f"markers =\n{declared}",
        encoding="utf-8",
    )
    (root / "lib.py").write_text(textwrap.dedent(library), encoding="utf-8")
    (root / "tests").mkdir(exist_ok=True)
    (root / "tests" / "test_lib.py").write_text(tests, encoding="utf-8")
    return root
