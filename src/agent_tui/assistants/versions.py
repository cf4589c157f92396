"""Switching an assistant's active version so that it really switches.

The in-memory runtime that `langgraph dev` uses (langgraph-runtime-inmem 0.36.7) copies
a version's config, metadata, version and name on `POST /assistants/{id}/latest`, but
not its `context`: the assistant keeps the newer context and later runs by assistant
id use it (docs/server-quirks.md). The versions list holds each version's right context, and a run
request accepts a run-level `context` that the graph sees.

So after setting a version we compare the assistant's context with that version's. On
a mismatch the app records the version's context in its `ContextOverrides`, and every
run the app starts with that assistant passes it (`context_for_run`), which makes our
runs right on any server. Headless (no Textual): the screens and the chat pane use it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agent_tui.assistants.context_overrides import ContextOverrides
from agent_tui.text.context_diff import ContextChange, context_diff

if TYPE_CHECKING:
    # Only for types: the app imports this module at start-up, before the client.
    from agent_tui.client import AgentServerClient
    from agent_tui.client.models import Assistant, AssistantVersion


@dataclass(frozen=True, slots=True)
class VersionCheck:
    """How the assistant's own context compares with its active version's."""

    assistant_id: str
    version: int
    assistant_context: dict[str, Any]
    version_context: dict[str, Any]
    # From the assistant's context to the version's: what runs would get wrong.
    changes: list[ContextChange] = field(default_factory=list)

    @property
    def mismatch(self) -> bool:
        return self.assistant_context != self.version_context

    def warning(self) -> str:
        """What to tell the user about a mismatch (empty when there is none)."""
        if not self.mismatch:
            return ""
        keys = ", ".join(change.key for change in self.changes) or "its values"
        return (
            f"The server switched this assistant to version {self.version} but kept a "
            f"different context ({keys} differ) — a known bug of the in-memory runtime "
            "that `langgraph dev` uses. Runs started by agent-tui will pass version "
            f"{self.version}'s context with each run, so they behave as version "
            f"{self.version}. Runs started elsewhere (by assistant id) still get the "
            "assistant's stale context."
        )


def one_per_version(versions: list[AssistantVersion]) -> list[AssistantVersion]:
    """`versions` with each version number once (the first record of it), in order.

    After restarts on the same data folder the in-memory runtime lists a default
    assistant's version 1 again for every start: the same version, not a new one.
    """
    seen: set[int] = set()
    unique = []
    for version in versions:
        if version.version not in seen:
            seen.add(version.version)
            unique.append(version)
    return unique


def version_check(assistant: Assistant, active: AssistantVersion) -> VersionCheck:
    """How `assistant`'s own context compares with its active version's (`active`)."""
    return VersionCheck(
        assistant_id=assistant.assistant_id,
        version=active.version,
        assistant_context=dict(assistant.context),
        version_context=dict(active.context),
        changes=context_diff(assistant.context, active.context),
    )


def remember(check: VersionCheck, overrides: ContextOverrides) -> None:
    """Record the override a mismatch needs, or clear one that is no longer needed."""
    if check.mismatch:
        overrides.record(check.assistant_id, check.version, check.version_context)
    else:
        overrides.forget(check.assistant_id)


async def check_active_context(
    client: AgentServerClient, assistant_id: str, overrides: ContextOverrides
) -> VersionCheck:
    """Compare the assistant's context with its active version's; record or clear
    the override to match."""
    assistant = await client.assistants.get(assistant_id)
    active = await client.assistants.active_version(assistant_id)
    check = version_check(assistant, active)
    remember(check, overrides)
    return check


async def set_active_version(
    client: AgentServerClient, assistant_id: str, version: int, overrides: ContextOverrides
) -> VersionCheck:
    """Make `version` the active one, then check that the server really switched."""
    await client.assistants.set_latest(assistant_id, version)
    return await check_active_context(client, assistant_id, overrides)
