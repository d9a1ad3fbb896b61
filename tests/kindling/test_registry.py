"""The registry is the source of truth: markers, files and tests agree with it."""

import re
import sys
from pathlib import Path

import pytest

from kindling.registry import RegistryError, load_registry, parse_registry

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
SYLLABUS = (
    ["0.1", "0.2", "0.3", "0.4", "0.5"]
    + [f"1.{i}" for i in range(1, 8)]
    + [f"2.{i}" for i in range(1, 7)]
    + [f"3.{i}" for i in range(1, 6)]
    + [f"4.{i}" for i in range(1, 9)]
)
MARK_USE = re.compile(r"mark\.(task\d+_\d+)")
BACKEND_USE = re.compile(r"backend_params\(\s*\"(\d+\.\d+)\"")


def markers_used_in_tests():
    used = {}
    for path in (ROOT / "tests").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for marker in MARK_USE.findall(text):
            used.setdefault(marker, path)
        for task in BACKEND_USE.findall(text):
            used.setdefault("task" + task.replace(".", "_"), path)
    return used


def test_registry_lists_the_syllabus_in_order():
    registry = load_registry()
    assert [t.id for t in registry] == SYLLABUS
    assert all(t.points > 0 and t.files and t.title for t in registry)


def test_pyproject_registers_exactly_the_registry_markers():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    declared = config["tool"]["pytest"]["ini_options"]["markers"]
    task_markers = {line.split(":")[0] for line in declared if line.startswith("task")}
    assert task_markers == {t.marker for t in load_registry()}
    assert "--strict-markers" in config["tool"]["pytest"]["ini_options"]["addopts"]


def test_every_marker_used_in_tests_is_a_registry_task():
    known = {t.marker for t in load_registry()}
    unknown = {m: str(p) for m, p in markers_used_in_tests().items() if m not in known}
    assert not unknown, f"markers not in kindling/tasks.toml: {unknown}"


def test_every_task_of_a_built_module_has_tests():
    used = markers_used_in_tests()
    for task in load_registry():
        package = next(ROOT.glob(f"module{task.module}_*/"))
        built = len(list(package.glob("*.py"))) > 1  # more than a placeholder
        if built:
            assert task.marker in used, f"Task {task.id} has no tests"


def test_student_files_of_built_modules_exist():
    for task in load_registry():
        for name in task.files:
            path = ROOT / name
            package = path.parts[len(ROOT.parts)]
            if package.startswith("module") and (ROOT / package).is_dir():
                siblings = list((ROOT / package).glob("*.py"))
                if len(siblings) > 1:
                    assert path.exists(), f"Task {task.id} names missing file {name}"


@pytest.mark.parametrize(
    "text, message",
    [
        ('[[task]]\nid = "1"\ntitle = "t"\npoints = 1\nfiles = ["a"]\n', "not like"),
        ('[[task]]\nid = "1.1"\ntitle = "t"\nfiles = ["a"]\n', "no 'points'"),
        (
            '[[task]]\nid = "1.1"\ntitle = "t"\npoints = 1\nfiles = ["a"]\n'
            'depends = ["9.9"]\n',
            "unknown",
        ),
        (
            '[[task]]\nid = "1.1"\ntitle = "t"\npoints = 1\nfiles = ["a"]\n'
            '[[task]]\nid = "1.1"\ntitle = "u"\npoints = 1\nfiles = ["a"]\n',
            "duplicate",
        ),
    ],
)
def test_malformed_registries_are_rejected(text, message):
    with pytest.raises(RegistryError, match=message):
        parse_registry(text)


def test_select_and_through():
    registry = load_registry()
    assert [t.id for t in registry.select("0.1, 2.3")] == ["0.1", "2.3"]
    assert len(registry.select("all")) == len(registry)
    assert {t.module for t in registry.through(1)} == {0, 1}
    with pytest.raises(KeyError, match="unknown task '9.9'"):
        registry.select("9.9")
