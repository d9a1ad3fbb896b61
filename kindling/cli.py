"""The ``kindling`` command line: what students and graders run (tasks, grade,
sync, bench, kernels, doctor), and the instructor's commands where the staff
package declares them (:mod:`kindling.plugins`: release, classroom, grade --batch,
marks, mistakes, mutants, layers, doctor --platforms)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

from kindling import plugins
from kindling.registry import load_registry

#: Instructor commands spelled as an option of a student command, and the staff
#: command that serves each: ``kindling grade --batch DIR`` is ``kindling
#: grade-batch --batch DIR``. Used only where the staff package declares that
#: command; elsewhere (a student edition) argparse refuses the option.
STAFF_SPELLINGS = {
    ("grade", "--batch"): "grade-batch",
    ("grade", "merge"): "grade-batch",
    ("doctor", "--platforms"): "platforms",
}


def _cmd_tasks(args: argparse.Namespace) -> int:
    registry = load_registry()
    for task in registry:
        depends = ", ".join(task.depends) or "-"
        print(f"{task.id:>4}  {task.marker:<8} {task.points:>3} pts  {task.title}")
        if args.verbose:
            print(f"      files: {', '.join(task.files)}; depends on: {depends}")
            print(f"      {task.description}")
    print(f"{len(registry)} tasks, {sum(t.points for t in registry)} points")
    return 0


def grading_options(args: argparse.Namespace) -> Dict[str, Any]:
    """The options of :class:`kindling.grade.Grader` that the command line sets
    (:func:`add_grade_options`), for one submission or a batch."""
    return dict(
        source=Path(args.source) if args.source else None,
        tasks=args.tasks,
        timeout=args.timeout,
        memory_mb=args.memory,
        sandbox=not args.unsafe_no_sandbox,
        partial=args.partial,
        kernel_cache=Path(args.kernel_cache) if args.kernel_cache else None,
    )


def echo(line: str) -> None:
    """A grader's progress line, on standard error."""
    print(line, file=sys.stderr, flush=True)


def _cmd_grade(args: argparse.Namespace) -> int:
    from kindling.grade import GradeError, Grader
    from kindling.grade_reports import format_table, write_reports

    if args.unsafe_no_sandbox:
        echo("kindling grade: WARNING: no sandbox: student code runs as you")

    def update(report) -> None:  # after every task: an interrupted run leaves one
        write_reports(report, args.json, args.markdown, args.gradescope, args.junit)

    try:
        grader = Grader(
            Path(args.submission), echo=echo, on_update=update, **grading_options(args)
        )
    except GradeError as error:
        print(f"kindling grade: {error}", file=sys.stderr)
        return 2
    try:
        grader.run()
    finally:  # whatever happened, every result file is complete
        report = grader.report
        try:
            update(report)
        except OSError as error:  # the others are written: say which was not
            echo(f"kindling grade: {error}")
    print(format_table(report))
    if report.interrupted:
        return 130
    if args.expect:
        wrong = [t for t in report.tasks if not _as_expected(t, args.expect)]
        if wrong:
            ids = ", ".join(sorted({t.id for t in wrong}))
            print(f"kindling grade: expected every task {args.expect}: not {ids}")
            return 1
    return 2 if report.aborted else 0


def _cmd_sync(args: argparse.Namespace) -> int:
    from kindling.sync import SyncError, sync

    try:
        actions = sync(Path(args.previous), Path(args.to), dry_run=args.dry_run)
    except SyncError as error:
        print(f"kindling sync: {error}", file=sys.stderr)
        return 2
    for relative, action in actions:
        print(f"{action:>9}  {relative}")
    copied = sum(action in ("copied", "would copy") for _, action in actions)
    print(f"{copied} file(s) {'to copy' if args.dry_run else 'copied'}")
    merged = sum(action in ("merged", "would merge") for _, action in actions)
    if merged:
        print(
            f"{merged} file(s) {'to merge' if args.dry_run else 'merged'}: the "
            "course moved code between files; your solutions went with it"
        )
    return 0


def add_grade_options(grade: argparse.ArgumentParser) -> None:
    """The options every grading command shares (``grade``, and the staff's
    ``grade --batch``): what to grade against, which tasks, limits, sandbox."""
    from kindling.grade import DEFAULT_MEMORY_MB

    grade.add_argument(
        "--source",
        default=None,
        metavar="DIR",
        help="the pristine tree to grade against (default: this kindling's tree)",
    )
    grade.add_argument(
        "--tasks", default="all", metavar="LIST", help="'all' or a list like 0.1,2.3"
    )
    grade.add_argument(
        "--json", type=Path, metavar="FILE", help="write the full results as JSON"
    )
    grade.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="S",
        help="seconds per task (default: the registry's)",
    )
    grade.add_argument(
        "--memory",
        type=int,
        default=DEFAULT_MEMORY_MB,
        metavar="MB",
        help=f"address-space limit per task, 0 for none (default {DEFAULT_MEMORY_MB})",
    )
    grade.add_argument(
        "--partial",
        action="store_true",
        help="proportional points (passed/total) for every task, not all or nothing",
    )
    grade.add_argument(
        "--kernel-cache",
        metavar="DIR",
        default=None,
        help="a trusted tree (the instructor source after its own test run) whose "
        "compiled Numba kernels every sandbox may read, read-only; for trusted code "
        "only (CI's edition checks): never when grading students (docs/GRADING.md)",
    )
    grade.add_argument(
        "--unsafe-no-sandbox",
        action="store_true",
        help="grade without bubblewrap (student code runs as you and sees your "
        "files): only for trusted code or a throwaway machine",
    )


def _add_grading_commands(commands) -> None:
    """``grade`` (one submission) and ``sync``."""
    grade = commands.add_parser(
        "grade", help="grade a submission against the pristine tests"
    )
    grade.add_argument(
        "--submission",
        default=".",
        metavar="DIR",
        help="the student's checkout (default: .)",
    )
    add_grade_options(grade)
    for option, what in (
        ("--markdown", "a Markdown summary"),
        ("--gradescope", "Gradescope's results.json"),
        ("--junit", "JUnit XML"),
    ):
        grade.add_argument(option, type=Path, metavar="FILE", help=f"write {what}")
    grade.add_argument(
        "--expect",
        default=None,
        metavar="STATUS",
        help="exit 1 unless every task has this status (done: with full points; "
        "todo: no points, its own stub or an earlier task's in the way)",
    )
    grade.set_defaults(func=_cmd_grade)

    sync = commands.add_parser(
        "sync", help="copy your solved files from the previous edition into this one"
    )
    sync.add_argument(
        "--from",
        dest="previous",
        required=True,
        metavar="PREV_EDITION",
        help="the edition you worked in so far",
    )
    sync.add_argument(
        "--to", default=".", metavar="DIR", help="the new edition (default: .)"
    )
    sync.add_argument("--dry-run", action="store_true", help="only list the files")
    sync.set_defaults(func=_cmd_sync)


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command: the student's, then the staff's that
    :mod:`kindling.plugins` finds (each adds its own subparser)."""
    parser = argparse.ArgumentParser(
        prog="kindling", description="The Kindling course toolchain."
    )
    commands = parser.add_subparsers(dest="command", required=True)

    tasks = commands.add_parser("tasks", help="list the tasks of the registry")
    tasks.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="also show each task's files, dependencies and description",
    )
    tasks.set_defaults(func=_cmd_tasks)

    _add_grading_commands(commands)

    bench = commands.add_parser(
        "bench",
        help="time the backends (see 'kindling bench --help')",
        add_help=False,
    )
    bench.add_argument("rest", nargs=argparse.REMAINDER)
    bench.set_defaults(func=_cmd_bench)

    doctor = commands.add_parser("doctor", help="check this machine for the course")
    doctor.set_defaults(func=_cmd_doctor)

    kernels = commands.add_parser(
        "kernels",
        help="registers, shared memory and occupancy of the CUDA kernels "
        "(see 'kindling kernels --help')",
        add_help=False,
    )
    kernels.add_argument("rest", nargs=argparse.REMAINDER)
    kernels.set_defaults(func=_cmd_kernels)

    for point in plugins.entry_points(plugins.COMMANDS).values():
        point.load()(commands)
    return parser


def _as_expected(task: Any, expect: str) -> bool:
    """Whether a graded task is what ``--expect`` asks: ``done`` with full points;
    ``todo`` with no points, or stopped at the stub of an earlier task (a fresh
    edition's Task 2.3 first meets Task 2.1's stub: it is still to do)."""
    if expect == "done":
        return task.status == "done" and task.points == task.max_points
    if expect == "todo":
        fresh = task.status == "todo" or task.status.startswith("blocked-by")
        return fresh and task.points == 0
    return task.status == expect


def _cmd_bench(args: argparse.Namespace) -> int:
    from kindling.bench import main as bench_main  # Numba loads only when needed

    return int(bench_main(args.rest) or 0)


def _cmd_kernels(args: argparse.Namespace) -> int:
    from kindling.kernels import main as kernels_main

    return kernels_main(args.rest)


def _cmd_doctor(args: argparse.Namespace) -> int:
    from kindling.doctor import main as doctor_main

    return doctor_main()


def staff_spelling(argv: List[str], staff: Any) -> List[str]:
    """``argv`` with an instructor command spelled as a student command's option
    (:data:`STAFF_SPELLINGS`) turned into the staff command that serves it, where
    ``staff`` (the names of the staff commands) has it."""
    for (command, option), target in STAFF_SPELLINGS.items():
        if option.startswith("-"):  # an option, anywhere
            spelled = any(a == option or a.startswith(option + "=") for a in argv[1:])
        else:  # a word, right after the command (``--submission merge`` is not)
            spelled = argv[1:2] == [option]
        if argv[:1] == [command] and spelled and target in staff:
            return [target] + argv[1:]
    return argv


def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["bench"]:  # bench parses its own options, --help included
        return _cmd_bench(argparse.Namespace(rest=argv[1:]))
    if argv[:1] == ["kernels"]:  # so does kernels
        return _cmd_kernels(argparse.Namespace(rest=argv[1:]))
    argv = staff_spelling(argv, plugins.entry_points(plugins.COMMANDS))
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
