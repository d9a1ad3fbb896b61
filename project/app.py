"""The Kindling dashboard: ``streamlit run project/app.py``.

One page per concern, each in ``project/dashboard/``:

* **Progress** — the task table of this checkout and a button that runs its tests;
* **Module 0** to **Module 4** — sandboxes, graphs and training runs that show the
  course's code at work (your code, in a student edition).

This file only sets up the navigation: the pages import the course lazily, so the
first page is up in a moment, and a task that is still a stub shows which
``pytest -m`` command to run instead of crashing.
"""

from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st

ROOT = Path(__file__).resolve().parents[1]
OWN_PACKAGES = (
    "project",
    "kindling",
    "module0_fundamentals",
    "module1_scalar_autodiff",
    "module2_tensors",
    "module3_fast_ops",
    "module4_networks",
)


def use_this_checkout() -> bool:
    """Import the course from this checkout, whatever was imported before.

    `streamlit run` puts only ``project/`` on the path, and the course may also be
    installed (``pip install -e``) from another checkout, such as the instructor
    source next to a student edition. So the checkout's root goes first on the path,
    and modules already imported from elsewhere are forgotten. True if any were.
    """
    root = str(ROOT)
    if sys.path[:1] != [root]:
        while root in sys.path:
            sys.path.remove(root)
        sys.path.insert(0, root)
    stale = []
    # Another session's thread may import while this one looks: copy the table in
    # one step (dict.copy), never by iterating it.
    for name, module in sys.modules.copy().items():
        if name.split(".")[0] not in OWN_PACKAGES:
            continue
        where = getattr(module, "__file__", None) or next(
            iter(getattr(module, "__path__", None) or []), None
        )
        if where and not Path(where).resolve().is_relative_to(ROOT):
            stale.append(name)
    for name in stale:
        del sys.modules[name]
    return bool(stale)


switched = use_this_checkout()
from project.dashboard.common import refresh_course_code  # noqa: E402

st.set_page_config(page_title="Kindling", page_icon="🔥", layout="wide")
if switched:  # cached results belong to the other checkout's code
    st.cache_data.clear()
    st.cache_resource.clear()
refresh_course_code()

PAGES = [
    st.Page(
        "dashboard/progress.py",
        title="Progress",
        icon=":material/checklist:",
        url_path="overview",
        default=True,
    ),
    st.Page(
        "dashboard/module0.py",
        title="Module 0 · Fundamentals",
        icon=":material/calculate:",
        url_path="module0",
    ),
    st.Page(
        "dashboard/module1.py",
        title="Module 1 · Scalar autodiff",
        icon=":material/account_tree:",
        url_path="module1",
    ),
    st.Page(
        "dashboard/module2.py",
        title="Module 2 · Tensors",
        icon=":material/grid_on:",
        url_path="module2",
    ),
    st.Page(
        "dashboard/module3.py",
        title="Module 3 · Fast ops",
        icon=":material/speed:",
        url_path="module3",
    ),
    st.Page(
        "dashboard/module4.py",
        title="Module 4 · Networks",
        icon=":material/neurology:",
        url_path="module4",
    ),
    # Streamlit serves the default page at "/" only; this hidden twin makes the
    # Progress page's own address, /progress, work too (links, bookmarks).
    st.Page(
        "dashboard/progress.py",
        title="Progress",
        icon=":material/checklist:",
        url_path="progress",
        visibility="hidden",
    ),
]

with st.sidebar:
    st.markdown("### :material/local_fire_department: Kindling")
    st.caption("Build a small PyTorch from scratch.")

st.navigation(PAGES).run()
