"""The run's marks on a drawing: `LiveRun` folds the chat's events, `paint` draws them."""

from __future__ import annotations

import itertools

from agent_tui.graph_drawing import Edge, Graph, layout
from agent_tui.graph_drawing.live import LiveRun, NodeMarks, NodeRun, shown_as
from agent_tui.tui.widgets.graph_paint import paint
from tests.support.hostile_text import EVERYTHING, MARKER, terminal_controls


def chain(*nodes: str) -> Graph:
    names = ["__start__", *nodes, "__end__"]
    return Graph.of(names, [Edge(a, b) for a, b in itertools.pairwise(names)])


def test_updates_alone_number_the_nodes_and_time_them_from_the_one_before() -> None:
    run = LiveRun()
    run.observe("metadata", {"run_id": "r1"})
    for node, at in (("agent", 0.5), ("tools", 0.75), ("agent", 1.5)):
        assert run.observe("updates", {node: {}}, at)
    assert run.ran == {"tools": NodeRun(2, 0.25), "agent": NodeRun(3, 0.75)}  # its latest turn
    assert not run.running
    run.observe("metadata", {"run_id": "r2"})  # the next run starts over
    assert not run.ran


def test_tasks_events_light_a_node_while_it_runs_and_its_update_is_the_same_turn() -> None:
    run = LiveRun()
    run.observe("tasks", {"id": "1", "name": "prepare", "input": {}}, 0.1)
    assert run.running == {"prepare"}
    assert not run.running_from_state(["other"])  # the events know better
    run.observe("tasks", {"id": "1", "name": "prepare", "result": []}, 0.6)
    run.observe("updates", {"prepare": None}, 0.61)
    assert run.ran == {"prepare": NodeRun(1, 0.5)} and not run.running


def test_a_subgraphs_events_name_its_nodes_and_are_numbered_inside_it() -> None:
    run = LiveRun()
    meta = {"langgraph_node": "agent", "langgraph_checkpoint_ns": "chat:1|agent:2"}
    run.observe("messages", [{"content": "hi"}, meta], 0.2)
    assert run.running == {"chat:agent"}
    run.observe("updates", {"prepare": None}, 0.1)
    run.observe("updates|chat:1", {"agent": {}}, 0.3)
    run.observe("updates", {"chat": {}}, 0.4)
    # One order over every node, subgraphs' too: prepare, then chat:agent, then chat.
    assert [run.ran[n].order for n in ("prepare", "chat:agent", "chat")] == [1, 2, 3]
    run.observe("end", None)
    assert not run.running
    assert shown_as("chat:agent", frozenset()) == "chat"
    assert shown_as("chat:agent", {"chat"}) == "chat:agent"


def test_a_subgraph_node_that_handed_off_is_not_lit_once_its_subgraph_ended() -> None:
    # `flight:tools` hands over to the parent graph (Command.PARENT): it never ends on its
    # own; `flight` ends, and `hotel` runs. Only `hotel` may show as running.
    run = LiveRun()
    run.observe("tasks", {"id": "1", "name": "flight", "input": {}}, 0.1)
    run.observe("tasks|flight:1", {"id": "2", "name": "tools", "input": {}}, 0.2)
    run.observe("tasks", {"id": "1", "name": "flight", "result": []}, 0.3)
    run.observe("tasks", {"id": "3", "name": "hotel", "input": {}}, 0.4)
    assert run.running == {"hotel"}
    # A late token of the finished node starts nothing: `tasks` say when nodes start.
    meta = {"langgraph_node": "tools", "langgraph_checkpoint_ns": "flight:1|tools:2"}
    run.observe("messages", [{"content": "late"}, meta], 0.5)
    assert run.running == {"hotel"}


def test_a_run_elsewhere_is_lit_from_the_states_next() -> None:
    run = LiveRun()
    assert run.running_from_state(["prepare", "__start__"])
    assert run.running == {"prepare"}


def test_marks_are_written_in_the_borders_and_the_drawing_keeps_its_shape() -> None:
    drawn = layout(chain("prepare", "chat"))
    plain = paint(drawn).plain
    marks = NodeMarks(
        running=frozenset({"chat:agent"}),  # inside the collapsed chat: chat is lit
        ran={"prepare": NodeRun(1, 0.42)},
        paused={"prepare": "after"},
        before=frozenset({"chat"}),
        after=frozenset({"prepare"}),
    )
    text = paint(drawn, marks, expanded=frozenset(), selected="prepare")
    lines = text.plain.splitlines()
    assert [len(line) for line in lines] == [len(line) for line in plain.splitlines()]
    # The time as the Timeline says it (`format_duration`).
    assert "┌✓1 420 ms┐" in lines and "└●‖───────┘" in lines and "  ┌●▶────┐" in lines
    assert (
        text.plain.replace("✓1 420 ms", "─────────").replace("●‖", "──").replace("●▶", "──")
        == plain
    )


def test_a_time_that_does_not_fit_a_small_box_is_left_out_not_cut() -> None:
    drawn = layout(chain("say", "shouting"))
    marks = NodeMarks(ran={"say": NodeRun(1, 0.04), "shouting": NodeRun(2, 0.04)})
    lines = paint(drawn, marks).plain.splitlines()
    assert any(line.strip() == "┌✓1───┐" for line in lines), lines  # `say`: 5 cells inside
    assert any(line.strip() == "┌✓2 40 ms──┐" for line in lines), lines  # `shouting`: 10


def test_hostile_node_names_stay_text_with_their_marks() -> None:
    drawn = layout(chain(EVERYTHING))
    text = paint(drawn, NodeMarks(running=frozenset({EVERYTHING}), before=frozenset({EVERYTHING})))
    assert MARKER in text.plain and "●▶" in text.plain
    assert terminal_controls(text.plain) == []
    markup = "[@click=app.quit]x[/]"
    text = paint(layout(chain(markup)), NodeMarks(running=frozenset({markup})))
    assert f"│ {markup} │" in text.plain  # shown as text, never read


def test_a_subgraphs_tokens_without_subgraph_streaming_light_the_parents_node() -> None:
    run = LiveRun()
    meta = {"langgraph_node": "chat", "langgraph_checkpoint_ns": "chat:7cb0"}
    assert run.observe("messages", [{"content": "You"}, meta], 0.1)
    assert run.running == {"chat"}


def test_a_run_not_streamed_here_is_numbered_from_its_checkpoints() -> None:
    run = LiveRun(running={"tools"})
    run.from_checkpoints("r9", [(("__start__",), 0.01), (("agent",), 0.5), (("tools",), 0.2)])
    assert run.run_id == "r9" and run.running == {"tools"}  # what is lit stays
    assert run.ran == {"agent": NodeRun(1, 0.5), "tools": NodeRun(2, 0.2)}
