"""What `agent-tui run` prints while its run streams, and where the run ended.

`HumanOutput` writes lines for a reader from the chat's own transcript changes (so text
is assembled exactly as in the TUI): AI text as it streams, tool calls and results, node
updates, custom events, interrupts. `JsonOutput` writes one JSON object per server event
(JSON Lines, stable keys `event`, `data`, `run_id`, `thread_id`), then one `outcome`
object (with `failure`: the exception's type, message and node, from the thread's state
where the error event has only the server's generic words). Both say on stderr what goes
wrong (why the run failed, a dropped connection).

Everything for a human goes through `clean_text` (server text must never reach the
terminal as escape sequences); JSON is escaped like every other `--json` output.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any, TextIO

from agent_tui.chat.driver_events import Finished, Received, Reconnecting
from agent_tui.chat.item_text import compact_json, namespace_label, update_values
from agent_tui.chat.items import (
    Added,
    AIItem,
    Appended,
    CustomItem,
    ErrorItem,
    HumanItem,
    InterruptItem,
    NodeUpdateItem,
    NoticeItem,
    ToolResultItem,
    TranscriptChange,
    Updated,
)
from agent_tui.client.events import (
    CheckpointsEvent,
    DebugEvent,
    EventsEvent,
    MetadataEvent,
    TasksEvent,
    UnknownEvent,
)
from agent_tui.text.escaping import escape_json_controls
from agent_tui.text.sanitize import clean_text
from agent_tui.threads.failure import Failure

if TYPE_CHECKING:
    from agent_tui.chat.driver_events import DriverEvent
    from agent_tui.chat.waiting import Waiting

VALUE_LIMIT = 200  # characters of one value shown on a line (the JSON output has it all)
# Events the transcript does not show: one line each, so asking for them shows something.
_RAW_KINDS = (DebugEvent, TasksEvent, CheckpointsEvent, EventsEvent, UnknownEvent)


class RunOutput:
    """What both outputs share: stderr for what went wrong, and the end of a run."""

    def __init__(self, thread_id: str, out: TextIO | None = None, err: TextIO | None = None):
        self.thread_id = thread_id
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.said: Failure | None = None  # the stream's error event, as the chat shows it
        self.failure: Failure | None = None  # why the run failed, once said (`fail`)

    def step(
        self, event: DriverEvent | None, changes: list[TranscriptChange], run_id: str | None
    ) -> None:
        """One step of `ChatSession`. Steps without a driver event are the session's own
        (the message sent, a "Not sent" notice the raised error says better): skipped."""
        if event is None:
            return
        if isinstance(event, Reconnecting):
            self.warn(f"the connection dropped ({event.reason}): rejoining the run…")
        # How a cancelled or failed run ended is said once the thread's state is read:
        # the error event's own message is often only the server's generic words.
        ending = isinstance(event, Finished) and event.state in ("cancelled", "error")
        for change in changes:
            if isinstance(change, (Added, Updated)) and isinstance(change.item, ErrorItem):
                self.said = change.item.failure()
            elif isinstance(change, Added) and isinstance(change.item, NoticeItem) and not ending:
                self.warn(change.item.text)
        self.out.flush()

    def fail(self, failure: Failure) -> None:
        """Say why the run failed (`threads.failure`: its type, node and own words)."""
        self.failure = failure
        self.warn(f"the run failed: {failure.line()}")

    def warn(self, text: str) -> None:
        self.out.flush()  # what came before shows before it
        print(clean_text(f"agent-tui: {text}"), file=self.err, flush=True)

    def ended(self, finished: Finished, waiting: Waiting | None, command: str) -> None:
        """The run ended: `waiting` is what the thread waits for when it paused, and
        `command` the command that goes on from there (`agent-tui run A --thread T`)."""


class HumanOutput(RunOutput):
    def __init__(self, thread_id: str, out: TextIO | None = None, err: TextIO | None = None):
        super().__init__(thread_id, out, err)
        self._open: str | None = None  # the AI message whose line is still being written
        self._streamed: dict[str, list[str]] = {}  # AI text written so far, by message
        self._written: dict[str, int] = {}  # its length
        self._ended: set[str] = set()  # AI messages written to their end

    def started(self, *, new: bool, assistant: str) -> None:
        where = f"new thread on {assistant}" if new else f"on {assistant}"
        self.line(f"thread {self.thread_id} ({where})")

    def step(
        self, event: DriverEvent | None, changes: list[TranscriptChange], run_id: str | None
    ) -> None:
        if event is None:
            return
        if isinstance(event, Received) and not event.duplicate:
            run_event = event.event
            if isinstance(run_event, MetadataEvent) and run_event.run_id:
                self.line(f"run {run_event.run_id}")
            elif isinstance(run_event, _RAW_KINDS):
                self.line(f"{run_event.raw_event}: {compact_json(run_event.data, VALUE_LIMIT)}")
        for change in changes:
            self._change(change)
        if isinstance(event, Finished):
            self._end_line()
        super().step(event, changes, run_id)

    def ended(self, finished: Finished, waiting: Waiting | None, command: str) -> None:
        self._end_line()
        if waiting is None:
            return
        for interrupt in waiting.interrupts:
            where = " ▸ ".join(interrupt.path) or "the graph"
            known = f" (interrupt {interrupt.interrupt_id})" if interrupt.interrupt_id else ""
            self.line(f"waiting at {where} for an answer{known}: {_shown(interrupt.value)}")
        if len(waiting.interrupts) == 1:
            self.line(f"answer: {command} --resume JSON")
        elif waiting.interrupts:
            ids = ", ".join(f'"{i.interrupt_id}": …' for i in waiting.interrupts)
            self.line(f"answer each by its id: {command} --resume '{{{ids}}}'")
        else:
            then = f"; next: {', '.join(waiting.next)}" if waiting.next else ""
            if waiting.pause == "before":
                self.line(f"paused before {waiting.node} (breakpoint)")
            elif waiting.pause == "after":
                self.line(f"paused after {waiting.node} (breakpoint){then}")
            else:
                self.line(f"paused{then}")
            self.line(f"continue: {command}")
        self.out.flush()

    # -- transcript changes --------------------------------------------------------------

    def _change(self, change: TranscriptChange) -> None:
        if isinstance(change, Appended):
            self._ai(change.item)
            return
        if not isinstance(change, (Added, Updated)):
            return  # Cleared: a reload, whose messages were shown already
        item = change.item
        if isinstance(item, AIItem):
            self._ai(item)
        elif isinstance(change, Updated):
            return  # an answered interrupt, a tool result's final text: shown already
        elif isinstance(item, HumanItem):
            self.line(f"human: {item.text}")
        elif isinstance(item, ToolResultItem) and item.handoff:
            self.line(f"{_where(item.namespace)}→ {item.handoff}")  # a multi-agent handoff
        elif isinstance(item, ToolResultItem):
            verb = "failed" if item.status == "error" else "result"
            self.line(f"{_where(item.namespace)}tool {verb} ({item.name}): {item.content}")
        elif isinstance(item, NodeUpdateItem):
            self.line(f"{_where(item.namespace)}{item.node} ▸ {_update(item.update)}")
        elif isinstance(item, CustomItem):
            self.line(f"{_where(item.namespace)}custom: {_shown(item.data)}")
        elif isinstance(item, InterruptItem):
            self.line(f"{_where(item.namespace)}interrupt: {_shown(item.value)}")

    def _ai(self, item: AIItem) -> None:
        """Write what the message has that was not written yet. Items change in place,
        so a change is read as "look at the item now", never as its own delta: one batch
        can add a message and grow it."""
        if item.key in self._ended:
            return  # the thread's final state confirming it: written already
        pieces = self._streamed.setdefault(item.key, [])
        written = self._written.get(item.key, 0)
        if item.streaming:
            if len(item.text) > written:
                self._write_ai(item, item.text[written:])
            return
        # Final: the rest of its text (the whole of it, when it did not stream), its calls.
        so_far = "".join(pieces)
        if len(item.text) > len(so_far) and item.text.startswith(so_far):
            self._write_ai(item, item.text[len(so_far) :])
        if self._open == item.key:
            self._end_line()
        self._ended.add(item.key)
        self._streamed.pop(item.key, None)
        self._written.pop(item.key, None)
        for call in item.tool_calls:
            args = compact_json(call.args, VALUE_LIMIT)
            self.line(f"{_where(item.namespace)}tool call: {call.name}({args})")

    def _write_ai(self, item: AIItem, text: str) -> None:
        if self._open != item.key:
            self._end_line()
            node = f" ({item.node})" if item.node else ""
            self.out.write(clean_text(f"{_where(item.namespace)}ai{node}: "))
            self._open = item.key
        # Cleaned piece by piece: a sequence split across two tokens loses its ESC in the
        # first, so what follows is inert text.
        self.out.write(clean_text(text))
        self._streamed.setdefault(item.key, []).append(text)
        self._written[item.key] = self._written.get(item.key, 0) + len(text)

    def _end_line(self) -> None:
        if self._open is not None:
            self.out.write("\n")
            self._open = None

    def line(self, text: str) -> None:
        self._end_line()
        self.out.write(clean_text(text) + "\n")


class JsonOutput(RunOutput):
    """One JSON object per server event; the last one (`outcome`) says how it ended."""

    def step(
        self, event: DriverEvent | None, changes: list[TranscriptChange], run_id: str | None
    ) -> None:
        if isinstance(event, Received) and not event.duplicate:
            run_event = event.event
            self._write(run_event.raw_event, run_event.data, run_id)
        super().step(event, changes, run_id)

    def ended(self, finished: Finished, waiting: Waiting | None, command: str) -> None:
        data: dict[str, Any] = {
            "state": finished.state,
            "thread_status": finished.thread_status,
            "reason": finished.reason,
            "next": list(waiting.next) if waiting else [],
            "pause": None,
            "interrupts": [],
            "failure": self.failure.as_json() if self.failure is not None else None,
        }
        if waiting is not None:
            if waiting.pause is not None:
                data["pause"] = {"when": waiting.pause, "node": waiting.node}
            data["interrupts"] = [
                {"id": i.interrupt_id, "path": list(i.path), "value": i.value}
                for i in waiting.interrupts
            ]
        self._write("outcome", data, finished.run_id)

    def _write(self, event: str, data: Any, run_id: str | None) -> None:
        record = {"event": event, "data": data, "run_id": run_id, "thread_id": self.thread_id}
        text = json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str)
        self.out.write(escape_json_controls(text) + "\n")
        self.out.flush()  # a reader (`| jq`) sees each event as it comes


def _where(namespace: tuple[str, ...]) -> str:
    return f"[{namespace_label(namespace)}] " if namespace else ""


def _shown(value: Any) -> str:
    return value if isinstance(value, str) else compact_json(value, VALUE_LIMIT)


def _update(update: Any) -> str:
    """`n=2, items=[1]`: what a node wrote; messages by key only (their lines show them)."""
    return update_values(update, VALUE_LIMIT)
