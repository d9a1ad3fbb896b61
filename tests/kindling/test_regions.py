"""Solution regions: parsing, stubbing, and rejection of malformed markers."""

import ast
import textwrap

import pytest

from kindling.registry import load_registry
from kindling.regions import RegionError, keep_solution_imports, strip_regions

REGISTRY = load_registry()


def strip(source: str) -> str:
    return strip_regions(textwrap.dedent(source), "f.py", REGISTRY)[0]


def test_region_becomes_a_stub_at_its_indentation():
    out = strip('''
        def mul(x: float, y: float) -> float:
            """Multiply."""
            # BEGIN SOLUTION 0.1
            return x * y
            # END SOLUTION
        ''')
    assert "return x * y" not in out
    assert "    # TODO: Task 0.1\n" in out
    assert '    raise NotImplementedError("Task 0.1: implement mul")\n' in out
    namespace = {}
    exec(compile(out, "f.py", "exec"), namespace)
    with pytest.raises(NotImplementedError, match=r"^Task 0\.1: implement mul$"):
        namespace["mul"](2.0, 3.0)


def test_hint_after_colon_is_the_message_and_methods_are_named():
    out = strip("""
        class Module:
            def train(self):
                # BEGIN SOLUTION 0.4: set training on every module
                self.training = True
                # END SOLUTION
        """)
    assert 'NotImplementedError("Task 0.4: set training on every module")' in out


def test_long_messages_use_blacks_layout_and_stay_within_88_columns():
    hint = "a very long explanation " * 6
    out = strip(f"""
        def f():
            if True:
                # BEGIN SOLUTION 2.3: {hint}
                pass
                # END SOLUTION
        """)
    assert all(len(line) <= 88 for line in out.splitlines())
    assert "raise NotImplementedError(\n" in out
    ast.parse(out)


def test_imports_only_the_solution_used_stay_marked_noqa():
    out = strip("""
        import math
        from typing import Callable, List


        def f(xs: List[float]) -> float:
            \"\"\"Sum with math.fsum (a docstring mention is not a use).\"\"\"
            # BEGIN SOLUTION 0.3
            return math.fsum(xs)
            # END SOLUTION
        """)
    assert "import math  # noqa: F401\n" in out
    # Callable was unused before the release too: not the release's business.
    assert "from typing import Callable, List\n" in out


def test_imports_still_used_are_left_alone():
    original = "import math\n\n\ndef f():\n    return math.pi\n"
    assert keep_solution_imports(original, original) == original


@pytest.mark.parametrize(
    "source, message",
    [
        ("# BEGIN SOLUTION 0.1\nx = 1\n", "never closed"),
        ("x = 1\n# END SOLUTION\n", "without BEGIN"),
        (
            "# BEGIN SOLUTION 0.1\n# BEGIN SOLUTION 0.1\n# END SOLUTION\n",
            "do not nest",
        ),
        ("# BEGIN SOLUTION 9.9\n# END SOLUTION\n", "unknown task '9.9'"),
        ("# BEGIN SOLUTION 0.1 oops\n# END SOLUTION\n", "malformed marker"),
        ("# BEGIN SOLUTION\n# END SOLUTION\n", "malformed solution marker"),
        (
            "def f():\n    # BEGIN SOLUTION 0.1\n    pass\n# END SOLUTION\n",
            "indentation",
        ),
    ],
)
def test_malformed_regions_are_rejected_with_file_and_line(source, message):
    with pytest.raises(RegionError, match=message) as info:
        strip_regions(source, "pkg/f.py", REGISTRY)
    assert str(info.value).startswith("pkg/f.py:")
