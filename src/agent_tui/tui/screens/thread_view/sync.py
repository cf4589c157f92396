"""The thread the thread view shows, and its loaded history, kept in step with the server.

Headless: no Textual. The view's history part (browser.py) calls it from its workers and
draws what it returns. One lock makes the changes of `history` (a page, the newer
checkpoints) one at a time, so a page never lands in the middle of a reload.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from agent_tui.threads.history import ThreadHistory

if TYPE_CHECKING:
    from agent_tui.client import AgentServerClient
    from agent_tui.client.models import Thread
    from agent_tui.threads.history import HistoryRow


# Whole states held: the ones used last (the rows the cursor rested on, a page's oldest
# waiting for their parents). Every row stays; a state let go is read again (one
# request) when its row is shown. Two pages of them (200) held 30-40 MB of a thread
# whose states grow with it, and what they left behind once let go kept the process
# that much bigger after paging through it (`benchmarks/thread_view.py`).
KEEP_STATES = 30


class ThreadSync:
    """One thread and its history, most recent first, loaded page by page."""

    def __init__(self, client: AgentServerClient, thread_id: str, *, page_size: int) -> None:
        self.client = client
        self.thread_id = thread_id
        # A thread whose states grow with it would hold the square of its length once
        # paged through: a few states only.
        self.history = ThreadHistory(
            client, thread_id, page_size=page_size, keep_states=KEEP_STATES
        )
        self.thread: Thread | None = None
        self.failure: str | None = None  # why the thread could not be loaded
        self._lock = asyncio.Lock()
        self._check_newer = False  # the next check reports a change (see `open`)

    @property
    def assistant_id(self) -> str | None:
        """What a replay runs: the thread's assistant, else its graph (from its metadata)."""
        metadata = self.thread.metadata if self.thread else {}
        for key in ("assistant_id", "graph_id"):
            value = metadata.get(key)
            if isinstance(value, str) and value:
                return value
        return None

    async def open(self, first_rows: int | None = None) -> list[HistoryRow]:
        """The thread and the newest `first_rows` checkpoints (default: a page), asked for
        at the same time. Raises the client's errors."""
        async with self._lock:
            page = asyncio.ensure_future(self.history.load_more(first_rows))
            try:
                self.thread = await self.client.threads.get(self.thread_id)
            except BaseException:
                page.cancel()
                with contextlib.suppress(BaseException):
                    await page
                raise
            rows = await page
            # Read side by side, the thread may be newer than the page (a run ended
            # between the two reads): the first check loads what came since either way.
            self._check_newer = True
            return rows

    async def load_more(self) -> tuple[list[HistoryRow], list[HistoryRow]]:
        """The next (older) page, and the rows loaded before that now know their writer
        (their parent came with this page). After a short first page, the page is its
        rest: pages stay `page_size` long."""
        history = self.history
        waiting = {row.checkpoint_id for row in history.rows if row.writes_source is None}
        async with self._lock:
            rows = await history.load_more(
                history.page_size - len(history.rows) % history.page_size
            )
        completed = [
            row
            for row in self.history.rows
            if row.checkpoint_id in waiting and row.writes_source is not None
        ]
        return rows, completed

    async def load_newer(self) -> list[HistoryRow]:
        """The checkpoints made since loading (now at the top of `history`), and the
        thread again (its status).

        The thread is read before the history: it is what the next `changed_on_server`
        compares with, so a change landing during the history read (a run ending) still
        reads as a change then. Read after, it would hide that run's last checkpoints."""
        async with self._lock:
            if not self.history.rows:
                # An empty thread's history was "exhausted" at open; a run since
                # made its first checkpoints.
                self.history.exhausted = False
            self.thread = await self.client.threads.get(self.thread_id)
            fresh = await self.history.load_newer()
        return fresh

    async def changed_on_server(self) -> bool:
        """Fetch the thread again: True when it changed since (a run, a fork elsewhere)."""
        before = self.thread
        self.thread = await self.client.threads.get(self.thread_id)
        if self._check_newer:
            self._check_newer = False
            return True
        return before is not None and self.thread.updated_at != before.updated_at
