"""Typed run events, built from the server-sent events of a LangGraph run stream.

Every event keeps what the server sent: `raw_event` is the SSE event name as received,
`data` the parsed JSON (or the raw text when it is not JSON; None when there was no
data at all). `event` is the stream mode without its namespace and `namespace` the
subgraph path: `updates|parent:1f0|child:2a1` is `event="updates"`,
`namespace=("parent:1f0", "child:2a1")`.

The events are frozen slotted dataclasses, not pydantic models: a run can stream
thousands of tokens a second and the payloads are schemaless JSON anyway, so there is
nothing to validate — the properties read the known fields defensively instead.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, TypeAlias

from pydantic_core import from_json

from agent_tui.client.sse import ServerSentEvent
from agent_tui.text.message_text import answer_text

__all__ = [
    "CheckpointsEvent",
    "CustomEvent",
    "DebugEvent",
    "EndEvent",
    "ErrorEvent",
    "EventsEvent",
    "MessageListEvent",
    "MessagesEvent",
    "MessagesMetadataEvent",
    "MetadataEvent",
    "RunEvent",
    "TasksEvent",
    "UnknownEvent",
    "UpdatesEvent",
    "ValuesEvent",
    "parse_run_event",
]


@dataclass(frozen=True, slots=True)
class _RunEventBase:
    event: str
    data: Any
    id: str | None = None
    namespace: tuple[str, ...] = ()
    raw_event: str = ""


@dataclass(frozen=True, slots=True)
class MetadataEvent(_RunEventBase):
    """First event of a run: `{"run_id": ..., "attempt": ...}`."""

    @property
    def run_id(self) -> str | None:
        value = _get(self.data, "run_id")
        return value if isinstance(value, str) else None

    @property
    def attempt(self) -> int | None:
        value = _get(self.data, "attempt")
        return value if isinstance(value, int) else None


@dataclass(frozen=True, slots=True)
class ValuesEvent(_RunEventBase):
    """The full state after a step.

    The server also sends an interrupt as a `values` event (`{"__interrupt__": [...]}`)
    when the run did not ask for `updates`.
    """

    @property
    def values(self) -> dict[str, Any]:
        return self.data if isinstance(self.data, dict) else {}

    @property
    def interrupts(self) -> list[Any]:
        return _interrupts(self.data)


@dataclass(frozen=True, slots=True)
class UpdatesEvent(_RunEventBase):
    """What each node wrote in a step: `{node: update}`; None for a node that wrote nothing."""

    @property
    def updates(self) -> dict[str, Any]:
        return self.data if isinstance(self.data, dict) else {}

    @property
    def interrupts(self) -> list[Any]:
        """The `__interrupt__` entries (`{"value": ..., "id": ...}`) when the graph paused."""
        return _interrupts(self.data)


@dataclass(frozen=True, slots=True)
class MessagesEvent(_RunEventBase):
    """One LLM token chunk, from stream mode `messages-tuple`: data is `[chunk, metadata]`."""

    @property
    def chunk(self) -> dict[str, Any]:
        item = _item(self.data, 0)
        return item if isinstance(item, dict) else {}

    @property
    def metadata(self) -> dict[str, Any]:
        item = _item(self.data, 1)
        return item if isinstance(item, dict) else {}

    @property
    def node(self) -> str | None:
        value = self.metadata.get("langgraph_node")
        return value if isinstance(value, str) else None

    @property
    def text(self) -> str:
        return answer_text(self.chunk)


@dataclass(frozen=True, slots=True)
class MessageListEvent(_RunEventBase):
    """Stream mode `messages`: `messages/partial` (the message so far) or `messages/complete`."""

    @property
    def complete(self) -> bool:
        return self.event == "messages/complete"

    @property
    def messages(self) -> list[dict[str, Any]]:
        if not isinstance(self.data, list):
            return []
        return [item for item in self.data if isinstance(item, dict)]

    @property
    def text(self) -> str:
        """The text of the last message (the one this event is about)."""
        messages = self.messages
        return answer_text(messages[-1]) if messages else ""


@dataclass(frozen=True, slots=True)
class MessagesMetadataEvent(_RunEventBase):
    """Stream mode `messages`: `{message_id: {"metadata": {...}}}` before a message's first part."""


@dataclass(frozen=True, slots=True)
class CustomEvent(_RunEventBase):
    """Whatever a node wrote with the stream writer."""


@dataclass(frozen=True, slots=True)
class DebugEvent(_RunEventBase):
    pass


@dataclass(frozen=True, slots=True)
class TasksEvent(_RunEventBase):
    pass


@dataclass(frozen=True, slots=True)
class CheckpointsEvent(_RunEventBase):
    pass


@dataclass(frozen=True, slots=True)
class EventsEvent(_RunEventBase):
    """Stream mode `events`: one raw `astream_events` record."""


@dataclass(frozen=True, slots=True)
class ErrorEvent(_RunEventBase):
    """A run error, sent inside the 200 stream: `{"error": <class name>, "message": ...}`."""

    @property
    def error(self) -> str:
        value = _get(self.data, "error")
        return value if isinstance(value, str) else "Error"

    @property
    def message(self) -> str:
        value = _get(self.data, "message")
        if isinstance(value, str):
            return value
        # Not the documented shape: show whatever came rather than nothing.
        return "" if self.data is None or isinstance(self.data, dict) else str(self.data)


@dataclass(frozen=True, slots=True)
class EndEvent(_RunEventBase):
    """The run finished; nothing follows."""


@dataclass(frozen=True, slots=True)
class UnknownEvent(_RunEventBase):
    """An event name this client does not know; `data` is kept as received."""


RunEvent: TypeAlias = (
    MetadataEvent
    | ValuesEvent
    | UpdatesEvent
    | MessagesEvent
    | MessageListEvent
    | MessagesMetadataEvent
    | CustomEvent
    | DebugEvent
    | TasksEvent
    | CheckpointsEvent
    | EventsEvent
    | ErrorEvent
    | EndEvent
    | UnknownEvent
)

_KINDS: dict[str, type[RunEvent]] = {
    "metadata": MetadataEvent,
    "values": ValuesEvent,
    "updates": UpdatesEvent,
    "messages": MessagesEvent,
    "messages/partial": MessageListEvent,
    "messages/complete": MessageListEvent,
    "messages/metadata": MessagesMetadataEvent,
    "custom": CustomEvent,
    "debug": DebugEvent,
    "tasks": TasksEvent,
    "checkpoints": CheckpointsEvent,
    "events": EventsEvent,
    "error": ErrorEvent,
    "end": EndEvent,
}


def _parse_json(text: str) -> Any:
    # pydantic-core parses 2-3x faster than json on token-sized payloads and on ASCII of
    # any size, but about 2x slower on long non-ASCII text (benchmarks/sse_throughput.py);
    # str.isascii() is O(1). json.loads is also the fallback: it alone accepts lone
    # surrogate escapes ("\ud800") and nesting deeper than 200.
    if len(text) < 1024 or text.isascii():
        try:
            return from_json(text)
        except ValueError:
            pass
    return json.loads(text)


def parse_run_event(sse: ServerSentEvent) -> RunEvent:
    """Turn one server-sent event into a typed run event. Never raises on odd input."""
    raw = sse.event
    if "|" in raw:
        mode, *namespace = raw.split("|")
    else:
        mode, namespace = raw, []
    text = sse.data
    data: Any
    if not text:
        data = None
    else:
        try:
            data = _parse_json(text)
        except (ValueError, RecursionError):
            data = text  # not JSON: keep the text rather than lose the event
    kind = _KINDS.get(mode, UnknownEvent)
    # httpx-sse gives "" for "no id yet"; a run event says None.
    return kind(mode, data, sse.id or None, tuple(namespace), raw)


def _get(data: Any, key: str) -> Any:
    return data.get(key) if isinstance(data, dict) else None


def _item(data: Any, index: int) -> Any:
    return data[index] if isinstance(data, list) and len(data) > index else None


def _interrupts(data: Any) -> list[Any]:
    value = _get(data, "__interrupt__")
    return value if isinstance(value, list) else []
