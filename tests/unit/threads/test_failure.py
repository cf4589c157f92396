"""Why a thread failed, read from what langgraph-api records (thread `error`, task repr)."""

from __future__ import annotations

from agent_tui.client.models import Thread, ThreadTask
from agent_tui.threads.failure import (
    GENERIC_MESSAGE,
    Failure,
    failure_of,
    parse_task_error,
    richest,
    told,
)


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


def test_the_exceptions_own_words_replace_the_servers_generic_text() -> None:
    # langgraph-api says only "An internal error occurred" for an exception outside its
    # short list (an httpx.ConnectError); the failing task's repr has its own words.
    thread = Thread.model_validate(
        {
            "thread_id": "t",
            "status": "error",
            "error": {"error": "ConnectError", "message": GENERIC_MESSAGE},
        }
    )
    tasks = [
        ThreadTask(
            id="1",
            name="call_model",
            error="ConnectError('[Errno 111] Connection refused: code 7731')",
        )
    ]
    words = Failure("ConnectError", "[Errno 111] Connection refused: code 7731", "call_model")
    assert failure_of(thread, tasks) == words
    assert words.line() == "ConnectError in call_model: [Errno 111] Connection refused: code 7731"
    assert words.where() == "ConnectError in call_model"
    # The same from the stream's error event, with no thread at hand.
    said = Failure("ConnectError", GENERIC_MESSAGE)
    assert failure_of(None, tasks, said=said) == words
    # The generic text only when nothing better exists.
    assert failure_of(thread) == Failure("ConnectError", GENERIC_MESSAGE, None)
    assert richest(said, None) == said


def test_richest_keeps_the_servers_own_message_and_a_task_of_another_exception() -> None:
    said = Failure("ValueError", "quota exceeded: code 7731")
    task = Failure("ValueError", "quota exceeded: code 7731", "call_model")
    assert richest(said, task) == task
    # A qualified repr is the same type as the server's class name.
    assert richest(
        Failure("ReadTimeout", GENERIC_MESSAGE), Failure("httpx.ReadTimeout", "slow", "n")
    ) == (Failure("ReadTimeout", "slow", "n"))
    # A repr that is no repr: its text is the message, the type is the server's.
    assert richest(Failure("Boom", GENERIC_MESSAGE), Failure("", "<Boom: code 7>", "n")) == (
        Failure("Boom", "<Boom: code 7>", "n")
    )
    # The failing task raised something else: the run's words, where it happened.
    assert richest(Failure("GraphRecursionError", "limit 25"), Failure("KeyError", "x", "n")) == (
        Failure("GraphRecursionError", "limit 25", "n")
    )
    assert told({"error": "E", "message": "m"}) == Failure("E", "m")
    assert told("E") is None
    assert Failure("E", "m", "n").as_json() == {"error": "E", "message": "m", "node": "n"}
