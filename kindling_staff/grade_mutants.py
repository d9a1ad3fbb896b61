"""The mutants Task 0.2's grader plants (instructor source only).

A generated family of single-site bugs in the reference operators of Task 0.1
(``module0_fundamentals/operators.py``), from which each grading draws its sample
with the grading's seed (:func:`draw`). The student edition ships only a short
*practice* list (``kindling.mutation.PRACTICE_MUTANTS``) for feedback on the
student's own operators; neither this module nor its family reaches an edition
(the grader finds it by its entry point, ``mutants`` of the group
``kindling.grading``: :func:`kindling.mutation.graded_mutants`). A test file that
recognises the practice bugs by their text therefore catches only what the draw
happens to share with them.

The family is made by editing the reference text at one place the syntax tree
points to (so every other byte of the function stays), in the kinds of
:func:`kindling_staff.course_mutants.mutants_of` (``op``, ``cmp``, ``const``,
``del``, ``args``) and those the Module 0 guide names:

* ``sign``: a ``return E`` becomes ``return -(E)`` (a flipped sign);
* ``drop``: a back function's incoming derivative ``d`` becomes ``1.0``;
* ``scale``: every ``math.exp(A)`` of a function becomes ``math.exp(2.0 * (A))``
  (a sigmoid with the wrong scale, still bounded, symmetric and increasing);
* ``branch``: the two branches of a conditional expression swapped.

A mutant is kept only if it computes something else than the reference on a
dense, fixed set of inputs (:data:`INPUTS`: zeros of both signs, ties, tiny,
large and huge values of both signs, infinities, NaN): a value that differs (NaN
equal to NaN; ``0.0`` equal to ``-0.0``, a difference no property of the course
can be asked to see) or an exception of another type. One that only changes an
error's message, or agrees everywhere, is *equivalent* and dropped.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.util
import math
import random
import types
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from kindling.mutation import TARGET_FILE, Mutant

#: The task whose solution regions are mutated.
TASK = "0.1"
#: How many mutants one grading plants (the practice list's size: a grading's
#: time is a run per mutant).
COUNT = 15

# Everyday values first: the first input a mutant differs on is the example its
# message gives.
_BASE = [1.0, 2.0, 0.5, 3.0, 0.0, 1.5, 0.25, 7.25, 10.0, 20.0, 36.9, 100.0]
_BASE += [0.02, 0.01, 0.005, 1e-6, 1e-16, 1e-300, 5e-324]
_BASE += [709.0, 710.0, 1000.0, 1e15, 1e308, math.inf]
#: The inputs every mutant is compared with the reference on (each argument).
INPUTS: Tuple[float, ...] = tuple([v for x in _BASE for v in (x, -x)] + [math.nan])
#: Relative difference below which two results are the same (rounding, which
#: no property of the course can be asked to see).
ROUNDING = 1e-9

#: Bugs no property of Task 0.2 is asked to see, by (function, body), with why:
#: the reference property tests let them live (``tests/kindling/
#: test_graded_mutants.py`` runs them over the whole family).
NOT_ASKED: Dict[Tuple[str, str], str] = {
    ("is_close", "return abs(x - y) <= CLOSE_TOLERANCE"): (
        "differs only at the tie |x - y| = 0.01 exactly; the docstring of "
        "test_is_close_tolerance asks for x +- 0.005 close and x +- 0.02 not"
    ),
}

Outcome = Tuple[str, Any]


def _same(got: Outcome, want: Outcome) -> bool:
    """Whether two outcomes agree: the same exception type, or values of one
    type equal up to :data:`ROUNDING` (NaN equal to NaN, ``-0.0`` to ``0.0``)."""
    if got[0] != want[0]:
        return False
    if isinstance(got[1], float) and isinstance(want[1], float):
        return math.isclose(got[1], want[1], rel_tol=ROUNDING, abs_tol=0.0)
    return bool(got[1] == want[1])


def _outcome(function: Callable[..., Any], args: Sequence[float]) -> Outcome:
    """What ``function(*args)`` gives, comparable: a value's type and value (NaN
    as one value), or the type of the exception (never its message)."""
    try:
        value = function(*args)
    except Exception as error:  # noqa: BLE001 - any exception is an outcome
        return ("raises", type(error).__name__)
    if isinstance(value, float) and math.isnan(value):
        return (type(value).__name__, "nan")
    return (type(value).__name__, value)


def _module(text: str, name: str) -> types.ModuleType:
    """A module of its own, built from ``text``, shared with nothing."""
    spec = importlib.util.spec_from_loader(name, loader=None)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    exec(compile(text, f"<{name}>", "exec"), module.__dict__)
    return module


def _functions(tree: ast.Module) -> Dict[str, ast.FunctionDef]:
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}


def _body(text: str, name: str) -> str:
    """The body of the top-level function ``name`` of ``text`` as
    :func:`kindling.mutation.mutate_source` replaces it: every line from the
    first statement after the docstring to the function's end, unindented."""
    node = _functions(ast.parse(text))[name]
    statements = node.body
    first = statements[0]
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
        and len(statements) > 1
    ):
        statements = statements[1:]
    lines = text.splitlines()[statements[0].lineno - 1 : node.end_lineno]
    indent = statements[0].col_offset
    return "\n".join(line[indent:] if line.strip() else "" for line in lines)


def _edits(text: str) -> List[Tuple[str, str, List[Tuple[int, int, str]]]]:
    """``(function, kind, [(start, end, new), ...])`` for every candidate edit of
    the task's regions: the course-QA mutants and this module's own kinds."""
    from kindling.regions import find_regions
    from kindling.registry import parse_registry
    from kindling_staff.course_mutants import _offsets, _segment, mutants_of

    registry_path = Path(__file__).resolve().parents[1] / "kindling" / "tasks.toml"
    registry = parse_registry(registry_path.read_text(encoding="utf-8"))
    tree = ast.parse(text)
    inside = set()
    for region in find_regions(text, TARGET_FILE, registry):
        if region.task == TASK:
            inside.update(range(region.begin + 1, region.end))
    functions = {
        name: node
        for name, node in _functions(tree).items()
        if any(s.lineno in inside for s in node.body)
    }
    found = [
        (m.function, m.kind, [(m.start, m.end, m.new)])
        for m in mutants_of(text, TARGET_FILE, TASK, registry)
        if m.function in functions
    ]
    starts, lines = _offsets(text), text.splitlines()

    def at(node: ast.AST) -> Tuple[int, int]:
        return _segment(starts, lines, node)

    for name, node in functions.items():
        exps: List[Tuple[int, int, str]] = []
        returns_bool = node.returns is not None and ast.unparse(node.returns) == "bool"
        for sub in ast.walk(node):
            if isinstance(sub, ast.Return) and sub.value is not None:
                if not returns_bool:
                    start, end = at(sub.value)
                    found.append(
                        (name, "sign", [(start, end, f"-({text[start:end]})")])
                    )
            elif isinstance(sub, ast.UnaryOp) and isinstance(sub.op, ast.USub):
                start, end = at(sub)
                operand = text[slice(*at(sub.operand))]
                found.append((name, "minus", [(start, end, operand)]))
            elif isinstance(sub, ast.Name) and sub.id == "d":
                found.append((name, "drop", [(*at(sub), "1.0")]))
            elif isinstance(sub, ast.IfExp):
                a0, a1 = at(sub.body)
                b0, b1 = at(sub.orelse)
                # body if test else orelse: the two ends swapped, the test kept.
                new = text[b0:b1] + text[a1:b0] + text[a0:a1]
                found.append((name, "branch", [(a0, b1, new)]))
            elif isinstance(sub, ast.Compare) and len(sub.ops) == 1:
                a0, a1 = at(sub.left)
                b0, b1 = at(sub.comparators[0])
                new = text[b0:b1] + text[a1:b0] + text[a0:a1]
                found.append((name, "swap", [(a0, b1, new)]))
            elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute):
                called = ast.unparse(sub.func)
                if called in SIBLINGS:
                    found.append((name, "call", [(*at(sub.func), SIBLINGS[called])]))
                if called == "math.exp" and len(sub.args) == 1:
                    start, end = at(sub.args[0])
                    exps.append((start, end, f"2.0 * ({text[start:end]})"))
        if exps:
            found.append((name, "scale", exps))
    return found


#: A library function mistaken for another.
SIBLINGS = {
    "math.sin": "math.cos",
    "math.cos": "math.sin",
    "math.exp": "math.expm1",
    "math.log": "math.log10",
    "math.tanh": "math.sin",
}


def _apply(text: str, edits: List[Tuple[int, int, str]]) -> str:
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


_KINDS = {
    "op": "an arithmetic operator is the wrong one",
    "cmp": "a comparison is the wrong one",
    "const": "a constant is wrong",
    "del": "a step is missing",
    "args": "two arguments of a call are swapped",
    "sign": "the result has the wrong sign",
    "drop": "the incoming derivative d is ignored",
    "scale": "the exponential is taken of 2x instead of x",
    "branch": "the two branches of a condition are swapped",
    "minus": "a minus sign is missing",
    "swap": "the two sides of a comparison are swapped",
    "call": "the wrong library function is called",
}


def _witness(name: str, args: Sequence[float], got: Outcome, want: Outcome) -> str:
    """``sigmoid(-1.0) gives 0.73, not 0.27``: behaviour, never the code."""

    call = f"{name}({', '.join(repr(a) for a in args)})"
    if got[0] == "raises" and want[0] == "raises":
        return f"e.g. {call} raises {got[1]}, not {want[1]}"
    shown = f"raises {got[1]}" if got[0] == "raises" else f"gives {got[1]!r}"
    wanted = f"raising {want[1]}" if want[0] == "raises" else f"{want[1]!r}"
    return f"e.g. {call} {shown}, not {wanted}"


@functools.lru_cache(maxsize=4)
def _family(text: str) -> Tuple[Mutant, ...]:
    reference = _module(text, "reference_operators")
    bodies: Dict[Tuple[str, str], None] = {}
    family: List[Mutant] = []
    numbers: Dict[Tuple[str, str], int] = {}
    for name, kind, edits in _edits(text):
        mutated = _apply(text, edits)
        try:
            body = _body(mutated, name)
            module = _module(mutated, "mutated_operators")
        except (SyntaxError, ValueError, KeyError):
            continue
        if (name, body) in bodies or (name, body) in NOT_ASKED:
            continue  # the same text by another edit, or a bug not asked for
        bodies[(name, body)] = None
        ours, theirs = getattr(module, name), getattr(reference, name)
        arity = theirs.__code__.co_argcount
        witness = _difference(name, ours, theirs, arity)
        if witness is None:
            continue  # equivalent on every input: not a bug
        number = numbers[(name, kind)] = numbers.get((name, kind), 0) + 1
        bug = f"{name}: {_KINDS[kind]} ({witness})"
        family.append(Mutant(f"{name}_{kind}_{number}", bug, {name: body}))
    return tuple(family)


def _difference(
    name: str, ours: Callable[..., Any], theirs: Callable[..., Any], arity: int
) -> Optional[str]:
    """The first input (of :data:`INPUTS`) where the two differ, described."""
    if arity == 1:
        cases: Sequence[Tuple[float, ...]] = [(x,) for x in INPUTS]
    else:
        cases = [(x, y) for x in INPUTS for y in INPUTS]
    for args in cases:
        got, want = _outcome(ours, args), _outcome(theirs, args)
        if not _same(got, want):
            return _witness(name, args, got, want)
    return None


def family(text: str) -> Tuple[Mutant, ...]:
    """Every non-equivalent single-site mutant of the reference ``text``'s Task
    0.1 functions, in a fixed order (the text's, then kind)."""
    return _family(text)


def draw(text: str, seed: int, count: int = COUNT) -> Tuple[Mutant, ...]:
    """The mutants one grading plants: ``count`` of :func:`family`, a function of
    ``seed`` (the grading's seed, which a batch's jobs and shards share) and of
    the reference text alone. One function at a time is drawn among those not yet
    drawn (so the sample spreads over the operators), then one of its mutants."""
    by_function: Dict[str, List[Mutant]] = {}
    for mutant in family(text):
        (function,) = mutant.bodies
        by_function.setdefault(function, []).append(mutant)
    key = hashlib.sha256(f"{seed}:{text}".encode("utf-8")).hexdigest()
    rng = random.Random(key)
    drawn: List[Mutant] = []
    left = sorted(by_function)
    while len(drawn) < count and any(by_function.values()):
        if not left:
            left = sorted(f for f, ms in by_function.items() if ms)
        function = left.pop(rng.randrange(len(left)))
        mutants = by_function[function]
        drawn.append(mutants.pop(rng.randrange(len(mutants))))
    return tuple(drawn)
