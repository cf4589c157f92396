"""`ChatSession`: a thread's transcript, its run state and its run driver, kept in step
(headless).

The thread view's chat pane needs exactly this loop: show the human message at once,
follow the run, fold each new event into the transcript and the run state
(`run_machine.RunMachine`), and when the run ends make the transcript equal the thread's
final state. A widget applies the changes it yields and renders the machine.

The session is the only owner of the machine's run: `begin(intent)` starts it (the pane
calls it the moment the user asks, so the state line says "starting" at once),
`follow(request)` runs the intent with one `RunRequest` and ends the run however it ends
(`abandon` when nothing was sent; `broke` when what began it failed). `send`, `resume`,
`run` and `join` are the two in one call, for scripts, `agent-tui run` and tests.

Events a rejoin replayed (the driver's `ReplayFilter` flags them `duplicate`) stop here:
no step is yielded for them, so the transcript, the run state and the event inspector
all see each event once — one dedup, decided in one place.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from agent_tui.chat.double_text import ServerStrategy
from agent_tui.chat.driver_events import (
    DriverEvent,
    Finished,
    Received,
    Reconnected,
    RunAlreadyActive,
    RunGone,
)
from agent_tui.chat.graph_send import input_text
from agent_tui.chat.items import InterruptItem, TranscriptChange
from agent_tui.chat.run_driver import ASK_TIMEOUT, DEFAULT_BACKOFF, RunDriver
from agent_tui.chat.run_machine import Intent, Join, Resume, RunMachine, Send, Start
from agent_tui.chat.run_request import RunRequest
from agent_tui.chat.transcript_model import ChatTranscript
from agent_tui.client import AgentServerClient
from agent_tui.client.capabilities import refused_option
from agent_tui.client.errors import ApiError, ValidationFailed
from agent_tui.client.models import Run, Thread, ThreadState
from agent_tui.client.sse import MAX_EVENT_BYTES
from agent_tui.threads.failure import Failure, failure_of, was_cancelled
from agent_tui.threads.outcome import resting_status

Step = tuple[DriverEvent | None, list[TranscriptChange]]
"""A driver event (None for a change the session made itself) and the transcript changes.
A `Received` step is never a replay (see the module doc)."""


@dataclass(frozen=True)
class ThreadSnapshot:
    """A thread as `ChatSession.read` found it."""

    thread: Thread
    state: ThreadState | None
    failure: Failure | None


class ChatSession:
    def __init__(
        self,
        client: AgentServerClient,
        thread_id: str,
        *,
        backoff: Sequence[float] = DEFAULT_BACKOFF,
    ) -> None:
        self.client = client
        self.thread_id = thread_id
        self.transcript = ChatTranscript()
        self.machine = RunMachine()
        self.driver = RunDriver(client, thread_id, backoff=backoff)
        self.thread_status: str | None = None
        self.failure: Failure | None = None  # why the thread failed, when it is in error
        self.cancelled = False  # the thread's last run was cancelled (as loaded)
        self._rejoined = False  # the current run's stream was rejoined (a server restart?)
        self.seen_updated_at: datetime | None = None
        """The thread's `updated_at` when the transcript last read it (load, a run's end):
        a later one means the thread changed elsewhere (a run or a fork by another client)."""

    async def load(self) -> list[TranscriptChange]:
        """The thread's transcript from its current state (`[Cleared(), Added…]`)."""
        return self.show(await self.read())

    async def read(self) -> ThreadSnapshot:
        """What `show` needs, read from the server; nothing here changes until `show`
        (a run may begin meanwhile: then the caller drops the snapshot)."""
        thread = await self.client.threads.get(self.thread_id)
        state = await self._state(thread)
        failure = await self._failure(thread) if thread.status == "error" else None
        return ThreadSnapshot(thread, state, failure)

    def show(self, snapshot: ThreadSnapshot) -> list[TranscriptChange]:
        """Start the transcript over from `snapshot` (`[Cleared(), Added…]`)."""
        thread, state = snapshot.thread, snapshot.state
        self.seen_updated_at = thread.updated_at
        self.failure = snapshot.failure
        values, interrupts = self._values_and_interrupts(thread, state)
        self.thread_status = resting_status(thread, state)
        changes = self.transcript.load_state(values, interrupts)
        if snapshot.failure is not None:
            changes += self.transcript.show_failure(snapshot.failure)
        self.cancelled = was_cancelled(thread, state.tasks if state is not None else ())
        if self.cancelled:
            pending = state.next if state is not None else []
            where = f" before {', '.join(pending)} finished" if pending else ""
            changes += self.transcript.notice(f"The last run was cancelled{where}.", "warning")
        self.machine.loaded(
            waiting_interrupt=bool(self.transcript.waiting_interrupts()), cancelled=self.cancelled
        )
        return changes

    @staticmethod
    def _values_and_interrupts(
        thread: Thread, state: ThreadState | None
    ) -> tuple[Any, list[dict[str, Any]]]:
        """What the transcript shows: the state's values, those of the checkpoint the
        thread is on (the thread record's are its last run's, not a fork's since, and
        Aegra fills neither them nor its interrupts), the record's only when the state
        cannot be read; the interrupts waiting, from whichever has them."""
        values = state.values if state is not None else thread.values
        interrupts = pending_interrupts(thread.interrupts)
        if not interrupts and state is not None:
            interrupts = pending_interrupts(state.interrupts)
        return values, interrupts

    async def _state(self, thread: Thread) -> ThreadState | None:
        """The thread's state now; None when it has none yet or it cannot be read."""
        try:
            async with asyncio.timeout(ASK_TIMEOUT):
                return await self.client.threads.get_state(self.thread_id)
        except (ApiError, TimeoutError):
            return None

    async def _head(self) -> str | None:
        """The checkpoint the thread is on (None: unknown)."""
        try:
            async with asyncio.timeout(ASK_TIMEOUT):
                return (await self.client.threads.get_state(self.thread_id)).checkpoint_id
        except (ApiError, TimeoutError):
            return None

    async def _failure(self, thread: Thread) -> Failure | None:
        """Why a thread in `error` failed, with the failing node (the thread records the
        error; its last checkpoint's tasks record where)."""
        try:
            async with asyncio.timeout(ASK_TIMEOUT):
                tasks = (await self.client.threads.get_state(self.thread_id, subgraphs=True)).tasks
        except (ApiError, TimeoutError):
            tasks = []  # still say what failed, without the node
        return failure_of(thread, tasks)

    async def _show_failure(self, thread: Thread) -> list[TranscriptChange]:
        self.failure = failure = await self._failure(thread)
        return self.transcript.show_failure(failure) if failure is not None else []

    # -- the run: begun, followed, ended here and nowhere else ---------------------------

    def begin(self, intent: Intent) -> None:
        """A run begins for `intent` (the user pressed enter, answered, continued; a run
        found on the thread is joined): the machine shows `starting` at once, before an
        assistant is picked or the server asked. `follow` then runs it, or `abandon` says
        nothing was sent."""
        self.machine.start(intent)

    def abandon(self) -> None:
        """The run begun was never sent (no assistant picked, input refused)."""
        self.machine.not_started()

    def broke(self, reason: str) -> None:
        """What began the run raised what nothing handles: over, in error."""
        self.machine.broke(reason)

    def paused_at(self, where: str) -> None:
        """The thread rests at a breakpoint (`where`: "before tools")."""
        self.machine.paused_at(where)

    async def follow(self, request: RunRequest | None = None) -> AsyncGenerator[Step, None]:
        """Run the intent `begin` was given, with `request`'s options, and follow it to its
        end; the run is over (`RunMachine.run_over`) when this ends, however it ends.

        A `Send` shows the human message at once (before the server answers) — or, with
        `request.input` set (a graph without messages), that input as the user's turn.
        A `Resume` answers its interrupt; a `GoOn` runs a paused thread on with no input;
        a `Start` gives its raw input or command; a `Join` follows a run already there.
        When the run cannot be created (busy thread, network) a notice says so, the
        machine goes back to idle and the error is raised, so the caller keeps the draft.
        """
        machine = self.machine
        intent = machine.intent
        if intent is None:
            raise RuntimeError("follow() without begin()")
        try:
            if isinstance(intent, Join):
                steps = self._join(intent)
            elif request is None:
                raise ValueError(f"a {type(intent).__name__} needs a RunRequest")
            else:
                machine.submitted = True  # a cancel from now on applies to this run
                steps = self._run(self._request_for(intent, request))
            if isinstance(intent, Send) and request is not None:
                shown = intent.text if request.input is None else input_text(request.input)
                yield None, self.transcript.add_human(shown)
            elif isinstance(intent, Resume) and intent.interrupt is not None:
                yield None, self.transcript.answer_interrupt(intent.interrupt, intent.value)
            async with contextlib.aclosing(steps):
                async for step in steps:
                    yield step
        finally:
            machine.submitted = machine.cancel_wanted = False
            if machine.active and not (machine.accepted or machine.ended):
                machine.not_started()  # it ended before the server took it
            elif machine.active:
                machine.run_over()

    def _request_for(self, intent: Intent, request: RunRequest) -> RunRequest:
        """`request` with what `intent` gives the run."""
        if isinstance(intent, Send):
            if request.input is not None:
                return request  # a graph without messages: the checked JSON input
            return request.with_(input=message_input(intent.text), command=None)
        if isinstance(intent, Resume):
            resume = intent.value
            waiting = self.transcript.waiting_interrupts()
            if intent.interrupt is not None and intent.interrupt.interrupt_id and len(waiting) > 1:
                # Several interrupts wait (parallel nodes): LangGraph refuses a bare value;
                # answer this one by its id, the others stay waiting.
                resume = {intent.interrupt.interrupt_id: intent.value}
            return request.with_(input=None, command={"resume": resume})
        if isinstance(intent, Start):
            return request.with_(input=intent.input, command=intent.command)
        return request.with_(input=None, command=None)  # GoOn: the paused thread goes on

    async def _run(self, request: RunRequest) -> AsyncGenerator[Step, None]:
        self.transcript.begin_run()
        self._rejoined = False
        able = self.client.transport.capabilities
        bare = request.input is None and request.command is None and request.checkpoint_id is None
        if bare and not able.run_without_input:
            request = await self._from_head(request)
        try:
            try:
                async with contextlib.aclosing(self._steps(self.driver.stream(request))) as steps:
                    async for step in steps:
                        yield step
            except ValidationFailed as exc:
                if not (bare and able.run_without_input and refused_option(exc, "checkpoint")):
                    raise
                # A paused thread goes on with no input on langgraph-api; Aegra wants the
                # checkpoint named (which makes a `fork` step, so only where needed).
                able.run_without_input = False
                request = await self._from_head(request)
                async with contextlib.aclosing(self._steps(self.driver.stream(request))) as steps:
                    async for step in steps:
                        yield step
        except (ApiError, RunAlreadyActive) as exc:
            self.machine.not_started()
            yield None, self.transcript.notice(f"Not sent: {exc}", "error")
            raise

    async def _from_head(self, request: RunRequest) -> RunRequest:
        """`request` going on from the checkpoint the thread is on."""
        return request.with_(checkpoint_id=await self._head())

    async def _join(self, intent: Join) -> AsyncGenerator[Step, None]:
        """Follow a run already on the thread (replayed from its start); `reload`: the
        transcript starts over from the thread's state first (the run before it was
        rolled back)."""
        if intent.reload:
            yield None, await self._reload()
        self.transcript.begin_run()
        self._rejoined = False
        async with contextlib.aclosing(self._steps(self.driver.join(intent.run_id))) as steps:
            async for step in steps:
                yield step

    # -- the same, begun and followed in one call (scripts, `agent-tui run`, tests) -----

    def send(self, request: RunRequest, text: str) -> AsyncGenerator[Step, None]:
        """Send a human message (`text`) and follow the run it starts."""
        return self._begun(Send(text), request)

    def resume(
        self, request: RunRequest, value: Any, interrupt: InterruptItem | None = None
    ) -> AsyncGenerator[Step, None]:
        """Answer `interrupt` (None: the only one waiting) with `value` and follow on."""
        return self._begun(Resume(value, interrupt), request)

    def run(self, request: RunRequest) -> AsyncGenerator[Step, None]:
        """Follow a run with `request`'s raw input or command (neither: a paused thread
        continues)."""
        return self._begun(Start(request.input, request.command), request)

    def join(self, run_id: str, *, reload: bool = False) -> AsyncGenerator[Step, None]:
        """Follow a run already running on the thread (see `Join`)."""
        return self._begun(Join(run_id, reload), None)

    def _begun(self, intent: Intent, request: RunRequest | None) -> AsyncGenerator[Step, None]:
        self.begin(intent)
        return self.follow(request)

    async def hand_over(self, request: RunRequest, text: str, how: ServerStrategy) -> Run:
        """Hand a human message to the server while a run is active, with the multitask
        strategy `how` (`chat/double_text.py`): a new run, created resumable so that a
        `Join` can follow it from its start once the active run ends. A `reject` the
        server applies is a `Conflict` (in the server's words). `request.input`: the
        graph's input instead of the message (a graph without messages)."""
        if request.input is None:
            request = request.with_(input=message_input(text))
        body = request.with_(multitask_strategy=how).stream_body()
        return await self.client.runs.create(self.thread_id, request.assistant_id, **body)

    async def _steps(self, events: AsyncGenerator[DriverEvent, None]) -> AsyncGenerator[Step, None]:
        """Each new driver event, folded into the transcript and then the run state."""
        machine = self.machine
        async with contextlib.aclosing(events):
            async for event in events:
                if machine.cancel_wanted and not self.driver.cancel_requested:
                    await self.driver.cancel()  # the cancel came before the run existed
                if isinstance(event, Received) and event.duplicate:
                    continue  # the one dedup (see the module doc)
                changes = await self._fold(event)
                machine.take(event)
                yield event, changes

    def request_cancel(self) -> bool:
        """The user asked to cancel: the state line says "cancelling…" at once; `cancel`
        then asks the server. False when no run is under way."""
        return self.machine.request_cancel()

    async def cancel(self) -> bool:
        """Cancel the run; pressed before the server has answered the send, the run is
        cancelled as soon as it exists. False when there is nothing to cancel."""
        if self.driver.active:
            return await self.driver.cancel()
        if self.machine.submitted:
            self.machine.cancel_wanted = True
            return True
        return False

    async def _fold(self, event: DriverEvent) -> list[TranscriptChange]:
        transcript = self.transcript
        if isinstance(event, Received):
            return transcript.apply(event.event)
        if isinstance(event, Reconnected):
            self._rejoined = True
            transcript.rejoined()
            tries = "1 attempt" if event.attempt == 1 else f"{event.attempt} attempts"
            return transcript.notice(f"Connection lost; rejoined the run after {tries}.")
        if isinstance(event, RunGone):
            changes = await self._reload()
            text = f"The run is gone from the server ({event.message}); reloaded the thread."
            return changes + transcript.notice(text, "warning")
        if isinstance(event, Finished):
            return await self._finish(event)
        return []

    async def _finish(self, event: Finished) -> list[TranscriptChange]:
        transcript = self.transcript
        self.thread_status = event.thread_status
        self.failure = None  # this run's, when the thread says it failed
        changes: list[TranscriptChange] = []
        if not self.machine.gone:
            try:
                async with asyncio.timeout(ASK_TIMEOUT):
                    thread = await self.client.threads.get(self.thread_id)
            except (ApiError, TimeoutError):
                pass  # the server is unreachable or silent: keep what arrived
            else:
                self.seen_updated_at = thread.updated_at
                values, interrupts = self._values_and_interrupts(thread, await self._state(thread))
                changes += transcript.reconcile(
                    values,
                    interrupts,
                    keep_unsaved=event.state in ("cancelled", "error"),
                    rejoined=self._rejoined,
                )
                if event.state == "error" and thread.status == "error":
                    changes += await self._show_failure(thread)
        changes += transcript.end_run()
        skipped = self.driver.skipped_events
        if skipped:
            what = (
                "1 event of this run was" if skipped == 1 else f"{skipped} events of this run were"
            )
            limit = MAX_EVENT_BYTES // 2**20
            changes += transcript.notice(
                f"{what} too large to keep (over {limit} MiB) and skipped.", "warning"
            )
        if event.state == "cancelled":
            text = f"Run cancelled; {event.reason}." if event.reason else "Run cancelled."
            changes += transcript.notice(text, "warning")
        elif event.reason and event.state == "error":
            changes += transcript.notice(f"Run ended: {event.reason}", "error")
        return changes

    async def _reload(self) -> list[TranscriptChange]:
        try:
            return await self.load()
        except ApiError:
            return []


def message_input(text: str) -> dict[str, Any]:
    """A human message as the input of a graph with a `messages` channel."""
    return {"messages": [{"role": "user", "content": text}]}


def pending_interrupts(interrupts: Any) -> list[dict[str, Any]]:
    """A thread's `interrupts` (`{task_id: [{"value", "id"}, …]}`) as one list."""
    if isinstance(interrupts, list):
        return [i for i in interrupts if isinstance(i, dict)]
    if not isinstance(interrupts, dict):
        return []
    return [
        i
        for task in interrupts.values()
        if isinstance(task, list)
        for i in task
        if isinstance(i, dict)
    ]
