"""Why a run failed, in the exception's own words, against the real server.

The `failing` test graph's `call_model` really connects to a loopback port that refuses
and lets the `httpx.ConnectError` propagate (or raises a `QuotaExceeded` of its own).
langgraph-api says only `An internal error occurred` for both in the stream and the
thread's `error`; `threads.failure` finds the exception's words in the failing task.
"""

from __future__ import annotations

from typing import Any

from agent_tui.chat.items import ErrorItem
from agent_tui.chat.run_request import RunRequest
from agent_tui.chat.session import ChatSession
from agent_tui.client import AgentServerClient
from agent_tui.client.events import ErrorEvent
from agent_tui.threads.failure import (
    GENERIC_MESSAGE,
    Failure,
    failure_of,
    run_failure,
    thread_failure,
)

GRAPH = "failing"
REFUSED = "Connection refused: code 7731"  # the ConnectError's own words (Linux: [Errno 111] …)


def message(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


async def failed_run(client: AgentServerClient, thread_id: str, text: str) -> list[ErrorEvent]:
    """Run `failing` on the thread with `text`; the stream's error events."""
    async with client.runs.stream(thread_id, GRAPH, input=message(text)) as run:
        return [event async for event in run if isinstance(event, ErrorEvent)]


async def test_the_servers_generic_words_give_way_to_the_exceptions_own(
    client: AgentServerClient,
) -> None:
    thread_id = (await client.threads.create(metadata={"graph_id": GRAPH})).thread_id
    errors = await failed_run(client, thread_id, "hello")
    # What the server says: the type, and no more than its generic text.
    assert [(e.error, e.message) for e in errors] == [("ConnectError", GENERIC_MESSAGE)]
    thread = await client.threads.get(thread_id)
    assert thread.status == "error"
    assert (thread.model_extra or {})["error"] == {
        "error": "ConnectError",
        "message": GENERIC_MESSAGE,
    }
    # Where its own words are: the failing task of the thread's state.
    tasks = (await client.threads.get_state(thread_id)).tasks
    [task] = [task for task in tasks if task.error]
    assert task.name == "call_model" and REFUSED in (task.error or "")

    failure = failure_of(thread, tasks)
    assert failure is not None
    assert (failure.error, failure.node) == ("ConnectError", "call_model")
    assert failure.message.endswith(REFUSED) and GENERIC_MESSAGE not in failure.message
    assert failure.line() == f"ConnectError in call_model: {failure.message}"
    assert await thread_failure(client, thread_id) == failure
    # The thread alone (its state unread) has only the generic text: shown as a last resort.
    assert failure_of(thread) == Failure("ConnectError", GENERIC_MESSAGE)


async def test_each_run_of_the_thread_keeps_its_own_failure(client: AgentServerClient) -> None:
    # The run record has no error: each run's newest checkpoint has its failing task,
    # so an older run's failure is its own, not the thread's last one.
    thread_id = (await client.threads.create(metadata={"graph_id": GRAPH})).thread_id
    await failed_run(client, thread_id, "quota exceeded")
    await failed_run(client, thread_id, "hello")
    newest, older = await client.runs.list(thread_id)
    assert (newest.status, older.status) == ("error", "error")
    assert "error" not in (newest.model_extra or {})  # (server-quirks.md)

    assert await run_failure(client, thread_id, older.run_id) == Failure(
        "QuotaExceeded", "quota exceeded: code 7731", "call_model"
    )
    last = await run_failure(client, thread_id, newest.run_id, last=True)
    assert last is not None and last.node == "call_model" and last.message.endswith(REFUSED)
    assert await run_failure(client, thread_id, newest.run_id) == last


async def test_the_chat_shows_the_exceptions_own_words_live_and_reopened(
    client: AgentServerClient,
) -> None:
    thread_id = (await client.threads.create(metadata={"graph_id": GRAPH})).thread_id
    session = ChatSession(client, thread_id)
    async for _step in session.send(RunRequest(GRAPH), "quota exceeded"):
        pass
    said = Failure("QuotaExceeded", "quota exceeded: code 7731", "call_model")
    errors = [item for item in session.transcript.items if isinstance(item, ErrorItem)]
    assert [item.failure() for item in errors] == [said]  # the stream's event, completed
    assert session.failure == said

    reopened = ChatSession(client, thread_id)
    await reopened.load()
    errors = [item for item in reopened.transcript.items if isinstance(item, ErrorItem)]
    assert [item.failure() for item in errors] == [said]
    assert reopened.failure == said

    # A run that works on the same thread: no failure is left over from the last one.
    async for _step in session.send(RunRequest("chat"), "hi"):
        pass
    assert session.thread_status == "idle" and session.failure is None


async def test_a_failure_inside_a_subgraph_names_the_node_that_raised(
    client: AgentServerClient,
) -> None:
    """`nested` runs the demo chat as its node `chat`; "fail" makes the chat's `agent`
    raise. The parent's task only says `chat`: the node inside it is named too."""
    thread_id = (await client.threads.create(metadata={"graph_id": "nested"})).thread_id
    session = ChatSession(client, thread_id)
    async for _step in session.send(RunRequest("nested"), "fail now"):
        pass
    said = Failure("DemoFailure", "You asked me to fail.", "chat ▸ agent")
    assert session.failure == said
    errors = [item for item in session.transcript.items if isinstance(item, ErrorItem)]
    assert [item.failure() for item in errors] == [said]
    assert await thread_failure(client, thread_id) == said
    [run] = await client.runs.list(thread_id)
    assert await run_failure(client, thread_id, run.run_id) == said
