"""The ``kindling`` command line: release, tasks, grade, classroom, bench, doctor,
kernels, mistakes, marks, mutants, layers."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, List, Optional

from kindling.registry import load_registry


def _cmd_release(args: argparse.Namespace) -> int:
    from kindling.release import ReleaseError, format_stats, release, release_stats

    if args.stats:
        from kindling.reading import format_reading, reading_stats
        from kindling.registry import parse_registry

        source = Path(args.source)
        try:
            print(format_stats(release_stats(source)))
            registry_file = source / "kindling" / "tasks.toml"
            registry = parse_registry(
                registry_file.read_text(encoding="utf-8"), str(registry_file)
            )
            print()
            print(format_reading(reading_stats(source, registry)))
        except ReleaseError as error:
            print(f"kindling release: {error}", file=sys.stderr)
            return 2
        return 0
    if args.out is None:
        print("kindling release: give OUT, the edition's directory", file=sys.stderr)
        return 2
    try:
        summary = release(Path(args.source), Path(args.out), args.through, args.force)
    except ReleaseError as error:
        print(f"kindling release: {error}", file=sys.stderr)
        return 2
    stubs = summary["stubs"]
    print(f"wrote the student edition to {summary['out']}")
    print(f"{summary['files']} files; {sum(stubs.values())} solution regions stubbed")
    for task in sorted(stubs, key=lambda t: tuple(map(int, t.split(".")))):
        print(f"  Task {task}: {stubs[task]} region(s)")
    return 0


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


def _cmd_grade(args: argparse.Namespace) -> int:
    from kindling.grade import GradeError, Grader, grade_batch
    from kindling.grade_reports import format_table, write_batch, write_reports

    def echo(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    options = dict(
        source=Path(args.source) if args.source else None,
        tasks=args.tasks,
        timeout=args.timeout,
        memory_mb=args.memory,
        sandbox=not args.unsafe_no_sandbox,
        partial=args.partial,
        kernel_cache=Path(args.kernel_cache) if args.kernel_cache else None,
    )
    if args.unsafe_no_sandbox:
        echo("kindling grade: WARNING: no sandbox: student code runs as you")
    if args.merge:
        return _merge_shards(args)
    if args.batch:
        from kindling.grade_batch import parse_shard

        done: dict = {}

        def finished(name, report) -> None:  # the batch's files, as each finishes
            done[name] = report
            write_batch(dict(sorted(done.items())), args.batch_csv, args.json)

        try:
            shard = parse_shard(args.shard) if args.shard else None
            jobs = args.jobs or len(os.sched_getaffinity(0))
            reports = grade_batch(
                Path(args.batch), echo, jobs, shard, finished, **options
            )
        except GradeError as error:
            print(f"kindling grade: {error}", file=sys.stderr)
            return 2
        write_batch(reports, args.batch_csv, args.json)
        for name, report in reports.items():
            print(f"{name}: {report.score:g}/{report.max_score}")
        return 130 if any(r.interrupted for r in reports.values()) else 0

    def update(report) -> None:  # after every task: an interrupted run leaves one
        write_reports(report, args.json, args.markdown, args.gradescope, args.junit)

    try:
        grader = Grader(Path(args.submission), echo=echo, on_update=update, **options)
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


def _merge_shards(args: argparse.Namespace) -> int:
    """``kindling grade merge A.json B.json ... --json OUT [--batch-csv CSV]``."""
    from kindling.grade import GradeError
    from kindling.grade_batch import merge
    from kindling.grade_reports import write_batch

    if args.merge[0] != "merge" or len(args.merge) < 2:
        print(
            "usage: kindling grade merge A.json B.json ... --json OUT", file=sys.stderr
        )
        return 2
    try:
        reports = merge([Path(path) for path in args.merge[1:]])
    except GradeError as error:
        print(f"kindling grade: {error}", file=sys.stderr)
        return 2
    write_batch(reports, args.batch_csv, args.json)
    print(f"merged {len(reports)} submissions from {len(args.merge) - 1} files")
    return 0


def _cmd_classroom(args: argparse.Namespace) -> int:
    from kindling.classroom import write_workflows
    from kindling.grade import read_registry

    root = Path(args.out)
    registry = read_registry(Path(args.source))
    if args.through is not None:
        registry = registry.through(args.through)
    for relative in write_workflows(root, registry):
        print(f"wrote {root / relative}")
    return 0


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
    return 0


def _add_grading_commands(commands) -> None:
    """``grade``, ``classroom`` and ``sync``."""
    from kindling.grade import DEFAULT_MEMORY_MB

    grade = commands.add_parser(
        "grade", help="grade a submission against the pristine tests"
    )
    grade.add_argument(
        "--submission",
        default=".",
        metavar="DIR",
        help="the student's checkout (default: .)",
    )
    grade.add_argument(
        "--source",
        default=None,
        metavar="DIR",
        help="the pristine tree to grade against (default: this kindling's tree)",
    )
    grade.add_argument(
        "--tasks", default="all", metavar="LIST", help="'all' or a list like 0.1,2.3"
    )
    for option, what in (
        ("--json", "the full results as JSON"),
        ("--markdown", "a Markdown summary"),
        ("--gradescope", "Gradescope's results.json"),
        ("--junit", "JUnit XML"),
    ):
        grade.add_argument(option, type=Path, metavar="FILE", help=f"write {what}")
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
        "--expect",
        default=None,
        metavar="STATUS",
        help="exit 1 unless every task has this status (done: with full points; "
        "todo: no points, its own stub or an earlier task's in the way)",
    )
    grade.add_argument(
        "--partial",
        action="store_true",
        help="proportional points (passed/total) for every task, not all or nothing",
    )
    grade.add_argument(
        "--batch",
        metavar="DIR",
        default=None,
        help="grade every submission (subdirectory) of DIR, each task of each in "
        "its own sandbox; --json and --batch-csv then hold every grade",
    )
    grade.add_argument(
        "--jobs",
        type=int,
        default=0,
        metavar="N",
        help="with --batch: grade N submissions at once (default: the number of cores)",
    )
    grade.add_argument(
        "--shard",
        default=None,
        metavar="K/N",
        help="with --batch: grade only the K-th of N disjoint, stable parts of DIR "
        "(for a job array or a CI matrix; join them with 'kindling grade merge')",
    )
    grade.add_argument(
        "merge",
        nargs="*",
        metavar="merge FILE",
        help="'merge A.json B.json ...': join the --json files of shards (with --json "
        "OUT and --batch-csv CSV)",
    )
    grade.add_argument(
        "--batch-csv",
        type=Path,
        metavar="FILE",
        default=None,
        help="with --batch: one CSV row of grades per submission",
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
    grade.set_defaults(func=_cmd_grade)

    classroom = commands.add_parser(
        "classroom", help="write the GitHub Classroom and grading workflows"
    )
    classroom.add_argument(
        "--out", default=".", metavar="DIR", help="the edition to write .github/ into"
    )
    classroom.add_argument(
        "--source",
        default=".",
        metavar="DIR",
        help="the tree whose registry to use (default: .)",
    )
    classroom.add_argument(
        "--through",
        type=int,
        default=None,
        metavar="N",
        help="the tasks of modules 0..N only (default: every module)",
    )
    classroom.set_defaults(func=_cmd_classroom)

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
    parser = argparse.ArgumentParser(
        prog="kindling", description="The Kindling course toolchain."
    )
    commands = parser.add_subparsers(dest="command", required=True)

    rel = commands.add_parser(
        "release",
        help="write the student edition",
        description="Write the student edition of the instructor source: solutions "
        "become stubs, instructor-only files stay out, a student README is written.",
    )
    rel.add_argument("out", metavar="OUT", nargs="?", help="directory for the edition")
    rel.add_argument(
        "--source",
        default=".",
        metavar="DIR",
        help="the instructor source to cut it from (default: .)",
    )
    rel.add_argument(
        "--through",
        type=int,
        default=None,
        metavar="N",
        help="include modules 0..N only (default: every module)",
    )
    rel.add_argument("--force", action="store_true", help="replace a non-empty OUT")
    rel.add_argument(
        "--stats",
        action="store_true",
        help="write nothing; print the given code lines (not docstrings, comments "
        "or blank lines) of each student file: before its first stub, and in all",
    )
    rel.set_defaults(func=_cmd_release)

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
    doctor.add_argument(
        "--platforms",
        action="store_true",
        help="instead, ask pip whether the student install resolves from wheels on "
        "macOS (arm64, x86-64), Windows and Linux with Python 3.10-3.13 (needs the "
        "package index)",
    )
    doctor.add_argument(
        "--extras",
        default="dev,app",
        help="with --platforms: the extras to resolve (default: dev,app)",
    )
    doctor.add_argument(
        "--python",
        action="append",
        metavar="X.Y",
        help="with --platforms: a Python version (repeatable; default: 3.10-3.13)",
    )
    doctor.set_defaults(func=_cmd_doctor)

    kernels = commands.add_parser(
        "kernels",
        help="registers, shared memory and occupancy of the CUDA kernels "
        "(see 'kindling kernels --help')",
        add_help=False,
    )
    kernels.add_argument("rest", nargs=argparse.REMAINDER)
    kernels.set_defaults(func=_cmd_kernels)

    mistakes = commands.add_parser(
        "mistakes",
        help="check that each task's tests reject its plausible mistakes",
        description="Apply each mistake of tests/mistakes/ to a copy of the "
        "instructor source, one at a time, and run its task's tests there: exit 1 "
        "when a mistake survives (the tests pass with it).",
    )
    mistakes.add_argument(
        "--task", default="", metavar="X.Y[,X.Y]", help="only these tasks' mistakes"
    )
    mistakes.add_argument(
        "--name", default="", metavar="NAME[,NAME]", help="only these mistakes"
    )
    mistakes.add_argument(
        "--list",
        action="store_true",
        help="check where each mistake applies and list them; run nothing",
    )
    mistakes.add_argument(
        "--source", default=".", metavar="DIR", help="the instructor source"
    )
    mistakes.add_argument(
        "--kernel-cache",
        metavar="DIR",
        help="start the copy with the kernels a trusted run of DIR compiled",
    )
    mistakes.set_defaults(func=_cmd_mistakes)

    marks = commands.add_parser(
        "marks",
        help="check that each task's tests need only that task and its dependencies",
        description="For each task, copy the instructor source with only the task "
        "and the tasks it depends on (tasks.toml, transitively) solved, every other "
        "solution region back to its stub, and run the task's tests there: exit 1 "
        "when a test fails, naming the later stubs it reached.",
    )
    marks.add_argument(
        "--task", default="", metavar="X.Y[,X.Y]", help="only these tasks"
    )
    marks.add_argument(
        "--source", default=".", metavar="DIR", help="the instructor source"
    )
    marks.add_argument(
        "--kernel-cache",
        metavar="DIR",
        help="start each copy with the kernels a trusted run of DIR compiled",
    )
    marks.add_argument(
        "--budget",
        type=float,
        metavar="SECONDS",
        help="start no task after this many seconds (one always runs)",
    )
    marks.add_argument(
        "--rotate",
        default="",
        metavar="KEY",
        help="start at a task chosen by KEY (CI passes the commit)",
    )
    marks.set_defaults(func=_cmd_marks)

    mutants = commands.add_parser(
        "mutants",
        help="mutation testing of the course's own tests, task by task",
        description="Plant one small bug at a time (an operator, a comparison, a "
        "constant, a deleted statement, swapped arguments) in a task's solution "
        "regions, in a copy of the instructor source, and run the task's tests: "
        "exit 1 when a mutant survives that tests/mutants/ does not record as "
        "equivalent. Slow: minutes a task.",
    )
    mutants.add_argument(
        "--task", default="", metavar="X.Y[,X.Y]", help="only these tasks"
    )
    mutants.add_argument(
        "--sample",
        type=int,
        default=0,
        metavar="N",
        help="N mutants a task, chosen by a fixed seed (default: all)",
    )
    mutants.add_argument("--seed", type=int, default=0, help="the sample's seed")
    mutants.add_argument(
        "--list", action="store_true", help="list the mutants; run nothing"
    )
    mutants.add_argument(
        "--source", default=".", metavar="DIR", help="the instructor source"
    )
    mutants.add_argument(
        "--kernel-cache",
        metavar="DIR",
        help="start each copy with the kernels a trusted run of DIR compiled",
    )
    mutants.add_argument(
        "--match",
        default="",
        metavar="TEXT[|TEXT]",
        help="only the mutants whose id contains one of these texts",
    )
    mutants.add_argument(
        "--resume",
        action="append",
        default=[],
        metavar="LOG",
        help="the saved output of an earlier run: its killed mutants are not run "
        "again (repeatable)",
    )
    mutants.add_argument(
        "--timeout",
        type=float,
        metavar="SECONDS",
        help="the time limit of one mutant's run (default: four times the "
        "unmutated run, at least 20 s)",
    )
    mutants.add_argument(
        "--tally",
        action="store_true",
        help="run nothing: the table that the --resume logs (oldest first) and "
        "tests/mutants/ give, with what is left (survivors, time-outs, not yet run)",
    )
    mutants.set_defaults(func=_cmd_mutants)

    layers = commands.add_parser(
        "layers",
        help="import cycles, largest class and file, re-exports, code lines",
        description="Measure how the library (module0-4) is layered: import cycles "
        "counting every import (function-level ones too, not those under "
        "TYPE_CHECKING) with their edges, the largest class and file, the names "
        "files re-export without defining them, the library's code lines (no "
        "blanks, comments or docstrings), and imports of student files by an "
        "engine folder.",
    )
    layers.add_argument(
        "--source", default=".", metavar="DIR", help="the tree to measure"
    )
    layers.set_defaults(func=_cmd_layers)
    return parser


def _cmd_layers(args: argparse.Namespace) -> int:
    from kindling.layers import main as layers_main

    return layers_main(Path(args.source))


def _cmd_mutants(args: argparse.Namespace) -> int:
    from kindling.course_mutants import main as mutants_main

    kernels = Path(args.kernel_cache) if args.kernel_cache else None
    return mutants_main(
        Path(args.source),
        args.task,
        args.sample,
        args.seed,
        args.list,
        kernels=kernels,
        match=args.match,
        resume=[Path(log) for log in args.resume],
        timeout=args.timeout,
        tally=args.tally,
    )


def _cmd_marks(args: argparse.Namespace) -> int:
    from kindling.marks import main as marks_main

    kernels = Path(args.kernel_cache) if args.kernel_cache else None
    return marks_main(
        Path(args.source),
        args.task,
        kernels=kernels,
        budget=args.budget,
        rotate=args.rotate,
    )


def _cmd_mistakes(args: argparse.Namespace) -> int:
    from kindling.mistakes import main as mistakes_main

    kernels = Path(args.kernel_cache) if args.kernel_cache else None
    return mistakes_main(
        Path(args.source), args.task, args.name, args.list, kernels=kernels
    )


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
    if args.platforms:
        from kindling.platforms import main as platforms_main

        return platforms_main(Path("."), args.extras.split(","), args.python)
    from kindling.doctor import main as doctor_main

    return doctor_main()


def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["bench"]:  # bench parses its own options, --help included
        return _cmd_bench(argparse.Namespace(rest=argv[1:]))
    if argv[:1] == ["kernels"]:  # so does kernels
        return _cmd_kernels(argparse.Namespace(rest=argv[1:]))
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
