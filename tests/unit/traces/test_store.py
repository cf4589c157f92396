"""The store's merge of a run's pieces, whatever their order, and the columns it lists."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_tui.local.trace_collector.bodies import multipart_operations
from agent_tui.traces.query import get_run, list_traces
from agent_tui.traces.store import TraceStore, overlay

POST: dict[str, Any] = {
    "id": "r1",
    "trace_id": "r1",
    "dotted_order": "20261206T120000000000Zr1",
    "name": "graph",
    "run_type": "chain",
    "start_time": "2026-12-06T12:00:00+00:00",
    "inputs": {"q": 1},
    "extra": {"metadata": {"thread_id": "t1", "run_id": "r1"}, "runtime": {"sdk": "x"}},
}
PATCH: dict[str, Any] = {
    "id": "r1",
    "end_time": "2026-12-06T12:00:02+00:00",
    "outputs": {"a": 2},
    "extra": {"metadata": {"revision_id": "v"}},
    "inputs": None,
}


def test_overlay_keeps_both_pieces_metadata() -> None:
    merged = overlay(POST, PATCH)
    assert merged["inputs"] == {"q": 1}  # a None changes nothing
    assert merged["extra"]["metadata"] == {"thread_id": "t1", "run_id": "r1", "revision_id": "v"}
    assert merged["extra"]["runtime"] == {"sdk": "x"}


def test_pieces_in_any_order_make_the_same_run(tmp_path: Path) -> None:
    orders = {
        "post first": [[("post", POST)], [("patch", PATCH)]],
        "patch first": [[("patch", PATCH)], [("post", POST)]],
        "one request": [[("patch", PATCH), ("post", POST)]],
    }
    for name, requests in orders.items():
        store = TraceStore(tmp_path / f"{name}.sqlite3")
        for operations in requests:
            store.ingest(operations)  # type: ignore[arg-type]
        run = get_run(store, "r1")
        (summary,) = list_traces(store, thread_id="t1")
        store.close()
        assert run is not None, name
        assert (run.inputs, run.outputs, run.status, run.latency) == (
            {"q": 1},
            {"a": 2},
            "success",
            2.0,
        ), name
        assert (summary.graph_run_id, summary.status) == ("r1", "success"), name


def test_multipart_parts_of_one_run_are_joined() -> None:
    boundary = "b0undary"
    parts = [
        ("post.r1", b'{"id": "r1", "name": "graph", "run_type": "chain"}'),
        ("post.r1.inputs", b'{"q": 1}'),
        ("attachment.r1.image", b"\x89PNG\r\n--b0und"),
        ("patch.r2.outputs", b'{"a": 2}'),
        ("feedback.f1", b"{}"),
    ]
    body = (
        b"".join(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n'
            f"Content-Type: application/json\r\n\r\n".encode()
            + data
            + b"\r\n"
            for name, data in parts
        )
        + f"--{boundary}--\r\n".encode()
    )

    operations = multipart_operations(body, f"multipart/form-data; boundary={boundary}")

    assert operations == [
        ("post", {"id": "r1", "name": "graph", "run_type": "chain", "inputs": {"q": 1}}),
        ("patch", {"id": "r2", "outputs": {"a": 2}}),
    ]
