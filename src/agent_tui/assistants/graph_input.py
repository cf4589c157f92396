"""What a graph takes as input, read from its input schema (headless).

A graph whose state has a `messages` channel takes a human message; any other graph (the
LangGraph starter template, a pipeline) takes a JSON object of its input keys. The chat and
`agent-tui run` ask `GET /assistants/{id}/schemas` once, and check what the user typed
against the schema before anything is sent: the server takes any object and the graph
silently ignores keys it does not have, so a typo would otherwise run on nothing.

The check is deliberately small: the value is an object, the required keys are there, no
key is unknown (LangGraph drops keys that are not channels), and values of keys
with a simple type (string, integer, number, boolean, array, object, null) have it.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from agent_tui.client import AgentServerClient
from agent_tui.text.user_json import JsonTextError, parse_json

MESSAGES_KEY = "messages"
_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}


@dataclass(frozen=True)
class GraphInput:
    """A graph's input keys (in the schema's order), which of them are required, and the
    simple JSON types each allows (empty: any)."""

    keys: tuple[str, ...] = ()
    required: tuple[str, ...] = ()
    types: dict[str, tuple[str, ...]] = field(default_factory=dict)
    closed: bool = True  # no keys but `keys` (the schema allows no others)
    known: bool = True  # False: no schema to go by (takes anything, messages included)

    @property
    def takes_messages(self) -> bool:
        return not self.known or not self.keys or MESSAGES_KEY in self.keys

    def keys_text(self) -> str:
        """`topic (required, string), summary (string)`: the keys for a person."""
        parts = []
        for key in self.keys:
            notes = (["required"] if key in self.required else []) + list(self.types.get(key, ()))
            parts.append(f"{key} ({', '.join(notes)})" if notes else key)
        return ", ".join(parts)

    def example(self) -> str:
        """A JSON object to start from: `{"topic": ""}` (the required keys, else all)."""
        keys = self.required or self.keys
        samples = {"string": '""', "integer": "0", "number": "0", "boolean": "false"}
        body = ", ".join(
            f'"{key}": {samples.get(next(iter(self.types.get(key, ())), ""), "null")}'
            for key in keys
        )
        return "{" + body + "}"

    def check(self, text: str) -> dict[str, Any]:
        """`text` as this graph's input; `JsonTextError` saying what is wrong."""
        return self.check_value(parse_json(text, "the input"))

    def check_value(self, value: Any) -> dict[str, Any]:
        """`value` (parsed already) as this graph's input; `JsonTextError` if it is not."""
        if not isinstance(value, dict):
            raise JsonTextError(
                f"the graph takes a JSON object of its input keys, like {self.example()}"
                f" (its keys: {self.keys_text()})"
            )
        problems = []
        missing = [key for key in self.required if key not in value]
        if missing:
            problems.append(f"missing {', '.join(missing)}")
        if self.closed:
            unknown = [key for key in value if key not in self.keys]
            if unknown:
                problems.append(f"no key {', '.join(unknown)} in the graph's input")
        for key, item in value.items():
            allowed = self.types.get(key)
            if allowed and not _has_type(item, allowed):
                problems.append(f"{key} must be {' or '.join(allowed)}")
        if problems:
            raise JsonTextError(f"{'; '.join(problems)} (its keys: {self.keys_text()})")
        return value


def _has_type(value: Any, allowed: tuple[str, ...]) -> bool:
    for name in allowed:
        if isinstance(value, bool) and name in ("integer", "number"):
            continue  # JSON true is no number
        if isinstance(value, _TYPES[name]):
            return True
    return False


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        node: Any = root
        for part in ref[2:].split("/"):
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict):
            return node
    return schema


def _simple_types(prop: Any, root: dict[str, Any]) -> tuple[str, ...]:
    """The simple JSON types `prop` allows; empty when anything else may be (a `$ref`,
    `anyOf` of objects, no type: not checked)."""
    if not isinstance(prop, dict):
        return ()
    prop = _resolve(prop, root)
    options = prop.get("anyOf") or prop.get("oneOf")
    if isinstance(options, list):
        found: list[str] = []
        for option in options:
            types = _simple_types(option, root)
            if not types:
                return ()
            found += [name for name in types if name not in found]
        return tuple(found)
    kind = prop.get("type")
    names = kind if isinstance(kind, list) else [kind]
    if not names or not all(isinstance(name, str) and name in _TYPES for name in names):
        return ()
    return tuple(names)


def input_of(schema: dict[str, Any] | None) -> GraphInput:
    """The `GraphInput` an input JSON schema describes (`known=False` for none)."""
    if not isinstance(schema, dict):
        return GraphInput(known=False)
    root = _resolve(schema, schema)
    props = root.get("properties")
    if not isinstance(props, dict):
        return GraphInput(known=False)
    required = root.get("required")
    keys = tuple(str(key) for key in props)
    return GraphInput(
        keys=keys,
        required=tuple(key for key in keys if isinstance(required, list) and key in required),
        types={key: types for key in keys if (types := _simple_types(props[key], schema))},
        # LangGraph drops input keys that are not channels: a typo would run on nothing.
        closed=not root.get("additionalProperties"),
    )


async def graph_input(client: AgentServerClient, assistant: str) -> GraphInput:
    """What `assistant`'s graph takes (an assistant id, or a graph name: its default
    assistant). The input schema, else the state schema: langgraph-api answers `null`
    for the input schema of a graph whose state is a TypedDict (server-quirks.md), and
    a graph's input keys are its state's channels then."""
    try:
        uuid.UUID(assistant)
    except ValueError:  # a graph name: the schemas route takes only assistant ids
        found = await client.assistants.search(
            assistant, metadata={"created_by": "system"}, limit=1
        )
        if not found:
            return GraphInput(known=False)
        assistant = found[0].assistant_id
    schemas = await client.assistants.get_schemas(assistant)
    return input_of(schemas.input_schema or schemas.state_schema)
