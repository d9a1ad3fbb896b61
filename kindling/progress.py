"""A student's progress: task statuses, the cumulative results file, what to do next.

One mechanism shared by the pytest plugin (:mod:`kindling.pytest_plugin`), the
grader and the dashboard's Progress page:

* :func:`classify` turns the counts of one run of a task into a status;
* :func:`merge_results` / :func:`read_progress` keep the latest result of every
  task across runs in ``.kindling/progress.json``, each with its time and the
  digests of the code it was measured on (the definitions that hold the task's
  solution regions and those of the tasks it depends on: :func:`task_units`), so
  that :func:`stale_files` can tell when a result no longer describes the code;
  a run that leaves out some of a task's tests never replaces a current ``done``;
* :func:`next_task` picks the task to work on next, never one whose latest result
  is ``done``.

Statuses: ``done`` (every test of the task ran and passed), ``partial`` (the
tests that ran passed, but the run left some of the task's tests out), ``todo``
(every failure is the task's own ``NotImplementedError("Task X.Y: ...")`` stub),
``blocked by X.Y`` (a failure comes from the stub of another task: finish X.Y
first), ``failing`` (anything else), and ``no tests`` (none ran).
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import sys
import time
from pathlib import Path
from typing import (
    Dict,
    Iterable,
    Iterator,
    List,
    Mapping,
    Optional,
    Sequence,
    Set,
    Tuple,
)

from kindling.registry import Registry, Task

PROGRESS_FILE = Path(".kindling") / "progress.json"
#: The message of a student stub: ``NotImplementedError("Task 1.2: ...")``.
STUB_MESSAGE = re.compile(r"^Task (\d+\.\d+)\b")
FORMAT_VERSION = 2


def task_key(task_id: str) -> tuple:
    """``"2.10"`` sorts after ``"2.9"``."""
    return tuple(int(part) for part in task_id.split("."))


def classify(
    task: str, passed: int, failed: int, stubs: List[str], complete: bool = True
) -> str:
    """The status of ``task`` from its counts and the stub task of each failure.

    ``stubs`` holds one entry per failure: the task whose ``NotImplementedError``
    caused it, or ``""`` for a failure of any other kind. A failure that comes from
    another task's stub means the task cannot be judged yet: it is ``blocked by``
    the earliest such task, whatever its other failures say. ``complete`` says
    whether every test of the task ran: when some did not (``-k``, a node id,
    ``-x``...), passing tests make it ``partial``, never ``done``; failures
    still say what they say.
    """
    if failed == 0:
        if not passed:
            return "no tests"
        return "done" if complete else "partial"
    others = [s for s in stubs if s and s != task]
    if others:
        return f"blocked by {min(others, key=task_key)}"
    if len(stubs) == failed and all(s == task for s in stubs):
        return "todo"
    return "failing"


# ------------------------------------------------------------------- student stubs
def _exception_chain(exc: BaseException) -> Iterator[BaseException]:
    """The exception, its causes and contexts, and members of exception groups."""
    seen = set()
    stack = [exc]
    while stack:
        current = stack.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        stack.extend(getattr(current, "exceptions", ()) or ())
        stack.append(current.__cause__)
        stack.append(current.__context__)


def _stub_error(exc: BaseException) -> Optional[NotImplementedError]:
    for current in _exception_chain(exc):
        if isinstance(current, NotImplementedError) and current.args:
            if STUB_MESSAGE.match(str(current.args[0])):
                return current
    return None


def stub_task(exc: BaseException) -> Optional[str]:
    """The task named by a student-stub ``NotImplementedError`` in ``exc``, if any."""
    error = _stub_error(exc)
    if error is None:
        return None
    match = STUB_MESSAGE.match(str(error.args[0]))
    return match[1] if match else None


def blocker(status: str) -> Optional[str]:
    """``"1.2"`` for ``"blocked by 1.2"``; ``None`` for any other status."""
    prefix = "blocked by "
    return status[len(prefix) :] if status.startswith(prefix) else None


# ----------------------------------------------------------------- dependency order
def dependency_order(tasks: Iterable[Task]) -> List[Task]:
    """The tasks, every task after the tasks it depends on; ties in syllabus order."""
    remaining = sorted(tasks, key=lambda t: t.sort_key)
    known = {t.id for t in remaining}
    placed: Set[str] = set()
    order: List[Task] = []
    while remaining:
        for task in remaining:
            if all(d in placed or d not in known for d in task.depends):
                break
        else:  # a cycle (the registry forbids none): keep syllabus order
            task = remaining[0]
        remaining.remove(task)
        placed.add(task.id)
        order.append(task)
    return order


def next_task(
    tasks: Iterable[Task], results: Mapping[str, Mapping[str, object]]
) -> Optional[Task]:
    """The task to work on next.

    A task is *unfinished* when its (current) result is not ``done``, or when
    another task is ``blocked by`` it. The next task is the first unfinished one in
    dependency order; so after ``pytest -m task1_4`` reports ``blocked by 1.2``,
    the next task is 1.2 (or an earlier unfinished one). When nothing known is
    unfinished, it is the first task without a ``done`` result whose dependencies
    are all done. A task whose latest result is ``done`` is never next, even when
    that result is stale (its code changed since: the summary lists those with the
    command that re-checks them); a stale result of another status is no evidence
    either way.
    """
    order = dependency_order(tasks)
    done = {t for t, r in results.items() if r.get("status") == "done"}
    unfinished: Set[str] = set()
    for task_id, result in results.items():
        if result.get("stale_files"):
            continue
        status = str(result.get("status", ""))
        if status not in ("done", "no tests"):
            unfinished.add(task_id)
        if blocker(status):
            unfinished.add(str(blocker(status)))
    for task in order:
        if task.id in unfinished and task.id not in done:
            return task
    for task in order:
        if task.id not in done and all(d in done for d in task.depends):
            return task
    return next((t for t in order if t.id not in done), None)


# -------------------------------------------------------------- cumulative results
def file_digest(path: Path) -> str:
    """SHA-256 of a file's bytes (``"missing"`` when it does not exist)."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return "missing"


def watched_files(registry: Registry, task_id: str) -> List[str]:
    """The student files a task's result depends on: its own and those of every
    task it depends on (transitively), as the registry lists them."""
    if task_id not in registry:
        return []
    seen: Set[str] = set()
    stack = [task_id]
    files: List[str] = []
    while stack:
        current = stack.pop()
        if current in seen or current not in registry:
            continue
        seen.add(current)
        task = registry[current]
        files += [f for f in task.files if f not in files]
        stack.extend(task.depends)
    return sorted(files)


def digests(root: Path, files: Sequence[str]) -> Dict[str, str]:
    return {f: unit_digest(Path(root), f) for f in files}


# ------------------------------------------------------------- a task's own code
#: The first line of a solution region (instructor source), as the release reads it.
_BEGIN = re.compile(r"^\s*# BEGIN SOLUTION (\d+\.\d+)\b")
#: The edition's manifest, where ``kindling release`` records each task's units.
MANIFEST = ".kindling-manifest.json"
#: Separates a file from a definition in a unit's name: ``path.py::Class.method``.
UNIT_SEPARATOR = "::"
#: A file's definitions and lines, by the SHA-256 of its bytes (parsed once).
_PARSED: Dict[str, Tuple[Dict[str, Tuple[int, int]], List[str]]] = {}


def _definitions(text: str) -> Dict[str, Tuple[int, int]]:
    """Every function and class of ``text`` by qualified name (``Linear.forward``,
    ``factory.kernel``): its first and last line, decorators included."""
    found: Dict[str, Tuple[int, int]] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + child.name
                first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                found.setdefault(name, (first, child.end_lineno or child.lineno))
                visit(child, name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(text), "")
    return found


def region_units(text: str) -> Dict[str, List[str]]:
    """For each task with a solution region in ``text`` (instructor source), the
    innermost definitions that hold its regions (``""``: a region at module
    level, which makes the whole file the unit)."""
    spans = _definitions(text)
    units: Dict[str, List[str]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        match = _BEGIN.match(line)
        if not match:
            continue
        holders = [(b - a, n) for n, (a, b) in spans.items() if a <= number <= b]
        name = min(holders)[1] if holders else ""
        names = units.setdefault(match[1], [])
        if name not in names:
            names.append(name)
    return units


def task_units(root: Path, registry: Registry) -> Dict[str, Dict[str, List[str]]]:
    """``{task: {file: [definition, ...]}}``: where each task's code lives. Read
    from the files' solution regions (instructor source), else from the
    edition's manifest (``units``, written by ``kindling release``); a task
    without either has its whole files as its units."""
    units: Dict[str, Dict[str, List[str]]] = {}
    try:
        manifest = json.loads((Path(root) / MANIFEST).read_text(encoding="utf-8"))
        recorded = manifest.get("units") if isinstance(manifest, dict) else None
    except (OSError, ValueError):
        recorded = None
    files = sorted({f for task in registry for f in task.files})
    for relative in files:
        try:
            text = (Path(root) / relative).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if "# BEGIN SOLUTION" not in text:
            continue
        try:
            found = region_units(text)
        except SyntaxError:
            continue
        for task_id, names in found.items():
            units.setdefault(task_id, {})[relative] = names
    if isinstance(recorded, dict):
        for task_id, by_file in recorded.items():
            if not isinstance(by_file, dict):
                continue
            for relative, names in by_file.items():
                if isinstance(names, list) and relative not in units.get(task_id, {}):
                    units.setdefault(str(task_id), {})[str(relative)] = [
                        str(n) for n in names
                    ]
    return units


def watched_units(
    registry: Registry, task_id: str, units: Mapping[str, Mapping[str, List[str]]]
) -> List[str]:
    """The code a task's result depends on: the units of the task and of every
    task it depends on (transitively), as ``file::definition`` names (a whole
    file, ``file``, where a task's units in it are unknown)."""
    if task_id not in registry:
        return []
    seen: Set[str] = set()
    stack = [task_id]
    names: Set[str] = set()
    while stack:
        current = stack.pop()
        if current in seen or current not in registry:
            continue
        seen.add(current)
        task = registry[current]
        known = units.get(current, {})
        for relative in task.files:
            definitions = known.get(relative)
            if not definitions or "" in definitions:
                names.add(relative)
            else:
                names.update(relative + UNIT_SEPARATOR + d for d in definitions)
        stack.extend(task.depends)
    return sorted(names)


def unit_digest(root: Path, unit: str) -> str:
    """SHA-256 of a unit's text: a whole file, or one definition of a file
    (``"missing"`` when the file or the definition is gone; a file that does not
    parse counts as changed)."""
    relative, _, name = unit.partition(UNIT_SEPARATOR)
    path = Path(root) / relative
    if not name:
        return file_digest(path)
    try:
        data = path.read_bytes()
        key = hashlib.sha256(data).hexdigest()
        if key not in _PARSED:
            text = data.decode("utf-8")
            _PARSED[key] = (_definitions(text), text.splitlines())
    except (OSError, UnicodeDecodeError):
        return "missing"
    except SyntaxError:
        return "unparsable " + file_digest(path)
    spans, lines = _PARSED[key]
    span = spans.get(name)
    if span is None:
        return "missing"
    unit = "\n".join(lines[span[0] - 1 : span[1]])
    return hashlib.sha256(unit.encode("utf-8")).hexdigest()


def stale_files(result: Mapping[str, object], root: Path) -> List[str]:
    """The code that changed since ``result`` was measured (``[]``: current):
    files, or ``file::definition`` units."""
    recorded = result.get("files")
    if not isinstance(recorded, dict):
        return []
    return sorted(f for f, d in recorded.items() if unit_digest(Path(root), f) != d)


def read_progress(path: Path, root: Optional[Path] = None) -> Dict[str, object]:
    """The results file as ``{"tasks": {id: result}, "last_run": {...},
    "collected": {id: count}}``; ``collected`` holds how many tests each task had
    in the latest run that collected all of them (see :func:`merge_results`).

    With ``root``, every result gets ``stale_files`` (the student files changed
    since it was measured). A missing or unreadable file reads as empty; so does
    the single-run format of earlier versions, less the times.
    """
    try:
        payload = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        payload = {}
    if not isinstance(payload, dict):
        payload = {}
    entries = payload.get("tasks", [])
    if isinstance(entries, dict):
        entries = list(entries.values())
    tasks: Dict[str, dict] = {}
    for entry in entries:
        if isinstance(entry, dict) and "id" in entry:
            entry = dict(entry)
            if root is not None:
                entry["stale_files"] = stale_files(entry, root)
            tasks[str(entry["id"])] = entry
    last_run = payload.get("last_run")
    collected = payload.get("collected")
    counts = {}
    if isinstance(collected, dict):
        counts = {
            str(k): v for k, v in collected.items() if isinstance(v, int) and v >= 0
        }
    return {
        "tasks": tasks,
        "last_run": last_run if isinstance(last_run, dict) else {},
        "collected": counts,
    }


def merge_results(
    path: Path,
    results: Sequence[Mapping[str, object]],
    root: Path,
    registry: Registry,
    when: Optional[float] = None,
    collected: Optional[Mapping[str, int]] = None,
) -> Dict[str, object]:
    """Add one run's per-task ``results`` to the results file at ``path``.

    Every task of the run replaces its earlier result and is stamped with the
    run's time and the digests of its :func:`watched_units`; other tasks keep
    theirs. A ``partial`` result (the run left out some of the task's tests)
    never replaces a ``done`` one that is still current: part of a task's tests
    passing says nothing against the whole of them having passed on the same
    code (``pytest tests/module1`` leaves a done Task 1.5 done). ``collected``
    gives, for the tasks whose every test file the run collected, how many tests
    they have (whether or not ``-m``/``-k`` ran them): a later run that names
    test files can then tell a whole task from part of one. Returns the payload
    written.
    """
    when = time.time() if when is None else when
    stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(when))
    earlier = read_progress(path)
    previous = earlier["tasks"]
    assert isinstance(previous, dict)
    counts = dict(earlier["collected"])  # type: ignore[arg-type]
    counts.update(collected or {})
    merged: Dict[str, dict] = {
        task_id: {k: v for k, v in entry.items() if k != "stale_files"}
        for task_id, entry in previous.items()
    }
    units = task_units(root, registry)
    for result in results:
        entry = dict(result)
        before = previous.get(str(entry["id"]))
        if (
            entry.get("status") == "partial"
            and isinstance(before, dict)
            and before.get("status") == "done"
            and not stale_files(before, root)
        ):
            continue
        entry.update(
            time=stamp,
            timestamp=when,
            files=digests(root, watched_units(registry, str(entry["id"]), units)),
        )
        merged[str(entry["id"])] = entry
    payload = {
        "version": FORMAT_VERSION,
        "tasks": [merged[k] for k in sorted(merged, key=task_key)],
        "last_run": {
            "time": stamp,
            "timestamp": when,
            "tasks": [str(r["id"]) for r in results],
        },
        "collected": {k: counts[k] for k in sorted(counts, key=task_key)},
    }
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    temporary.replace(path)  # a reader never sees half a file
    return payload


def python_command(root: Path) -> str:
    """How to name this Python in a command the student can paste: its path
    relative to the checkout when it lives there (``.venv/bin/python``), else
    ``python``."""
    executable = Path(sys.executable)
    for base in (Path(root), Path(root).resolve()):
        try:
            return executable.relative_to(base).as_posix()
        except ValueError:
            continue
    return "python"


def kindling_command(root: Path) -> str:
    """How to run the course's ``kindling`` tool with this checkout's Python
    (``.venv/bin/python -m kindling``): it works as written on every system, with
    or without an activated environment."""
    return f"{python_command(root)} -m kindling"


def check_command(root: Path, marker: str) -> str:
    """``.venv/bin/python -m pytest -m task0_1``: the command that checks a task,
    with this checkout's Python, so that it works as written."""
    return f"{python_command(root)} -m pytest -m {marker}"
