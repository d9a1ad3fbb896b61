"""The ``kindling`` command line: release, tasks, grade, classroom, bench, doctor."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import List, Optional

from kindling.registry import load_registry


def _cmd_release(args: argparse.Namespace) -> int:
    from kindling.release import ReleaseError, release

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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kindling", description="The Kindling course toolchain."
    )
    commands = parser.add_subparsers(dest="command", required=True)

    rel = commands.add_parser("release", help="write the student edition")
    rel.add_argument("out", help="directory for the edition")
    rel.add_argument("--source", default=".", help="instructor source (default: .)")
    rel.add_argument(
        "--through", type=int, default=None, help="include modules 0..N only"
    )
    rel.add_argument("--force", action="store_true", help="replace a non-empty OUT")
    rel.set_defaults(func=_cmd_release)

    tasks = commands.add_parser("tasks", help="list the tasks of the registry")
    tasks.add_argument("-v", "--verbose", action="store_true")
    tasks.set_defaults(func=_cmd_tasks)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
