"""The library's layers (COURSE_DESIGN §4a), measured by ``kindling layers``: no
import cycle, counting every import (function-level ones too, not those under
``TYPE_CHECKING``); an engine folder imports no file that students edit; Module 4
is one stack with ``nn`` as its facade; files export only what they define. These
tests belong to no task."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path
from typing import Dict, Iterator, Tuple

from kindling.cli import main
from kindling_staff.layers import (
    defined_names,
    engine_violations,
    import_edges,
    imports,
    library_files,
    measure,
    re_exports,
    strongly_connected,
)

ROOT = Path(__file__).resolve().parents[2]

REGISTRY = """\
[[task]]
id = "2.1"
title = "t"
points = 1
files = ["module2_toy/student.py"]
"""


def _tree(tmp_path: Path, files: Dict[str, str]) -> Path:
    for relative, text in files.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    (tmp_path / "kindling").mkdir(exist_ok=True)
    (tmp_path / "kindling" / "tasks.toml").write_text(REGISTRY, encoding="utf-8")
    return tmp_path


def test_the_library_has_no_import_cycles_counting_every_import():
    layers = measure(ROOT)
    edges = [f"{a}:{line} -> {b}" for a, line, b in layers.cycle_edges]
    assert layers.cycles == [], "\n".join(edges)


def test_no_library_file_or_class_is_over_600_lines():
    """The contract's size limit (one home per concept, no class or file over 600
    lines): a file that grows past it is split by concept, not left to grow."""
    layers = measure(ROOT)
    assert layers.largest_file[1] <= 600, layers.largest_file
    assert layers.largest_class[2] <= 600, layers.largest_class


def test_no_engine_folder_imports_a_student_file():
    assert engine_violations(ROOT, library_files(ROOT)) == []


def test_module4_is_one_stack_with_nn_as_its_facade():
    files = library_files(ROOT)
    edges = import_edges(ROOT, files)
    graph = {name: {target for target, _ in found} for name, found in edges.items()}
    m = "module4_networks."
    later = ("layers", "recurrent", "attention", "transformer")
    facades = {m + "nn", m + "nn.functional"}
    # nn and nn.functional are packages whose __init__ only assembles names: no
    # module of the library imports them back (the package's facade may).
    for name, path in files.items():
        if path.name != "__init__.py":
            assert not facades & {target for target, _ in imports(ROOT, path)}, name
    assert {m + x for x in later} <= {t for t, _ in imports(ROOT, files[m + "nn"])}
    assert m + "attention" not in graph[m + "functional"]


def test_teaching_files_export_only_what_they_define():
    """A name is listed in the ``__all__`` of the file that defines it; each
    package's ``__init__`` is the one facade that assembles names from several
    files (issue 38: a file re-exporting what it imports moves lines, and hides
    where a name lives)."""
    assert measure(ROOT).re_exports == {}


def _from_imports(tree: ast.AST) -> Iterator[Tuple[ast.ImportFrom, str]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            yield from ((node, alias.name) for alias in node.names)


def test_the_library_imports_each_name_from_the_module_that_defines_it():
    """``from m import name`` in the library, where ``m`` is a module (not a
    package's facade), names what ``m`` defines or a submodule: never a name
    ``m`` itself imports from the library. A third-party name a module
    configures (``numba.cuda`` after ``_cuda_runtime`` chose the simulator or a
    GPU) may still be taken from it."""
    files = library_files(ROOT)
    trees = {name: ast.parse(path.read_text("utf-8")) for name, path in files.items()}
    third_party = {
        name: {
            n
            for node, n in _from_imports(tree)
            if node.module
            and not node.level
            and node.module.split(".")[0] not in {f.split(".")[0] for f in files}
        }
        for name, tree in trees.items()
    }
    through = []
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node, imported in _from_imports(trees[name]):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            if (
                imported == "*"
                or base not in files
                or files[base].name == "__init__.py"
            ):
                continue
            if (
                imported in defined_names(trees[base])
                or f"{base}.{imported}" in files
                or imported in third_party[base]
            ):
                continue
            through.append(f"{name}:{node.lineno} imports {imported} through {base}")
    assert through == [], "\n".join(through)


def test_a_function_level_import_makes_a_cycle_and_type_checking_does_not(
    tmp_path,
):
    root = _tree(
        tmp_path,
        {
            "module2_toy/__init__.py": "from .a import f\n",
            "module2_toy/a.py": """\
                from typing import TYPE_CHECKING

                if TYPE_CHECKING:
                    from .c import C

                def f():
                    from .b import g  # at call time: still an edge

                    return g()
                """,
            "module2_toy/b.py": "from . import a\n\n\ndef g():\n    return 1\n",
            "module2_toy/c.py": "from .a import f\n\n\nclass C:\n    pass\n",
        },
    )
    layers = measure(root)
    assert layers.cycles == [["module2_toy.a", "module2_toy.b"]]
    assert ("module2_toy.a", 7, "module2_toy.b") in layers.cycle_edges
    assert all(b != "module2_toy.c" for _, _, b in layers.cycle_edges)


def test_strongly_connected_components_of_a_graph():
    graph = {"p.a": {"p.b"}, "p.b": {"p.c"}, "p.c": {"p.a", "p.d"}, "p.d": set()}
    assert strongly_connected(graph) == [["p.a", "p.b", "p.c"]]
    assert strongly_connected({"p.a": {"p.b"}, "p.b": set()}) == []


def test_an_engine_importing_a_student_file_or_its_facade_is_found(tmp_path):
    root = _tree(
        tmp_path,
        {
            "module2_toy/__init__.py": "from .student import s\n",
            "module2_toy/student.py": "def s():\n    return 1\n",
            "module2_toy/engine/__init__.py": "",
            "module2_toy/engine/ok.py": "from . import rules\nfrom .. import engine\n",
            "module2_toy/given.py": "from .student import s\n",
            "module2_toy/engine/through.py": "import math\n\nfrom .. import given\n",
            "module2_toy/engine/rules.py": """\
                def late():
                    from ..student import s

                    return s
                def facade():
                    from module2_toy import s

                    return s
                """,
        },
    )
    found = engine_violations(root, library_files(root))
    assert found == [
        ("module2_toy.engine.rules", 2, "module2_toy.student"),
        ("module2_toy.engine.rules", 6, "module2_toy.student"),
        ("module2_toy.engine.through", 3, "module2_toy.student"),
    ]


def test_re_exports_are_names_in_all_that_a_file_does_not_define(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(
        "from os import sep, path\n\nX = 1\n\n\ndef f():\n    pass\n\n\n"
        '__all__ = ["X", "f", "sep", "path"]\n',
        encoding="utf-8",
    )
    assert re_exports(path) == ["sep", "path"]


def test_the_command_prints_every_figure(capsys):
    assert main(["layers", "--source", str(ROOT)]) == 0
    out = capsys.readouterr().out
    for figure in (
        "import cycles (every import): ",
        "largest class: ",
        "largest file: ",
        "names re-exported by files that do not define them: ",
        "library code lines (module0-4): ",
        "engine imports of student files: ",
    ):
        assert figure in out


def test_a_times_b_and_its_backward_run_through_few_library_files():
    """``kindling layers --trace-mul`` (issue 38, item 2: at most 6 files). The
    operator, the engine's apply and backward pass, the student's Mul and
    backpropagate, the kernel wrapper and the layout it allocates with: no
    property of another file (``tensor_api/core.py``), no Context of Module 1,
    no tensor method between the user's ``backward``, backpropagate and the
    engine."""
    from kindling_staff.call_path import format_trace, measure

    forward, backward = measure(ROOT)
    files = set(forward.files) | set(backward.files)
    assert files <= {
        "module2_tensors/tensor_api/arithmetic.py",
        "module2_tensors/engine/autograd.py",
        "module2_tensors/engine/layout.py",
        "module2_tensors/tensor_functions.py",
        "module1_scalar_autodiff/autodiff.py",
        "module3_fast_ops/_dispatch.py",
    }, sorted(files)
    assert len(files) <= 6
    # Module 1's backward pass reaches the engine's protocol directly.
    walked = {hop[2:] for hop in backward.hops if hop[0].endswith("autodiff.py")}
    assert {f for f, _ in walked} == {"module2_tensors/engine/autograd.py"}
    assert {"is_leaf", "parents", "chain_rule", "accumulate_derivative"} <= {
        fn for _, fn in walked
    }
    report = format_trace([forward, backward])
    assert f"files, both phases: {len(files)}: " in report
    assert f"forward / backward: {len(forward.hops)} / {len(backward.hops)}" in report
