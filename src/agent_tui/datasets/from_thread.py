"""An example made from a turn of a thread: its input is the human message(s) of the
turn, its reference (when wanted) the answer that ended it. What the UI's "add to
dataset" key calls; headless."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent_tui.datasets.model import DatasetError, Example
from agent_tui.text.message_text import answer_text, message_role

if TYPE_CHECKING:
    from agent_tui.client import AgentServerClient


def turns_of(messages: list[Any]) -> list[tuple[list[dict[str, Any]], dict[str, Any] | None]]:
    """The thread's turns: the human messages that start each, and the last AI message
    with text before the next human one (None when the turn has no answer yet)."""
    turns: list[tuple[list[dict[str, Any]], dict[str, Any] | None]] = []
    asked: list[dict[str, Any]] = []
    answer: dict[str, Any] | None = None
    for message in messages:
        if not isinstance(message, dict):
            continue
        role = message_role(message)
        if role in ("human", "user"):
            if answer is not None:
                turns.append((asked, answer))
                asked, answer = [], None
            asked.append(message)
        elif role in ("ai", "assistant") and asked and answer_text(message).strip():
            answer = message
    if asked:
        turns.append((asked, answer))
    return turns


def _turn_numbers(messages: list[Any]) -> Iterator[tuple[dict[str, Any], int | None]]:
    """Each message with the turn (0-based, as `turns_of` counts them) it belongs to;
    None before the first human message."""
    turn = -1
    answered = False
    for message in messages:
        if not isinstance(message, dict):
            continue
        role = message_role(message)
        if role in ("human", "user"):
            if answered or turn < 0:
                turn, answered = turn + 1, False
        elif role in ("ai", "assistant") and turn >= 0 and answer_text(message).strip():
            answered = True
        yield message, (turn if turn >= 0 else None)


def _same_text(one: str, other: str) -> bool:
    # The server keeps a NUL as U+FFFD (docs/server-quirks.md).
    return one.replace("\x00", "\ufffd") == other.replace("\x00", "\ufffd")


@dataclass(frozen=True, slots=True)
class MessageRef:
    """A message as a chat shows it: its id (None, or one the server does not know: a
    message sent from the chat keeps the local id it was shown with) and, to find it
    without one, the text of the human message that began its turn and which of the
    human messages with that text it is (0: the first)."""

    message_id: str | None
    asked: str | None = None
    occurrence: int = 0


def turn_of_message(messages: list[Any], ref: MessageRef | str) -> int | None:
    """The turn that holds the message `ref` names (an id, or a `MessageRef`); None
    when no message is it, or it comes before the first human message."""
    if isinstance(ref, str):
        ref = MessageRef(ref)
    numbered = list(_turn_numbers(messages))
    if ref.message_id is not None:
        for message, turn in numbered:
            if message.get("id") == ref.message_id:
                return turn
    if ref.asked is None:
        return None
    seen = 0
    for message, turn in numbered:
        if message_role(message) in ("human", "user") and _same_text(
            answer_text(message), ref.asked
        ):
            if seen == ref.occurrence:
                return turn
            seen += 1
    return None


def example_from_messages(
    messages: list[Any],
    *,
    turn: int = -1,
    with_answer: bool = True,
    metadata: dict[str, Any] | None = None,
) -> Example:
    """An example of turn `turn` (0-based, -1: the last) of `messages`."""
    turns = turns_of(messages)
    if not turns:
        raise DatasetError("the thread has no human message to make an example of")
    try:
        asked, answer = turns[turn]
    except IndexError:
        raise DatasetError(f"the thread has {len(turns)} turns, not turn {turn}") from None
    inputs = {"messages": [{"role": "user", "content": answer_text(m)} for m in asked]}
    outputs = None
    if with_answer:
        if answer is None:
            raise DatasetError("that turn has no answer to keep as the reference")
        outputs = {"answer": answer_text(answer)}
    return Example(inputs, outputs, dict(metadata or {}))


async def thread_messages(client: AgentServerClient, thread_id: str) -> list[Any]:
    """The messages of the thread's current state; `DatasetError` when it holds none."""
    state = await client.threads.get_state(thread_id)
    values = state.values if isinstance(state.values, dict) else {}
    messages = values.get("messages")
    if not isinstance(messages, list):
        raise DatasetError(f"thread {thread_id} holds no messages")
    return messages


async def example_from_thread(
    client: AgentServerClient,
    thread_id: str,
    *,
    turn: int = -1,
    with_answer: bool = True,
) -> Example:
    """An example of a turn of the thread's current state; its metadata names the thread."""
    messages = await thread_messages(client, thread_id)
    return example_from_messages(
        messages,
        turn=turn,
        with_answer=with_answer,
        metadata={"source_thread_id": thread_id},
    )
