"""The module guides (``module*/README.md``) agree with the course's tools."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GUIDES = sorted(ROOT.glob("module*/README.md"))

FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```", re.M | re.S)
INLINE = re.compile(r"(?<!`)`([^`]+)`(?!`)")
#: A command that starts with a tool PATH must find: without an activated
#: environment it is another Python's, or nothing ("Error importing plugin
#: xdist.plugin" tells a beginner nothing). The edition README writes
#: ``.venv/bin/python -m pytest``, ``.venv/bin/kindling``: so must the guides.
BARE = re.compile(r"^(?:\$\s*)?(pytest|python3?|kindling|streamlit|pip)\s+[-\w\"'.]")
SHELL = {"", "bash", "sh", "shell", "console"}


def commands(text: str):
    """``(line number, command)`` for every line of a shell block and every inline
    code span of the prose (headings left out: they name tools, not commands)."""
    spans = []
    for block in FENCE.finditer(text):
        start = text.count("\n", 0, block.start()) + 2
        spans.append((block.start(), block.end()))
        if block[1].strip() in SHELL:
            for k, line in enumerate(block[2].splitlines()):
                yield start + k, line.strip()
    for code in INLINE.finditer(text):
        if any(a <= code.start() < b for a, b in spans):
            continue
        line_start = text.rfind("\n", 0, code.start()) + 1
        if text[line_start:].startswith("#"):
            continue
        yield text.count("\n", 0, code.start()) + 1, " ".join(code[1].split())


@pytest.mark.parametrize("guide", GUIDES, ids=lambda p: p.parent.name)
def test_every_command_in_a_guide_names_the_course_environment(guide):
    bare = [
        f"{guide.parent.name}/README.md:{number}: {command}"
        for number, command in commands(guide.read_text(encoding="utf-8"))
        if BARE.match(command)
    ]
    assert bare == [], "write .venv/bin/python -m pytest, .venv/bin/kindling, ..."


def test_the_scan_finds_bare_commands():
    text = (
        "Check: `pytest -m task0_1`.\n\n```bash\nkindling bench\n```\n\n"
        "```python\npython = 3\n```\n\n### `kindling kernels`\n"
        "Then `.venv/bin/python -m pytest -m task0_1`; output: `kindling: compiled`.\n"
    )
    found = [c for _, c in commands(text) if BARE.match(c)]
    assert found == ["kindling bench", "pytest -m task0_1"]


def test_the_stub_line_in_the_plugins_example_is_the_editions():
    # The example names the line where the edition's neg stub raises: derived here
    # from the source, as `kindling release` cuts it.
    from kindling.regions import strip_regions
    from kindling.registry import load_registry

    name = "module0_fundamentals/operators.py"
    edition, _ = strip_regions(
        (ROOT / name).read_text(encoding="utf-8"), name, load_registry()
    )
    line = next(
        k
        for k, text in enumerate(edition.splitlines(), start=1)
        if '"Task 0.1: implement neg"' in text
    )
    example = f"Task 0.1: implement neg — {name}:{line}"
    plugin = (ROOT / "kindling" / "pytest_plugin.py").read_text(encoding="utf-8")
    assert plugin.count(example) == 2, example
    for readme in ("README.md", "kindling_staff/templates/STUDENT_README.md"):
        text = (ROOT / readme).read_text(encoding="utf-8")
        assert example in text, readme


def test_the_module_3_guide_names_the_extra_that_holds_nvidias_compilers():
    """``kindling kernels`` and the resource tests need NVIDIA's compiler wheels:
    the guide names the extra that installs them, and it is that extra."""
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
        "project"
    ]["optional-dependencies"]

    def names(extra):
        return {re.split(r"[<>=;\[ ]", r, maxsplit=1)[0] for r in extras[extra]}

    assert "nvidia-cuda-nvcc-cu12" in names("cuda")
    assert "nvidia-cuda-nvcc-cu12" not in names("dev")
    guide = " ".join((ROOT / "module3_fast_ops" / "README.md").read_text().split())
    assert "in the `cuda` extra" in guide and 'pip install -e ".[cuda]"' in guide
    assert "`dev` extra" not in guide


def test_the_module_3_guide_says_which_tasks_module_2s_backend_variants_grade():
    """The guide: Module 2's tensor tests run again under Task 3.1 (fast), none of
    them under Task 3.3 (their CUDA variants multiply matrices: Task 3.4)."""
    import subprocess
    import sys

    def collected(marker):
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0"]
            + ["-m", marker, "tests/module2"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        return [line for line in run.stdout.splitlines() if "::" in line]

    assert collected("task3_3") == []
    cuda = collected("task3_4")
    assert cuda and all(line.endswith("[cuda]") for line in cuda)
    assert any(line.endswith("[fast]") for line in collected("task3_1"))
    guide = " ".join((ROOT / "module3_fast_ops" / "README.md").read_text().split())
    assert "Task 3.3 is graded by this module's CUDA tests alone" in guide
