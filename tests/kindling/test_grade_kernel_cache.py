"""The trusted kernel cache (``kindling grade --kernel-cache DIR``): every sandbox
may load kernels a trusted run compiled on the host, and none can change them."""

import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import List, Tuple

import pytest

from kindling.grade_kernels import (
    Received,
    SubmissionKernels,
    kernel_cache_folder,
    kernels_root,
    link_submission_kernels,
    link_trusted_kernels,
    send_compiled_kernels,
    trusted_kernel_dirs,
)
from kindling.grade_runner import Job, Runner
from kindling.sandbox import probe, why_not

ROOT = Path(__file__).resolve().parents[2]
needs_sandbox = pytest.mark.skipif(probe() is None, reason=f"no sandbox: {why_not()}")

KERNEL = '''"""A kernel kept by the course's kernel cache."""

from numba import njit

from kcache import persist


@njit
def double(x):
    return 2.0 * x


double = persist(double, "double")
'''

# Run inside the sandbox: call the kernel, say whether it was loaded or compiled,
# then try every way of changing the trusted files behind the links.
ATTACK = r"""
import json
import os


def test_kernel():
    import kcache
    import kpkg.kern as kern

    assert kern.double(2.0) == 4.0
    folder = kcache._cache_path(kern.double.py_func.__code__.co_filename)
    links = sorted(n for n in os.listdir(folder) if os.path.islink(f"{folder}/{n}"))
    changed = []
    for name in links:
        link, target = f"{folder}/{name}", os.readlink(f"{folder}/{name}")
        attempts = {
            "write through the link": lambda: open(link, "r+b").write(b"x"),
            "write": lambda: open(target, "r+b").write(b"x"),
            "truncate": lambda: os.truncate(target, 0),
            "unlink": lambda: os.unlink(target),
            "rename": lambda: os.rename(target, target + ".x"),
            "chmod": lambda: os.chmod(target, 0o777),
            "new file": lambda: open(os.path.dirname(target) + "/new.nbi", "wb"),
        }
        for what, attempt in attempts.items():
            try:
                attempt()
                changed.append(f"{what} {name}")
            except OSError:
                pass
    seen = {
        "loaded": kcache.compile_progress.progress.loaded_count,
        "compiled": len(kcache.compile_progress.progress.compiled),
        "links": links,
        "changed": changed,
    }
    print("seen", json.dumps(seen), flush=True)
"""


def _source(tmp_path: Path) -> Path:
    """A small trusted tree whose one kernel a trusted run compiled (on the host)."""
    source = tmp_path / "source"
    (source / "kpkg").mkdir(parents=True)
    (source / "kpkg" / "__init__.py").write_text("")
    (source / "kpkg" / "kern.py").write_text(KERNEL)
    # The course's kernel cache as a package of its own (kcache/__init__.py is
    # kernel_cache.py), with the two modules it imports.
    (source / "kcache").mkdir()
    package = ROOT / "module3_fast_ops"
    shutil.copyfile(package / "kernel_cache.py", source / "kcache" / "__init__.py")
    for name in ("kernel_key.py", "compile_progress.py"):
        shutil.copyfile(package / name, source / "kcache" / name)
    env = {k: v for k, v in os.environ.items() if k != "KINDLING_CACHE_DIR"}
    env.update(KINDLING_COMPILE_HELPER="0", KINDLING_QUIET="1")
    compile_it = "import kpkg.kern as k; assert k.double(3.0) == 6.0"
    subprocess.run([sys.executable, "-c", compile_it], cwd=source, env=env, check=True)
    return source


def _grade_jobs(
    tmp_path: Path, source: Path, kernel_cache=None, runs: int = 1, share=False
) -> List[dict]:
    """Run ATTACK ``runs`` times as the grader runs tasks: a copy of ``source`` (no
    compiled kernels in it), read-only, in a sandbox, with one runner (as for one
    submission's tasks); what each run saw."""
    tree = tmp_path / "tree"
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(source, tree, ignore=ignore)
    shutil.copytree(ROOT / "kindling", tree / "kindling", ignore=ignore)
    (tree / "test_attack.py").write_text(ATTACK)
    args = ["-p", "kindling.grade_plugin", "-p", "no:cacheprovider", "-s", "-q"]
    seen = []
    runner = Runner(tree, probe(), tmp_path / "scratch", kernel_cache, share)
    with runner:
        for _ in range(runs):
            run = runner.run(Job([*args, "test_attack.py"], 300, 2048))
            lines = [
                line for line in run.output.splitlines() if line.startswith("seen")
            ]
            assert lines, run.output[-3000:]
            seen.append(json.loads(lines[-1][len("seen ") :]))
    shutil.rmtree(tree)
    return seen


def _digests(folder: Path) -> dict:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()
    }


@needs_sandbox
def test_a_sandbox_loads_trusted_kernels_and_cannot_change_them(tmp_path):
    source = _source(tmp_path)
    cache = source / "kpkg" / "__pycache__"
    before = _digests(cache)
    assert any(name.endswith(".nbi") for name in before)
    assert trusted_kernel_dirs(source) == [(str(cache), "kpkg")]

    (seen,) = _grade_jobs(tmp_path / "with", source, source)
    assert (seen["loaded"], seen["compiled"]) == (1, 0), seen
    assert seen["links"] and seen["changed"] == []
    assert _digests(cache) == before

    # Without the option, the same job compiles the kernel itself.
    (seen,) = _grade_jobs(tmp_path / "without", source, None)
    assert (seen["loaded"], seen["compiled"]) == (0, 1), seen
    assert seen["links"] == []


def test_the_links_go_where_the_kernel_cache_looks(tmp_path, monkeypatch):
    """kernel_cache_folder repeats module3_fast_ops.kernel_cache's rule (the job
    must not import the course's package before its session starts)."""
    from module3_fast_ops import kernel_cache

    package = tmp_path / "tree" / "pkg"
    package.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    for explicit in (None, str(tmp_path / "cache")):
        if explicit is None:
            monkeypatch.delenv("KINDLING_CACHE_DIR", raising=False)
        else:
            monkeypatch.setenv("KINDLING_CACHE_DIR", explicit)
        expected = kernel_cache._cache_path(str(package / "kern.py"))
        assert kernel_cache_folder(str(package)) == expected

    kernels = tmp_path / "trusted"
    kernels.mkdir()
    for name in ("k-1.nbi", "k-1.2.nbc", "k-1.lock", "notes.txt"):
        (kernels / name).write_text(name)
    spec = json.dumps([[str(kernels), str(package)]])
    assert link_trusted_kernels(spec) == 2  # the index and data files only
    folder = Path(kernel_cache_folder(str(package)))
    assert sorted(p.name for p in folder.iterdir() if p.is_symlink()) == [
        "k-1.2.nbc",
        "k-1.nbi",
    ]
    assert link_trusted_kernels(spec) == 0  # kept: nothing linked twice
    assert link_trusted_kernels("not json") == 0


def test_the_option_reaches_every_grader_of_a_batch_and_must_be_a_folder(
    tmp_path, capsys
):
    from kindling.cli import main
    from kindling_staff.grade_batch import _command

    command = _command(tmp_path / "alice", tmp_path / "a.json", {"kernel_cache": ROOT})
    assert f"--kernel-cache={ROOT}" in command
    assert not any("kernel-cache" in part for part in _command(tmp_path, tmp_path, {}))

    missing = tmp_path / "no-such-folder"
    argv = ["grade", "--submission", str(ROOT), "--kernel-cache", str(missing)]
    assert main(argv + ["--unsafe-no-sandbox", "--tasks", "0.1"]) == 2
    assert "kernel cache" in capsys.readouterr().err


# -- the kernels a submission's earlier jobs compiled --------------------------------


@needs_sandbox
def test_a_submission_loads_what_its_earlier_jobs_compiled_and_no_one_else(tmp_path):
    source = _source(tmp_path)
    first, second, third = _grade_jobs(tmp_path / "shared", source, None, 3, True)
    assert (first["loaded"], first["compiled"]) == (0, 1), first
    assert first["links"] == []
    # Later jobs load the kernel the first one compiled, and cannot change it.
    for later in (second, third):
        assert (later["loaded"], later["compiled"]) == (1, 0), later
        assert later["links"] and later["changed"] == []
    # Another runner (another submission, the reference's values) compiles afresh,
    # and so does every job of a runner that does not share (Task 0.2's runs).
    (other,) = _grade_jobs(tmp_path / "other", source, None, 1, True)
    assert (other["loaded"], other["compiled"]) == (0, 1), other
    alone = _grade_jobs(tmp_path / "alone", source, None, 2, False)
    assert [(s["loaded"], s["compiled"]) for s in alone] == [(0, 1), (0, 1)]


def _archive(members: List[Tuple[str, bytes, bytes]]) -> Received:
    """A tar stream as a job sends it: (name, type, data) per member."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for name, kind, data in members:
            info = tarfile.TarInfo(name)
            info.type, info.size = kind, len(data) if kind == tarfile.REGTYPE else 0
            if kind == tarfile.SYMTYPE:
                info.linkname = "/etc/passwd"
            archive.addfile(info, io.BytesIO(data) if data else None)
    received = Received()
    received.feed(buffer.getvalue())
    return received


def test_the_store_keeps_kernel_files_by_safe_names_only(tmp_path):
    store = SubmissionKernels(tmp_path / "store")
    assert store.bind() == []
    sub = "module3_fast_ops_" + "a" * 40
    regular = tarfile.REGTYPE
    received = _archive(
        [
            (f"{sub}/fast_ops.map-1.py311.nbi", regular, b"index"),
            (f"{sub}/fast_ops.map-1.py311.1.nbc", regular, b"data"),
            (f"{sub}/../escape.nbi", regular, b"x"),
            (f"../{sub}/up.nbi", regular, b"x"),
            (f"/abs/{sub}.nbi", regular, b"x"),
            (f"{sub}/deeper/k.nbi", regular, b"x"),
            (f"{sub}/notes.txt", regular, b"x"),
            (".hidden/k.nbi", regular, b"x"),
            (f"{sub}/link.nbi", tarfile.SYMTYPE, b""),
            (f"{sub}/hard.nbi", tarfile.LNKTYPE, b""),
            ("top.nbi", regular, b"x"),
        ]
    )
    assert store.receive(received) == 2
    kept = sorted(
        p.relative_to(store.folder).as_posix() for p in store.folder.rglob("*")
    )
    assert kept == [
        sub,
        f"{sub}/fast_ops.map-1.py311.1.nbc",
        f"{sub}/fast_ops.map-1.py311.nbi",
    ]
    assert (store.folder / sub / "fast_ops.map-1.py311.nbi").read_bytes() == b"index"
    assert store.bind() == [(str(store.folder), SubmissionKernels.INSIDE)]

    # More than a job may send is dropped whole, and so is what does not parse.
    big = Received(limit=10)
    big.feed(b"x" * 6)
    big.feed(b"x" * 6)
    assert big.overflow and store.receive(big) == 0
    garbage = Received()
    garbage.feed(b"not a tar stream" * 100)
    assert store.receive(garbage) == 0
    assert store.files == 2


def test_a_job_sends_only_what_it_compiled(tmp_path, monkeypatch):
    """send_compiled_kernels (in the job) sends regular kernel files, never the
    links it was given, and link_submission_kernels links a store back."""
    monkeypatch.setenv("KINDLING_CACHE_DIR", str(tmp_path / "cache"))
    store = tmp_path / "store" / "pkg_1"
    store.mkdir(parents=True)
    (store / "given.nbi").write_bytes(b"given")
    assert link_submission_kernels(str(tmp_path / "store")) == 1
    folder = Path(kernels_root()) / "pkg_1"
    assert (folder / "given.nbi").is_symlink()
    (folder / "new.nbi").write_bytes(b"new")
    (folder / "new.1.nbc").write_bytes(b"data")
    (folder / "k.lock").write_bytes(b"")
    read, write = os.pipe()
    assert send_compiled_kernels(str(write)) == 2
    with os.fdopen(read, "rb") as pipe:
        received = Received()
        received.feed(pipe.read())
    kept = SubmissionKernels(tmp_path / "kept")
    assert kept.receive(received) == 2
    assert sorted(p.name for p in (tmp_path / "kept" / "pkg_1").iterdir()) == [
        "new.1.nbc",
        "new.nbi",
    ]
    assert send_compiled_kernels(None) == 0
