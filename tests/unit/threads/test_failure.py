"""Why a thread failed, read from what langgraph-api records (thread `error`, task repr)."""

from __future__ import annotations

from agent_tui.client.models import Thread, ThreadTask
from agent_tui.threads.failure import Failure, failure_of, parse_task_error


def test_task_reprs_become_type_and_message() -> None:
    assert parse_task_error("DemoFailure('You asked me to fail.')") == (
        "DemoFailure",
        "You asked me to fail.",
    )
    assert parse_task_error('KeyError("it\'s gone")') == ("KeyError", "it's gone")
    assert parse_task_error("httpx.ReadTimeout()") == ("httpx.ReadTimeout", "")
    assert parse_task_error("ValueError('a', 2)") == ("ValueError", "a, 2")
    assert parse_task_error("Boom(<object at 0x1>)") == ("Boom", "<object at 0x1>")
    assert parse_task_error("plain words") == ("", "plain words")


def test_the_thread_gives_type_and_message_the_task_gives_the_node() -> None:
    thread = Thread.model_validate(
        {"thread_id": "t", "status": "error", "error": {"error": "E", "message": "m"}}
    )
    tasks = [
        ThreadTask(id="1", name="ok"),
        ThreadTask(id="2", name="agent", error="E('m')"),
    ]
    assert failure_of(thread, tasks) == Failure("E", "m", "agent")
    assert failure_of(thread) == Failure("E", "m", None)
    assert failure_of(None, tasks) == Failure("E", "m", "agent")
    assert failure_of(Thread(thread_id="t"), [ThreadTask(id="1", name="ok")]) is None


def test_one_line_names_what_it_knows() -> None:
    assert Failure("E", "m", "agent").line() == "E in agent: m"
    assert Failure("E", "", None).line() == "E"
    assert Failure("", "m", None).line() == "Error: m"
