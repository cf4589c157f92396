"""`:` command mode, headless: parsing and completion of command lines.

:assistants  :threads  :thread <id>  :attention (:queue)  :ctx <name>
:theme <name>  :help  :q (:quit)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# Words the shell handles itself (besides the screen routes of tui/routes.py).
SHELL_COMMANDS: dict[str, tuple[str, str | None]] = {
    "ctx": ("Switch to another context", "name"),
    "theme": ("Switch the colour theme", "name"),
    "help": ("Show the keys of this screen", None),
    "q": ("Quit agent-tui", None),
    "quit": ("Quit agent-tui", None),
}


@dataclass(frozen=True, slots=True)
class CommandLine:
    name: str
    argument: str | None

    def __str__(self) -> str:
        return f":{self.name} {self.argument}" if self.argument else f":{self.name}"


def parse_command(text: str) -> CommandLine | None:
    """`":thread abc"` → CommandLine("thread", "abc"); None for an empty line."""
    text = text.strip().lstrip(":").strip()
    if not text:
        return None
    name, _, rest = text.partition(" ")
    return CommandLine(name.lower(), rest.strip() or None)


def complete(text: str, words: Sequence[str], arguments: Mapping[str, Sequence[str]]) -> list[str]:
    """Completions for a partial command line, each a full line without the colon.

    `words` are the command words; `arguments[word]` the known values of its argument
    (e.g. context names for `ctx`).
    """
    text = text.lstrip(":").lstrip()
    name, space, rest = text.partition(" ")
    if not space:
        prefix = name.lower()
        return [word for word in words if word.startswith(prefix)]
    values = arguments.get(name.lower(), ())
    rest = rest.strip().lower()
    return [f"{name} {value}" for value in values if value.lower().startswith(rest)]
