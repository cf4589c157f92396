"""`agent-tui config …`: manage contexts without opening the TUI (the arguments are
`config_args.py`).

Light at import time (`config path` stays fast); each handler imports what it needs. No
command ever prints a key: listings say where it comes from, and `--store-api-key` reads
it from the terminal or stdin, never from the command line.
What the config file holds is printed cleaned of terminal controls (`_say`): the file may
come from anywhere (a dotfile repository, a colleague).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, TextIO

from agent_tui.text.sanitize import clean_text

if TYPE_CHECKING:
    from agent_tui.settings.contexts import ContextSummary

EXIT_CONFIG_ERROR = 2


def print_path(args: argparse.Namespace) -> int:
    from agent_tui.settings.config import config_path

    print(config_path())
    return 0


def list_contexts(args: argparse.Namespace) -> int:
    from agent_tui.settings.config import ConfigError, config_path, load_config
    from agent_tui.settings.contexts import summarize_contexts

    path = config_path()
    try:
        rows = summarize_contexts(load_config(path))
    except ConfigError as error:
        return _fail(error)
    if args.json:
        print(json.dumps([row.as_json() for row in rows], indent=2))
    else:
        print_table(rows, sys.stdout)
    return 0


def print_table(rows: list[ContextSummary], out: TextIO) -> None:
    header = ("CURRENT", "NAME", "AGENT SERVER", "API KEY", "WORKSPACE", "READ-ONLY", "HEADERS")
    lines = [header] + [
        (
            "*" if row.current else "",
            row.name,
            row.agent_server_url or "(embedded, started by agent-tui)",
            row.key_source,
            row.workspace_id or "",
            "yes" if row.readonly else "",
            ", ".join(row.headers),
        )
        for row in rows
    ]
    # A URL or workspace from the file could hold escapes or line breaks.
    cleaned = [[" ".join(clean_text(cell).split()) for cell in line] for line in lines]
    widths = [max(len(line[i]) for line in cleaned) for i in range(len(header))]
    for line in cleaned:
        print(
            "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip(),
            file=out,
        )


def set_context(args: argparse.Namespace) -> int:
    from agent_tui.settings.config import ConfigError, config_path, load_config
    from agent_tui.settings.config_write import ContextChange
    from agent_tui.settings.config_write import set_context as write_context
    from agent_tui.settings.context_headers import stored_name
    from agent_tui.settings.secrets_store import KeyStore, KeyStoreError

    path = config_path()
    try:
        existing = load_config(path).contexts.get(args.name)
    except ConfigError as error:
        return _fail(error)
    if existing is None and not args.agent_server_url:
        return _fail(f"the new context {args.name!r} needs --url")
    key = _read_key(args.name) if args.store_api_key else None
    if args.store_api_key and not key:
        return _fail("no API key given (nothing was changed)")
    try:
        headers = _header_changes(args)
    except ValueError as error:
        return _fail(f"{error} (nothing was changed)")
    stored_headers = {name: _read_key(args.name, name) for name in args.store_header}
    if empty := [name for name, value in stored_headers.items() if not value]:
        return _fail(f"no value given for the header {empty[0]} (nothing was changed)")
    change = ContextChange(
        agent_server_url=args.agent_server_url,
        control_plane_url=args.control_plane_url,
        api_key_env=args.api_key_env,
        api_key_stored=True if args.store_api_key else None,
        workspace_id=args.workspace_id,
        readonly=args.readonly,
        headers=headers,
    )
    try:
        write_context(path, args.name, change)
    except ConfigError as error:
        return _fail(error)
    store = KeyStore()
    try:
        if key:
            store.set(args.name, key)
        elif args.api_key_env:
            store.delete(args.name)  # the context no longer uses it
        for name, template in headers.items():
            if name in stored_headers:
                store.set(stored_name(args.name, name), stored_headers[name])
            elif template is None or "{stored}" not in template:
                store.delete(stored_name(args.name, name))
    except (KeyStoreError, OSError) as error:
        return _fail(error)
    verb = "Added" if existing is None else "Updated"
    _say(f"{verb} context {args.name!r} in {path}")
    if key:
        _say(f"Its API key is stored in {store.path} (mode 0600)")
    for name in stored_headers:
        _say(f"Its {name} header is stored in {store.path} (mode 0600)")
    return 0


def _header_changes(args: argparse.Namespace) -> dict[str, str | None]:
    """``--header NAME=VALUE``, ``--store-header NAME`` and ``--remove-header NAME`` as
    one change (`ValueError` naming a malformed one)."""
    changes: dict[str, str | None] = {}
    for given in args.header:
        name, equals, template = given.partition("=")
        if not equals or not name.strip():
            raise ValueError(f"--header {given!r}: write NAME=VALUE")
        changes[name.strip()] = template.strip()
    for name in args.store_header:
        changes[name.strip()] = "{stored}"
    for name in args.remove_header:
        changes[name.strip()] = None
    return changes


def use_context(args: argparse.Namespace) -> int:
    from agent_tui.settings.config import ConfigError, config_path
    from agent_tui.settings.config_write import use_context as write_current

    path = config_path()
    try:
        write_current(path, args.name)
    except ConfigError as error:
        return _fail(error)
    _say(f"agent-tui now opens with the context {args.name!r}")
    return 0


def delete_context(args: argparse.Namespace) -> int:
    from agent_tui.settings.config import ConfigError, config_path, read_toml
    from agent_tui.settings.config_write import delete_context as remove_context
    from agent_tui.settings.secrets_store import KeyStore, KeyStoreError

    path = config_path()
    try:
        was_current = read_toml(path).get("current_context") == args.name
        remove_context(path, args.name)
        store = KeyStore()
        store.delete(args.name)
        for entry in store.names():  # its stored headers (`context_headers.stored_name`)
            if entry.startswith(f"{args.name} header "):
                store.delete(entry)
    except (ConfigError, KeyStoreError, OSError) as error:
        return _fail(error)
    _say(f"Deleted context {args.name!r} from {path}")
    if was_current:
        print("The current context is now 'local'")
    return 0


def print_schema(args: argparse.Namespace) -> int:
    from agent_tui.settings.config_schema import SCHEMA_FILE

    print(SCHEMA_FILE.read_text(encoding="utf-8"), end="")
    return 0


def list_keys(args: argparse.Namespace) -> int:
    from agent_tui.settings.config import ConfigError, load_config
    from agent_tui.tui.keymap_catalog import catalog, unknown_ids, unknown_ids_message

    try:
        keymap = load_config().keymap
    except ConfigError as error:
        return _fail(error)
    known = catalog()
    unknown = unknown_ids(keymap, known)
    if args.json:
        rows = [
            {
                "id": binding.id,
                "keys": keymap.get(binding.id, binding.keys),
                "default_keys": binding.keys,
                "description": binding.description,
                "where": binding.owner,
            }
            for binding in known.values()
        ]
        json.dump({"bindings": rows, "unknown_keymap_ids": unknown}, sys.stdout, indent=2)
        print()
    else:
        width = max(len(binding_id) for binding_id in known)
        for binding in known.values():
            keys = keymap.get(binding.id, binding.keys)
            remapped = "  (remapped)" if binding.id in keymap else ""
            _say(f"{binding.id:<{width}}  {clean_text(keys):<18} {binding.description}{remapped}")
    if unknown:
        _say(unknown_ids_message(unknown, known), sys.stderr)
        return EXIT_CONFIG_ERROR
    return 0


def _read_key(name: str, header: str | None = None) -> str:
    what = f"{header} header" if header else "API key"
    prompt = f"{what} for context {name!r} (not shown): "
    if sys.stdin.isatty():
        import getpass

        return getpass.getpass(prompt).strip()
    return sys.stdin.readline().strip()


def _say(text: str, out: TextIO | None = None) -> None:
    print(clean_text(text), file=out or sys.stdout)


def _fail(error: object) -> int:
    _say(f"agent-tui: {error}", sys.stderr)
    return EXIT_CONFIG_ERROR
