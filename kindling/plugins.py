"""What the staff package adds to the toolchain, found without importing it.

The toolchain ships in two packages (docs/DESIGN.md, "The toolchain by
audience"): ``kindling`` is what students and graders need and ships in every
student edition; ``kindling_staff`` (release, Classroom, batch grading, course QA,
platforms) stays in the instructor source. ``kindling`` never imports
``kindling_staff``; the staff package declares what it adds as Python entry points
in ``pyproject.toml``, and this module finds them by group:

* ``kindling.commands``: the instructor's subcommands of ``kindling``; each names a
  function that adds its parser to the subcommands of :mod:`kindling.cli`;
* ``kindling.grading``: what the instructor-side grader uses when it grades from
  the instructor source (``edition``: the protected files' hashes of the edition a
  submission comes from; ``decoys``: the draw of Task 0.2's decoys
  from the instructor's family of exact rewrites; ``mutants``:
  the draw of Task 0.2's planted mutants from the instructor's family).

A student edition's ``pyproject.toml`` declares neither group and the edition has
no ``kindling_staff``: there the staff commands do not exist.

Where this package sits in a course tree (a checkout, installed editable or not,
or a student edition), the tree's own ``pyproject.toml`` declares the entry points:
it is current when the installed metadata is older, and an edition's declares
none even where the instructor's package is installed beside it. Installed from a
wheel (no ``pyproject.toml`` beside the package), the distribution's metadata
declares them. An entry point whose top-level package cannot be found is left
out (an install that predates the package).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from pathlib import Path
from typing import Any, Dict, Optional

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib

COMMANDS = "kindling.commands"
GRADING = "kindling.grading"

#: The tree this package sits in (a checkout or an edition), or site-packages.
TREE = Path(__file__).resolve().parents[1]


def _declared(group: str, pyproject: Path) -> Optional[Dict[str, str]]:
    """``name -> "module:attribute"`` of ``group`` in the ``pyproject.toml`` of a
    course tree, or ``None`` when there is no such file (an installed wheel)."""
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return None
    if data.get("project", {}).get("name") != "kindling":
        return None  # some other project's file
    table = data["project"].get("entry-points", {}).get(group, {})
    return {str(name): str(value) for name, value in table.items()}


def entry_points(
    group: str, pyproject: Optional[Path] = None
) -> Dict[str, importlib.metadata.EntryPoint]:
    """The entry points of ``group`` by name, from the course tree's
    ``pyproject.toml`` (``pyproject``, default: the one beside this package)
    where there is one, else from the installed distribution; without those
    whose package is absent."""
    pyproject = TREE / "pyproject.toml" if pyproject is None else pyproject
    declared = _declared(group, pyproject)
    if declared is not None:
        found = [
            importlib.metadata.EntryPoint(n, v, group) for n, v in declared.items()
        ]
    else:
        found = [
            point
            for point in importlib.metadata.entry_points(group=group)
            if getattr(point.dist, "name", "kindling") == "kindling"
        ]
    return {
        point.name: point
        for point in sorted(found, key=lambda point: point.name)
        if importlib.util.find_spec(point.module.split(".")[0]) is not None
    }


def load(group: str, name: str) -> Optional[Any]:
    """The object the entry point ``name`` of ``group`` names, or ``None`` when no
    package declares it (a student edition)."""
    point = entry_points(group).get(name)
    return None if point is None else point.load()
