"""Functions a sandbox calls but the grader runs: Task 0.2's operators.

Task 0.2 grades a student's property tests by the planted bugs they catch
(:mod:`kindling.mutation`). Whatever code the tests run, they can also *read*
(its file, ``inspect.getsource``, its bytecode), and a test that reads can tell a
planted bug from the reference by its text, without checking any property. So when
the reference operators are the base, their code never enters the sandbox: in
every run (the base, each mutant, each decoy) the tree's ``operators.py`` is the
same text, in which each graded operator's body is a call of :func:`call`; the
grader runs that run's operators (the reference, or the reference with one bug) in
its own process, on the numbers the call sends, and sends back the value or the
error. A test sees only what an operator computes, as a property test should.

The protocol, one JSON line each way per call: ``["mul", [2.0, 3.0]]`` from the
sandbox; ``{"value": 6.0}`` or ``{"error": ["ZeroDivisionError", "message"]}`` back.
Only numbers (``bool``, ``int``, ``float``; NaN and infinities included) cross: a
call with anything else raises ``TypeError`` in the sandbox, and the grader never
evaluates anything but a graded operator's own code on numbers it parsed.
"""

from __future__ import annotations

import builtins
import json
import numbers
import os
import threading
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

__all__ = ["FDS", "call", "Service"]

FDS = "KINDLING_SERVED_FDS"  # the job's "requests,replies" descriptors
LINE_BYTES = 1 << 16  # the longest request the grader reads
_lock = threading.Lock()
_channel: Optional[Tuple[Any, Any]] = None


def _number(value: Any) -> Any:
    if isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    raise TypeError(f"the graded operators take numbers, not {type(value).__name__}")


def call(name: str, *args: Any) -> Any:
    """Run the grader's operator ``name`` on ``args`` (numbers): its value, or its
    error raised here (a built-in exception type, with the operator's message)."""
    global _channel
    request = json.dumps([name, [_number(a) for a in args]]).encode() + b"\n"
    with _lock:
        if _channel is None:
            spec = os.environ.get(FDS, "")
            try:
                out, back = (int(fd) for fd in spec.split(","))
                _channel = (os.fdopen(out, "wb", buffering=0), os.fdopen(back, "rb"))
            except (ValueError, OSError):
                raise RuntimeError("no grader serves the operators here") from None
        out, back = _channel
        out.write(request)
        reply = back.readline()
    if not reply:
        raise RuntimeError("the grader stopped serving the operators")
    answer = json.loads(reply)
    if "value" in answer:
        return answer["value"]
    kind, message = answer["error"]
    error = getattr(builtins, kind, None)
    if not (isinstance(error, type) and issubclass(error, Exception)):
        error = RuntimeError
    raise error(message)


def _reply(function: Callable[..., Any], args: List[Any]) -> bytes:
    try:
        value = function(*args)
        if isinstance(value, float) or value is None or isinstance(value, (bool, int)):
            return json.dumps({"value": value}).encode() + b"\n"
        raise TypeError(f"an operator returned a {type(value).__name__}")
    except Exception as error:  # noqa: BLE001 - the error is the operator's answer
        kind = type(error).__name__ if hasattr(builtins, type(error).__name__) else ""
        message = str(error)[:1000]
        return json.dumps({"error": [kind or "RuntimeError", message]}).encode() + b"\n"


class Service:
    """The grader's side for one run: the operators ``names`` of the module built
    from ``text`` (trusted code: the reference, or the reference with one planted
    bug), answering one job's calls in a thread of the grader's process."""

    def __init__(self, text: str, names: Iterable[str], filename: str) -> None:
        namespace: Dict[str, Any] = {"__name__": "kindling_served_operators"}
        exec(compile(text, filename, "exec"), namespace)
        self.functions = {name: namespace[name] for name in names}
        self.calls = 0
        self.thread: Optional[threading.Thread] = None

    def start(self, requests: int, replies: int) -> None:
        """Serve the calls read from ``requests`` (until the job closes it) on
        ``replies``, in a thread; both descriptors are the service's to close."""
        self.thread = threading.Thread(
            target=self._serve, args=(requests, replies), daemon=True
        )
        self.thread.start()

    def join(self, seconds: float = 5.0) -> None:
        if self.thread is not None:
            self.thread.join(seconds)

    def _serve(self, requests: int, replies: int) -> None:
        with os.fdopen(requests, "rb") as inbox, os.fdopen(replies, "wb") as outbox:
            while True:
                line = inbox.readline(LINE_BYTES)
                if not line or not line.endswith(b"\n"):
                    return  # the job is gone, or sent more than a call
                try:
                    name, args = json.loads(line)
                    function = self.functions[name]
                    if not isinstance(args, list) or not all(
                        isinstance(a, (bool, int, float)) for a in args
                    ):
                        raise ValueError
                except (ValueError, TypeError, KeyError):
                    return  # not a call of a graded operator: stop serving
                # (Python parses an int of at most 4,300 digits: ValueError above.)
                answer = _reply(function, args)
                self.calls += 1
                try:
                    outbox.write(answer)
                    outbox.flush()
                except OSError:
                    return
