"""Everything a student runs works on Windows and macOS as well as on Linux.

CI's matrix (``.github/workflows/ci.yml``) runs the student edition on the three
systems; these checks read the source, so that a Linux-only habit is caught on any
machine, before it reaches a student:

- text files are opened, and child processes' output decoded, with an explicit
  encoding (Windows' default is a code page, not UTF-8, so a guide, a test file or
  pytest's output with a non-ASCII character breaks there);
- no POSIX-only module (``fcntl``, ``pwd``, ``resource``, ...) is imported at module
  level, where importing the file on Windows would fail;
- no ``os.kill(pid, 0)`` liveness check: on Windows signal 0 is ``CTRL_C_EVENT``
  and interrupts the process it asks about.

The grader (``kindling grade``) is Linux-only by design (bubblewrap) and is left out.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Iterator, List, Set, Tuple

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = [
    "module0_fundamentals",
    "module1_scalar_autodiff",
    "module2_tensors",
    "module3_fast_ops",
    "module4_networks",
    "project",
    "kindling",
]
#: Linux-only by design: the grader and its sandbox (docs/GRADING.md).
GRADER_ONLY = ("grade", "sandbox", "mutation")
POSIX_ONLY = {"fcntl", "pwd", "grp", "resource", "termios", "pty", "tty", "posix"}
#: (file, function) allowed to call os.kill: none now (the kernel cache's locks
#: are the operating system's file locks, which go with their holder).
KILL_ALLOWED: Set[Tuple[str, str]] = set()


def student_files(grader: bool = False) -> Iterator[Path]:
    """The course's Python files, the grader's with ``grader`` (Linux-only to run,
    but ``kindling sync`` imports it, so it must at least import everywhere)."""
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if package == "kindling" and path.stem.startswith(GRADER_ONLY):
                if not grader:
                    continue
            yield path


def where(path: Path, node: ast.AST) -> str:
    return f"{path.relative_to(ROOT).as_posix()}:{node.lineno}"


def _keywords(call: ast.Call) -> set:
    return {k.arg for k in call.keywords}


def _text_mode(call: ast.Call, position: int) -> bool:
    """Whether a call's mode argument (positional ``position`` or ``mode=``) is a
    text mode; a mode that is not a literal is taken to be text."""
    mode = None
    if len(call.args) > position:
        mode = call.args[position]
    for k in call.keywords:
        if k.arg == "mode":
            mode = k.value
    if mode is None:
        return True
    if isinstance(mode, ast.Constant) and isinstance(mode.value, str):
        return "b" not in mode.value
    return True


def text_io_without_encoding(path: Path) -> List[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call) or "encoding" in _keywords(node):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        owner = getattr(getattr(func, "value", None), "id", "")
        if isinstance(func, ast.Name) and name == "open" and _text_mode(node, 1):
            found.append(f"{where(path, node)} open()")
        elif name in ("read_text", "write_text"):
            found.append(f"{where(path, node)} .{name}()")
        elif isinstance(func, ast.Attribute) and name == "open" and owner != "os":
            # Path.open, ZipFile.open (binary: fine), tarfile...: text mode only
            if owner not in ("zipfile", "tarfile") and _text_mode(node, 0):
                if not _is_binary_container(func):
                    found.append(f"{where(path, node)} .open()")
        elif owner == "os" and name == "fdopen" and _text_mode(node, 1):
            found.append(f"{where(path, node)} os.fdopen()")
        elif name in ("run", "Popen", "check_output") and _decodes_text(node):
            found.append(f"{where(path, node)} subprocess text without an encoding")
    return found


def _decodes_text(call: ast.Call) -> bool:
    """A subprocess call that decodes the child's output as text."""
    for k in call.keywords:
        if k.arg in ("text", "universal_newlines"):
            return not (isinstance(k.value, ast.Constant) and not k.value.value)
    return False


def _is_binary_container(func: ast.Attribute) -> bool:
    """``bundle.open(name)`` on a zip archive or ``urllib.request.urlopen``: these
    return bytes whatever the mode."""
    receiver = func.value
    name = getattr(receiver, "id", "") or getattr(receiver, "attr", "")
    return name in ("bundle", "archive", "zf", "zip", "request")


def posix_only_imports(path: Path) -> List[str]:
    found = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:  # module level
        names: List[Tuple[str, ast.AST]] = []
        if isinstance(node, ast.Import):
            names = [(a.name.split(".")[0], node) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [(node.module.split(".")[0], node)]
        found += [f"{where(path, n)} import {m}" for m, n in names if m in POSIX_ONLY]
    return found


def kill_calls(path: Path) -> List[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    rel = path.relative_to(ROOT).as_posix()
    found = []
    for function in [tree] + [
        n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)
    ]:
        allowed = (rel, getattr(function, "name", "")) in KILL_ALLOWED
        body = function.body if isinstance(function, ast.FunctionDef) else tree.body
        for statement in body:
            if isinstance(statement, ast.FunctionDef):
                continue  # walked on its own
            for node in ast.walk(statement):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "kill"
                    and getattr(node.func.value, "id", "") == "os"
                    and not allowed
                ):
                    found.append(f"{where(path, node)} os.kill")
    return sorted(set(found))


@pytest.mark.parametrize("check", [text_io_without_encoding, kill_calls])
def test_student_code_is_portable(check):
    problems = [p for path in student_files() for p in check(path)]
    assert problems == [], "\n".join(problems)


def test_every_module_imports_without_posix_only_modules():
    problems = [p for path in student_files(True) for p in posix_only_imports(path)]
    assert problems == [], "\n".join(problems)


def test_the_checks_find_what_they_look_for(tmp_path, monkeypatch):
    """Each check flags a planted example (and leaves the portable form alone)."""
    monkeypatch.setattr("tests.kindling.test_portability.ROOT", tmp_path, raising=True)
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import fcntl\n"
        "import os\n"
        "from pathlib import Path\n"
        "def f(p):\n"
        "    open(p).read()\n"
        "    open(p, 'rb').read()\n"
        "    open(p, encoding='utf-8').read()\n"
        "    Path(p).read_text()\n"
        "    Path(p).write_text('x', encoding='utf-8')\n"
        "    os.kill(1, 0)\n"
        "    subprocess.run(['ls'], text=True)\n",
        encoding="utf-8",
    )
    found = sorted(text_io_without_encoding(bad))
    assert found == [
        "bad.py:11 subprocess text without an encoding",
        "bad.py:5 open()",
        "bad.py:8 .read_text()",
    ]
    assert posix_only_imports(bad) == ["bad.py:1 import fcntl"]
    assert kill_calls(bad) == ["bad.py:10 os.kill"]
