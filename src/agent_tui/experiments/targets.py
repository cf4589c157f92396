"""What an experiment runs on: `ASSISTANT[@VERSION]` resolved to an assistant and the
context (and config) of one version, passed with each run.

Passing the version's context with the run is what makes a version run as itself on any
server: the in-memory runtime keeps the newer context after a version switch
(`assistants.versions`), and there is no "run version N" in the API.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent_tui.assistants.lookup import AssistantRef, NoSuchAssistant, find_assistant, find_version

if TYPE_CHECKING:
    from agent_tui.client import AgentServerClient


@dataclass(frozen=True, slots=True)
class Target:
    spec: str  # as the user wrote it
    label: str  # `bot v2`: unique within an experiment
    assistant_id: str
    graph_id: str
    version: int
    context: dict[str, Any]
    config: dict[str, Any] | None  # None: the assistant's own applies

    def as_json(self) -> dict[str, Any]:
        return {
            "spec": self.spec,
            "label": self.label,
            "assistant_id": self.assistant_id,
            "graph_id": self.graph_id,
            "version": self.version,
            "context": self.context,
            "config": self.config,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Target:
        return cls(
            spec=data["spec"],
            label=data["label"],
            assistant_id=data["assistant_id"],
            graph_id=data["graph_id"],
            version=int(data["version"]),
            context=dict(data.get("context") or {}),
            config=data.get("config"),
        )


def _without_configurable(config: dict[str, Any]) -> dict[str, Any]:
    # The server refuses a run with both `configurable` and `context` (400).
    return {key: value for key, value in config.items() if key != "configurable"}


async def resolve_target(client: AgentServerClient, spec: str) -> Target:
    """The target `spec` names; `NoSuchAssistant` (or `ValueError` for a bad `@`)."""
    ref = AssistantRef.parse(spec)
    assistant = await find_assistant(client, ref.name)
    version = await find_version(client, assistant, ref.version)
    config = _without_configurable(version.config)
    baseline = _without_configurable(assistant.config)
    return Target(
        spec=spec,
        label=f"{assistant.name or assistant.graph_id} v{version.version}",
        assistant_id=assistant.assistant_id,
        graph_id=assistant.graph_id,
        version=version.version,
        context=copy.deepcopy(version.context),
        config=copy.deepcopy(config) if config != baseline and config else None,
    )


async def resolve_targets(client: AgentServerClient, specs: list[str]) -> list[Target]:
    """Each of `specs`, labels made unique (`bot v2`, `bot v2 (2)`)."""
    if len(specs) < 1:
        raise NoSuchAssistant("name at least one assistant")
    targets = [await resolve_target(client, spec) for spec in specs]
    seen: dict[str, int] = {}
    unique = []
    for target in targets:
        count = seen.get(target.label, 0) + 1
        seen[target.label] = count
        if count > 1:
            target = Target(**{**_fields(target), "label": f"{target.label} ({count})"})
        unique.append(target)
    return unique


def _fields(target: Target) -> dict[str, Any]:
    return {name: getattr(target, name) for name in Target.__slots__}
