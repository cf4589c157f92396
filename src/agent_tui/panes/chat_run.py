"""One chat run, from `enter` (or an interrupt's Resume) to its end: the body of the chat
pane's run worker.

`chat.session.ChatSession` does the folding: it shows the human message at once, turns
each driver event into transcript changes, rejoins a dropped stream, and reconciles the
transcript with the thread's final state. This drives it from the pane: the prompt is
cleared only once the server has taken the run (its first event), so a refused or failed
send keeps the draft; each step's changes go to the transcript widget and each event to
the inspector (events a rejoin replayed are skipped by both, see `ChatSession`) — the
hot path, kept to those calls; the state line follows the run.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Protocol

from agent_tui.assistant_versions import overrides_of
from agent_tui.chat.assistant import ChatAssistant, named_by, only_graph
from agent_tui.chat.driver_events import (
    Finished,
    Received,
    Reconnecting,
    RunAlreadyActive,
    RunGone,
)
from agent_tui.client import ApiError
from agent_tui.modals.assistant_picker import AssistantPickerScreen

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from textual.app import App
    from textual.notifications import SeverityLevel

    from agent_tui.chat.breakpoints import ThreadBreakpoints
    from agent_tui.chat.items import InterruptItem, RunState
    from agent_tui.chat.session import ChatSession, Step
    from agent_tui.chat.transcript_model import ChatTranscript
    from agent_tui.client import AgentServerClient
    from agent_tui.widgets.chat_prompt import PromptArea
    from agent_tui.widgets.chat_transcript import TranscriptView
    from agent_tui.widgets.event_inspector import EventInspector


class GivesBack(Protocol):
    def give_back(self, text: str, reason: str) -> None: ...


class RunHost(Protocol):
    """What a run needs of the chat pane that hosts it (`ChatPane` is the one), so that
    this module does not import the pane's."""

    client: AgentServerClient
    thread_id: str
    session: ChatSession
    model: ChatTranscript
    run_state: RunState
    thread_status: str | None
    assistant: ChatAssistant | None
    breakpoints: ThreadBreakpoints

    @property
    def queue(self) -> GivesBack: ...
    @property
    def app(self) -> App[object]: ...
    @property
    def transcript(self) -> TranscriptView: ...
    @property
    def prompt(self) -> PromptArea: ...
    @property
    def inspector(self) -> EventInspector: ...
    @property
    def stream_modes(self) -> tuple[str, ...]: ...

    def use_assistant(self, assistant: ChatAssistant) -> None: ...
    def set_state(self, state: RunState, detail: str = "") -> None: ...
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


def wire_data(data: Any) -> str:
    """An event's data as the inspector shows and saves it: the JSON text."""
    if data is None:
        return ""
    if isinstance(data, str):
        return data
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)


async def choose_assistant(pane: RunHost) -> ChatAssistant | None:
    """The assistant to run: the pane's, else the one the thread's metadata names, else
    the only graph, else the user picks."""
    if pane.assistant is not None:
        return pane.assistant
    # The thread view may not have loaded the thread yet: its metadata comes first.
    thread = await pane.client.threads.get(pane.thread_id)
    found = named_by(thread.metadata) or await only_graph(pane.client)
    if found is None:
        picked = await pane.app.push_screen_wait(
            AssistantPickerScreen(pane.client, overrides=overrides_of(pane.app))
        )
        if picked is None:
            return None
        found = picked
    pane.use_assistant(found)
    return found


class ChatRun:
    """`text`: a human message to send; else `resume` answers `interrupt`; else `join`
    follows a run already on the thread (started elsewhere), replayed from its start;
    else (`go_on`) the paused thread runs on with no input, to its next breakpoint, or
    (`step`) to just before its next node. Every run but a join carries the pane's
    breakpoints (`breakpoint_kwargs`).
    `queued`: `text` was queued and is no longer in the prompt (which may hold the next
    draft): the prompt is left alone, and a failed send gives the text back."""

    def __init__(
        self,
        pane: RunHost,
        *,
        text: str | None = None,
        resume: Any = None,
        interrupt: InterruptItem | None = None,
        join: str | None = None,
        queued: bool = False,
        go_on: bool = False,
        step: bool = False,
    ) -> None:
        self.pane = pane
        self.text = text
        self.resume = resume
        self.interrupt = interrupt
        self.join = join
        self.queued = queued
        self.go_on = go_on or step
        chosen = pane.breakpoints
        self.breakpoint_kwargs = chosen.step_kwargs() if step else chosen.run_kwargs()
        self.accepted = False  # the server took the run (its first event arrived)
        self.state: RunState | None = None  # how it ended; None: it never started

    async def follow(self) -> None:
        pane = self.pane
        if self.join is not None:
            try:
                await self._follow(pane.session.join(self.join))
            except ApiError as error:
                pane.set_state("idle")
                pane.screen_report(error, "follow the thread's run")
            return
        try:
            assistant = await choose_assistant(pane)
        except ApiError as error:
            pane.set_state("idle")
            pane.screen_report(error, "find an assistant to run")
            self._give_back()
            return
        if assistant is None:
            pane.set_state("idle")
            pane.notify("No assistant picked: nothing sent.", markup=False)
            self._give_back()
            return
        # A pinned version (or the set-latest bug) rides on run-level overrides.
        context = assistant.context_for_run(overrides_of(pane.app))
        config = assistant.config_for_run()
        session, modes = pane.session, pane.stream_modes
        steps: AsyncIterator[Step]
        if self.text is not None:
            steps = session.send(
                assistant.assistant_id,
                self.text,
                stream_modes=modes,
                context=context,
                config=config,
                **self.breakpoint_kwargs,
            )
        elif self.go_on:
            steps = session.run(
                assistant.assistant_id,
                stream_modes=modes,
                context=context,
                config=config,
                **self.breakpoint_kwargs,
            )
        else:
            steps = session.resume(
                assistant.assistant_id,
                self.resume,
                interrupt=self.interrupt,
                stream_modes=modes,
                context=context,
                config=config,
                **self.breakpoint_kwargs,
            )
        try:
            await self._follow(steps)
        except RunAlreadyActive as error:
            pane.set_state("idle")
            pane.notify(str(error), title="Not sent", severity="warning", markup=False)
            self._give_back()
        except ApiError as error:
            pane.set_state("idle")
            pane.screen_report(error, self._doing)
            self._give_back()

    @property
    def _doing(self) -> str:
        if self.text is not None:
            return "send the message"
        return "continue the run" if self.go_on else "resume the run"

    def _give_back(self) -> None:
        if self.queued and self.text is not None:
            self.pane.queue.give_back(self.text, "The queued message was not sent")

    async def _follow(self, steps: AsyncIterator[Step]) -> None:
        pane = self.pane
        transcript, model, inspector = pane.transcript, pane.model, pane.inspector
        async for event, changes in steps:
            if changes:
                transcript.apply(changes)
            if isinstance(event, Received):
                if event.duplicate:
                    continue  # replayed by a rejoin: already in the inspector
                run_event = event.event
                inspector.add(
                    event.elapsed_s, run_event.raw_event, run_event.id, wire_data(run_event.data)
                )
            elif event is None:
                continue
            elif isinstance(event, Reconnecting):
                pane.set_state("reconnecting", f"attempt {event.attempt}")
                pane.notify(
                    f"The connection dropped ({event.reason}): rejoining the run…",
                    title="Reconnecting",
                    severity="warning",
                    markup=False,
                )
                continue
            elif isinstance(event, RunGone):
                pane.notify(
                    f"The run is gone from the server ({event.message}): reloaded the thread.",
                    title="Run gone",
                    severity="warning",
                    markup=False,
                )
            elif isinstance(event, Finished):
                self.state = event.state
                pane.thread_status = event.thread_status or pane.thread_status
                pane.set_state(event.state, event.reason or "")
                continue
            if not self.accepted:
                self.accepted = True
                if self.text is not None and not self.queued:
                    pane.prompt.accept()
            if model.state != pane.run_state:
                pane.set_state(model.state)
