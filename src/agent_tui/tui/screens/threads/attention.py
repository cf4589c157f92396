"""Threads that need attention, across the server: status `error`, then `interrupted`.

`!` on the Threads screen or `:attention` opens it. The server filters on one status at
a time, so this is two searches read one after the other (newest first in each). It
is a Threads screen in every other way: open, copy, delete, raw JSON, `/` filter.

The "Why" column tells apart what the server's two statuses hide: a thread waiting on
an `interrupt()` (with its question), one whose run failed, one whose run was cancelled
and one paused at a breakpoint. A failure is said as the chat says it
(`threads.failure`): the exception's type, node and own words. The search cannot select
the thread's `error` field, so the threads of a page that need it are read whole (and
the failed ones' state, for the node and the exception's words), a few at a time.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from agent_tui.client import AgentServerClient, ApiError
from agent_tui.client.models import Thread
from agent_tui.threads.failure import failure_of
from agent_tui.threads.query import ATTENTION_STATUSES, ThreadQuery, attention_reason
from agent_tui.tui.palette import PaletteCommand
from agent_tui.tui.screens.threads.list import ThreadsScreen, client_of, thread_columns
from agent_tui.tui.widgets.resource_table import Column
from agent_tui.tui.widgets.text import server_text

DETAIL_READS = 8  # threads read whole at once for their "Why"
WHY_WIDTH = 100  # cells of "Why": a failure's own words, not just its type and node


def needs_reading(thread: Thread) -> bool:
    """Whether the listed thread cannot say why it needs attention: it failed (the error
    and node are elsewhere), or it is interrupted with no question (cancelled or paused?)."""
    return thread.status == "error" or (thread.status == "interrupted" and not thread.interrupts)


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
        self.reasons: dict[str, str] = {}  # thread id → "Why", for threads read whole

    def columns(self) -> Sequence[Column[Thread]]:
        kept = [column for column in thread_columns() if column.key != "preview"]
        why: Column[Thread] = Column(
            "why",
            "Why",
            lambda t: server_text(
                self.reasons.get(t.thread_id) or attention_reason(t, None, WHY_WIDTH)
            ),
            max_width=WHY_WIDTH,
        )
        return [*kept, why]

    async def fetch_page(self, offset: int, limit: int) -> Sequence[Thread]:
        page = await super().fetch_page(offset, limit)
        unclear = [t for t in page if needs_reading(t) and t.thread_id not in self.reasons]
        gate = asyncio.Semaphore(DETAIL_READS)

        async def read_reason(listed: Thread) -> None:
            async with gate:
                try:
                    whole = await self.client.threads.get(listed.thread_id)
                    tasks = []
                    if listed.status == "error":
                        tasks = (
                            await self.client.threads.get_state(listed.thread_id, subgraphs=True)
                        ).tasks
                except ApiError:
                    return  # the row says what the listed thread says
            # The row's status as listed, with the error only the whole thread carries.
            thread = listed.model_copy(update={"error": (whole.model_extra or {}).get("error")})
            failure = failure_of(thread, tasks)
            self.reasons[listed.thread_id] = attention_reason(
                thread, failure.line() if failure is not None else None, WHY_WIDTH
            )

        await asyncio.gather(*(read_reason(thread) for thread in unclear))
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
