"""Course trees and the grader's signed cache.

:func:`tree_files` and :func:`copy_tree` list and copy a course tree (no caches or
environments); :func:`tree_key` names a tree's content (with the Python, pytest and
GPU it is graded under). The cache keeps what the grader computed about a tree
(its test collection, the reference's values) between runs, each entry signed with
this user's key (``secret.key``, mode 0600), so a forged entry is ignored.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Iterable, List, Optional

__all__ = [
    "SKIPPED_PARTS",
    "tree_files",
    "copy_tree",
    "cache_dir",
    "cache_secret",
    "sign",
    "tree_key",
    "load_signed",
    "store_signed",
]

SKIPPED_PARTS = {
    ".git",
    ".venv",
    "venv",
    "__pycache__",
    ".pytest_cache",
    ".hypothesis",
    ".kindling",
    "node_modules",
}


#: Instructor data that no test session reads, kept out of every graded tree: each
#: plausible mistake's ``find`` is a snippet of a reference solution, which student
#: code in a sandbox could otherwise read (the mutants' list is kept out with it).
UNGRADED_FOLDERS = ("tests/mistakes/", "tests/mutants/")


def tree_files(root: Path) -> List[str]:
    """The files of a course tree, relative, without caches and environments (and
    without :data:`UNGRADED_FOLDERS`)."""
    from kindling.regions import source_files

    files = []
    for path in source_files(root):
        relative = path.relative_to(root)
        if set(relative.parts) & SKIPPED_PARTS:
            continue
        if not relative.as_posix().startswith(UNGRADED_FOLDERS):
            files.append(relative.as_posix())
    return files


def copy_tree(root: Path, dest: Path) -> List[str]:
    files = tree_files(root)
    for relative in files:
        target = dest / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / relative, target)
    return files


def cache_dir() -> Path:
    base = os.environ.get("KINDLING_CACHE_DIR") or os.environ.get("XDG_CACHE_HOME")
    return Path(base) / "kindling" if base else Path.home() / ".cache" / "kindling"


def tree_key(root: Path, files: Iterable[str]) -> str:
    import pytest

    from kindling.cudasim import gpu_present
    from kindling.regions import file_digest

    digest = hashlib.sha256()
    environment = f"{sys.version}|{pytest.__version__}|{gpu_present()}"
    digest.update(f"{environment}|{os.environ.get('NUMBA_ENABLE_CUDASIM')}".encode())
    for relative in sorted(files):
        digest.update(f"{relative}:{file_digest(root / relative)}\n".encode())
    return digest.hexdigest()


def cache_secret(folder: Path) -> bytes:
    """This user's key for signing cache entries (created on first use, mode 0600)."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = folder / "secret.key"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_bytes()
    key = os.urandom(32)
    with os.fdopen(fd, "wb") as out:
        out.write(key)
    return key


def sign(secret: bytes, key: str, tests: object) -> str:
    body = json.dumps([key, tests], sort_keys=True).encode()
    return hmac.new(secret, body, hashlib.sha256).hexdigest()


def load_signed(name: str, key: str) -> Optional[dict]:
    """A cache entry's value, if signed with this user's key for ``key``."""
    folder = cache_dir()
    try:
        entry = json.loads((folder / name).read_text())
        value, mac = entry["value"], entry["mac"]
        secret = cache_secret(folder)
        if entry["key"] != key or not isinstance(value, dict):
            return None
        if not hmac.compare_digest(mac, sign(secret, key, value)):
            return None
        return {str(k): str(v) for k, v in value.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def store_signed(name: str, key: str, value: dict) -> None:
    folder = cache_dir()
    try:
        secret = cache_secret(folder)
        entry = {"key": key, "value": value, "mac": sign(secret, key, value)}
        partial = folder / f"{name}.{os.getpid()}.tmp"
        partial.write_text(json.dumps(entry))
        os.replace(partial, folder / name)
    except OSError:
        pass  # a read-only home only costs time
