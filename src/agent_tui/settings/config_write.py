"""Changes to the config file: add, change, select and delete contexts.

Headless. Each change parses the file with tomlkit (which keeps the user's comments,
order and unknown tables), applies the edit, validates the result exactly as
`load_config` would, and only then replaces the file atomically (mode 0600). A change
that would make the file invalid raises `ConfigError` and writes nothing.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import Table
from tomlkit.toml_document import TOMLDocument

from agent_tui.settings.atomic_file import write_private_text
from agent_tui.settings.config import (
    LOCAL_CONTEXT,
    AgentTuiConfig,
    ConfigError,
    Problem,
    check_context_name,
    parse_config,
    read_toml,
)
from agent_tui.settings.target import normalize_url


@dataclass(frozen=True, slots=True)
class ContextChange:
    """What `set-context` changes; None leaves a setting as it is."""

    agent_server_url: str | None = None
    control_plane_url: str | None = None
    api_key_env: str | None = None
    api_key_stored: bool | None = None
    workspace_id: str | None = None
    readonly: bool | None = None
    headers: dict[str, str | None] = field(default_factory=dict)
    """Header name → its value's template (`context_headers`); None removes the header."""


def set_context(path: Path, name: str, change: ContextChange) -> AgentTuiConfig:
    """Create the context `name`, or change the settings given in `change`."""
    _check_name(path, name)
    if name == LOCAL_CONTEXT:
        raise ConfigError(path, [Problem(f"contexts.{name}", _LOCAL_IS_BUILT_IN)])

    settings = _settings(path, name, change)

    def edit(doc: TOMLDocument) -> None:
        contexts = _contexts_table(doc)
        table = contexts.get(name)
        new = table is None
        if table is None:
            table = tomlkit.table()
            contexts[name] = table
        for key, value in settings.items():
            table[key] = value
        if new:
            table.add(tomlkit.nl())  # a blank line before whatever table follows
        # The two key sources are alternatives: choosing one drops the other.
        if change.api_key_env is not None:
            table.pop("api_key_stored", None)
        if change.api_key_stored:
            table.pop("api_key_env", None)
        elif change.api_key_stored is False:
            table.pop("api_key_stored", None)
        _edit_headers(table, change.headers)

    return _edit(path, edit)


def _edit_headers(table: Any, headers: dict[str, str | None]) -> None:
    """Set or remove the context's headers (names compared ignoring case)."""
    if not headers:
        return
    current = table.get("headers")
    if current is None:
        current = tomlkit.table()
        table["headers"] = current
    for name, template in headers.items():
        for existing in [key for key in current if str(key).lower() == name.lower()]:
            del current[existing]
        if template is not None:
            current[name] = template
    if not current:
        del table["headers"]


def use_context(path: Path, name: str) -> AgentTuiConfig:
    """Make `name` the context the app opens with."""

    def edit(doc: TOMLDocument) -> None:
        if name != LOCAL_CONTEXT and name not in _existing_contexts(doc):
            raise ConfigError(path, [Problem("", _unknown(name, doc))])
        doc["current_context"] = name

    return _edit(path, edit)


def delete_context(path: Path, name: str) -> AgentTuiConfig:
    """Remove `name`; if it was the current context, `local` becomes current."""

    def edit(doc: TOMLDocument) -> None:
        if name == LOCAL_CONTEXT:
            raise ConfigError(path, [Problem("", _LOCAL_IS_BUILT_IN)])
        contexts = _existing_contexts(doc)
        if name not in contexts:
            raise ConfigError(path, [Problem("", _unknown(name, doc))])
        del contexts[name]
        if doc.get("current_context") == name:
            del doc["current_context"]

    # A context made unusable by hand (a URL with no port, a misspelt key) can still be
    # deleted: its own mistakes are what the user is removing.
    return _edit(path, edit, removing=f"contexts.{name}")


_LOCAL_IS_BUILT_IN = "'local' is the built-in context of the embedded server; it cannot be changed"


def _settings(path: Path, name: str, change: ContextChange) -> dict[str, Any]:
    settings: dict[str, Any] = {
        "agent_server_url": _url(path, name, "agent_server_url", change.agent_server_url),
        "control_plane_url": _url(path, name, "control_plane_url", change.control_plane_url),
        "api_key_env": change.api_key_env,
        "api_key_stored": True if change.api_key_stored else None,
        "workspace_id": change.workspace_id,
        "readonly": change.readonly,
    }
    return {key: value for key, value in settings.items() if value is not None}


def _url(path: Path, name: str, key: str, url: str | None) -> str | None:
    """The URL as the file will hold it (`load_config` would normalize it the same way)."""
    if url is None:
        return None
    try:
        return normalize_url(url)
    except ValueError as error:
        raise ConfigError(path, [Problem(f"contexts.{name}.{key}", str(error))]) from None


def _check_name(path: Path, name: str) -> None:
    try:
        check_context_name(name)
    except ValueError as error:
        raise ConfigError(path, [Problem("", str(error))]) from None


def _contexts_table(doc: TOMLDocument) -> Table:
    contexts = doc.get("contexts")
    if contexts is None:
        contexts = tomlkit.table(is_super_table=True)
        doc["contexts"] = contexts
    if not isinstance(contexts, Table):
        raise TypeError("contexts")  # parse_config of the original file rejected this already
    return contexts


def _existing_contexts(doc: TOMLDocument) -> dict[str, Any]:
    contexts = doc.get("contexts")
    return contexts if isinstance(contexts, dict) else {}


def _unknown(name: str, doc: TOMLDocument) -> str:
    known = ", ".join([LOCAL_CONTEXT, *_existing_contexts(doc)])
    return f"no context named {name!r} (known: {known})"


def _edit(
    path: Path, edit: Callable[[TOMLDocument], None], *, removing: str | None = None
) -> AgentTuiConfig:
    # Validate the file as it is first: editing a file we misunderstand could lose data.
    # Mistakes inside the table being removed (`removing`, a dotted key) do not count.
    try:
        parse_config(read_toml(path), path)
    except ConfigError as error:
        if removing is None or not all(
            problem.key == removing or problem.key.startswith(removing + ".")
            for problem in error.problems
        ):
            raise
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    try:
        doc = tomlkit.parse(text)
    except TOMLKitError as error:  # tomllib accepted it, so this is unlikely
        raise ConfigError(path, [Problem("", f"cannot edit this file: {error}")]) from None
    edit(doc)
    new_text = tomlkit.dumps(doc)
    config = parse_config(tomllib.loads(new_text), path)
    write_private_text(path, new_text)
    return config
