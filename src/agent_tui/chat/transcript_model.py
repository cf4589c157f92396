"""`ChatTranscript`: run events folded into transcript items (headless, no I/O).

Every method returns the `TranscriptChange`s it made, in order, so a widget applies
exactly those. Messages are keyed by their message id, so a message seen in several
places (token chunks, the node's update, a `values` snapshot, the final state) is one
item: streamed tokens grow it, the update finalises it with the exact text.

Events replayed by a rejoin never come here (`RunDriver` flags them, `ChatSession` drops
them). The run's state is not kept here: `run_machine.RunMachine` owns it. After a run,
`reconcile` makes the transcript show the thread's messages (`transcript_sync`), comparing
what a `messages` channel held: `messages` mode streams what a node returns under any key
(a brief kept apart, a human message for a subgraph's agents), so what only it showed is
no sign of another branch; its human messages are nobody's in this chat: not shown.

What a run's stream can add is bounded, so a run that never ends cannot grow the app
without bound: `live_text.LiveText` keeps the head and the latest text of a streaming
message, and a bounded amount of streaming text over the run (the final text replaces
it), and past `max_run_items` items a run's further items wait for its end (the
thread's final state brings its messages then).
"""

from __future__ import annotations

from itertools import count
from typing import Any, Literal

from agent_tui.chat import transcript_sync as sync
from agent_tui.chat.items import (
    Added,
    AIItem,
    Cleared,
    CustomItem,
    ErrorItem,
    HumanItem,
    InterruptItem,
    NodeUpdateItem,
    NoticeItem,
    ToolResultItem,
    TranscriptChange,
    TranscriptItem,
    Updated,
)
from agent_tui.chat.live_text import LiveText
from agent_tui.chat.messages import (
    ToolCallChunks,
    message_id,
    message_kind,
    message_text,
    same_tool_calls,
    text_field,
    tool_calls_of,
)
from agent_tui.chat.tool_results import handoff_destination, tool_result_item
from agent_tui.client.events import (
    CustomEvent,
    ErrorEvent,
    MessageListEvent,
    MessagesEvent,
    RunEvent,
    UpdatesEvent,
    ValuesEvent,
)
from agent_tui.threads.failure import Failure

Severity = Literal["information", "warning", "error"]
Namespace = tuple[str, ...]

# Items one run's events may add while it runs: more than a real run shows. Each is a
# block of a few widgets, ~200 KB however short (benchmarks/endless_stream.py).
MAX_RUN_ITEMS = 300


class ChatTranscript:
    """The chat transcript of one thread: `items` in display order."""

    max_run_items = MAX_RUN_ITEMS

    def __init__(self) -> None:
        self.items: list[TranscriptItem] = []
        self._serial = count(1)
        self._local_keys: set[str] = set()  # keys made here (a message with no server id)
        self._applying = False  # inside `apply`: items come from a run's stream
        self._run_items = 0  # items the current run's events added
        self.withheld = 0  # items the current run's events did not add (over `max_run_items`)
        self._later: list[TranscriptChange] = []  # notices made while applying an event
        self._unfinished: list[AIItem] = []  # streaming when the stream was rejoined
        self.live = LiveText()  # what streaming messages keep
        self._reset()

    def _reset(self) -> None:
        self.items = []
        self._by_message_id: dict[str, TranscriptItem] = {}
        self._tool_chunks: dict[str, ToolCallChunks] = {}
        self._interrupt_ids: set[str] = set()
        self._unnamed_ai: dict[tuple[str | None, Namespace], str] = {}
        self._unnamed_humans: list[HumanItem] = []  # sent here, not yet seen from the server
        self._unnamed: list[TranscriptItem] = []  # AI and tool messages that came with no id
        self._stream_only: set[str] = set()  # keys of items no `messages` channel held yet
        self.live.reset()

    # -- local changes ---------------------------------------------------------------

    def add_human(self, text: str) -> list[TranscriptChange]:
        """The user's message, shown at once; the server's copy (same text) joins it later."""
        item = HumanItem(key=self._key("local"), text=text)
        self._unnamed_humans.append(item)
        return self._add(item)

    def notice(self, text: str, severity: Severity = "information") -> list[TranscriptChange]:
        item = NoticeItem(key=self._key("notice"), text=text, severity=severity)
        self.items.append(item)
        return [Added(item)]

    def rejoined(self) -> None:
        """The stream was rejoined: a node starting again leaves its answer unfinished."""
        self._unfinished = [i for i in self.items if isinstance(i, AIItem) and i.streaming]

    def begin_run(self) -> None:
        """A run starts (or is joined): its events may add `max_run_items` items."""
        self._run_items = self.withheld = 0
        self.live.begin_run()

    def end_run(self) -> list[TranscriptChange]:
        """The run stopped (whatever its outcome): so do its streaming messages."""
        return sync.finish_streaming(self.items)

    def waiting_interrupts(self) -> list[InterruptItem]:
        """The interrupts not answered yet, in order."""
        return [
            item for item in self.items if isinstance(item, InterruptItem) and not item.answered
        ]

    def answer_interrupt(self, item: InterruptItem, answer: Any) -> list[TranscriptChange]:
        """`item` was answered with `answer` (the resume value sent)."""
        if item.answered:
            return []
        item.answered = True
        item.answer, item.answer_known = answer, True
        return [Updated(item)]

    # -- run events ------------------------------------------------------------------

    def apply(self, event: RunEvent) -> list[TranscriptChange]:
        """Fold one run event in. Kinds the transcript does not show (debug, tasks,
        unknown…) change nothing. A replay must not come here (see the module doc)."""
        self._applying = True
        try:
            changes = self._apply(event)
        finally:
            self._applying = False
        if self._later:
            changes += self._later
            self._later = []
        return changes

    def _apply(self, event: RunEvent) -> list[TranscriptChange]:
        if isinstance(event, MessagesEvent):
            return self._apply_chunk(event)
        if isinstance(event, UpdatesEvent):
            return self._apply_updates(event)
        if isinstance(event, ValuesEvent):
            changes = self._absorb_messages(event.values.get("messages"), None, event.namespace)
            return changes + self._add_interrupts(event.interrupts, event.namespace)
        if isinstance(event, MessageListEvent):
            return self._apply_message_list(event)
        if isinstance(event, CustomEvent):
            item = CustomItem(key=self._key("custom"), data=event.data, namespace=event.namespace)
            return self._add(item)
        if isinstance(event, ErrorEvent):
            error = ErrorItem(key=self._key("error"), error=event.error, message=event.message)
            return self._add(error) + sync.finish_streaming(self.items)
        return []

    def _apply_chunk(self, event: MessagesEvent) -> list[TranscriptChange]:
        chunk = event.chunk
        kind = message_kind(chunk)
        if kind != "ai":
            added = (
                [] if kind == "human" else self._absorb_message(chunk, event.node, event.namespace)
            )
            self._stream_only.update(c.item.key for c in added if isinstance(c, Added))
            return added
        key = message_id(chunk) or self._unnamed_message_key(event)
        changes: list[TranscriptChange] = []
        item = self._by_message_id.get(key)
        if item is None:
            item = AIItem(key=key, node=event.node, namespace=event.namespace)
            changes += sync.end_unfinished(self._unfinished, item) + self._add(item)
            if not changes:
                return []  # withheld (see `max_run_items`)
            self._stream_only.add(key)
        if not isinstance(item, AIItem) or not item.streaming:
            return changes  # already final: a late chunk must not grow the exact text
        delta = event.text
        if delta:
            changes += self.live.grow(item, delta)
        chunks = self._tool_chunks.setdefault(key, ToolCallChunks())
        if chunks.add(chunk.get("tool_call_chunks")):
            item.tool_calls = chunks.calls()
            changes.append(Updated(item))
        return changes

    def _unnamed_message_key(self, event: MessagesEvent) -> str:
        # Chunks without a message id: one message per node and namespace until it ends.
        source = (event.node, event.namespace)
        key = self._unnamed_ai.get(source)
        item = self._by_message_id.get(key) if key else None
        if key is None or not (isinstance(item, AIItem) and item.streaming):
            key = self._unnamed_ai[source] = self._key("ai")
        return key

    def _apply_updates(self, event: UpdatesEvent) -> list[TranscriptChange]:
        changes: list[TranscriptChange] = []
        for node, update in event.updates.items():
            if node == "__interrupt__":
                changes += self._add_interrupts(event.interrupts, event.namespace)
                continue
            for part in update if isinstance(update, list) else [update]:
                if isinstance(part, dict):
                    changes += self._absorb_messages(part.get("messages"), node, event.namespace)
            item = NodeUpdateItem(
                key=self._key("update"), node=node, update=update, namespace=event.namespace
            )
            changes += self._add(item)
        return changes

    def _apply_message_list(self, event: MessageListEvent) -> list[TranscriptChange]:
        # Stream mode `messages`: each event carries the message so far (not a delta).
        changes: list[TranscriptChange] = []
        for message in event.messages:
            key = message_id(message)
            item = self._by_message_id.get(key) if key else None
            if isinstance(item, AIItem) and item.streaming and not event.complete:
                text = message_text(message)
                received = self.live.received(item, text)
                if received is not None and len(text) > received:
                    changes += self.live.grow(item, text[received:])
                    continue
            if message_kind(message) == "ai" and item is None and not event.complete:
                changes += self._add(
                    AIItem(key=key or self._key("ai"), text=message_text(message), node=None)
                )
                continue
            changes += self._absorb_message(message, None, event.namespace)
        return changes

    def _add_interrupts(
        self, interrupts: list[Any], namespace: Namespace
    ) -> list[TranscriptChange]:
        changes: list[TranscriptChange] = []
        for interrupt in interrupts:
            value = interrupt.get("value") if isinstance(interrupt, dict) else interrupt
            raw_id = interrupt.get("id") if isinstance(interrupt, dict) else None
            interrupt_id = raw_id if isinstance(raw_id, str) else None
            if interrupt_id is not None:
                if interrupt_id in self._interrupt_ids:
                    continue
                self._interrupt_ids.add(interrupt_id)
            item = InterruptItem(
                key=self._key("interrupt"),
                value=value,
                interrupt_id=interrupt_id,
                namespace=namespace,
            )
            changes += self._add(item)
        return changes

    # -- messages (from updates, values, the thread state) -----------------------------

    def _absorb_messages(
        self, messages: Any, node: str | None, namespace: Namespace
    ) -> list[TranscriptChange]:
        changes: list[TranscriptChange] = []
        for message in sync.shown_messages(messages):
            changes += self._absorb_message(message, node, namespace)
            known = self._by_message_id.get(message_id(message) or "")
            self._stream_only.discard(known.key if known else "")
        return changes

    def _absorb_message(
        self, message: dict[str, Any], node: str | None, namespace: Namespace
    ) -> list[TranscriptChange]:
        """A whole message: finalise the item with its id, or add it. Never a duplicate."""
        kind = message_kind(message)
        key = message_id(message)
        known = self._by_message_id.get(key) if key else None
        if key and known is None:
            known = self._name_unnamed(key, message)
        if kind == "ai":
            if isinstance(known, AIItem):
                return self._finalise(known, message)
            item = AIItem(
                key=key or self._key("ai"),
                text=message_text(message),
                node=node,
                namespace=namespace,
                tool_calls=tool_calls_of(message),
                streaming=False,
            )
            return self._add(item)
        if kind == "tool":
            if known is not None:
                return self._refresh_tool_result(known, message)
            return self._add(tool_result_item(key or self._key("tool"), message, namespace))
        if kind == "human":
            if known is not None:
                return self._refresh_text(known, message_text(message))
            return self._absorb_human(key, message_text(message))
        return []  # system prompts and unknown types are not part of the chat

    def _name_unnamed(self, key: str, message: dict[str, Any]) -> TranscriptItem | None:
        """The item that showed `message` when it came with no id (`transcript_sync`)."""
        item = sync.same_message(message, self._unnamed)
        if item is not None:
            self._unnamed.remove(item)
            self._by_message_id[key] = item
        return item

    def _absorb_human(self, key: str | None, text: str) -> list[TranscriptChange]:
        for pending in self._unnamed_humans:
            # The server keeps a NUL as U+FFFD (docs/server-quirks.md).
            if pending.text.replace("\x00", "\ufffd") == text.replace("\x00", "\ufffd"):
                # The server's copy of a message sent from here: same block, now named.
                self._unnamed_humans.remove(pending)
                if key:
                    self._by_message_id[key] = pending
                return []
        item = HumanItem(key=key or self._key("human"), text=text)
        changes = self._add(item)
        if key and changes:
            self._by_message_id[key] = item
        return changes

    def _finalise(self, item: AIItem, message: dict[str, Any]) -> list[TranscriptChange]:
        text = message_text(message)
        calls = tool_calls_of(message)
        changed = item.streaming or item.text != text
        changed = changed or not same_tool_calls(item.tool_calls, calls)
        self.live.forget(item)
        item.text, item.tool_calls, item.streaming = text, calls, False
        self._tool_chunks.pop(item.key, None)
        return [Updated(item)] if changed else []

    def _refresh_tool_result(
        self, item: TranscriptItem, message: dict[str, Any]
    ) -> list[TranscriptChange]:
        if not isinstance(item, ToolResultItem):
            return []
        content = message_text(message)
        status = text_field(message, "status", item.status)
        handoff = handoff_destination(message)
        if (item.content, item.status, item.handoff) == (content, status, handoff):
            return []
        item.content, item.status, item.handoff = content, status, handoff
        return [Updated(item)]

    def _refresh_text(self, item: TranscriptItem, text: str) -> list[TranscriptChange]:
        if not isinstance(item, HumanItem) or item.text == text:
            return []
        item.text = text
        return [Updated(item)]

    # -- whole threads -----------------------------------------------------------------

    def load_messages(self, messages: list[dict[str, Any]]) -> list[TranscriptChange]:
        """Start over from a thread's messages (its state): `[Cleared(), Added…]`."""
        self._reset()
        changes: list[TranscriptChange] = [Cleared()]
        return changes + self._absorb_messages(messages, None, ())

    def load_state(
        self, values: Any, interrupts: list[dict[str, Any]] | None = None
    ) -> list[TranscriptChange]:
        """Start over from a thread's state values (and its pending interrupts, if any)."""
        messages = values.get("messages") if isinstance(values, dict) else None
        changes = self.load_messages(messages if isinstance(messages, list) else [])
        if interrupts:
            changes += self._add_interrupts(interrupts, ())
        return changes

    def show_failure(self, failure: Failure) -> list[TranscriptChange]:
        """Say why the thread failed: complete the error this exchange already shows (the
        stream's event names no node, and often not the exception's own words), or add
        the error (a thread reopened later, a run rejoined after its error event)."""
        shown = sync.shown_error(self.items, failure)
        if shown is None:
            error = ErrorItem(self._key("error"), failure.error, failure.message, failure.node)
            return self._add(error)
        if shown.failure() == failure:
            return []
        shown.error, shown.message, shown.node = failure.error, failure.message, failure.node
        return [Updated(shown)]

    def reconcile(
        self,
        values: Any,
        interrupts: list[dict[str, Any]] | None = None,
        *,
        keep_unsaved: bool = False,
        rejoined: bool = False,
    ) -> list[TranscriptChange]:
        """After a run: show the thread's messages, in order, each once, with their exact
        text (`transcript_sync`); when completing what is shown cannot, start over from
        the state and say why. `keep_unsaved`: a cancelled or failed run's answer the
        state does not hold stays; `rejoined`: the stream was rejoined during the run."""
        raw = values.get("messages") if isinstance(values, dict) else None
        if not isinstance(raw, list):
            return sync.finish_streaming(self.items)  # no messages channel: nothing to compare
        messages, by_id = sync.shown_messages(raw), self._by_message_id
        self._unnamed = []  # named from the state, if at all: later runs bring their ids
        sync.name_unnamed(messages, self.items, by_id, self._local_keys)
        changes = self._absorb_messages(messages, None, ())
        # After a rejoin an answer only streamed is one its node gave again: compared.
        held = [i for i in self.items if rejoined or i.key not in self._stream_only]
        if sync.in_step(messages, held, by_id, keep_unsaved=keep_unsaved):
            return changes + sync.finish_streaming(self.items)
        dropped = sync.unsaved(messages, held, by_id)
        changes = self.load_state(values, interrupts)  # what is shown, in the state's order
        if dropped:
            changes += self.notice(sync.why_redrawn(dropped, rejoined), "warning")
        return changes

    def ai_texts(self) -> list[str]:  # what tests and benchmarks compare
        return [item.text for item in self.items if isinstance(item, AIItem)]

    def _add(self, item: TranscriptItem) -> list[TranscriptChange]:
        if self._applying and not isinstance(item, (InterruptItem, ErrorItem)):
            # Questions and errors always show: the user must see them to act.
            if self._run_items >= self.max_run_items:
                self.withheld += 1
                if self.withheld == 1:
                    self._later += self.notice(
                        f"This run sent more than {self.max_run_items:,} transcript items:"
                        " later ones are not shown while it runs (the event inspector shows"
                        " its latest events; its messages show when it ends).",
                        "warning",
                    )
                return []
            self._run_items += 1
        self.items.append(item)
        if isinstance(item, (AIItem, ToolResultItem)):
            self._by_message_id[item.key] = item
            if item.key in self._local_keys:
                self._unnamed.append(item)
        return [Added(item)]

    def _key(self, prefix: str) -> str:
        self._local_keys.add(key := f"{prefix}-{next(self._serial)}")
        return key
