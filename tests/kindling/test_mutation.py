"""Task 0.2 is graded by mutation: the property tests must catch planted bugs."""

import ast
import importlib.util
import math
import re
import types
from pathlib import Path

import pytest

from kindling.grade import grade
from kindling.mutation import (
    PRACTICE_MUTANTS,
    TARGET_FILE,
    graded_mutants,
    mutate_source,
    reference_available,
)
from kindling_staff.release import release
from kindling.sandbox import probe, why_not
from tests.kindling.editions import plant_few_mutants

ROOT = Path(__file__).resolve().parents[2]
PROPERTIES = "tests/module0/test_properties.py"
PROBES = [-1000.0, -3.5, -1.0, -0.25, 0.0, 0.5, 1.0, 2.0, 7.25, 1000.0]
needs_sandbox = pytest.mark.skipif(probe() is None, reason=f"no sandbox: {why_not()}")


def operators_from(text: str, name: str) -> types.ModuleType:
    """A module of its own built from ``text``, shared with nothing."""
    spec = importlib.util.spec_from_loader(name, loader=None)
    module = importlib.util.module_from_spec(spec)
    exec(compile(text, f"<{name}>", "exec"), module.__dict__)
    return module


def outcome(function, *args):
    try:
        value = function(*args)
    except (ArithmeticError, ValueError) as error:
        return type(error).__name__
    return "nan" if isinstance(value, float) and math.isnan(value) else value


def grade_properties(tmp_path: Path, text: str):
    """Grade a submission that holds only ``tests/module0/test_properties.py``."""
    submission = tmp_path / "submission"
    (submission / "tests" / "module0").mkdir(parents=True)
    (submission / PROPERTIES).write_text(text)
    (task,) = grade(submission, source=ROOT, tasks="0.2").tasks
    return task


def test_the_practice_set_holds_at_least_eight_realistic_mutants():
    names = [m.name for m in PRACTICE_MUTANTS]
    assert len(names) >= 8 and len(set(names)) == len(names)
    for bug in ("neg_keeps_sign", "sigmoid_negative_branch", "relu_leaks_negatives"):
        assert bug in names
    assert "lt_eq_swapped" in names and all(m.bug for m in PRACTICE_MUTANTS)


def test_the_mutants_the_module_0_guide_promises_are_in_the_practice_set():
    """The guide's section on Task 0.2 names bugs of the kinds the grader plants:
    each is in the practice set (a wrong-scale sigmoid that only its slope gives
    away, a log_back that forgets d, a flipped sign in mul, ...); the graded
    family has them too (test_graded_mutants.py)."""
    guide = (ROOT / "module0_fundamentals" / "README.md").read_text(encoding="utf-8")
    names = {m.name for m in PRACTICE_MUTANTS}
    promised = {
        "a flipped sign in `mul`": "mul_flips_sign",
        "`lt` and `eq` swapped": "lt_eq_swapped",
        "wrong branch for negative inputs": "sigmoid_negative_branch",
        "overflows": "sigmoid_overflows",
        "(`0.01 * x`)": "relu_leaks_negatives",
        "a `log_back` that forgets `d`": "log_back_forgets_d",
        "only its slope gives it away": "sigmoid_wrong_scale",
    }
    flat = " ".join(guide.split())
    for phrase, mutant in promised.items():
        assert phrase in flat, f"the guide no longer says {phrase!r}: update this test"
        assert mutant in names, f"the guide promises {phrase!r}; no mutant {mutant}"


@pytest.mark.parametrize("mutant", PRACTICE_MUTANTS, ids=lambda m: m.name)
def test_every_mutant_really_changes_the_operators(mutant):
    text = (ROOT / TARGET_FILE).read_text()
    correct = operators_from(text, "correct_ops")
    mutated = operators_from(mutate_source(text, mutant), "mutated_ops")
    changed = []
    for name in mutant.bodies:
        two = ("add", "mul", "lt", "eq", "max", "relu_back", "log_back", "inv_back")
        arity = 2 if name in two else 1
        pairs = (
            [(x,) for x in PROBES]
            if arity == 1
            else [(x, y) for x in PROBES for y in PROBES]
        )
        for args in pairs:
            if outcome(getattr(correct, name), *args) != outcome(
                getattr(mutated, name), *args
            ):
                changed.append((name, args))
    assert changed, f"{mutant.name} behaves like the reference on every probe"


@pytest.mark.parametrize("mutant", PRACTICE_MUTANTS, ids=lambda m: m.name)
def test_a_mutant_edits_only_the_bodies_of_its_functions(mutant):
    # Docstrings, signatures, comments and every other function stay as they are,
    # and callers inside the module (neg_list calls neg) see the bug.
    text = (ROOT / TARGET_FILE).read_text()
    mutated = mutate_source(text, mutant)
    before, after = ast.parse(text), ast.parse(mutated)
    functions = {n.name: n for n in before.body if isinstance(n, ast.FunctionDef)}
    for node in after.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        old = functions[node.name]
        assert ast.get_docstring(node) == ast.get_docstring(old)
        assert ast.dump(node.args) == ast.dump(old.args)
        if node.name not in mutant.bodies:
            assert ast.dump(node) == ast.dump(old)
    assert mutated.count("# BEGIN SOLUTION") == text.count("# BEGIN SOLUTION")
    if mutant.name == "neg_keeps_sign":
        module = operators_from(mutated, "mutated_neg")
        assert module.neg_list([1.0, -2.0]) == [1.0, -2.0]


@pytest.mark.long
@needs_sandbox
def test_the_reference_property_tests_kill_every_mutant(monkeypatch):
    """From the instructor source the grader plants its draw from the family (a
    fixed seed here, as a batch shares one): the reference tests kill them all."""
    from kindling.grade_values import SEED_ENV

    monkeypatch.setenv(SEED_ENV, "20261129")
    text = (ROOT / TARGET_FILE).read_text()
    drawn = graded_mutants(text, 20261129, True)
    assert len(drawn) == len(PRACTICE_MUTANTS)
    assert not {m.name for m in drawn} & {m.name for m in PRACTICE_MUTANTS}
    report = grade(ROOT, source=ROOT, tasks="0.2")
    (task,) = report.tasks
    assert task.status == "done", task.message
    assert task.points == task.max_points == 10
    assert task.details["planted_from"] == "drawn"
    assert task.details["killed"] == [m.name for m in drawn]
    assert task.details["survived"] == []
    assert report.values_seed == 20261129


@needs_sandbox
def test_an_empty_test_file_scores_zero(tmp_path):
    task = grade_properties(tmp_path, "")
    assert task.status == "failing" and task.points == 0
    assert "no test marked task0_2" in task.message


ALWAYS_PASS = """
import pytest
from hypothesis import given, strategies as st

from module0_fundamentals import operators as ops

pytestmark = pytest.mark.task0_2


def test_nothing():
    assert True


@given(st.floats(-10, 10))
def test_calls_but_checks_nothing(x):
    ops.sigmoid(x)
    ops.add(x, ops.neg(x))
"""


@needs_sandbox
def test_tests_that_always_pass_score_zero(tmp_path, monkeypatch):
    planted = plant_few_mutants(monkeypatch)
    task = grade_properties(tmp_path, ALWAYS_PASS)
    assert task.status == "failing" and task.points == 0
    assert task.details["killed"] == []
    assert task.details["survived"] == [m.name for m in planted]
    assert f"caught 0 of {len(planted)} planted bugs" in task.message
    assert "relu lets negative inputs through" in task.message


ONE_BUG = """
import pytest

from module0_fundamentals import operators as ops


@pytest.mark.task0_2
def test_neg_flips_the_sign():
    assert ops.neg(2.0) == -2.0
"""


@needs_sandbox
def test_each_caught_bug_earns_its_share_of_the_points(tmp_path, monkeypatch):
    planted = plant_few_mutants(monkeypatch)
    task = grade_properties(tmp_path, ONE_BUG)
    assert task.details["killed"] == ["neg_keeps_sign"]
    assert task.points == round(10 / len(planted), 2)
    assert task.status == "failing"


WRONG = """
import pytest

from module0_fundamentals import operators as ops


@pytest.mark.task0_2
def test_wrong_property():
    assert ops.add(1.0, 1.0) == 3.0
"""


@needs_sandbox
def test_tests_that_fail_on_correct_operators_score_zero(tmp_path):
    task = grade_properties(tmp_path, WRONG)
    assert task.status == "failing" and task.points == 0
    assert "must pass on correct operators" in task.message
    assert "test_wrong_property" in task.message


@needs_sandbox
def test_in_an_edition_the_students_own_operators_must_be_done_first(tmp_path):
    # A student edition has no reference operators: the student's own are the base
    # of the mutants, so solved property tests are blocked while Task 0.1 is a stub.
    edition = tmp_path / "edition"
    release(ROOT, edition, through=0)
    assert not reference_available(edition) and reference_available(ROOT)
    (edition / PROPERTIES).write_text((ROOT / PROPERTIES).read_text())
    (task,) = grade(edition, source=edition, tasks="0.2").tasks
    assert task.status == "blocked-by 0.1", task.message
    assert task.points == 0


def test_neither_the_decoys_nor_the_graded_mutants_reach_a_student_edition(tmp_path):
    """``kindling.mutation.DECOYS`` shipped in every edition: a test that failed on
    any rewritten body not in that list scored 10/10 with no property at all. So
    did the planted mutants (``MUTANTS``, now the practice set): a test that failed
    on their bodies. An edition has the practice set only."""
    from kindling import plugins
    from kindling_staff.grade_decoys import family

    everything = family((ROOT / TARGET_FILE).read_text(encoding="utf-8"))
    assert len(everything) >= 2  # the instructor source has them
    assert plugins.load(plugins.GRADING, "decoys") is not None  # and their draw
    assert plugins.load(plugins.GRADING, "mutants") is not None  # and the family
    out = tmp_path / "edition"
    release(ROOT, out, through=0)
    shipped = [path for path in out.rglob("*.py")]
    assert not (out / "kindling" / "grade_decoys.py").exists()
    assert not (out / "kindling_staff").exists()
    assert not [p for p in shipped if p.name in ("grade_mutants.py", "grade_decoys.py")]
    assert not plugins._declared(plugins.GRADING, out / "pyproject.toml")
    pyproject = (out / "pyproject.toml").read_text(encoding="utf-8")
    assert "grade_mutants" not in pyproject and "grade_decoys" not in pyproject
    bodies = {body for decoy in everything for body in decoy.bodies.values()}
    for path in shipped:
        text = path.read_text(encoding="utf-8")
        assert not any(body in text for body in bodies), path
        assert "NOT_ASKED" not in text and "def draw(" not in text, path
        # no generator of decoys (its rules and its exactness check)
        assert "EXPRESSION_RULES" not in text and "def family_of(" not in text, path


def test_the_base_run_carries_the_reference_operators_and_no_other_reference(
    tmp_path,
):
    from kindling.grade import read_registry
    from kindling.mutation import base_tree

    registry = read_registry(ROOT)
    (task,) = [t for t in registry if t.id == "0.2"]
    work, tree = tmp_path / "work", tmp_path / "tree"
    files = [TARGET_FILE, "module0_fundamentals/module.py", PROPERTIES]
    files += ["kindling/grade_decoys.py", "tests/module0/test_shape_sum.py"]
    files += ["tests/module0/test_extra_hidden.py", "kindling/tasks.toml"]
    for root in (work, tree):
        for relative in files:
            (root / relative).parent.mkdir(parents=True, exist_ok=True)
            (root / relative).write_text("# the student's, or the pristine tree's\n")
    shipped = {TARGET_FILE, "module0_fundamentals/module.py", PROPERTIES}
    shipped.add("kindling/tasks.toml")
    base_tree(tree, work, ROOT, task, registry, shipped)
    kept = sorted(p.relative_to(tree).as_posix() for p in tree.rglob("*.py"))
    assert kept == sorted([TARGET_FILE, "module0_fundamentals/module.py", PROPERTIES])
    assert (tree / TARGET_FILE).read_text() == (ROOT / TARGET_FILE).read_text()
    module = (tree / "module0_fundamentals/module.py").read_text()
    assert "NotImplementedError" in module and "BEGIN SOLUTION" not in module
    assert (
        tree / PROPERTIES
    ).read_text() == "# the student's, or the pristine tree's\n"


# A property-free "test" that carries, in the id of a failing parametrised test,
# base64-encoded lines of every reference file it can read in the base run (the
# failure message took them into the JSON, Markdown and Gradescope reports).
CARRIER = """
import base64
import glob

import pytest

pytestmark = pytest.mark.task0_2


def _payload():
    lines = []
    for path in sorted(glob.glob("module0_fundamentals/*.py")):
        for line in open(path).read().splitlines():
            if line.strip() and not line.lstrip().startswith(("#", '"')):
                lines.append(line)
    text = "\\n".join(lines[-400:])
    return base64.b64encode(text.encode()).decode()[:3000]


@pytest.mark.parametrize("carried", [_payload()], ids=lambda value: value)
def test_carries_the_reference(carried):
    raise ValueError(carried)
"""


@needs_sandbox
def test_the_base_runs_feedback_names_only_the_students_own_tests(tmp_path):
    import base64
    import re
    import shutil

    # A Module 0 source (the grader collects its tests in a moment).
    source = tmp_path / "source"
    skipped = (".git", ".venv", "__pycache__", "module[1-9]*", "project")
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*skipped))
    student = tmp_path / "submission"
    (student / "tests" / "module0").mkdir(parents=True)
    (student / PROPERTIES).write_text(CARRIER)
    (task,) = grade(student, source=source, tasks="0.2").tasks
    assert task.status == "failing" and task.points == 0
    reference_lines = set()
    for name in ("operators.py", "module.py", "datasets.py", "manual_classifier.py"):
        text = (ROOT / "module0_fundamentals" / name).read_text()
        stub = (student / name).read_text() if (student / name).exists() else ""
        reference_lines |= {
            line.strip()
            for line in text.splitlines()
            if len(line.strip()) > 12 and line not in stub
        }
    for token in re.findall(r"[A-Za-z0-9+/=]{16,}", task.message):
        try:
            decoded = base64.b64decode(token + "==").decode("utf-8", "replace")
        except ValueError:
            continue
        assert not any(line in decoded for line in reference_lines), decoded
    assert "test_carries_the_reference: ValueError" in task.message, task.message
    assert "[" not in task.message  # no parameter id


def test_a_tampered_mutant_run_quotes_no_node_id():
    from kindling.grade_runner import Run, parse_events
    from kindling.mutation import mutant_verdict, tampered_message

    forged = "tests/module0/test_properties.py::test_a[cmV0dXJuIHggKiB5]"
    data = (
        b'{"event": "report", "nodeid": "' + forged.encode() + b'", "when": "call",'
        b' "outcome": "passed"}\n{"event": "finish", "exitstatus": 0}\n'
    )
    run = Run(0, False, 1.0, "", parse_events(data))
    verdict = mutant_verdict(run, ["tests/module0/test_properties.py::test_b"])
    assert verdict.startswith("tampered: ") and forged in verdict
    message = tampered_message(verdict[len("tampered: ") :])
    assert "never collected" in message and "cmV0" not in message


def test_respelling_changes_every_one_line_return_and_nothing_computed():
    import random

    from kindling.mutation import respelled

    text = (ROOT / TARGET_FILE).read_text()
    again = respelled(text, random.Random(0))
    assert again != respelled(text, random.Random(1))  # fresh names every run
    assert len(again.splitlines()) == len(text.splitlines())  # line numbers stay
    spelled_form = re.compile(r"^\s*(_[a-z]{6}) = .+; return \1$")
    returns = [line for line in again.splitlines() if line.strip().startswith("return")]
    assert not [line for line in returns if line.strip() != "return"]
    assert any(spelled_form.match(line) for line in again.splitlines())
    original = operators_from(text, "original")
    rewritten = operators_from(again, "rewritten")
    for name in ("neg", "sigmoid", "relu", "inv", "exp", "log", "tanh"):
        for x in PROBES:
            expected = outcome(getattr(original, name), x)
            assert outcome(getattr(rewritten, name), x) == expected
    for name in ("add", "mul", "lt", "eq", "max", "log_back", "inv_back", "relu_back"):
        for x in PROBES:
            expected = outcome(getattr(original, name), x, 1.5)
            assert outcome(getattr(rewritten, name), x, 1.5) == expected
    assert respelled("def f(:\n", random.Random(0)) == "def f(:\n"  # not Python


def test_every_decoy_computes_exactly_what_the_reference_does():
    """A decoy wrong for any float would cost an honest suite its points."""
    import itertools
    import struct

    from kindling.mutation import decoys
    from kindling_staff.grade_decoys import family

    floats = [0.0, -0.0, 1.5, -1.5, 3.0, -2.25, 1e308, -1e308, 5e-324, -5e-324]
    floats += [math.inf, -math.inf, math.nan, 1e-300, 7.0e15]

    def bits(value):
        if isinstance(value, float):
            return "nan" if math.isnan(value) else struct.pack("<d", value)
        return value

    text = (ROOT / TARGET_FILE).read_text()
    reference = operators_from(text, "reference")
    drawn = decoys(text, 39, True)
    assert len(drawn) == 2 and all(d in family(text) for d in drawn)
    assert decoys(text, 39, False) == ()  # no reference: no decoys
    for decoy in drawn + family(text)[::40]:
        (function,) = decoy.bodies
        module = operators_from(mutate_source(text, decoy), decoy.name)
        ours, theirs = getattr(module, function), getattr(reference, function)
        arity = ours.__code__.co_argcount
        for args in itertools.product(floats, repeat=arity):
            assert bits(outcome(ours, *args)) == bits(outcome(theirs, *args)), (
                decoy.name,
                args,
            )


# The strongest reader of code (issue 39): it knows the reference operators and
# the kinds of bug the guide names, so it holds the body of every mutant of the
# generated family, and fails wherever operators.py has one (undoing the
# respelling). No property is checked. When each run's operators.py was its own
# code, this killed every planted mutant and passed the base and the decoys.
READER = """
import ast
import re

import pytest

pytestmark = pytest.mark.task0_2
BLACKLIST = BLACKLIST_HERE
SPELLED = re.compile(r"^(\\s*)(_[a-z]{6}) = (.*); return \\2$")


def _bodies(text):
    lines = text.splitlines()
    for node in ast.parse(text).body:
        if not isinstance(node, ast.FunctionDef):
            continue
        statements = node.body
        first = statements[0]
        if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str) and len(statements) > 1):
            statements = statements[1:]
        indent = statements[0].col_offset
        body = [line[indent:] if line.strip() else ""
                for line in lines[statements[0].lineno - 1: node.end_lineno]]
        body = [SPELLED.sub(r"\\1return \\3", line) for line in body]
        yield node.name, "\\n".join(body)


def test_no_known_bug_in_the_text():
    text = open("module0_fundamentals/operators.py").read()
    assert not [body for body in _bodies(text) if list(body) in BLACKLIST]
"""


@needs_sandbox
def test_a_test_that_reads_the_operators_code_earns_nothing(tmp_path, monkeypatch):
    from kindling import mutation
    from kindling_staff.grade_mutants import draw, family

    text = (ROOT / TARGET_FILE).read_text()
    bodies = [[f, b] for m in family(text) for f, b in m.bodies.items()]
    planted = draw(text, 20261129, 4)
    monkeypatch.setattr(mutation, "graded_mutants", lambda text, seed, ref: planted)
    reader = READER.replace("BLACKLIST_HERE", repr(bodies))
    task = grade_properties(tmp_path, reader)
    assert task.passed == task.total == 1, task.message  # the base run passes
    assert "decoys_failed" not in task.details, task.details
    assert task.details["killed"] == [] and task.points == 0
    assert task.details["survived"] == [m.name for m in planted]
