"""The instructor's ``kindling`` commands: release, classroom, grade --batch and
grade merge, marks, mistakes, mutants, layers, doctor --platforms.

``pyproject.toml`` declares each ``add_*`` function below as an entry point of the
group ``kindling.commands``; :func:`kindling.cli.build_parser` calls each with its
subcommands, and each adds its parser. A student edition declares none of them and
has no ``kindling_staff``: there these commands do not exist.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from kindling.cli import add_grade_options, echo, grading_options


def _cmd_release(args: argparse.Namespace) -> int:
    from kindling.regions import RegionError
    from kindling_staff.release import (
        ReleaseError,
        format_stats,
        release,
        release_stats,
    )

    if args.stats:
        from kindling_staff.reading import format_reading, reading_stats
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
        except (ReleaseError, RegionError) as error:
            print(f"kindling release: {error}", file=sys.stderr)
            return 2
        return 0
    if args.out is None:
        print("kindling release: give OUT, the edition's directory", file=sys.stderr)
        return 2
    try:
        summary = release(Path(args.source), Path(args.out), args.through, args.force)
    except (ReleaseError, RegionError) as error:
        print(f"kindling release: {error}", file=sys.stderr)
        return 2
    stubs = summary["stubs"]
    print(f"wrote the student edition to {summary['out']}")
    print(f"{summary['files']} files; {sum(stubs.values())} solution regions stubbed")
    for task in sorted(stubs, key=lambda t: tuple(map(int, t.split(".")))):
        print(f"  Task {task}: {stubs[task]} region(s)")
    return 0


def _cmd_classroom(args: argparse.Namespace) -> int:
    from kindling_staff.classroom import write_workflows
    from kindling.grade import read_registry

    root = Path(args.out)
    registry = read_registry(Path(args.source))
    if args.through is not None:
        registry = registry.through(args.through)
    for relative in write_workflows(root, registry):
        print(f"wrote {root / relative}")
    return 0


def _cmd_grade_batch(args: argparse.Namespace) -> int:
    """``kindling grade --batch DIR`` and ``kindling grade merge A.json ...``."""
    from kindling.grade import GradeError
    from kindling_staff.grade_batch import grade_batch, parse_shard, write_batch

    if args.unsafe_no_sandbox:
        echo("kindling grade: WARNING: no sandbox: student code runs as you")
    if args.merge:
        return _merge_shards(args)
    if not args.batch:
        print("kindling grade: give --batch DIR or 'merge FILE ...'", file=sys.stderr)
        return 2
    done: dict = {}

    def finished(name, report) -> None:  # the batch's files, as each finishes
        done[name] = report
        write_batch(dict(sorted(done.items())), args.batch_csv, args.json)

    try:
        shard = parse_shard(args.shard) if args.shard else None
        jobs = args.jobs or len(os.sched_getaffinity(0))
        reports = grade_batch(
            Path(args.batch), echo, jobs, shard, finished, **grading_options(args)
        )
    except GradeError as error:
        print(f"kindling grade: {error}", file=sys.stderr)
        return 2
    write_batch(reports, args.batch_csv, args.json)
    for name, report in reports.items():
        print(f"{name}: {report.score:g}/{report.max_score}")
    return 130 if any(r.interrupted for r in reports.values()) else 0


def _merge_shards(args: argparse.Namespace) -> int:
    """``kindling grade merge A.json B.json ... --json OUT [--batch-csv CSV]``."""
    from kindling.grade import GradeError
    from kindling_staff.grade_batch import merge, write_batch

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


def _cmd_mutants(args: argparse.Namespace) -> int:
    from kindling_staff.course_mutants import main as mutants_main

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
    from kindling_staff.marks import main as marks_main

    kernels = Path(args.kernel_cache) if args.kernel_cache else None
    return marks_main(
        Path(args.source),
        args.task,
        kernels=kernels,
        budget=args.budget,
        rotate=args.rotate,
    )


def _cmd_mistakes(args: argparse.Namespace) -> int:
    from kindling_staff.mistakes import main as mistakes_main

    kernels = Path(args.kernel_cache) if args.kernel_cache else None
    return mistakes_main(
        Path(args.source), args.task, args.name, args.list, kernels=kernels
    )


def _cmd_layers(args: argparse.Namespace) -> int:
    from kindling_staff.layers import main as layers_main

    return layers_main(Path(args.source), trace_mul=args.trace_mul)


def _cmd_platforms(args: argparse.Namespace) -> int:
    from kindling_staff.platforms import main as platforms_main

    return platforms_main(Path("."), args.extras.split(","), args.python)


def add_release(commands: Any) -> None:
    """``kindling release OUT`` (and ``--stats``)."""
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


def add_classroom(commands: Any) -> None:
    """``kindling classroom``."""
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


def add_grade_batch(commands: Any) -> None:
    """``kindling grade --batch DIR`` and ``kindling grade merge A.json ...``
    (:data:`kindling.cli.STAFF_SPELLINGS` routes both spellings here)."""
    batch = commands.add_parser(
        "grade-batch",
        prog="kindling grade",
        help="grade a folder of submissions, or merge the results of shards "
        "(spelled 'kindling grade --batch DIR' and 'kindling grade merge ...')",
    )
    add_grade_options(batch)
    batch.add_argument(
        "--batch",
        metavar="DIR",
        default=None,
        help="grade every submission (subdirectory) of DIR, each task of each in "
        "its own sandbox; --json and --batch-csv then hold every grade",
    )
    batch.add_argument(
        "--jobs",
        type=int,
        default=0,
        metavar="N",
        help="with --batch: grade N submissions at once (default: the number of cores)",
    )
    batch.add_argument(
        "--shard",
        default=None,
        metavar="K/N",
        help="with --batch: grade only the K-th of N disjoint, stable parts of DIR "
        "(for a job array or a CI matrix; join them with 'kindling grade merge')",
    )
    batch.add_argument(
        "merge",
        nargs="*",
        metavar="merge FILE",
        help="'merge A.json B.json ...': join the --json files of shards (with --json "
        "OUT and --batch-csv CSV)",
    )
    batch.add_argument(
        "--batch-csv",
        type=Path,
        metavar="FILE",
        default=None,
        help="one CSV row of grades per submission",
    )
    batch.set_defaults(func=_cmd_grade_batch)


def add_mistakes(commands: Any) -> None:
    """``kindling mistakes``."""
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


def add_marks(commands: Any) -> None:
    """``kindling marks``."""
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


def add_mutants(commands: Any) -> None:
    """``kindling mutants``."""
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


def add_layers(commands: Any) -> None:
    """``kindling layers``."""
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
    layers.add_argument(
        "--trace-mul",
        action="store_true",
        help="also trace `a * b` on FastBackend and its backward pass: the library "
        "files they run through and the calls between files (sys.settrace)",
    )
    layers.set_defaults(func=_cmd_layers)


def add_platforms(commands: Any) -> None:
    """``kindling doctor --platforms`` (:data:`kindling.cli.STAFF_SPELLINGS`)."""
    platforms = commands.add_parser(
        "platforms",
        prog="kindling doctor",
        help="ask pip whether the student install resolves from wheels on macOS "
        "(arm64, x86-64), Windows and Linux with Python 3.10-3.13 (needs the "
        "package index; spelled 'kindling doctor --platforms')",
    )
    platforms.add_argument(
        "--platforms", action="store_true", help="(the instructor's spelling)"
    )
    platforms.add_argument(
        "--extras",
        default="dev,app",
        help="the extras to resolve (default: dev,app)",
    )
    platforms.add_argument(
        "--python",
        action="append",
        metavar="X.Y",
        help="a Python version (repeatable; default: 3.10-3.13)",
    )
    platforms.set_defaults(func=_cmd_platforms)
