"""Task 0.2's decoys come from a large generated family of exact rewrites.

A decoy is a *correct* rewrite of a reference operator planted among the mutants: a
suite that fails on one reads the code instead of running it and scores 0. The
family is generated from the reference operators by rules exact under IEEE 754
(``kindling_staff/grade_decoys.py``) and each grading draws its decoys with the
grading's seed. A decoy wrong for any input an honest suite may try would cost that
suite its points, so every decoy is checked here on inputs of this file's own,
bit for bit, and the reference property tests must pass on every one.
"""

import itertools
import math
import random
import struct
from pathlib import Path

import pytest

from kindling.mutation import DECOYS_PER_RUN, TARGET_FILE, decoys, mutate_source
from kindling_staff.grade_decoys import draw, family, near
from kindling_staff.grade_mutants import family as mutant_family
from tests.kindling.test_graded_mutants import TASK_0_1, module_of, property_tests

ROOT = Path(__file__).resolve().parents[2]
TEXT = (ROOT / TARGET_FILE).read_text(encoding="utf-8")
REFERENCE = module_of(TEXT, "reference_operators")

# Independent of the generator's own inputs: zeros of both signs, values either
# side of every constant the operators compare with, ties, subnormals, values
# near exp's overflow, huge, infinite and NaN; integers an honest suite may pass.
FLOATS = [0.0, -0.0, 0.1, -0.1, 0.75, -0.75, 1.0, -1.0, 2.0, -4.5, 0.01, -0.01]
FLOATS += [0.0100001, 5e-324, -5e-324, 2.2e-308, 1e-12, -1e-12, 708.5, -745.2]
FLOATS += [709.8, -709.8, 1e16, -3e200, 1.7e308, math.inf, -math.inf, math.nan]
INTEGERS = [0, 2, -5, 10**6, 2**60 + 3, -(2**55 + 1)]


@pytest.fixture(scope="module")
def every_decoy():
    """The whole family. Made when a test first asks (about 10 s), not at import:
    every pytest run collects this file, ``pytest -m task0_1`` included."""
    return family(TEXT)


def bits(value):
    if isinstance(value, float):
        return "nan" if math.isnan(value) else struct.pack("<d", value)
    return value


def outcome(function, *args):
    """The value bit for bit and its type, or the exception's type and message."""
    try:
        value = function(*args)
    except Exception as error:
        return ("raises", type(error).__name__, str(error))
    return (type(value).__name__, bits(value))


def value_of(function, *args):
    """For integer inputs: the value (its type aside), or the exception."""
    try:
        value = function(*args)
    except Exception as error:
        return ("raises", type(error).__name__, str(error))
    return ("value", "nan" if value != value else value)


def test_the_family_is_large_and_covers_every_operator_of_task_0_1(
    every_decoy,
):
    names = [d.name for d in every_decoy]
    assert len(names) == len(set(names)) >= 500
    counts = {f: sum(f in d.bodies for d in every_decoy) for f in TASK_0_1}
    assert set(counts) == {f for d in every_decoy for f in d.bodies}
    assert min(counts.values()) >= 5, counts
    assert sum(n >= 25 for n in counts.values()) >= 15, counts
    assert all(len(d.bodies) == 1 for d in every_decoy)
    bodies = [(f, b) for d in every_decoy for f, b in d.bodies.items()]
    assert len(bodies) == len(set(bodies))  # no decoy twice


def test_every_decoy_is_exact_on_inputs_of_its_own(every_decoy):
    """Bit for bit and of the same type on floats (NaN and -0.0 included), the
    same error with the same message, the same value on integers."""
    wrong = []
    for decoy in every_decoy:
        ((function, body),) = decoy.bodies.items()
        assert body != "", decoy.name
        ours = getattr(module_of(mutate_source(TEXT, decoy), decoy.name), function)
        theirs = getattr(REFERENCE, function)
        arity = theirs.__code__.co_argcount
        for args in itertools.product(FLOATS, repeat=arity):
            if outcome(ours, *args) != outcome(theirs, *args):
                wrong.append((decoy.name, args))
                break
        for args in itertools.product(FLOATS[:6] + INTEGERS, repeat=arity):
            if all(isinstance(a, float) for a in args):
                continue
            if value_of(ours, *args) != value_of(theirs, *args):
                wrong.append((decoy.name, args))
                break
    assert wrong == []


def test_no_decoy_is_the_reference_or_a_graded_mutant(every_decoy):
    mutants = {(f, b) for m in mutant_family(TEXT) for f, b in m.bodies.items()}
    for decoy in every_decoy:
        ((function, body),) = decoy.bodies.items()
        assert (function, body) not in mutants
        assert mutate_source(TEXT, decoy) != TEXT, decoy.name


def test_some_decoys_read_like_mutants_of_the_kinds_the_guide_names(
    every_decoy,
):
    """A blacklist of 'the reference with a comparison's sides swapped, or a
    constant written otherwise' fails on these."""
    bodies = {b for d in every_decoy for b in d.bodies.values()}
    assert "return 1.0 if y == x else 0.0" in bodies  # eq, sides swapped
    assert "return 1.0 if y > x else 0.0" in bodies  # lt, comparison rewritten
    assert "return x if x > 0 else 0.0" in bodies  # relu, 0 for 0.0
    assert any("x == -0.0" in b or "x == 0:" in b for b in bodies)  # inv's test
    # and a grading draws one of those in most runs
    seeds = random.Random(39).sample(range(1 << 32), 300)
    with_near = [any(near(d) for d in draw(TEXT, seed, 2)) for seed in seeds]
    assert sum(with_near) >= 0.4 * len(seeds)
    assert all(
        "if" in b or "<" in b or ">" in b or "==" in b or "!=" in b
        for d in every_decoy
        if near(d)
        for b in d.bodies.values()
    )


def test_the_draw_is_a_function_of_the_seed_and_the_text(every_decoy):
    for seed in (0, 1, 2**32 - 1, 987654321):
        drawn = draw(TEXT, seed, DECOYS_PER_RUN)
        assert drawn == draw(TEXT, seed, DECOYS_PER_RUN)  # again: jobs, shards
        assert drawn == decoys(TEXT, seed, True)  # through the entry point
        assert len(drawn) == DECOYS_PER_RUN and all(d in every_decoy for d in drawn)
        functions = [f for d in drawn for f in d.bodies]
        assert len(set(functions)) == len(functions)  # two operators
    samples = {tuple(d.name for d in draw(TEXT, seed, 2)) for seed in range(40)}
    assert len(samples) >= 35
    drawn_anywhere = {
        d.name
        for seed in random.Random(7).sample(range(1 << 32), 300)
        for d in draw(TEXT, seed, 2)
    }
    assert len(drawn_anywhere) >= 300  # the draw reaches across the family
    assert decoys(TEXT, 5, False) == ()  # a student edition plants none


@pytest.mark.long
def test_the_reference_property_tests_pass_on_every_decoy(monkeypatch, every_decoy):
    """An honest suite never fails on a decoy: the reference tests, run here in
    this process with each decoy's function in place of the operator (the tests
    that call that function only), pass on all of them."""
    import module0_fundamentals.operators as ops

    tests, sources = property_tests()
    failures = []
    for decoy in every_decoy:
        ((function, _),) = decoy.bodies.items()
        module = module_of(mutate_source(TEXT, decoy), decoy.name)
        calls = [t for t in tests if f"ops.{function}(" in sources[t]]
        assert calls, function
        with monkeypatch.context() as patch:
            patch.setattr(ops, function, getattr(module, function))
            for test in calls:
                try:
                    test()
                except Exception as error:  # noqa: BLE001 - any failure counts
                    failures.append((decoy.name, test.__name__, repr(error)[:200]))
                    break
    assert failures == []
