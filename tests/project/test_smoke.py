"""Every page and every section of the dashboard renders without an exception or an
error box, in whatever state this checkout is (run by Streamlit's AppTest).

In the instructor source every task is solved, so nothing may say "not
implemented yet" either; in a student edition the stubs say exactly that, and
``test_dashboard_edition.py`` (instructor-only) checks those messages.
"""

from __future__ import annotations

import pytest

from tests.project.apptest import (
    PAGES,
    every_view,
    open_app,
    problems,
    todo_boxes,
    visit,
)
from tests.project.conftest import ROOT

pytestmark = pytest.mark.usefixtures("isolated_imports")

# CONTRIBUTING.md never reaches a student edition.
INSTRUCTOR_SOURCE = (ROOT / "CONTRIBUTING.md").exists()


def test_every_page_and_section_renders_without_errors() -> None:
    app = open_app(ROOT)
    views = every_view(app)
    assert {page for page, _ in views} == set(PAGES)
    assert len(views) >= (15 if INSTRUCTOR_SOURCE else len(PAGES))
    for page, section in views:
        visit(app, page, section)
        assert not problems(app), (page, section, problems(app))
        if INSTRUCTOR_SOURCE:  # the reference solutions leave nothing to implement
            assert not todo_boxes(app), (page, section, todo_boxes(app))
