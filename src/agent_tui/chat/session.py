"""`ChatSession`: a thread's transcript and its run driver, kept in step (headless).

The thread view's chat pane needs exactly this loop: show the human message at once,
follow the run, fold each new event into the transcript, and when the run ends make the
transcript equal the thread's final state. A widget applies the changes it yields.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Any

from agent_tui.chat.driver_events import (
    DriverEvent,
    Finished,
    Received,
    Reconnected,
    Reconnecting,
    RunAlreadyActive,
    RunGone,
)
from agent_tui.chat.items import InterruptItem, TranscriptChange
from agent_tui.chat.run_driver import ASK_TIMEOUT, DEFAULT_BACKOFF, DEFAULT_STREAM_MODES, RunDriver
from agent_tui.chat.transcript_model import ChatTranscript
from agent_tui.client import AgentServerClient
from agent_tui.client.errors import ApiError
from agent_tui.client.sse import MAX_EVENT_BYTES

Step = tuple[DriverEvent | None, list[TranscriptChange]]
"""A driver event (None for a change the session made itself) and the transcript changes."""


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
        self.driver = RunDriver(client, thread_id, backoff=backoff)
        self.thread_status: str | None = None
        self._gone = False
        self._starting = False  # between `send` and the driver taking over
        self._cancel_early = False

    @property
    def active(self) -> bool:
        return self.driver.active

    async def load(self) -> list[TranscriptChange]:
        """The thread's transcript from its current state (`[Cleared(), Added…]`)."""
        # The thread itself carries its values and pending interrupts, and unlike
        # `get_state` it also reads cleanly for a thread that has no state yet.
        thread = await self.client.threads.get(self.thread_id)
        self.thread_status = thread.status
        return self.transcript.load_state(thread.values, pending_interrupts(thread.interrupts))

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
    ) -> AsyncIterator[Step]:
        """Send a human message and follow the run it starts.

        The first step shows the message at once (before the server answers). When the
        run cannot be created (busy thread, network) a notice says so and the error is
        raised, so the caller keeps the draft.
        """
        self._starting = True  # a cancel from now on applies to this run
        yield None, self.transcript.add_human(text)
        message = {"messages": [{"role": "user", "content": text}]}
        async for step in self.run(
            assistant_id,
            input=message,
            stream_modes=stream_modes,
            context=context,
            config=config,
            interrupt_before=interrupt_before,
            interrupt_after=interrupt_after,
        ):
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
    ) -> AsyncIterator[Step]:
        """Answer an interrupt (`command: {"resume": value}`) and follow the continuation.

        With several interrupts waiting (parallel nodes), LangGraph refuses a bare value:
        the answer then goes as `{interrupt_id: value}` (its resume map), and the others
        stay waiting. A single interrupt gets the bare value, which every server takes.
        """
        resume = value
        if interrupt is not None:
            waiting = [
                item
                for item in self.transcript.items
                if isinstance(item, InterruptItem) and not item.answered
            ]
            if interrupt.interrupt_id and len(waiting) > 1:
                resume = {interrupt.interrupt_id: value}
            yield None, self.transcript.answer_interrupt(interrupt, value)
        async for step in self.run(
            assistant_id,
            command={"resume": resume},
            stream_modes=stream_modes,
            context=context,
            config=config,
            interrupt_before=interrupt_before,
            interrupt_after=interrupt_after,
        ):
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
    ) -> AsyncIterator[Step]:
        """Follow a run (`input`, or a `command`, or neither: a paused thread continues);
        `interrupt_before` / `interrupt_after`: its breakpoints (see `RunDriver.stream`)."""
        self._gone = False
        self._starting = True
        self.transcript.set_state("starting")
        self.transcript.begin_run()
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
            async for event in events:
                if self._cancel_early and not self.driver.cancel_requested:
                    await self.driver.cancel()
                yield event, await self._fold(event)
        except (ApiError, RunAlreadyActive) as exc:
            self.transcript.state = "idle"
            yield None, self.transcript.notice(f"Not sent: {exc}", "error")
            raise
        finally:
            self._starting = self._cancel_early = False

    async def join(self, run_id: str) -> AsyncIterator[Step]:
        """Follow a run already running on the thread (replayed from its start)."""
        self._gone = False
        self.transcript.set_state("running")
        self.transcript.begin_run()
        async for event in self.driver.join(run_id):
            yield event, await self._fold(event)

    async def cancel(self) -> bool:
        """Cancel the run; pressed before the server has answered the send, the run is
        cancelled as soon as it exists. False when there is nothing to cancel."""
        if self.driver.active:
            return await self.driver.cancel()
        if self._starting:
            self._cancel_early = True
            return True
        return False

    async def _fold(self, event: DriverEvent) -> list[TranscriptChange]:
        transcript = self.transcript
        if isinstance(event, Received):
            # The driver's replay filter is the one dedup: the inspector skips these too.
            return [] if event.duplicate else transcript.apply(event.event)
        if isinstance(event, Reconnecting):
            transcript.set_state("reconnecting")
            return []
        if isinstance(event, Reconnected):
            transcript.set_state("running")
            tries = "1 attempt" if event.attempt == 1 else f"{event.attempt} attempts"
            return transcript.notice(f"Connection lost; rejoined the run after {tries}.")
        if isinstance(event, RunGone):
            self._gone = True
            changes = await self._reload()
            text = f"The run is gone from the server ({event.message}); reloaded the thread."
            return changes + transcript.notice(text, "warning")
        if isinstance(event, Finished):
            return await self._finish(event)
        return []

    async def _finish(self, event: Finished) -> list[TranscriptChange]:
        transcript = self.transcript
        self.thread_status = event.thread_status
        changes: list[TranscriptChange] = []
        if not self._gone:
            try:
                async with asyncio.timeout(ASK_TIMEOUT):
                    thread = await self.client.threads.get(self.thread_id)
            except (ApiError, TimeoutError):
                pass  # the server is unreachable or silent: keep what arrived
            else:
                changes += transcript.reconcile(thread.values)
        changes += transcript.set_state(event.state)
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
