"""A tool message as a transcript item, and whether it is a handoff (headless).

Multi-agent graphs move the conversation from one agent to another with a tool call whose
result is a fixed message: langgraph-swarm's and langgraph-supervisor's
`create_handoff_tool` answer `transfer_to_<agent>` with "Successfully transferred to
<agent>", and a supervisor's agent hands back with `transfer_back_to_<supervisor>`,
"Successfully transferred back to <supervisor>". The supervisor's messages also say so in
their `response_metadata` (`__handoff_destination`, `__is_handoff_back`); the swarm's say
nothing there (its tool's own metadata names the destination, but the message does not
carry it), so a message is a handoff when its metadata names a destination, or when its
name and its text name the same agent as those tools write them. A tool of another name
that merely says "transferred" is a tool like any other.
"""

from __future__ import annotations

import re
from typing import Any

from agent_tui.chat.items import ToolResultItem
from agent_tui.chat.messages import message_text, text_field

HANDOFF_DESTINATION = "__handoff_destination"
_TRANSFERRED = re.compile(r"Successfully transferred (?P<back>back )?to (?P<agent>\S.*)", re.DOTALL)
_WHITESPACE = re.compile(r"\s+")


def tool_result_item(
    key: str, message: dict[str, Any], namespace: tuple[str, ...]
) -> ToolResultItem:
    """The item that shows the tool message `message`."""
    return ToolResultItem(
        key=key,
        tool_call_id=text_field(message, "tool_call_id"),
        name=text_field(message, "name"),
        content=message_text(message),
        status=text_field(message, "status", "success"),
        namespace=namespace,
        handoff=handoff_destination(message),
    )


def handoff_destination(message: dict[str, Any]) -> str | None:
    """The agent a handoff tool message hands the conversation to; None for any other
    message (a failed handoff too: nothing moved)."""
    if text_field(message, "status", "success") != "success":
        return None
    metadata = message.get("response_metadata")
    destination = metadata.get(HANDOFF_DESTINATION) if isinstance(metadata, dict) else None
    if isinstance(destination, str) and destination.strip():
        return destination
    match = _TRANSFERRED.fullmatch(message_text(message).strip())
    if match is None:
        return None
    agent = match.group("agent")
    verb = "transfer_back_to_" if match.group("back") else "transfer_to_"
    # The tools' own naming: `transfer_to_` and the agent's name, blanks as `_`, lower case.
    tool_name = verb + _WHITESPACE.sub("_", agent.strip()).lower()
    return agent if text_field(message, "name") == tool_name else None
