"""The chat's breakpoints and pauses: what the pane calls, kept out of the pane's module.

The chosen breakpoints (`chat.breakpoints.ThreadBreakpoints`) live on the pane, one set
per thread's chat, and every run the chat starts carries them (`ChatRun`). `b` opens
`BreakpointsScreen` (`choose`). When a run ends `interrupted`, `show_pause` asks the
thread where it waits: at a breakpoint the chat says `paused before NODE` (or after) and
the paused bar (`tui/chat/paused.py`) takes the focus for `c` / `s` / `esc`; an
`interrupt()` question is left to its own block in the transcript.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Protocol

from agent_tui.chat.breakpoints import ThreadBreakpoints, pause_of, pause_text
from agent_tui.chat.items import InterruptItem
from agent_tui.client import ApiError
from agent_tui.threads.writes import delta_values
from agent_tui.tui import editor
from agent_tui.tui.chat.breakpoints_modal import BreakpointsScreen
from agent_tui.tui.widgets.inert import editable_json

if TYPE_CHECKING:
    from textual.app import App
    from textual.notifications import SeverityLevel

    from agent_tui.chat.session import ChatSession
    from agent_tui.chat.transcript_model import ChatTranscript
    from agent_tui.client import AgentServerClient
    from agent_tui.tui.chat.paused import PausedBar
    from agent_tui.tui.chat.transcript import TranscriptView


class PauseHost(Protocol):
    """What this needs of the chat pane (`ChatPane`), so that it does not import it."""

    client: AgentServerClient
    thread_id: str
    model: ChatTranscript
    breakpoints: ThreadBreakpoints

    @property
    def session(self) -> ChatSession: ...

    @property
    def app(self) -> App[object]: ...
    @property
    def transcript(self) -> TranscriptView: ...
    @property
    def paused_bar(self) -> PausedBar: ...

    def show_state(self) -> None: ...
    def screen_report(self, error: BaseException, doing: str) -> None: ...
    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None: ...


def choose(pane: PauseHost, assistant_id: str) -> None:
    """Open the breakpoints modal; the choice applies to the next runs."""

    def chosen(breakpoints: ThreadBreakpoints | None) -> None:
        if breakpoints is None:
            return
        pane.breakpoints = breakpoints
        pane.show_state()
        summary = breakpoints.summary() or "no breakpoints"
        pane.notify(f"Runs on this thread: {summary}", title="Breakpoints", markup=False)

    pane.app.push_screen(BreakpointsScreen(pane.client, assistant_id, pane.breakpoints), chosen)


async def edit_paused_state(pane: PauseHost) -> bool:
    """`e` on a pause: the thread's state opens as JSON (as the fork editor does); what
    changed is written on top of the paused checkpoint (as the node that wrote it last,
    which the server works out). True when the run may go on (False: cancelled)."""
    try:
        state = await pane.client.threads.get_state(pane.thread_id)
    except ApiError as error:
        pane.screen_report(error, "read the paused state")
        return False
    text = editable_json(state.values, default=str)
    title = "The paused state as JSON (save to continue the run)"
    while True:
        edited = await editor.edit_text(pane.app, text, title=title)
        if edited is None:
            return False
        try:
            values = json.loads(edited)
        except json.JSONDecodeError as error:
            pane.notify(
                f"Not JSON ({error}); fix it and save again.", severity="error", markup=False
            )
            text = edited
            continue
        if isinstance(values, dict):
            break
        pane.notify("The state must be a JSON object.", severity="error", markup=False)
        text = edited
    update = delta_values(state.values, values)
    if update:
        try:
            await pane.client.threads.update_state(pane.thread_id, update)
        except ApiError as error:
            pane.screen_report(error, "write the edited state")
            return False
    return True


def asks(model: ChatTranscript) -> bool:
    """The transcript shows an interrupt() question still waiting for its answer."""
    return any(isinstance(item, InterruptItem) and not item.answered for item in model.items)


async def show_pause(pane: PauseHost, run_kwargs: dict[str, Any], *, focus: bool = True) -> None:
    """The run stopped early: if at a breakpoint, say where and offer the keys (`focus`:
    the paused bar takes the focus, as when the user's own run just stopped)."""
    try:
        waiting = await pause_of(
            pane.client,
            pane.thread_id,
            before=run_kwargs.get("interrupt_before"),
            after=run_kwargs.get("interrupt_after"),
        )
    except ApiError as error:
        if focus:  # the user's own run; else the chat shows what it has, quietly
            pane.screen_report(error, "read where the run paused")
        return
    text = pause_text(waiting)
    if text is None or not (waiting.next or waiting.pause):
        # An interrupt() question (its block asks it), or nothing to wait for.
        pane.paused_bar.clear()
        return
    pane.transcript.apply(pane.model.notice(text))
    pane.paused_bar.pause(text)
    pane.session.paused_at(text.removeprefix("paused "))
    if focus:
        pane.paused_bar.focus()
