"""Threads that need attention, across the server: status `error`, then `interrupted`.

`!` on the Threads screen or `:attention` opens it. The server filters on one status at
a time, so this is two searches read one after the other (newest first in each). It
is a Threads screen in every other way: open, copy, delete, raw JSON, `/` filter.

The "Why" column tells apart what the server's two statuses hide: a thread waiting on
an `interrupt()` (with its question), one whose run failed (with the error its failing
task recorded, read for the failed threads of each page), and one stopped with nothing
to answer (a cancelled run, or a run paused at a breakpoint).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from agent_tui.chat.failure import failure_of
from agent_tui.client import AgentServerClient, ApiError
from agent_tui.client.models import Thread
from agent_tui.palette import PaletteCommand
from agent_tui.screens.threads.list import ThreadsScreen, client_of, thread_columns
from agent_tui.thread_query import ATTENTION_STATUSES, ThreadQuery, attention_reason
from agent_tui.widgets.resource_table import Column
from agent_tui.widgets.text import server_text

ERROR_READS = 8  # failed threads whose error is read at once

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
        self.errors: dict[str, str] = {}  # thread id → the error its failing task recorded

    def columns(self) -> Sequence[Column[Thread]]:
        kept = [column for column in thread_columns() if column.key != "preview"]
        why: Column[Thread] = Column(
            "why", "Why", lambda t: server_text(attention_reason(t, self.errors.get(t.thread_id)))
        )
        return [*kept, why]

    async def fetch_page(self, offset: int, limit: int) -> Sequence[Thread]:
        page = await super().fetch_page(offset, limit)
        failed = [t for t in page if t.status == "error" and t.thread_id not in self.errors]
        gate = asyncio.Semaphore(ERROR_READS)

        async def read_error(thread: Thread) -> None:
            async with gate:
                try:
                    state = await self.client.threads.get_state(thread.thread_id)
                except ApiError:
                    state = None  # the thread still says what failed, without the node
            failure = failure_of(thread, state.tasks if state is not None else ())
            if failure is not None:
                self.errors[thread.thread_id] = failure.line()

        await asyncio.gather(*(read_error(thread) for thread in failed))
        return page

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
