"""`ctrl+p`: the shell's commands in Textual's command palette, aware of where you are.

Textual renders a plain-str prompt or help as markup, so prompts and help here are
`Content`. Besides Textual's own (theme, keys, quit…), it offers: open each registered screen,
open a thread by id (type `thread <id>` or paste an id), switch to each context, and
the commands the active screen offers through `palette_commands()`:

    def palette_commands(self) -> Iterable[PaletteCommand]:
        yield PaletteCommand("Create a thread", "New empty thread", self.action_new)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from agent_tui.tui import routes
from agent_tui.tui.app_contract import agent_app

_UUID = re.compile(
    r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$"
)


@dataclass(frozen=True, slots=True)
class PaletteCommand:
    name: str
    help: str
    callback: Callable[[], Any]


class ShellCommands(Provider):
    def _commands(self) -> Iterator[PaletteCommand]:
        app = agent_app(self.app)
        for route in routes.routes():
            if route.argument:
                continue
            yield PaletteCommand(
                f"Open {route.name}", route.help, partial(app.run_command, route.name)
            )
        current = app.selection.context
        for name in app.context_names():
            if name != current:
                yield PaletteCommand(
                    f"Switch context: {name}",
                    f"Connect to the servers of context {name!r}",
                    partial(app.run_command, f"ctx {name}"),
                )
        yield PaletteCommand("Command mode", "Type a : command", app.action_command_mode)
        commands: Callable[[], Iterable[PaletteCommand]] | None = getattr(
            self.screen, "palette_commands", None
        )
        if commands is not None:
            yield from commands()

    async def discover(self) -> Hits:
        for command in self._commands():
            yield DiscoveryHit(
                Content(command.name),
                command.callback,
                text=command.name,
                # Typed str, but read with `Content.from_markup`, which keeps a Content.
                help=Content(command.help),  # type: ignore[arg-type]
            )

    async def search(self, query: str) -> Hits:
        app = agent_app(self.app)
        matcher = self.matcher(query)
        for command in self._commands():
            score = matcher.match(command.name)
            if score > 0:
                yield Hit(
                    score,
                    matcher.highlight(command.name),
                    command.callback,
                    help=Content(command.help),  # type: ignore[arg-type]
                )
        thread_id = _thread_id_in(query)
        if thread_id:
            yield Hit(
                1.0,
                Content(f"Open thread {thread_id}"),
                partial(app.run_command, f"thread {thread_id}"),
                text=f"Open thread {thread_id}",
                help="Open the thread with this id",
            )


def _thread_id_in(query: str) -> str | None:
    words = query.strip().split()
    if len(words) == 2 and words[0].lower() in {"thread", ":thread"}:
        return words[1]
    if len(words) == 1 and _UUID.match(words[0]):
        return words[0]
    return None
