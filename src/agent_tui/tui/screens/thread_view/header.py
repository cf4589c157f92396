"""The thread view's header line: the thread, its status and graph, what is loaded, progress,
and why the thread failed when it did.

One line: each part from the server is cut with `…` (a megabyte graph name or error would
push the rest out of sight); the whole is in the State tab and `y` (raw JSON).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from agent_tui.text.fit import cut_end
from agent_tui.threads.failure import failure_of
from agent_tui.tui.widgets.resource_table import status_text
from agent_tui.tui.widgets.text import server_text

if TYPE_CHECKING:
    from agent_tui.tui.screens.thread_view.sync import ThreadSync


PART_LIMIT = 60  # characters of the graph's name or the thread id
FAILURE_LIMIT = 160  # characters of why the thread failed


class ThreadHeader(Static):
    """One line that keeps the thread's status in view (the screen refreshes it)."""

    def show(self, sync: ThreadSync, progress: str = "") -> None:
        """Draw `sync`'s thread (or why it failed to load) and `progress`, when any."""
        text = Text("Thread ", style="bold")
        text.append_text(server_text(cut_end(sync.thread_id, PART_LIMIT), style="bold"))
        if sync.thread is not None:
            text.append("  ")
            text.append_text(status_text(sync.thread.status))
            graph = sync.thread.metadata.get("graph_id")
            if graph:
                text.append("  graph ", style="dim")
                text.append_text(server_text(cut_end(str(graph), PART_LIMIT)))
        elif sync.failure:
            text.append("  ")
            text.append_text(server_text(cut_end(sync.failure, FAILURE_LIMIT), style="bold red"))
        loaded = len(sync.history.rows)
        more = "" if sync.history.exhausted else "+"
        text.append(f"  {loaded}{more} checkpoints", style="dim")
        if progress:
            text.append("  ")
            text.append_text(server_text(cut_end(progress, PART_LIMIT), style="bold yellow"))
        if sync.thread is not None and sync.thread.status == "error":
            newest = (
                sync.history.state(sync.history.rows[0].checkpoint_id)
                if sync.history.rows
                else None
            )
            latest = newest.tasks if newest is not None else ()
            failure = failure_of(sync.thread, latest)
            if failure is not None:
                text.append("  ")
                text.append_text(server_text(cut_end(failure.line(), FAILURE_LIMIT), style="red"))
        self.update(text, layout=False)  # one line, the screen's width (screen.tcss)
