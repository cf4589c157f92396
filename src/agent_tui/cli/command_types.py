"""What a row of the command table is (`commands.py`): a `Command` or a `Group` of them."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import NamedTuple

Handler = Callable[[argparse.Namespace], int]
AddArguments = Callable[[argparse.ArgumentParser], None]


class Command(NamedTuple):
    """`agent-tui … NAME`: a command that runs `handler` ("module:function" in `agent_tui.cli`)."""

    name: str
    help: str
    arguments: AddArguments | None
    handler: str
    description: str | None = None


class Group(NamedTuple):
    """`agent-tui NAME COMMAND …`: commands under one name (one of them is required)."""

    name: str
    help: str
    commands: tuple[Command, ...]
    description: str | None = None
