"""Which assistant a name on the command line means (headless).

Where a command takes an assistant it takes what `agent-tui run` takes, and a little
more: an assistant id; a graph name (the assistant the server made for the graph, which
a run naming the graph runs); an assistant's name when exactly one assistant has it.
`ID@VERSION` (any of the three, then a version number) names one version of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_tui.assistants.versions import one_per_version
from agent_tui.text.short_ids import is_uuid

if TYPE_CHECKING:
    from agent_tui.client import AgentServerClient
    from agent_tui.client.models import Assistant, AssistantVersion

_PAGE = 100


class NoSuchAssistant(LookupError):
    """Nothing (or more than one thing) on the server answers to the name; says which."""


@dataclass(frozen=True, slots=True)
class AssistantRef:
    """`text` split into what names the assistant and the version asked for (None: active)."""

    name: str
    version: int | None = None

    @classmethod
    def parse(cls, text: str) -> AssistantRef:
        """`chat`, `<uuid>`, `my bot@3`; `ValueError` for an `@` not followed by a version."""
        name, at, version = text.rpartition("@")
        if not at:
            return cls(text.strip())
        if not version.strip().isdigit() or int(version) < 1 or not name.strip():
            raise ValueError(
                f"{text!r}: write ASSISTANT@VERSION with a version number of 1 or more"
            )
        return cls(name.strip(), int(version))


async def find_assistant(client: AgentServerClient, name: str) -> Assistant:
    """The assistant `name` names (id, graph name, or an assistant's own name)."""
    from agent_tui.client import NotFound
    from agent_tui.client.errors import UnusableUrl

    if is_uuid(name):
        try:
            return await client.assistants.get(name)
        except (NotFound, UnusableUrl):
            raise NoSuchAssistant(f"no assistant {name} on the server") from None
    try:
        made = await client.assistants.search(name, metadata={"created_by": "system"}, limit=1)
        by_graph = made or await client.assistants.search(name, limit=2)
    except NotFound:  # langgraph-api: a graph it does not serve is a 404, not []
        by_graph = []
    if len(by_graph) == 1:
        return by_graph[0]
    named = [found for found in await _all(client) if found.name == name]
    if len(named) == 1:
        return named[0]
    if len(named) > 1:
        ids = ", ".join(found.assistant_id for found in named)
        raise NoSuchAssistant(f"{len(named)} assistants are named {name!r}: use an id ({ids})")
    graphs = ", ".join(sorted({found.graph_id for found in await _all(client)})) or "none"
    raise NoSuchAssistant(
        f"no assistant, graph or assistant name {name!r} on the server (its graphs: {graphs})"
    )


async def all_versions(client: AgentServerClient, assistant_id: str) -> list[AssistantVersion]:
    """Every version of the assistant, newest first, each number once."""
    found: list[AssistantVersion] = []
    offset = 0
    while True:
        page = await client.assistants.get_versions(assistant_id, limit=_PAGE, offset=offset)
        found.extend(page)
        if len(page) < _PAGE:
            break
        offset += _PAGE
    return one_per_version(sorted(found, key=lambda v: v.version, reverse=True))


async def find_version(
    client: AgentServerClient, assistant: Assistant, version: int | None
) -> AssistantVersion:
    """The versions-list entry of `version` (None: the active one), whose context is the
    right one even where the server's record is not (`assistants.versions`)."""
    wanted = assistant.version if version is None else version
    versions = await all_versions(client, assistant.assistant_id)
    for entry in versions:
        if entry.version == wanted:
            return entry
    if version is None and versions:
        return versions[0]
    numbers = ", ".join(str(entry.version) for entry in reversed(versions)) or "none"
    shown = assistant.name or assistant.graph_id
    raise NoSuchAssistant(f"{shown} has no version {wanted} (its versions: {numbers})")


async def _all(client: AgentServerClient) -> list[Assistant]:
    from agent_tui.assistants.fetch import fetch_all_assistants

    found, _ = await fetch_all_assistants(client)
    return found
