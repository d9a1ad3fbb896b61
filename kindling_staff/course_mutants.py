"""Mutation testing of the course's own tests (``kindling mutants``).

Task 0.2 grades a student's tests by the bugs they catch. This module turns the
same question on the course: plant one small bug at a time in a task's solution
regions and run that task's tests; a bug the tests miss (a *surviving mutant*) is
either a gap in the tests or a change that computes the same thing (an
*equivalent* mutant, recorded with its reason in ``tests/mutants/``).

The bugs are the classic ones, made by editing the source text at the place the
syntax tree points to (so comments, markers and layout stay as they are):

* ``op``: an arithmetic operator swapped (``+`` and ``-``, ``*`` and ``/``, ``//``
  and ``%``);
* ``cmp``: a comparison flipped (``<`` and ``<=``, ``>`` and ``>=``, ``==`` and
  ``!=``, ``<`` and ``>``);
* ``const``: a number changed (``0`` to ``1``, ``n`` to ``n + 1``, ``x`` to ``-x``
  for a float, ``True`` and ``False``);
* ``del``: a one-line statement replaced by ``pass``;
* ``args``: the first two positional arguments of a call swapped.

Each mutant runs the task's marker in a fresh pytest process in a copy of the
source (``-x``: the first failure decides), with a time limit of four times the
unmutated run (at least 20 s; ``--timeout`` sets it, for a loaded machine where a
mutant that recompiles its kernels takes longer than that); a run that exceeds it
is a ``timeout``, reported on its own and counted as neither killed nor surviving.
So is a run that prints nothing for a minute (``STALL_SECONDS``), or for as long
as the whole unmutated run if that is longer: pytest prints a mark per test, so it
is stuck in one test, mostly a mutated loop that never ends;
stopping it then, not at the limit, saves minutes a mutant in Module 3, where
about one mutant in six loops. The tests that killed the
latest mutants run first, on their own: a mutant they kill needs no more.
"""

from __future__ import annotations

import ast
import random
import re
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple

from kindling.registry import Registry, load_registry
from kindling_staff.source_copies import copy_source, copy_trusted_kernels, run_marker

EQUIVALENTS_DIR = Path("tests") / "mutants"

OPERATORS: Dict[type, Tuple[str, str]] = {
    ast.Add: ("+", "-"),
    ast.Sub: ("-", "+"),
    ast.Mult: ("*", "/"),
    ast.Div: ("/", "*"),
    ast.FloorDiv: ("//", "%"),
    ast.Mod: ("%", "//"),
}
COMPARISONS: Dict[type, Tuple[str, str]] = {
    ast.Lt: ("<", "<="),
    ast.LtE: ("<=", "<"),
    ast.Gt: (">", ">="),
    ast.GtE: (">=", ">"),
    ast.Eq: ("==", "!="),
    ast.NotEq: ("!=", "=="),
}
MIN_SECONDS = 20.0
FACTOR = 4.0
#: Silence after which a mutant's run is stuck: above the longest single test of a
#: task with its kernels compiling on a loaded 2-core machine (about 40 s seen),
#: and at least the whole unmutated run (an upper bound on any one of its tests).
STALL_SECONDS = 60.0


@dataclass(frozen=True)
class CourseMutant:
    """One planted bug: replace ``old`` by ``new`` at 0-based offsets of a file."""

    task: str
    file: str
    line: int
    kind: str
    start: int  # character offsets into the file's text
    end: int
    old: str
    new: str

    function: str = ""  # the function (or class.method) the bug is planted in
    occurrence: int = 0  # the same change earlier in the same function

    @property
    def id(self) -> str:
        """A name that survives code moving around: ``file:function:kind:old->new``,
        with ``#2``, ``#3`` for the second and third same change in a function."""
        repeat = f"#{self.occurrence + 1}" if self.occurrence else ""
        return f"{self.file}:{self.function}:{self.kind}:{self.old}->{self.new}{repeat}"

    def apply(self, text: str) -> str:
        if text[self.start : self.end] != self.old:
            raise ValueError(f"{self.id}: the source changed under the mutant")
        return text[: self.start] + self.new + text[self.end :]


@dataclass(frozen=True)
class MutantOutcome:
    mutant: CourseMutant
    verdict: str  # "killed", "killed-crash", "killed-by-X.Y", "survived", "timeout",
    # "equivalent" or "error" (pytest itself failed: a usage or collection error)
    seconds: float
    detail: str = ""


def _offsets(text: str) -> List[int]:
    """The character offset at which each 1-based line starts (index 0 unused)."""
    starts = [0, 0]
    for k, char in enumerate(text):
        if char == "\n":
            starts.append(k + 1)
    return starts


def _segment(starts: List[int], lines: List[str], node: ast.AST) -> Tuple[int, int]:
    """Character offsets of ``node`` in the text (col offsets are UTF-8 bytes)."""

    def at(line: int, col: int) -> int:
        prefix = lines[line - 1].encode("utf-8")[:col].decode("utf-8", "replace")
        return starts[line] + len(prefix)

    return (
        at(node.lineno, node.col_offset),
        at(node.end_lineno, node.end_col_offset),  # type: ignore[arg-type]
    )


def mutants_of(
    text: str, path: str, task: str, registry: Registry
) -> List[CourseMutant]:
    """Every mutant of the solution regions of ``task`` in one file's text."""
    from kindling.regions import find_regions

    regions = [r for r in find_regions(text, path, registry) if r.task == task]
    if not regions:
        return []
    inside: Set[int] = set()
    for region in regions:
        inside.update(range(region.begin + 1, region.end))
    tree = ast.parse(text)
    starts = _offsets(text)
    lines = text.splitlines()
    found: Dict[Tuple[int, int, str, str], CourseMutant] = {}
    functions: List[Tuple[int, int, str]] = []  # (first line, last line, name)

    def collect(body: List[ast.stmt], prefix: str) -> None:
        for item in body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + item.name
                if not isinstance(item, ast.ClassDef):
                    functions.append(
                        (item.lineno, item.end_lineno or item.lineno, name)
                    )
                collect(item.body, name + ".")

    collect(tree.body, "")

    def enclosing(line: int) -> str:
        # the innermost: the definition that starts last among those holding line
        holding = [f for f in functions if f[0] <= line <= f[1]]
        return max(holding)[2] if holding else "<module>"

    def add(kind: str, node: ast.AST, start: int, end: int, new: str) -> None:
        old = text[start:end]
        if old == new:
            return
        key = (start, end, kind, new)
        if key not in found:
            found[key] = CourseMutant(
                task,
                path,
                node.lineno,
                kind,
                start,
                end,
                old,
                new,
                enclosing(node.lineno),
            )

    for node in ast.walk(tree):
        line = getattr(node, "lineno", None)
        if line is None or line not in inside:
            continue
        end_line = getattr(node, "end_lineno", line)
        if end_line not in inside:
            continue
        if isinstance(node, ast.BinOp) and type(node.op) in OPERATORS:
            old_op, new_op = OPERATORS[type(node.op)]
            a = _segment(starts, lines, node.left)[1]
            b = _segment(starts, lines, node.right)[0]
            gap = text[a:b]
            if gap.count(old_op) == 1:
                at = a + gap.index(old_op)
                add("op", node, at, at + len(old_op), new_op)
        elif isinstance(node, ast.AugAssign) and type(node.op) in OPERATORS:
            old_op, new_op = OPERATORS[type(node.op)]
            a = _segment(starts, lines, node.target)[1]
            b = _segment(starts, lines, node.value)[0]
            gap = text[a:b]
            if gap.count(old_op + "=") == 1:
                at = a + gap.index(old_op + "=")
                add("op", node, at, at + len(old_op), new_op)
        elif isinstance(node, ast.Compare) and len(node.ops) == 1:
            if type(node.ops[0]) in COMPARISONS:
                old_op, new_op = COMPARISONS[type(node.ops[0])]
                a = _segment(starts, lines, node.left)[1]
                b = _segment(starts, lines, node.comparators[0])[0]
                gap = text[a:b]
                if gap.count(old_op) == 1:
                    at = a + gap.index(old_op)
                    add("cmp", node, at, at + len(old_op), new_op)
        elif isinstance(node, ast.Constant) and not isinstance(node.value, str):
            start, end = _segment(starts, lines, node)
            value = node.value
            if isinstance(value, bool):
                add("const", node, start, end, str(not value))
            elif isinstance(value, int):
                add("const", node, start, end, str(1 if value == 0 else value + 1))
            elif isinstance(value, float):
                add(
                    "const",
                    node,
                    start,
                    end,
                    "1.0" if value == 0 else f"(-{text[start:end]})",
                )
        elif isinstance(node, ast.Call) and len(node.args) >= 2:
            first, second = node.args[0], node.args[1]
            if isinstance(first, ast.Starred) or isinstance(second, ast.Starred):
                continue
            a0, a1 = _segment(starts, lines, first)
            b0, b1 = _segment(starts, lines, second)
            between = text[a1:b0]
            new = text[b0:b1] + between + text[a0:a1]
            add("args", node, a0, b1, new)
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.Expr)) and line == end_line:
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                continue  # a docstring
            start, end = _segment(starts, lines, node)
            add("del", node, start, end, "pass")
    ordered = sorted(found.values(), key=lambda m: (m.start, m.kind, m.new))
    seen: Dict[str, int] = {}
    numbered = []
    for mutant in ordered:
        plain = replace(mutant, occurrence=0).id
        numbered.append(replace(mutant, occurrence=seen.get(plain, 0)))
        seen[plain] = seen.get(plain, 0) + 1
    return numbered


def task_mutants(root: Path, task: str, registry: Registry) -> List[CourseMutant]:
    """Every mutant of ``task``'s solution regions, over the files it lists and
    any other file holding one of its regions."""
    from kindling.regions import source_files

    mutants: List[CourseMutant] = []
    for path in source_files(root):
        if path.suffix != ".py":
            continue
        text = path.read_text(encoding="utf-8")
        if f"BEGIN SOLUTION {task}" not in text:
            continue
        relative = path.relative_to(root).as_posix()
        mutants.extend(mutants_of(text, relative, task, registry))
    return mutants


def _data(root: Path, name: str) -> Dict[str, str]:
    """The dict literal ``name`` of every ``tests/mutants/*.py``, merged (read as
    a literal, never imported)."""
    folder = Path(root) / EQUIVALENTS_DIR
    known: Dict[str, str] = {}
    for path in sorted(folder.glob("*.py")) if folder.is_dir() else []:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in node.targets
            ):
                known.update(ast.literal_eval(node.value))
    return known


def load_equivalents(root: Path) -> Dict[str, str]:
    """{mutant id: why it computes the same thing} (``EQUIVALENT`` in
    ``tests/mutants/*.py``)."""
    return _data(root, "EQUIVALENT")


def load_later(root: Path) -> Dict[str, str]:
    """{mutant id: the later task whose tests must kill it} (``LATER``): code a
    task writes for another to use (``save_for_backward`` in a forward, read only
    by Task 1.4's backward) can be wrong in a way only that task's tests see. Such a
    survivor is run again under the later task's marker: killed there, it counts
    as killed (``killed-by-X.Y``); it is never taken on trust."""
    return _data(root, "LATER")


KILLERS = 3  # how many of the latest killing tests a mutant runs first


#: One line of ``kindling mutants`` output: a verdict and a mutant (an id may
#: span lines). Equivalents are not read: ``tests/mutants/`` records them.
_VERDICT_LINE = re.compile(
    r"^(killed-by-\d+\.\d+|killed-crash|killed|SURVIVED|TIMEOUT|ERROR) +(.*?)"
    r" \(\d+ s\)$",
    re.S | re.M,
)


def verdicts_before(logs: Sequence[Path]) -> Dict[str, str]:
    """{mutant id: verdict} that earlier runs (their saved output, ``logs``, oldest
    first) give. A kill stays a kill while the tests only grow (a mutant whose
    code changed has a new id); otherwise a later log's verdict replaces an
    earlier one (a survivor run again after a new test, say)."""
    verdicts: Dict[str, str] = {}
    for log in logs:
        text = Path(log).read_text(encoding="utf-8", errors="replace")
        for match in _VERDICT_LINE.finditer(text):
            label, mutant = match.group(1), match.group(2)
            if not verdicts.get(mutant, "").startswith("killed"):
                verdicts[mutant] = label.lower()
    return verdicts


def killed_before(logs: Sequence[Path]) -> Dict[str, str]:
    """{mutant id: verdict} of every mutant that earlier runs (``logs``) report
    killed. A full run of a Numba task takes longer than a session: ``--resume``
    lets it go on where it stopped; survivors and time-outs are run again."""
    return {
        mutant: verdict
        for mutant, verdict in verdicts_before(logs).items()
        if verdict.startswith("killed")
    }


def _run(
    copy: Path,
    marker: str,
    timeout: float,
    *tests: str,
    stall: Optional[float] = None,
) -> Tuple[str, float, str]:
    """The marker's tests (or only ``tests``, node ids, where given) with ``-x``:
    ``(verdict, seconds, output)``; a ``timeout`` after ``timeout`` seconds, or
    ``stall`` seconds without output."""
    started = time.monotonic()
    run = run_marker(copy, marker, timeout, "-x", *tests, stall=stall)
    seconds = time.monotonic() - started
    if run is None:
        return "timeout", seconds, ""
    output = (run.stdout + run.stderr)[-1500:]
    if run.returncode < 0:
        # Killed by a signal: a mutated kernel wrote outside its arrays and the C
        # runtime aborted (SIGABRT, SIGSEGV). The tests did not pass: a kill.
        return "killed-crash", seconds, output
    verdict = {0: "survived", 1: "killed"}.get(run.returncode, "error")
    return verdict, seconds, output


def _killer(output: str) -> Optional[str]:
    """The node id of the test that failed (pytest's ``FAILED <id> - ...`` line)."""
    match = re.search(r"^FAILED (\S+?)(?: - |$)", output, re.MULTILINE)
    return match.group(1) if match else None


def _run_killers_first(
    copy: Path,
    marker: str,
    timeout: float,
    killers: List[str],
    stall: Optional[float] = STALL_SECONDS,
) -> Tuple[str, float, str]:
    """Run the tests that killed the latest mutants first, then, unless one of
    them fails, the whole marker. Mutants next to each other in a function are
    mostly killed by the same test, and a task's first failing test can come
    late in its files: the 50 killed mutants of Task 2.4's ``grad_check`` took
    449 s with the whole marker, 225 s with the killers first (2026-11-26, the
    2-core VM beside one other mutation run). ``killers`` is updated in place."""
    seconds = 0.0
    if killers:
        verdict, seconds, output = _run(copy, marker, timeout, *killers, stall=stall)
        if verdict.startswith("killed") or verdict == "timeout":
            return verdict, seconds, output
    verdict, more, output = _run(copy, marker, timeout, stall=stall)
    killer = _killer(output) if verdict == "killed" else None
    if killer:
        killers[:] = [killer] + [k for k in killers if k != killer][: KILLERS - 1]
    return verdict, seconds + more, output


def run_task_mutants(
    root: Path,
    task: str,
    mutants: Sequence[CourseMutant],
    registry: Registry,
    equivalents: Optional[Dict[str, str]] = None,
    echo: Callable[[str], None] = print,
    later: Optional[Dict[str, str]] = None,
    kernels: Optional[Path] = None,
    known: Optional[Dict[str, str]] = None,
    timeout: Optional[float] = None,
    stall: Optional[float] = STALL_SECONDS,
) -> List[MutantOutcome]:
    """Run each mutant of ``task`` against a copy of the source at ``root`` (which
    starts with the trusted compiled kernels of ``kernels``, if given: the kernel
    cache keys by code, so a mutant recompiles only the kernels it changes).
    ``known``: kills reported by earlier runs (:func:`killed_before`), not run
    again. ``timeout``: the time limit of one mutant's run (default: ``FACTOR``
    times the unmutated run, at least ``MIN_SECONDS``); ``stall``: the silence
    after which it is stuck."""
    equivalents = equivalents or {}
    later = later or {}
    known = known or {}
    marker = registry[task].marker
    outcomes: List[MutantOutcome] = []
    with tempfile.TemporaryDirectory(prefix="kindling-mutants-") as folder:
        copy = Path(folder) / "source"
        copy_source(Path(root), copy)
        if kernels is not None:
            copy_trusted_kernels(Path(kernels), copy)
        verdict, base_seconds, output = _run(copy, marker, registry[task].timeout)
        if verdict != "survived":  # the unmutated source must pass its own tests
            echo(f"task {task}: the unmutated tests do not pass:\n{output}")
            return []
        limit = timeout or max(MIN_SECONDS, FACTOR * base_seconds)
        if stall is not None:  # no test of the unmutated run took longer than it
            stall = max(stall, base_seconds)
        killers: List[str] = []
        for mutant in mutants:
            outcome = settled(mutant, equivalents, known)
            if outcome is None:
                path = copy / mutant.file
                original = path.read_text(encoding="utf-8")
                try:
                    path.write_text(mutant.apply(original), encoding="utf-8")
                    verdict, seconds, output = _run_killers_first(
                        copy, marker, limit, killers, stall
                    )
                    if verdict == "survived" and later.get(mutant.id) in registry:
                        other = registry[later[mutant.id]]
                        again, more, output = _run(copy, other.marker, other.timeout)
                        seconds += more
                        if again == "killed":
                            verdict = f"killed-by-{other.id}"
                finally:
                    path.write_text(original, encoding="utf-8")
                detail = output if verdict in ("survived", "error") else ""
                outcome = MutantOutcome(mutant, verdict, seconds, detail)
            echo(format_outcome(outcome))
            outcomes.append(outcome)
    return outcomes


def format_outcome(outcome: MutantOutcome) -> str:
    verdict = outcome.verdict
    quiet = verdict == "equivalent" or verdict.startswith("killed")
    label = verdict if quiet else verdict.upper()
    return f"{label:<10} {outcome.mutant.id} ({outcome.seconds:.0f} s)"


def score(outcomes: Sequence[MutantOutcome]) -> Tuple[int, int]:
    """(killed, judged): equivalents and time-outs are not judged; a mutant killed
    by the later task that uses the code counts as killed."""
    killed = sum(o.verdict.startswith("killed") for o in outcomes)
    judged = killed + sum(o.verdict in ("survived", "error") for o in outcomes)
    return killed, judged


def settled(
    mutant: CourseMutant, equivalents: Dict[str, str], known: Dict[str, str]
) -> Optional[MutantOutcome]:
    """The outcome of ``mutant`` without running it, if the records
    (``equivalents``) or earlier runs' logs (``known``: {id: verdict}) give one;
    a record counts over a log. ``None``: it must run."""
    if mutant.id in equivalents:
        return MutantOutcome(mutant, "equivalent", 0.0, equivalents[mutant.id])
    if mutant.id in known:
        return MutantOutcome(mutant, known[mutant.id], 0.0, "earlier run")
    return None


def tally_outcomes(
    mutants: Sequence[CourseMutant],
    equivalents: Dict[str, str],
    verdicts: Dict[str, str],
) -> List[MutantOutcome]:
    """Each mutant's outcome as the records and earlier runs' logs (``verdicts``,
    from :func:`verdicts_before`) give it, without running anything: ``not run``
    where neither does."""
    return [
        settled(mutant, equivalents, verdicts) or MutantOutcome(mutant, "not run", 0.0)
        for mutant in mutants
    ]


def sample(
    mutants: Sequence[CourseMutant], count: int, seed: int = 0
) -> List[CourseMutant]:
    """``count`` mutants chosen by a fixed seed (the same on every machine)."""
    if count <= 0 or count >= len(mutants):
        return list(mutants)
    chosen = random.Random(seed).sample(range(len(mutants)), count)
    return [mutants[k] for k in sorted(chosen)]


def main(
    root: Path,
    tasks: str = "",
    count: int = 0,
    seed: int = 0,
    list_only: bool = False,
    echo: Callable[[str], None] = print,
    kernels: Optional[Path] = None,
    match: str = "",
    resume: Sequence[Path] = (),
    timeout: Optional[float] = None,
    tally: bool = False,
) -> int:
    """``kindling mutants``: 0 when no judged mutant survives, 1 otherwise.
    ``match``: only the mutants whose id contains one of its ``|``-separated
    parts (to re-run the survivors of a run). ``resume``: earlier runs' output,
    whose kills are taken as they are (:func:`killed_before`). ``tally``: run
    nothing; the table of what ``resume``'s logs (oldest first) and the records
    say, each mutant no log judged counted as not yet run."""
    registry = load_registry()
    chosen = [t.strip() for t in tasks.split(",") if t.strip()] or [
        t.id for t in registry.tasks if t.scoring != "mutation"
    ]
    unknown = [t for t in chosen if t not in registry]
    if unknown:
        echo(f"kindling mutants: no task {', '.join(unknown)} in the registry")
        return 2
    equivalents = load_equivalents(root)
    later = load_later(root)
    known = verdicts_before(resume) if tally else killed_before(resume)
    survivors = 0
    rows: List[str] = []
    for task in chosen:
        mutants = sample(task_mutants(Path(root), task, registry), count, seed)
        if match:
            parts = [part for part in match.split("|") if part]
            mutants = [m for m in mutants if any(part in m.id for part in parts)]
        if list_only:
            for mutant in mutants:
                echo(f"{task:<5}{mutant.id}")
            continue
        echo(f"task {task}: {len(mutants)} mutant(s)")
        if tally:
            outcomes = tally_outcomes(mutants, equivalents, known)
            for outcome in outcomes:  # what is left to do: no kill, no record
                if outcome.verdict in ("survived", "timeout", "error", "not run"):
                    echo(format_outcome(outcome))
            rest = sum(o.verdict == "not run" for o in outcomes)
            echo(f"task {task}: {rest} mutant(s) not yet run")
        else:
            outcomes = run_task_mutants(
                Path(root),
                task,
                mutants,
                registry,
                equivalents,
                echo,
                later,
                kernels,
                known,
                timeout,
            )
        killed, judged = score(outcomes)
        survivors += judged - killed
        timeouts = sum(o.verdict == "timeout" for o in outcomes)
        same = sum(o.verdict == "equivalent" for o in outcomes)
        by_later = sum(o.verdict.startswith("killed-by-") for o in outcomes)
        rows.append(
            f"| {task} | {len(outcomes)} | {killed} ({by_later}) | {judged - killed} "
            f"| {same} | {timeouts} | {100 * killed / judged if judged else 100:.0f}% |"
        )
    if rows:
        echo(
            "| task | mutants | killed (by a later task) | survived | equivalent "
            "| time-outs | score |"
        )
        echo("|---|---:|---:|---:|---:|---:|---:|")
        for row in rows:
            echo(row)
    return 0 if survivors == 0 else 1
