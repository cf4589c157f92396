"""The calls the Calls tab lists: a run's, or the whole thread's, in the order they ran,
the first screenful alone when asked, with totals only over all of them; and why a
server's runs have no traces here."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from agent_tui.traces.scoped_calls import NoTraceStore, read_call, read_scoped_calls
from agent_tui.traces.store import TraceStore
from agent_tui.traces.untraced import why_no_traces

T0 = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)


def traced_run(run_id: str, thread_id: str, calls: int, start: datetime) -> list[Any]:
    """A graph run with `calls` calls under it, a model call and a tool call in turn."""
    order = f"{start:%Y%m%dT%H%M%S%fZ}{run_id}"
    meta = {"thread_id": thread_id, "run_id": run_id}
    ops: list[Any] = [
        ("post", {"id": run_id, "trace_id": run_id, "dotted_order": order, "name": "agent",
                  "run_type": "chain", "start_time": start.isoformat(),
                  "end_time": (start + timedelta(seconds=calls + 1)).isoformat(),
                  "extra": {"metadata": meta}}),
    ]  # fmt: skip
    for number in range(calls):
        began = start + timedelta(seconds=number)
        call_id = f"{run_id}-call-{number}"
        model = number % 2 == 0
        call_meta: dict[str, Any] = {**meta, "langgraph_node": "agent" if model else "tools"}
        if model:
            call_meta |= {"ls_provider": "openai", "ls_model_name": "gpt-4o-mini",
                          "usage_metadata": {"input_tokens": 10, "output_tokens": 2}}  # fmt: skip
        ops.append(
            (
                "post",
                {
                    "id": call_id,
                    "trace_id": run_id,
                    "parent_run_id": run_id,
                    "dotted_order": f"{order}.{began:%Y%m%dT%H%M%S%fZ}{call_id}",
                    "name": "ChatOpenAI" if model else "lookup",
                    "run_type": "llm" if model else "tool",
                    "start_time": began.isoformat(),
                    "end_time": (began + timedelta(seconds=0.5)).isoformat(),
                    "inputs": {"messages": [[{"type": "system", "content": "Be brief."}]]},
                    "extra": {"metadata": call_meta},
                },
            )
        )
    return ops


@pytest.fixture
def store_path(tmp_path: Path) -> Iterator[Path]:
    store = TraceStore(tmp_path / "traces.sqlite3")
    store.ingest(traced_run("run-a", "thread-1", 6, T0))
    store.ingest(traced_run("run-b", "thread-1", 4, T0 + timedelta(minutes=1)))
    store.ingest(traced_run("run-c", "thread-2", 2, T0))
    store.close()
    yield tmp_path / "traces.sqlite3"


def test_a_runs_calls_in_order_with_their_totals(store_path: Path) -> None:
    scoped = read_scoped_calls("thread-1", "run-a", store_path=store_path)
    assert [call.id for call in scoped.calls] == [f"run-a-call-{n}" for n in range(6)]
    assert scoped.calls[0].provider == "openai" and scoped.calls[1].provider is None
    assert scoped.complete and scoped.totals is not None
    assert (scoped.totals.model_calls, scoped.totals.tool_calls) == (3, 3)
    assert scoped.totals.input_tokens == 30
    assert scoped.totals.model_seconds == 1.5 and scoped.totals.wall_seconds == 7.0


def test_the_whole_threads_calls_and_its_runs_wall_time(store_path: Path) -> None:
    scoped = read_scoped_calls("thread-1", None, store_path=store_path)
    assert len(scoped.calls) == 10
    assert scoped.calls[0].id == "run-a-call-0" and scoped.calls[-1].id == "run-b-call-3"
    assert scoped.totals is not None and scoped.totals.wall_seconds == 7.0 + 5.0


def test_the_first_calls_alone_have_no_totals(store_path: Path) -> None:
    scoped = read_scoped_calls("thread-1", "run-a", store_path=store_path, first=2)
    assert [call.id for call in scoped.calls] == ["run-a-call-0", "run-a-call-1"]
    assert not scoped.complete and scoped.totals is None


def test_a_run_not_traced_in_a_traced_thread(store_path: Path) -> None:
    scoped = read_scoped_calls("thread-1", "run-z", store_path=store_path)
    assert scoped.thread_traced and not scoped.run_traced and not scoped.calls
    untraced = read_scoped_calls("thread-9", None, store_path=store_path)
    assert not untraced.thread_traced


def test_one_call_whole_and_no_store(store_path: Path, tmp_path: Path) -> None:
    call = read_call("run-a-call-0", store_path=store_path)
    assert call is not None and call.messages[0]["content"] == "Be brief."
    assert read_call("gone", store_path=store_path) is None
    with pytest.raises(NoTraceStore, match="nothing has been traced"):
        read_scoped_calls("thread-1", None, store_path=tmp_path / "none" / "traces.sqlite3")


def test_why_a_servers_runs_have_no_traces_here() -> None:
    assert "not started by agent-tui" in why_no_traces("not-started-here")
    assert "agent-tui traces serve" in why_no_traces("not-started-here")
    assert "tracing off" in why_no_traces("tracing-off")
    assert "its own LANGSMITH_*" in why_no_traces("own-settings")
    assert "pruned" in why_no_traces("traced")
