"""The chat's run state machine, fed typed driver events by hand (no server, no Textual),
and the one dedup of replayed events, including on a server whose ids have no order."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from agent_tui.chat.driver_events import (
    Finished,
    Received,
    Reconnected,
    Reconnecting,
    RunGone,
)
from agent_tui.chat.event_order import ReplayFilter
from agent_tui.chat.items import NoticeItem, RunState
from agent_tui.chat.run_machine import (
    ALREADY_QUEUED,
    CANCELLING,
    STILL_SENDING,
    Join,
    Resume,
    RunMachine,
    Send,
)
from agent_tui.chat.run_request import RunRequest
from agent_tui.chat.session import ChatSession
from agent_tui.client import AgentServerClient
from agent_tui.client.events import RunEvent, parse_run_event
from agent_tui.client.sse import ServerSentEvent


def event(name: str, data: Any = None, event_id: str | None = None) -> RunEvent:
    text = "" if data is None else json.dumps(data)
    return parse_run_event(ServerSentEvent(event=name, data=text, id=event_id or ""))


def received(name: str = "messages", data: Any = None, event_id: str | None = None) -> Received:
    return Received(event(name, data, event_id), 0.0)


def finished(state: RunState, reason: str | None = None) -> Finished:
    return Finished(state, "run-1", "idle", reason)


def state(machine: RunMachine) -> RunState:
    """The machine's state, read afresh (mypy would narrow `machine.state` across calls)."""
    return machine.state


class Watched:
    """A machine and what its listener saw: (state, detail) after each change."""

    def __init__(self) -> None:
        self.machine = RunMachine()
        self.seen: list[tuple[str, str]] = []
        self.machine.subscribe(lambda: self.seen.append((self.machine.state, self.machine.detail)))


def test_a_send_goes_idle_starting_running_done_and_the_first_event_accepts_it() -> None:
    watched = Watched()
    machine = watched.machine
    assert machine.state == "idle" and not machine.busy
    machine.start(Send("hi"))
    assert state(machine) == "starting" and machine.busy and not machine.accepted
    machine.take(received(event_id="1-0"))
    assert machine.state == "running" and machine.accepted
    machine.take(received(event_id="2-0"))  # more of the same changes nothing shown
    machine.take(finished("done"))
    assert machine.state == "done" and machine.ended == "done"
    assert machine.busy  # until the worker is done with the run
    assert machine.run_over() == "done"
    assert not machine.busy and machine.state == "done"
    assert watched.seen == [("starting", ""), ("running", ""), ("done", ""), ("done", "")]


def test_an_error_event_shows_error_at_once_and_the_run_still_ends_with_finished() -> None:
    machine = RunMachine()
    machine.start(Send("hi"))
    machine.take(received())
    machine.take(received("error", {"error": "ValueError", "message": "bad"}))
    assert machine.state == "error" and machine.active and machine.ended is None
    machine.take(received())  # whatever follows does not make it "running" again
    assert machine.state == "error"
    machine.take(finished("error"))
    assert machine.run_over() == "error"


def test_a_dropped_stream_goes_rejoining_and_back_to_streaming() -> None:
    machine = RunMachine()
    machine.start(Send("hi"))
    machine.take(received())
    machine.take(Reconnecting(1, 0.25, "connection reset"))
    assert (machine.state, machine.detail) == ("reconnecting", "attempt 1")
    assert machine.cancellable
    machine.take(Reconnecting(2, 0.5, "connection reset"))
    assert machine.detail == "attempt 2"
    machine.take(Reconnected(2, replayed=3))
    assert (machine.state, machine.detail) == ("running", "")
    # A rejoin that brings a new event before its success is announced is streaming too.
    machine.take(Reconnecting(1, 0.25, "stalled"))
    machine.take(received())
    assert machine.state == "running"


def test_a_cancel_is_asked_for_and_the_run_s_finished_says_cancelled() -> None:
    machine = RunMachine()
    assert not machine.request_cancel()  # no run under way
    machine.start(Send("hi"))
    machine.take(received())
    assert machine.request_cancel()
    assert (machine.state, machine.detail) == ("running", CANCELLING)
    machine.take(received())  # events still arriving keep the word
    assert machine.detail == CANCELLING
    machine.take(finished("cancelled", "the server did not confirm the cancel: timeout"))
    assert machine.state == "cancelled" and "did not confirm" in machine.detail
    assert not machine.cancellable


def test_a_refused_send_goes_back_to_idle_with_no_run_under_way() -> None:
    machine = RunMachine()
    machine.start(Send("hi"))
    machine.submitted = machine.cancel_wanted = True
    machine.not_started()
    assert machine.state == "idle" and not machine.busy and machine.ended is None
    assert not machine.cancel_wanted and machine.run_over() is None


def test_a_run_cannot_start_while_another_is_under_way() -> None:
    machine = RunMachine()
    machine.start(Join("run-1"))
    with pytest.raises(RuntimeError):
        machine.start(Send("hi"))


def test_interrupted_and_paused_are_distinct_resting_states() -> None:
    machine = RunMachine()
    machine.start(Send("hi"))
    machine.take(received())
    machine.take(finished("interrupted"))
    assert machine.run_over() == "interrupted" and not machine.busy
    machine.start(Resume("yes"))
    machine.take(received())
    machine.take(finished("paused"))
    assert machine.run_over() == "paused" and machine.state == "paused" and not machine.busy
    assert not machine.cancellable


def test_a_loaded_thread_is_interrupted_when_a_question_waits_unless_a_run_is_under_way() -> None:
    machine = RunMachine()
    machine.loaded(waiting_interrupt=True)
    assert machine.state == "interrupted"
    machine.loaded(waiting_interrupt=False)
    assert state(machine) == "idle"
    machine.start(Join("run-1"))
    machine.loaded(waiting_interrupt=True)  # a reload while following: the run decides
    assert state(machine) == "starting"


def test_a_run_that_is_gone_is_remembered_until_the_next_run() -> None:
    machine = RunMachine()
    machine.start(Join("run-1"))
    machine.take(RunGone("404: not found"))
    assert machine.gone and machine.accepted
    machine.take(finished("done", "the run is gone from the server"))
    machine.run_over()
    machine.start(Send("again"))
    assert not machine.gone


def test_one_message_may_wait_once_the_server_took_the_run_and_goes_only_after_done() -> None:
    machine = RunMachine()
    machine.start(Send("first"))
    assert machine.queue_refusal() == STILL_SENDING  # the prompt still holds "first"
    machine.take(received())
    assert machine.queue_refusal() is None
    machine.enqueue("second")
    assert machine.queue_refusal() == ALREADY_QUEUED
    machine.take(finished("done"))
    assert machine.take_queued(machine.run_over()) == ("second", "")
    assert machine.queued is None
    # A queued message being sent does not hold the prompt: the next may wait at once.
    machine.start(Send("second", queued=True))
    assert machine.queue_refusal() is None
    machine.enqueue("third")
    machine.take(finished("paused"))
    text, why = machine.take_queued(machine.run_over())
    assert (
        text == "third"
        and why == "The run stopped at a breakpoint, so the queued message was not sent"
    )
    assert machine.take_queued("done") == (None, "")


def test_an_id_less_event_after_an_unordered_id_is_not_taken_for_a_duplicate() -> None:
    # A server whose ids are not ordered numbers; `end` has no id line and carries the
    # previous event's id (the stream's last event id).
    replay = ReplayFilter()
    first = [received(event_id="a").event, received(event_id="b").event]
    assert [replay.is_duplicate(e) for e in first] == [False, False]
    assert replay.is_duplicate(event("end", None, "b")) is False
    # After a rejoin, an id seen before is a replay; the id-less end after it is not.
    assert replay.resume_from() == "a"
    again = [received(event_id="b").event, received(event_id="c").event, event("end", None, "c")]
    assert [replay.is_duplicate(e) for e in again] == [True, False, False]


async def test_a_rejoin_on_a_server_with_unordered_ids_keeps_every_event_once() -> None:
    # The stream drops after two events; the rejoin replays the second, sends a new
    # token, then `end` with no id line. Each event reaches the session's steps once.
    def chunk(text: str) -> str:
        return json.dumps([{"type": "AIMessageChunk", "id": "ai-1", "content": text}, {}])

    first = (
        'id: a\nevent: metadata\ndata: {"run_id": "r1"}\n\n'
        f"id: b\nevent: messages\ndata: {chunk('one ')}\n\n"
    )
    rejoin = (
        f"id: b\nevent: messages\ndata: {chunk('one ')}\n\n"
        f"id: c\nevent: messages\ndata: {chunk('two')}\n\n"
        "event: end\ndata: null\n\n"
    )
    joined: list[str | None] = []

    def answer(request: httpx.Request) -> httpx.Response:
        stream = {"content-type": "text/event-stream", "content-location": "/threads/t/runs/r1"}
        if request.method == "POST":
            return httpx.Response(200, content=first.encode(), headers=stream)
        if request.url.path.endswith("/stream"):
            joined.append(request.headers.get("last-event-id"))
            return httpx.Response(200, content=rejoin.encode(), headers=stream)
        if request.url.path.endswith("/runs/r1"):
            status = "success" if joined else "running"
            return httpx.Response(200, json={"run_id": "r1", "status": status})
        return httpx.Response(200, json={"thread_id": "t", "status": "idle"})

    transport = httpx.MockTransport(answer)
    async with AgentServerClient("http://server.test", http_transport=transport) as client:
        session = ChatSession(client, "t", backoff=(0.0,))
        steps = [step async for step in session.send(RunRequest("chat"), "hi")]
    assert joined == ["a"]
    events = [(e.event.raw_event, e.event.id) for e, _ in steps if isinstance(e, Received)]
    assert events == [("metadata", "a"), ("messages", "b"), ("messages", "c"), ("end", "c")]
    assert session.transcript.ai_texts() == ["one two"]
    notices = [i.text for i in session.transcript.items if isinstance(i, NoticeItem)]
    assert notices == ["Connection lost; rejoined the run after 1 attempt."]
    assert session.machine.state == "done" and not session.machine.active
