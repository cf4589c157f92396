"""The one home for reading text out of a serialised LangChain message (headless).

The agent server sends messages as dicts: `{"type"|"role", "content", "tool_calls", ...}`,
where `content` is a string or a list of content blocks (`{"type": "text", "text": ...}`,
images, reasoning, tool use…). Two readings, for two uses:

- `answer_text`: what a message SAYS, as the chat writes it: only `text` blocks, joined as
  they are (a streamed chunk's pieces make one run of text; reasoning or tool blocks are
  not part of the answer).
- `message_text`: a message as ONE readable line of data (thread previews, checkpoint
  diffs, the history): every block with text, a `[type]` mark for the others, and the
  tool calls when there is no text.

Both read defensively: a server (or a graph's state) can hold anything.
"""

from __future__ import annotations

import json
from typing import Any


def answer_text(message: dict[str, Any]) -> str:
    """The text of a message's `text` content blocks (or its string content), joined as is."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[str] = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and block.get("type") == "text":
                text = block.get("text")
                if isinstance(text, str):
                    parts.append(text)
        return "".join(parts)
    return ""


def message_text(message: Any) -> str:
    """A message's readable text: its content (text blocks joined), else its tool calls."""
    if isinstance(message, str):
        return message
    if not isinstance(message, dict):
        return "" if message is None else str(message)
    text = content_text(message.get("content"))
    if not text.strip():
        calls = message.get("tool_calls")
        if isinstance(calls, list) and calls:
            text = "→ " + ", ".join(tool_call_text(c) for c in calls if isinstance(c, dict))
    return text


def content_text(content: Any) -> str:
    """Message content as text: a string, or the text of a list of content blocks."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and isinstance(block.get("text"), str):
                parts.append(block["text"])
            elif isinstance(block, dict):
                parts.append(f"[{block.get('type', 'block')}]")
        return " ".join(parts)
    return json.dumps(content, default=str)


def tool_call_text(call: dict[str, Any]) -> str:
    """`search(query="x", limit=3)`: a tool call as one line (previews cut it to width)."""
    args = call.get("args")
    shown = ""
    if isinstance(args, dict):
        shown = ", ".join(
            f"{key}={json.dumps(value, ensure_ascii=False, separators=(',', ':'))}"
            for key, value in args.items()
        )
    return f"{call.get('name', '?')}({shown})"


def message_role(message: Any) -> str:
    """`ai`, `human`, `user`…: the message's `type`, else its `role` (OpenAI shape)."""
    if isinstance(message, dict):
        return str(message.get("type") or message.get("role") or "")
    return ""
