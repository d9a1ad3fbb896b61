"""``kindling doctor --platforms``: the student install, resolved per platform.

These tests never reach the package index: pip is replaced by a fake that answers as
pip does. CI's ``.ci/run`` runs the real check against the index.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import List

import pytest

from kindling_staff import platforms
from kindling_staff.platforms import PLATFORMS, requirements

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = ROOT / "pyproject.toml"
BY_NAME = {p.name: p for p in PLATFORMS}


def names(lines: List[str]) -> set:
    from packaging.requirements import Requirement

    return {Requirement(line).name for line in lines}


@pytest.mark.parametrize("python", platforms.PYTHONS)
def test_the_student_install_asks_no_mac_for_nvidia_or_numba_cuda(python):
    mac = names(
        requirements(
            PYPROJECT, ["dev", "app"], BY_NAME["macos-arm64"].environment(python)
        )
    )
    assert {"numpy", "numba", "pytest", "hypothesis", "streamlit", "tqdm"} <= mac
    assert not {n for n in mac if n.startswith("nvidia")}
    assert "numba-cuda" not in mac  # 0.20, the last pure wheel, fails to import there


def test_the_student_install_carries_no_compilers_anywhere():
    for platform in PLATFORMS:
        wanted = names(
            requirements(PYPROJECT, ["dev", "app"], platform.environment("3.12"))
        )
        assert not {n for n in wanted if n.startswith("nvidia")}, platform.name
    linux = names(
        requirements(PYPROJECT, ["dev"], BY_NAME["linux"].environment("3.12"))
    )
    assert "numba-cuda" in linux  # the simulator of numba-cuda, where it has wheels


def test_the_instructor_extra_expands_the_others_and_brings_the_compilers():
    linux = names(
        requirements(PYPROJECT, ["instructor"], BY_NAME["linux"].environment("3.11"))
    )
    assert {"nvidia-cuda-nvcc-cu12", "nvidia-cuda-nvrtc-cu12", "numba-cuda"} <= linux
    assert {"streamlit", "pytest", "nbclient", "ipykernel"} <= linux
    assert "kindling" not in linux  # its own extras are expanded, not asked of pip
    mac = names(
        requirements(
            PYPROJECT, ["instructor"], BY_NAME["macos-x86_64"].environment("3.11")
        )
    )
    assert not {n for n in mac if n.startswith("nvidia")}


def test_tomli_is_asked_for_on_python_3_10_only():
    env = BY_NAME["windows"].environment
    assert "tomli" in names(requirements(PYPROJECT, ["dev"], env("3.10")))
    assert "tomli" not in names(requirements(PYPROJECT, ["dev"], env("3.11")))


def test_a_linux_only_package_without_a_marker_reaches_pip_for_the_mac(tmp_path):
    text = PYPROJECT.read_text(encoding="utf-8").replace(
        "dev = [", 'dev = [\n    "nvidia-cuda-nvcc-cu12>=12.4",', 1
    )
    (tmp_path / "pyproject.toml").write_text(text, encoding="utf-8")
    mac = requirements(
        tmp_path / "pyproject.toml", ["dev"], BY_NAME["macos-arm64"].environment("3.12")
    )
    assert "nvidia-cuda-nvcc-cu12>=12.4" in mac


def test_an_unknown_extra_is_an_error():
    with pytest.raises(ValueError, match="no extra 'gpu'"):
        requirements(PYPROJECT, ["gpu"], BY_NAME["linux"].environment("3.12"))


class FakePip:
    """Answers as pip does: refuses any requirement in ``missing``, else writes the
    installation report that ``--report`` names."""

    def __init__(self, missing: str = "") -> None:
        self.missing = missing
        self.commands: List[List[str]] = []

    def __call__(self, command: List[str]) -> subprocess.CompletedProcess:
        self.commands.append(command)
        if any(c.startswith(self.missing) for c in command if self.missing):
            err = (
                f"ERROR: Could not find a version that satisfies the requirement "
                f"{self.missing}\nERROR: No matching distribution found for "
                f"{self.missing}\n"
            )
            return subprocess.CompletedProcess(command, 1, "", err)
        report = command[command.index("--report") + 1]
        install = [
            {"metadata": {"name": "numba", "version": "0.68.1"}},
            {"metadata": {"name": "NumPy", "version": "2.4.6"}},
        ]
        Path(report).write_text(json.dumps({"install": install}), encoding="utf-8")
        return subprocess.CompletedProcess(command, 0, "", "")


def test_a_resolution_asks_pip_for_wheels_of_that_platform_and_python():
    pip = FakePip()
    result = platforms.resolve(BY_NAME["linux"], "3.13", PYPROJECT, run=pip)
    assert result.ok and result.versions == {"numba": "0.68.1", "numpy": "2.4.6"}
    command = pip.commands[0]
    assert {"--dry-run", "--only-binary=:all:", "--ignore-installed"} <= set(command)
    assert command[command.index("--python-version") + 1] == "3.13"
    tags = [command[i + 1] for i, c in enumerate(command) if c == "--platform"]
    assert "manylinux_2_17_x86_64" in tags and "manylinux_2_28_x86_64" in tags


def test_a_failed_resolution_names_what_pip_could_not_find(capsys, monkeypatch):
    pip = FakePip(missing="numba-cuda")
    monkeypatch.setattr(platforms, "_run", pip)
    assert platforms.main(ROOT, ["dev"], ["3.12"]) == 1
    out = capsys.readouterr().out
    # numba-cuda is asked for on Windows and Linux only: the Macs still resolve
    assert "3 of 4 pairs resolve" not in out
    assert "2 of 4 pairs resolve" in out
    assert "No matching distribution found for numba-cuda" in out
    assert "| macos-arm64 | 3.12 | yes |" in out
