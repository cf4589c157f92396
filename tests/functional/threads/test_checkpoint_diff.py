"""Checkpoint diffs of real threads: added key, changed value, appended and removed items."""

from __future__ import annotations

from agent_tui.client import AgentServerClient
from agent_tui.client.models import ThreadState
from agent_tui.text.value_diff import ValueChange
from agent_tui.threads.checkpoint_diff import diff_checkpoints
from agent_tui.threads.history import ThreadHistory
from agent_tui.threads.writes import checkpoint_writes


async def run(
    client: AgentServerClient, thread_id: str, graph: str, input: dict[str, object]
) -> None:
    async with client.runs.stream(
        thread_id, graph, input=input, context={"token_delay_ms": 0}
    ) as stream:
        async for _ in stream:
            pass


async def lineage(client: AgentServerClient, thread_id: str) -> list[ThreadState]:
    history = ThreadHistory(client, thread_id)
    await history.load_all()
    return history.lineage()


async def test_counter_run_step_by_step(client: AgentServerClient) -> None:
    thread = await client.threads.create(metadata={"graph_id": "counter"})
    await run(client, thread.thread_id, "counter", {"n": 5})
    states = await lineage(client, thread.thread_id)  # steps -1, 0, 1, 2

    # The input applied: a key added.
    assert diff_checkpoints(states[0], states[1]).values == [ValueChange("added", ("n",), after=5)]
    # inc: a value changed and an item appended; what inc wrote comes from the parent's task.
    writes = checkpoint_writes(states[2], states[1]).nodes
    diff = diff_checkpoints(states[1], states[2], writes_b=writes)
    assert diff.values == [
        ValueChange("changed", ("n",), 5, 6),
        ValueChange("items_added", ("items",), after=[5], index=0, appended=True),
    ]
    assert diff.as_json()["next"] == {"a": ["inc"], "b": ["dbl"], "changed": True}
    assert diff.as_json()["b"]["writes"] == {"inc": {"n": 6, "items": [5]}}
    assert diff.lines()[3:] == [
        "values:",
        "  ~ n: 5 → 6",
        "  + items: appended 1 item: [5]",
        'next: ["inc"] → ["dbl"]',
        "written to make a: unknown",
        "written to make b:",
        "  inc: n: 6",
        "  inc: items: [5]",
    ]
    # Backwards, from the end to the start of the run: the item is removed, n changes.
    back = diff_checkpoints(states[3], states[1])
    assert back.values == [
        ValueChange("changed", ("n",), 12, 5),
        ValueChange("items_removed", ("items",), before=[5], index=0),
    ]
    assert back.as_json()["next"] == {"a": [], "b": ["inc"], "changed": True}


async def test_chat_messages_appended_and_removed(client: AgentServerClient) -> None:
    thread = await client.threads.create(metadata={"graph_id": "chat"})
    await run(
        client, thread.thread_id, "chat", {"messages": [{"role": "user", "content": "hello"}]}
    )
    before = await client.threads.get_state(thread.thread_id)
    _human, answer = before.values["messages"]
    assert answer["content"] == "You said: hello"

    await run(
        client, thread.thread_id, "chat", {"messages": [{"role": "user", "content": "again"}]}
    )
    after = await client.threads.get_state(thread.thread_id)
    diff = diff_checkpoints(before, after)
    assert [(c.kind, c.index) for c in diff.values] == [("message_added", 2), ("message_added", 3)]
    assert [c.after["content"] for c in diff.values] == ["again", "You said: again"]
    assert [line.split(" (id ")[0] for line in diff.lines()[4:6]] == [
        '  + messages: human "again"',
        '  + messages: ai "You said: again"',
    ]

    # Remove the first answer (add_messages takes a `remove` message by id).
    await client.threads.update_state(
        thread.thread_id, {"messages": [{"type": "remove", "id": answer["id"], "content": ""}]}
    )
    removed = await client.threads.get_state(thread.thread_id)
    diff = diff_checkpoints(after, removed)
    assert diff.values == [ValueChange("message_removed", ("messages",), before=answer)]
    assert diff.values[0].line() == f'- messages: ai "You said: hello" (id {answer["id"]})'
    assert not diff.next_changed


async def test_an_edited_message_is_a_change_of_the_same_id(client: AgentServerClient) -> None:
    thread = await client.threads.create(metadata={"graph_id": "chat"})
    await run(client, thread.thread_id, "chat", {"messages": [{"role": "user", "content": "hi"}]})
    before = await client.threads.get_state(thread.thread_id)
    answer = before.values["messages"][1]
    edited = {**answer, "content": "Edited answer"}
    await client.threads.update_state(thread.thread_id, {"messages": [edited]}, as_node="agent")
    after = await client.threads.get_state(thread.thread_id)
    (change,) = diff_checkpoints(before, after).values
    assert (change.kind, change.index) == ("message_changed", 1)
    assert change.line() == f'~ messages: ai "You said: hi" (id {answer["id"]}) → "Edited answer"'
