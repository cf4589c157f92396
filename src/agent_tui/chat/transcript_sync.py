"""Does the transcript show the thread's messages? (headless, no I/O)

`ChatTranscript.reconcile` asks this after a run: which item shows which message of the
thread's state, and whether the transcript's messages are the state's, in order, each
once. An item streamed without the id the state gives its message (a node that returns its
tool messages as plain dicts, as the memory agent does: the server names them only when it
writes the state) is matched by what it shows, so it is not shown a second time.
`same_message` also names such an item while the run streams: a message a node writes to
its parent graph (`Command(graph=Command.PARENT)`, a swarm's or supervisor's handoff)
comes in the parent's update as written, with no id; the parent's state names it, and the
updates after bring it with that id (docs/server-quirks.md).

Only the root graph's messages are compared: a subgraph's messages are shown while it
runs but are not in the thread's state.
"""

from __future__ import annotations

from typing import Any

from agent_tui.chat.items import (
    AIItem,
    ErrorItem,
    HumanItem,
    ToolResultItem,
    TranscriptChange,
    TranscriptItem,
    Updated,
)
from agent_tui.chat.messages import (
    message_id,
    message_kind,
    message_text,
    text_field,
    tool_calls_of,
)
from agent_tui.threads.failure import Failure

MessageItem = HumanItem | AIItem | ToolResultItem
SHOWN_KINDS = ("human", "ai", "tool")


def root_message(item: TranscriptItem) -> bool:
    """An item that shows one of the thread's own messages."""
    if isinstance(item, HumanItem):
        return True
    return isinstance(item, (AIItem, ToolResultItem)) and item.namespace == ()


def shown_messages(messages: Any) -> list[dict[str, Any]]:
    """The messages of a state's `messages` value that the transcript shows."""
    if isinstance(messages, dict):
        messages = [messages]
    if not isinstance(messages, list):
        return []
    return [m for m in messages if isinstance(m, dict) and message_kind(m) in SHOWN_KINDS]


def name_unnamed(
    messages: list[dict[str, Any]],
    items: list[TranscriptItem],
    by_id: dict[str, TranscriptItem],
    local_keys: set[str],
) -> None:
    """Each state message the transcript knows by no id takes the item that shows it
    (same tool call, or same answer text) among those shown with no server id
    (`local_keys`: the keys the transcript made up)."""
    state_ids = {key for m in messages if (key := message_id(m))}
    named = {id(by_id[key]) for key in state_ids if key in by_id}
    unnamed = [
        item
        for item in items
        if item.key in local_keys
        and item.key not in state_ids
        and id(item) not in named
        and root_message(item)
    ]
    for message in messages:
        key = message_id(message)
        if key is None or key in by_id:
            continue
        item = same_message(message, unnamed)
        if item is not None:
            by_id[key] = item
            unnamed.remove(item)


def same_message(message: dict[str, Any], items: list[TranscriptItem]) -> TranscriptItem | None:
    """The item among `items` that shows `message`: the result of the same tool call, or
    an answer with the same text and calls."""
    kind = message_kind(message)
    for item in items:
        if kind == "tool" and isinstance(item, ToolResultItem):
            call = text_field(message, "tool_call_id")
            if call and item.tool_call_id == call:
                return item
        elif kind == "ai" and isinstance(item, AIItem) and _same_answer(item, message):
            return item
    return None


def _same_answer(item: AIItem, message: dict[str, Any]) -> bool:
    calls = [call.id for call in tool_calls_of(message)]
    return item.text == message_text(message) and [c.id for c in item.tool_calls] == calls


def unsaved(
    messages: list[dict[str, Any]],
    items: list[TranscriptItem],
    by_id: dict[str, TranscriptItem],
) -> list[MessageItem]:
    """The items that show a message the state does not hold (an answer cancelled, or
    given by a node that ran again, or a branch the thread is no longer on)."""
    saved = {id(by_id[key]) for m in messages if (key := message_id(m)) and key in by_id}
    return [
        item
        for item in items
        if isinstance(item, (HumanItem, AIItem, ToolResultItem))
        and root_message(item)
        and id(item) not in saved
    ]


def in_step(
    messages: list[dict[str, Any]],
    items: list[TranscriptItem],
    by_id: dict[str, TranscriptItem],
    *,
    keep_unsaved: bool,
) -> bool:
    """The transcript's messages are the state's, in order, each once (`keep_unsaved`:
    besides messages the state does not hold, such as a cancelled answer)."""
    expected: list[TranscriptItem] = []
    for message in messages:
        key = message_id(message)
        if key is None:
            return True  # a state that names no messages (no reducer): nothing to compare
        item = by_id.get(key)
        if item is None:
            return False
        expected.append(item)
    extra = {id(item) for item in unsaved(messages, items, by_id)} if keep_unsaved else set()
    # A subgraph's item counts when the state holds its message (a subgraph that shares
    # the parent's `messages`); others are the subgraph's own.
    saved = {id(item) for item in expected}
    shown = [
        item
        for item in items
        if id(item) in saved or (root_message(item) and id(item) not in extra)
    ]
    return len(shown) == len(expected) and all(a is b for a, b in zip(shown, expected, strict=True))


def why_redrawn(dropped: list[MessageItem], rejoined: bool) -> str:
    """The notice when the transcript starts over from the state: the answers of nodes
    that ran again after a rejoin (the server restarted), or another branch."""
    reran = sorted({item.node for item in dropped if isinstance(item, AIItem) and item.node})
    if rejoined and reran:
        nodes = ", ".join(f"`{node}`" for node in reran)
        return (
            f"The server restarted while {nodes} ran; it ran again: the transcript shows"
            " what the thread kept, not the first, unfinished answer."
        )
    return (
        "The thread is on another branch than this chat showed: the transcript now shows"
        " the messages of the checkpoint it is on."
    )


def shown_error(items: list[TranscriptItem], failure: Failure) -> ErrorItem | None:
    """The error this exchange shows already, which `failure` completes (an error before
    the last human message belongs to an earlier run)."""
    for item in reversed(items):
        if isinstance(item, HumanItem):
            return None
        if isinstance(item, ErrorItem) and item.error in (failure.error, ""):
            return item
    return None


def end_unfinished(unfinished: list[AIItem], new: AIItem) -> list[TranscriptChange]:
    """`new` starts while an answer of the same node was streaming when the stream was
    rejoined: the server ran the node again, so that first answer ends here, marked as
    unfinished (when the run ends, the transcript shows only what the thread kept)."""
    changes: list[TranscriptChange] = []
    for item in [i for i in unfinished if (i.node, i.namespace) == (new.node, new.namespace)]:
        unfinished.remove(item)
        if item.streaming and item.node:
            item.streaming = False
            item.text += (
                f"\n\n*Unfinished: the server restarted while `{item.node}` ran; it ran again.*"
            )
            changes.append(Updated(item))
    return changes


def finish_streaming(items: list[TranscriptItem]) -> list[TranscriptChange]:
    """The streaming answers among `items` are final (the run stopped)."""
    streaming = [item for item in items if isinstance(item, AIItem) and item.streaming]
    for item in streaming:
        item.streaming = False
    return [Updated(item) for item in streaming]
