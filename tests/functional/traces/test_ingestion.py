"""The collector takes what the real `langsmith` SDK sends, by every route it uses:
compressed and plain multipart, the batch endpoint, single runs and their patches, and
the pieces of a run in either order."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from langsmith import traceable, tracing_context

from agent_tui.local.trace_collector import TraceCollector
from agent_tui.traces.query import get_run, list_traces
from tests.support.traces import sdk_client, wait_until


@pytest.fixture
def collector(tmp_path: Path) -> Iterator[TraceCollector]:
    with TraceCollector(tmp_path / "traces") as running:
        yield running


def trace_a_chat(collector: TraceCollector, **options: Any) -> str:
    """A traced program's run: a chain that calls a model and a tool, sent by the SDK's
    background batching, flushed. Its trace id."""
    client = sdk_client(collector, **options)
    if (client.info.instance_flags or {}).get("zstd_compression_enabled") and not options:
        # The SDK turns compression on from a thread of its own once it has read /info:
        # a run traced before that goes uncompressed (seen when this module runs second).
        wait_until(lambda: client.compressed_traces, "the SDK's compressed buffer")
    meta = {"thread_id": "thread-1", "ls_model_name": "m-1", "ls_provider": "local"}

    @traceable(run_type="llm", metadata={**meta, "langgraph_node": "agent"})
    def model(question: str) -> dict[str, Any]:
        return {"answer": question.upper()}

    @traceable(run_type="tool", metadata={**meta, "langgraph_node": "tools"})
    def tool(question: str) -> str:
        return "tool says hi"

    @traceable(metadata=meta)
    def chain(question: str) -> str:
        model(question)
        return tool(question)

    with tracing_context(enabled=True, client=client):
        chain("hello")
    client.flush()
    (summary,) = list_traces(collector.store, thread_id="thread-1")
    return summary.trace_id


def test_compressed_multipart_is_stored(collector: TraceCollector) -> None:
    trace_id = trace_a_chat(collector)

    tree = get_run(collector.store, trace_id)
    assert tree is not None
    assert [(run.run_type, run.name) for run in tree.walk()] == [
        ("chain", "chain"),
        ("llm", "model"),
        ("tool", "tool"),
    ]
    assert tree.children[0].model == "m-1"
    assert tree.children[0].outputs == {"answer": "HELLO"}
    assert collector.received["multipart+zstd"] >= 1


def test_plain_multipart_is_stored_when_compression_is_not_offered(tmp_path: Path) -> None:
    with TraceCollector(tmp_path / "traces", compression=False) as plain:
        trace_id = trace_a_chat(plain)

        tree = get_run(plain.store, trace_id)
        assert tree is not None and len(tree.walk()) == 3
        assert all(run.status == "success" for run in tree.walk())
        assert set(plain.received) == {"multipart"}


def test_single_runs_and_patches_are_stored(collector: TraceCollector) -> None:
    # A client that does not batch posts each run to /runs and patches it at /runs/{id}.
    client = sdk_client(collector, auto_batch_tracing=False)
    run_id = uuid.uuid4()
    client.create_run("lone", {"question": "q"}, "chain", id=run_id)
    client.update_run(run_id, outputs={"answer": "a"}, end_time=datetime.now(UTC))

    run = get_run(collector.store, str(run_id))
    assert run is not None
    assert (run.name, run.inputs, run.outputs, run.status) == (
        "lone",
        {"question": "q"},
        {"answer": "a"},
        "success",
    )
    assert collector.received["run"] == 1 and collector.received["patch"] == 1
    assert [s.trace_id for s in list_traces(collector.store)] == [str(run_id)]


def run_pieces(name: str) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """A root run's id, post and patch, as `batch_ingest_runs` takes them (the SDK turns
    the ids in them into UUIDs as it sends them)."""
    run_id = str(uuid.uuid4())
    start = datetime.now(UTC)
    dotted = f"{start:%Y%m%dT%H%M%S%fZ}{run_id}"
    post = {
        "id": run_id,
        "trace_id": run_id,
        "dotted_order": dotted,
        "name": name,
        "run_type": "chain",
        "inputs": {"question": "q"},
        "start_time": start,
    }
    patch = {
        "id": run_id,
        "trace_id": run_id,
        "dotted_order": dotted,
        "outputs": {"answer": "a"},
        "end_time": start + timedelta(seconds=1),
    }
    return run_id, post, patch


@pytest.mark.parametrize("route", ["multipart", "batch"])
def test_a_patch_that_comes_before_its_post_is_kept(collector: TraceCollector, route: str) -> None:
    client = sdk_client(collector)
    send = client.multipart_ingest if route == "multipart" else client.batch_ingest_runs
    run_id, post, patch = run_pieces("late post")

    send(update=[patch])
    send(create=[post])

    run = get_run(collector.store, run_id)
    assert run is not None
    assert (run.name, run.inputs, run.outputs, run.status) == (
        "late post",
        {"question": "q"},
        {"answer": "a"},
        "success",
    )
    assert run.latency == pytest.approx(1.0)
    assert collector.received[route] == 2


def test_writes_need_the_collectors_key(collector: TraceCollector) -> None:
    _, post, _ = run_pieces("intruder")
    body = {"post": [{**post, "start_time": post["start_time"].isoformat()}]}
    with httpx.Client(base_url=collector.url) as http:
        assert http.get("/info").status_code == 200
        missing = http.post("/runs/batch", json=body)
        wrong = http.post("/runs/batch", json=body, headers={"X-Api-Key": "not-the-key"})
        bad = http.post(
            "/runs/multipart",
            content=b"\x28\xb5\x2f\xfdnot zstd",
            headers={
                "X-Api-Key": collector.api_key,
                "Content-Type": "multipart/form-data; boundary=b",
                "Content-Encoding": "zstd",
            },
        )
    assert (missing.status_code, wrong.status_code) == (401, 403)
    assert bad.status_code == 400 and "zstd" in bad.json()["detail"]
    assert list_traces(collector.store) == []


def test_the_oldest_traces_are_pruned_past_the_limit(tmp_path: Path) -> None:
    limit = 60_000
    with TraceCollector(tmp_path / "traces", max_bytes=limit) as small:
        client = sdk_client(small)
        sent = []
        for number in range(40):
            run_id, post, patch = run_pieces(f"trace {number}")
            post["inputs"] = {"text": f"{number} " + "x" * 4000}
            client.batch_ingest_runs(create=[post], update=[patch])
            sent.append(run_id)

        kept = {summary.trace_id for summary in list_traces(small.store, limit=100)}
        assert small.store.stored_bytes() <= limit
        assert sent[-1] in kept and sent[0] not in kept
        # Whole traces, oldest first: what is kept is the newest, without a gap.
        assert kept == set(sent[-len(kept) :])
