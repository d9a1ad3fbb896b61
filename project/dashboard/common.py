"""What every dashboard page shares: paths, the task registry, and the guard that
turns a not-yet-written task into a friendly "do Task X.Y next" box.

The dashboard runs in the instructor source *and* in a student edition, where every
solution is a ``raise NotImplementedError("Task X.Y: ...")`` stub and later modules
may be missing altogether. So every call into course code goes through
:func:`task_guard`: a stub shows which task to write and which ``pytest -m``
command checks it; a missing module says so; any other error in the student's code is
shown as a message with its traceback folded away, never as a crash of the page.
"""

from __future__ import annotations

import sys
import traceback
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

import streamlit as st

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: The packages of the course, in order; ``MODULES[k]`` is Module k.
MODULES = (
    "module0_fundamentals",
    "module1_scalar_autodiff",
    "module2_tensors",
    "module3_fast_ops",
    "module4_networks",
)


# ----------------------------------------------------------------- the registry
def registry() -> Any:
    """The task registry of this checkout (``kindling/tasks.toml``)."""
    from kindling.registry import REGISTRY_PATH

    return _registry_at(str(REGISTRY_PATH))


# Keyed by the file, so that a process serving two checkouts (an edition beside the
# instructor source) never shows one's tasks for the other.
@st.cache_resource(show_spinner=False)
def _registry_at(path: str) -> Any:
    from kindling.registry import parse_registry

    return parse_registry(Path(path).read_text(encoding="utf-8"), path)


def task_info(task_id: str) -> Tuple[str, Tuple[str, ...]]:
    """``(title, files)`` of a task, or a placeholder when the registry lacks it."""
    try:
        task = registry()[task_id]
    except KeyError:
        return "(not in this checkout's registry)", ()
    return task.title, task.files


def marker(task_id: str) -> str:
    """``"2.3"`` -> ``"task2_3"``."""
    return "task" + task_id.replace(".", "_")


# ---------------------------------------------------------- reloading the code
def _course_files() -> List[Path]:
    files: List[Path] = []
    for package in MODULES:
        folder = ROOT / package
        if folder.is_dir():
            files.extend(folder.glob("*.py"))
    files.extend((ROOT / "project").glob("run_*.py"))
    return files


def _code_version() -> float:
    stamps = []
    for path in _course_files():
        try:
            stamps.append(path.stat().st_mtime)
        except OSError:  # deleted between the glob and the stat
            pass
    return max(stamps, default=0.0) + len(stamps)


def refresh_course_code() -> None:
    """Forget imported course code and cached results when a file changed.

    Streamlit reruns the page when its own files change, but it keeps the course
    packages imported: without this a student who just finished a task would still
    see the old stub until restarting the server.
    """
    version = _code_version()
    last = _STATE.get("version")
    _STATE["version"] = version
    if last is None or last == version:
        return
    prefixes = MODULES + ("run_", "project.run_")
    for name in list(sys.modules):
        if name.split(".")[0] in MODULES or name.startswith(prefixes):
            del sys.modules[name]
    st.cache_data.clear()
    st.cache_resource.clear()


_STATE: Dict[str, float] = {}


def code_version() -> float:
    """A number that changes whenever a course file changes (see
    :func:`refresh_course_code`): objects made by older code (a trained model)
    should be dropped when it differs from the one they were made with."""
    return _STATE.get("version", 0.0)


def load_script(name: str) -> Any:
    """Import a training script of ``project/`` (``"run_scalar"``) as a module."""
    import importlib

    return importlib.import_module(f"project.{name}")


# ------------------------------------------------------------------ the guard
def stub_task(exc: BaseException) -> Optional[str]:
    """The task named by a student stub (``NotImplementedError("Task 1.2: ...")``)
    anywhere in the chain of ``exc``, else ``None`` (the pytest plugin's rule)."""
    from kindling.progress import stub_task as find_stub

    return find_stub(exc)


def _stub_message(exc: BaseException) -> str:
    for current in (exc, exc.__cause__, exc.__context__):
        if isinstance(current, NotImplementedError) and current.args:
            return str(current.args[0])
    return str(exc)


def show_todo(task_id: str, detail: str = "") -> None:
    """The box a page shows in place of a feature whose task is still a stub."""
    title, files = task_info(task_id)
    where = ", ".join(f"`{f}`" for f in files) or "the course files"
    st.info(
        f"**Not implemented yet: Task {task_id} — {title}.**  \n"
        f"Write it in {where}, then check it with `pytest -m {marker(task_id)}`; "
        "this part of the page comes alive as soon as the tests pass.",
        icon=":material/construction:",
    )
    if detail:
        st.caption(f"The stub says: {detail}")


def show_missing(what: str, error: BaseException) -> None:
    """The box for a part whose module (or name) is not in this checkout."""
    st.warning(
        f"**{what} is not available in this checkout.**  \n"
        f"`{type(error).__name__}: {error}`",
        icon=":material/extension_off:",
    )


def show_failure(error: BaseException, context: str = "") -> None:
    """An error raised by the course code, without crashing the page."""
    task = context or "this part"
    st.error(
        f"**{task} raised `{type(error).__name__}`:** {error}",
        icon=":material/bug_report:",
    )
    with st.expander("Traceback"):
        st.code("".join(traceback.format_exception(error)), language="text")


class Outcome:
    """What happened inside a :func:`task_guard` block."""

    def __init__(self) -> None:
        self.ok = True
        self.todo: Optional[str] = None
        self.error: Optional[BaseException] = None


@contextmanager
def task_guard(what: str = "", quiet: bool = False) -> Iterator[Outcome]:
    """Run course code; turn a stub, a missing module or an error into a message.

    ``with task_guard("the math sandbox") as outcome: ...``: the rest of the block
    is skipped after the first problem; ``outcome.ok`` says whether it finished,
    ``outcome.todo`` names the stubbed task. With ``quiet=True`` nothing is shown
    (the caller decides).
    """
    outcome = Outcome()
    try:
        yield outcome
    except NotImplementedError as exc:
        outcome.ok = False
        outcome.error = exc
        task = stub_task(exc)
        if task is None:
            if not quiet:
                show_failure(exc, what)
        else:
            outcome.todo = task
            if not quiet:
                show_todo(task, _stub_message(exc))
    except ImportError as exc:
        outcome.ok = False
        outcome.error = exc
        if not quiet:
            show_missing(what or "This part", exc)
    except Exception as exc:  # noqa: BLE001 - a student's bug must not kill the page
        if type(exc).__module__.startswith("streamlit"):
            raise  # rerun and stop requests are exceptions too
        outcome.ok = False
        outcome.error = exc
        if not quiet:
            show_failure(exc, what)


def header(title: str, blurb: str, tasks: str, module: int) -> None:
    """The title block of a module page; the page stops here when this checkout
    has no Module ``module`` (an edition released ``--through`` an earlier one)."""
    st.title(title)
    st.markdown(blurb)
    st.caption(tasks)
    if not (ROOT / MODULES[module]).is_dir():
        st.info(
            f"**Module {module} is not part of this checkout** (`{MODULES[module]}/` "
            "is missing): it comes with a later edition of the course.",
            icon=":material/lock_clock:",
        )
        st.stop()


def section_tabs(labels: List[str], key: str) -> List[Any]:
    """Tabs that only run the selected one (and remember it in the URL)."""
    return st.tabs(labels, key=key, on_change="rerun", bind="query-params")
