"""Sending to a graph whose input has no `messages` (headless): the user typed its input
as a JSON object (checked by `assistants.graph_input.GraphInput`), the transcript shows
it as what the user sent, and the run starts with it as the graph's input."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncGenerator
from typing import Any

from agent_tui.chat.session import ChatSession, Step


def input_text(value: dict[str, Any]) -> str:
    """The input as the transcript shows it: the JSON object, one key a line."""
    return json.dumps(value, ensure_ascii=False, indent=2, default=str)


async def send_input(
    session: ChatSession, assistant_id: str, value: dict[str, Any], **options: Any
) -> AsyncGenerator[Step, None]:
    """Show `value` as the user's turn, then follow the run it starts (`options`: those
    of `ChatSession.run`)."""
    yield None, session.transcript.add_human(input_text(value))
    steps = session.run(assistant_id, input=value, **options)
    async with contextlib.aclosing(steps):
        async for step in steps:
            yield step
