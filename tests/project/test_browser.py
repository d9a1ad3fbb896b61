"""The dashboard in a real browser: ``streamlit run project/app.py`` on a free port,
headless Chromium (the system's, never a downloaded one) clicks through every page
and every section tab, no error element may show, and each view is saved as a
screenshot (into ``$KINDLING_SCREENSHOTS`` if set, else the test's tmp_path).

Skipped, with the reason, only where no Chromium binary exists
(``apt-get install chromium``, or point ``$KINDLING_CHROMIUM`` at one).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.project.browser import (
    PAGE_TIMEOUT,
    Chromium,
    Dashboard,
    find_chromium,
    visit_all,
)
from tests.project.conftest import ROOT

pytestmark = pytest.mark.browser


def test_every_page_renders_in_headless_chromium(tmp_path: Path) -> None:
    browser = find_chromium()
    if browser is None:
        pytest.skip(
            "no Chromium binary found (install Debian's chromium package or set "
            "KINDLING_CHROMIUM to one)"
        )
    shots = Path(os.environ.get("KINDLING_SCREENSHOTS") or tmp_path / "screenshots")
    with Dashboard(ROOT, log_path=tmp_path / "streamlit.log") as app:
        # Two browsers share the pages: the visits are mostly waiting for the app
        # to settle, so two at once take little more than half the time of one (and
        # two sessions at once is what the app must survive anyway).
        with Chromium(browser) as one, Chromium(browser) as two:
            with ThreadPoolExecutor(2) as pool:
                halves = [
                    pool.submit(visit_all, chromium, app.url, shots, part, 2)
                    for part, chromium in enumerate((one, two))
                ]
                states = [state for half in halves for state in half.result()]
            # the first page also has its own address (a full page load)
            progress = one.open(app.url + "/progress")
        log = app.log()
    assert progress["headings"] == ["Progress"], progress["text"][:300]
    assert "Page not found" not in progress["text"] and not progress["dialogs"]
    pages = {state["view"].split(" / ")[0] for state in states}
    assert len(pages) == 6, pages
    assert len(states) >= 15  # every section tab of every page
    for state in states:
        where = f"{state['view']}: {state['text'][:300]!r}"
        assert not state.get(
            "timed_out"
        ), f"still running after {PAGE_TIMEOUT:.0f} s: {where}"
        page, _, tab = state["view"].partition(" / ")
        assert page in state["headings"], where  # the page we clicked is on show
        assert state["tab"] == ([tab] if tab else []), where  # and the tab

        assert not state["exceptions"], (where, state["exceptions"])
        assert not state["errors"], (where, state["errors"])
        assert not state["dialogs"], (where, state["dialogs"])
        assert not state["traceback"], where
    assert "Traceback" not in log, log
    saved = sorted(shots.glob("*.png"))
    assert len(saved) == len(states)
    assert all(path.stat().st_size > 10_000 for path in saved)  # not blank
