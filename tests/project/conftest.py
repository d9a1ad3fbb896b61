"""Fixtures for the dashboard tests: the app of this checkout, a student edition cut
from it, and isolation between the two (they share module names)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Iterator

import pytest

ROOT = Path(__file__).resolve().parents[2]
COURSE = (
    "project",
    "kindling",
    "module0_fundamentals",
    "module1_scalar_autodiff",
    "module2_tensors",
    "module3_fast_ops",
    "module4_networks",
)


@pytest.fixture(scope="session")
def edition(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A student edition of this checkout (every solution replaced by its stub)."""
    from kindling_staff.release import release

    out = tmp_path_factory.mktemp("edition") / "kindling-student"
    release(ROOT, out)
    return out


@pytest.fixture(scope="session")
def early_edition(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A student edition that stops after Module 1 (``release --through 1``)."""
    from kindling_staff.release import release

    out = tmp_path_factory.mktemp("edition") / "kindling-through-1"
    release(ROOT, out, through=1)
    return out


@pytest.fixture
def isolated_imports() -> Iterator[None]:
    """Put ``sys.path`` and the course's entries of ``sys.modules`` back afterwards.

    The app imports the course from its own checkout (the edition's stubs when it
    runs from an edition); the other tests of this process must keep seeing the
    instructor source.
    """
    saved_path = list(sys.path)
    saved = {n: m for n, m in sys.modules.items() if n.split(".")[0] in COURSE}
    try:
        yield
    finally:
        for name in [n for n in sys.modules if n.split(".")[0] in COURSE]:
            del sys.modules[name]
        sys.modules.update(saved)
        sys.path[:] = saved_path
