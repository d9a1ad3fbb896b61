"""Carry a student's work into the next edition (``kindling sync --from PREV``).

Courses that hand out one module at a time (``kindling release OUT --through N``)
give students a new edition for each module. The student's solutions of the earlier
modules live in the previous edition; ``sync`` copies them over: every student file
(per the registry) of every task the previous edition has. Protected files are never
copied, so the new edition keeps its own tests and tools.

A student file belongs to one module, and the previous edition's copy already holds
the stubs of any later task in it, so copying the whole file loses nothing.

When the course was reorganised between the two editions (a task's functions split
over two files, a file renamed), a whole-file copy would bring back the old layout:
definitions twice, or none where the new edition looks. So a student file whose
top-level definitions are not the same in both editions is *merged* instead: every
top-level function or class of the new edition's file that holds a stub
(``# TODO: Task ...``) takes the student's definition of the same name, from the
same file or the file it moved from; the student's own top-level helpers (names the
new edition does not define) come along, into the file that took the file's
definitions. The new edition's given code and imports stay, and so does a given
definition that moved, word for word, out of a student file into a given one
(Task 3.1's compiled index helpers, into ``kernel_indexing.py``): it is the
course's, not the student's.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from kindling.grade import REGISTRY_FILE, read_registry, student_files


class SyncError(ValueError):
    """The two directories are not editions that can be synced."""


STUB = "# TODO: Task "


def definitions(text: str) -> Optional[Dict[str, Tuple[int, int]]]:
    """Each top-level function and class of ``text``: its first line (decorators
    included) and last line, 1-based; ``None`` when the text does not parse."""
    try:
        module = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
    found = {}
    for node in module.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            found[node.name] = (start, node.end_lineno or node.lineno)
    return found


def _segment(text: str, span: Tuple[int, int]) -> List[str]:
    return text.splitlines()[span[0] - 1 : span[1]]


def merge_definitions(
    text: str, relative: str, old: Dict[str, str], taken: Dict[str, str]
) -> Tuple[str, List[str]]:
    """``text`` (the new edition's file ``relative``) with each stubbed top-level
    definition replaced by the student's of the same name in ``old`` (the previous
    edition's student files by path; the same path first); returns the text and
    the names taken. ``taken`` records which new file took each old file's
    definitions (where :func:`sync` then puts that file's own helpers)."""
    spans = definitions(text)
    if spans is None:
        return text, []
    parsed = {path: definitions(body) for path, body in old.items()}
    order = sorted(old, key=lambda path: path != relative)
    lines = text.splitlines()
    names: List[str] = []
    for name, span in sorted(spans.items(), key=lambda item: -item[1][0]):
        if STUB not in "\n".join(_segment(text, span)):
            continue
        for path in order:
            theirs = (parsed[path] or {}).get(name)
            if theirs is None:
                continue
            segment = _segment(old[path], theirs)
            if segment != _segment(text, span):
                lines[span[0] - 1 : span[1]] = segment
                names.append(name)
                taken.setdefault(path, relative)
            break
    return "\n".join(lines) + ("\n" if text.endswith("\n") else ""), names


def _helpers(old: Dict[str, str], defined: set, path: str, given: set) -> List[str]:
    """The top-level definitions of ``old[path]`` that no student file of the new
    edition defines and that are not one of its ``given`` definitions (texts) word
    for word: the student's own helpers, as text."""
    blocks = []
    for name, span in (definitions(old[path]) or {}).items():
        block = "\n".join(_segment(old[path], span))
        if name not in defined and block not in given:
            blocks.append(block)
    return blocks


def _given(current: Path, known: List[str]) -> set:
    """The text of every top-level definition of the given (not student) Python
    files beside the student files of the edition ``current``."""
    texts = set()
    for folder in sorted({(current / r).parent for r in known}):
        for path in sorted(folder.glob("*.py")):
            if path.relative_to(current).as_posix() not in known:
                text = path.read_text(encoding="utf-8")
                spans = (definitions(text) or {}).values()
                texts |= {"\n".join(_segment(text, span)) for span in spans}
    return texts


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
    known = student_files(read_registry(current))
    theirs = [
        relative
        for relative in student_files(earlier)
        if (previous / relative).is_file() and not (previous / relative).is_symlink()
    ]
    old = {r: (previous / r).read_text(encoding="utf-8") for r in theirs}
    actions: List[Tuple[str, str]] = []
    merged: Dict[str, str] = {}  # new file -> its text, merged
    taken: Dict[str, str] = {}  # old file -> the new file that took its definitions
    # A file keeps its layout when the new edition's file defines nothing the old
    # one lacks, and nothing of the old one moved to another file of the new
    # edition (the student's own helpers may be there: they come with the file).
    ours = {
        r: set(definitions((current / r).read_text(encoding="utf-8")) or {})
        for r in known
        if (current / r).is_file()
    }
    same = set()
    for relative in known:
        theirs_names = definitions(old.get(relative, ""))
        if relative not in old or theirs_names is None or relative not in ours:
            same.update([relative] if relative in old else [])
            continue
        elsewhere = set().union(*(n for r, n in ours.items() if r != relative))
        moved = (set(theirs_names) - ours[relative]) & elsewhere
        if ours[relative] <= set(theirs_names) and not moved:
            same.add(relative)
    rest = {r: t for r, t in old.items() if r not in same}
    for relative in known:
        target = current / relative
        if relative in same:
            source = previous / relative
            if target.is_file() and target.read_bytes() == source.read_bytes():
                actions.append((relative, "unchanged"))
                continue
            if not dry_run:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, target)
            actions.append((relative, "would copy" if dry_run else "copied"))
        elif target.is_file() and relative.endswith(".py"):
            # Reorganised between the editions: merge by definition.
            text, names = merge_definitions(
                target.read_text(encoding="utf-8"), relative, rest, taken
            )
            if names:
                merged[relative] = text
    defined = set()
    for relative in known:
        body = merged.get(relative)
        if body is None and (current / relative).is_file():
            body = (current / relative).read_text(encoding="utf-8")
        defined |= set(definitions(body or "") or {})
    given = _given(current, known) if taken else set()
    for path, relative in taken.items():
        relative = path if path in merged else relative  # the same file first
        blocks = _helpers(old, defined, path, given)
        if blocks:
            merged[relative] = merged[relative].rstrip("\n") + "\n\n\n"
            merged[relative] += "\n\n\n".join(blocks) + "\n"
            defined |= set(definitions("\n\n".join(blocks)) or {})
    for relative, text in sorted(merged.items()):
        if not dry_run:
            (current / relative).write_text(text, encoding="utf-8")
        actions.append((relative, "would merge" if dry_run else "merged"))
    return sorted(actions)
