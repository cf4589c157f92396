"""Threads that need attention, across the server: status `error`, then `interrupted`.

`!` on the Threads screen or `:attention` opens it. The server filters on one status at
a time, so this is two searches read one after the other (newest first in each). It
is a Threads screen in every other way: open, copy, delete, raw JSON, `/` filter.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, ClassVar

from agent_tui.client import AgentServerClient
from agent_tui.palette import PaletteCommand
from agent_tui.screens.threads.list import ThreadsScreen, client_of
from agent_tui.thread_query import ATTENTION_STATUSES, ThreadQuery

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen


class AttentionScreen(ThreadsScreen):
    RESOURCES: ClassVar[str] = "threads needing attention"
    EMPTY_HINT: ClassVar[str] = "none: no thread is interrupted or failed"

    def __init__(self, client: AgentServerClient) -> None:
        super().__init__(client)
        # error first: a failed run matters more than one waiting for an answer.
        self.set_queries([ThreadQuery(status=status) for status in reversed(ATTENTION_STATUSES)])

    @property
    def breadcrumb_title(self) -> str:
        return "attention"

    def describe_search(self) -> str:
        return "status error or interrupted · newest first in each"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in {"search", "attention", "new"}:
            return False  # a fixed search; new threads are idle, so they never show here
        return super().check_action(action, parameters)

    def palette_commands(self) -> Iterable[PaletteCommand]:
        return [c for c in super().palette_commands() if c.name == "Copy thread"]


def attention_screen(app: App[Any], argument: str | None) -> Screen[Any]:
    """The registry's factory: `:attention`."""
    return AttentionScreen(client_of(app))
