"""One chat run, from `enter` (or an interrupt's Resume) to its end: the body of the chat
pane's run worker.

`chat.session.ChatSession` does the folding: it shows the human message at once, turns
each driver event into transcript changes, drops what a rejoin replayed, rejoins a dropped
stream, reconciles the transcript with the thread's final state, and moves the run state
(`chat.run_machine.RunMachine`, which the pane renders). This drives it from the pane and
does only what needs the UI: it picks the assistant (maybe asking the user), clears the
prompt once the server has taken the run (so a refused or failed send keeps the draft),
and hands each step's changes to the transcript widget and each event to the inspector —
the hot path, kept to those calls.
"""

from __future__ import annotations

import contextlib
import json
from typing import TYPE_CHECKING, Any, Protocol

from agent_tui.chat.assistant import ChatAssistant, named_by, only_graph
from agent_tui.chat.driver_events import (
    Finished,
    Received,
    Reconnecting,
    RunAlreadyActive,
    RunGone,
)
from agent_tui.chat.run_machine import GoOn, Intent, Join, Send
from agent_tui.chat.run_request import RunRequest
from agent_tui.client import ApiError
from agent_tui.client.events import EventsEvent
from agent_tui.text.user_json import JsonTextError
from agent_tui.tui.app_contract import agent_app
from agent_tui.tui.chat.assistant_picker import AssistantPickerScreen
from agent_tui.tui.turn_budget import TurnBudget

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator

    from textual.app import App
    from textual.notifications import SeverityLevel

    from agent_tui.chat.breakpoints import ThreadBreakpoints
    from agent_tui.chat.double_text import ServerStrategy
    from agent_tui.chat.run_machine import RunMachine
    from agent_tui.chat.session import ChatSession, Step
    from agent_tui.client import AgentServerClient
    from agent_tui.client.models import Run
    from agent_tui.tui.chat.event_inspector import EventInspector
    from agent_tui.tui.chat.graph_input import GraphInputs, InputError
    from agent_tui.tui.chat.prompt import PromptArea
    from agent_tui.tui.chat.run_calls import RunCalls
    from agent_tui.tui.chat.transcript import TranscriptView


class GivesBack(Protocol):
    def give_back(self, text: str, reason: str) -> None: ...


class RunHost(Protocol):
    """What a run needs of the chat pane that hosts it (`ChatPane` is the one), so that
    this module does not import the pane's."""

    client: AgentServerClient
    thread_id: str
    session: ChatSession
    thread_status: str | None
    assistant: ChatAssistant | None
    breakpoints: ThreadBreakpoints
    graph_inputs: GraphInputs
    calls: RunCalls

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
    def input_error(self) -> InputError: ...
    @property
    def stream_modes(self) -> tuple[str, ...]: ...

    @property
    def machine(self) -> RunMachine: ...

    def use_assistant(self, assistant: ChatAssistant) -> None: ...
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
            AssistantPickerScreen(pane.client, overrides=agent_app(pane.app).context_overrides)
        )
        if picked is None:
            return None
        found = picked
    pane.use_assistant(found)
    return found


async def hand_to_server(pane: RunHost, text: str, how: ServerStrategy) -> Run:
    """Send `text` while a run is active, as a new run the server handles with the
    multitask strategy `how`; the same assistant, overrides, breakpoints and stream
    modes as any run of the pane's. Raises `Conflict` when the server rejects it."""
    assistant = await choose_assistant(pane)
    if assistant is None:
        raise RunNotHandedOver("no assistant picked")
    request = run_request(pane, assistant, pane.breakpoints.run_kwargs())
    try:
        value = await pane.graph_inputs.input_for(assistant, pane.prompt, text)
    except JsonTextError as error:
        pane.input_error.say(str(error))
        raise InputRefused(str(error)) from None
    pane.input_error.say("")
    if value is not None:
        request = request.with_(input=value)
    return await pane.session.hand_over(request, text, how)


def run_request(pane: RunHost, assistant: ChatAssistant, breakpoints: dict[str, Any]) -> RunRequest:
    """A run of the pane's: its assistant with the app's context overrides (a pinned
    version rides on run-level overrides too), its stream modes, `breakpoints`."""
    return RunRequest(
        assistant.assistant_id,
        stream_modes=pane.stream_modes,
        context=assistant.context_for_run(agent_app(pane.app).context_overrides),
        config=assistant.config_for_run(),
        **breakpoints,
    )


class RunNotHandedOver(Exception):
    """The message was not handed to the server (and is still the user's)."""


class InputRefused(RunNotHandedOver):
    """The text is not the input of the graph (which takes no messages): what is wrong
    shows under the prompt, where the text stays."""


class ChatRun:
    """Follows the run the pane began (`intent`) through the session, which owns its
    state: a `Send` sends its text, a `Resume` answers its interrupt, a `Join` follows a
    run already on the thread (started elsewhere), replayed from its start, a `GoOn` runs
    a paused thread on with no input, to its next breakpoint (or, stepping, to just
    before its next node). Every run but a join carries the pane's breakpoints
    (`breakpoints`). A queued `Send` is no longer in the prompt (which may hold the next
    draft): the prompt is left alone, and a failed send gives the text back."""

    def __init__(self, pane: RunHost, intent: Intent) -> None:
        self.pane = pane
        self.intent = intent
        self._prompt_done = False  # the prompt was cleared (or is not ours to clear)
        chosen = pane.breakpoints
        stepping = isinstance(intent, GoOn) and intent.step
        self.breakpoints = chosen.step_kwargs() if stepping else chosen.run_kwargs()

    async def follow(self) -> None:
        """Follow the run to its end; the session ends it (or abandons it, when nothing
        was sent), and on what no step handles it is over, in error, before the worker
        reports it."""
        try:
            await self._follow_intent()
        except Exception:
            if self.pane.machine.active:
                self.pane.session.broke("unexpected error, see the log")
            raise

    async def _follow_intent(self) -> None:
        pane, intent, session = self.pane, self.intent, self.pane.session
        if isinstance(intent, Join):
            try:
                await self._follow(session.follow())
            except ApiError as error:
                pane.screen_report(error, "follow the thread's run")
            return
        try:
            assistant = await choose_assistant(pane)
        except ApiError as error:
            session.abandon()
            pane.screen_report(error, "find an assistant to run")
            self._give_back()
            return
        if assistant is None:
            session.abandon()
            pane.notify("No assistant picked: nothing sent.", markup=False)
            self._give_back()
            return
        request = run_request(pane, assistant, self.breakpoints)
        if isinstance(intent, Send):
            try:
                value = await pane.graph_inputs.input_for(assistant, pane.prompt, intent.text)
            except JsonTextError as error:
                pane.session.abandon()
                pane.input_error.say(str(error))
                self._give_back()
                return
            pane.input_error.say("")
            if value is not None:
                request = request.with_(input=value)
        try:
            await self._follow(session.follow(request))
        except RunAlreadyActive as error:
            pane.notify(str(error), title="Not sent", severity="warning", markup=False)
            self._give_back()
        except ApiError as error:
            pane.screen_report(error, self._doing)
            self._give_back()

    @property
    def _doing(self) -> str:
        if isinstance(self.intent, Send):
            return "send the message"
        return "continue the run" if isinstance(self.intent, GoOn) else "resume the run"

    def _give_back(self) -> None:
        intent = self.intent
        if isinstance(intent, Send) and intent.queued:
            self.pane.queue.give_back(intent.text, "The queued message was not sent")

    async def _follow(self, steps: AsyncGenerator[Step, None]) -> None:
        pane = self.pane
        transcript, machine, inspector = pane.transcript, pane.machine, pane.inspector
        calls = pane.calls
        calls.begin()
        intent = self.intent
        # Only a message typed in the prompt clears it, once the server took the run.
        self._prompt_done = not isinstance(intent, Send) or intent.queued
        # Closed here, whatever a step raises: left to asyncio, the chain of the
        # session's generators would be closed side by side at shutdown.
        async with contextlib.aclosing(steps):
            budget = TurnBudget()
            async for event, changes in steps:
                if budget.spent():
                    # Events already read (a replay, a fast model: a read holds dozens)
                    # come without a pause: keys and drawing get the loop in between,
                    # the more so when the loop is slow (`tui.turn_budget`).
                    await budget.yield_turn()
                if changes:
                    transcript.apply(changes)
                if isinstance(event, Received):
                    run_event = event.event
                    if isinstance(run_event, EventsEvent) and (lines := calls.take(run_event)):
                        transcript.apply(lines)  # a call began or ended (never per token)
                    inspector.add(
                        event.elapsed_s,
                        run_event.raw_event,
                        run_event.id,
                        wire_data(run_event.data),
                    )
                elif isinstance(event, Reconnecting):
                    pane.notify(
                        f"The connection dropped ({event.reason}): rejoining the run…",
                        title="Reconnecting",
                        severity="warning",
                        markup=False,
                    )
                elif isinstance(event, RunGone):
                    pane.notify(
                        f"The run is gone from the server ({event.message}): reloaded the thread.",
                        title="Run gone",
                        severity="warning",
                        markup=False,
                    )
                elif isinstance(event, Finished):
                    pane.thread_status = event.thread_status or pane.thread_status
                    pane.show_state()
                    calls.ended(event.run_id)
                if not self._prompt_done and machine.accepted:
                    self._prompt_done = True
                    pane.prompt.accept()
