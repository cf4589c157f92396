"""`agent-tui run`'s lines from a run's events (no server), and what a paused thread
waits for (`chat.waiting`), from states shaped as the server sends them."""

from __future__ import annotations

import io
import json
from typing import Any

from agent_tui.chat.driver_events import Finished, Received
from agent_tui.chat.transcript_model import ChatTranscript
from agent_tui.chat.waiting import Waiting, WaitingInterrupt, waiting_of
from agent_tui.cli.run_output import HumanOutput, JsonOutput
from agent_tui.client.events import RunEvent, parse_run_event
from agent_tui.client.models import ThreadState
from agent_tui.client.sse import ServerSentEvent
from agent_tui.threads.failure import Failure


def event(name: str, data: Any) -> RunEvent:
    return parse_run_event(ServerSentEvent(event=name, data=json.dumps(data)))


def chunk(text: str, **more: Any) -> RunEvent:
    message = {"type": "AIMessageChunk", "id": "ai-1", "content": text, **more}
    return event("messages", [message, {"langgraph_node": "agent"}])


def printed(*events: RunEvent) -> tuple[str, str]:
    """What `HumanOutput` prints for `events`, folded by the chat's transcript."""
    out, err = io.StringIO(), io.StringIO()
    transcript, output = ChatTranscript(), HumanOutput("t-1", out, err)
    for run_event in events:
        output.step(Received(run_event, 0.0), transcript.apply(run_event), "r-1")
    output.step(Finished("done", "r-1", "idle"), transcript.end_run(), "r-1")
    return out.getvalue(), err.getvalue()


def test_streamed_text_is_one_line_written_once_then_its_tool_calls() -> None:
    final = {
        "type": "ai",
        "id": "ai-1",
        "content": "Let me look.",
        "tool_calls": [{"id": "c1", "name": "get_weather", "args": {"city": "Oslo"}}],
    }
    out, err = printed(
        chunk("Let"),
        chunk(" me"),
        chunk(" look."),
        event("updates", {"agent": {"messages": [final]}}),
        event("custom", {"progress": 1}),
        event("debug", {"type": "task", "step": 1}),
    )
    assert err == ""
    assert out.splitlines() == [
        "ai (agent): Let me look.",
        'tool call: get_weather({"city":"Oslo"})',
        "agent ▸ messages",
        'custom: {"progress":1}',
        'debug: {"type":"task","step":1}',
    ]


def test_a_sequence_split_across_tokens_stays_inert() -> None:
    out, _ = printed(
        chunk("red \x1b"), chunk("[2Jtext \x9b"), chunk("31m and \x1b]0;t"), chunk("\x07")
    )
    assert out == "ai (agent): red [2Jtext 31m and 0;t\n"


def test_an_error_goes_to_stderr_once_the_run_ended_cleaned() -> None:
    # The error event is kept, not printed: its message may be only the server's generic
    # words, and `agent-tui run` says the failure once it has read the thread's state.
    out, err = io.StringIO(), io.StringIO()
    transcript, output = ChatTranscript(), HumanOutput("t-1", out, err)
    error = event("error", {"error": "ValueError", "message": "bad \x1b[31minput"})
    output.step(Received(error, 0.0), transcript.apply(error), "r-1")
    assert (out.getvalue(), err.getvalue()) == ("", "")
    assert output.said == Failure("ValueError", "bad \x1b[31minput")
    output.fail(Failure("ValueError", "bad \x1b[31minput", "agent"))
    assert err.getvalue() == "agent-tui: the run failed: ValueError in agent: bad input\n"


def test_json_lines_keep_the_exact_text_escaped() -> None:
    out = io.StringIO()
    output = JsonOutput("t-1", out, io.StringIO())
    run_event = chunk("\x1b[2J\u202e")
    output.step(Received(run_event, 0.0), [], "r-1")
    line = out.getvalue()
    assert "\x1b" not in line and "\u202e" not in line and "\\u202e" in line
    record = json.loads(line)
    assert list(record) == ["event", "data", "run_id", "thread_id"]
    assert record["data"][0]["content"] == "\x1b[2J\u202e"


def test_what_a_paused_thread_waits_for() -> None:
    paused_before = ThreadState.model_validate(
        {"next": ["dbl"], "tasks": [{"id": "1", "name": "dbl"}]}
    )
    assert waiting_of(paused_before, before=["dbl"]) == Waiting(
        ("dbl",), pause="before", node="dbl"
    )
    assert waiting_of(paused_before, before="*") == Waiting(("dbl",), pause="before", node="dbl")
    assert waiting_of(paused_before, after="*", ran=["inc"]) == Waiting(
        ("dbl",), pause="after", node="inc"
    )
    # A breakpoint the run was not given (compiled into the graph): where it stopped only.
    assert waiting_of(paused_before, after=["other"], ran=["inc"]) == Waiting(("dbl",))

    question = {"id": "i-1", "value": {"question": "Deploy?"}}
    nested = ThreadState.model_validate(
        {
            "next": ["chat"],
            "tasks": [
                {
                    "id": "1",
                    "name": "chat",
                    "interrupts": [question],
                    "state": {
                        "next": ["approve"],
                        "tasks": [{"id": "2", "name": "approve", "interrupts": [question]}],
                    },
                }
            ],
        }
    )
    assert waiting_of(nested) == Waiting(
        ("chat",), (WaitingInterrupt(("chat", "approve"), "i-1", {"question": "Deploy?"}),)
    )
