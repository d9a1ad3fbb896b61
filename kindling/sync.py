"""Carry a student's work into the next edition (``kindling sync --from PREV``).

Courses that hand out one module at a time (``kindling release OUT --through N``)
give students a new edition for each module. The student's solutions of the earlier
modules live in the previous edition; ``sync`` copies them over: every student file
(per the registry) of every task the previous edition has. Protected files are never
copied, so the new edition keeps its own tests and tools.

A student file belongs to one module, and the previous edition's copy already holds
the stubs of any later task in it, so copying the whole file loses nothing.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import List, Tuple

from kindling.grade import REGISTRY_FILE, read_registry, student_files


class SyncError(ValueError):
    """The two directories are not editions that can be synced."""


def sync(previous: Path, current: Path, dry_run: bool = False) -> List[Tuple[str, str]]:
    """Copy the student files of ``previous`` into ``current``.

    Returns ``(relative path, action)`` pairs, the action one of ``copied``,
    ``unchanged`` (the files are already equal) or ``would copy`` (``dry_run``).
    """
    previous, current = Path(previous).resolve(), Path(current).resolve()
    if previous == current:
        raise SyncError("--from names this edition itself")
    for root in (previous, current):
        if not (root / REGISTRY_FILE).is_file():
            raise SyncError(f"{root} is not a course edition (no {REGISTRY_FILE})")
    earlier = read_registry(previous)
    known = set(student_files(read_registry(current)))
    actions: List[Tuple[str, str]] = []
    for relative in student_files(earlier):
        source = previous / relative
        if relative not in known or not source.is_file() or source.is_symlink():
            continue
        target = current / relative
        if target.is_file() and target.read_bytes() == source.read_bytes():
            actions.append((relative, "unchanged"))
            continue
        if not dry_run:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
        actions.append((relative, "would copy" if dry_run else "copied"))
    return actions
