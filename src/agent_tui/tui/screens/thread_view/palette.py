"""The thread view's commands in the palette (`ctrl+p`): name, what it does, and the
screen's method it calls (`ThreadViewScreen.palette_commands`); the chat's follow."""

from __future__ import annotations

THREAD_VIEW_COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("Fork from this checkpoint…", "Edit the state as JSON, continue", "action_fork"),
    ("Run from this checkpoint", "Replay with no input: a new branch", "action_replay"),
    ("Diff checkpoints", "Against the parent or the mark", "action_diff"),
    ("Fork tree", "Branches by parent id", "action_tree"),
    ("Timeline", "The supersteps as a waterfall: the slow node (T)", "action_timeline"),
    ("Calls", "Every model and tool call of the run, traced here (C)", "action_calls"),
    ("Graph pane", "The run lit on the graph (v)", "action_graph"),
    ("Runs of this thread", "Status, duration; join or cancel (R)", "action_runs"),
    ("Memory of this thread", "Store namespaces naming it or its assistant (M)", "action_memory"),
    ("Crons of this thread", "Its runs on a schedule; n adds one", "open_crons"),
    ("Export thread…", "Write the history as JSON", "action_export"),
    ("Import thread…", "A thread export as a new thread", "action_import"),
)
