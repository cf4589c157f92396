"""`RunDriver`: start a run on a thread and follow it to its end, whatever the network does.

The run is created resumable (`stream_resumable=True`) and with `multitask_strategy=
"reject"`, so a busy thread answers 409 instead of queueing a second run. When the
connection drops — an error mid-body, or the body ending while the server still says the
run is running — the driver rejoins with `join_stream` and the last event id, with
bounded backoff; replayed events are flagged `duplicate` (see `event_order`) and
`ChatSession` drops them (the one dedup). The run POST itself is never re-sent: that
would start a second run.

The driver keeps only what following one connection takes (the stream being read, the
backoff, what decides the outcome it reports); the run state the chat shows and acts on
is `run_machine.RunMachine`'s, fed with what this yields.

A connection can also die without closing. The server sends a `: heartbeat` every 5 s,
so `stall_timeout` seconds without a byte means the stream is dead: the driver asks the
server how the run is doing, and finishes (the run ended meanwhile) or rejoins. A stream
that only sends heartbeats is asked about as often: once the run has ended there, the
stream is closed and the run finished (a run thinking for long is left alone).

A cancel closes the stream on our side at once, whatever the server does, then asks the
server to cancel (for at most `CANCEL_TIMEOUT` seconds). An `error` event ends the run
too: nothing after it is read.

Every stream ends with exactly one `Finished`, whose state comes from the server's own
record of the run (`runs.get`), not from how the stream happened to end.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncGenerator, Callable, Sequence
from typing import TypeGuard

from agent_tui.chat.driver_events import (
    DriverEvent,
    Finished,
    Received,
    Reconnected,
    Reconnecting,
    RunAlreadyActive,
    RunGone,
)
from agent_tui.chat.event_order import REPLAY_ALL, ReplayFilter
from agent_tui.chat.items import RunState
from agent_tui.chat.run_request import RunRequest
from agent_tui.client import AgentServerClient, RunStream
from agent_tui.client.errors import ApiError, Conflict, ConnectionFailed, NotFound, StreamCut
from agent_tui.client.events import ErrorEvent, RunEvent, UpdatesEvent, ValuesEvent
from agent_tui.client.models import Thread, ThreadState
from agent_tui.client.runs import StreamStalled
from agent_tui.threads.outcome import resting_status, run_outcome

DEFAULT_BACKOFF: tuple[float, ...] = (0.25, 0.5, 1.0, 2.0, 4.0)

# Run statuses while the server is still working on it.
_ACTIVE = frozenset({"pending", "running"})
# How long to wait for the server to record a run's outcome once its stream closed.
SETTLE_POLLS: tuple[float, ...] = (0.02, 0.05, 0.1, 0.2, 0.4)
# Seconds without a byte before a stream counts as dead: past two missed heartbeats
# (langgraph-api sends one every 5 s), so a slow run is never taken for a stall.
STALL_TIMEOUT = 12.0
# Seconds the server gets to confirm a cancel (the stream is already closed by then).
CANCEL_TIMEOUT = 5.0
# Seconds for each question asked while finishing (run status, thread status).
ASK_TIMEOUT = 10.0


class RunDriver:
    """Streams one run at a time on `thread_id`. Not reusable concurrently: `active`."""

    def __init__(
        self,
        client: AgentServerClient,
        thread_id: str,
        *,
        backoff: Sequence[float] = DEFAULT_BACKOFF,
        clock: Callable[[], float] = time.monotonic,
        settle: Sequence[float] = SETTLE_POLLS,
        stall_timeout: float = STALL_TIMEOUT,
        cancel_timeout: float = CANCEL_TIMEOUT,
    ) -> None:
        self._client = client
        self.thread_id = thread_id
        self._backoff = tuple(backoff)
        self._clock = clock
        self._settle = tuple(settle)
        self.stall_timeout = stall_timeout
        self.cancel_timeout = cancel_timeout
        self.run_id: str | None = None
        self._active = False
        self._cancel_requested = False
        self._cancel_sent = False
        self._saw_interrupt = False
        self._saw_error = False
        self._started = 0.0
        self._filter = ReplayFilter()
        self._stream: RunStream | None = None  # the stream being read, if any
        self._last_event = 0.0  # `clock()` when the latest event arrived
        self.skipped_events = 0
        """Events of this run too large to keep (see `client.sse.MAX_EVENT_BYTES`)."""
        self._woken = asyncio.Event()  # ends a backoff pause early (a cancel)

    @property
    def active(self) -> bool:
        """A run is being followed (from the request until `Finished`)."""
        return self._active

    @property
    def cancel_requested(self) -> bool:
        return self._cancel_requested

    async def stream(self, request: RunRequest) -> AsyncGenerator[DriverEvent, None]:
        """Start the run `request` describes and follow it.

        Raises `RunAlreadyActive` when the thread is busy, and any `ApiError` the run
        request itself gets (nothing was started then, so the caller keeps the draft).
        """
        self._begin()
        try:
            opening = self._client.runs.stream(
                self.thread_id,
                request.assistant_id,
                **request.stream_body(),
                stall_timeout=self.stall_timeout,
            )
            async with contextlib.aclosing(self._follow(opening, joining=False)) as events:
                async for event in events:
                    yield event
        finally:
            self._active = False

    async def join(
        self, run_id: str, *, last_event_id: str = REPLAY_ALL
    ) -> AsyncGenerator[DriverEvent, None]:
        """Follow a run that is already on the server (e.g. the thread was busy when it was
        opened); `"-1"` replays it from its start."""
        self._begin()
        self.run_id = run_id
        self._filter.resume_from()  # a join can send the same event twice (see event_order)
        try:
            opening = self._client.runs.join_stream(
                self.thread_id,
                run_id,
                last_event_id=last_event_id,
                stall_timeout=self.stall_timeout,
            )
            async with contextlib.aclosing(self._follow(opening, joining=True)) as events:
                async for event in events:
                    yield event
        finally:
            self._active = False

    async def cancel(self) -> bool:
        """Stop following the run now and cancel it on the server (the thread keeps what
        the run did): the stream is closed on our side at once, then the server is asked,
        and the stream ends with `Finished("cancelled")`. False when no run is active."""
        if not self._active:
            return False
        self._cancel_requested = True
        self._woken.set()
        if self._stream is not None:
            self._stream.close_now()
        return True

    # -- the loop ----------------------------------------------------------------------

    def _begin(self) -> None:
        if self._active:
            raise RunAlreadyActive("this chat is already following a run")
        self._active = True
        self.run_id = None
        self._cancel_requested = self._cancel_sent = False
        self._saw_interrupt = self._saw_error = False
        self._started = self._clock()
        self._filter = ReplayFilter()
        self._woken = asyncio.Event()
        self.skipped_events = 0

    async def _follow(
        self, opening: RunStream, *, joining: bool
    ) -> AsyncGenerator[DriverEvent, None]:
        stream = opening
        failures = 0  # failed tries in the current run of drops
        rejoined = False  # `stream` is a rejoin whose success is not announced yet
        while True:
            reason: str | None = None
            stalled = False
            replayed = 0
            first = True
            self._stream = stream
            if self._cancel_requested:
                stream.close_now()  # cancelled between two streams: read nothing more
            self._last_event = self._clock()
            watch = asyncio.create_task(self._watch(stream))
            try:
                async with stream:
                    async for event in stream:
                        self._last_event = self._clock()
                        if self.run_id is None and stream.run_id:
                            self.run_id = stream.run_id
                        if first and (joining or rejoined) and _is_gone(event):
                            yield Received(event, self._elapsed())
                            async with contextlib.aclosing(self._gone(event.message)) as gone:
                                async for final in gone:
                                    yield final
                            return
                        first = False
                        duplicate = self._filter.is_duplicate(event)
                        if duplicate:
                            replayed += 1
                        elif rejoined:
                            yield Reconnected(failures, replayed)
                            rejoined, failures = False, 0
                        self._note(event)
                        yield Received(event, self._elapsed(), duplicate)
                        if self._saw_error:
                            break  # the run failed: whatever the stream sends next is moot
            except Conflict as exc:
                raise RunAlreadyActive(exc.message) from exc
            except NotFound as exc:
                if not (joining or rejoined):
                    raise
                async with contextlib.aclosing(self._gone(exc.message)) as gone:
                    async for final in gone:
                        yield final
                return
            except ConnectionFailed as exc:  # also RequestTimedOut and StreamStalled
                if self.run_id is None and not self._cancel_requested:
                    raise  # the run may not exist: nothing to rejoin
                stalled = isinstance(exc, StreamStalled)
                if stalled:
                    reason = exc.message  # "no data from … for 12 s"
                elif isinstance(exc, StreamCut):
                    reason = await self._cut_reason(exc)
                else:
                    reason = exc.title
            finally:
                watch.cancel()
                self._stream = None
                self.skipped_events += stream.skipped_events
            if self.run_id is None:
                self.run_id = stream.run_id  # named by its answer's headers, if nothing else
            if self._cancel_requested:
                yield await self._cancelled()
                return
            if self._saw_error:
                yield await self._finished(await self._settled_status())
                return
            if reason is None or stalled:
                # The stream ended (or went silent): finished, or only the connection?
                status = await self._settled_status()
                # After a stall, a server that cannot say is no reason to stop.
                if status not in _ACTIVE and not (stalled and status is None):
                    if rejoined and not stalled:
                        yield Reconnected(failures, replayed)
                    yield await self._finished(status)
                    return
                reason = reason or "the stream ended before the run did"
            failures += 1
            if failures > len(self._backoff):
                yield await self._finished(
                    "error",
                    reason=f"gave up reconnecting after {len(self._backoff)} attempts: {reason}",
                    forced=True,
                )
                return
            delay = self._backoff[failures - 1]
            yield Reconnecting(failures, delay, reason)
            await self._pause(delay)
            if self._cancel_requested:
                yield await self._cancelled()
                return
            assert self.run_id is not None
            stream = self._client.runs.join_stream(
                self.thread_id,
                self.run_id,
                last_event_id=self._filter.resume_from(),
                stall_timeout=self.stall_timeout,
            )
            rejoined = True

    async def _watch(self, stream: RunStream) -> None:
        """While `stream` brings no event (heartbeats only), ask now and then whether the
        run is still going; once it has ended there, stop reading (the caller finishes)."""
        while True:
            await asyncio.sleep(self.stall_timeout)
            if self._clock() - self._last_event < self.stall_timeout:
                continue
            status = await self._run_status()
            if status is not None and status not in _ACTIVE:
                stream.close_now()
                return

    async def _pause(self, delay: float) -> None:
        """Sleep `delay` seconds, or less if the run is cancelled meanwhile."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._woken.wait(), delay)

    async def _cancelled(self) -> Finished:
        """The stream is closed on our side: ask the server to cancel, and say how it went."""
        problem = await self._send_cancel()
        status = await self._settled_status()
        if problem is None and status in _ACTIVE:
            problem = "the server still reports the run as running"
        reason = f"the server did not confirm the cancel: {problem}" if problem else None
        return await self._finished(status, reason=reason)

    def _note(self, event: RunEvent) -> None:
        if isinstance(event, ErrorEvent):
            self._saw_error = True
        elif isinstance(event, (UpdatesEvent, ValuesEvent)) and event.interrupts:
            self._saw_interrupt = True

    async def _gone(self, message: str) -> AsyncGenerator[DriverEvent, None]:
        yield RunGone(message or "the run is no longer on the server")
        thread, state = await self._thread_and_state()
        outcome: RunState = run_outcome(None, thread, state)  # the run's record is gone
        status = resting_status(thread, state) if thread is not None else None
        yield Finished(outcome, self.run_id, status, reason="the run is gone from the server")

    # -- asking the server ---------------------------------------------------------------

    async def _send_cancel(self) -> str | None:
        """Cancel the run on the server; what went wrong, if anything."""
        if self.run_id is None:
            return "the run request had no answer yet (the run may start all the same)"
        if self._cancel_sent:
            return None
        self._cancel_sent = True
        try:
            async with asyncio.timeout(self.cancel_timeout):
                # `wait`: answered once the run has stopped, so its status is final.
                await self._client.runs.cancel(
                    self.thread_id,
                    self.run_id,
                    wait=True,
                    action="interrupt",
                    timeout=self.cancel_timeout,
                )
        except (NotFound, Conflict):
            return None  # the run ended on its own meanwhile
        except TimeoutError:
            return f"no answer within {self.cancel_timeout:g} s"
        except ApiError as exc:
            return str(exc)
        return None

    async def _cut_reason(self, cut: StreamCut) -> str:
        """Why the stream stopped, once the server was asked whether it still answers:
        a cut stream is not an unreachable server (nor the other way round)."""
        if self.run_id is None:
            return cut.message
        try:
            async with asyncio.timeout(ASK_TIMEOUT):
                await self._client.runs.get(self.thread_id, self.run_id)
        except (ConnectionFailed, TimeoutError):
            return f"{cut.message}, and the server does not answer"
        except ApiError:
            pass  # an answer all the same
        return f"{cut.message}; the server is up"

    async def _run_status(self) -> str | None:
        if self.run_id is None:
            return None
        try:
            async with asyncio.timeout(ASK_TIMEOUT):
                return (await self._client.runs.get(self.thread_id, self.run_id)).status
        except (ApiError, TimeoutError):
            return None

    async def _settled_status(self) -> str | None:
        # The body can close a moment before the server records the outcome.
        status = await self._run_status()
        for pause in self._settle:
            if status not in _ACTIVE:
                break
            await asyncio.sleep(pause)
            status = await self._run_status()
        return status

    async def _finished(
        self, status: str | None, *, reason: str | None = None, forced: bool = False
    ) -> Finished:
        """The run's outcome from the evidence (`threads.outcome`): what the stream showed,
        the cancel asked for, the run's record, and the thread with its state."""
        thread, state = await self._thread_and_state()
        outcome: RunState = run_outcome(
            "error" if forced else status,
            thread,
            state,
            saw_interrupt=self._saw_interrupt,
            saw_error=self._saw_error,
            cancel_requested=self._cancel_requested,
        )
        thread_status = resting_status(thread, state) if thread is not None else None
        return Finished(outcome, self.run_id, thread_status, reason)

    async def _thread_and_state(self) -> tuple[Thread | None, ThreadState | None]:
        try:
            async with asyncio.timeout(ASK_TIMEOUT):
                thread = await self._client.threads.get(self.thread_id)
        except (ApiError, TimeoutError):
            return None, None
        try:
            async with asyncio.timeout(ASK_TIMEOUT):
                return thread, await self._client.threads.get_state(self.thread_id)
        except (ApiError, TimeoutError):
            return thread, None

    def _elapsed(self) -> float:
        return self._clock() - self._started


def _is_gone(event: RunEvent) -> TypeGuard[ErrorEvent]:
    # langgraph-api answers a rejoin of an unknown run with 200 and this error event.
    return isinstance(event, ErrorEvent) and event.message.startswith("404")
