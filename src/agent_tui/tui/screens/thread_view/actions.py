"""Time travel and files for the thread view: fork (`f`), replay (`p`), export (`x`), import (`i`).

A part the screen (screen.py) owns, working on the checkpoint selected in the history
(`HistoryBrowser`, browser.py), which it reloads after a change. Fork, replay and import
change the server, so they ask `refuse_if_readonly` first; export only reads.

- Fork: the state at the selected checkpoint opens in `$EDITOR` as JSON (tui/editor.py). Only
  what the user changed is sent (`history.delta_values`: a list that grew sends the new
  items, as the graph's reducers expect), written as the node picked in `AsNodeScreen`
  (default: the checkpoint's writer), on top of that checkpoint. The new branch's
  checkpoint is then selected.
- Import (`i`): a thread export file becomes a new thread here (`threads.export`), which opens.
- Replay: a run with no input from the selected checkpoint, streamed in a worker; the
  header shows progress (the nodes as they run); when it ends the new head is selected.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.client import ApiError
from agent_tui.client.events import ErrorEvent, UpdatesEvent
from agent_tui.settings.atomic_file import write_text_atomically
from agent_tui.text.sanitize import clean_text
from agent_tui.threads.export import (
    ExportError,
    dump_export,
    export_thread,
    import_thread,
    load_export,
)
from agent_tui.threads.failure import Failure, thread_failure
from agent_tui.threads.history import HistoryRow
from agent_tui.threads.writes import delta_values
from agent_tui.tui import editor
from agent_tui.tui.chat.pane import ChatPane
from agent_tui.tui.chat.thread_inputs import AsNodeScreen, PathScreen
from agent_tui.tui.screens.thread_view.workers import start
from agent_tui.tui.widgets.inert import editable_json

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual.app import App

    from agent_tui.tui.agent_screen import AgentScreen
    from agent_tui.tui.screens.thread_view.browser import HistoryBrowser
    from agent_tui.tui.screens.thread_view.sync import ThreadSync


def graph_nodes(rows: list[HistoryRow]) -> list[str]:
    """The graph's nodes as far as the history shows them (writers and next), in order."""
    nodes: list[str] = []
    for row in reversed(rows):
        for name in (*row.writers, *row.next):
            if name and not name.startswith("__") and name not in nodes:
                nodes.append(name)
    return nodes


def default_as_node(row: HistoryRow, nodes: list[str]) -> str | None:
    for name in row.writers:
        if name in nodes:
            return name
    return nodes[0] if nodes else None


def _write(path: str, text: str) -> Path:
    target = Path(path).expanduser()
    write_text_atomically(target, text)
    return target


def _read(path: str) -> str:
    return Path(path).expanduser().read_text(encoding="utf-8")


class TimeTravel:
    """The verbs that make new checkpoints or threads, or write the thread to a file."""

    def __init__(
        self,
        screen: AgentScreen[None],
        sync: ThreadSync,
        browser: HistoryBrowser,
        *,
        open_thread: Callable[[str], None],
    ) -> None:
        """`open_thread`: the screen's way to show another thread (an imported one)."""
        self.screen = screen
        self.sync = sync
        self.client = sync.client
        self.thread_id = sync.thread_id
        self.history = sync.history
        self.browser = browser
        self.open_thread = open_thread

    @property
    def app(self) -> App[Any]:
        """The screen's app (its editor, its modals, its settings)."""
        return self.screen.app

    def run_breakpoints(self) -> dict[str, Any]:
        """The chat's breakpoints, which a replay carries too (`interrupt_before`…)."""
        panes = self.screen.query(ChatPane)
        return panes.first().breakpoints.run_kwargs() if panes else {}

    def replay_ended(self, step: int | None) -> None:
        """A replay ended: the chat shows the branch it made (and a breakpoint it may
        wait at now)."""
        if not self.chat_follows(f"Ran from step {step}: the chat shows the branch it made."):
            panes = self.screen.query(ChatPane)
            if panes:
                panes.first().check_pause()

    def chat_follows(self, why: str) -> bool:
        """The thread is on another checkpoint now: the chat shows its messages and says
        why. False when the chat has not loaded yet (it loads the state when first seen)."""
        panes = self.screen.query(ChatPane)
        if not panes or not panes.first().loaded:
            return False
        panes.first().load_transcript(why)
        return True

    # -- fork -------------------------------------------------------------------------

    def fork(self) -> None:
        row = self.browser.selected_row
        if row is None or self.screen.refuse_if_readonly("fork a thread"):
            return
        start(self.screen, "thread-fork", self._fork, row)

    async def _fork(self, row: HistoryRow) -> None:
        try:
            original = (await self.sync.history.load_state(row.checkpoint_id)).values
        except ApiError as error:
            self.screen.report_error(error, doing="read the checkpoint")
            return
        text = editable_json(original, default=str)
        title = f"Fork at step {row.step}: the state as JSON (save to continue)"
        while True:
            edited = await editor.edit_text(self.app, text, title=title)
            if edited is None:
                return
            try:
                values: Any = json.loads(edited)
            except json.JSONDecodeError as error:
                self.screen.notify(
                    f"Not JSON ({error}); your text is kept, fix it and save again.",
                    title="Fork",
                    severity="error",
                    markup=False,
                )
                text = edited
                continue
            if isinstance(values, dict):
                break
            self.screen.notify("The state must be a JSON object.", severity="error", markup=False)
            text = edited
        update = delta_values(original, values)
        if not update:
            self.screen.notify("Nothing changed: no fork made.", title="Fork", markup=False)
            return
        nodes = graph_nodes(self.history.rows)
        as_node = await self.app.push_screen_wait(
            AsNodeScreen(nodes, default_as_node(row, nodes), step=row.step)
        )
        if as_node is None:
            return
        try:
            result = await self.client.threads.update_state(
                self.thread_id, update, as_node=as_node, checkpoint_id=row.checkpoint_id
            )
        except ApiError as error:
            self.screen.report_error(error, doing=f"fork at step {row.step}")
            return
        new_id = result.checkpoint.checkpoint_id
        await self.browser.reload_newer(select=new_id)
        self.chat_follows(f"Forked at step {row.step} as {as_node}: the chat shows the new branch.")
        self.screen.notify(
            f"Forked at step {row.step} as {as_node}: p runs from the new checkpoint.",
            title="Fork",
            markup=False,
        )

    # -- replay -----------------------------------------------------------------------

    def replay(self) -> None:
        row = self.browser.selected_row
        if row is None or self.screen.refuse_if_readonly("replay from a checkpoint"):
            return
        if self.sync.assistant_id is None:
            self.screen.notify(
                "This thread's metadata names no graph or assistant to run.",
                title="Replay",
                severity="error",
                markup=False,
            )
            return
        start(self.screen, "thread-replay", self._replay, row)

    async def _replay(self, row: HistoryRow) -> None:
        assistant = self.sync.assistant_id or ""
        context = self.screen.agent_app.context_overrides.context_for_run(assistant)
        ran: list[str] = []
        said: Failure | None = None  # the stream's error event
        self.browser.set_progress(f"running from step {row.step}…")
        try:
            async with self.client.runs.stream(
                self.thread_id,
                assistant,
                input=None,
                checkpoint_id=row.checkpoint_id,
                context=context,
                stream_mode=("updates",),
                **self.run_breakpoints(),
            ) as run:
                async for event in run:
                    if isinstance(event, UpdatesEvent):
                        ran += [node for node in event.updates if not node.startswith("__")]
                        self.browser.set_progress(
                            f"running from step {row.step}: {' → '.join(ran)}"
                        )
                    elif isinstance(event, ErrorEvent):
                        said = Failure(event.error, event.message)
        except ApiError as error:
            self.screen.report_error(error, doing=f"run from step {row.step}")
        finally:
            self.browser.set_progress("")
        if said is not None:
            await self._say_failed(said)
        await self.browser.reload_newer(select=None)
        self.replay_ended(row.step)
        self.screen.notify(
            f"Ran from step {row.step}: {', '.join(ran) or 'nothing to run'}.",
            title="Replay",
            markup=False,
        )

    async def _say_failed(self, said: Failure) -> None:
        """The stream's error event names the type, often not the exception's own words:
        the thread's state has them, and the node."""
        try:
            failure = await thread_failure(self.client, self.thread_id, said=said) or said
        except ApiError:
            failure = said
        self.screen.notify(
            clean_text(failure.line()), title="The run failed", severity="error", markup=False
        )

    # -- export -----------------------------------------------------------------------

    def export(self) -> None:
        def chosen(path: str | None) -> None:
            if path:
                start(self.screen, "thread-export", self._export, path)

        path = PathScreen(
            f"./thread-{self.thread_id}.json",
            title="Export the thread to a JSON file",
            hint="enter writes the file · esc cancels",
        )
        self.app.push_screen(path, chosen)

    async def _export(self, path: str) -> None:
        self.browser.set_progress("exporting…")
        try:
            data = await export_thread(self.client, self.thread_id)
            text = dump_export(data)
            target = await asyncio.to_thread(_write, path, text)
        except (ApiError, ExportError, OSError) as error:
            self.screen.report_error(error, doing=f"export the thread to {path}")
            return
        finally:
            self.browser.set_progress("")
        count = len(data["checkpoints"])
        self.screen.notify(
            f"Exported {count} checkpoints to {target}", title="Export", markup=False
        )

    # -- import -----------------------------------------------------------------------

    def import_thread(self) -> None:
        if self.screen.refuse_if_readonly("import a thread"):
            return

        def chosen(path: str | None) -> None:
            if path:
                start(self.screen, "thread-import", self._import, path)

        path = PathScreen(
            f"./thread-{self.thread_id}.json",
            title="Import a thread export (a new thread on this server)",
            hint="enter imports · esc cancels · the format of agent-tui export",
        )
        self.app.push_screen(path, chosen)

    async def _import(self, path: str) -> None:
        self.browser.set_progress("importing…")
        try:
            text = await asyncio.to_thread(_read, path)
            thread = await import_thread(self.client, load_export(text))
        except (ApiError, ExportError, OSError) as error:
            self.screen.report_error(error, doing=f"import {path}")
            return
        finally:
            self.browser.set_progress("")
        self.screen.notify(
            f"Imported {path} as thread {thread.thread_id}", title="Import", markup=False
        )
        self.open_thread(thread.thread_id)
