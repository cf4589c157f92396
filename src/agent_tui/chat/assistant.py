"""Which assistant a thread's chat runs, before the user picks one.

A run names an assistant id or a graph name (the server runs the graph's default
assistant). The default for a thread is the one its metadata names (`assistant_id`,
else `graph_id`), else the only graph on the server; with several graphs and nothing
named, the chat asks (`tui/chat/assistant_picker.py`). Headless: no widget here.

The user can also pin a specific version (`tui/chat/assistant_version_picker.py`). A run
still names the assistant, and passes that version's context (and its config, where it
differs from the active version's) as run-level overrides — the same mechanism as
`assistants.context_overrides.ContextOverrides`, since the server has no "run version N".
"""

from __future__ import annotations

import copy
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agent_tui.text.short_ids import short_random_id

if TYPE_CHECKING:
    from agent_tui.assistants.context_overrides import ContextOverrides
    from agent_tui.client import AgentServerClient
    from agent_tui.client.models import Assistant, AssistantVersion


def assistant_label(assistant: Assistant) -> str:
    """`chat (1a2b3c4d) v3`: how the chat's state line names the assistant in use."""
    name = assistant.name or assistant.graph_id
    version = f" v{assistant.version}" if assistant.version is not None else ""
    return f"{name} ({short_random_id(assistant.assistant_id)}){version}"


@dataclass(frozen=True, slots=True)
class ChatAssistant:
    """What a run passes as `assistant_id` (an id or a graph name), and how to name it.

    `version` set: the user pinned that version; runs pass its `context` (and `config`,
    None when it matches the active version's) instead of whatever is active.
    """

    assistant_id: str
    graph_id: str | None = None  # None when only an assistant id is known
    label: str = ""
    version: int | None = None
    context: dict[str, Any] | None = field(default=None, hash=False)
    config: dict[str, Any] | None = field(default=None, hash=False)
    active: bool = False  # the pinned version was the active one when it was picked

    @classmethod
    def of(cls, assistant: Assistant) -> ChatAssistant:
        return cls(assistant.assistant_id, assistant.graph_id, assistant_label(assistant))

    @classmethod
    def of_version(
        cls,
        assistant: Assistant,
        version: AssistantVersion,
        active_config: dict[str, Any] | None = None,
    ) -> ChatAssistant:
        """`assistant` pinned to `version`; `active_config`: the active version's config
        (the assistant record's when not given), which runs get without an override."""
        baseline = assistant.config if active_config is None else active_config
        config = copy.deepcopy(version.config) if version.config != baseline else None
        return cls(
            assistant.assistant_id,
            assistant.graph_id,
            # No short id: the note after it must fit the state line of a split pane.
            f"{assistant.name or assistant.graph_id} v{version.version}",
            version=version.version,
            context=copy.deepcopy(version.context),
            config=config,
            active=version.version == assistant.version,
        )

    @property
    def shown(self) -> str:
        shown = self.label or self.assistant_id
        if self.version is not None and not self.active:
            shown += " (not the active version)"
        elif self.version is not None:
            shown += " (pinned)"
        return shown

    def context_for_run(self, overrides: ContextOverrides | None) -> dict[str, Any] | None:
        """The run-level `context=` of a run on this assistant, or None to pass none.

        A pinned version's context wins; else the app's override for an assistant whose
        server record holds the wrong context (the set-latest bug). A copy either way.
        """
        if self.version is not None:
            return copy.deepcopy(self.context or {})
        return overrides.context_for_run(self.assistant_id) if overrides is not None else None

    def config_for_run(self) -> dict[str, Any] | None:
        """The run-level `config=` of a pinned version whose config differs, else None.

        Without its `configurable`: the server refuses a run that passes both
        `configurable` and `context` (400), and the context is what the graph reads.
        """
        if self.version is None or self.config is None:
            return None
        config = copy.deepcopy(self.config)
        if self.context:
            config.pop("configurable", None)
        return config or None

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
        return ChatAssistant(
            assistant, graph_id, f"{graph_id or 'assistant'} ({short_random_id(assistant)})"
        )
    if graph_id:
        return ChatAssistant(graph_id, graph_id, graph_id)
    return None


async def only_graph(client: AgentServerClient) -> ChatAssistant | None:
    """The server's only graph, or None when it serves several (or none)."""
    graphs = await graph_names(client)
    if len(graphs) != 1:
        return None
    graph = graphs[0]
    return ChatAssistant(graph, graph, graph)


async def graph_names(client: AgentServerClient) -> list[str]:
    """The graphs the server's assistants run, sorted (every graph has its default one)."""
    assistants = await client.assistants.search(limit=100)
    return sorted({assistant.graph_id for assistant in assistants})


async def named(client: AgentServerClient, text: str) -> ChatAssistant | None:
    """The assistant `text` names, as a run takes it: an assistant id (that assistant),
    else a graph name (the graph's default assistant); None when the server has neither."""
    from agent_tui.client import NotFound

    try:
        uuid.UUID(text)
    except ValueError:
        found = await client.assistants.search(text, limit=1)
        return ChatAssistant(text, text, text) if found else None
    try:
        return ChatAssistant.of(await client.assistants.get(text))
    except NotFound:
        return None


async def complete(client: AgentServerClient, chosen: ChatAssistant) -> ChatAssistant:
    """`chosen` with its graph known (a new thread's metadata needs it)."""
    if chosen.graph_id:
        return chosen
    assistant = await client.assistants.get(chosen.assistant_id)
    return ChatAssistant.of(assistant)


async def description_of(client: AgentServerClient, chosen: ChatAssistant) -> str | None:
    """The assistant's description (a graph's default assistant carries the graph's
    description from `langgraph.json`), or None when it has none."""
    if chosen.graph_id is not None and chosen.assistant_id == chosen.graph_id:
        assistant = await default_assistant(client, chosen.graph_id)
    else:
        assistant = await client.assistants.get(chosen.assistant_id)
    return (assistant.description or None) if assistant is not None else None


async def default_assistant(client: AgentServerClient, graph_id: str) -> Assistant | None:
    """The assistant the server made for `graph_id` from `langgraph.json` (what a run
    naming the graph runs), or None when the server has no such graph."""
    found = await client.assistants.search(graph_id, metadata={"created_by": "system"}, limit=1)
    return found[0] if found else None
