"""``kindling doctor --platforms``: does the student install resolve on every machine?

A student runs one command, ``pip install -e ".[dev,app]"``, on macOS (arm64 or
Intel), Windows or Linux, with Python 3.10 to 3.13. A package that publishes wheels
for some platforms only (NVIDIA's compilers are Linux and Windows only) breaks that
command on the others, and nothing on a Linux CI machine would notice. This check asks
pip itself, from any one machine, whether each (platform, Python) pair resolves::

    pip install --dry-run --ignore-installed --only-binary=:all: --target TMP
        --platform TAG [--platform TAG ...] --python-version 3.12 REQUIREMENT ...

with ``--only-binary=:all:`` because a student's machine has no compilers: a package
that only resolves by building from source does not install there.

pip decides wheel compatibility from ``--platform``, but evaluates environment markers
(``; sys_platform != "darwin"``) for the machine it runs on. So the course's own
requirements are filtered here, with each target's marker environment, before they
reach pip; the markers of their dependencies are still pip's (a Linux host), which is
the one gap this check has.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

#: What a student installs (the edition README's command): the extras, not the
#: instructor's ``instructor`` extra with NVIDIA's compilers.
STUDENT_EXTRAS = ("dev", "app")
PYTHONS = ("3.10", "3.11", "3.12", "3.13")


@dataclass(frozen=True)
class Platform:
    """A kind of student machine: pip's wheel tags for it and its marker values."""

    name: str
    tags: Tuple[str, ...]
    sys_platform: str
    platform_system: str
    platform_machine: str
    os_name: str

    def environment(self, python: str) -> Dict[str, str]:
        """The PEP 508 marker environment of this platform under ``python``."""
        return {
            "implementation_name": "cpython",
            "implementation_version": f"{python}.0",
            "os_name": self.os_name,
            "platform_machine": self.platform_machine,
            "platform_python_implementation": "CPython",
            "platform_release": "",
            "platform_system": self.platform_system,
            "platform_version": "",
            "python_full_version": f"{python}.0",
            "python_version": python,
            "sys_platform": self.sys_platform,
            "extra": "",
        }


# pip expands a macOS tag to every older macOS of the same architecture, but matches a
# manylinux tag exactly: Linux names each glibc baseline that wheels are built for.
# macOS 14 (2023) is the oldest that Apple still updates on both architectures.
PLATFORMS = (
    Platform(
        "macos-arm64",
        ("macosx_14_0_arm64",),
        "darwin",
        "Darwin",
        "arm64",
        "posix",
    ),
    Platform(
        "macos-x86_64",
        ("macosx_14_0_x86_64",),
        "darwin",
        "Darwin",
        "x86_64",
        "posix",
    ),
    Platform("windows", ("win_amd64",), "win32", "Windows", "AMD64", "nt"),
    Platform(
        "linux",
        tuple(f"manylinux_2_{n}_x86_64" for n in (35, 34, 31, 28, 27, 24, 17))
        + ("manylinux2014_x86_64", "manylinux1_x86_64", "linux_x86_64"),
        "linux",
        "Linux",
        "x86_64",
        "posix",
    ),
)


def requirements(
    pyproject: Path, extras: Sequence[str], environment: Dict[str, str]
) -> List[str]:
    """The requirements ``pip install ".[extras]"`` asks for on a machine whose
    markers are ``environment``: the base dependencies and each extra's (an extra may
    name the project's own other extras, ``kindling[cuda]``), without the ones whose
    marker is false there, markers removed."""
    from packaging.requirements import Requirement

    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    optional = project.get("optional-dependencies", {})
    lines = list(project.get("dependencies", []))
    todo, seen = list(extras), set()
    found = set()
    while lines or todo:
        if not lines:
            extra = todo.pop()
            if extra not in optional:
                raise ValueError(f"{pyproject} has no extra {extra!r}")
            seen.add(extra)
            lines = list(optional[extra])
            continue
        requirement = Requirement(lines.pop())
        marker = requirement.marker
        if marker is not None and not marker.evaluate(environment):
            continue
        if requirement.name == project["name"]:
            todo += [x for x in requirement.extras if x not in seen and x not in todo]
            continue
        requirement.marker = None
        found.add(str(requirement))
    return sorted(found)


@dataclass
class Resolution:
    """What pip said for one (platform, Python) pair."""

    platform: str
    python: str
    ok: bool
    versions: Dict[str, str]
    error: str = ""


def pip_command(platform: Platform, python: str, target: str, report: str) -> List[str]:
    """The pip command that resolves for ``platform`` and ``python`` (requirements
    are appended)."""
    command = [sys.executable, "-m", "pip", "install", "--dry-run", "-q"]
    command += ["--disable-pip-version-check", "--ignore-installed"]
    command += ["--only-binary=:all:", "--target", target, "--report", report]
    for tag in platform.tags:
        command += ["--platform", tag]
    return command + ["--python-version", python]


Runner = Callable[[List[str]], "subprocess.CompletedProcess[str]"]


def _run(command: List[str]) -> "subprocess.CompletedProcess[str]":
    return subprocess.run(
        command, capture_output=True, text=True, encoding="utf-8", errors="replace"
    )


def resolve(
    platform: Platform,
    python: str,
    pyproject: Path,
    extras: Sequence[str] = STUDENT_EXTRAS,
    run: Optional[Runner] = None,
) -> Resolution:
    """Ask pip whether ``.[extras]`` installs from wheels on ``platform``/``python``
    (``run`` runs the pip command: a seam for tests)."""
    run = run or _run
    wanted = requirements(pyproject, extras, platform.environment(python))
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "report.json"
        command = pip_command(platform, python, str(Path(scratch) / "t"), str(report))
        done = run(command + wanted)
        if done.returncode != 0:
            lines = [x for x in done.stderr.splitlines() if x.startswith("ERROR")]
            why = (
                lines[-1] if lines else (done.stderr.strip().splitlines() or ["?"])[-1]
            )
            return Resolution(platform.name, python, False, {}, why)
        installs = json.loads(report.read_text(encoding="utf-8")).get("install", [])
    versions = {
        item["metadata"]["name"].lower(): item["metadata"]["version"]
        for item in installs
    }
    return Resolution(platform.name, python, True, versions)


def check(
    pyproject: Path,
    extras: Sequence[str] = STUDENT_EXTRAS,
    platforms: Sequence[Platform] = PLATFORMS,
    pythons: Sequence[str] = PYTHONS,
    jobs: int = 4,
    run: Optional[Runner] = None,
) -> List[Resolution]:
    """Every (platform, Python) pair's resolution, in a stable order. pip's work is
    mostly waiting on the index, so a few pairs run at once."""
    pairs = [(p, v) for p in platforms for v in pythons]
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(resolve, p, v, pyproject, extras, run) for p, v in pairs]
        return [f.result() for f in futures]


#: The versions worth showing: the ones that differ between platforms.
SHOWN = ("numpy", "numba", "numba-cuda", "nvidia-cuda-nvcc-cu12")


def format_table(results: Sequence[Resolution]) -> str:
    """A Markdown table of the results, one row per pair."""
    lines = ["| platform | python | resolves | " + " | ".join(SHOWN) + " |"]
    lines.append("|---" * (3 + len(SHOWN)) + "|")
    for r in results:
        cells = [r.versions.get(name, "-") for name in SHOWN]
        ok = "yes" if r.ok else f"NO: {re.sub(r'[|]', '/', r.error)[:120]}"
        lines.append(
            f"| {r.platform} | {r.python} | {ok} | " + " | ".join(cells) + " |"
        )
    return "\n".join(lines)


def main(
    root: Path = Path("."),
    extras: Optional[Sequence[str]] = None,
    pythons: Optional[Sequence[str]] = None,
) -> int:
    """Print the table; 1 if any pair fails to resolve."""
    extras = tuple(extras or STUDENT_EXTRAS)
    results = check(root / "pyproject.toml", extras, pythons=tuple(pythons or PYTHONS))
    print(f'pip install ".[{",".join(extras)}]" from wheels, per platform and Python:')
    print(format_table(results))
    bad = [r for r in results if not r.ok]
    print(f"{len(results) - len(bad)} of {len(results)} pairs resolve")
    return 1 if bad else 0
