"""What an experiment runs on: `ASSISTANT[@VERSION]` resolved to an assistant and the
context (and config) of one version, passed with each run.

Passing the version's context with the run is what makes a version run as itself on any
server: the in-memory runtime keeps the newer context after a version switch
(`assistants.versions`), and there is no "run version N" in the API.

The server merges a run's context key by key over the assistant's current one, so a key
the assistant has now and the version has not would reach the version's runs (version 1
`{"style": "pirate"}` run with version 2's `"shout": true`). Such a key is sent with the
graph's default for it (its context schema's); one with no default cannot be kept out,
and the target is refused, saying so (`ContextLeak`).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent_tui.assistants.lookup import AssistantRef, NoSuchAssistant, find_assistant, find_version

if TYPE_CHECKING:
    from agent_tui.client import AgentServerClient


class ContextLeak(ValueError):
    """A version cannot run as itself: a key of the assistant's current context, which
    the server merges into every run, has no default to send in its place."""


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


def context_defaults(schema: dict[str, Any] | None) -> dict[str, Any]:
    """The defaults a graph's context schema (JSON schema) gives its top-level keys."""
    properties = (schema or {}).get("properties")
    if not isinstance(properties, dict):
        return {}
    return {
        key: spec["default"]
        for key, spec in properties.items()
        if isinstance(spec, dict) and "default" in spec
    }


def run_context(
    version: dict[str, Any], current: dict[str, Any], defaults: dict[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """The context to send with a version's runs so the graph sees the version's own: its
    context, and each key the assistant's `current` context adds, at its default. Also
    the keys that have no default (they would leak)."""
    context = copy.deepcopy(version)
    leaking = []
    for key in current:
        if key in version:
            continue
        if key in defaults:
            context[key] = copy.deepcopy(defaults[key])
        else:
            leaking.append(key)
    return context, leaking


async def resolve_target(client: AgentServerClient, spec: str) -> Target:
    """The target `spec` names; `NoSuchAssistant` (or `ValueError` for a bad `@`,
    `ContextLeak` for a version that cannot run as itself)."""
    ref = AssistantRef.parse(spec)
    assistant = await find_assistant(client, ref.name)
    version = await find_version(client, assistant, ref.version)
    defaults: dict[str, Any] = {}
    if any(key not in version.context for key in assistant.context):
        defaults = context_defaults(
            (await client.assistants.get_schemas(assistant.assistant_id)).context_schema
        )
    context, leaking = run_context(version.context, assistant.context, defaults)
    name = assistant.name or assistant.graph_id
    if leaking:
        keys = ", ".join(repr(key) for key in leaking)
        raise ContextLeak(
            f"version {version.version} of {name} cannot run as itself: the server merges"
            f" the assistant's current context into every run, and its {keys} (not in"
            f" version {version.version}) has no default in graph {assistant.graph_id}'s"
            " context schema to send instead"
        )
    config = _without_configurable(version.config)
    baseline = _without_configurable(assistant.config)
    return Target(
        spec=spec,
        label=f"{name} v{version.version}",
        assistant_id=assistant.assistant_id,
        graph_id=assistant.graph_id,
        version=version.version,
        context=context,
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
