"""`D` in the chat's transcript: the turn of a message as an example of a dataset.

Which message: the one last clicked (it stays marked), else the one most in view (the
human or AI message with the most lines on screen; the later one on a tie: a chat that
follows its end adds its last turn). The form (`modals/to_dataset.py`) lists the thread's
turns with that one chosen: any other can be picked there, so the keyboard alone is
enough. A message sent from this chat keeps the local id it was shown with, so the turn
is also found by the human message that began it (`datasets.from_thread.MessageRef`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.containers import ScrollableContainer
from textual.widget import Widget

from agent_tui.chat.items import HumanItem
from agent_tui.datasets.from_thread import MessageRef
from agent_tui.tui.chat.ai_block import AIBlock
from agent_tui.tui.chat.blocks import ChatBlock, HumanBlock, QueuedBlock
from agent_tui.tui.modals.to_dataset import AddToDatasetScreen

if TYPE_CHECKING:
    from agent_tui.client import AgentServerClient

PICKED = "-picked"  # the CSS class of the message a click chose


def _messages(blocks: Sequence[ChatBlock]) -> list[ChatBlock]:
    return [
        block
        for block in blocks
        if isinstance(block, HumanBlock | AIBlock) and not isinstance(block, QueuedBlock)
    ]


def pick_at(transcript: Widget, widget: Widget | None) -> None:
    """A click on `widget`: the message it is in becomes the picked one (a click beside
    the messages leaves the choice as it was)."""
    node = widget
    while node is not None and node is not transcript:
        if isinstance(node, HumanBlock | AIBlock) and not isinstance(node, QueuedBlock):
            for block in transcript.query(f".{PICKED}"):
                block.remove_class(PICKED)
            node.add_class(PICKED)
            return
        parent = node.parent
        node = parent if isinstance(parent, Widget) else None


def message_in_view(
    transcript: ScrollableContainer, blocks: Sequence[ChatBlock]
) -> ChatBlock | None:
    """Of the transcript's `blocks`, the picked message if it is still shown, else the
    one most in view, else None."""
    messages = _messages(blocks)
    for block in messages:
        if block.has_class(PICKED):
            return block
    top = round(transcript.scroll_y)
    bottom = top + transcript.scrollable_content_region.height
    best: ChatBlock | None = None
    most = 0
    for block in messages:
        region = block.virtual_region
        shown = min(region.bottom, bottom) - max(region.y, top)
        if shown > 0 and shown >= most:
            best, most = block, shown
    return best or (messages[-1] if messages else None)


def reference_of(blocks: Sequence[ChatBlock], block: ChatBlock) -> MessageRef:
    """`block`'s message, and the human message that began its turn as the chat shows
    it (its text, and which of the chat's messages with that text it is)."""
    messages = _messages(blocks)
    asked: HumanItem | None = None
    for other in messages[: messages.index(block) + 1]:
        if isinstance(other.item, HumanItem):
            asked = other.item
    if asked is None:
        return MessageRef(block.item.key)
    alike = [
        other.item
        for other in messages
        if isinstance(other.item, HumanItem) and other.item.text == asked.text
    ]
    return MessageRef(block.item.key, asked.text, alike.index(asked))


def add_to_dataset(
    transcript: ScrollableContainer,
    blocks: Sequence[ChatBlock],
    client: AgentServerClient,
    thread_id: str,
) -> None:
    """Open the form for the turn of the message in view; say so once it is added."""
    block = message_in_view(transcript, blocks)
    if block is None:
        transcript.notify("No message yet to add to a dataset", markup=False)
        return

    def added(example: object) -> None:
        if example is not None:
            transcript.notify("Added the turn to the dataset", markup=False)

    message = reference_of(blocks, block)
    transcript.app.push_screen(AddToDatasetScreen(client, thread_id, message=message), added)
