"""Time travel and files for the thread view: fork (`f`), replay (`p`), export (`x`), import (`i`).

The base class of `ThreadViewScreen` (screen.py), which owns the history, the history pane
and `reload_newer(select=...)`. Fork and replay change the thread, so both ask
`refuse_if_readonly` first; export only reads.

- Fork: the state at the selected checkpoint opens in `$EDITOR` as JSON (editor.py). Only
  what the user changed is sent (`history.delta_values`: a list that grew sends the new
  items, as the graph's reducers expect), written as the node picked in `AsNodeScreen`
  (default: the checkpoint's writer), on top of that checkpoint. The new branch's
  checkpoint is then selected.
- Import (`i`): a thread export file becomes a new thread here (`thread_export`), which opens.
- Replay: a run with no input from the selected checkpoint, streamed in a worker; the
  header shows progress (the nodes as they run); when it ends the new head is selected.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import work

from agent_tui import editor
from agent_tui.agent_screen import AgentScreen
from agent_tui.client import ApiError
from agent_tui.client.events import ErrorEvent, UpdatesEvent
from agent_tui.history import HistoryRow, delta_values
from agent_tui.modals.thread_inputs import AsNodeScreen, PathScreen
from agent_tui.thread_export import (
    ExportError,
    dump_export,
    export_thread,
    import_thread,
    load_export,
)

if TYPE_CHECKING:
    from agent_tui.client import AgentServerClient
    from agent_tui.history import ThreadHistory


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
    target.write_text(text, encoding="utf-8")
    return target


def _read(path: str) -> str:
    return Path(path).expanduser().read_text(encoding="utf-8")


class ThreadActions(AgentScreen[None]):
    """The base of `ThreadViewScreen`: the verbs; the screen provides what they work on."""

    client: AgentServerClient
    thread_id: str
    history: ThreadHistory

    @property
    def selected_row(self) -> HistoryRow | None:
        raise NotImplementedError

    @property
    def assistant_id(self) -> str | None:
        raise NotImplementedError

    def set_progress(self, text: str) -> None:
        raise NotImplementedError

    async def reload_newer(self, select: str | None) -> None:
        raise NotImplementedError

    def run_breakpoints(self) -> dict[str, Any]:
        """The chat's breakpoints, which a replay carries too (`interrupt_before`…)."""
        return {}

    def replay_ended(self) -> None:
        """A replay ended: the thread may wait at a breakpoint now."""

    # -- fork -------------------------------------------------------------------------

    def action_fork(self) -> None:
        row = self.selected_row
        if row is None or self.refuse_if_readonly("fork a thread"):
            return
        self._fork(row)

    @work(exclusive=True, group="thread-fork", exit_on_error=False)
    async def _fork(self, row: HistoryRow) -> None:
        original = row.state.values
        text = json.dumps(original, indent=2, ensure_ascii=False, default=str)
        title = f"Fork at step {row.step}: the state as JSON (save to continue)"
        while True:
            edited = await editor.edit_text(self.app, text, title=title)
            if edited is None:
                return
            try:
                values: Any = json.loads(edited)
            except json.JSONDecodeError as error:
                self.notify(
                    f"Not JSON ({error}); your text is kept, fix it and save again.",
                    title="Fork",
                    severity="error",
                    markup=False,
                )
                text = edited
                continue
            if isinstance(values, dict):
                break
            self.notify("The state must be a JSON object.", severity="error", markup=False)
            text = edited
        update = delta_values(original, values)
        if not update:
            self.notify("Nothing changed: no fork made.", title="Fork", markup=False)
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
            self.report_error(error, doing=f"fork at step {row.step}")
            return
        new_id = result.checkpoint.checkpoint_id
        await self.reload_newer(select=new_id)
        self.notify(
            f"Forked at step {row.step} as {as_node}: p runs from the new checkpoint.",
            title="Fork",
            markup=False,
        )

    # -- replay -----------------------------------------------------------------------

    def action_replay(self) -> None:
        row = self.selected_row
        if row is None or self.refuse_if_readonly("replay from a checkpoint"):
            return
        if self.assistant_id is None:
            self.notify(
                "This thread's metadata names no graph or assistant to run.",
                title="Replay",
                severity="error",
                markup=False,
            )
            return
        self._replay(row)

    @work(exclusive=True, group="thread-replay", exit_on_error=False)
    async def _replay(self, row: HistoryRow) -> None:
        assistant = self.assistant_id or ""
        overrides = getattr(self.app, "context_overrides", None)
        context = overrides.context_for_run(assistant) if overrides is not None else None
        ran: list[str] = []
        self.set_progress(f"running from step {row.step}…")
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
                        self.set_progress(f"running from step {row.step}: {' → '.join(ran)}")
                    elif isinstance(event, ErrorEvent):
                        self.notify(
                            f"{event.error}: {event.message}",
                            title="The run failed",
                            severity="error",
                            markup=False,
                        )
        except ApiError as error:
            self.report_error(error, doing=f"run from step {row.step}")
        finally:
            self.set_progress("")
        await self.reload_newer(select=None)
        self.replay_ended()
        self.notify(
            f"Ran from step {row.step}: {', '.join(ran) or 'nothing to run'}.",
            title="Replay",
            markup=False,
        )

    # -- export -----------------------------------------------------------------------

    def action_export(self) -> None:
        def chosen(path: str | None) -> None:
            if path:
                self._export(path)

        path = PathScreen(
            f"./thread-{self.thread_id}.json",
            title="Export the thread to a JSON file",
            hint="enter writes the file · esc cancels",
        )
        self.app.push_screen(path, chosen)

    @work(exclusive=True, group="thread-export", exit_on_error=False)
    async def _export(self, path: str) -> None:
        self.set_progress("exporting…")
        try:
            data = await export_thread(self.client, self.thread_id)
            text = dump_export(data)
            target = await asyncio.to_thread(_write, path, text)
        except (ApiError, ExportError, OSError) as error:
            self.report_error(error, doing=f"export the thread to {path}")
            return
        finally:
            self.set_progress("")
        count = len(data["checkpoints"])
        self.notify(f"Exported {count} checkpoints to {target}", title="Export", markup=False)

    # -- import -----------------------------------------------------------------------

    def action_import(self) -> None:
        if self.refuse_if_readonly("import a thread"):
            return

        def chosen(path: str | None) -> None:
            if path:
                self._import(path)

        path = PathScreen(
            f"./thread-{self.thread_id}.json",
            title="Import a thread export (a new thread on this server)",
            hint="enter imports · esc cancels · the format of agent-tui export",
        )
        self.app.push_screen(path, chosen)

    @work(exclusive=True, group="thread-import", exit_on_error=False)
    async def _import(self, path: str) -> None:
        self.set_progress("importing…")
        try:
            text = await asyncio.to_thread(_read, path)
            thread = await import_thread(self.client, load_export(text))
        except (ApiError, ExportError, OSError) as error:
            self.report_error(error, doing=f"import {path}")
            return
        finally:
            self.set_progress("")
        self.notify(f"Imported {path} as thread {thread.thread_id}", title="Import", markup=False)
        self.open_thread(thread.thread_id)

    def open_thread(self, thread_id: str) -> None:
        raise NotImplementedError
