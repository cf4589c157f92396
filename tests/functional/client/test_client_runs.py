"""`client.runs` against the real agent server: streams, rejoin, cancel, list."""

from __future__ import annotations

from importlib import metadata

from agent_tui.client import AgentServerClient
from agent_tui.client.events import CustomEvent, MetadataEvent, UpdatesEvent, ValuesEvent


async def test_stream_starts_with_metadata_then_one_update_per_node(
    client: AgentServerClient,
) -> None:
    thread = await client.threads.create()
    async with client.runs.stream(
        thread.thread_id, "counter", input={"n": 5}, stream_mode=["updates", "values"]
    ) as stream:
        events = [event async for event in stream]
    first = events[0]
    assert isinstance(first, MetadataEvent)
    assert first.run_id is not None and first.run_id == stream.run_id  # also from Content-Location
    updates = [e.updates for e in events if isinstance(e, UpdatesEvent)]
    assert updates == [{"inc": {"n": 6, "items": [5]}}, {"dbl": {"n": 12}}]
    values = [e.data for e in events if isinstance(e, ValuesEvent)]
    assert values[-1] == {"n": 12, "items": [5]}
    run = await client.runs.get(thread.thread_id, first.run_id)
    assert run.status == "success"
    assert (await client.threads.get(thread.thread_id)).status == "idle"


async def test_resumable_run_can_be_rejoined_from_any_event(client: AgentServerClient) -> None:
    thread = await client.threads.create()
    context = {"ticks": 6, "delay": 0.01}
    async with client.runs.stream(
        thread.thread_id,
        "ticker",
        input={},
        context=context,
        stream_mode="custom",
        stream_resumable=True,
    ) as stream:
        ticks = [e.data["tick"] async for e in stream if isinstance(e, CustomEvent)]
        assert stream.run_id is not None
        ids_seen = stream.last_event_id
    assert ticks == list(range(6))
    assert ids_seen is not None

    async with client.runs.join_stream(
        thread.thread_id, stream.run_id, last_event_id="-1"
    ) as joined:
        replayed = [e.data["tick"] async for e in joined if isinstance(e, CustomEvent)]
    assert replayed == list(range(6))


async def test_rejoin_after_leaving_mid_run_misses_nothing(client: AgentServerClient) -> None:
    thread = await client.threads.create()
    context = {"ticks": 10, "delay": 0.05}
    seen: list[int] = []
    async with client.runs.stream(
        thread.thread_id,
        "ticker",
        input={},
        context=context,
        stream_mode="custom",
        stream_resumable=True,
    ) as stream:
        async for event in stream:
            if isinstance(event, CustomEvent):
                seen.append(event.data["tick"])
                if len(seen) == 3:
                    break  # the client goes away; the run carries on (on_disconnect=continue)
    assert stream.run_id and stream.last_event_id
    async with client.runs.join_stream(
        thread.thread_id, stream.run_id, last_event_id=stream.last_event_id
    ) as joined:
        seen += [e.data["tick"] async for e in joined if isinstance(e, CustomEvent)]
    assert seen == list(range(10))


async def test_cancel_stops_a_running_run(client: AgentServerClient) -> None:
    thread = await client.threads.create()
    context = {"ticks": 400, "delay": 0.05}
    async with client.runs.stream(
        thread.thread_id, "ticker", input={}, context=context, stream_mode="custom"
    ) as stream:
        async for event in stream:
            if isinstance(event, CustomEvent):
                assert stream.run_id is not None
                await client.runs.cancel(thread.thread_id, stream.run_id, wait=True)
                break
    assert stream.run_id is not None
    run = await client.runs.get(thread.thread_id, stream.run_id)
    assert run.status == "interrupted"  # cancel's default action keeps the thread
    # The run stopped early: the node never wrote its result.
    assert (await client.threads.get_state(thread.thread_id)).values.get("done") is None
    runs = await client.runs.list(thread.thread_id)
    assert [r.run_id for r in runs] == [stream.run_id]


async def test_join_waits_for_the_run_and_returns_the_final_values(
    client: AgentServerClient,
) -> None:
    thread = await client.threads.create()
    async with client.runs.stream(
        thread.thread_id,
        "ticker",
        input={},
        context={"ticks": 3, "delay": 0.01},
        stream_mode="custom",
    ) as stream:
        async for _event in stream:
            break  # leave at once; the run goes on without us
    assert stream.run_id is not None
    assert await client.runs.join(thread.thread_id, stream.run_id) == {"done": 3}


async def test_info_and_ok(client: AgentServerClient, unused_tcp_port: int) -> None:
    info = await client.info()
    assert info.version == metadata.version("langgraph-api")  # any release of the range
    assert info.flags["assistants"] is True
    assert await client.ok() is True
    async with AgentServerClient(f"http://127.0.0.1:{unused_tcp_port}") as nowhere:
        assert await nowhere.ok() is False
