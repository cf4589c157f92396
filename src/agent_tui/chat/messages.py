"""Reading serialised LangChain messages as the agent server sends them (headless).

A message dict looks like `{"type": "ai"|"human"|"tool"|"AIMessageChunk", "id", "content"
(a string or a list of parts), "tool_calls", "tool_call_chunks", "tool_call_id", "name",
"status"}`. Input messages may still be in the OpenAI shape (`{"role": "user", ...}`).
Everything here reads defensively: a server can send anything.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from agent_tui.chat.items import ToolCall
from agent_tui.text.message_text import answer_text as message_text

MessageKind = Literal["human", "ai", "tool", "system", "other"]

_KINDS: dict[str, MessageKind] = {
    "human": "human",
    "user": "human",
    "humanmessage": "human",
    "humanmessagechunk": "human",
    "ai": "ai",
    "assistant": "ai",
    "aimessage": "ai",
    "aimessagechunk": "ai",
    "tool": "tool",
    "toolmessage": "tool",
    "toolmessagechunk": "tool",
    "system": "system",
    "systemmessage": "system",
}

__all__ = ["MessageKind", "ToolCallChunks", "message_kind", "message_text", "tool_calls_of"]


def message_kind(message: dict[str, Any]) -> MessageKind:
    kind = message.get("type") or message.get("role")
    return _KINDS.get(kind.lower(), "other") if isinstance(kind, str) else "other"


def message_id(message: dict[str, Any]) -> str | None:
    value = message.get("id")
    return value if isinstance(value, str) and value else None


def text_field(message: dict[str, Any], key: str, default: str = "") -> str:
    value = message.get(key)
    return value if isinstance(value, str) else default


def tool_calls_of(message: dict[str, Any]) -> list[ToolCall]:
    """The complete tool calls of a final AI message (`tool_calls`)."""
    calls = message.get("tool_calls")
    if not isinstance(calls, list):
        return []
    return [
        ToolCall(id=text_field(call, "id"), name=text_field(call, "name"), args=call.get("args"))
        for call in calls
        if isinstance(call, dict)
    ]


def same_tool_calls(a: list[ToolCall], b: list[ToolCall]) -> bool:
    return [(c.id, c.name, c.args) for c in a] == [(c.id, c.name, c.args) for c in b]


@dataclass
class _PartialCall:
    id: str = ""
    name: str = ""
    args: str = ""


@dataclass
class ToolCallChunks:
    """Tool calls assembled from streamed `tool_call_chunks` (one per `index`): a model
    streams a call's JSON arguments in pieces, so `args` parse only once complete."""

    _calls: dict[int, _PartialCall] = field(default_factory=dict)

    def add(self, chunks: Any) -> bool:
        """Fold a chunk's `tool_call_chunks` in; True when something arrived."""
        if not isinstance(chunks, list):
            return False
        changed = False
        for position, chunk in enumerate(chunks):
            if not isinstance(chunk, dict):
                continue
            index = chunk.get("index")
            key = index if isinstance(index, int) else len(self._calls) + position
            call = self._calls.setdefault(key, _PartialCall())
            for name in ("id", "name", "args"):
                value = chunk.get(name)
                if isinstance(value, str) and value:
                    # ids and names arrive once; args arrive in pieces.
                    if name == "args":
                        call.args += value
                    else:
                        setattr(call, name, value)
                    changed = True
        return changed

    def calls(self) -> list[ToolCall]:
        return [
            ToolCall(id=call.id, name=call.name, args=_parse_args(call.args))
            for _, call in sorted(self._calls.items())
        ]


def _parse_args(text: str) -> Any:
    if not text:
        return {}
    try:
        return json.loads(text)
    except ValueError:
        return text  # still streaming (or not JSON): show what came
