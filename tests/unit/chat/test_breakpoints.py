"""The chat's breakpoints model: which nodes can be paused at, what a run is given, and
what the state line and the chat say (no server)."""

from __future__ import annotations

import pytest

from agent_tui.chat.breakpoints import (
    BreakpointNode,
    BreakpointRefused,
    ThreadBreakpoints,
    graph_nodes,
    pause_text,
)
from agent_tui.chat.waiting import Waiting, WaitingInterrupt
from agent_tui.client.models import AssistantGraph


def graph(*ids: str) -> AssistantGraph:
    return AssistantGraph.model_validate({"nodes": [{"id": i} for i in ids], "edges": []})


# What the server answers for tests/graphs/nested.py, without and with xray.
NESTED = graph("__start__", "prepare", "chat", "__end__")
NESTED_XRAY = graph(
    "__start__",
    "prepare",
    "__end__",
    "chat:__start__",
    "chat:agent",
    "chat:tools",
    "chat:approve",
    "chat:__end__",
)


def test_a_flat_graph_lists_its_nodes_without_start_and_end() -> None:
    chat = graph("__start__", "agent", "tools", "approve", "__end__")
    assert graph_nodes(chat, chat) == [
        BreakpointNode("agent"),
        BreakpointNode("tools"),
        BreakpointNode("approve"),
    ]


def test_subgraph_nodes_follow_their_parent_and_cannot_be_paused_at() -> None:
    nodes = graph_nodes(NESTED, NESTED_XRAY)
    assert [n.name for n in nodes] == [
        "prepare",
        "chat",
        "chat:agent",
        "chat:tools",
        "chat:approve",
    ]
    assert [n.pausable for n in nodes] == [True, True, False, False, False]
    assert nodes[2].refusal == (
        "a run pauses only at top-level nodes: pause at chat instead,"
        " or compile its subgraph with interrupt_before/after"
    )
    assert nodes[2].depth == 1


def test_a_node_two_subgraphs_deep_names_its_whole_path() -> None:
    nodes = graph_nodes(graph("outer"), graph("outer:inner:leaf"))
    assert nodes[1] == BreakpointNode("outer:inner:leaf", "outer:inner")
    assert nodes[1].refusal == (
        "a run pauses only at top-level nodes: pause at outer instead,"
        " or compile its subgraph with interrupt_before/after"
    )
    assert nodes[1].depth == 2


def test_no_breakpoints_gives_the_run_none() -> None:
    chosen = ThreadBreakpoints()
    assert chosen.run_kwargs() == {"interrupt_before": None, "interrupt_after": None}
    assert chosen.summary() == ""
    assert not chosen.active


def test_toggles_set_and_clear_each_side() -> None:
    chosen = ThreadBreakpoints()
    assert chosen.toggle(BreakpointNode("tools"), "before") is True
    assert chosen.toggle(BreakpointNode("agent"), "after") is True
    assert chosen.run_kwargs() == {"interrupt_before": ["tools"], "interrupt_after": ["agent"]}
    assert chosen.summary() == "‖ before: tools · after: agent"
    assert chosen.toggle(BreakpointNode("tools"), "before") is False
    assert chosen.run_kwargs() == {"interrupt_before": None, "interrupt_after": ["agent"]}
    assert chosen.is_set("agent", "after") and not chosen.is_set("agent", "before")


def test_stepping_pauses_before_every_node_and_keeps_the_after_breakpoints() -> None:
    chosen = ThreadBreakpoints(before=["tools"], after=["agent"])
    assert chosen.toggle_stepping() is True
    assert chosen.run_kwargs() == {"interrupt_before": "*", "interrupt_after": ["agent"]}
    assert chosen.summary() == "‖ stepping · after: agent"
    chosen.toggle_stepping()
    assert chosen.run_kwargs()["interrupt_before"] == ["tools"]  # kept while stepping


def test_one_step_pauses_before_the_next_node_without_changing_the_choice() -> None:
    chosen = ThreadBreakpoints(before=["tools"])
    assert chosen.step_kwargs() == {"interrupt_before": "*", "interrupt_after": "*"}
    assert chosen.run_kwargs() == {"interrupt_before": ["tools"], "interrupt_after": None}


def test_a_node_inside_a_subgraph_is_refused_with_the_reason() -> None:
    chosen = ThreadBreakpoints()
    with pytest.raises(BreakpointRefused, match=r"only at top-level nodes: pause at chat instead"):
        chosen.toggle(BreakpointNode("chat:tools", "chat"), "before")
    assert chosen.run_kwargs() == {"interrupt_before": None, "interrupt_after": None}


def test_what_the_chat_says_when_a_run_stops() -> None:
    assert pause_text(Waiting(("tools",), pause="before", node="tools")) == "paused before tools"
    assert pause_text(Waiting(("tools",), pause="after", node="agent")) == "paused after agent"
    # A breakpoint the run was not given (compiled into the graph): where it waits.
    assert pause_text(Waiting(("dbl",))) == "paused before dbl"
    question = Waiting(("approve",), (WaitingInterrupt(("approve",), "i1", "Deploy?"),))
    assert pause_text(question) is None
