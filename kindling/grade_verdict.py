"""The grader's verdict: pure functions from what a session claims to a grade.

Nothing here runs a process, touches the submission or imports student code: a
:class:`kindling.grade_runner.Session` (parsed, untrusted claims) and what the
grader knows itself (the tests it collected, the lines no student edition ships)
go in, a :class:`TaskGrade` and the feedback a student may see come out.
:mod:`kindling.grade` (a whole submission) and :mod:`kindling.mutation` (Task 0.2)
both judge with these functions.
"""

from __future__ import annotations

import builtins
import os
import re
import signal
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Set

from kindling.grade_runner import Run, Session, tree_path
from kindling.registry import Task

MESSAGE_CHARS = 1500  # a failure message is trimmed to about this many characters
SECRET_KEY = 24  # a secret line this long is never shown, even inside a longer line
STUB_IN_TEXT = re.compile(r"NotImplementedError: Task (\d+\.\d+)")


@dataclass
class TaskGrade:
    """The grade of one task."""

    id: str
    title: str
    marker: str
    scoring: str
    max_points: int
    points: float = 0.0
    status: str = "crashed"
    passed: int = 0
    failed: int = 0
    total: int = 0
    message: str = "not graded: the grader stopped before this task"
    details: Dict[str, object] = field(default_factory=dict)
    seconds: float = 0.0

    @classmethod
    def for_task(cls, task: Task) -> "TaskGrade":
        return cls(task.id, task.title, task.marker, task.scoring, task.points)

    def to_json(self) -> dict:
        data = asdict(self)
        del data["seconds"]  # timings live apart, so that results are reproducible
        return data


def secret_lines(work: Path, files: Iterable[str], shipped: Set[str]) -> Set[str]:
    """The lines of the tree's files that no student edition ships (hidden tests,
    instructor-only files): feedback must never carry one of them."""
    lines: Set[str] = set()
    for relative in files:
        if relative in shipped:
            continue
        try:
            text = (work / relative).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        lines.update(_secret_candidates(text))
    return lines


def _secret_candidates(text: str) -> Iterable[str]:
    for line in text.splitlines():
        line = line.strip()
        if len(line) >= 12:  # short lines ("return x", "else:") say nothing
            yield line


def clean_message(text: str, work: Path, limit: int = MESSAGE_CHARS) -> str:
    """A failure message made reproducible (no temp paths, no addresses) and short."""
    from kindling.sandbox import TREE

    roots = {str(work): "", str(work.resolve()): "", TREE: ""}
    roots.update(_host_roots())
    for root in sorted(roots, key=len, reverse=True):
        name = roots[root]
        text = text.replace(root + os.sep, f"{name}/" if name else "")
        text = text.replace(root, name or ".")
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)
    text = re.sub(r"0x[0-9a-fA-F]{6,}", "0x...", text)
    text = re.sub(r"[\x00-\x08\x0b-\x1f\x7f]", "", text).strip()
    if len(text) > limit:
        keep = limit // 4
        text = f"{text[:keep]}\n[...]\n{text[-(limit - keep):]}"
    return text


def _host_roots() -> Dict[str, str]:
    """The grader's own paths, as a report names them: no student (and no reader of
    a report) learns where the instructor keeps the source or the virtualenv."""
    roots: Dict[str, str] = {}
    here = Path(__file__).resolve().parents[1]  # the tree this grader belongs to
    for path, name in (
        (Path.home(), "<home>"),
        (here, "<source>"),
        (Path(sys.base_prefix), "<python>"),
        (Path(sys.exec_prefix), "<venv>"),
        (Path(sys.prefix), "<venv>"),
    ):
        for variant in {str(path), str(path.resolve())}:
            if len(variant) > 1:
                roots[variant] = name
    return roots


@dataclass
class Feedback:
    """What a student may be shown of a failure (see :func:`feedback`)."""

    tree: Path
    student: Set[str] = field(default_factory=set)  # the registry's student files
    secrets: Set[str] = field(default_factory=set)  # lines no edition ships
    # Terse feedback (the session could read reference code): only the names of
    # the student's own test functions (``names``, read from their file by the
    # grader, outside the sandbox), counts and exception types, never a node id,
    # a parameter id, a location or a message that the session wrote.
    terse: bool = False
    task_ids: Optional[Set[str]] = None  # the registry's tasks (None: any id)
    names: Set[str] = field(default_factory=set)  # terse: the student's test names

    def __post_init__(self) -> None:
        # Long secrets by their first SECRET_KEY characters: a line is checked in
        # time linear in its length, not in the number of secrets (thousands of
        # lines of hidden tests; 40 forged failures cost the grader a second each).
        self._long: Dict[str, List[str]] = {}
        for secret in self.secrets:
            if len(secret) >= SECRET_KEY:
                self._long.setdefault(secret[:SECRET_KEY], []).append(secret)

    def allowed(self, line: str) -> bool:
        core = re.sub(r"^[E>+\s]+", "", line).strip()
        if core in self.secrets:
            return False
        long = self._long
        for start in range(len(line) - SECRET_KEY + 1):
            found = long.get(line[start : start + SECRET_KEY])
            if found and any(line.startswith(s, start) for s in found):
                return False
        return True

    def filter(self, text: str) -> str:
        return "\n".join(line for line in text.splitlines() if self.allowed(line))

    def test_name(self, nodeid: str) -> str:
        """How a test is named in feedback: its node id, or (terse) the name of the
        student's test function it claims to be, if the student's file defines
        one of that name, else "a test"."""
        if not self.terse:
            return nodeid
        function = str(nodeid).rsplit("::", 1)[-1].split("[", 1)[0]
        return function if function in self.names else "a test"

    def stub(self, label: str) -> str:
        """A stub label the session sent, if it names a task of the registry."""
        if self.task_ids is not None and label not in self.task_ids:
            return ""
        return label


def _lines(value: object, limit: int) -> List[str]:
    if not isinstance(value, list):
        return []
    return [line[:500] for line in value[:limit] if isinstance(line, str)]


def feedback(nodeid: str, record: object, context: Feedback) -> str:
    """The student-visible account of a failed test: its name, the traceback lines
    in student files and the exception's message, without a line of any file the
    student edition does not ship. ``context.terse``: name, locations and the
    exception's type only (the run could read reference code)."""
    if context.terse:
        return _terse_feedback(nodeid, record, context)
    lines = [nodeid]
    if isinstance(record, dict):
        entries = (
            record.get("entries") if isinstance(record.get("entries"), list) else []
        )
        for entry in entries[:40]:
            if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
                continue
            path = tree_path(entry["path"], context.tree)
            if path not in context.student:
                continue
            lineno = entry.get("lineno")
            lines.append(f"{path}:{lineno if isinstance(lineno, int) else '?'}")
            if not context.terse:
                lines += ["    " + line for line in _lines(entry.get("lines"), 30)]
        crash = record.get("crash") if isinstance(record.get("crash"), str) else ""
        lines += crash[:4000].splitlines()[:30]
    # The message keeps about MESSAGE_CHARS of its head and tail: filtering what
    # would be cut anyway only costs the grader time (a forged record holds ~40 x
    # 30 lines of 500 characters).
    lines = _head_and_tail(lines, 2 * MESSAGE_CHARS, 6 * MESSAGE_CHARS)
    return clean_message(context.filter("\n".join(lines)), context.tree)


# The exception types terse feedback may name: Python's own and the few that
# pytest and Hypothesis raise in a test. Any other word the session sends is "an
# exception": a closed list carries no text from inside the sandbox.
TERSE_EXCEPTIONS = frozenset(
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
) | {
    "Failed",
    "Flaky",
    "FlakyFailure",
    "FailedHealthCheck",
    "Unsatisfiable",
    "DeadlineExceeded",
}


def _terse_feedback(nodeid: str, record: object, context: Feedback) -> str:
    """``test_name: ExceptionType``, every word of it checked by the grader: the
    test's name against the student's file, the type against
    :data:`TERSE_EXCEPTIONS`, a stub's task against the registry."""
    crash = record.get("crash") if isinstance(record, dict) else None
    first = (
        crash.strip().splitlines()[0]
        if isinstance(crash, str) and crash.strip()
        else ""
    )
    stub = re.match(r"NotImplementedError: Task (\d+\.\d+):", first)
    kind = re.split(r"[:\s(]", first)[0].rsplit(".", 1)[-1]
    if stub and context.stub(stub[1]):
        what = f"NotImplementedError: Task {stub[1]} still a stub"
    else:
        what = kind if kind in TERSE_EXCEPTIONS else "an exception"
    return f"{context.test_name(nodeid)}: {what}"


def _head_and_tail(lines: List[str], head: int, tail: int) -> List[str]:
    """The first lines up to ``head`` characters and the last up to ``tail``."""
    if sum(len(line) + 1 for line in lines) <= head + tail:
        return lines
    first: List[str] = []
    size = 0
    for line in lines:
        if size + len(line) > head:
            break
        first.append(line)
        size += len(line) + 1
    last: List[str] = []
    size = 0
    for line in reversed(lines[len(first) :]):
        if size + len(line) > tail:
            break
        last.append(line)
        size += len(line) + 1
    return first + ["[...]"] + last[::-1]


def describe_death(run: Run) -> str:
    """Why a process ended without finishing its session, in words."""
    if run.out_of_memory:
        text = "the test process was killed for using more memory than its limit"
        text += " (tmpfs and memfd pages count)"
    elif run.returncode is not None and run.returncode < 0:
        number = -run.returncode
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        why = {
            "SIGSEGV": "a segmentation fault (SIGSEGV)",
            "SIGBUS": "a bus error (SIGBUS)",
            "SIGABRT": "an abort (SIGABRT)",
            "SIGKILL": "SIGKILL (out of memory?)",
            "SIGXFSZ": "writing a file over the size limit (SIGXFSZ)",
        }.get(name, name)
        text = f"the test process was killed by {why}"
    elif run.returncode is None:
        text = "the test process was lost"
    elif run.returncode > 128 and run.returncode - 128 in (
        signal.SIGSEGV,
        signal.SIGBUS,
        signal.SIGABRT,
        signal.SIGKILL,
        signal.SIGXFSZ,
    ):
        # bwrap's init reports a signal death as 128 + the signal's number
        return describe_death(Run(128 - run.returncode, False, 0, "", run.session))
    else:
        text = f"the test process exited with status {run.returncode} before pytest"
        text += " finished"
    if run.session.started:
        text += f", while running {run.session.started[-1]}"
    return text


def _points(
    task: Task, status: str, passed: int, total: int, partial: bool = False
) -> float:
    proportional = task.scoring == "proportional" or (
        partial and task.scoring != "mutation"
    )
    if proportional and status not in ("timeout", "crashed", "tampered"):
        return round(task.points * passed / total, 2) if total else 0.0
    return float(task.points) if status == "done" else 0.0


def tampering(session: Session, expected: Optional[List[str]], known: Set[str]) -> str:
    """Why the session's results cannot be true, or ``""``: results for tests that
    were never collected. ``expected``: the tests the run was given (None when
    unknown); ``known``: every test of the pristine tree."""
    if expected is not None:
        unknown = sorted(set(session.outcomes) - set(expected) - known)
        if unknown:
            return f"results for tests that were never collected ({unknown[0]})"
    return ""


def judge(
    task: Task,
    run: Run,
    expected: Optional[List[str]],
    context: Feedback,
    limit: Optional[float] = None,
    known: Optional[Set[str]] = None,
    partial: bool = False,
    stop_at_first_failure: bool = False,
) -> TaskGrade:
    """Turn what a task's session claims into the task's grade.

    ``expected``: the node ids of the task's tests, collected by the grader from the
    pristine tree (None when unknown); tests that never ran count as failed, and a
    skipped test never passes. ``known``: every test of the pristine tree.
    Whatever the message quotes (node ids included) goes through ``context``'s
    filter: nothing the student edition does not ship reaches it.
    """
    grade = _judge(
        task,
        run,
        expected,
        context,
        limit,
        known,
        partial,
        stop_at_first_failure,
    )
    if run.session.settings:
        # Re-applied by the grader's plugin, so the attempt changed nothing; said,
        # because nothing in a student file has a reason to try. (Terse: the
        # session wrote the words, so only that it happened.)
        changes = list(run.session.settings)
        grade.details["hypothesis_settings_changed"] = (
            len(changes) if context.terse else changes
        )
        said = "" if context.terse else f" ({', '.join(changes)})"
        note = (
            f"note: student code changed the Hypothesis settings{said}; "
            "the grader's settings were used"
        )
        grade.message = f"{note}\n{grade.message}" if grade.message else note
    if grade.message:
        grade.message = clean_message(context.filter(grade.message), context.tree)
    return grade


def _judge(
    task: Task,
    run: Run,
    expected: Optional[List[str]],
    context: Feedback,
    limit: Optional[float],
    known: Optional[Set[str]],
    partial: bool,
    stop_at_first_failure: bool,
) -> TaskGrade:
    from kindling.pytest_plugin import classify

    known = known or set()
    grade = TaskGrade.for_task(task)
    grade.seconds, grade.total = run.seconds, len(expected or [])
    session = run.session
    if run.timed_out:
        grade.status = "timeout"
        within = f"{limit:g} s" if limit else "the time limit"
        grade.message = f"the tests did not finish within {within}"
        if session.started:
            grade.message += f"; still running {context.test_name(session.started[-1])}"
        return grade
    why = tampering(session, expected, known)
    if why:
        grade.status = "tampered"
        why = "" if context.terse else f" ({why})"  # terse: it may quote a node id
        grade.message = (
            f"the test process reported results that cannot be true{why}; "
            "no points: the submission needs a look by hand"
        )
        return grade
    if session.problem or not session.finished or session.exitstatus in (3, 4):
        grade.status = "crashed"
        if session.problem and context.terse:  # its numbers come from the session
            grade.message = "the test process sent malformed results"
        elif session.problem:
            grade.message = (
                f"the test process sent malformed results: {session.problem}"
            )
        elif not session.finished:
            grade.message = describe_death(run)
        else:
            grade.message = f"pytest stopped with exit status {session.exitstatus}"
        tail = context.filter(clean_message(run.output[-4000:], context.tree))
        grade.message += f"\n{tail}" if tail and not context.terse else ""
        grade.message = clean_message(grade.message, context.tree)
        return grade

    if expected is None:  # unknown: trust the session's own markers, no more
        expected = [n for n, t in session.items if t == task.id]
        grade.total = len(expected)
    if stop_at_first_failure:  # -x: the tests after the first failure never ran
        expected = [n for n in expected if n in session.outcomes]
    passed, failed, stubs, message, skip = 0, 0, [], "", ""
    errors = session.collection_errors
    never_ran = STUB_IN_TEXT.search(errors[0]["message"]) if len(errors) == 1 else None
    missing = 0
    first_by_stub: Dict[str, str] = {}  # the first failure at each task's stub
    for nodeid in expected:
        outcome = session.outcomes.get(nodeid)
        if outcome is None:
            failed, missing = failed + 1, missing + 1
            stubs.append(never_ran[1] if never_ran else "")
        elif outcome.outcome == "passed":
            passed += 1
        elif outcome.outcome == "skipped":
            failed += 1
            stubs.append("")
            skip = skip or f"{context.test_name(nodeid)}\nskipped"
        else:
            failed += 1
            stub = context.stub(outcome.stub)
            stubs.append(stub)
            if not message:
                message = feedback(nodeid, outcome.message, context)
            if stub and stub not in first_by_stub:
                first_by_stub[stub] = feedback(nodeid, outcome.message, context)
    if missing and not message:
        if errors and context.terse:  # the student can collect their file at home
            where = errors[0]["nodeid"]
            where = where if where in context.student else "a test file"
            message = f"{where} could not be collected"
        elif errors:
            message = f"{errors[0]['nodeid']} could not be collected:\n"
            message += context.filter(errors[0]["message"])
        else:
            message = f"{missing} of the task's tests did not run"
    message = message or skip
    grade.passed, grade.failed, grade.total = passed, failed, len(expected)
    if not expected:
        grade.status, grade.message = "no tests", "no test carries this task's marker"
        return grade
    grade.status = classify(task.id, passed, failed, stubs).replace(" by ", "-by ")
    grade.points = _points(task, grade.status, passed, len(expected), partial)
    if grade.status == "done":
        grade.message = ""
    elif grade.status == "todo" or grade.status.startswith("blocked-by"):
        # Name the stub that decided the status: the blocker's, or the task's own.
        blocker = grade.status[len("blocked-by ") :] or task.id
        message = first_by_stub.get(blocker, message)
        grade.message = _stub_summary(message) or clean_message(message, context.tree)
    else:
        grade.message = clean_message(message, context.tree)
    return grade


def _stub_summary(failure: str) -> str:
    """``NotImplementedError: Task 0.1: implement neg (first met in <test>)``."""
    found = re.search(r"NotImplementedError: (Task \d+\.\d+:[^\n]*)", failure)
    if not found:
        return ""
    test = failure.split("\n", 1)[0]
    return f"{found[1].strip()} (first met in {test})"
