"""Helpers for driving the dashboard with Streamlit's ``AppTest``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, List, Optional, Tuple

if TYPE_CHECKING:  # Streamlit is imported by the tests that run the app, not at
    # collection: every pytest worker (and every grading job) collects this file.
    from streamlit.testing.v1 import AppTest

#: page file (relative to project/app.py) -> the key of its section tabs
PAGES = {
    "dashboard/progress.py": None,
    "dashboard/module0.py": "m0_section",
    "dashboard/module1.py": "m1_section",
    "dashboard/module2.py": "m2_section",
    "dashboard/module3.py": "m3_section",
    "dashboard/module4.py": "m4_section",
}
TIMEOUT = 60  # seconds per script run; the first one imports plotly


def open_app(root: Path) -> AppTest:
    """The dashboard of the checkout at ``root``, after its first run."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(root / "project" / "app.py"), default_timeout=TIMEOUT)
    return at.run()


def visit(at: AppTest, page: str, section: Optional[str] = None) -> AppTest:
    """Show ``page`` (and the tab labelled ``section``)."""
    key = PAGES[page]
    if section is not None and key is not None:
        at.session_state[key] = section
    return at.switch_page(page).run()


def section_labels(at: AppTest) -> List[str]:
    """The labels of the section tabs of the page on show."""
    return [tab.label for tab in at.tabs]


def every_view(at: AppTest) -> List[Tuple[str, Optional[str]]]:
    """``(page, section)`` for every page and every tab of the dashboard."""
    views: List[Tuple[str, Optional[str]]] = []
    for page in PAGES:
        visit(at, page)
        labels = section_labels(at)
        views.extend((page, label) for label in labels or [None])
    return views


def problems(at: AppTest) -> List[str]:
    """Exceptions and error boxes on the page (there should be none)."""
    found = [f"exception: {e.value}" for e in at.exception]
    found += [f"error: {e.value}" for e in at.error]
    return found


def texts(at: AppTest) -> str:
    """All the text of the page (markdown, alerts, captions, headings, code)."""
    parts: List[str] = []
    for kind in (at.markdown, at.info, at.warning, at.success, at.caption, at.code):
        parts.extend(str(e.value) for e in kind)
    parts.extend(str(e.value) for e in at.title)
    parts.extend(str(e.value) for e in at.subheader)
    return "\n".join(parts)


def todo_boxes(at: AppTest) -> List[str]:
    """The "not implemented yet" boxes on the page."""
    return [e.value for e in at.info if "Not implemented yet" in e.value]


def charts(at: AppTest, kind: str) -> List[Any]:
    """The elements of one kind (``"plotly_chart"``, ``"graphviz_chart"``)."""
    return list(at.get(kind))


def plotly_traces(element: Any) -> List[dict]:
    """The traces of a plotly chart element."""
    return json.loads(element.proto.spec)["data"]


def trace_length(trace: dict, axis: str = "y") -> int:
    """The number of points of a trace (plotly may send NumPy arrays as base64)."""
    values = trace.get(axis)
    if isinstance(values, dict) and "bdata" in values:
        import base64

        import numpy as np

        dtype = np.dtype(values.get("dtype", "f8"))
        return len(base64.b64decode(values["bdata"])) // dtype.itemsize
    return len(values or [])
