"""The grader's reports: a terminal table, JSON, Markdown, Gradescope, JUnit XML.

Every renderer is a pure function of a :class:`kindling.grade.GradeReport`; none
includes timings except Gradescope's required ``execution_time`` (and the JSON's
separate ``timing`` key), so grading the same submission twice gives the same files.
"""

from __future__ import annotations

import json
import math
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import List, Optional

from kindling.grade import GradeReport


def _fmt(points: float) -> str:
    return f"{points:g}"


def format_table(report: GradeReport) -> str:
    """The terminal table."""
    rows = [("task", "title", "status", "tests", "points")]
    for t in report.tasks:
        tests = f"{t.passed}/{t.total}" if t.total else "-"
        rows.append(
            (t.id, t.title, t.status, tests, f"{_fmt(t.points)}/{t.max_points}")
        )
    rows.append(("", "total", "", "", f"{_fmt(report.score)}/{report.max_score}"))
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    lines = []
    for number, row in enumerate(rows):
        cells = [
            cell.rjust(w) if i >= 3 else cell.ljust(w)
            for i, (cell, w) in enumerate(zip(row, widths))
        ]
        lines.append("  ".join(cells).rstrip())
        if number == 0 or number == len(rows) - 2:
            lines.append("  ".join("-" * w for w in widths))
    for t in report.tasks:
        mutants = t.details.get("mutants") if isinstance(t.details, dict) else None
        if isinstance(mutants, int) and mutants:
            lines.extend(_mutant_lines(t.id, t.details, mutants))
        elif t.status not in ("done", "todo") and t.message:
            first = t.message.strip().splitlines()[-1][:200]
            lines.append(f"Task {t.id} {t.status}: {first}")
    if report.modified:
        lines.append(f"modified protected files ({_modified_note(report)}): ")
        lines[-1] += ", ".join(report.modified)
    lines.extend(f"refused: {path}" for path in report.refused)
    lines.extend(f"error: {e}" for e in report.errors)
    if report.sandbox:
        lines.append(f"sandbox: {report.sandbox}")
    return valid_text("\n".join(lines))


def _mutant_lines(task: str, details: dict, mutants: int) -> List[str]:
    """A mutation-scored task's planted bugs: how many the tests caught, and the
    names of those that survived or timed out (the JSON report has the same)."""

    def names(key: str) -> List[str]:
        value = details.get(key)
        return [str(v) for v in value] if isinstance(value, list) else []

    killed, survived, timed_out = names("killed"), names("survived"), names("timed_out")
    out = [f"Task {task}: {len(killed)} of {mutants} planted bugs caught"]
    if survived:
        out.append(f"  survived (your tests still pass): {', '.join(survived)}")
    if timed_out:
        out.append(f"  timed out (not a catch): {', '.join(timed_out)}")
    if details.get("planted_from") == "practice":
        # A student edition plants its published practice set; the instructor's
        # grader draws its own (kindling/mutation.py: graded_mutants).
        out.append(
            "  these were practice bugs: the instructor's grader plants bugs drawn "
            "from a larger family, not these"
        )
    return out


def self_graded(report: GradeReport) -> bool:
    """Whether the submission was graded against itself (its own tests and grader,
    as in GitHub Classroom): then its results are self-reported progress."""
    return report.source == report.submission


def _modified_note(report: GradeReport) -> str:
    if self_graded(report):
        return "graded as they are: this run used the submission's own tests"
    return "ignored: the pristine copies were graded"


STATUS_ICONS = {
    "done": "✅",
    "failing": "❌",
    "timeout": "⏱️",
    "crashed": "💥",
    "tampered": "🚫",
}


def valid_text(text: str) -> str:
    """``text`` with what UTF-8 cannot encode (a lone surrogate ``\\ud800`` from an
    exception message) replaced: no report may fail to be written because of it."""
    return str(text).encode("utf-8", "replace").decode("utf-8")


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]|~<>&])")


def _cell(text: str) -> str:
    """Student-derived text inside one cell of a Markdown table, or one list item:
    one line, every Markdown and HTML character escaped (no link, no ``<!--``)."""
    text = re.sub(r"\s+", " ", valid_text(text))
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def _code(text: str) -> str:
    """Student-derived text as an inline code span that it cannot close."""
    text = re.sub(r"\s+", " ", valid_text(text))
    ticks = "`" * (max((len(r) for r in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text[:1] == "`" or text[-1:] == "`" else ""  # CommonMark strips it
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _fence(text: str) -> str:
    """A code fence longer than any run of backticks in ``text``: nothing inside
    can close the block (a ``~~~~`` line cannot close a backtick fence either)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def to_markdown(report: GradeReport) -> str:
    """A Markdown summary, e.g. for ``$GITHUB_STEP_SUMMARY``."""
    name = Path(report.submission).name or report.submission
    points = "proportional (--partial)" if report.partial else "all or nothing"
    lines = [
        f"## Kindling grade: {_fmt(report.score)} / {report.max_score} points",
        "",
        f"- submission: {_code(name)}",
        f"- graded: {report.date or 'unknown'}, kindling {report.version or '?'}",
        f"- sandbox: {report.sandbox or 'unknown'}",
        f"- points per task: {points} (tests passed shown for every task)",
    ]
    if self_graded(report):
        lines.append(
            "- **self-reported**: graded with the submission's own tests and grader"
        )
    if report.interrupted:
        lines.append("- **interrupted**: only some tasks were graded")
    lines += [
        "",
        "| task | title | status | tests passed | points |",
        "|---|---|---|---:|---:|",
    ]
    for t in report.tasks:
        icon = STATUS_ICONS.get(t.status, "⬜")
        tests = f"{t.passed}/{t.total}" if t.total else "-"
        lines.append(
            f"| {_cell(t.id)} | {_cell(t.title)} | {icon} {_cell(t.status)} | {tests} "
            f"| {_fmt(t.points)} / {t.max_points} |"
        )
    if report.modified:
        if self_graded(report):
            note = "This run used them as they are: its results are self-reported."
        else:
            note = "These edits had no effect: the pristine copies were graded."
        lines += ["", f"**Modified protected files.** {note}", ""]
        lines += [f"- {_code(path)}" for path in report.modified]
    if report.refused:
        lines += ["", "**Refused paths** (each graded as its stub):", ""]
        lines += [f"- {_code(path)}" for path in report.refused]
    if report.errors:
        lines += ["", "**Grader errors**", ""] + [
            f"- {_cell(e)}" for e in report.errors
        ]
    details = [t for t in report.tasks if t.message and t.status != "done"]
    if details:
        lines += ["", "### Details", ""]
    for t in details:
        message = valid_text(t.message)
        fence = _fence(message)
        lines += [
            f"<details><summary>Task {t.id} ({_cell(t.title)}): {t.status}</summary>",
            "",
            f"{fence}text",
            message,
            fence,
            "",
            "</details>",
            "",
        ]
    return valid_text("\n".join(lines).rstrip() + "\n")


def to_gradescope(report: GradeReport) -> dict:
    """Gradescope's ``results.json``."""
    tests = []
    for t in report.tasks:
        summary = f"{t.status}: {t.passed} of {t.total} tests passed"
        tests.append(
            {
                "name": f"Task {t.id}: {t.title}",
                "number": t.id,
                "score": t.points,
                "max_score": t.max_points,
                "status": "passed" if t.status == "done" else "failed",
                "output": summary + (f"\n\n{t.message}" if t.message else ""),
                "visibility": "visible",
            }
        )
    output = f"Kindling grade: {_fmt(report.score)} / {report.max_score} points"
    if report.modified:
        output += f"\nModified protected files ({_modified_note(report)}): "
        output += ", ".join(report.modified)
    for path in report.refused:
        output += f"\nRefused: {path}"
    for error in report.errors:
        output += f"\nGrader error: {error}"
    return {
        "score": report.score,
        "execution_time": math.ceil(report.seconds),
        "output": output,
        "stdout_visibility": "visible",
        "tests": tests,
    }


# Every character XML 1.0 does not allow (its production ``Char``): the control
# characters but tab, newline and carriage return, the surrogates (a lone one comes
# from an exception message), U+FFFE and U+FFFF. One of them makes the whole file
# ill-formed, and CI's test reporters then reject it.
_XML_ILLEGAL = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_text(text: str) -> str:
    """``text`` with every character XML 1.0 forbids replaced by U+FFFD."""
    return _XML_ILLEGAL.sub("\ufffd", str(text))


def to_junit(report: GradeReport) -> str:
    """JUnit XML: one test case per task."""
    broken = ("timeout", "crashed", "tampered")
    failures = sum(t.status not in ("done", *broken) for t in report.tasks)
    errors = sum(t.status in broken for t in report.tasks)
    attributes = {
        "name": "kindling",
        "tests": str(len(report.tasks)),
        "failures": str(failures),
        "errors": str(errors),
        "skipped": "0",
    }
    suites = ET.Element("testsuites", attributes)
    suite = ET.SubElement(suites, "testsuite", attributes)
    properties = ET.SubElement(suite, "properties")
    for name, value in (("score", report.score), ("max_score", report.max_score)):
        ET.SubElement(properties, "property", name=name, value=_fmt(value))
    for path in report.modified:
        ET.SubElement(
            properties,
            "property",
            name="modified_protected_file",
            value=_xml_text(path),
        )
    for t in report.tasks:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=f"kindling.module{t.id.split('.')[0]}",
            name=_xml_text(f"{t.marker}: {t.title}"),
        )
        props = ET.SubElement(case, "properties")
        for name, value in (
            ("points", _fmt(t.points)),
            ("max_points", str(t.max_points)),
            ("status", t.status),
            ("passed", str(t.passed)),
            ("total", str(t.total)),
        ):
            ET.SubElement(props, "property", name=name, value=_xml_text(value))
        if t.status != "done":
            kind = "error" if t.status in broken else "failure"
            element = ET.SubElement(
                case,
                kind,
                message=_xml_text(f"{t.status}: {t.passed}/{t.total}"),
                type=_xml_text(t.status),
            )
            element.text = _xml_text(t.message)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(
        suites, encoding="unicode"
    )


def write_reports(
    report: GradeReport,
    json_path: Optional[Path] = None,
    markdown: Optional[Path] = None,
    gradescope: Optional[Path] = None,
    junit: Optional[Path] = None,
) -> None:
    """Write every requested report file (each independently of the others)."""
    outputs = [
        (json_path, lambda: json.dumps(report.to_json(), indent=2) + "\n"),
        (markdown, lambda: to_markdown(report)),
        (gradescope, lambda: json.dumps(to_gradescope(report), indent=2) + "\n"),
        (junit, lambda: to_junit(report)),
    ]
    failures = []
    for path, render in outputs:
        if path is None:
            continue
        try:
            write_atomically(Path(path), render())
        except Exception as error:  # noqa: BLE001 - write every other report
            failures.append(f"{path}: {error!r}")
    if failures:
        raise ReportError("cannot write " + "; ".join(failures))


class ReportError(OSError):
    """Some report could not be written (the others were)."""


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all: a reader (or a kill) never
    sees half a report, and no temporary file is left behind."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        partial.write_bytes(valid_text(text).encode("utf-8"))
        os.replace(partial, path)
    finally:
        if partial.exists():
            partial.unlink()
