"""Points from values checked outside the sandbox (``docs/GRADING.md``, "Values
checked outside the sandbox").

Every defence that lives in the process that imports student code (report checks,
Hypothesis settings checks, the canary tests this grader used to plant) can be
patched by that code. So for a
*probed* task the grader asks the sandbox for **values**, not verdicts:

1. **Inside the sandbox** (``python -m kindling.grade_probes --job JSON``, the
   task's tree read-only, as every job): :func:`run_probes` imports the task's
   cases from the instructor-only :mod:`kindling.grade_probes`, with inputs drawn
   from a seed the grader chose for this run, calls the student's functions, and
   writes one JSON line per case on its pipe: the case's name and the value,
   encoded by :func:`encode` (floats as ``float.hex``, arrays as their shape and
   entries, booleans, ints, short strings, and an exception as its class name).
   No pytest, no Hypothesis, no verdict.
2. **The grader** (this module's :class:`ValuesCheck`, never importing student
   code) reads that pipe through :class:`ValueStream` (bounded: lines, bytes,
   cases), runs the same probes over the *reference* source in a sandbox of its
   own (once per source and seed: cached in the process and on disk, signed), and
   compares each case with the tolerance the *reference* run stated
   (:func:`same`). The task can earn at most the share of cases that match (all
   or nothing unless the task is proportional or ``--partial``); its tests, which
   stay for feedback and progress, can only take points away.

A forged pytest report, a patched Hypothesis or a rewritten assertion then earns
nothing: none of them changes a value a wrong function computes. Where no reference
is available (``kindling grade`` run from a student edition, which ships neither the
reference solutions nor :mod:`kindling.grade_probes`), values are not checked and
the grade is the tests' alone; every report says which.
"""

from __future__ import annotations

import ast
import hashlib
import json
import math
import os
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

from kindling.grade_runner import BoundedLines

PROBES_FILE = Path("kindling") / "grade_probes.py"
SEED_ENV = "KINDLING_VALUES_SEED"  # a fixed seed (a batch shares one; reproducing)
VALUES_BYTES = 8 << 20  # bytes a probe run may send
LINE_BYTES = 1 << 20  # bytes of one case's line
CASE_LIMIT = 5000  # cases per run
NUMBERS_LIMIT = 200_000  # numbers (array entries included) per case
NAME_CHARS = 120  # a case's name, as shown to the student
STRING_CHARS = 200  # a string value
WRONG_SHOWN = 6  # wrong cases named in a task's message
EXCEPTIONS = {  # exception class names sent as such; any other is "Exception"
    name
    for name in dir(__import__("builtins"))
    if isinstance(getattr(__import__("builtins"), name), type)
    and issubclass(getattr(__import__("builtins"), name), BaseException)
}


# ---------------------------------------------------------------------------------
# The cases (written in kindling/grade_probes.py, instructor-only)
# ---------------------------------------------------------------------------------


@dataclass
class Case:
    """One value to compute: ``call()`` runs student code, ``name`` says which
    function and which kind of input (never the exact inputs: the name is the same
    for every seed, so messages and reports are too), ``rel``/``abs`` the
    tolerance of a float compared with the reference's."""

    name: str
    call: Callable[[], Any]
    rel: float = 1e-6
    abs: float = 1e-9


# ---------------------------------------------------------------------------------
# The values' encoding (inside the sandbox)
# ---------------------------------------------------------------------------------


def _number(x: Any) -> Any:
    if isinstance(x, bool):
        return ["b", x]
    if isinstance(x, int) and abs(x) < 1 << 62:
        return ["i", x]
    return ["f", float(x).hex()]


def encode(value: Any, depth: int = 0) -> Any:
    """A JSON-able form of ``value``: ``["f", hex]``, ``["i", n]``, ``["b", bool]``,
    ``["s", text]``, ``["a", shape, [hex, ...]]`` (an array, as float64),
    ``["l", [...]]`` (a list or tuple), ``["n"]`` (None)."""
    if depth > 20:
        raise ValueError("value nested too deep")
    if value is None:
        return ["n"]
    if isinstance(value, (bool, int, float)):
        return _number(value)
    if isinstance(value, str):
        return ["s", value[:STRING_CHARS]]
    if isinstance(value, (list, tuple)):
        return ["l", [encode(v, depth + 1) for v in value]]
    try:
        import numpy
    except ImportError:  # pragma: no cover - numpy is a course dependency
        numpy = None
    if numpy is not None and isinstance(value, (numpy.ndarray, numpy.generic)):
        array = numpy.asarray(value)
        if array.dtype == bool:
            array = array.astype(numpy.float64)
        flat = array.astype(numpy.float64).ravel()
        if flat.size > NUMBERS_LIMIT:
            raise ValueError("array too large")
        return ["a", list(array.shape), [float(x).hex() for x in flat]]
    return _number(float(value))  # a Scalar, a Dual, ...: its float


def exception_name(error: BaseException) -> str:
    """The class name of ``error`` if it is one of Python's own exceptions (the
    closest built-in base class otherwise), else ``"Exception"``."""
    for klass in type(error).__mro__:
        if klass.__module__ == "builtins" and klass.__name__ in EXCEPTIONS:
            return klass.__name__
    return "Exception"


# ---------------------------------------------------------------------------------
# Inside the sandbox: run one task's probes, send the values
# ---------------------------------------------------------------------------------


def _write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def run_probes(probes: Any, task: str, seed: int, fd: int) -> int:
    """Compute ``task``'s cases (inputs from ``seed``; ``probes`` is the module
    :mod:`kindling.grade_probes`) and write their values on ``fd``, one JSON line
    each, then an end line. Runs student code."""
    from kindling.grade_kernels import TRUSTED_KERNELS, link_trusted_kernels

    random.seed(seed)
    link_trusted_kernels(os.environ.get(TRUSTED_KERNELS))
    if task in getattr(probes, "WITHOUT_JIT", ()):
        # Before the course imports Numba: its kernels then run as Python.
        os.environ["NUMBA_DISABLE_JIT"] = "1"
        if "numba" in sys.modules:
            sys.modules["numba"].config.reload_config()
    if task in getattr(probes, "CUDA", ()):
        from kindling.cudasim import configure_cuda_simulator

        configure_cuda_simulator()  # the simulator where there is no GPU
    cases = probes.cases(task, seed)
    for case in cases:
        try:
            value = encode(case.call())
        except BaseException as error:  # noqa: BLE001 - an error is a value too
            value = ["e", exception_name(error)]
        line = {"case": case.name, "value": value, "tol": [case.rel, case.abs]}
        _write(fd, (json.dumps(line) + "\n").encode())
    _write(fd, (json.dumps({"end": len(cases)}) + "\n").encode())
    return 0


def main(probes: Any, argv: Optional[List[str]] = None) -> int:
    """``python -m kindling.grade_probes --job JSON`` (the probes module passes
    itself): JSON is ``[task, seed, "--kindling-grade-fd=N"]`` (the runner
    appends the fd)."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] != ["--job"] or len(argv) != 2:
        print("usage: python -m kindling.grade_probes --job JSON", file=sys.stderr)
        return 2
    task, seed, fd = json.loads(argv[1])
    return run_probes(probes, str(task), int(seed), int(fd.split("=", 1)[1]))


# ---------------------------------------------------------------------------------
# The grader's side: read the values under limits (nothing here raises)
# ---------------------------------------------------------------------------------


@dataclass
class Values:
    """What one probe run sent: values by case name, tolerances, and any problem."""

    values: Dict[str, Any] = field(default_factory=dict)
    tolerances: Dict[str, Tuple[float, float]] = field(default_factory=dict)
    order: List[str] = field(default_factory=list)
    ended: bool = False
    problem: Optional[str] = None


class ValueStream(BoundedLines):
    """A probe run's pipe, parsed as it arrives: at most :data:`LINE_BYTES` held
    (a longer line is skipped as it comes and is a problem), reading stops after
    :data:`VALUES_BYTES` or :data:`CASE_LIMIT` cases. A malformed line, a case
    sent twice or anything after the end line is a problem: the run's values
    then count for nothing."""

    line_bytes = LINE_BYTES
    total_bytes = VALUES_BYTES

    def __init__(self) -> None:
        super().__init__()
        self.result = Values()

    def problem(self, text: str) -> None:
        self.result.problem = self.result.problem or text

    def too_long(self, number: int) -> None:
        self.problem("a value longer than any case's can be")

    def overflow(self) -> None:
        self.problem("more values than the probes send")

    def close(self) -> Values:
        self.flush()
        return self.result

    def ended_line(self, number: int, raw: bytes, skipped: bool) -> None:
        if skipped or not raw.strip():
            return
        result = self.result
        try:
            line = json.loads(raw)
        except (ValueError, RecursionError):
            self.problem("a line that is not JSON")
            return
        if result.ended:
            self.problem("values after the end")
            return
        if isinstance(line, dict) and set(line) == {"end"}:
            result.ended = True
            return
        name = line.get("case") if isinstance(line, dict) else None
        if not isinstance(name, str) or "value" not in line:
            self.problem("a line that is not a case's value")
            return
        name = name[:NAME_CHARS]
        if name in result.values:
            self.problem(f"two values for {name}")
            return
        if len(result.order) >= CASE_LIMIT:
            self.problem("more cases than the probes have")
            self.full = True
            return
        result.values[name] = line["value"]
        result.order.append(name)
        tol = line.get("tol")
        if (
            isinstance(tol, list)
            and len(tol) == 2
            and all(
                isinstance(t, (int, float)) and not isinstance(t, bool) for t in tol
            )
        ):
            result.tolerances[name] = (float(tol[0]), float(tol[1]))


def _float(text: Any) -> Optional[float]:
    if not isinstance(text, str) or len(text) > 40:
        return None
    try:
        return float.fromhex(text)
    except (ValueError, OverflowError):
        return None


def _close(a: float, b: float, rel: float, abs_: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_)


def same(expected: Any, got: Any, rel: float, abs_: float) -> bool:
    """Whether the student's encoded value ``got`` equals the reference's
    ``expected``: the same kind and shape, strings, booleans, ints and exception
    names equal, floats within the tolerance (NaN equals NaN). Never raises."""
    try:
        return _same(expected, got, rel, abs_, [NUMBERS_LIMIT])
    except (TypeError, ValueError, IndexError, KeyError, RecursionError):
        return False


def _same(expected: Any, got: Any, rel: float, abs_: float, budget: List[int]) -> bool:
    if not isinstance(expected, list) or not isinstance(got, list) or not expected:
        return False
    kind = expected[0]
    if not got or got[0] != kind or len(got) != len(expected):
        # An int where the reference has a float (or back) compares as numbers.
        numbers = {"f", "i"}
        if kind in numbers and got and got[0] in numbers and len(got) == 2:
            a = _float(expected[1]) if kind == "f" else float(expected[1])
            b = _float(got[1]) if got[0] == "f" else _as_int_float(got[1])
            return a is not None and b is not None and _close(a, b, rel, abs_)
        return False
    budget[0] -= 1
    if budget[0] < 0:
        return False
    if kind == "n":
        return True
    if kind in ("b", "s", "e"):
        return type(got[1]) is type(expected[1]) and got[1] == expected[1]
    if kind == "i":
        return type(got[1]) is int and got[1] == expected[1]
    if kind == "f":
        a, b = _float(expected[1]), _float(got[1])
        return a is not None and b is not None and _close(a, b, rel, abs_)
    if kind == "l":
        if not isinstance(got[1], list) or len(got[1]) != len(expected[1]):
            return False
        return all(_same(e, g, rel, abs_, budget) for e, g in zip(expected[1], got[1]))
    if kind == "a":
        if got[1] != expected[1] or not isinstance(got[2], list):
            return False
        if len(got[2]) != len(expected[2]):
            return False
        budget[0] -= len(expected[2])
        if budget[0] < 0:
            return False
        for e, g in zip(expected[2], got[2]):
            a, b = _float(e), _float(g)
            if a is None or b is None or not _close(a, b, rel, abs_):
                return False
        return True
    return False


def _as_int_float(value: Any) -> Optional[float]:
    return float(value) if type(value) is int else None


# ---------------------------------------------------------------------------------
# The grader's side: which tasks are probed, the reference's values, the verdict
# ---------------------------------------------------------------------------------


def probed_tasks(source: Path) -> Tuple[str, ...]:
    """The task ids ``source``'s :mod:`kindling.grade_probes` has cases for, read
    from its ``TASKS`` literal (the file is parsed, never imported); ``()`` when the
    tree has no probes (a student edition)."""
    path = Path(source) / PROBES_FILE
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return ()
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == "TASKS"
        ):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                return ()
            return tuple(str(v) for v in value)
    return ()


def has_reference(source: Path, files: List[str]) -> bool:
    """Whether ``source`` holds the reference solution of these student files."""
    from kindling.regions import BEGIN

    for relative in files:
        path = Path(source) / relative
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError:
            return False
        if relative.endswith(".py") and not any(BEGIN.match(x) for x in lines):
            return False
    return True


def draw_seed() -> int:
    """This run's seed: :data:`SEED_ENV` if set (a batch shares one), else fresh."""
    fixed = os.environ.get(SEED_ENV, "").strip()
    if fixed.isdigit():
        return int(fixed) % (1 << 32)
    return random.SystemRandom().randrange(1 << 32)


# Reference values by (source key, seed, task), in this process (a batch graded
# with --jobs 1 computes them once); on disk, signed, for the processes of --jobs N
# (only for a shared seed, KINDLING_VALUES_SEED: a fresh seed is never seen again).
_REFERENCE: Dict[Tuple[str, int, str], Values] = {}


def probe_job(task: str, seed: int, timeout: float, memory_mb: int, cuda: bool):
    """The job that runs ``task``'s probes in a sandbox (see ``Job.entry``)."""
    from kindling.grade_runner import Job

    return Job(
        [task, seed],
        timeout,
        memory_mb,
        cuda,
        entry="kindling.grade_probes",
        stream=ValueStream,
    )


@dataclass
class Verdict:
    """How a probe run's values compare with the reference's."""

    checked: int
    matched: int
    wrong: List[str]
    problem: Optional[str] = None
    timed_out: bool = False  # the student's probes ran out of time

    @property
    def share(self) -> float:
        return self.matched / self.checked if self.checked else 0.0


def compare(reference: Values, student: Values) -> Verdict:
    """Every reference case against the student's value for it (a missing one is
    wrong); any problem of the student's stream makes every case wrong."""
    names = reference.order
    if student.problem:
        return Verdict(len(names), 0, list(names), student.problem)
    wrong = []
    for name in names:
        rel, abs_ = reference.tolerances.get(name, (1e-6, 1e-9))
        if name not in student.values or not same(
            reference.values[name], student.values[name], rel, abs_
        ):
            wrong.append(name)
    return Verdict(len(names), len(names) - len(wrong), wrong)


class ValuesCheck:
    """The grader's values check for one grading run (one seed)."""

    def __init__(
        self,
        source: Path,
        registry,
        sandbox,
        kernel_cache: Optional[Path] = None,
        seed: Optional[int] = None,
    ) -> None:
        self.source = Path(source)
        self.sandbox, self.kernel_cache = sandbox, kernel_cache
        self.seed = draw_seed() if seed is None else seed
        listed = set(probed_tasks(self.source))
        self.tasks = {
            t.id for t in registry if t.id in listed and has_reference(source, t.files)
        }
        self.source_key = ""  # the source's content (see reference), once needed
        self.spent: Dict[str, float] = {}  # seconds of reference runs, by task
        if not listed:
            self.summary = (
                "values checking skipped: this tree has no probes and reference (a "
                "student edition ships neither); every grade is the tests' alone"
            )
        else:
            probed = ", ".join(sorted(self.tasks, key=_task_order)) or "none"
            self.summary = f"values checked outside the sandbox for Tasks {probed}"

    def reference(
        self, task, runner_factory, scratch: Path, timeout: float, memory_mb: int
    ) -> Values:
        """The reference's values for ``task`` at this run's seed (cached)."""
        from kindling.grade_cache import load_signed, store_signed, tree_files, tree_key

        if not self.source_key:
            self.source_key = tree_key(self.source, tree_files(self.source))
        key = (self.source_key, self.seed, task.id)
        if key in _REFERENCE:
            return _REFERENCE[key]
        digest = hashlib.sha256(json.dumps(list(key)).encode()).hexdigest()
        name = f"values-{digest[:32]}.json"
        cached = load_signed(name, digest)
        if cached is not None:
            values = _from_cache(cached)
            if values is not None:
                _REFERENCE[key] = values
                return values
        # A copy of the source, made once per grading run: an edit to the source
        # while a batch is graded never mixes two versions in one run.
        tree = scratch.parent.parent / "reference-tree"
        if not tree.is_dir():
            from kindling.grade_cache import copy_tree

            copy_tree(self.source, tree)
        with runner_factory(tree, scratch) as runner:
            run = runner.run(
                probe_job(task.id, self.seed, timeout, memory_mb, task.cuda)
            )
        self.spent[task.id] = run.seconds  # counted in the task's time
        values: Values = run.session
        if run.timed_out or values.problem or not values.ended:
            values.problem = values.problem or "the reference's probes did not finish"
            return values  # not cached: the grade then says so
        while len(_REFERENCE) >= 64:
            _REFERENCE.pop(next(iter(_REFERENCE)))
        _REFERENCE[key] = values
        if os.environ.get(SEED_ENV):  # a seed others share (a batch's children)
            store_signed(name, digest, {"values": _to_cache(values)})
        return values

    def check(
        self,
        task,
        grade,
        runner,
        runner_factory,
        scratch: Path,
        timeout: float,
        memory_mb: int,
        partial: bool,
    ):
        """Bound ``grade`` (the tests' grade of ``task``) by the task's values: the
        student's probes run in ``runner`` (the student's tree), the reference's
        through ``runner_factory(tree, scratch)``. Returns ``grade``."""
        if task.id not in self.tasks:
            return grade
        if grade.points <= 0:  # nothing the values could take away
            grade.details = dict(grade.details or {}, values={"checked": 0})
            return grade
        reference = self.reference(
            task, runner_factory, scratch / "reference", timeout, memory_mb
        )  # (scratch is the task's folder of the run's: tmp/runs/<task>)
        if reference.problem or not reference.order:
            # The instructor's source is broken, not the student's work: the tests
            # alone grade the task, and the message says so.
            why = reference.problem or "the reference has no cases"
            grade.details = dict(grade.details or {}, values={"unchecked": why})
            note = f"note: values not checked (the reference's probes: {why})"
            grade.message = f"{note}\n{grade.message}" if grade.message else note
            return grade
        run = runner.run(probe_job(task.id, self.seed, timeout, memory_mb, task.cuda))
        grade.seconds += run.seconds + self.spent.pop(task.id, 0.0)
        # The cases sent before a time-out or a crash count; the others are wrong.
        verdict = compare(reference, run.session)
        verdict.timed_out = run.timed_out
        apply(grade, task, verdict, partial)
        return grade


def _to_cache(values: Values) -> str:
    return json.dumps(
        [[n, values.values[n], values.tolerances.get(n)] for n in values.order]
    )


def _from_cache(entry: Dict[str, str]) -> Optional[Values]:
    try:
        rows = json.loads(entry["values"])
        values = Values(ended=True)
        for name, value, tol in rows:
            values.values[name] = value
            values.order.append(name)
            if tol:
                values.tolerances[name] = (float(tol[0]), float(tol[1]))
        return values
    except (KeyError, ValueError, TypeError):
        return None


def _task_order(task_id: str) -> Tuple[int, ...]:
    return tuple(int(p) for p in task_id.split("."))


def apply(grade, task, verdict: Verdict, partial: bool) -> None:
    """Bound ``grade`` (a :class:`~kindling.grade_verdict.TaskGrade`) by the values:
    at most the share of matching cases (all or nothing unless proportional or
    ``partial``); the tests can only take points away. A task whose tests all
    "passed" but whose values are wrong is ``failing``."""
    details = {
        "checked": verdict.checked,
        "matched": verdict.matched,
        "wrong": verdict.wrong[:20],
    }
    if verdict.problem:
        details["problem"] = verdict.problem
    if verdict.timed_out:
        details["timed_out"] = True
    grade.details = dict(grade.details or {}, values=details)
    proportional = partial or task.scoring == "proportional"
    if proportional:
        earned = round(task.points * verdict.share, 2)
    else:
        earned = task.points if verdict.checked and not verdict.wrong else 0
    grade.points = min(grade.points, earned)
    if verdict.checked and not verdict.wrong and not verdict.problem:
        return
    if verdict.problem:
        why = f"values checked outside the sandbox: {verdict.problem}"
    else:
        shown = ", ".join(verdict.wrong[:WRONG_SHOWN])
        more = len(verdict.wrong) - WRONG_SHOWN
        shown += f" and {more} more" if more > 0 else ""
        why = (
            f"values checked outside the sandbox: {len(verdict.wrong)} of "
            f"{verdict.checked} wrong ({shown})"
        )
        if verdict.timed_out:
            why += "; the probes ran out of time (the cases not reached are wrong)"
    if grade.status == "done":
        grade.status = "failing"
    grade.message = f"{why}\n{grade.message}" if grade.message else why
