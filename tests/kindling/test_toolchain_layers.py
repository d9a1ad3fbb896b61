"""The toolchain by audience: ``kindling`` (students and graders) ships alone in
the edition, ``kindling_staff`` (instructors) sits above it; no import cycles in
either, and ``kindling`` finds the staff commands by entry point, not by import."""

import argparse
from pathlib import Path

from kindling import plugins
from kindling.plugins import tomllib
from kindling.cli import STAFF_SPELLINGS, build_parser, staff_spelling
from kindling_staff.layers import staff_imports, toolchain_cycles
from kindling_staff.release import edition_pyproject

ROOT = Path(__file__).resolve().parents[2]


def write_package(root: Path, name: str, modules: dict) -> None:
    (root / name).mkdir(parents=True)
    (root / name / "__init__.py").write_text("")
    for module, text in modules.items():
        (root / name / f"{module}.py").write_text(text)


def test_the_toolchain_has_no_import_cycle():
    assert toolchain_cycles(ROOT) == []


def test_kindling_never_imports_the_staff_package():
    assert staff_imports(ROOT) == []


def test_a_function_level_import_closes_a_cycle(tmp_path):
    write_package(
        tmp_path,
        "kindling",
        {
            "grade": "def grade():\n    from kindling.batch import run\n",
            "batch": "from kindling.grade import grade\n",
            "alone": "import os\n",
        },
    )
    write_package(tmp_path, "kindling_staff", {"tool": "import kindling.grade\n"})
    assert toolchain_cycles(tmp_path) == [["kindling.batch", "kindling.grade"]]


def test_an_import_of_the_staff_package_is_found_at_any_depth(tmp_path):
    write_package(
        tmp_path,
        "kindling",
        {"cli": "import os\n\n\ndef main():\n    import kindling_staff.release\n"},
    )
    write_package(tmp_path, "kindling_staff", {"release": "import kindling.cli\n"})
    assert staff_imports(tmp_path) == [("kindling.cli", 5, "kindling_staff.release")]


def test_every_staff_command_is_declared_and_adds_its_parser():
    declared = plugins.entry_points(plugins.COMMANDS)
    assert set(declared) == {
        "release",
        "classroom",
        "grade-batch",
        "marks",
        "mistakes",
        "mutants",
        "layers",
        "platforms",
    }
    for name, point in declared.items():
        commands = argparse.ArgumentParser().add_subparsers()
        point.load()(commands)
        assert name in commands.choices
    commands = build_parser()._subparsers._group_actions[0].choices
    assert {"tasks", "grade", "sync", "bench", "doctor", "kernels"} <= set(commands)
    assert set(declared) <= set(commands)


def test_the_grading_hooks_are_declared():
    from kindling_staff.grade_decoys import draw
    from kindling_staff.release import release

    assert plugins.load(plugins.GRADING, "edition") is release
    assert plugins.load(plugins.GRADING, "decoys") is draw
    assert plugins.load(plugins.GRADING, "nothing such") is None


def test_the_instructors_spellings_reach_the_staff_commands():
    staff = {"grade-batch", "platforms"}
    batch = ["grade", "--batch", "subs", "--jobs", "2"]
    assert staff_spelling(batch, staff) == ["grade-batch"] + batch[1:]
    merge = ["grade", "merge", "a.json", "--json", "all.json"]
    assert staff_spelling(merge, staff) == ["grade-batch"] + merge[1:]
    assert staff_spelling(["grade", "--batch=subs"], staff)[0] == "grade-batch"
    assert staff_spelling(["doctor", "--platforms"], staff)[0] == "platforms"
    assert staff_spelling(["grade", "--submission", "x"], staff)[0] == "grade"
    assert staff_spelling(["grade", "--submission", "merge"], staff)[0] == "grade"
    # Without the staff package (a student edition), nothing is rewritten.
    assert staff_spelling(batch, set()) == batch
    assert set(STAFF_SPELLINGS.values()) <= set(plugins.entry_points(plugins.COMMANDS))


def test_a_tree_without_the_staff_tables_declares_no_staff_command(tmp_path):
    edition = tmp_path / "pyproject.toml"
    edition.write_text(edition_pyproject((ROOT / "pyproject.toml").read_text()))
    assert plugins.entry_points(plugins.COMMANDS, edition) == {}
    assert plugins.entry_points(plugins.GRADING, edition) == {}
    source = plugins.entry_points(plugins.COMMANDS, ROOT / "pyproject.toml")
    assert "release" in source


def test_the_editions_pyproject_leaves_out_the_staff_package():
    text = edition_pyproject((ROOT / "pyproject.toml").read_text())
    data = tomllib.loads(text)
    assert "kindling_staff" not in text
    assert "entry-points" not in data["project"]
    assert "kindling" in data["tool"]["setuptools"]["packages"]
    assert data["project"]["scripts"] == {"kindling": "kindling.cli:main"}
    source = tomllib.loads((ROOT / "pyproject.toml").read_text())
    for table in ("dependencies", "optional-dependencies", "requires-python"):
        assert data["project"][table] == source["project"][table]
    assert data["tool"]["pytest"] == source["tool"]["pytest"]
