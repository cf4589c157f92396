"""The transcript block of each kind of item (`TranscriptView` draws an item with it)."""

from __future__ import annotations

from agent_tui.chat.items import (
    AIItem,
    CustomItem,
    ErrorItem,
    HumanItem,
    InterruptItem,
    NodeUpdateItem,
    NoticeItem,
    ToolResultItem,
    TranscriptItem,
)
from agent_tui.tui.chat.ai_block import AIBlock
from agent_tui.tui.chat.blocks import (
    ChatBlock,
    CustomBlock,
    ErrorBlock,
    HumanBlock,
    NodeUpdateBlock,
    NoticeBlock,
    ToolResultBlock,
)
from agent_tui.tui.chat.handoff_block import HandoffBlock
from agent_tui.tui.chat.interrupt import InterruptBlock


def block_for(item: TranscriptItem) -> ChatBlock:
    """The widget that shows `item`."""
    if isinstance(item, AIItem):
        return AIBlock(item)
    if isinstance(item, HumanItem):
        return HumanBlock(item)
    if isinstance(item, ToolResultItem):
        return HandoffBlock(item) if item.handoff else ToolResultBlock(item)
    if isinstance(item, NodeUpdateItem):
        return NodeUpdateBlock(item)
    if isinstance(item, CustomItem):
        return CustomBlock(item)
    if isinstance(item, InterruptItem):
        return InterruptBlock(item)
    if isinstance(item, ErrorItem):
        return ErrorBlock(item)
    if isinstance(item, NoticeItem):
        return NoticeBlock(item)
    raise TypeError(f"no transcript block for {type(item).__name__}")
