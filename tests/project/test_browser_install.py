# kindling: instructor-only
"""The README's dashboard command, as a newcomer runs it: a copy of this checkout set
up with exactly that command (a fresh ``.venv``, ``pip install -e ".[app]"``), its
dashboard served from that environment, and headless Chromium opening
``/progress``, choosing Task 0.1 and pressing "Run the tests". The run must report
the task: the environment the README installs has what the button needs (pytest).

Skipped, with the reason, only where no Chromium binary exists (as
``test_browser.py``). Slow (a fresh environment is installed), so CI's default run
leaves it out; run it with ``pytest -m slow tests/project/test_browser_install.py``.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.project.browser import (
    Chromium,
    Dashboard,
    find_chromium,
    install_like_the_readme,
)
from tests.project.conftest import ROOT

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_run_the_tests_button_in_a_dashboard_installed_by_the_readme(
    tmp_path: Path,
) -> None:
    browser = find_chromium()
    if browser is None:
        pytest.skip(
            "no Chromium binary found (install Debian's chromium package or set "
            "KINDLING_CHROMIUM to one)"
        )
    checkout = tmp_path / "kindling"
    try:
        python = install_like_the_readme(ROOT, checkout)
    except subprocess.CalledProcessError as error:
        raise AssertionError(
            f"the README's dashboard command failed:\n{error.stdout}\n{error.stderr}"
        ) from None
    with Dashboard(checkout, tmp_path / "streamlit.log", python=python) as app:
        with Chromium(browser) as chromium:
            # The Progress page's own address works (not only "/").
            state = chromium.open(app.url + "/progress")
            assert "Progress" in state["headings"], state["text"][:500]
            assert "Page not found" not in state["text"]
            assert chromium.choose(
                '[data-testid="stSelectbox"] input[role="combobox"]',
                "Task 0.1 · Scalar operators",
            ), state["text"][:500]
            deadline = time.monotonic() + 30
            while 'pytest -m "task0_1"' not in state["text"]:  # the caption follows
                assert time.monotonic() < deadline, state["text"][:1000]
                state = chromium.wait()
            assert chromium.click("button", "Run the tests")
            deadline = time.monotonic() + 300
            while time.monotonic() < deadline:  # the run reports in a caption
                state = chromium.wait(settle=1.0, timeout=300)
                if "task(s) reported" in state["text"] or state.get("timed_out"):
                    break
                time.sleep(1)
            chromium.screenshot(tmp_path / "progress-run.png")
            shot = Path(os.environ.get("KINDLING_SCREENSHOTS") or tmp_path)
            shot.mkdir(parents=True, exist_ok=True)
            chromium.screenshot(shot / "progress-run-task0_1.png")
        log = app.log()
    text = state["text"]
    assert not state.get("timed_out"), text[:1000]
    assert "No module named pytest" not in text, text
    assert "1 task(s) reported, pytest exit code 0" in text, text[:2000]
    assert not state["exceptions"] and not state["errors"], state
    assert "Traceback" not in log, log
    # The run was recorded in the checkout, as a terminal run would be.
    assert (checkout / ".kindling" / "progress.json").is_file()
