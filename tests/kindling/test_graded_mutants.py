"""Task 0.2's planted mutants come from a generated family the edition lacks.

The practice set (``kindling.mutation.PRACTICE_MUTANTS``) ships in every student
edition; the instructor's grader plants a seeded draw from a family generated from
the reference operators (``kindling_staff/grade_mutants.py``). A test file that
recognises the practice bugs by their text (issue 39: 10/10 with no property at
all) catches only the drawn mutants that read the same.
"""

import ast
import importlib.util
import inspect
import itertools
import math
import random
import types
from pathlib import Path

import pytest

from kindling.grade import grade
from kindling.mutation import (
    PLANTED,
    PRACTICE_MUTANTS,
    TARGET_FILE,
    graded_mutants,
    mutate_source,
)
from kindling.sandbox import probe, why_not
from kindling_staff.grade_mutants import draw, family

ROOT = Path(__file__).resolve().parents[2]
PROPERTIES = "tests/module0/test_properties.py"
TEXT = (ROOT / TARGET_FILE).read_text(encoding="utf-8")
needs_sandbox = pytest.mark.skipif(probe() is None, reason=f"no sandbox: {why_not()}")

# Independent of the generator's own inputs: ordinary, tied, tiny, huge and
# non-finite values of both signs.
VALUES = [0.0, -0.0, 0.3, -0.3, 1.0, -1.0, 2.5, -2.5, 0.01, -0.01, 1e-200, -1e-200]
VALUES += [50.0, -50.0, 800.0, -800.0, 1e300, -1e300, math.inf, -math.inf, math.nan]
TASK_0_1 = (
    "mul id add neg lt eq max is_close sigmoid relu log exp inv sin cos tanh "
    "log_back inv_back relu_back"
).split()


def module_of(text: str, name: str) -> types.ModuleType:
    spec = importlib.util.spec_from_loader(name, loader=None)
    module = importlib.util.module_from_spec(spec)
    exec(compile(text, f"<{name}>", "exec"), module.__dict__)
    return module


def property_tests() -> tuple:
    """The reference property tests of Task 0.2 (``test_*`` functions of
    tests/module0/test_properties.py) and the source of each."""
    import tests.module0.test_properties as properties

    tests = [
        f
        for name, f in inspect.getmembers(properties, inspect.isfunction)
        if name.startswith("test_")
    ]
    return tests, {t: inspect.getsource(t) for t in tests}


def outcome(function, *args):
    try:
        value = function(*args)
    except Exception as error:
        return ("raises", type(error).__name__)
    if isinstance(value, float) and math.isnan(value):
        return ("nan", None)
    return (type(value).__name__, value)


def differ(a, b) -> bool:
    """Outcomes differ beyond rounding (1e-9 relative) and the sign of zero."""
    if a[0] != b[0]:
        return True
    if isinstance(a[1], float) and isinstance(b[1], float):
        return not math.isclose(a[1], b[1], rel_tol=1e-9)
    return a[1] != b[1]


REFERENCE = module_of(TEXT, "reference_operators")
FAMILY = family(TEXT)


def test_the_family_is_large_and_covers_every_operator_of_task_0_1():
    names = [m.name for m in FAMILY]
    assert len(names) == len(set(names)) >= 5 * PLANTED
    functions = {f for m in FAMILY for f in m.bodies}
    assert functions == set(TASK_0_1)
    assert all(len(m.bodies) == 1 and m.bug for m in FAMILY)


@pytest.mark.parametrize("mutant", FAMILY, ids=lambda m: m.name)
def test_no_mutant_of_the_family_is_equivalent_to_the_reference(mutant):
    """Each computes something else than the reference somewhere (not just an
    error's message, not just rounding), and edits its function's body alone."""
    mutated = mutate_source(TEXT, mutant)
    (function,) = mutant.bodies
    before, after = ast.parse(TEXT), ast.parse(mutated)
    for old, new in zip(before.body, after.body):
        if isinstance(old, ast.FunctionDef) and old.name != function:
            assert ast.dump(old) == ast.dump(new)
    ours = getattr(module_of(mutated, mutant.name), function)
    theirs = getattr(REFERENCE, function)
    arity = theirs.__code__.co_argcount
    assert any(
        differ(outcome(ours, *args), outcome(theirs, *args))
        for args in itertools.product(VALUES, repeat=arity)
    ), f"{mutant.name} computes what the reference does"


def test_the_family_has_the_bugs_the_module_0_guide_names():
    """A sigmoid of the wrong scale, a log_back that forgets d, a flipped sign in
    mul, lt and eq's comparisons wrong, a relu that lets negatives through."""

    def behaves(function, expected, args_list) -> bool:
        for mutant in FAMILY:
            if function not in mutant.bodies:
                continue
            module = module_of(mutate_source(TEXT, mutant), mutant.name)
            try:
                got = [getattr(module, function)(*args) for args in args_list]
            except Exception:
                continue
            if all(math.isclose(g, expected(*a)) for g, a in zip(got, args_list)):
                return True
        return False

    xs = [(-3.0,), (-0.5,), (0.7,), (2.0,)]
    pairs = [(-2.0, 3.0), (0.5, 0.5), (1.5, -4.0), (3.0, 2.0)]
    assert behaves("sigmoid", lambda x: 1.0 / (1.0 + math.exp(-2.0 * x)), xs)
    assert behaves("log_back", lambda x, d: 1.0 / x, [(0.5, 3.0), (2.0, -1.0)])
    assert behaves("mul", lambda x, y: -(x * y), pairs)
    assert behaves("lt", lambda x, y: 1.0 if x <= y else 0.0, pairs)
    assert behaves("lt", lambda x, y: 1.0 if y < x else 0.0, pairs)
    assert behaves("neg", lambda x: x, xs)
    assert behaves("relu", lambda x: 0.0 if x > 0.0 else x, xs)
    assert behaves("relu_back", lambda x, d: 1.0 if x > 0.0 else 0.0, pairs)


def test_the_draw_is_a_function_of_the_seed_and_spreads_over_the_operators():
    for seed in (0, 1, 2**32 - 1, 987654321):
        drawn = draw(TEXT, seed)
        assert drawn == draw(TEXT, seed)  # again, in the same process
        assert drawn == graded_mutants(TEXT, seed, True)  # through the entry point
        assert len(drawn) == PLANTED == len({m.name for m in drawn})
        assert {m.name for m in drawn} <= {m.name for m in FAMILY}
        functions = [f for m in drawn for f in m.bodies]
        assert len(set(functions)) == len(functions)  # one per operator
    samples = {tuple(m.name for m in draw(TEXT, seed)) for seed in range(20)}
    assert len(samples) == 20
    # Without the reference (a student edition) the practice set is planted.
    assert graded_mutants(TEXT, 5, False) is PRACTICE_MUTANTS


def test_the_reference_property_tests_kill_the_whole_family(monkeypatch):
    """Whatever the draw, the reference tests earn full marks: each mutant of the
    family makes one of them fail (run here in this process, each mutant's
    function put in place of the operator, the tests of that function first)."""
    import module0_fundamentals.operators as ops

    tests, sources = property_tests()
    survivors = []
    for mutant in FAMILY:
        (function,) = mutant.bodies
        module = module_of(mutate_source(TEXT, mutant), mutant.name)
        calls = f"ops.{function}("
        ordered = sorted(tests, key=lambda t: calls not in sources[t])
        with monkeypatch.context() as patch:
            patch.setattr(ops, function, getattr(module, function))
            for test in ordered:
                try:
                    test()
                except Exception:
                    break
            else:
                survivors.append(mutant.name)
    assert survivors == []


def practice_blacklist() -> str:
    """The attack of issue 39 on the published set: no property; parse the run's
    ``operators.py``, undo the grader's respelling (``_x = E; return _x`` back to
    ``return E``), fail when a function's body is a practice mutant's."""
    bodies = sorted(
        (function, body)
        for mutant in PRACTICE_MUTANTS
        for function, body in mutant.bodies.items()
    )
    return f"""
import ast
import pathlib

import pytest

pytestmark = pytest.mark.task0_2

KNOWN = {bodies!r}


def plain(statements):
    out = []
    for i, node in enumerate(statements):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and i + 1 < len(statements)
            and isinstance(statements[i + 1], ast.Return)
            and isinstance(statements[i + 1].value, ast.Name)
            and statements[i + 1].value.id == node.targets[0].id
        ):
            out.append(ast.Return(node.value))
            continue
        if isinstance(node, ast.Return) and out and isinstance(out[-1], ast.Return):
            continue
        if isinstance(node, ast.If):
            node.body = plain(node.body)
        out.append(node)
    return out


def dump(statements):
    return [ast.dump(s) for s in plain(statements)]


def bodies():
    text = pathlib.Path("module0_fundamentals/operators.py").read_text()
    found = {{}}
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and len(body) > 1:
                body = body[1:]
            found[node.name] = dump(body)
    return found


def test_no_published_bug():
    found = bodies()
    for function, body in KNOWN:
        assert found.get(function) != dump(ast.parse(body).body), function
"""


def recognised(mutant) -> bool:
    """Whether :func:`practice_blacklist` fails on ``mutant`` (same comparison,
    here: a body that is a practice body, by syntax tree)."""
    known = {
        (f, ast.dump(ast.parse(b)))
        for m in PRACTICE_MUTANTS
        for f, b in m.bodies.items()
    }
    return any((f, ast.dump(ast.parse(b))) in known for f, b in mutant.bodies.items())


def test_recognising_the_practice_bugs_catches_few_of_any_draw():
    """Over many seeds, the share of a draw that reads like a practice bug: what
    the blacklist earns (it passes the base and the decoys)."""
    shares = [
        sum(recognised(m) for m in draw(TEXT, seed)) / PLANTED
        for seed in random.Random(39).sample(range(1 << 32), 200)
    ]
    assert max(shares) < 0.5
    assert sum(shares) / len(shares) < 0.25


@pytest.mark.long
@needs_sandbox
def test_a_blacklist_of_the_practice_bugs_earns_well_under_full_marks(
    tmp_path, monkeypatch
):
    """Issue 39: this file scored 10/10, 15 of 15 killed, when the planted mutants
    were the published list. Graded from the instructor source it kills only the
    drawn mutants that read like practice ones."""
    from kindling.grade_values import SEED_ENV

    seed = 20261129
    monkeypatch.setenv(SEED_ENV, str(seed))
    drawn = draw(TEXT, seed)
    student = tmp_path / "submission"
    (student / "tests" / "module0").mkdir(parents=True)
    (student / PROPERTIES).write_text(practice_blacklist())
    (task,) = grade(student, source=ROOT, tasks="0.2").tasks
    assert task.details["planted_from"] == "drawn", task.message
    assert "decoys_failed" not in task.details  # it is not caught as a whitelist
    assert task.details["killed"] == [m.name for m in drawn if recognised(m)]
    assert task.points < 0.5 * task.max_points


def test_an_editions_report_and_the_guide_say_the_bugs_are_practice():
    from kindling.grade_reports import _mutant_lines

    practice = {"killed": ["neg_keeps_sign"], "planted_from": "practice"}
    lines = _mutant_lines("0.2", practice, 15)
    assert lines[0] == "Task 0.2: 1 of 15 planted bugs caught"
    assert "practice bugs" in lines[-1] and "instructor's grader" in lines[-1]
    drawn = {"killed": ["neg_minus_1"], "planted_from": "drawn"}
    assert not any("practice" in line for line in _mutant_lines("0.2", drawn, 15))
    guide = (ROOT / "module0_fundamentals" / "README.md").read_text(encoding="utf-8")
    flat = " ".join(guide.split())
    assert "15 **practice** bugs" in flat
    assert "your instructor's grader plants 15 others, drawn for each grading" in flat
