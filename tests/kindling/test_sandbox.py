"""The grader's sandbox (``kindling.sandbox``): what code inside it can see and do."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import kindling.sandbox as sandbox_module
from kindling.cli import main
from kindling.grade import GradeError, Grader
from kindling.sandbox import TREE, probe, sandbox_env, why_not

ROOT = Path(__file__).resolve().parents[2]
needs_sandbox = pytest.mark.skipif(probe() is None, reason=f"no sandbox: {why_not()}")

PROBE = r"""
import json, os, socket, sys

seen = {"uid": os.getuid(), "gid": os.getgid(), "pid": os.getpid(), "cwd": os.getcwd()}
seen["env"] = sorted(os.environ)
seen["root"] = sorted(os.listdir("/"))
home = sys.argv[1]
seen["home"] = sorted(os.listdir(home)) if os.path.isdir(home) else []
seen["source"] = os.path.isfile(sys.argv[2])
seen["processes"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
try:
    open("pyproject.toml", "a").close()
    seen["tree_writable"] = True
except OSError:
    seen["tree_writable"] = False
with open("/tmp/scratch", "w") as f:
    seen["tmp_writable"] = f.write("ok") == 2
try:
    socket.create_connection(("1.1.1.1", 80), timeout=2)
    seen["network"] = True
except OSError:
    seen["network"] = False
print(json.dumps(seen))
"""


@needs_sandbox
def test_code_inside_sees_only_its_tree_and_the_interpreter(tmp_path):
    import json

    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "pyproject.toml").write_text("")
    secret = ROOT / "kindling" / "grade.py"  # the grader's own source
    box = probe()
    argv = [sys.executable, "-c", PROBE, str(Path.home()), str(secret)]
    env = sandbox_env({"EXTRA": "1"})
    done = subprocess.run(
        box.command(argv, tree, env),
        env={**os.environ, "GITHUB_TOKEN": "tok"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["cwd"] == TREE
    assert not seen["source"]
    # $HOME holds at most the folders on the way to the interpreter (pyenv's).
    prefixes = {Path(p).resolve() for p in (sys.base_prefix, sys.prefix)}
    for name in seen["home"]:
        assert any(Path.home() / name in [q, *q.parents] for q in prefixes), name
    assert not seen["tree_writable"] and seen["tmp_writable"]
    assert not seen["network"]
    assert set(seen["env"]) <= set(env) | {"PWD"} and "GITHUB_TOKEN" not in seen["env"]
    assert seen["pid"] <= 3 and len(seen["processes"]) <= 3  # bwrap's init and us
    if "user" in box.description:
        assert (seen["uid"], seen["gid"]) == (65534, 65534)


def test_without_bubblewrap_the_grader_refuses_and_says_why(tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox_module.shutil, "which", lambda name: None)
    sandbox_module.probe.cache_clear()
    try:
        assert "bubblewrap" in why_not()
        with pytest.raises(GradeError, match="--unsafe-no-sandbox"):
            Grader(ROOT, ROOT, "0.1")
        code = main(["grade", f"--submission={ROOT}", f"--source={ROOT}"])
        assert code == 2
        Grader(ROOT, ROOT, "0.1", sandbox=False)  # told to: it will grade
    finally:
        sandbox_module.probe.cache_clear()


@needs_sandbox
def test_an_interpreter_under_tmp_stays_visible():
    """A checkout (and its .venv) under /tmp, as a CI clone may be: the sandbox's own
    /tmp must not hide the paths bound from under the real /tmp."""
    import dataclasses
    import tempfile

    outside = Path(tempfile.mkdtemp(dir="/tmp", prefix="kindling-venv-"))
    try:
        (outside / "marker.txt").write_text("visible")
        base = probe()
        sandbox = dataclasses.replace(
            base, binds=(*base.binds, "--ro-bind", str(outside), str(outside))
        )
        argv = ["/bin/cat", str(outside / "marker.txt")]
        command = sandbox.command(argv, ROOT, sandbox_env({}))
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert done.stdout == "visible"
    finally:
        (outside / "marker.txt").unlink()
        outside.rmdir()
