"""`ChatSession`: a thread's transcript, its run state and its run driver, kept in step
(headless).

The thread view's chat pane needs exactly this loop: show the human message at once,
follow the run, fold each new event into the transcript and the run state
(`run_machine.RunMachine`, the one owner of it), and when the run ends make the
transcript equal the thread's final state. A widget applies the changes it yields and
renders the machine.

Events a rejoin replayed (the driver's `ReplayFilter` flags them `duplicate`) stop here:
no step is yielded for them, so the transcript, the run state and the event inspector
all see each event once — one dedup, decided in one place.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Sequence
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
from agent_tui.chat.items import InterruptItem, TranscriptChange
from agent_tui.chat.run_driver import ASK_TIMEOUT, DEFAULT_BACKOFF, DEFAULT_STREAM_MODES, RunDriver
from agent_tui.chat.run_machine import Intent, Join, Resume, RunMachine, Send, Start
from agent_tui.chat.transcript_model import ChatTranscript
from agent_tui.client import AgentServerClient
from agent_tui.client.errors import ApiError
from agent_tui.client.models import Run, Thread
from agent_tui.client.sse import MAX_EVENT_BYTES
from agent_tui.threads.failure import Failure, failure_of, was_cancelled

Step = tuple[DriverEvent | None, list[TranscriptChange]]
"""A driver event (None for a change the session made itself) and the transcript changes.
A `Received` step is never a replay (see the module doc)."""


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
        self._owns_run = False  # the machine's run was started here, not by the pane
        self._rejoined = False  # the current run's stream was rejoined (a server restart?)

    async def load(self) -> list[TranscriptChange]:
        """The thread's transcript from its current state (`[Cleared(), Added…]`)."""
        # The thread itself carries its values and pending interrupts, and unlike
        # `get_state` it also reads cleanly for a thread that has no state yet.
        thread = await self.client.threads.get(self.thread_id)
        self.thread_status = thread.status
        self.failure = None
        values = await self._state_values(thread)
        changes = self.transcript.load_state(values, pending_interrupts(thread.interrupts))
        if thread.status == "error":
            changes += await self._show_failure(thread)
        self.cancelled = was_cancelled(thread)
        if self.cancelled:
            changes += await self._say_cancelled()
        self.machine.loaded(
            waiting_interrupt=bool(self.transcript.waiting_interrupts()), cancelled=self.cancelled
        )
        return changes

    async def _state_values(self, thread: Thread) -> Any:
        """The values of the checkpoint the thread is on: the thread record's are those of
        its last run, not of a fork made since (`POST /threads/{id}/state`)."""
        if thread.values is None:
            return None  # no checkpoint yet
        try:
            async with asyncio.timeout(ASK_TIMEOUT):
                return (await self.client.threads.get_state(self.thread_id)).values
        except (ApiError, TimeoutError):
            return thread.values

    async def _say_cancelled(self) -> list[TranscriptChange]:
        """A thread reopened after its run was cancelled: say so (not "paused"), and where."""
        try:
            async with asyncio.timeout(ASK_TIMEOUT):
                pending = (await self.client.threads.get_state(self.thread_id)).next
        except (ApiError, TimeoutError):
            pending = []
        where = f" before {', '.join(pending)} finished" if pending else ""
        return self.transcript.notice(f"The last run was cancelled{where}.", "warning")

    async def _show_failure(self, thread: Thread) -> list[TranscriptChange]:
        """The failure of a thread in `error` in the transcript, with the failing node
        (the thread records the error; its last checkpoint's tasks record where)."""
        try:
            async with asyncio.timeout(ASK_TIMEOUT):
                tasks = (await self.client.threads.get_state(self.thread_id)).tasks
        except (ApiError, TimeoutError):
            tasks = []  # still say what failed, without the node
        failure = failure_of(thread, tasks)
        self.failure = failure
        return self.transcript.show_failure(failure) if failure is not None else []

    async def send(
        self,
        assistant_id: str,
        text: str,
        *,
        stream_modes: Sequence[str] = DEFAULT_STREAM_MODES,
        context: dict[str, Any] | None = None,
        config: dict[str, Any] | None = None,
        interrupt_before: str | Sequence[str] | None = None,
        interrupt_after: str | Sequence[str] | None = None,
    ) -> AsyncGenerator[Step, None]:
        """Send a human message and follow the run it starts.

        The first step shows the message at once (before the server answers). When the
        run cannot be created (busy thread, network) a notice says so and the error is
        raised, so the caller keeps the draft.
        """
        self._begin(Send(text))
        self.machine.submitted = True  # a cancel from now on applies to this run
        yield None, self.transcript.add_human(text)
        message = {"messages": [{"role": "user", "content": text}]}
        steps = self.run(
            assistant_id,
            input=message,
            stream_modes=stream_modes,
            context=context,
            config=config,
            interrupt_before=interrupt_before,
            interrupt_after=interrupt_after,
        )
        async with contextlib.aclosing(steps):
            async for step in steps:
                yield step

    async def resume(
        self,
        assistant_id: str,
        value: Any,
        *,
        interrupt: InterruptItem | None = None,
        stream_modes: Sequence[str] = DEFAULT_STREAM_MODES,
        context: dict[str, Any] | None = None,
        config: dict[str, Any] | None = None,
        interrupt_before: str | Sequence[str] | None = None,
        interrupt_after: str | Sequence[str] | None = None,
    ) -> AsyncGenerator[Step, None]:
        """Answer an interrupt (`command: {"resume": value}`) and follow the continuation.

        With several interrupts waiting (parallel nodes), LangGraph refuses a bare value:
        the answer then goes as `{interrupt_id: value}` (its resume map), and the others
        stay waiting. A single interrupt gets the bare value, which every server takes.
        """
        self._begin(Resume(value, interrupt))
        resume = value
        if interrupt is not None:
            waiting = self.transcript.waiting_interrupts()
            if interrupt.interrupt_id and len(waiting) > 1:
                resume = {interrupt.interrupt_id: value}
            yield None, self.transcript.answer_interrupt(interrupt, value)
        steps = self.run(
            assistant_id,
            command={"resume": resume},
            stream_modes=stream_modes,
            context=context,
            config=config,
            interrupt_before=interrupt_before,
            interrupt_after=interrupt_after,
        )
        async with contextlib.aclosing(steps):
            async for step in steps:
                yield step

    async def run(
        self,
        assistant_id: str,
        *,
        input: Any = None,
        command: dict[str, Any] | None = None,
        stream_modes: Sequence[str] = DEFAULT_STREAM_MODES,
        context: dict[str, Any] | None = None,
        config: dict[str, Any] | None = None,
        interrupt_before: str | Sequence[str] | None = None,
        interrupt_after: str | Sequence[str] | None = None,
    ) -> AsyncGenerator[Step, None]:
        """Follow a run (`input`, or a `command`, or neither: a paused thread continues);
        `interrupt_before` / `interrupt_after`: its breakpoints (see `RunDriver.stream`)."""
        machine = self.machine
        self._begin(Start(input, command))
        machine.submitted = True
        self.transcript.begin_run()
        self._rejoined = False
        events = self.driver.stream(
            assistant_id,
            input=input,
            command=command,
            stream_modes=stream_modes,
            context=context,
            config=config,
            interrupt_before=interrupt_before,
            interrupt_after=interrupt_after,
        )
        try:
            async with contextlib.aclosing(self._steps(events)) as steps:
                async for step in steps:
                    yield step
        except (ApiError, RunAlreadyActive) as exc:
            machine.not_started()
            yield None, self.transcript.notice(f"Not sent: {exc}", "error")
            raise
        finally:
            machine.submitted = machine.cancel_wanted = False
            self._end()

    async def hand_over(
        self,
        assistant_id: str,
        text: str,
        how: ServerStrategy,
        *,
        stream_modes: Sequence[str] = DEFAULT_STREAM_MODES,
        context: dict[str, Any] | None = None,
        config: dict[str, Any] | None = None,
        interrupt_before: str | Sequence[str] | None = None,
        interrupt_after: str | Sequence[str] | None = None,
        input: dict[str, Any] | None = None,
    ) -> Run:
        """Hand a human message to the server while a run is active, with the multitask
        strategy `how` (`chat/double_text.py`): a new run, created resumable so that `join`
        can follow it from its start once the active run ends. A `reject` the server
        applies is a `Conflict` (in the server's words). `input`: the graph's input
        instead of the message (a graph without messages, `chat/graph_send.py`)."""
        return await self.client.runs.create(
            self.thread_id,
            assistant_id,
            input=input if input is not None else {"messages": [{"role": "user", "content": text}]},
            context=context,
            config=config,
            multitask_strategy=how,
            stream_mode=list(stream_modes),
            stream_subgraphs=True,
            stream_resumable=True,
            interrupt_before=interrupt_before,
            interrupt_after=interrupt_after,
        )

    async def join(self, run_id: str, *, reload: bool = False) -> AsyncGenerator[Step, None]:
        """Follow a run already running on the thread (replayed from its start);
        `reload`: start the transcript over from the thread's state first (the run before
        it was rolled back)."""
        self._begin(Join(run_id))
        if reload:
            yield None, await self._reload()
        self.transcript.begin_run()
        self._rejoined = False
        try:
            async with contextlib.aclosing(self._steps(self.driver.join(run_id))) as steps:
                async for step in steps:
                    yield step
        finally:
            self._end()

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

    async def cancel(self) -> bool:
        """Cancel the run; pressed before the server has answered the send, the run is
        cancelled as soon as it exists. False when there is nothing to cancel."""
        if self.driver.active:
            return await self.driver.cancel()
        if self.machine.submitted:
            self.machine.cancel_wanted = True
            return True
        return False

    def _begin(self, intent: Intent) -> None:
        """The machine starts the run, unless the caller (the chat pane) started it
        already, as soon as the user asked."""
        if not self.machine.active:
            self._owns_run = True
            self.machine.start(intent)

    def _end(self) -> None:
        """A run this session started ends with its stream; one the pane started ends
        when the pane's worker is done with it (`run_over`)."""
        if self._owns_run:
            self._owns_run = False
            self.machine.run_over()

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
                changes += transcript.reconcile(
                    thread.values,
                    pending_interrupts(thread.interrupts),
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
