"""The chat pane of the thread view: a transcript, the run's state, a prompt, the SSE wire.

Top, the state line (`tui/chat/state_line.py`): run state, thread status, assistant.
Middle, the transcript (`tui/chat/transcript.py`; run totals and, `f5`, each model and
tool call live: `tui/chat/run_calls.py`) and, toggled with `f2` beside it, the event
inspector (`tui/chat/event_inspector.py`; `ctrl+s` saves its events). Bottom, the prompt.

The pane renders the run and sends it the user's intents; it keeps no run state of its
own. The state is the session's `RunMachine`, and the session (`chat/session.py`) alone
moves it through a run: the pane asks it to `begin` an intent (enter: send; an
interrupt's form: resume; the paused bar: go on; a run found on the thread: join), then
follows it with one `RunRequest` in one exclusive worker (`tui/chat/run.py`); the
session ends the run, or abandons it when nothing was sent. "Running" is the machine's
`busy`. The screen hears `RunEnded` and refreshes its history; cancelling is the
screen's key (it must work wherever the focus is): it calls `cancel_run`. One message
can wait for the active run (`tui/chat/queue.py`); the thread's breakpoints ride on
every run, and a pause offers continue / step / edit (`tui/chat/breakpoints.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Static

from agent_tui.chat.assistant import ChatAssistant, description_of, named_by
from agent_tui.chat.breakpoints import ThreadBreakpoints
from agent_tui.chat.double_text import ServerStrategy
from agent_tui.chat.items import RunState
from agent_tui.chat.run_machine import GoOn, Join, Resume, RunMachine, Send
from agent_tui.chat.session import ChatSession
from agent_tui.client import ApiError, NotFound, ValidationFailed
from agent_tui.tui.agent_screen import refuse_if_readonly
from agent_tui.tui.app_contract import agent_app
from agent_tui.tui.chat import breakpoints as chat_breakpoints
from agent_tui.tui.chat import event_export
from agent_tui.tui.chat.event_inspector import EventInspector
from agent_tui.tui.chat.graph_input import GraphInputs, InputError
from agent_tui.tui.chat.hint import empty_chat_hint
from agent_tui.tui.chat.interrupt import InterruptBlock
from agent_tui.tui.chat.paused import PausedBar
from agent_tui.tui.chat.prompt import PromptArea
from agent_tui.tui.chat.queue import BUSY_MESSAGE, MessageQueue
from agent_tui.tui.chat.run import ChatRun
from agent_tui.tui.chat.run_calls import RunCalls
from agent_tui.tui.chat.state_line import state_line
from agent_tui.tui.chat.stream_modes import run_modes
from agent_tui.tui.chat.transcript import TranscriptView
from agent_tui.tui.gc_tuning import streaming
from agent_tui.tui.widgets.worker_failures import ReportsWorkerFailures

if TYPE_CHECKING:
    from agent_tui.client import AgentServerClient
    from agent_tui.client.models import Thread


CHANGED_ELSEWHERE = (
    "The thread changed on the server (a run or an edit elsewhere): it shows its state now."
)


class ChatPane(ReportsWorkerFailures, Vertical):
    """One thread's chat. `thread_loaded(thread)` keeps it told of the thread's status
    and metadata (the screen polls them)."""

    DEFAULT_CSS = """
    ChatPane { height: 1fr; }
    ChatPane #chat-state { height: 1; padding: 0 1; background: $boost; }
    ChatPane #chat-body { height: 1fr; }
    ChatPane #transcript { width: 1fr; }
    ChatPane #inspector { width: 1fr; border-left: solid $primary; display: none; }
    ChatPane.-inspecting #inspector { display: block; }
    ChatPane #prompt { height: auto; max-height: 12; }
    """
    # `f2` (show the inspector) is the thread view's key: it works wherever the focus is.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save_events", "Save events", id="chat.save_events"),
        Binding("f5", "live_calls", "Live calls", show=False, id="chat.live_calls"),
    ]

    class RunEnded(Message):
        """A run ended (done, error, interrupted, cancelled, gone): the thread changed."""

        def __init__(self, state: RunState) -> None:
            super().__init__()
            self.state = state

    def __init__(
        self,
        client: AgentServerClient,
        thread_id: str,
        *,
        assistant: ChatAssistant | None = None,
        load: bool = True,
        id: str | None = None,
    ) -> None:
        """`load=False`: the transcript loads on the first `show()`, not at mount (a long
        thread opened on another tab does not pay for a transcript nobody looks at)."""
        super().__init__(id=id)
        self.client = client
        self.thread_id = thread_id
        self.session = ChatSession(client, thread_id)
        self.model = self.session.transcript
        self.machine.subscribe(self._machine_changed)
        self.thread_status: str | None = None
        self.assistant = assistant
        # True once the assistant was chosen (picked, or given): metadata no longer decides.
        self.chosen = assistant is not None
        self.load_at_mount = load
        self.loaded = False  # the thread's messages were asked for
        self.shown_loaded = False  # … and are shown (an empty chat may say so)
        self.queue = MessageQueue(self)
        self._descriptions: dict[ChatAssistant, str | None] = {}  # for the empty hint
        self.breakpoints = ThreadBreakpoints()  # every run started here carries them
        self.watching_graph = False  # a graph pane shows the runs (they stream `tasks`)
        self.graph_inputs = GraphInputs(client)  # a graph without messages takes JSON
        self.calls = RunCalls(self)  # each call live (`f5`: the events mode), run totals

    def compose(self) -> ComposeResult:
        yield Static(id="chat-state")
        with Horizontal(id="chat-body"):
            yield TranscriptView(client=self.client, thread_id=self.thread_id, id="transcript")
            yield EventInspector(id="inspector")
        yield PausedBar(id="paused")
        yield PromptArea(id="prompt")
        yield InputError(id="prompt-error")

    @property
    def transcript(self) -> TranscriptView:
        return self.query_one(TranscriptView)

    @property
    def prompt(self) -> PromptArea:
        return self.query_one(PromptArea)

    @property
    def input_error(self) -> InputError:
        return self.query_one(InputError)

    @property
    def inspector(self) -> EventInspector:
        return self.query_one(EventInspector)

    @property
    def machine(self) -> RunMachine:
        """The run state (the one owner of it): this pane renders it."""
        return self.session.machine

    @property
    def run_state(self) -> RunState:
        return self.machine.state

    @property
    def paused_bar(self) -> PausedBar:
        return self.query_one(PausedBar)

    @property
    def running(self) -> bool:
        """A run is under way or still settling (the machine is the one source)."""
        return self.machine.busy

    @property
    def stream_modes(self) -> tuple[str, ...]:
        return run_modes(self.app, watching_graph=self.watching_graph)

    def on_mount(self) -> None:
        self.graph_inputs.follow_reloads(self)
        self.show_state()
        if self.load_at_mount:
            self.show()

    def show(self) -> None:
        """The pane is about to be seen: load the thread's messages once."""
        if not self.loaded:
            self.loaded = True
            self.load_transcript()

    # -- what the pane knows about the thread -----------------------------------------

    def thread_loaded(self, thread: Thread) -> None:
        self.thread_status = thread.status
        if not self.chosen:
            self.assistant = named_by(thread.metadata) or self.assistant
        self.show_state()
        if self._changed_elsewhere(thread):
            self.load_transcript(CHANGED_ELSEWHERE)

    def _changed_elsewhere(self, thread: Thread) -> bool:
        """The thread changed since the transcript read it, and not by a run of this
        pane's (a run, a fork or a state edit by another client or another copy)."""
        seen = self.session.seen_updated_at
        return (
            self.shown_loaded
            and not self.running
            and seen is not None
            and thread.updated_at is not None
            and thread.updated_at != seen
            and not any(
                w.node is self and w.group == "chat-load" and w.is_running for w in self.workers
            )
        )

    def use_assistant(self, assistant: ChatAssistant) -> None:
        """The user's choice: later runs use it, whatever the thread's metadata says."""
        self.assistant = assistant
        self.chosen = True
        self.show_state()

    @work(exclusive=True, group="chat-load", exit_on_error=False)
    async def load_transcript(self, why: str | None = None) -> None:
        """Show the thread's messages as its state holds them; `why`: a notice after
        them, saying why the transcript starts over (the thread moved to another branch)."""
        try:
            snapshot = await self.session.read()
        except ApiError as error:
            # The screen reports a missing thread itself; anything else is news.
            if not isinstance(error, NotFound | ValidationFailed):
                self.screen_report(error, "load the thread's messages")
            return
        if self.running:
            return  # a run began meanwhile: its own events and reconcile keep it right
        changes = self.session.show(snapshot)
        if why:
            changes += self.session.transcript.notice(why)
        self.transcript.apply(changes)
        self.shown_loaded = True
        self.thread_status = self.session.thread_status or self.thread_status
        self._machine_changed()  # the session's load set the state: idle or interrupted
        if self.thread_status == "busy":
            await self._join_active_run()
        elif (
            self.thread_status == "interrupted"
            and not self.session.cancelled
            and not chat_breakpoints.asks(self.model)
        ):
            await chat_breakpoints.show_pause(self, self.breakpoints.run_kwargs(), focus=False)

    async def _join_active_run(self) -> None:
        """The thread is running (started elsewhere): follow that run here, live."""
        try:
            runs = await self.client.runs.list(self.thread_id, limit=1, status="running")
        except ApiError:
            return  # the transcript shows the state; the next send says if it is busy
        if runs and not self.running:
            self._start(ChatRun(self, Join(runs[0].run_id)))

    # -- the state line ---------------------------------------------------------------

    def _machine_changed(self) -> None:
        if not self.is_mounted:
            return
        self.show_state()
        self.screen.refresh_bindings()  # the cancel keys come and go with the run

    def show_state(self) -> None:
        if not self.children:
            return  # not composed yet (built a moment ago): drawn at mount
        line = state_line(
            self.machine,
            thread_status=self.thread_status,
            failure=self.session.failure,
            assistant=self.assistant,
            modes=self.stream_modes if self.is_mounted else (),
            breakpoints=self.breakpoints,
        )
        self.query_one("#chat-state", Static).update(line)
        self.show_empty_hint()

    def show_empty_hint(self) -> None:
        if not self.shown_loaded or self.transcript.blocks:
            return
        assistant = self.assistant
        if assistant is not None and assistant not in self._descriptions:
            self._descriptions[assistant] = None
            self._describe(assistant)
        description = self._descriptions.get(assistant) if assistant is not None else None
        readonly = agent_app(self.app).readonly
        hint = empty_chat_hint(assistant, description, readonly=readonly)
        self.transcript.set_empty_hint(hint + self.graph_inputs.hint(assistant))

    @work(group="chat-describe", exit_on_error=False)
    async def _describe(self, assistant: ChatAssistant) -> None:
        await self.graph_inputs.show(assistant, self.prompt, self.thread_id)  # what it takes
        try:
            self._descriptions[assistant] = await description_of(self.client, assistant)
        except ApiError:
            return  # the hint does without it
        self.show_empty_hint()

    # -- sending ----------------------------------------------------------------------

    @on(PromptArea.Submitted)
    def _submitted(self, event: PromptArea.Submitted) -> None:
        event.stop()
        self.send(event.text)

    def send(self, text: str) -> None:
        if not text.strip():
            return
        if refuse_if_readonly(self.app, "run the chat"):
            return
        if self.running:
            self.queue.offer_or_queue(text)
            return
        self._start(ChatRun(self, Send(text)))

    # -- the queued message (chat_queue.py) -------------------------------------------

    @property
    def queued(self) -> str | None:
        """The message sent when the active run ends, if any."""
        return self.machine.queued

    def drop_queued(self) -> bool:
        return self.queue.drop()

    @on(InterruptBlock.Resume)
    def _resume(self, event: InterruptBlock.Resume) -> None:
        event.stop()
        if self.running:
            self.notify(BUSY_MESSAGE, title="Not resumed", severity="warning", markup=False)
            return
        if refuse_if_readonly(self.app, "resume the run"):
            return
        self._start(ChatRun(self, Resume(event.value, event.item)))
        self.prompt.focus()  # the answer's form goes once answered

    def start_run(self, run: ChatRun) -> None:
        """Follow `run` (no run may be active)."""
        self._start(run)

    @work(group="chat-hand-over", exit_on_error=False)
    async def hand_over(self, text: str, how: ServerStrategy) -> None:
        """Send `text` to the server during a run, with the multitask strategy `how`."""
        await self.queue.hand_over(text, how)

    def _start(self, run: ChatRun) -> None:
        self.paused_bar.clear()
        self.session.begin(run.intent)  # "starting" at once; the worker follows it
        self._follow(run)

    @work(exclusive=True, group="chat-run", exit_on_error=False)
    async def _follow(self, run: ChatRun) -> None:
        # One worker for a run and the queued message's run after it: a new exclusive
        # worker started from here would cancel this one.
        next_run: ChatRun | None = run
        while next_run is not None:
            run = next_run
            with streaming():  # no full collection pauses the stream (tui/gc_tuning.py)
                await run.follow()  # the session ends the run (the cancel keys go)
            ended = self.machine.ended  # None: nothing was sent
            if ended == "interrupted":
                await chat_breakpoints.show_pause(self, run.breakpoints)
            if ended is not None:
                self.post_message(self.RunEnded(ended))
            next_run = self.queue.next_run(ended)
            if next_run is not None:
                self.session.begin(next_run.intent)

    # -- breakpoints and pauses (chat_breakpoints.py) ---------------------------------

    def choose_breakpoints(self, assistant_id: str) -> None:
        chat_breakpoints.choose(self, assistant_id)

    @work(exclusive=True, group="chat-pause", exit_on_error=False)
    async def check_pause(self) -> None:
        """A run started elsewhere (a replay) ended: show a breakpoint it stopped at."""
        if self.loaded and not self.running:
            await chat_breakpoints.show_pause(self, self.breakpoints.run_kwargs(), focus=False)

    @on(PausedBar.Continue)
    @on(PausedBar.Step)
    def _go_on(self, event: PausedBar.Continue | PausedBar.Step) -> None:
        event.stop()
        if self.running:
            self.notify(BUSY_MESSAGE, title="Not continued", severity="warning", markup=False)
            return
        if refuse_if_readonly(self.app, "continue the run"):
            return
        self._start(ChatRun(self, GoOn(step=isinstance(event, PausedBar.Step))))
        self.prompt.focus()

    @on(PausedBar.Edit)
    def _edit_paused(self, event: PausedBar.Edit) -> None:
        event.stop()
        if not self.running and not refuse_if_readonly(self.app, "edit the state"):
            self._edit_then_go_on()

    @work(exclusive=True, group="chat-edit", exit_on_error=False)
    async def _edit_then_go_on(self) -> None:
        if await chat_breakpoints.edit_paused_state(self) and not self.running:
            self._start(ChatRun(self, GoOn()))
            self.prompt.focus()

    @on(PausedBar.Stay)
    def _stay(self, event: PausedBar.Stay) -> None:
        event.stop()
        self.prompt.focus()  # the bar stays: the thread still waits there

    def cancel_run(self) -> bool:
        """Cancel the active run on the server; False when none is active."""
        if not self.session.request_cancel():
            return False
        self._cancel()
        return True

    @work(exclusive=True, group="chat-cancel", exit_on_error=False)
    async def _cancel(self) -> None:
        try:
            await self.session.cancel()
        except ApiError as error:
            self.screen_report(error, "cancel the run")

    # -- the event inspector ----------------------------------------------------------

    def action_toggle_inspector(self) -> None:
        self.toggle_class("-inspecting")
        if self.has_class("-inspecting"):
            self.inspector.focus()
        else:
            self.prompt.focus()

    def action_live_calls(self) -> None:
        self.calls.toggle()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "save_events":
            return self.has_class("-inspecting")
        return True

    def action_save_events(self) -> None:
        event_export.ask_where(self.app, self.thread_id, self._save_events)

    @work(exclusive=True, group="chat-save", exit_on_error=False)
    async def _save_events(self, path: str) -> None:
        await event_export.save_events(self, path)

    # -- helpers ----------------------------------------------------------------------

    def screen_report(self, error: BaseException, doing: str) -> None:
        report = getattr(self.screen, "report_error", None)
        if callable(report):
            report(error, doing=doing)
        else:
            self.notify(str(error), severity="error", markup=False)
