"""Task 0.2, graded by mutation testing: do the student's property tests catch bugs?

A property test is only as good as the bugs it can see. So the grader plants bugs of
the kind students really write (a missing minus sign, a sigmoid with the wrong branch
for negative inputs, a relu that leaks negative numbers, ``lt`` and ``eq`` swapped,
...) in ``module0_fundamentals/operators.py`` and runs the student's
``tests/module0/test_properties.py`` against each. The task scores

    points * (mutants killed) / (mutants planted)

provided the tests first pass on correct operators: the reference solution when
grading from the instructor source, the student's own operators (Task 0.1 done) in a
student edition. A mutant is *killed* when a test fails on it (or the run crashes or
hangs); it *survives* when every test still passes.

A mutant is not a textual edit of the file but a replacement of one or two functions
of the loaded module, built from the correct functions (``-o.inv(x)``): the same
mutants then apply to the reference and to a student's own correct operators, and
every caller inside the module (``neg_list`` calls ``neg``) sees the bug too.

Each mutant runs in a process of its own (:mod:`kindling.grade_runner`): it plants
the mutant, then runs ``pytest -x`` on the test file; a run that hangs is killed at
its time limit, and a run that crashes or hangs counts as a kill.
"""

from __future__ import annotations

import inspect
import json
import math
import re
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Callable, Dict, List, Optional

TARGET_MODULE = "module0_fundamentals.operators"
TARGET_FILE = "module0_fundamentals/operators.py"


@dataclass(frozen=True)
class Mutant:
    """A planted bug: ``make(correct)`` returns the replacement functions by name."""

    name: str
    bug: str  # told to the student when the tests miss it
    make: Callable[[SimpleNamespace], Dict[str, Callable]]


def _naive_sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


MUTANTS = (
    Mutant(
        "neg_keeps_sign",
        "neg returns x unchanged (the minus sign is missing)",
        lambda o: {"neg": lambda x: x},
    ),
    Mutant(
        "add_subtracts",
        "add computes x - y",
        lambda o: {"add": lambda x, y: x - y},
    ),
    Mutant(
        "mul_adds",
        "mul computes x + y",
        lambda o: {"mul": lambda x, y: x + y},
    ),
    Mutant(
        "lt_arguments_swapped",
        "lt(x, y) answers whether y < x",
        lambda o: {"lt": lambda x, y: o.lt(y, x)},
    ),
    Mutant(
        "lt_not_strict",
        "lt(x, y) answers whether x <= y",
        lambda o: {"lt": lambda x, y: 1.0 if o.lt(x, y) or o.eq(x, y) else 0.0},
    ),
    Mutant(
        "lt_eq_swapped",
        "lt and eq are swapped",
        lambda o: {"lt": o.eq, "eq": o.lt},
    ),
    Mutant(
        "max_returns_min",
        "max returns the smaller argument",
        lambda o: {"max": lambda x, y: y if o.max(x, y) == x else x},
    ),
    Mutant(
        "sigmoid_negative_branch",
        "for x < 0, sigmoid returns 1 - sigmoid(x) (the wrong branch for negatives)",
        lambda o: {"sigmoid": lambda x: o.sigmoid(x) if x >= 0 else 1 - o.sigmoid(x)},
    ),
    Mutant(
        "sigmoid_overflows",
        "sigmoid computes 1 / (1 + exp(-x)) for every x: OverflowError for x < -709",
        lambda o: {"sigmoid": _naive_sigmoid},
    ),
    Mutant(
        "relu_leaks_negatives",
        "relu lets negative inputs through, scaled by 0.01",
        lambda o: {"relu": lambda x: o.relu(x) if x >= 0 else 0.01 * x},
    ),
    Mutant(
        "inv_wrong_sign",
        "inv returns -1/x",
        lambda o: {"inv": lambda x: -o.inv(x)},
    ),
    Mutant(
        "relu_back_ignores_x",
        "relu_back passes the derivative through for negative x as well",
        lambda o: {"relu_back": lambda x, d: d},
    ),
)


def apply_mutant(mutant: Mutant, module: ModuleType) -> List[str]:
    """Plant ``mutant`` in ``module``; return the names of the functions replaced.

    Names bound earlier elsewhere (``from ...operators import neg``, the package's
    re-exports) are replaced too.
    """
    correct = SimpleNamespace(**vars(module))
    replacements = mutant.make(correct)
    for name, function in replacements.items():
        original = getattr(module, name)
        for other in list(sys.modules.values()):
            try:
                namespace = vars(other)
            except TypeError:
                continue
            for attr, value in list(namespace.items()):
                if value is original:
                    namespace[attr] = function
        setattr(module, name, function)
    return sorted(replacements)


def reference_available(source: Optional[Path]) -> bool:
    """Whether ``source`` holds the reference operators (the instructor source)."""
    if source is None:
        return False
    from kindling.release import BEGIN

    path = source / TARGET_FILE
    if not path.is_file():
        return False
    return any(BEGIN.match(line) for line in path.read_text().splitlines())


# ---------------------------------------------------------------------------------
# Inside a mutant's process
# ---------------------------------------------------------------------------------


class MutantRun:
    """Pytest plugin for a mutant's run: only *whether* some test fails matters.

    So Hypothesis stops at the first failing example (shrinking it can take far
    longer than finding it), and the tests that call a replaced function run first:
    with ``-x`` the run ends at the first failure. Neither changes the verdict.
    """

    def __init__(self, replaced: List[str]) -> None:
        self.uses = re.compile(r"\b(" + "|".join(map(re.escape, replaced)) + r")\b")

    def pytest_configure(self, config) -> None:
        from hypothesis import Phase, settings

        phases = [Phase.explicit, Phase.reuse, Phase.generate]
        base = settings.default
        settings.register_profile(
            "kindling-mutant", settings(base, phases=phases, report_multiple_bugs=False)
        )
        settings.load_profile("kindling-mutant")

    def pytest_collection_modifyitems(self, items) -> None:
        def calls_a_mutant(item) -> bool:
            try:
                return bool(self.uses.search(inspect.getsource(item.function)))
            except (AttributeError, OSError, TypeError):
                return False

        items.sort(key=lambda item: not calls_a_mutant(item))  # stable: file order


def plant(name: str, out: Path):
    """Plant mutant ``name`` in this process: the extra pytest arguments and plugin.

    Writes the replaced names next to ``out``, so that the grader can tell a planted
    mutant from one that never was.
    """
    import importlib

    mutant = next(m for m in MUTANTS if m.name == name)
    replaced = apply_mutant(mutant, importlib.import_module(TARGET_MODULE))
    Path(f"{out}.planted").write_text(json.dumps(replaced))
    # Only whether a test fails matters: stop at the first failure, and skip
    # assertion rewriting, which costs more than the tests themselves.
    return ["-x", "--assert=plain"], MutantRun(replaced)


# ---------------------------------------------------------------------------------
# The grader's side
# ---------------------------------------------------------------------------------


def _passed_cleanly(run, task_id: str) -> bool:
    session = run.session
    if run.timed_out or session is None:
        return False
    counts = session["tasks"].get(task_id, {})
    return (
        session["exitstatus"] == 0
        and counts.get("passed", 0) > 0
        and counts.get("failed", 0) == 0
        and counts.get("skipped", 0) == 0
    )


def grade_by_mutation(
    task,
    work: Path,
    source: Optional[Path],
    scratch: Path,
    timeout: float,
    memory_mb: int,
    blocker: Callable[[], Optional[str]] = lambda: None,
):
    """Grade ``task`` (0.2) in the overlay ``work``; returns a ``TaskGrade``.

    ``source`` is the instructor source when its reference operators may be used,
    else ``None`` (the student's own operators are the base). ``blocker()`` names an
    unfinished task the base depends on (student editions only); it is asked only
    once the tests pass. ``timeout`` bounds the whole grading of the task.
    """
    from kindling.grade import (
        TaskGrade,
        grading_env,
        judge,
        read_registry,
        session_job,
    )
    from kindling.grade_runner import Runner

    start = time.monotonic()
    tree = scratch / "tree"
    shutil.copytree(work, tree)
    if reference_available(source):
        # Only the student's tests come from the submission: every other student
        # file (operators.py above all) is the reference.
        for other in read_registry(source):
            for relative in other.files:
                if relative not in task.files and (source / relative).is_file():
                    shutil.copyfile(source / relative, tree / relative)
    test_file = task.files[0]
    args = ["-m", task.marker, test_file]
    with Runner(tree, grading_env(tree), scratch / "runner.log") as runner:
        base_run = runner.run(session_job(args, scratch / "base", timeout, memory_mb))
        base = judge(task, base_run, 0, tree, timeout)
        if base.status != "done":
            base.points = 0.0
            if base.status == "no tests":
                base.status = "failing"
                base.message = (
                    f"no test marked {task.marker} ran in {test_file}: write the "
                    "property tests first"
                )
            elif base.status == "failing":
                base.message = (
                    "your property tests must pass on correct operators, but "
                    "failed:\n" + base.message
                )
            return base
        grade = TaskGrade.for_task(task)
        grade.passed, grade.total = base.passed, base.total
        unfinished = blocker()
        if unfinished is not None:
            grade.status = f"blocked-by {unfinished}"
            grade.message = (
                "your property tests pass, but mutation grading plants bugs in "
                f"your own operators: finish Task {unfinished} first"
            )
            return grade
        killed, survived = [], []
        for number, mutant in enumerate(MUTANTS):
            left = timeout - (time.monotonic() - start)
            limit = max(left / (len(MUTANTS) - number), 1.0)
            where = scratch / mutant.name
            job = session_job(args, where, limit, memory_mb, mutant=mutant.name)
            run = runner.run(job)
            if not Path(f"{job.out}.planted").is_file():  # never count our own bug
                raise RuntimeError(
                    f"mutant {mutant.name} was not planted:\n{run.output}"
                )
            if _passed_cleanly(run, task.id):
                survived.append(mutant)
            else:  # a failure, a crash or a hang: the tests noticed
                killed.append(mutant.name)
    grade.seconds = time.monotonic() - start
    grade.points = round(task.points * len(killed) / len(MUTANTS), 2)
    grade.details = {
        "mutants": len(MUTANTS),
        "killed": killed,
        "survived": [m.name for m in survived],
    }
    if survived:
        grade.status = "failing"
        lines = [f"your tests caught {len(killed)} of {len(MUTANTS)} planted bugs;"]
        lines.append("they still pass when:")
        lines += [f"  - {m.bug}" for m in survived]
        grade.message = "\n".join(lines)
    else:
        grade.status, grade.message = "done", ""
    return grade
