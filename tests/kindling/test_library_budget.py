"""The whole library's line budget (issue 38): module0-4 together, counted as code
lines (no blanks, comments or docstrings), so that only deleting code pays;
moving it from a student file into the engine does not. Belongs to no task."""

from __future__ import annotations

from pathlib import Path

from kindling_staff.layers import LIBRARY_BUDGET, LIBRARY_GOAL, measure

ROOT = Path(__file__).resolve().parents[2]


def test_the_library_stays_within_its_line_budget():
    lines = measure(ROOT).code_lines
    assert lines <= LIBRARY_BUDGET, (
        f"the library has {lines:,} code lines, over its budget of "
        f"{LIBRARY_BUDGET:,}: delete as many lines as the change adds "
        "(kindling layers prints the figures)"
    )
    assert LIBRARY_BUDGET <= LIBRARY_GOAL  # (issue 38's ceiling)


def test_moving_code_between_library_files_does_not_change_the_count(tmp_path):
    """The count is the library's, not a file's: the same function in another
    file (a student file or the engine) counts the same."""
    body = 'def f(x):\n    """Doc."""\n    # why\n    return x + 1\n'
    for layout in ({"a.py": body, "b.py": ""}, {"a.py": "", "b.py": body}):
        root = tmp_path / str(len(list(tmp_path.iterdir())))
        package = root / "module0_toy"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text("")
        for name, text in layout.items():
            (package / name).write_text(text)
        (root / "kindling").mkdir()
        (root / "kindling" / "tasks.toml").write_text("")
        assert measure(root).code_lines == 2
