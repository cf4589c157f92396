"""What `agent-tui run` prints while its run streams, and where the run ended.

`HumanOutput` writes lines for a reader from the chat's own transcript changes (so text
is assembled exactly as in the TUI): AI text as it streams, tool calls and results, node
updates, custom events, interrupts. When two messages stream at once (parallel branches),
the first is written as it streams and the other prints whole once its stream ended. `JsonOutput` writes one JSON object per server event
(JSON Lines, stable keys `event`, `data`, `run_id`, `thread_id`), then one `outcome`
object (with `failure`: the exception's type, message and node, from the thread's state
where the error event has only the server's generic words; `totals`: the run's calls and
tokens when it was traced here, else null). Both say on stderr what goes
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
from agent_tui.chat.messages import message_id
from agent_tui.client.events import (
    CheckpointsEvent,
    DebugEvent,
    EventsEvent,
    MessagesEvent,
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
    from agent_tui.traces.totals import RunTotals

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
        self.totals: RunTotals | None = None  # its calls and tokens, when known here

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
    """Lines for a reader. One message at a time has the floor: its line is written word
    by word as it streams, and what comes meanwhile from elsewhere (another branch's
    message streaming at the same time, its tool results and updates) waits, in order,
    until that message's stream ends; a message that waited prints whole, once."""

    def __init__(self, thread_id: str, out: TextIO | None = None, err: TextIO | None = None):
        super().__init__(thread_id, out, err)
        self._open: str | None = None  # the AI message whose line is still being written
        self._live: AIItem | None = None  # the message that has the floor (its line is open)
        self._waiting: list[str | AIItem] = []  # lines and messages waiting for the floor
        self._streamed: dict[str, str] = {}  # AI text written so far, by message
        self._streaming: dict[str, AIItem] = {}  # messages seen, not written to their end
        self._complete: set[str] = set()  # messages whose stream said it ended
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
                self._say(f"run {run_event.run_id}")
            elif isinstance(run_event, _RAW_KINDS):
                self._say(f"{run_event.raw_event}: {compact_json(run_event.data, VALUE_LIMIT)}")
        for change in changes:
            self._change(change)
        if isinstance(event, Received) and isinstance(event.event, MessagesEvent):
            self._stream_ended(event.event)
        if isinstance(event, Finished):
            self._end_line()
        super().step(event, changes, run_id)

    def ended(self, finished: Finished, waiting: Waiting | None, command: str) -> None:
        self._end_line()
        if self.totals is not None:
            self.line(f"totals: {self.totals.text()}")
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
            self._say(f"human: {item.text}")
        elif isinstance(item, ToolResultItem) and item.handoff:
            # A multi-agent handoff.
            self._say(f"{_where(item.namespace)}→ {item.handoff}", item.namespace)
        elif isinstance(item, ToolResultItem):
            verb = "failed" if item.status == "error" else "result"
            line = f"{_where(item.namespace)}tool {verb} ({item.name}): {item.content}"
            self._say(line, item.namespace)
        elif isinstance(item, NodeUpdateItem):
            line = f"{_where(item.namespace)}{item.node} ▸ {_update(item.update)}"
            self._say(line, item.namespace)
        elif isinstance(item, CustomItem):
            self._say(f"{_where(item.namespace)}custom: {_shown(item.data)}", item.namespace)
        elif isinstance(item, InterruptItem):
            self._say(f"{_where(item.namespace)}interrupt: {_shown(item.value)}", item.namespace)

    def _ai(self, item: AIItem) -> None:
        """Write what the message has that was not written yet, when it has the floor (it
        waits for it otherwise). Items change in place, so a change is read as "look at
        the item now", never as its own delta: one batch can add a message and grow it."""
        if item.key in self._ended:
            return  # the thread's final state confirming it: written already
        self._streaming[item.key] = item
        live = self._live
        if live is not None and live.key != item.key:
            if not any(isinstance(w, AIItem) and w.key == item.key for w in self._waiting):
                self._waiting.append(item)
            return
        self._write_ai(item)
        if item.streaming and item.key not in self._complete:
            self._live = item if self._open == item.key else None
            return
        self._finish(item)

    def _stream_ended(self, event: MessagesEvent) -> None:
        """The stream's last chunk of a message (`chunk_position`): the floor is free."""
        key = message_id(event.chunk)
        if key is None or event.chunk.get("chunk_position") != "last":
            return
        self._complete.add(key)
        item = self._streaming.get(key)
        if item is not None:
            self._ai(item)  # its line ends, or it prints whole (its tool calls with it)

    def _finish(self, item: AIItem) -> None:
        """`item`'s stream is over: its line ends; once it is final or its stream said it
        ended (its tool calls are whole then), its tool calls print; then what waited for
        the floor."""
        self._live = None
        self._end_open_line()
        if not item.streaming or item.key in self._complete:
            self._ended.add(item.key)
            self._streamed.pop(item.key, None)
            self._streaming.pop(item.key, None)
            for call in item.tool_calls:
                args = compact_json(call.args, VALUE_LIMIT)
                self.line(f"{_where(item.namespace)}tool call: {call.name}({args})")
        self._give_floor()

    def _give_floor(self) -> None:
        """What waited, in order, until a message that streams on takes the floor."""
        while self._waiting and self._live is None:
            waited = self._waiting.pop(0)
            if isinstance(waited, str):
                self.line(waited)
            else:
                self._ai(waited)

    def _write_ai(self, item: AIItem) -> None:
        so_far = self._streamed.get(item.key, "")
        if len(item.text) <= len(so_far) or not item.text.startswith(so_far):
            return
        text = item.text[len(so_far) :]
        if self._open != item.key:
            self._end_open_line()
            node = f" ({item.node})" if item.node else ""
            self.out.write(clean_text(f"{_where(item.namespace)}ai{node}: "))
            self._open = item.key
        # Cleaned piece by piece: a sequence split across two tokens loses its ESC in the
        # first, so what follows is inert text.
        self.out.write(clean_text(text))
        self._streamed[item.key] = so_far + text

    def _say(self, text: str, namespace: tuple[str, ...] | None = None) -> None:
        """A line, once the floor is free. A line from the namespace of the message that
        has the floor says its node moved on: that message's stream is over."""
        live = self._live
        if live is not None and namespace is not None and namespace == live.namespace:
            self._finish(live)
        if self._live is not None:
            self._waiting.append(text)
        else:
            self.line(text)

    def _end_line(self) -> None:
        """Everything waiting is written (the run ended)."""
        while self._live is not None or self._waiting:
            if self._live is not None:
                self._finish(self._live)
            else:
                self._give_floor()
        self._end_open_line()

    def _end_open_line(self) -> None:
        if self._open is not None:
            self.out.write("\n")
            self._open = None

    def line(self, text: str) -> None:
        self._end_open_line()
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
            "totals": self.totals.as_json() if self.totals is not None else None,
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
