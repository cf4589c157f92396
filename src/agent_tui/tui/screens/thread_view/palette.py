"""The thread view's commands in the palette (`ctrl+p`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.tui.palette import PaletteCommand

if TYPE_CHECKING:
    from collections.abc import Iterable

    from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen


def thread_view_commands(screen: ThreadViewScreen) -> Iterable[PaletteCommand]:
    """Each verb of the view with what it does, then the chat's."""
    commands = [
        ("Fork from this checkpoint…", "Edit the state as JSON, continue", screen.action_fork),
        ("Run from this checkpoint", "Replay with no input: a new branch", screen.action_replay),
        ("Diff checkpoints", "Against the parent or the mark", screen.action_diff),
        ("Fork tree", "Branches by parent id", screen.action_tree),
        ("Timeline", "The supersteps as a waterfall: the slow node (T)", screen.action_timeline),
        ("Calls", "Every model and tool call of the run, traced here (C)", screen.action_calls),
        ("Graph pane", "The run lit on the graph (v)", screen.action_graph),
        ("Runs of this thread", "Status, duration; join or cancel (R)", screen.action_runs),
        (
            "Memory of this thread",
            "Store namespaces naming it or its assistant (M)",
            screen.action_memory,
        ),
        ("Crons of this thread", "Its runs on a schedule; n adds one", screen.open_crons),
        ("Export thread…", "Write the history as JSON", screen.action_export),
        ("Import thread…", "A thread export as a new thread", screen.action_import),
    ]
    for name, help_text, callback in commands:
        yield PaletteCommand(name, help_text, callback)
    yield from screen.chat_controls.palette_commands()
