"""`client.crons` against the real agent server (crons are on in the in-memory runtime).

Schedules here are yearly (`0 0 1 1 *`) so no cron fires while the suite runs.
"""

from __future__ import annotations

import pytest

from agent_tui.client import AgentServerClient, NotFound, ValidationFailed

YEARLY = "0 0 1 1 *"


async def test_create_search_count_update_delete(client: AgentServerClient) -> None:
    assistant = await client.assistants.create("counter", name="cron target")
    thread = await client.threads.create(metadata={"graph_id": "counter"})
    stateless = await client.crons.create(assistant.assistant_id, YEARLY, input={"n": 1})
    bound = await client.crons.create_for_thread(
        thread.thread_id, assistant.assistant_id, "30 6 * * 1", input={"n": 2}
    )
    try:
        assert stateless.thread_id is None and stateless.input == {"n": 1}
        assert bound.thread_id == thread.thread_id and bound.enabled
        assert bound.next_run_date is not None and bound.next_run_date.weekday() == 0

        mine = await client.crons.search(assistant_id=assistant.assistant_id)
        assert {c.cron_id for c in mine} == {stateless.cron_id, bound.cron_id}
        assert await client.crons.count(assistant_id=assistant.assistant_id) == 2
        on_thread = await client.crons.search(thread_id=thread.thread_id)
        assert [c.cron_id for c in on_thread] == [bound.cron_id]

        changed = await client.crons.update(bound.cron_id, schedule=YEARLY)
        assert changed.schedule == YEARLY
        assert (await client.crons.get(bound.cron_id)).schedule == YEARLY
    finally:
        await client.crons.delete(stateless.cron_id)
        await client.crons.delete(bound.cron_id)
    assert await client.crons.count(assistant_id=assistant.assistant_id) == 0
    with pytest.raises(NotFound):
        await client.crons.get(bound.cron_id)


async def test_a_bad_schedule_is_refused_with_the_servers_reason(
    client: AgentServerClient,
) -> None:
    assistant = await client.assistants.create("counter")
    with pytest.raises(ValidationFailed, match="Invalid cron schedule"):
        await client.crons.create(assistant.assistant_id, "every day")
