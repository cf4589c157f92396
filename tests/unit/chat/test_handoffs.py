"""Which tool results `agent-tui run` (and the chat) show as a handoff (`→ agent`), with
tool messages in the shapes langgraph-swarm 0.1.0 and langgraph-supervisor 0.0.31 write
(issue 30)."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from agent_tui.chat.driver_events import Received
from agent_tui.chat.transcript_model import ChatTranscript
from agent_tui.cli.run_output import HumanOutput
from agent_tui.client.events import parse_run_event
from agent_tui.client.sse import ServerSentEvent


def tool(name: str, text: str, **extra: Any) -> dict[str, Any]:
    return {
        "type": "tool",
        "id": None,
        "name": name,
        "content": text,
        "tool_call_id": "c1",
        **extra,
    }


@pytest.mark.parametrize(
    ("message", "printed"),
    [
        # The swarm's: no metadata, the tool's fixed name and text.
        (
            tool("transfer_to_hotel_assistant", "Successfully transferred to hotel_assistant"),
            "hotel_assistant",
        ),
        (tool("transfer_to_hotel_desk", "Successfully transferred to Hotel Desk"), "Hotel Desk"),
        # The supervisor's: its metadata names the agent.
        (
            tool(
                "transfer_to_researcher",
                "Successfully transferred to researcher",
                response_metadata={"__handoff_destination": "researcher"},
            ),
            "researcher",
        ),
        (
            tool(
                "transfer_back_to_supervisor",
                "Successfully transferred back to supervisor",
                response_metadata={"__is_handoff_back": True},
            ),
            "supervisor",
        ),
        # Tools like any other: another name, another text, a failed call.
        (tool("lookup", "Successfully transferred to hotel_assistant"), None),
        (tool("transfer_to_hotel_assistant", "Successfully transferred to flight_assistant"), None),
        (tool("transfer_to_hotel_assistant", "Error: no such agent"), None),
        (
            tool(
                "transfer_to_hotel_assistant",
                "Successfully transferred to hotel_assistant",
                status="error",
            ),
            None,
        ),
    ],
)
def test_a_handoff_is_told_by_its_metadata_or_its_fixed_name_and_text(
    message: dict[str, Any], printed: str | None
) -> None:
    data = json.dumps({"agent": {"messages": [message]}})
    event = parse_run_event(ServerSentEvent(event="updates", data=data))
    out = io.StringIO()
    HumanOutput("t1", out, io.StringIO()).step(
        Received(event, 0.0), ChatTranscript().apply(event), None
    )
    verb = "failed" if message.get("status") == "error" else "result"
    as_a_tool = f"tool {verb} ({message['name']}): {message['content']}"
    assert out.getvalue().splitlines()[0] == (f"→ {printed}" if printed else as_a_tool)
