"""A tiny driver for headless Chromium over the DevTools protocol, and a helper that
serves the dashboard with ``streamlit run``.

Only the system browser is used (Debian's ``chromium``), never a downloaded one, and
the protocol is spoken with the ``websockets`` package that Streamlit itself depends
on, so the browser test needs nothing beyond the dashboard's own requirements.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any, Dict, List, Optional

ROOT = Path(__file__).resolve().parents[2]
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

# What the page looks like right now, as JSON, read in the browser: whether
# Streamlit is still running the script, how big the page is, and the error
# elements on it (st.exception and st.error boxes, and any "Traceback" text).
STATE_JS = """
(() => {
  const q = (s) => Array.from(document.querySelectorAll(s));
  const main = document.querySelector('[data-testid="stMain"]')
    || document.querySelector('[data-testid="stAppViewContainer"]');
  const text = main ? main.innerText : "";
  const short = (e) => e.innerText.slice(0, 400);
  return JSON.stringify({
    app: q('[data-testid="stApp"]').length > 0,
    running: q('[data-testid="stStatusWidgetRunningIcon"]').length
      + q('[data-testid="stSkeleton"]').length,
    headings: q("h1").map((e) => e.innerText),
    tab: q('[role="tab"][aria-selected="true"]').map((e) => e.innerText.trim()),
    exceptions: q('[data-testid="stException"]').map(short),
    errors: q('[data-testid="stAlertContentError"]').map(short),
    dialogs: q('[role="dialog"]').map(short),
    traceback: text.includes("Traceback (most recent call last)"),
    size: document.body ? document.body.innerHTML.length : 0,
    text: text.slice(0, 3000),
  });
})()
"""

#: How long a page may take to finish its script run. A page that trains or compiles
#: kernels for the first time takes 40 s and more while CI's other worker compiles
#: kernels too (seen: Module 4's Images page); this is a smoke test of rendering,
#: not of speed.
PAGE_TIMEOUT = 120.0


def find_chromium() -> Optional[str]:
    """The system Chromium (``$KINDLING_CHROMIUM`` first), or ``None``."""
    configured = os.environ.get("KINDLING_CHROMIUM")
    if configured:
        return shutil.which(configured) or (
            configured if Path(configured).exists() else None
        )
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Dashboard:
    """``streamlit run project/app.py`` on a free localhost port."""

    def __init__(
        self,
        root: Path = ROOT,
        log_path: Optional[Path] = None,
        python: Optional[str] = None,
    ) -> None:
        self.root = root
        self.python = python or sys.executable  # another environment's, if given
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path or Path(tempfile.mkstemp(suffix=".log")[1])
        self.process: Optional[subprocess.Popen] = None

    def __enter__(self) -> "Dashboard":
        command = [
            self.python,
            "-m",
            "streamlit",
            "run",
            str(self.root / "project" / "app.py"),
            "--server.headless",
            "true",
            "--server.port",
            str(self.port),
            "--server.address",
            "127.0.0.1",
            "--browser.gatherUsageStats",
            "false",
            "--server.fileWatcherType",
            "none",
        ]
        self._log = open(self.log_path, "w")
        self.process = subprocess.Popen(
            command, cwd=self.root, stdout=self._log, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"streamlit exited early:\n{self.log()}")
            try:
                with urllib.request.urlopen(
                    f"{self.url}/_stcore/health", timeout=1
                ) as r:
                    if r.read().strip() == b"ok":
                        return self
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"streamlit did not come up in 30 s:\n{self.log()}")

    def log(self) -> str:
        try:
            return self.log_path.read_text()[-4000:]
        except OSError:
            return ""

    def __exit__(self, *exc: Any) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()


def install_like_the_readme(root: Path, checkout: Path, timeout: float = 900) -> str:
    """Copy the files of the checkout ``root`` into ``checkout`` and set it up with
    the README's dashboard command, less its final ``streamlit run``; return the
    Python of the environment it made."""
    import re

    from kindling.regions import source_files

    readme = (root / "README.md").read_text(encoding="utf-8")
    command = next(
        line
        for line in re.findall(r"```bash\n(.*?)\n```", readme, re.S)
        if "streamlit run" in line
    )
    steps = [s.strip() for s in command.split("&&") if "streamlit run" not in s]
    for path in source_files(root):
        target = checkout / path.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
    subprocess.run(
        ["bash", "-c", " && ".join(steps)],
        cwd=checkout,
        check=True,
        capture_output=True,
        timeout=timeout,
    )
    return str(checkout / ".venv" / "bin" / "python")


class Chromium:
    """Headless Chromium, driven over the DevTools protocol (one tab)."""

    def __init__(self, binary: str, width: int = 1400, height: int = 1500) -> None:
        self.binary = binary
        self.width, self.height = width, height
        self.profile = tempfile.mkdtemp(prefix="kindling-chromium-")
        self.process: Optional[subprocess.Popen] = None
        self.socket: Any = None
        self.next_id = 0

    def __enter__(self) -> "Chromium":
        from websockets.sync.client import connect

        self.process = subprocess.Popen(
            [
                self.binary,
                "--headless=new",
                "--remote-debugging-port=0",
                "--remote-allow-origins=*",
                f"--user-data-dir={self.profile}",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                "--hide-scrollbars",
                "--disable-background-timer-throttling",
                "--disable-renderer-backgrounding",
                f"--window-size={self.width},{self.height}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        port_file = Path(self.profile) / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not port_file.exists() or not port_file.read_text().strip():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("chromium did not start its DevTools server")
            time.sleep(0.1)
        port = int(port_file.read_text().split()[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list") as response:
            targets = json.loads(response.read())
        page = next(t for t in targets if t.get("type") == "page")
        # connect() is a context manager; enter it here, exit it in __exit__.
        self._connection = connect(
            page["webSocketDebuggerUrl"], max_size=None, open_timeout=10
        )
        self.socket = self._connection.__enter__()
        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=self.width,
            height=self.height,
            deviceScaleFactor=1,
            mobile=False,
        )
        self.call("Page.enable")
        return self

    def call(self, method: str, **params: Any) -> Dict[str, Any]:
        """Send one command and wait for its answer (events are skipped)."""
        self.next_id += 1
        self.socket.send(
            json.dumps({"id": self.next_id, "method": method, "params": params})
        )
        while True:
            message = json.loads(self.socket.recv(timeout=60))
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    def evaluate(self, expression: str) -> Any:
        result = self.call(
            "Runtime.evaluate", expression=expression, returnByValue=True
        )
        return result.get("result", {}).get("value")

    def state(self) -> Dict[str, Any]:
        return json.loads(self.evaluate(STATE_JS) or "{}")

    def wait(
        self, settle: float = 0.5, timeout: float = PAGE_TIMEOUT
    ) -> Dict[str, Any]:
        """Wait until Streamlit has finished the script run and the page has been
        still for ``settle`` seconds (charts drawn); return the page state."""
        deadline = time.monotonic() + timeout
        still_since = None
        last_size = -1
        state: Dict[str, Any] = {}
        while time.monotonic() < deadline:
            state = self.state()
            busy = (
                not state.get("app")
                or state.get("running")
                or not state.get("headings")
            )
            if busy or state.get("size") != last_size:
                still_since = None
                last_size = state.get("size", -1)
            elif still_since is None:
                still_since = time.monotonic()
            elif time.monotonic() - still_since >= settle:
                return state
            time.sleep(0.1)
        state["timed_out"] = True
        return state

    def open(self, url: str) -> Dict[str, Any]:
        """Load ``url`` (a full page load) and wait for it."""
        self.call("Page.navigate", url=url)
        time.sleep(0.3)
        return self.wait()

    def click(self, selector: str, text: Optional[str] = None) -> bool:
        """Click the first element matching ``selector`` (whose text is ``text``,
        if given), as a user would; then wait for the app. False if none matched."""
        script = (
            "(() => { const all = Array.from(document.querySelectorAll(%s));"
            " const label = (e) => e.innerText.trim().split('\\n').pop().trim();"
            " const hit = all.find(e => %s === null || label(e) === %s);"
            " if (!hit) return false; hit.click(); return true; })()"
            % (json.dumps(selector), json.dumps(text), json.dumps(text))
        )
        if not self.evaluate(script):
            return False
        time.sleep(0.25)  # let the click reach the server before waiting
        return True

    def mouse_click(self, selector: str, text: Optional[str] = None) -> bool:
        """A real mouse click (press and release) in the middle of the first element
        matching ``selector`` whose text contains ``text``: menus such as
        Streamlit's select boxes open on mouse events, not on ``element.click()``."""
        script = (
            "(() => { const all = Array.from(document.querySelectorAll(%s));"
            " const hit = all.find(e => %s === null || e.innerText.includes(%s));"
            " if (!hit) return null; hit.scrollIntoView({block: 'center'});"
            " const r = hit.getBoundingClientRect();"
            " return JSON.stringify([r.x + r.width / 2, r.y + r.height / 2]); })()"
            % (json.dumps(selector), json.dumps(text), json.dumps(text))
        )
        where = self.evaluate(script)
        if not where:
            return False
        x, y = json.loads(where)
        for kind in ("mousePressed", "mouseReleased"):
            self.call(
                "Input.dispatchMouseEvent",
                type=kind,
                x=x,
                y=y,
                button="left",
                clickCount=1,
            )
        time.sleep(0.25)
        return True

    def choose(self, box: str, option: str) -> bool:
        """Pick ``option`` in the select box whose input matches ``box``, as a user
        would: click it, type the option (the list filters as one types), Enter."""
        if not self.mouse_click(box):
            return False
        self.call("Input.insertText", text=option)
        time.sleep(0.5)
        for kind in ("keyDown", "keyUp"):
            self.call(
                "Input.dispatchKeyEvent",
                type=kind,
                key="Enter",
                code="Enter",
                windowsVirtualKeyCode=13,
                nativeVirtualKeyCode=13,
            )
        script = (
            "(() => { const e = document.querySelector(%s);"
            " const box = e && e.closest('[data-testid=\"stSelectbox\"]');"
            " return box ? box.innerText + (e.value || '') : ''; })()" % json.dumps(box)
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # the app reruns with the new value
            if option in (self.evaluate(script) or ""):
                return True
            time.sleep(0.2)
        return False

    def texts(self, selector: str) -> List[str]:
        script = "JSON.stringify(Array.from(document.querySelectorAll(%s))"
        script += ".map(e => e.innerText.trim().split('\\n').pop().trim()))"
        return json.loads(self.evaluate(script % json.dumps(selector)) or "[]")

    def screenshot(self, path: Path) -> None:
        """Save the viewport as PNG."""
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))

    def __exit__(self, *exc: Any) -> None:
        try:
            if self.socket is not None:
                self._connection.__exit__(None, None, None)
        finally:
            if self.process is not None and self.process.poll() is None:
                self.process.terminate()
                try:
                    self.process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()
            shutil.rmtree(self.profile, ignore_errors=True)


NAV_LINK = '[data-testid="stSidebarNavLink"]'
TAB = '[role="tab"]'


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-")


def visit_all(
    chromium: Chromium, base_url: str, shots: Path, part: int = 0, parts: int = 1
) -> List[Dict[str, Any]]:
    """Open the dashboard in ``chromium``, then click through every page of the
    sidebar and every tab of each page (in-app navigation, as a user would);
    screenshot each view and return the page states, each with ``view`` naming it.

    With ``parts > 1`` only the pages whose number is ``part`` modulo ``parts`` are
    visited, so that several browsers can share the work."""
    shots.mkdir(parents=True, exist_ok=True)
    states: List[Dict[str, Any]] = []
    first = chromium.open(base_url + "/")
    pages = chromium.texts(NAV_LINK)
    if not pages:  # no sidebar: record the one page there is
        first["view"] = "home"
        chromium.screenshot(shots / "00-home.png")
        return [first] if part == 0 else []
    state = first
    for number, page in enumerate(pages):
        if number % parts != part:
            continue
        if number:  # the first page is on show already
            chromium.click(NAV_LINK, page)
            state = chromium.wait()
        tabs = chromium.texts(TAB) or [""]
        for tab_number, tab in enumerate(tabs):
            if tab_number:  # a page opens on its first tab
                chromium.click(TAB, tab)
                state = chromium.wait()
            state["view"] = f"{page} / {tab}" if tab else page
            name = f"{number}{tab_number}-{_slug(page)}"
            name += f"--{_slug(tab)}" if tab else ""
            chromium.screenshot(shots / f"{name}.png")
            states.append(state)
    return states
