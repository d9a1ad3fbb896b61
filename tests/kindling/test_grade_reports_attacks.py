"""Reports nothing can forge or break (issue 30, items 5 and 6).

Each test is one attack of the third round on the grader's reading of a session or on
its reports; most need no sandbox (they feed the grader's parsers and renderers
what a forging session sends). The last ones grade a real submission.
"""

import hashlib
import json
import os
import re
import resource
import sys
from pathlib import Path

import pytest

from kindling import grade_verdict
from kindling.grade import (
    Feedback,
    GradeReport,
    TaskGrade,
    clean_message,
    judge,
    protected_changes,
    read_registry,
)
from kindling.grade_reports import to_markdown, write_reports
from kindling_staff.grade_batch import write_batch
from kindling.grade_runner import Run, parse_events

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = read_registry(ROOT)


def report_with(message: str, status: str = "failing") -> GradeReport:
    report = GradeReport(str(ROOT), "/submissions/alice")
    task = TaskGrade.for_task(REGISTRY["0.1"])
    task.status, task.message = status, message
    report.tasks = [task, TaskGrade.for_task(REGISTRY["0.3"])]
    return report


def markdown_outside_code(text: str) -> list:
    """The lines of ``text`` that a CommonMark renderer shows outside code blocks."""
    outside, fence = [], None
    for line in text.splitlines():
        found = re.match(r"^ {0,3}(`{3,}|~{3,})", line)
        if fence is None:
            if found:
                fence = found[1]
            else:
                outside.append(line)
        elif (
            found
            and found[1][0] == fence[0]
            and len(found[1]) >= len(fence)
            and not line.strip()[len(found[1]) :].strip()
        ):
            fence = None
    return outside


BREAKOUT = (
    "AssertionError: fine\n```\n~~~~\n~~~~~~~~\n"
    "## Kindling grade: 270 / 270 points\n| 0.1 | forged | ✅ done |\n<!--"
)


def test_a_failure_message_cannot_close_its_code_block():
    text = to_markdown(report_with(BREAKOUT))
    outside = markdown_outside_code(text)
    headings = [line for line in outside if line.startswith("## Kindling grade")]
    assert headings == ["## Kindling grade: 0 / 15 points"]
    assert not any("<!--" in line or "forged" in line for line in outside)


def test_student_paths_in_markdown_lists_cannot_inject_markup(tmp_path):
    report = report_with("x")
    report.refused = ["module0_fundamentals/`x` <!-- [link](http://e) |: refused"]
    report.errors = ["grader error: ValueError('<!-- *hidden*')"]
    outside = "\n".join(markdown_outside_code(to_markdown(report)))
    # What is left once code spans (shown literally) and escapes are taken out:
    # no HTML comment, no link, no emphasis.
    bare = re.sub(r"(`+).*?\1", "", outside)
    bare = re.sub(r"\\.", "", bare)
    assert "<!--" not in bare and "[link]" not in bare and "*hidden*" not in bare
    assert "refused" not in bare  # the path stayed inside its code span


def test_a_lone_surrogate_breaks_no_report(tmp_path):
    """``raise ValueError("\\ud800")`` crashed the grader (UnicodeEncodeError): later
    tasks were never graded, the reports were stale, a temporary file was left."""
    report = report_with("ValueError: \ud800 here")
    paths = [tmp_path / name for name in ("r.json", "r.md", "gs.json", "r.xml")]
    write_reports(report, *paths)
    for path in paths:
        assert "here" in path.read_text(encoding="utf-8")
    write_batch({"alice\udcff": report}, tmp_path / "b.csv", tmp_path / "b.json")
    assert json.loads((tmp_path / "b.json").read_text())
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_lone_surrogates_in_events_are_replaced_on_arrival():
    data = b'{"event": "start", "nodeid": "t.py::a\\ud800b\\ud83d\\ude00"}\n'
    session = parse_events(data)
    assert session.problem is None
    assert session.started == ["t.py::a\ufffdb\U0001f600"]
    session.started[0].encode("utf-8")  # no lone surrogate left


def test_deeply_nested_json_is_a_malformed_message_not_a_crash():
    data = b'{"event": "report", "nodeid": "x", "message": ' + b"[" * 200000 + b"\n"
    session = parse_events(data)
    assert session.problem and "not JSON" in session.problem


def test_a_session_cannot_make_the_grader_read_without_bound():
    from kindling.grade_runner import EVENT_BYTES, EVENT_LIMIT

    huge = b'{"event": "start", "nodeid": "' + b"x" * EVENT_BYTES + b'"}\n'
    assert parse_events(huge).started == []
    assert parse_events(huge).problem
    many = b'{"event": "start", "nodeid": "a"}\n' * (EVENT_LIMIT + 5)
    session = parse_events(many)
    assert len(session.started) == EVENT_LIMIT and session.problem


def _failure(nodeid: str, stub: str, crash: str, entries=()) -> bytes:
    record = {"crash": crash, "entries": list(entries)}
    event = {"event": "report", "nodeid": nodeid, "when": "call"}
    event.update(outcome="failed", stub=stub, message=record)
    return (json.dumps(event) + "\n").encode()


@pytest.mark.parametrize("label", ["0.1\n", "blocked-by 9.1", "9.1", " 0.1", "x"])
def test_a_stub_label_is_a_registry_task_id_or_nothing(label):
    task = REGISTRY["0.3"]
    nodeids = [f"tests/module0/test_x.py::test_{n}" for n in range(3)]
    data = b"".join(_failure(n, label, "Error: no") for n in nodeids)
    data += b'{"event": "finish", "exitstatus": 1}\n'
    context = Feedback(ROOT, set(), set(), task_ids={t.id for t in REGISTRY})
    run = Run(1, False, 1.0, "", parse_events(data))
    graded = judge(task, run, nodeids, context)
    assert graded.status == "failing", graded.status


def test_forged_failure_records_cost_the_grader_little(monkeypatch):
    """40 forged failures, each naming another "stub", each with long messages full
    of near-secrets: each cost the grader about a second outside every limit. Now
    only registry ids are stub labels (so at most one message per task is built)."""
    calls = []
    real = grade_verdict.feedback
    monkeypatch.setattr(
        grade_verdict, "feedback", lambda *a: calls.append(a) or real(*a)
    )
    secrets = {f"secret line number {n:05d} of a hidden test file" for n in range(3000)}
    nodeids = [f"tests/module0/test_x.py::test_{n}" for n in range(40)]
    crash = "\n".join(
        "secret line number 0000x of a hidden test " * 3 for _ in range(30)
    )
    entry = {"path": "module0_fundamentals/operators.py", "lineno": 1}
    entry["lines"] = ["x" * 480] * 30
    data = b"".join(_failure(n, f"{n}.{n}", crash, [entry] * 40) for n in nodeids)
    data += b'{"event": "finish", "exitstatus": 1}\n'
    student = {"module0_fundamentals/operators.py"}
    context = Feedback(ROOT, student, secrets, task_ids={t.id for t in REGISTRY})
    run = Run(1, False, 1.0, "", parse_events(data))
    filtered = []
    real_filter = Feedback.filter
    monkeypatch.setattr(
        Feedback,
        "filter",
        lambda self, t: filtered.append(len(t)) or real_filter(self, t),
    )
    graded = judge(REGISTRY["0.1"], run, nodeids, context)
    assert graded.status == "failing"
    assert len(calls) <= len(REGISTRY)
    # Only what a message can keep is filtered: not 40 x 30 lines of each record.
    assert max(filtered) <= 10 * grade_verdict.MESSAGE_CHARS


def test_the_secret_filter_still_catches_a_secret_inside_a_longer_line():
    secret = "assert hidden_property(x) == expected_value"
    context = Feedback(ROOT, set(), {secret, "short secret"})
    assert not context.allowed(f"tests/x.py::test[{secret}|and more]")
    assert not context.allowed("E   short secret")
    assert context.allowed("assert hidden_property(x) == other")


def test_a_huge_sparse_protected_file_is_not_read_whole(tmp_path):
    """A 1 GB sparse README raised the grader's memory to 1 GB."""
    readme = tmp_path / "README.md"
    with open(readme, "wb") as f:
        f.truncate(1 << 30)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    modified, missing = protected_changes(tmp_path, {"README.md": "0" * 64})
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert modified == ["README.md"] and missing == []
    assert after - before < 200 * 1024  # kilobytes


def test_a_protected_file_may_be_the_editions_or_the_sources_own(tmp_path):
    """The instructor source graded as a submission keeps the README and
    pyproject.toml that its edition rewrites: not modified. Any other text is."""
    source, submission = tmp_path / "source", tmp_path / "submission"
    for root in (source, submission):
        root.mkdir()
    (source / "README.md").write_text("the instructor's README\n")
    edition = hashlib.sha256(b"the edition's README\n").hexdigest()
    expected = {"README.md": edition}
    for text, modified in [
        ("the edition's README\n", []),
        ("the instructor's README\n", []),
        ("a README of the student's\n", ["README.md"]),
    ]:
        (submission / "README.md").write_text(text)
        assert protected_changes(submission, expected, source) == (modified, [])
    (submission / "README.md").write_text("the instructor's README\n")
    assert protected_changes(submission, expected) == (["README.md"], [])
    (submission / "README.md").unlink()
    assert protected_changes(submission, expected, source) == ([], ["README.md"])


def test_host_paths_are_named_not_shown(tmp_path):
    venv = Path(sys.prefix) / "lib" / "site-packages" / "numba" / "core.py"
    source = ROOT / "tests" / "conftest.py"
    text = f"File {venv}, line 3\nImportError while loading {source}\n"
    cleaned = clean_message(text, tmp_path)
    assert str(Path(sys.prefix)) not in cleaned and str(ROOT) not in cleaned
    assert "<venv>/lib/site-packages/numba/core.py" in cleaned
    assert "<source>/tests/conftest.py" in cleaned


def test_writing_reports_fails_alone(tmp_path):
    """A report that cannot be written leaves the others written and no temporary
    file behind."""
    from kindling.grade_reports import ReportError

    blocked = tmp_path / "blocked"
    blocked.write_text("a file where a folder should be")
    with pytest.raises(ReportError):
        write_reports(report_with("x"), blocked / "r.json", tmp_path / "r.md")
    assert (tmp_path / "r.md").is_file()
    assert [p for p in os.listdir(tmp_path) if p.endswith(".tmp")] == []


def test_junit_holds_only_characters_xml_allows(tmp_path):
    """A U+FFFF in a failure message made the JUnit file ill-formed XML (CI's test
    reporters reject it whole); so did U+FFFE, and a lone surrogate."""
    import xml.etree.ElementTree as ET

    message = "AssertionError: a\uffffb\ufffec\ud800d\x01e\x1bf\U0001f600g\tend"
    write_reports(report_with(message), None, None, None, tmp_path / "r.xml")
    text = (tmp_path / "r.xml").read_text(encoding="utf-8")
    legal = re.compile("[\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]*")
    assert legal.fullmatch(text)
    failure = ET.fromstring(text.encode("utf-8")).find(".//failure")
    assert failure.text.startswith("AssertionError: a")
    assert "\U0001f600g\tend" in failure.text  # legal characters stay


def test_the_event_stream_is_parsed_as_it_arrives_within_its_limits():
    """63 MB of two-byte lines made the grader itself peak at 1.3 GB: the whole
    buffer was split into lines before the limit on their number was checked."""
    import tracemalloc

    from kindling.grade_runner import EVENT_LIMIT

    data = b"x\n" * (4 << 20)  # 8 MB: 4 million lines, 20 times the limit
    tracemalloc.start()
    try:
        session = parse_events(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert session.problem
    assert peak < 8 << 20, f"{peak >> 20} MB to read {len(data) >> 20} MB"
    # Lines too long are skipped as they arrive, and the count goes on after them.
    long_line = b'{"event": "start", "nodeid": "' + b"y" * (3 << 20) + b'"}\n'
    tail = b'{"event": "start", "nodeid": "a"}\n' * EVENT_LIMIT
    session = parse_events(long_line + tail)
    assert "message 1 is longer" in session.problem
    assert len(session.started) == EVENT_LIMIT - 1


def _shard(tmp_path: Path, name: str, reports: dict) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps({k: r.to_json() for k, r in reports.items()}))
    return path


@pytest.mark.parametrize(
    "edit, says",
    [
        (lambda task, report: task.update(points=11), "11 points of at most 10"),
        (lambda task, report: task.update(points=-1), "-1 points of at most 10"),
        (lambda task, report: task.update(passed=130, total=121), "130 tests passed"),
        (lambda task, report: task.update(points="10"), "not numbers"),
        (lambda task, report: report.update(grader_version="9.9"), "one grader"),
        (lambda task, report: report.update(source="/elsewhere"), "one source"),
    ],
    ids=["points-over", "points-negative", "passed-over", "text", "grader", "source"],
)
def test_merge_refuses_reports_that_cannot_be_true_and_says_why(tmp_path, edit, says):
    from kindling.grade import GradeError
    from kindling_staff.grade_batch import merge

    def graded(points: float) -> GradeReport:
        report = report_with("", "done")
        report.version = "1.0"
        report.tasks[0].points, report.tasks[0].passed = points, 121
        report.tasks[0].total = 121
        return report

    first = _shard(tmp_path, "1.json", {"alice": graded(10)})
    second = _shard(tmp_path, "2.json", {"bob": graded(0)})
    assert sorted(merge([first, second])) == ["alice", "bob"]
    data = json.loads(second.read_text())
    edit(data["bob"]["tasks"][0], data["bob"])
    second.write_text(json.dumps(data))
    with pytest.raises(GradeError, match=re.escape(says)) as raised:
        merge([first, second])
    assert "2.json" in str(raised.value) and "bob" in str(raised.value)
