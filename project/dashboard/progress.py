"""Progress: every task of the course, its status in this checkout, and what to do
next.

The statuses come from the results that the course's pytest plugin keeps after every
run (``.kindling/progress.json``: the latest result of every task, with its time),
whether pytest ran in a terminal or from the button here, which runs it in a
subprocess and follows its progress line by line (see
:mod:`project.dashboard.runner`). A result measured on student files that changed
since is marked *stale*.
"""

from __future__ import annotations

import time
from typing import Dict

import streamlit as st

from kindling.progress import check_command, kindling_command
from project.dashboard.common import ROOT, marker, registry
from project.dashboard.runner import (
    PROGRESS,
    earned,
    next_task,
    read_results,
    run_tests,
    status_label,
    test_files,
)

# ----------------------------------------------------------------- the page
reg = registry()
tasks = list(reg)
st.title("Progress")
st.markdown(
    "Every task of the course with its status in this checkout: the latest result "
    "of each task, from `pytest` in a terminal or from a run started below (the "
    "course's pytest plugin keeps them in `.kindling/progress.json`). A result is "
    "*stale* when a file it depends on changed since."
)

results: Dict[str, dict] = read_results(PROGRESS)
run = st.session_state.get("progress_run")

with st.container(border=True):
    scopes: Dict[str, list] = {"Every task": []}
    for module in sorted({t.module for t in tasks}):
        scopes[f"Module {module}"] = [t.id for t in tasks if t.module == module]
    for task in tasks:
        scopes[f"Task {task.id} · {task.title}"] = [task.id]
    left, right = st.columns([3, 1], vertical_alignment="bottom")
    scope = left.selectbox(
        "Run the tests of", list(scopes), key="progress_scope", help="pytest -m …"
    )
    go = right.button("Run the tests", type="primary", key="progress_run_button")
    chosen = scopes[scope]
    selection = " or ".join(marker(t) for t in chosen)
    files = test_files(chosen) if chosen else []
    command = "pytest" + (f' -m "{selection}"' if selection else "")
    st.caption(
        f"Runs `{command}` in this checkout"
        + (f" over {len(files)} test file(s)" if files else "")
        + " (the Stop button in the top corner ends it)."
    )
    if go:
        with st.spinner(f"Running {command} …"):
            outcome = run_tests(selection, files)
        st.session_state["progress_run"] = outcome
        run = outcome
        results = read_results(PROGRESS)
        if not run["results"]:
            st.warning(
                "pytest did not report any task results (exit code "
                f"{run['returncode']}). Its output is below."
            )
    if run:
        ran = len(run["results"])
        st.caption(
            f"Run at {run['when']} ({run.get('seconds', 0):.0f} s): {ran} task(s) "
            f"reported, pytest exit code {run['returncode']}."
        )
        with st.expander("pytest output"):
            st.code(run["log"] or "(no output)", language="text")
    elif results:
        stamp = time.strftime(
            "%Y-%m-%d %H:%M", time.localtime(PROGRESS.stat().st_mtime)
        )
        st.caption(f"Showing the latest result of each task (last run {stamp}).")
    else:
        st.caption(
            "No results yet: run the tests above, or `pytest` in a terminal "
            "(then reload this page)."
        )


def mutation_note(task_id: str) -> str:
    """What the table says of a task scored by mutation: how to get its score."""
    return f"scored by mutation: run {kindling_command(ROOT)} grade --tasks {task_id}"


# --- the summary
total_points = sum(t.points for t in tasks)
points = sum(earned(t, results.get(t.id)) for t in tasks)
done_count = sum(results.get(t.id, {}).get("status") == "done" for t in tasks)
c1, c2, c3 = st.columns(3)
by_mutation = [t for t in tasks if t.scoring == "mutation"]
c1.metric(
    "Points (estimate)",
    f"{points:.0f} / {total_points}",
    help=(
        (
            "Without the points of "
            + ", ".join(f"Task {t.id}" for t in by_mutation)
            + ", scored by mutation (`kindling grade`), which this page does not run."
        )
        if by_mutation
        else None
    ),
)
c2.metric("Tasks done", f"{done_count} / {len(tasks)}")
c3.metric("Tasks with results", f"{sum(t.id in results for t in tasks)} / {len(tasks)}")
st.progress(points / total_points if total_points else 0.0)

upcoming = next_task(tasks, results)
if upcoming is None:
    # No emoji: many Linux desktops have no font for them (a box shows instead).
    st.success("Every task is done. Well done!", icon=":material/celebration:")
else:
    result = results.get(upcoming.id)
    state = status_label(
        result["status"] if result else "not run",
        bool(result and result.get("stale_files")),
    )
    st.subheader(f"Next: Task {upcoming.id} · {upcoming.title}")
    st.markdown(
        f"{upcoming.description}.  \n"
        f"Files: {', '.join(f'`{f}`' for f in upcoming.files)} · status: {state}  \n"
        f"Check it with `{check_command(ROOT, marker(upcoming.id))}`; the module's "
        "`README.md` "
        "explains what to write."
    )
    if result and result.get("first_failure"):
        with st.expander("The first failure of its last run"):
            st.code(result["first_failure"], language="text")

# --- the table
rows = []
for task in tasks:
    result = results.get(task.id)
    status = result["status"] if result else "not run"
    points = earned(task, result)
    by_mutation = task.scoring == "mutation"
    rows.append(
        {
            "Task": task.id,
            "Title": task.title,
            "Status": status_label(status, bool(result and result.get("stale_files"))),
            "Passed": result.get("passed", 0) if result else None,
            "Tests": result.get("total", 0) if result else None,
            "Points": task.points,
            # A task scored by mutation earns its points from the grader's planted
            # bugs, which this page does not run: say how to score it, not 0.0.
            "Earned": (
                mutation_note(task.id) if by_mutation else f"{round(points, 1):.1f}"
            ),
            # Each bar is the share of its own task's points, so a finished 5-point
            # task shows a full bar.
            "Share": (
                None if by_mutation else points / task.points if task.points else 0.0
            ),
            "Last run": result.get("time", "") if result else "",
            "Check with": check_command(ROOT, task.marker),
            "Files": ", ".join(task.files),
        }
    )
st.subheader("Tasks")
module_filter = st.pills(
    "Module",
    sorted({t.module for t in tasks}),
    selection_mode="multi",
    format_func=lambda m: f"Module {m}",
    key="progress_modules",
)
shown = [
    row
    for row, task in zip(rows, tasks)
    if not module_filter or task.module in module_filter
]
st.dataframe(
    shown,
    hide_index=True,
    height=35 * (len(shown) + 1) + 3,  # every row, no inner scrolling
    width="stretch",
    column_config={
        "Points": st.column_config.NumberColumn(format="%d"),
        "Earned": st.column_config.TextColumn(
            help="Points from the task's latest result; a task scored by mutation "
            "gets its score from `kindling grade`"
        ),
        "Share": st.column_config.ProgressColumn(
            "Share of its points", min_value=0.0, max_value=1.0, format="percent"
        ),
    },
)
failing = [
    (t, results[t.id])
    for t in tasks
    if t.id in results and results[t.id].get("status") == "failing"
]
if failing:
    st.subheader("Failing tasks")
    for task, result in failing:
        with st.expander(f"Task {task.id} · {task.title}: {result['failed']} failed"):
            st.code(result.get("first_failure") or "(no message)", language="text")
