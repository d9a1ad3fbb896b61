"""The task registry (``kindling/tasks.toml``): the single source of truth for tasks."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Dict, List, Tuple

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

REGISTRY_PATH = Path(__file__).with_name("tasks.toml")
TASK_ID = re.compile(r"^[0-9]+\.[0-9]+$")
SCORINGS = ("all-or-nothing", "proportional", "mutation")


class RegistryError(ValueError):
    """The registry file is malformed."""


@dataclass(frozen=True)
class Task:
    """One graded task of the course."""

    id: str
    title: str
    points: int
    files: Tuple[str, ...]
    depends: Tuple[str, ...] = ()
    description: str = ""
    scoring: str = "all-or-nothing"
    timeout: int = 600
    cuda: bool = False

    @property
    def marker(self) -> str:
        """The pytest marker of the task: ``"2.3"`` -> ``"task2_3"``."""
        return "task" + self.id.replace(".", "_")

    @property
    def module(self) -> int:
        """The module the task belongs to: ``"2.3"`` -> ``2``."""
        return int(self.id.split(".")[0])

    @property
    def sort_key(self) -> Tuple[int, int]:
        major, minor = self.id.split(".")
        return int(major), int(minor)


@dataclass(frozen=True)
class Registry:
    """Every task, in syllabus order, plus the release settings."""

    tasks: Tuple[Task, ...]
    release_exclude: Tuple[str, ...] = field(default=())

    def __iter__(self):
        return iter(self.tasks)

    def __len__(self) -> int:
        return len(self.tasks)

    def __getitem__(self, task_id: str) -> Task:
        for task in self.tasks:
            if task.id == task_id:
                return task
        raise KeyError(f"no task {task_id!r} in the registry")

    def __contains__(self, task_id: object) -> bool:
        return any(task.id == task_id for task in self.tasks)

    @property
    def by_marker(self) -> Dict[str, Task]:
        return {task.marker: task for task in self.tasks}

    def through(self, module: int) -> "Registry":
        """The tasks of modules ``0..module``."""
        kept = tuple(t for t in self.tasks if t.module <= module)
        return Registry(kept, self.release_exclude)

    def select(self, spec: str) -> List[Task]:
        """Tasks named by ``"all"`` or a comma list like ``"0.1,2.3"``."""
        if spec.strip() in ("", "all"):
            return list(self.tasks)
        chosen = []
        for task_id in (part.strip() for part in spec.split(",")):
            if task_id not in self:
                known = ", ".join(t.id for t in self.tasks)
                raise KeyError(f"unknown task {task_id!r}; known tasks: {known}")
            chosen.append(self[task_id])
        return chosen


def parse_registry(text: str, source: str = "tasks.toml") -> Registry:
    """Parse and validate registry TOML text."""
    data = tomllib.loads(text)
    tasks: List[Task] = []
    for number, entry in enumerate(data.get("task", []), start=1):
        where = f"{source}: task #{number}"
        for key in ("id", "title", "points", "files"):
            if key not in entry:
                raise RegistryError(f"{where} has no {key!r}")
        if not TASK_ID.match(str(entry["id"])):
            raise RegistryError(f"{where}: id {entry['id']!r} is not like '2.3'")
        scoring = entry.get("scoring", "all-or-nothing")
        if scoring not in SCORINGS:
            raise RegistryError(f"{where}: scoring {scoring!r} not in {SCORINGS}")
        if not isinstance(entry["points"], int) or entry["points"] < 0:
            raise RegistryError(f"{where}: points must be a non-negative integer")
        tasks.append(
            Task(
                id=entry["id"],
                title=entry["title"],
                points=entry["points"],
                files=tuple(entry["files"]),
                depends=tuple(entry.get("depends", ())),
                description=entry.get("description", ""),
                scoring=scoring,
                timeout=int(entry.get("timeout", 600)),
                cuda=bool(entry.get("cuda", False)),
            )
        )
    ids = [t.id for t in tasks]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise RegistryError(f"{source}: duplicate task ids {duplicates}")
    for task in tasks:
        unknown = [d for d in task.depends if d not in ids]
        if unknown:
            raise RegistryError(
                f"{source}: task {task.id} depends on unknown {unknown}"
            )
    release = data.get("release", {})
    tasks.sort(key=lambda t: t.sort_key)
    return Registry(tuple(tasks), tuple(release.get("exclude", ())))


@lru_cache(maxsize=None)
def load_registry(path: Path = REGISTRY_PATH) -> Registry:
    """Load the registry from ``path`` (default: the one shipped in ``kindling/``)."""
    return parse_registry(Path(path).read_text(encoding="utf-8"), str(path))
