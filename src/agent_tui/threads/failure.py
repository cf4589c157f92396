"""Why a thread failed, in plain words (headless): the exception type, its message and
the node that raised it.

langgraph-api keeps this in two places: the thread carries `error: {error, message}`
(the type and message, no node) and the failing task of its last checkpoint carries the
node's name with the exception's repr (`"DemoFailure('You asked me to fail.')"`). One
`Failure` joins them, so the chat, the thread header, the attention queue and `agent-tui
run` all say the same thing, also for a thread reopened long after it failed.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agent_tui.client.models import Thread, ThreadTask

CANCELLED_ERROR = "UserInterrupt"  # what langgraph-api records for a cancelled run
_REPR = re.compile(r"^(?P<type>[A-Za-z_][\w.]*)\((?P<args>.*)\)$", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Failure:
    error: str  # the exception's type, e.g. "DemoFailure"
    message: str
    node: str | None = None

    def line(self) -> str:
        """`DemoFailure in agent: You asked me to fail.`"""
        where = f" in {self.node}" if self.node else ""
        said = f": {self.message}" if self.message else ""
        return f"{self.error or 'Error'}{where}{said}"


def parse_task_error(text: str) -> tuple[str, str]:
    """A task's `error` (an exception repr) as (type, message); text that is no repr is
    the message of an unnamed error."""
    match = _REPR.match(text.strip())
    if match is None:
        return "", text
    args = match["args"]
    try:
        value = ast.literal_eval(args) if args else ""
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return match["type"], args
    if isinstance(value, tuple):
        value = ", ".join(str(part) for part in value)
    return match["type"], str(value)


def _thread_error(thread: Thread | None) -> dict[str, Any] | None:
    error = (thread.model_extra or {}).get("error") if thread is not None else None
    return error if isinstance(error, dict) else None


def was_cancelled(thread: Thread | None) -> bool:
    """Whether the thread's last run was cancelled: the server leaves it `interrupted`, as
    a breakpoint does, but records a `UserInterrupt` error (a breakpoint records none)."""
    error = _thread_error(thread)
    return (
        thread is not None
        and thread.status == "interrupted"
        and error is not None
        and error.get("error") == CANCELLED_ERROR
    )


def failure_of(thread: Thread | None, tasks: Sequence[ThreadTask] = ()) -> Failure | None:
    """The failure of a thread in `error`, from the thread and its last checkpoint's
    tasks; None when neither records one (a cancelled run is no failure)."""
    if was_cancelled(thread):
        return None
    failing = next((task for task in tasks if task.error), None)
    recorded = _thread_error(thread)
    if recorded is not None:
        return Failure(
            error=str(recorded.get("error") or ""),
            message=str(recorded.get("message") or ""),
            node=failing.name if failing is not None else None,
        )
    if failing is not None and failing.error:
        error, message = parse_task_error(failing.error)
        return Failure(error=error, message=message, node=failing.name)
    return None
