"""The chat pane's state line: the run's state, the thread's status and the assistant,
with what rides on the next run (stream modes, breakpoints, a queued message)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.text import Text

from agent_tui.chat.run_request import DEFAULT_STREAM_MODES
from agent_tui.tui.widgets.resource_table import status_text
from agent_tui.tui.widgets.text import server_text

if TYPE_CHECKING:
    from agent_tui.chat.assistant import ChatAssistant
    from agent_tui.chat.breakpoints import ThreadBreakpoints
    from agent_tui.chat.run_machine import RunMachine
    from agent_tui.threads.failure import Failure

STATE_STYLES: dict[str, str] = {
    "idle": "dim",
    "starting": "yellow",
    "running": "bold yellow",
    "reconnecting": "bold magenta",
    "interrupted": "bold magenta",
    "paused": "bold cyan",
    "done": "green",
    "error": "bold red",
    "cancelled": "yellow",
}


def state_line(
    machine: RunMachine,
    *,
    thread_status: str | None,
    failure: Failure | None,
    assistant: ChatAssistant | None,
    modes: Sequence[str],
    breakpoints: ThreadBreakpoints,
) -> Text:
    """The line above the transcript. `failure`: why the thread is in error, if it is;
    `modes`: the stream modes of the next run (said only when not the default ones)."""
    text = Text()
    state = machine.state
    label = "reconnecting…" if state == "reconnecting" else state
    text.append(label, style=STATE_STYLES.get(state, ""))
    if machine.detail:
        text.append(" ")
        text.append_text(server_text(f"({machine.detail})", style="dim"))
    text.append("  thread ", style="dim")
    text.append_text(status_text(thread_status or "—"))
    if thread_status == "error" and failure is not None and not machine.active:
        # Type and node; the exception's own words are in the transcript's error block.
        text.append_text(server_text(f" ({failure.where()})", style="red"))
    text.append("  assistant ", style="dim")
    if assistant is not None:
        text.append_text(server_text(assistant.shown, style="bold"))
    else:
        text.append("none yet (f4 picks one)", style="dim")
    if modes and set(modes) != set(DEFAULT_STREAM_MODES):
        text.append("  modes ", style="dim")
        text.append(", ".join(modes))
    if breakpoints.active:
        text.append("  ")
        text.append(breakpoints.summary(), style="bold magenta")
    if machine.queued is not None:
        how = machine.queued_how
        waiting = "1 message queued" if how == "queue" else f"1 message on the server ({how})"
        text.append(f"  {waiting}", style="italic")
    if machine.cancellable:
        text.append("  esc/ctrl+c cancels", style="dim")
    return text
