"""`agent_tui.server.upstream`: what the server would lack is named before it starts, and a
run a crash cut off goes back to the queue where the runtime would leave it running."""

from __future__ import annotations

from datetime import UTC, datetime
from importlib import metadata
from typing import Any

import pytest
from langgraph_runtime_inmem import _persistence
from langgraph_runtime_inmem.ops import Runs

from agent_tui.server import upstream


def test_nothing_is_missing_on_the_installed_release() -> None:
    assert upstream.missing() == []


def test_a_name_gone_upstream_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(_persistence, "stop_flush_loop")
    monkeypatch.setattr(_persistence, "_stores", [])
    assert upstream.missing() == ["_persistence._stores", "_persistence.stop_flush_loop"]


def test_a_changed_signature_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    async def next_runs(wait: bool, limit: int = 1, *, queue: str = "") -> Any:
        yield None

    monkeypatch.setattr(Runs, "next", staticmethod(next_runs))
    assert upstream.missing() == ["ops.Runs.next(wait, limit)"]


def saved_runs() -> dict[str, Any]:
    then = datetime(2026, 1, 1, tzinfo=UTC)
    return {
        "runs": [
            {"run_id": "cut-off", "status": "running", "updated_at": then},
            {"run_id": "queued", "status": "pending", "updated_at": then},
            {"run_id": "done", "status": "success", "updated_at": then},
        ],
        "threads": [{"thread_id": "t", "status": "busy"}],
    }


def runtime_release(monkeypatch: pytest.MonkeyPatch, version: str) -> None:
    real = metadata.version

    def version_of(name: str) -> str:
        return version if name == "langgraph-runtime-inmem" else real(name)

    monkeypatch.setattr(metadata, "version", version_of)


@pytest.mark.parametrize("version", ["0.34.4", "0.35.9"])
def test_a_run_left_running_goes_back_to_the_queue_on_runtimes_that_leave_it(
    monkeypatch: pytest.MonkeyPatch, version: str
) -> None:
    runtime_release(monkeypatch, version)
    records = saved_runs()
    assert upstream.requeue_cut_off_runs(records) == ["cut-off"]
    runs = {run["run_id"]: run for run in records["runs"]}
    assert [run["status"] for run in runs.values()] == ["pending", "pending", "success"]
    assert runs["cut-off"]["updated_at"] > runs["queued"]["updated_at"]
    assert records["threads"] == saved_runs()["threads"]


@pytest.mark.parametrize("version", ["0.36.0", "0.36.7", "0.37.1", "1.0.0"])
def test_runtimes_that_requeue_it_themselves_are_left_to_it(
    monkeypatch: pytest.MonkeyPatch, version: str
) -> None:
    runtime_release(monkeypatch, version)
    records = saved_runs()
    assert upstream.requeue_cut_off_runs(records) == []
    assert records == saved_runs()
