"""The pytest plugin of every grading session (``-p kindling.grade_plugin``).

It runs *inside* the sandbox, next to student code, and imports only what it needs
(no part of the grader's verdict or orchestration): it sends the session's events
down the grader's pipe (:class:`SessionRecorder`) and fixes the session's
Hypothesis settings (:class:`GraderSettings`). Everything it sends is a claim the
grader checks (:mod:`kindling.grade_verdict`).
"""

from __future__ import annotations

import json
import os
from typing import Dict, List, Optional, Tuple


def failure_record(report) -> dict:
    """The parts of a failed report the grader may show: traceback entries (path,
    line, text) and the exception's message."""
    record: dict = {"crash": "", "entries": []}
    longrepr = report.longrepr
    chain = getattr(longrepr, "chain", None)
    if not chain:
        record["crash"] = str(longrepr)[-2000:] if longrepr is not None else ""
        return record
    for reprtraceback, _, _ in chain:
        for entry in getattr(reprtraceback, "reprentries", []):
            location = getattr(entry, "reprfileloc", None)
            if location is None:
                continue
            record["entries"].append(
                {
                    "path": str(location.path),
                    "lineno": int(location.lineno),
                    "lines": [str(line) for line in entry.lines][-30:],
                }
            )
    crash = chain[-1][1]
    record["crash"] = str(crash.message)[:4000] if crash is not None else ""
    return record


class SessionRecorder:
    """Sends the session's events down the grader's pipe (file descriptor ``fd``)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.stubs: Dict[Tuple[str, str], str] = {}
        self.settings: Optional[GraderSettings] = None
        self.sent_changes = 0

    def _settings_changed(self) -> None:
        changes = self.settings.changes if self.settings is not None else []
        if len(changes) > self.sent_changes:
            self.sent_changes = len(changes)
            self._send(event="settings", changes=changes[:20])

    def _send(self, **event) -> None:
        data = (json.dumps(event) + "\n").encode()
        while data:
            data = data[os.write(self.fd, data) :]

    def pytest_collectreport(self, report) -> None:
        if report.failed:
            message = report.longreprtext[-4000:]
            self._send(event="collection_error", nodeid=report.nodeid, message=message)

    def pytest_collection_finish(self, session) -> None:
        from kindling.pytest_plugin import task_of_item

        items = [[item.nodeid, task_of_item(item)] for item in session.items]
        self._send(event="collected", items=items)
        if self.settings is not None:
            self.settings.check_default()
            for item in session.items:
                self.settings.fix(getattr(item, "obj", None))
            self._settings_changed()

    def pytest_runtest_setup(self, item) -> None:
        # Again just before the test: student code has run since collection.
        if self.settings is not None:
            self.settings.check_default()
            self.settings.fix(getattr(item, "obj", None))
            self._settings_changed()

    def pytest_runtest_logstart(self, nodeid: str, location) -> None:
        self._send(event="start", nodeid=nodeid)

    def pytest_runtest_makereport(self, item, call):
        if call.excinfo is not None:
            from kindling.pytest_plugin import stub_task

            stub = stub_task(call.excinfo.value) or ""
            self.stubs[(item.nodeid, call.when)] = stub

    def pytest_runtest_logreport(self, report) -> None:
        event = {"event": "report", "nodeid": report.nodeid, "when": report.when}
        event["outcome"] = report.outcome
        if report.failed:
            event["stub"] = self.stubs.get((report.nodeid, report.when), "")
            event["message"] = failure_record(report)
        self._send(**event)

    def pytest_sessionfinish(self, session, exitstatus) -> None:
        self._send(event="finish", exitstatus=int(exitstatus))


# The Hypothesis settings a grading session fixes; the database is always None.
SETTING_FIELDS = (
    "max_examples",
    "derandomize",
    "phases",
    "stateful_step_count",
    "report_multiple_bugs",
    "suppress_health_check",
    "deadline",
    "print_blob",
)


class GraderSettings:
    """The Hypothesis settings of a grading session are the grader's.

    ``base`` is the course's profile as the pristine ``conftest.py`` loaded it
    (before any test module, so before any student module, is imported); the
    grader's profile is ``base`` without Hypothesis's *explain* phase (``fast``:
    and without shrinking). A student module imported by a test module could load
    a profile of its own (``max_examples=1``) before the test's ``@given`` freezes
    its settings. So before every test, its settings are rebuilt here from the
    grader's profile and what the pristine test itself decorated (``@settings(
    max_examples=10)``), and any other difference is reported to the grader.
    """

    def __init__(self, fast: bool = False) -> None:
        from hypothesis import Phase, settings

        self.base = settings.default
        dropped = {getattr(Phase, "explain", None)}
        if fast:
            dropped.add(Phase.shrink)
        phases = [phase for phase in self.base.phases if phase not in dropped]
        extra = {"report_multiple_bugs": False} if fast else {}
        self.profile = settings(self.base, phases=phases, database=None, **extra)
        self.changes: List[str] = []
        self.apply_default()

    def apply_default(self) -> None:
        from hypothesis import settings

        settings.register_profile("kindling-grade", self.profile)
        settings.load_profile("kindling-grade")

    def _differences(self, current, against, skip=()) -> List[str]:
        return [
            f"{name}={getattr(current, name)!r}"
            for name in SETTING_FIELDS
            if name not in skip and _setting(current, name) != _setting(against, name)
        ]

    def check_default(self) -> None:
        """After collection: did anything change the active profile?"""
        from hypothesis import settings

        self._note(self._differences(settings.default, self.profile))
        self.apply_default()

    def fix(self, function) -> None:
        """Give a Hypothesis test the grader's settings (and its own decorator's).

        What the pristine test decorated (``@settings(max_examples=10)``) is read
        once, the first time: the values in which its settings differ from the
        profile they were made over. Later, Hypothesis's own plugin wraps them
        (``differing_executors`` for parametrized tests), and they are rebuilt
        from those first values each time.
        """
        from hypothesis import settings

        function = getattr(function, "__func__", function)
        current = getattr(function, "_hypothesis_internal_use_settings", None)
        if current is None or not getattr(function, "is_hypothesis_test", False):
            return
        explicit = getattr(function, "_kindling_explicit", None)
        last = getattr(function, "_kindling_settings", None)
        if explicit is None:
            explicit = {}
            if getattr(function, "_hypothesis_internal_settings_applied", False):
                fallback = getattr(current, "_fallback", None) or self.base
                explicit = {
                    name: getattr(current, name)
                    for name in SETTING_FIELDS
                    if _setting(current, name) != _setting(fallback, name)
                }
            self._note(self._differences(current, self.profile, set(explicit)))
        elif last is not None:
            self._note(self._differences(current, last))
        wanted = settings(self.profile, **explicit)
        function._hypothesis_internal_use_settings = wanted
        function._kindling_explicit = explicit
        function._kindling_settings = wanted

    def _note(self, changes: List[str]) -> None:
        for change in changes:
            if change not in self.changes:
                self.changes.append(change)


def _setting(value, name: str) -> object:
    """One setting, as compared: Hypothesis's own pytest plugin adds the
    ``differing_executors`` health check to parametrized tests (not a change)."""
    setting = getattr(value, name)
    if name == "suppress_health_check":
        return {h for h in setting if getattr(h, "name", "") != "differing_executors"}
    return setting


def skip_explain_phase(fast: bool = False) -> None:
    """Load the grader's Hypothesis profile (see :class:`GraderSettings`)."""
    try:
        GraderSettings(fast)
    except ImportError:  # pragma: no cover - hypothesis is a course dependency
        return


def pytest_addoption(parser) -> None:
    group = parser.getgroup("kindling")
    group.addoption(
        "--kindling-grade-fd",
        type=int,
        default=None,
        help="(used by kindling grade) the pipe that receives the session's events",
    )
    group.addoption(
        "--kindling-grade-fast",
        action="store_true",
        default=False,
        help="(used by kindling grade) Hypothesis stops at the first failing example",
    )


def pytest_configure(config) -> None:
    fd = config.getoption("--kindling-grade-fd")
    if fd is not None:
        # conftest.py has loaded the course's profile by now
        recorder = SessionRecorder(fd)
        try:
            recorder.settings = GraderSettings(
                config.getoption("--kindling-grade-fast")
            )
        except ImportError:  # pragma: no cover - hypothesis is a course dependency
            pass
        config.pluginmanager.register(recorder, "kindling-grade")
