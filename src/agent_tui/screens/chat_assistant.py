"""Which assistant a thread's chat runs, before the user picks one.

A run names an assistant id or a graph name (the server runs the graph's default
assistant). The default for a thread is the one its metadata names (`assistant_id`,
else `graph_id`), else the only graph on the server; with several graphs and nothing
named, the chat asks (`assistant_picker.py`). Headless apart from the types it shares
with the screens: no widget here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_tui.client import AgentServerClient
    from agent_tui.client.models import Assistant


@dataclass(frozen=True, slots=True)
class ChatAssistant:
    """What a run passes as `assistant_id` (an id or a graph name), and how to name it."""

    assistant_id: str
    graph_id: str | None = None  # None when only an assistant id is known
    label: str = ""

    @classmethod
    def of(cls, assistant: Assistant) -> ChatAssistant:
        from agent_tui.screens.assistant_picker import assistant_label

        return cls(assistant.assistant_id, assistant.graph_id, assistant_label(assistant))

    @property
    def shown(self) -> str:
        return self.label or self.assistant_id

    def thread_metadata(self) -> dict[str, Any]:
        """The metadata of a new thread on this assistant (what `default_for` reads back)."""
        metadata: dict[str, Any] = {}
        if self.graph_id:
            metadata["graph_id"] = self.graph_id
        if self.assistant_id != self.graph_id:
            metadata["assistant_id"] = self.assistant_id
        return metadata


def named_by(metadata: dict[str, Any]) -> ChatAssistant | None:
    """The assistant a thread's metadata names: `assistant_id`, else `graph_id`."""
    graph = metadata.get("graph_id")
    graph_id = graph if isinstance(graph, str) and graph else None
    assistant = metadata.get("assistant_id")
    if isinstance(assistant, str) and assistant:
        return ChatAssistant(assistant, graph_id, f"{graph_id or 'assistant'} ({assistant[:8]})")
    if graph_id:
        return ChatAssistant(graph_id, graph_id, graph_id)
    return None


async def only_graph(client: AgentServerClient) -> ChatAssistant | None:
    """The server's only graph, or None when it serves several (or none)."""
    assistants = await client.assistants.search(limit=100)
    graphs = {assistant.graph_id for assistant in assistants}
    if len(graphs) != 1:
        return None
    graph = graphs.pop()
    return ChatAssistant(graph, graph, graph)


async def complete(client: AgentServerClient, chosen: ChatAssistant) -> ChatAssistant:
    """`chosen` with its graph known (a new thread's metadata needs it)."""
    if chosen.graph_id:
        return chosen
    assistant = await client.assistants.get(chosen.assistant_id)
    return ChatAssistant.of(assistant)
