"""The JSON schema of the config file, for editors that complete and check TOML.

`config.schema.json` beside this module is generated from the pydantic models; a test
fails when it is stale. Regenerate it with `uv run python -m agent_tui.settings.config_schema`.
Headless.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_tui.settings.atomic_file import write_text_atomically
from agent_tui.settings.config import AgentTuiConfig

SCHEMA_FILE = Path(__file__).with_name("config.schema.json")


def config_json_schema() -> dict[str, Any]:
    schema = _without_null(AgentTuiConfig.model_json_schema())
    schema["title"] = "agent-tui config"
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


def _without_null(node: Any) -> Any:
    """TOML has no null: an optional setting is one that is left out."""
    if isinstance(node, list):
        return [_without_null(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: _without_null(value) for key, value in node.items()}
    options = node.get("anyOf")
    if isinstance(options, list) and {"type": "null"} in options:
        rest = [option for option in options if option != {"type": "null"}]
        node.pop("anyOf")
        if node.get("default", ...) is None:
            node.pop("default")
        node = {**rest[0], **node} if len(rest) == 1 else {"anyOf": rest, **node}
    return node


def render_schema() -> str:
    return json.dumps(config_json_schema(), indent=2) + "\n"


def main() -> None:
    write_text_atomically(SCHEMA_FILE, render_schema())
    print(f"wrote {SCHEMA_FILE}")


if __name__ == "__main__":
    main()
