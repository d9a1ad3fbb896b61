"""The outputs the guides quote are what the code prints.

A ``python`` block of a guide (``README.md``, ``module*/README.md``) that quotes an
output, as ``expression   # tensor(...)`` (a ``repr``, which may go on over the
next comment lines until its brackets close) or ``expression   # ... = 2.5838...``
(a number, digits the value must start with), is run here statement by statement
on the reference solutions, and each quoted expression is compared with what it
evaluates to. The blocks are read from the guides at test time: edit a guide's
example and this test checks the new one.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, Iterator, List, Tuple

import pytest

ROOT = Path(__file__).resolve().parents[2]
GUIDES = [ROOT / "README.md"] + sorted(ROOT.glob("module*/README.md"))
PYTHON = re.compile(r"^```python\n(.*?)^```", re.M | re.S)
#: ``= 2.5838...`` at the end of a comment: the number the value must start with.
NUMBER = re.compile(r"=\s*(-?\d+(?:\.\d+)?)(\.\.\.)?\s*$")


def quoted(block: str) -> Dict[int, Tuple[str, str]]:
    """{1-based line: (kind, text)} for each line of ``block`` quoting an output:
    ``("repr", "tensor([...])")`` or ``("number", "2.5838")``."""
    lines = block.splitlines()
    found: Dict[int, Tuple[str, str]] = {}
    for k, line in enumerate(lines):
        code, _, comment = line.partition("#")
        if not code.strip():
            continue
        comment = comment.strip()
        if comment.startswith("tensor("):
            text = comment
            j = k + 1
            while (
                text.count("(") + text.count("[") > text.count(")") + text.count("]")
                and j < len(lines)
                and lines[j].strip().startswith("#")
            ):
                text += " " + lines[j].strip()[1:].strip()
                j += 1
            depth, end = 0, 0
            for end, char in enumerate(text):  # the repr ends where "(" closes
                depth += char in "(["
                depth -= char in ")]"
                if depth == 0 and char == ")":
                    break
            found[k + 1] = ("repr", text[: end + 1])
        else:
            number = NUMBER.search(comment)
            if number:
                found[k + 1] = ("number", number[1])
    return found


def checked_blocks() -> Iterator[Tuple[str, str]]:
    for guide in GUIDES:
        text = guide.read_text(encoding="utf-8")
        for match in PYTHON.finditer(text):
            if quoted(match[1]):
                line = text.count("\n", 0, match.start()) + 1
                yield f"{guide.relative_to(ROOT).as_posix()}:{line}", match[1]


BLOCKS = list(checked_blocks())


def test_the_guides_quote_outputs_that_this_test_checks():
    # Module 1's backward example and Module 2's tensor example at least.
    places = " ".join(place for place, _ in BLOCKS)
    assert "module1_scalar_autodiff/README.md" in places
    assert "module2_tensors/README.md" in places


def test_the_scan_reads_reprs_over_several_lines_and_numbers():
    block = (
        "y = f(x)\n"
        "y   # tensor([[1.0, 2.0],\n"
        "    #         [3.0, 4.0]])   (a note)\n"
        "z   # dz/dx = 1 + y = 2.58...\n"
        "w = 3  # not an output\n"
    )
    assert quoted(block) == {
        2: ("repr", "tensor([[1.0, 2.0], [3.0, 4.0]])"),
        4: ("number", "2.58"),
    }


def _normal(text: str) -> str:
    return re.sub(r"\s+", "", text)


def mismatches(place: str, block: str) -> List[str]:
    """Run ``block`` statement by statement; one line for each quoted output that
    is not what its expression gives."""
    expected = quoted(block)
    namespace: dict = {}
    found: List[str] = []
    for statement in ast.parse(block).body:
        if isinstance(statement, ast.Expr) and statement.lineno in expected:
            kind, text = expected[statement.lineno]
            code = compile(ast.Expression(statement.value), place, "eval")
            value = eval(code, namespace)
            got = repr(value) if kind == "repr" else repr(float(value))
            ok = (
                _normal(got) == _normal(text)
                if kind == "repr"
                else got.startswith(text) or float(got) == float(text)
            )
            if not ok:
                source = ast.get_source_segment(block, statement)
                found.append(f"{source}: the guide says {text}, the code gives {got}")
        else:
            exec(compile(ast.Module([statement], []), place, "exec"), namespace)
    return found


@pytest.mark.parametrize("place, block", BLOCKS, ids=[p for p, _ in BLOCKS])
def test_each_quoted_output_is_what_the_code_prints(place: str, block: str):
    # In a fresh interpreter, as a student pastes it: this process may have
    # imported Module 3 (which changes the default backend a repr shows).
    script = (
        "import json, sys\n"
        "from tests.kindling.test_guide_outputs import mismatches\n"
        "place, block = json.loads(sys.stdin.read())\n"
        "print(json.dumps(mismatches(place, block)))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "KINDLING_BACKEND"}
    run = subprocess.run(
        [sys.executable, "-c", script],
        input=json.dumps([place, block]),
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    found = json.loads(run.stdout.strip().splitlines()[-1])
    assert found == [], f"{place}: " + "; ".join(found)
