"""pytest's options in ``pyproject.toml`` name the plugins the course uses (xdist and
Hypothesis's) and load no other from entry points, as graded sessions do: a plugin
that happens to be installed changes nothing unless named."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

STRAY_PLUGIN = """
import os
from pathlib import Path

Path(os.environ["STRAY_MARK"]).write_text("loaded")
"""


def install_stray_plugin(site: Path) -> None:
    """A distribution with a ``pytest11`` entry point, as ``pip install`` leaves
    one, that records being imported."""
    (site / "stray_plugin.py").write_text(STRAY_PLUGIN)
    info = site / "stray_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: stray-plugin\nVersion: 1.0\n"
    )
    (info / "entry_points.txt").write_text("[pytest11]\nstray = stray_plugin\n")


def pytest_in(folder: Path, site: Path, mark: Path, *args: str):
    env = {**os.environ, "PYTHONPATH": str(site), "STRAY_MARK": str(mark)}
    return subprocess.run(
        [sys.executable, "-m", "pytest", *args],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_an_installed_plugin_loads_only_when_named(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    install_stray_plugin(site)

    # A bare project discovers the stray plugin: it is a real, loadable plugin.
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "test_one.py").write_text("def test_one():\n    pass\n")
    mark = tmp_path / "bare.mark"
    found = pytest_in(bare, site, mark, "-q", "-p", "no:cacheprovider")
    assert found.returncode == 0, found.stdout + found.stderr
    assert mark.read_text() == "loaded"

    # The course does not load it; the plugins it names are there (-n is xdist's
    # option, --hypothesis-seed Hypothesis's).
    mark = tmp_path / "course.mark"
    args = ["--co", "-q", "-n", "0", "--hypothesis-seed=0"]
    course = pytest_in(ROOT, site, mark, *args, "tests/module0/test_operators.py")
    assert course.returncode == 0, course.stdout + course.stderr
    assert "tests collected" in course.stdout
    assert not mark.exists()

    # Named with -p, it loads.
    named = pytest_in(ROOT, site, mark, *args, "-p", "stray", "tests/module0")
    assert named.returncode == 0, named.stdout + named.stderr
    assert mark.read_text() == "loaded"


class _Item:
    """As much of a collected test as the ordering reads: its marker names."""

    def __init__(self, name: str, *markers: str) -> None:
        self.name, self.markers = name, markers

    def get_closest_marker(self, name: str):
        return name if name in self.markers else None


def test_the_long_tests_start_first_and_each_group_keeps_its_order():
    """Under ``pytest -n 2`` the run ends with its last test: the long ones
    (``browser``, ``long``) go first, the rest after them, both in collection
    order."""
    from tests.conftest import pytest_collection_modifyitems

    items = [
        _Item("a"),
        _Item("slow_grade", "long"),
        _Item("b", "task0_1"),
        _Item("browser", "browser"),
        _Item("c"),
        _Item("slower_grade", "long", "task0_2"),
    ]
    pytest_collection_modifyitems(items)
    assert [i.name for i in items] == [
        "slow_grade",
        "browser",
        "slower_grade",
        "a",
        "b",
        "c",
    ]
