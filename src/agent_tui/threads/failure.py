"""Why a thread or a run failed, in plain words (headless): the exception's type, its own
message and the node that raised it — the one home of that text for the chat, the thread
header, the chat's state line, the attention queue, the runs screen and `agent-tui run`.

langgraph-api tells it in several places, each with part of it (server-quirks.md):

- the run's stream (`event: error`) and the thread's `error` carry `{error, message}`, the
  type and a message but no node; for any exception outside langgraph-api's short list of
  builtins (`ValueError`, `RuntimeError`, …) the message is only `An internal error
  occurred` (`GENERIC_MESSAGE`) — an `httpx.ConnectError` to a model server that is down
  says no more than that;
- the failing task of the run's last checkpoint (`GET /threads/{id}/state` → `tasks[]`, and
  that checkpoint in the history, found by the run's id in its metadata) carries the node's
  name with the exception's repr, its own words included
  (`"ConnectError('[Errno 111] Connection refused: code 7731')"`);
- the run record (`GET /threads/{id}/runs/{run_id}`) has no error at all.

`failure_of` joins them, the richest source first: the type, node and message of the
failing task, the thread's (or the stream's) type and message where the task has none, and
the generic text only when nothing better exists. Server text in a `Failure` is raw: a
screen shows it through `server_text`, a command through `clean_text`.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from agent_tui.client import AgentServerClient
from agent_tui.client.models import Thread, ThreadTask

CANCELLED_ERROR = "UserInterrupt"  # what langgraph-api records for a cancelled run
GENERIC_MESSAGE = "An internal error occurred"  # langgraph-api's words for any other exception
_REPR = re.compile(r"^(?P<type>[A-Za-z_][\w.]*)\((?P<args>.*)\)$", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Failure:
    error: str  # the exception's type, e.g. "ConnectError"
    message: str
    node: str | None = None

    def where(self) -> str:
        """`ConnectError in call_model`: the type and the node, without the message."""
        return f"{self.error or 'Error'}{f' in {self.node}' if self.node else ''}"

    def line(self) -> str:
        """`ConnectError in call_model: [Errno 111] Connection refused: code 7731`"""
        return f"{self.where()}: {self.message}" if self.message else self.where()

    def as_json(self) -> dict[str, Any]:
        return {"error": self.error, "message": self.message, "node": self.node}


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


def told(error: Any) -> Failure | None:
    """What the server said in an `{"error": <type>, "message": …}` object (a thread's
    `error`, a stream's `event: error`), or None when `error` is no such object."""
    if not isinstance(error, dict):
        return None
    return Failure(error=str(error.get("error") or ""), message=str(error.get("message") or ""))


def _thread_error(thread: Thread | None) -> dict[str, Any] | None:
    error = (thread.model_extra or {}).get("error") if thread is not None else None
    return error if isinstance(error, dict) else None


def was_cancelled(thread: Thread | None, tasks: Sequence[ThreadTask] = ()) -> bool:
    """Whether the thread's last run was cancelled. langgraph-api leaves the thread
    `interrupted`, as a breakpoint does, but records a `UserInterrupt` error (a breakpoint
    records none); Aegra leaves it `idle` with the node that was stopped still to run, its
    task's error a `CancelledError` (`tasks`: the thread's state's)."""
    if thread is None or thread.status == "error":
        return False
    error = _thread_error(thread)
    if thread.status == "interrupted" and error is not None:
        return error.get("error") == CANCELLED_ERROR
    return any(
        _short_type(parse_task_error(task.error)[0]) in CANCEL_ERRORS
        for task in tasks
        if task.error
    )


CANCEL_ERRORS = frozenset({"CancelledError", CANCELLED_ERROR})
"""A task's error type when its run was cancelled (not failed)."""


def _short_type(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def richest(said: Failure | None, task: Failure | None) -> Failure | None:
    """One failure from what the server said (`said`: type and message, maybe generic)
    and what the failing task recorded (`task`: type, its own message, node)."""
    if task is None or said is None:
        return task or said
    if said.error and task.error and _short_type(said.error) != _short_type(task.error):
        # The task failed with another exception than the run: the run's words, where.
        return Failure(said.error, said.message, task.node)
    generic = not said.message or said.message == GENERIC_MESSAGE
    return Failure(
        error=said.error or task.error,
        message=(task.message or said.message) if generic else said.message,
        node=task.node,
    )


def failure_of(
    thread: Thread | None, tasks: Sequence[ThreadTask] = (), *, said: Failure | None = None
) -> Failure | None:
    """The failure of a thread in `error` (or of a run: `said` is its stream's error
    event), from the thread's `error` and its last checkpoint's `tasks`; None when none
    records one (a cancelled run is no failure)."""
    if was_cancelled(thread):
        return None
    failing = failing_task(tasks)
    found = None
    if failing is not None:
        path, text = failing
        error, message = parse_task_error(text)
        found = Failure(error=error, message=message, node=NODE_PATH_SEPARATOR.join(path))
    return richest(told(_thread_error(thread)) or said, found)


NODE_PATH_SEPARATOR = " ▸ "
"""Between a subgraph's node and the node inside it that failed: `chat ▸ agent`."""


def failing_task(tasks: Sequence[ThreadTask | dict[str, Any]]) -> tuple[list[str], str] | None:
    """The node that raised, as its path from the root graph (a subgraph's node, then the
    node inside it: a state read with `subgraphs=True` nests the subgraph's own state in
    the task), and its error text; None when no task failed."""
    for raw in tasks:
        task = raw if isinstance(raw, ThreadTask) else _task(raw)
        if task is None or not task.error:
            continue
        inner = task.state.get("tasks") if isinstance(task.state, dict) else None
        below = failing_task(inner) if isinstance(inner, list) else None
        if below is not None:
            return [task.name, *below[0]], below[1]
        return [task.name], task.error
    return None


def _task(raw: Any) -> ThreadTask | None:
    try:
        return ThreadTask.model_validate(raw)
    except ValidationError:
        return None


async def run_failure(
    client: AgentServerClient, thread_id: str, run_id: str, *, last: bool = False
) -> Failure | None:
    """Why one run of a thread failed, also one before the thread's last: its newest
    checkpoint (the history filtered by the run's id) holds the failing task. `last`: the
    run is the thread's last one, so the thread's `error` is this run's too (the only
    word of a run that failed before it wrote a checkpoint)."""
    states = await client.threads.get_history(thread_id, limit=1, metadata={"run_id": run_id})
    thread = await client.threads.get(thread_id) if last else None
    failed = thread if thread is not None and thread.status == "error" else None
    tasks = states[0].tasks if states else []
    checkpoint_id = states[0].checkpoint_id if states else None
    if checkpoint_id and any(task.error and (task.state or task.checkpoint) for task in tasks):
        # A subgraph's node failed: that checkpoint read with its subgraphs names the
        # node inside it (the history does not nest them).
        nested = await client.threads.get_state(thread_id, checkpoint_id, subgraphs=True)
        tasks = nested.tasks
    return failure_of(failed, tasks)


async def thread_failure(
    client: AgentServerClient, thread_id: str, *, said: Failure | None = None
) -> Failure | None:
    """Why the thread's last run failed, read now (the thread, then its state's tasks);
    `said`: what the run's stream said, kept when the thread is not in error."""
    thread = await client.threads.get(thread_id)
    if thread.status != "error":
        return said
    tasks = (await client.threads.get_state(thread_id, subgraphs=True)).tasks
    return failure_of(thread, tasks, said=said)
