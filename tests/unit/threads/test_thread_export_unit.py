"""What wrote a checkpoint, replayable writes, and export file validation (no server)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_tui.client.models import AssistantGraph, ThreadState
from agent_tui.threads.export import (
    ExportFormatError,
    infer_as_node,
    load_export,
    supersteps_of,
    validate_export,
)
from agent_tui.threads.writes import checkpoint_writes, delta_values


def state(
    values: dict[str, Any],
    *,
    source: str = "loop",
    step: int = 1,
    tasks: list[dict[str, Any]] | None = None,
    writes: dict[str, Any] | None = None,
) -> ThreadState:
    metadata: dict[str, Any] = {"source": source, "step": step}
    if writes is not None:
        metadata["writes"] = writes
    return ThreadState.model_validate(
        {"values": values, "metadata": metadata, "tasks": tasks or []}
    )


def task(name: str, result: Any) -> dict[str, Any]:
    return {"id": f"t-{name}", "name": name, "result": result}


def test_metadata_writes_win_when_the_server_records_them() -> None:
    writes = checkpoint_writes(state({"n": 2}, writes={"inc": {"n": 2}}), None)
    assert (writes.nodes, writes.source) == ({"inc": {"n": 2}}, "metadata")


def test_the_input_checkpoint_wrote_its_start_task_result() -> None:
    input_state = state({}, source="input", step=-1, tasks=[task("__start__", {"n": 5})])
    writes = checkpoint_writes(input_state, None)
    assert (writes.nodes, writes.source) == ({"__input__": {"n": 5}}, "input")


def test_a_loop_step_wrote_what_its_parents_tasks_returned() -> None:
    parent = state(
        {"n": 5}, tasks=[task("a", {"n": 6}), task("b", {"items": [1]}), task("c", None)]
    )
    writes = checkpoint_writes(state({"n": 6, "items": [1]}), parent)
    # Two nodes ran in parallel; `c` did not run (no result).
    assert (writes.nodes, writes.source) == ({"a": {"n": 6}, "b": {"items": [1]}}, "tasks")


def test_an_update_that_disagrees_with_the_parents_tasks_is_a_delta() -> None:
    # A fork: the parent's task result is what the original run wrote, not this update.
    parent = state({"n": 5, "items": []}, tasks=[task("inc", {"n": 6, "items": [5]})])
    writes = checkpoint_writes(state({"n": 50, "items": []}, source="update"), parent)
    assert (writes.nodes, writes.source) == ({"": {"n": 50}}, "delta")
    assert not writes.known_nodes


def test_a_replayed_loop_step_keeps_its_node_and_takes_the_difference() -> None:
    # The parent keeps one result per task: the first run's. The replay wrote something else.
    parent = state({"n": 5}, tasks=[task("inc", {"n": 6})])
    writes = checkpoint_writes(state({"n": 7}), parent)
    assert (writes.nodes, writes.source, writes.known_nodes) == ({"inc": {"n": 7}}, "delta", True)


def test_written_messages_take_the_ids_the_reducer_gave_them() -> None:
    stored = {"type": "human", "content": "hi", "id": "m1"}
    parent = state(
        {"messages": []},
        tasks=[task("__start__", {"messages": [{"role": "user", "content": "hi"}]})],
    )
    writes = checkpoint_writes(state({"messages": [stored]}), parent)
    assert writes.nodes == {"__start__": {"messages": [stored]}}


def test_delta_values_follows_the_usual_reducers() -> None:
    m1 = {"type": "human", "content": "hi", "id": "m1"}
    m2 = {"type": "ai", "content": "yo", "id": "m2"}
    before = {"n": 1, "items": [1, 2], "messages": [m1], "tags": ["a"], "gone": 1, "same": 3}
    after = {"n": 2, "items": [1, 2, 3], "messages": [m1, m2], "tags": ["b"], "same": 3}
    assert delta_values(before, after) == {
        "n": 2,
        "items": [3],  # appended: operator.add
        "messages": [m2],  # new by id: add_messages
        "tags": ["b"],  # not an extension: the new value
    }


def graph(*edges: tuple[str, str, bool]) -> AssistantGraph:
    return AssistantGraph.model_validate(
        {"edges": [{"source": s, "target": t, "conditional": c} for s, t, c in edges]}
    )


def test_infer_as_node_from_the_graph() -> None:
    counter = graph(("__start__", "inc", False), ("inc", "dbl", False), ("dbl", "__end__", False))
    assert infer_as_node(["dbl"], [], counter) == "inc"
    assert infer_as_node(["inc"], [], counter) == "__start__"
    assert infer_as_node([], ["dbl"], counter) == "dbl"
    chat = graph(
        ("__start__", "agent", False),
        ("agent", "tools", True),
        ("agent", "__end__", True),
        ("tools", "agent", False),
        ("approve", "agent", False),
    )
    # Plain edges first: `tools` and `approve` both lead to agent; `__start__` last.
    assert infer_as_node(["agent"], [], chat) == "approve"
    assert infer_as_node([], [], chat) == "agent"
    # Without the graph: the node the parent waited for.
    assert infer_as_node(["x"], ["approve"], None) == "approve"


def export(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "format": "agent-tui.thread",
        "version": 1,
        "exported_at": "2026-11-21T00:00:00+00:00",
        "source": {"url": "http://x", "thread_id": "t1", "graph_id": "counter"},
        "thread": {"thread_id": "t1", "metadata": {"graph_id": "counter"}},
        "checkpoints": [
            {
                "checkpoint_id": "c1",
                "step": -1,
                "writes": {"__input__": {"n": 1}},
                "values": {},
                "next": ["__start__"],
            }
        ],
    }
    data.update(changes)
    return data


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "not a thread export: the file holds no JSON object"),
        (
            export(format="other"),
            "not a thread export: format is 'other', expected 'agent-tui.thread'",
        ),
        (export(version=2), "unsupported export version 2: this agent-tui reads version 1"),
        ({k: v for k, v in export().items() if k != "thread"}, "missing key(s): thread"),
        (export(checkpoints={}), "checkpoints: a list is needed"),
        (
            export(checkpoints=[{"checkpoint_id": "c", "step": 0}]),
            "checkpoints[0]: missing key(s): writes, values, next",
        ),
        (
            export(
                checkpoints=[
                    {"checkpoint_id": "c", "step": 0, "writes": {}, "values": {}, "next": []}
                ]
            ),
            "checkpoints[0].writes: an object of node → values is needed",
        ),
        (
            export(source={}, thread={"metadata": {}}),
            "no graph_id (in source.graph_id or thread.metadata.graph_id): supersteps need the "
            "graph to apply them to",
        ),
    ],
)
def test_validation_names_the_problem(data: Any, message: str) -> None:
    with pytest.raises(ExportFormatError) as caught:
        validate_export(data)
    assert str(caught.value) == message


def test_load_export_reports_bad_json_with_its_place() -> None:
    with pytest.raises(
        ExportFormatError, match="not valid JSON: Expecting value at line 1, column 1"
    ):
        load_export("nope")
    assert load_export(json.dumps(export()))["version"] == 1


def test_one_superstep_per_checkpoint_one_update_per_node() -> None:
    message: dict[str, Any] = {
        "type": "ai",
        "content": "hi",
        "id": "a1",
        "tool_calls": [],
        "invalid_tool_calls": [],
        "usage_metadata": None,
    }
    data = export(
        checkpoints=[
            {
                "checkpoint_id": "c1",
                "step": -1,
                "writes": {"__input__": {"n": 1}},
                "values": {},
                "next": [],
            },
            {
                "checkpoint_id": "c2",
                "step": 0,
                "writes": {"a": {"n": 2}, "b": {"messages": [message]}},
                "values": {},
                "next": [],
            },
        ]
    )
    assert supersteps_of(data) == [
        {"updates": [{"values": {"n": 1}, "as_node": "__input__"}]},
        {
            "updates": [
                {"values": {"n": 2}, "as_node": "a"},
                # Default-valued fields that langchain-core would misfile are left out.
                {
                    "values": {
                        "messages": [{"type": "ai", "content": "hi", "id": "a1", "tool_calls": []}]
                    },
                    "as_node": "b",
                },
            ]
        },
    ]
