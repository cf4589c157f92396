"""The table of subcommands (`agent_tui.cli.commands`): every handler it names exists, and
building the parser imports none of them (`--help` and `--version` stay fast)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from agent_tui.cli.commands import COMMANDS, Command, Group, load_handler


def _commands() -> list[tuple[str, Command]]:
    found: list[tuple[str, Command]] = []
    for entry in COMMANDS:
        if isinstance(entry, Group):
            found += [(f"{entry.name} {command.name}", command) for command in entry.commands]
        else:
            found.append((entry.name, entry))
    return found


@pytest.mark.parametrize(("path", "command"), _commands(), ids=[path for path, _ in _commands()])
def test_every_handler_names_a_function(path: str, command: Command) -> None:
    assert callable(load_handler(command.handler)), path


def test_building_the_parser_imports_no_handler_module() -> None:
    handler_modules = sorted(
        {f"agent_tui.cli.{command.handler.partition(':')[0]}" for _, command in _commands()}
    )
    probe = (
        "import json, sys\n"
        "from agent_tui.cli.main import build_parser\n"
        "build_parser()\n"
        "print(json.dumps([m for m in json.loads(sys.argv[1]) if m in sys.modules]))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe, json.dumps(handler_modules)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert json.loads(result.stdout) == []
