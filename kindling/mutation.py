"""Task 0.2, graded by mutation testing: do the student's property tests catch bugs?

A property test is only as good as the bugs it can see. So the grader plants bugs of
the kind students really write (a missing minus sign, a comparison that is not
strict, a sigmoid with the wrong scale, a back function that forgets ``d``, ...) in
``module0_fundamentals/operators.py`` and runs the student's
``tests/module0/test_properties.py`` against each. The task scores

    points * (mutants killed) / (mutants planted)

provided the tests first pass on correct operators: the reference solution when
grading from the instructor source, the student's own operators (Task 0.1 done) in a
student edition. A mutant is *killed* when a test fails on it (or the run crashes;
a time-out is neither); it *survives* when every test still passes.

Which mutants are planted (:func:`graded_mutants`): grading from the instructor
source, a sample of :data:`PLANTED` drawn with the grading's seed from a generated
family of single-site bugs of the reference operators, which lives in the staff
package (``kindling_staff/grade_mutants.py``, the entry point ``mutants`` of the
group ``kindling.grading``) and never reaches a student edition. In a student
edition, :data:`PRACTICE_MUTANTS`: a short, published list of the same kinds of bug
for feedback on the student's own operators. They are *practice*, not what the
instructor's grader plants: a test file that recognises their text catches only
those of the drawn sample that happen to read the same.

A mutant is an edit of the source: the body of one or two functions of
``operators.py`` is replaced (docstrings, comments and every other line stay as
they are) and the file is written over the tree's ``operators.py``, so every caller
in the module (``neg_list`` calls ``neg``) and every name imported from it sees the
bug. From the instructor source, that file runs in the grader's process, never in
the sandbox: every run's tree holds the same ``operators.py``, whose graded
operators call the grader (:mod:`kindling.served`), which answers with that run's
code; so a test that reads code sees the same text in every run, and only what the
operators compute differs. In a student edition (the student's own operators, which
must not run in the grader's process) the run's text is written into the tree,
spelled afresh in every run (:func:`spelled`, :func:`respelled`). Either way the
runs are the same command, options, plugins and mounts.

Each run (the base, then each mutant and two *decoys*, correct rewrites spelled like
the mutants, in a random order) is a sandboxed session of its own
(:mod:`kindling.grade_runner`) with ``pytest -x`` on the test file. Each run's
``operators.py`` is written
into the tree in place (:func:`mutation_job`). A run has its own time limit, from
the base run's time; a run out of time is a time-out, never a kill. A crash is a
kill. A suite that fails on a decoy reads the code instead of running it: 0
points. Feedback from these runs is terse (test names, lines of the student's test
file, exception types): the tests ran next to the reference operators, and their
messages could carry them.
"""

from __future__ import annotations

import ast
import os
import random
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Set, Tuple

TARGET_MODULE = "module0_fundamentals.operators"
TARGET_FILE = "module0_fundamentals/operators.py"


@dataclass(frozen=True)
class Mutant:
    """A planted bug: new bodies (source, unindented) for functions of the module."""

    name: str
    bug: str  # told to the student when the tests miss it
    bodies: Dict[str, str]


# Practice bugs: what ``kindling grade`` plants in a student edition (in the
# student's own operators), published with it. The instructor's grader plants a
# sample of a generated family instead (:func:`graded_mutants`); these are of its
# kinds, and a suite that kills them all is on its way, no more.
PRACTICE_MUTANTS = (
    Mutant(
        "neg_keeps_sign",
        "neg returns x unchanged (the minus sign is missing)",
        {"neg": "return x"},
    ),
    Mutant("add_subtracts", "add computes x - y", {"add": "return x - y"}),
    Mutant("mul_adds", "mul computes x + y", {"mul": "return x + y"}),
    Mutant(
        "lt_arguments_swapped",
        "lt(x, y) answers whether y < x",
        {"lt": "return 1.0 if y < x else 0.0"},
    ),
    Mutant(
        "lt_not_strict",
        "lt(x, y) answers whether x <= y",
        {"lt": "return 1.0 if x <= y else 0.0"},
    ),
    Mutant(
        "lt_eq_swapped",
        "lt and eq are swapped",
        {"lt": "return 1.0 if x == y else 0.0", "eq": "return 1.0 if x < y else 0.0"},
    ),
    Mutant(
        "max_returns_min",
        "max returns the smaller argument",
        {"max": "return y if x > y else x"},
    ),
    Mutant(
        "sigmoid_negative_branch",
        "for x < 0, sigmoid returns 1 - sigmoid(x) (the wrong branch for negatives)",
        {
            "sigmoid": "if x >= 0.0:\n"
            "    return 1.0 / (1.0 + math.exp(-x))\n"
            "z = math.exp(x)\n"
            "return 1.0 - z / (1.0 + z)"
        },
    ),
    Mutant(
        "sigmoid_overflows",
        "sigmoid computes 1 / (1 + exp(-x)) for every x: OverflowError for x < -709",
        {"sigmoid": "return 1.0 / (1.0 + math.exp(-x))"},
    ),
    Mutant(
        "relu_leaks_negatives",
        "relu lets negative inputs through, scaled by 0.01",
        {"relu": "return x if x > 0.0 else 0.01 * x"},
    ),
    Mutant(
        "inv_wrong_sign",
        "inv returns -1/x",
        {
            "inv": "if x == 0.0:\n"
            '    raise ValueError(f"inv: expected x != 0, got {x!r}")\n'
            "return -1.0 / x"
        },
    ),
    Mutant(
        "relu_back_ignores_x",
        "relu_back passes the derivative through for negative x as well",
        {"relu_back": "return d"},
    ),
    # The three the Module 0 guide names as examples.
    Mutant("mul_flips_sign", "mul computes -(x * y)", {"mul": "return -(x * y)"}),
    Mutant(
        "sigmoid_wrong_scale",
        "sigmoid computes 1 / (1 + exp(-2x)): bounded, symmetric and increasing, "
        "only its slope is wrong",
        {
            "sigmoid": "if x >= 0.0:\n"
            "    return 1.0 / (1.0 + math.exp(-2.0 * x))\n"
            "z = math.exp(2.0 * x)\n"
            "return z / (1.0 + z)"
        },
    ),
    Mutant(
        "log_back_forgets_d",
        "log_back returns 1 / x, forgetting the incoming derivative d",
        {
            "log_back": "if x <= 0.0:\n"
            '    raise _domain_error("log_back", x, "x > 0")\n'
            "return 1.0 / x"
        },
    ),
)


# Rewrites of operators that are *correct*, planted among the mutants in the same
# form (instructor source only: a suite that fails on one tests the text of the
# code, not what it computes). They are drawn per grading from a family generated
# in the staff package (kindling_staff/grade_decoys.py, the entry point ``decoys``
# of the group ``kindling.grading``), which no student edition ships: a test that
# knew them could fail on every rewritten body that is not a decoy.


#: How many mutants one grading plants (a sandboxed run each).
PLANTED = len(PRACTICE_MUTANTS)


def graded_mutants(text: str, seed: int, reference: bool) -> Tuple[Mutant, ...]:
    """The mutants one grading plants in ``text`` (the base ``operators.py``).

    With the reference operators (``reference``, the instructor source): the
    staff package's draw of :data:`PLANTED` from its generated family, a function
    of ``seed`` and ``text`` alone (so ``--jobs 1``, ``--jobs 2`` and shards that
    share a seed plant the same). Elsewhere (a student edition, which has neither
    the family nor the reference): :data:`PRACTICE_MUTANTS`.
    """
    if not reference:
        return PRACTICE_MUTANTS
    from kindling import plugins

    draw = plugins.load(plugins.GRADING, "mutants")
    if draw is None:  # the reference without the staff package: no family
        return PRACTICE_MUTANTS
    return tuple(draw(text, seed, PLANTED))


def decoys(text: str, seed: int, reference: bool) -> Tuple[Mutant, ...]:
    """The decoys one grading plants in ``text`` (the base ``operators.py``): the
    staff package's draw of :data:`DECOYS_PER_RUN` from its family of exact
    rewrites of the reference, a function of ``seed`` and ``text`` alone (as
    :func:`graded_mutants`); none without the reference or the staff package (a
    student edition, which has no reference operators to plant them in)."""
    if not reference:
        return ()
    from kindling import plugins

    draw = plugins.load(plugins.GRADING, "decoys")
    return () if draw is None else tuple(draw(text, seed, DECOYS_PER_RUN))


DECOYS_PER_RUN = 2
MIN_RUN_SECONDS = 20.0  # a mutant run's time limit is at least this ...
BASE_FACTOR = 4.0  # ... or this many times the base run's time


def spelled(mutant: Mutant, rng: random.Random) -> Mutant:
    """``mutant`` with each ``return EXPR`` of its bodies spelled afresh (a local of
    a random name), so that no run's text is the published list's: a test that
    looks for a known body (or checks ``mutate_source(text, m) == text``) sees
    nothing it knows. Mutants and decoys are spelled alike."""
    bodies = {}
    for function, body in mutant.bodies.items():
        name = "_" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(6))
        lines = []
        for line in body.split("\n"):
            stripped = line.lstrip()
            if stripped.startswith("return "):
                indent = line[: len(line) - len(stripped)]
                line = f"{indent}{name} = {stripped[7:]}; return {name}"
            lines.append(line)
        bodies[function] = "\n".join(lines)
    return Mutant(mutant.name, mutant.bug, bodies)


def _fresh_name(rng: random.Random, text: str) -> str:
    while True:
        name = "_" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(6))
        if name not in text:
            return name


def respelled(text: str, rng: random.Random) -> str:
    """``text`` (a module's source) with every one-line ``return EXPR`` of every
    top-level function (nested ones included) spelled as :func:`spelled` spells a
    mutant's (``_abcdef = EXPR; return _abcdef``, one fresh name per function).

    Every run of Task 0.2 (the base, each mutant, each decoy) is written this
    way, so that no run's shape tells it from another: the base run used to be
    the only one without such bodies. What it computes is unchanged; a
    ``return`` that shares its line with other code, spans lines or returns
    nothing is left as it is, and so is the whole text if the result would not
    compile (or the text does not parse).
    """
    try:
        module = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return text
    lines = text.splitlines()
    edits: Dict[int, Tuple[int, int, str]] = {}  # line -> (start, end, name)
    for node in module.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        name = _fresh_name(rng, text)
        for sub in ast.walk(node):
            if not isinstance(sub, ast.Return) or sub.value is None:
                continue
            if sub.lineno != sub.end_lineno or sub.lineno in edits:
                continue
            line = lines[sub.lineno - 1]
            if line[: sub.col_offset].strip():  # e.g. ``if x: return y``
                continue
            rest = line[sub.end_col_offset :].strip()
            if rest and not rest.startswith("#"):  # e.g. ``return x; y = 1``
                continue
            edits[sub.lineno] = (sub.col_offset, sub.end_col_offset, name)
    for number, (start, end, name) in edits.items():
        line = lines[number - 1]
        statement = line[start:end]
        expression = statement[len("return") :].strip()
        lines[number - 1] = (
            f"{line[:start]}{name} = {expression}; return {name}{line[end:]}"
        )
    result = "\n".join(lines) + ("\n" if text.endswith("\n") else "")
    try:
        compile(result, TARGET_FILE, "exec")
    except (SyntaxError, ValueError, RecursionError):
        return text
    return result


def mutate_source(text: str, mutant: Mutant) -> str:
    """``text`` (a module's source) with the bodies of the mutant's functions
    replaced. The signature, the docstring and the comments around the body stay.

    Raises ``ValueError`` when a function is not defined at the top level.
    """
    tree = ast.parse(text)
    lines = text.splitlines()
    functions = {
        node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)
    }
    edits: List[Tuple[int, int, List[str]]] = []
    for name, body in mutant.bodies.items():
        node = functions.get(name)
        if node is None:
            raise ValueError(f"{name} is not defined at the top of the module")
        statements = node.body
        first = statements[0]
        docstring = (
            isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)
        )
        if docstring and len(statements) > 1:
            statements = statements[1:]
        start, end = statements[0].lineno, node.end_lineno
        indent = " " * statements[0].col_offset
        if docstring and len(node.body) == 1:  # a docstring only: add after it
            start = end = node.end_lineno + 1
            indent = " " * node.body[0].col_offset
            edits.append(
                (start, start - 1, [indent + line for line in body.split("\n")])
            )
            continue
        edits.append((start, end, [indent + line for line in body.split("\n")]))
    for start, end, new in sorted(edits, reverse=True):
        lines[start - 1 : end] = new
    return "\n".join(lines) + ("\n" if text.endswith("\n") else "")


def served_source(text: str, names: Iterable[str]) -> str:
    """``text`` (a module's source) with the body of each top-level function in
    ``names`` replaced by a call of :func:`kindling.served.call` with its
    parameters (docstrings, signatures and every other line kept)."""
    functions = {
        node.name: node
        for node in ast.parse(text).body
        if isinstance(node, ast.FunctionDef)
    }
    bodies = {}
    for name in names:
        params = [a.arg for a in functions[name].args.args]
        arguments = "".join(f", {p}" for p in params)
        bodies[name] = (
            f"from kindling.served import call\n\nreturn call({name!r}{arguments})"
        )
    return mutate_source(text, Mutant("served", "", bodies))


def reference_available(source: Optional[Path]) -> bool:
    """Whether ``source`` holds the reference operators (the instructor source)."""
    if source is None:
        return False
    from kindling.regions import BEGIN

    path = source / TARGET_FILE
    if not path.is_file():
        return False
    return any(BEGIN.match(line) for line in path.read_text().splitlines())


def served_names(text: str, tasks: Set[str], registry) -> List[str]:
    """The functions of ``text`` (the reference ``operators.py``) whose bodies are
    solution regions of ``tasks`` (Task 0.2's dependency, Task 0.1): the
    operators every mutant and decoy rewrites, which the grader runs itself
    (:mod:`kindling.served`)."""
    from kindling.regions import find_regions

    inside: Set[int] = set()
    for region in find_regions(text, TARGET_FILE, registry):
        if region.task in tasks:
            inside.update(range(region.begin + 1, region.end))
    return [
        node.name
        for node in ast.parse(text).body
        if isinstance(node, ast.FunctionDef)
        and any(statement.lineno in inside for statement in node.body)
    ]


# ---------------------------------------------------------------------------------
# The grader's side
# ---------------------------------------------------------------------------------


def mutation_job(
    args: List[str],
    tree: Path,
    where: Path,
    limit: float,
    memory_mb: int,
    text: str,
    service=None,
):
    """The job of one run: the same command for the base and every mutant. The run's
    ``operators.py`` is written into the tree in place of the file (its time stamps
    kept), so that it is loaded exactly as the student's own code is: no extra
    mount, no other path. ``service``: the run's operators, run by the grader
    (:class:`kindling.served.Service`; then ``text`` is the same in every run)."""
    from kindling.grade_runner import session_job

    target = tree / TARGET_FILE
    times = os.stat(target)
    target.write_text(text, encoding="utf-8")
    os.utime(target, ns=(times.st_atime_ns, times.st_mtime_ns))
    job = session_job(args, where, limit, memory_mb)
    job.service = service
    return job


def mutant_verdict(run, base: List[str]) -> str:
    """``killed``, ``survived``, ``timeout`` or ``tampered: why`` for one run.

    A run out of time is a time-out, never a kill: a suite that only sleeps must
    not catch bugs, and a loaded machine must not change a score.
    """
    from kindling.grade_verdict import tampering

    session = run.session
    if run.timed_out:
        return "timeout"
    why = tampering(session, base, set())
    if why:
        return f"tampered: {why}"
    if session.problem or not session.finished or session.exitstatus in (3, 4):
        return "killed"  # a crash: the tests noticed something
    outcomes = [session.outcomes.get(nodeid) for nodeid in base]
    if all(o is not None and o.outcome == "passed" for o in outcomes):
        return "survived"
    return "killed"


def test_function_names(path: Path) -> Set[str]:
    """The names of the test functions (and methods of test classes) that a test
    file defines, read by the grader from the file itself, never from a session:
    the only names Task 0.2's feedback may show (see ``Feedback.test_name``)."""
    try:
        module = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, SyntaxError, RecursionError, MemoryError):
        return set()
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    names = set()
    for node in module.body:
        members = node.body if isinstance(node, ast.ClassDef) else [node]
        if isinstance(node, ast.ClassDef) and not node.name.startswith("Test"):
            continue
        for member in members:
            if isinstance(member, functions) and member.name.startswith("test"):
                names.add(member.name)
    return names


def base_tree(
    tree: Path,
    work: Path,
    source: Path,
    task,
    registry,
    shipped: Optional[Set[str]],
) -> None:
    """Make ``tree`` (a copy of the overlay ``work``) the tree of the runs when the
    reference operators are the base (grading from the instructor source).

    The reference ``operators.py`` is the one reference file in it: every other
    student file is its stub (what the student edition ships: importable, so that
    a broken file of another task cannot fail the base run, and no reference code
    a test could read and carry out), and every file no student edition ships
    (hidden tests, instructor-only files such as the decoys' module) is removed.
    Only the student's tests come from the submission.
    """
    from kindling.regions import strip_regions

    for other in registry:
        for relative in other.files:
            if relative in task.files or not (source / relative).is_file():
                continue
            if not (tree / relative).is_file():  # not in this tree: nothing to hide
                continue
            if relative == TARGET_FILE:
                shutil.copyfile(source / relative, tree / relative)
            elif relative.endswith(".py"):
                text = (source / relative).read_text(encoding="utf-8")
                stub = strip_regions(text, relative, registry)[0]
                (tree / relative).write_text(stub, encoding="utf-8")
    if shipped is None:
        return
    keep = set(shipped) | {TARGET_FILE, *task.files}
    for path in sorted(tree.rglob("*"), reverse=True):
        relative = path.relative_to(tree).as_posix()
        if path.is_dir() and not path.is_symlink():
            if not any(path.iterdir()):
                path.rmdir()
        elif relative not in keep:
            path.unlink()


def tampered_message(why: str) -> str:
    """The message of a tampered run: the grader's reason, without the node id it
    may quote (the session chose it, next to reference code: terse feedback)."""
    reason = why.split(" (", 1)[0]
    return (
        f"the test process reported results that cannot be true ({reason}); "
        "no points: the submission needs a look by hand"
    )


def grade_by_mutation(
    task,
    work: Path,
    source: Optional[Path],
    scratch: Path,
    timeout: float,
    memory_mb: int,
    blocker: Callable[[], Optional[str]] = lambda: None,
    sandbox=None,
    context=None,
    shipped: Optional[Set[str]] = None,
    seed: Optional[int] = None,
):
    """Grade ``task`` (0.2) in the overlay ``work``; returns a ``TaskGrade``.

    ``source`` is the instructor source when its reference operators may be used,
    else ``None`` (the student's own operators are the base). ``blocker()`` names an
    unfinished task the base depends on (student editions only); it is asked only
    once the tests pass. ``timeout`` bounds every run (each has its own limit).
    ``shipped``: the files a student edition ships (see :func:`base_tree`).
    ``seed``: the grading's seed, which draws the planted mutants
    (:func:`graded_mutants`; default: a fresh one).
    """
    from kindling.grade_runner import Runner
    from kindling.grade_verdict import Feedback, TaskGrade, judge, secret_lines
    from kindling.registry import parse_registry
    from kindling.served import Service

    def read_registry(root: Path):
        path = root / "kindling" / "tasks.toml"
        return parse_registry(path.read_text(encoding="utf-8"), str(path))

    start = time.monotonic()
    tree = scratch / "tree"
    shutil.copytree(work, tree)
    secrets_ = set(context.secrets) if context is not None else set()
    if reference_available(source):
        base_tree(tree, work, source, task, read_registry(source), shipped)
        # No line of the reference operators that the student's own file (or its
        # stub) lacks may reach the feedback, whichever way a test carries it.
        theirs = secret_lines(work, [TARGET_FILE], set())
        secrets_ |= secret_lines(tree, [TARGET_FILE], set()) - theirs
    else:
        secrets_ |= secret_lines(tree, [TARGET_FILE], set())
    student = set(context.student) if context is not None else set(task.files)
    ids = context.task_ids if context is not None else None
    names = test_function_names(tree / task.files[0])  # read here, not inside
    terse = Feedback(tree, student, secrets_, True, ids, names)
    operators = (tree / TARGET_FILE).read_text(encoding="utf-8")
    test_file = task.files[0]
    args = ["-x", "--kindling-grade-fast", "-m", task.marker, test_file]
    # With the reference, its operators never enter the sandbox: every run's
    # operators.py is the same text, whose graded operators call the grader, which
    # runs that run's code (kindling/served.py). Without it (a student edition's
    # practice), each run's text is its code, spelled afresh.
    served: List[str] = []
    if reference_available(source):
        served = served_names(operators, set(task.depends), read_registry(source))
    shown = served_source(operators, served) if served else ""

    def job(where: Path, limit: float, text: str):
        if not served:
            return mutation_job(args, tree, where, limit, memory_mb, text)
        service = Service(text, served, TARGET_FILE)
        return mutation_job(args, tree, where, limit, memory_mb, shown, service)

    def run_text(mutant: Optional[Mutant]) -> str:
        if served:
            return operators if mutant is None else mutate_source(operators, mutant)
        base = respelled(operators, rng)
        return base if mutant is None else mutate_source(base, spelled(mutant, rng))

    rng = random.SystemRandom()
    with Runner(tree, sandbox, scratch / "runner") as runner:
        base_run = runner.run(job(scratch / "base", timeout, run_text(None)))
        base = judge(task, base_run, None, terse, timeout, set(), False, True)
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
        base_ids = list(base_run.session.outcomes)
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
        # Each run has its own limit, from the base run's time: never a share of
        # what is left, so a slow machine or an earlier run changes no verdict.
        limit = min(timeout, max(MIN_RUN_SECONDS, BASE_FACTOR * base_run.seconds))
        has_reference = reference_available(source)
        if seed is None:
            seed = random.SystemRandom().randrange(1 << 32)
        planted = graded_mutants(operators, seed, has_reference)
        decoy_runs = list(decoys(operators, seed, has_reference))
        runs = list(planted) + decoy_runs
        rng.shuffle(runs)  # decoys anywhere among the mutants
        verdicts: Dict[str, str] = {}
        for mutant in runs:
            run = runner.run(job(scratch / mutant.name, limit, run_text(mutant)))
            verdict = mutant_verdict(run, base_ids)
            if verdict.startswith("tampered"):
                grade.status = "tampered"
                grade.message = tampered_message(verdict[len("tampered: ") :])
                grade.seconds = time.monotonic() - start
                return grade
            verdicts[mutant.name] = verdict
        (tree / TARGET_FILE).write_text(operators, encoding="utf-8")
    grade.seconds = time.monotonic() - start
    wrong = [d.name for d in decoy_runs if verdicts[d.name] != "survived"]
    killed = [m.name for m in planted if verdicts[m.name] == "killed"]
    survived = [m for m in planted if verdicts[m.name] == "survived"]
    timed_out = [m for m in planted if verdicts[m.name] == "timeout"]
    practice = planted is PRACTICE_MUTANTS
    grade.details = {
        "mutants": len(planted),
        "planted_from": "practice" if practice else "drawn",
        "killed": killed,
        "survived": [m.name for m in survived],
        "timed_out": [m.name for m in timed_out],
        "run_seconds_limit": round(limit, 1),
    }
    if wrong:
        grade.status, grade.points = "failing", 0.0
        grade.details["decoys_failed"] = len(wrong)
        grade.message = (
            "your tests failed on correct operators written differently: they "
            "must check what the operators compute, not how their code reads"
        )
        return grade
    grade.points = round(task.points * len(killed) / len(planted), 2)
    note = (
        f"(practice bugs: the instructor's grader plants {len(planted)} others, "
        "drawn from a larger family of such bugs in its reference operators)"
    )
    if survived or timed_out:
        grade.status = "failing"
        lines = [f"your tests caught {len(killed)} of {len(planted)} planted bugs;"]
        if survived:
            lines.append("they still pass when:")
            lines += [f"  - {m.bug}" for m in survived]
        if timed_out:
            lines.append(
                f"they did not finish within {limit:g} s (a time-out is not a "
                "catch) when:"
            )
            lines += [f"  - {m.bug}" for m in timed_out]
        lines += [note] if practice else []
        grade.message = "\n".join(lines)
    else:
        grade.status, grade.message = "done", note if practice else ""
    return grade
