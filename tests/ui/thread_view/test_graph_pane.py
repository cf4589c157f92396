"""The thread view's graph pane (`v`) against the real server: it lights the node running
now (held there by a gate), numbers the nodes that ran, marks where the thread is paused
and which nodes have a breakpoint; `b` / `B` on a node set the chat's breakpoints (the
`b` modal shows the same); a checkpoint picked in the history lights its node."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.style import Style
from textual.widgets import DataTable, Static

from agent_tui.client import AgentServerClient
from agent_tui.tui.chat.breakpoints_modal import BreakpointsScreen
from agent_tui.tui.screens.thread_view.graph_pane import GraphPane
from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen
from agent_tui.tui.widgets.graph_view import GraphView
from tests.support.chat import chat_app, chat_thread, ended, pane_of, state_line, type_and_send
from tests.support.fixed_servers import THREAD_ID, agent_server
from tests.support.graph import bottom_border, boxes_styled, styled_pieces, top_border
from tests.support.hostile_screens import GRAPH, drawn_inertly
from tests.support.screen import toast_saying
from tests.support.shell import ShellHarness
from tests.support.thread_view import counter_thread, loaded, view_app
from tests.support.waiting import WaitFor

MAGENTA = 5  # the terminal's own magenta (ANSI colour 5)


def graph_of(screen: ThreadViewScreen) -> GraphView:
    return screen.query_one(GraphPane).view


def status(screen: ThreadViewScreen) -> str:
    return str(screen.query_one("#graph-status", Static).render())


async def nested_chat(
    client: AgentServerClient, *, gate: Path | None = None
) -> tuple[ShellHarness, ThreadViewScreen]:
    """A thread view with its chat on a new thread of the `nested` graph (tokens at once;
    `prepare` held until `gate` exists, when given)."""
    context: dict[str, Any] = {"token_delay_ms": 0}
    if gate is not None:
        context["gate"] = str(gate)
    assistant = await client.assistants.create("nested", context=context)
    thread = await chat_thread(client, assistant)
    return chat_app(client, thread.thread_id, assistant)


async def show_graph(pilot: Pilot[Any], screen: ThreadViewScreen, wait_for: WaitFor) -> GraphView:
    """`v` from the transcript (in the prompt, `v` types), once the graph is drawn."""
    screen.chat.transcript.focus()
    await pilot.press("v")
    view = graph_of(screen)
    await wait_for(pilot, lambda: bool(view.drawn.boxes), what="the graph drawn", workers=False)
    assert view.has_focus
    return view


async def test_the_pane_lights_the_running_node_then_numbers_the_nodes_that_ran(
    client: AgentServerClient, tmp_path: Path, wait_for: WaitFor
) -> None:
    gate = tmp_path / "gate"
    app, screen = await nested_chat(client, gate=gate)
    async with app.run_test(size=(150, 45)) as pilot:
        pane = pane_of(app)
        await type_and_send(pilot, pane, "hello")
        view = await show_graph(pilot, screen, wait_for)
        # 150 columns: the graph takes the history's place.
        assert not screen.query_one("#history").display
        try:
            await wait_for(
                pilot,
                lambda: top_border(view.plain, "prepare").startswith("┌▶"),
                what="prepare lit while the gate holds it",
                workers=False,
            )
            assert "▶ running prepare" in status(screen)
            drawing = view.query_one("#graph-drawing", Static)
            lit = boxes_styled(drawing, lambda style: style.background is not None)
            assert lit == ["│ prepare │"]  # only the running node
            assert "▶" not in top_border(view.plain, "chat")
        finally:
            gate.touch()
        await wait_for(pilot, lambda: ended(pane), what="the run's end")
        await wait_for(
            pilot,
            lambda: top_border(view.plain, "chat").startswith("┌✓2"),
            what="the order marks",
            workers=False,
        )
        assert top_border(view.plain, "prepare").startswith("┌✓1")
        assert "▶" not in view.plain
        await pilot.press("v")  # the pane goes, the history comes back
        assert not screen.query_one(GraphPane).display
        assert screen.query_one("#history").display


async def test_runs_sent_while_the_pane_shows_stream_each_nodes_start(
    client: AgentServerClient, tmp_path: Path, wait_for: WaitFor
) -> None:
    """With the pane open, a run asks for `tasks` too (the state line says so): the node
    is lit from the streamed start of its task, not from a later read of the thread."""
    gate = tmp_path / "gate"
    app, screen = await nested_chat(client, gate=gate)
    async with app.run_test(size=(200, 45)) as pilot:
        pane = pane_of(app)
        assert "tasks" not in state_line(pane)
        view = await show_graph(pilot, screen, wait_for)
        assert "modes updates, messages-tuple, tasks" in state_line(pane)
        try:
            await type_and_send(pilot, pane, "hello")
            await wait_for(
                pilot,
                lambda: top_border(view.plain, "prepare").startswith("┌▶"),
                what="prepare lit while the gate holds it",
                workers=False,
            )
            started = [
                record.data
                for record in pane.inspector.records
                if record.event.startswith("tasks") and '"prepare"' in record.data
            ]
            assert started, "no task of prepare was streamed"
        finally:
            gate.touch()
        await wait_for(pilot, lambda: ended(pane), what="the run's end")
        screen.chat.transcript.focus()  # in the prompt, `v` types
        await pilot.press("v")
        assert not screen.query_one(GraphPane).display
        assert "tasks" not in state_line(pane)


async def test_b_and_shift_b_on_a_node_are_the_chats_breakpoints_and_the_pause_shows(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    app, screen = await nested_chat(client)
    async with app.run_test(size=(200, 45)) as pilot:
        pane = pane_of(app)
        view = await show_graph(pilot, screen, wait_for)
        assert screen.query_one("#history").display  # wide: beside the history
        await pilot.press("j", "down")
        assert view.selected == "chat"
        await pilot.press("b")  # pause before chat
        assert pane.breakpoints.before == ["chat"]
        assert top_border(view.plain, "chat").startswith("┌●")
        assert "‖ before: chat" in state_line(pane)
        await pilot.press("k", "B")  # pause after prepare
        assert pane.breakpoints.after == ["prepare"]
        assert bottom_border(view.plain, "prepare").startswith("└●")
        assert "● before chat" in status(screen) and "● after prepare" in status(screen)

        # The chat's `b` modal shows the same breakpoints.
        pane.transcript.focus()
        await pilot.press("b")
        await wait_for(pilot, lambda: isinstance(app.screen, BreakpointsScreen), what="modal")
        modal = app.screen
        assert isinstance(modal, BreakpointsScreen)
        await wait_for(pilot, lambda: bool(modal.nodes), what="the graph's nodes")
        table = modal.query_one(DataTable)
        assert [cell.plain for cell in table.get_row("chat")][1:] == ["● pause", "·"]
        assert [cell.plain for cell in table.get_row("prepare")][1:] == ["·", "● pause"]
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, what="the modal gone")

        view.focus()
        await pilot.press("k", "B")  # prepare: off again
        assert pane.breakpoints.after == []
        await type_and_send(pilot, pane, "hello")
        await wait_for(pilot, lambda: ended(pane), what="the pause")
        await wait_for(
            pilot,
            lambda: top_border(view.plain, "chat").startswith("┌●‖"),
            what="paused before chat",
            workers=False,
        )
        assert top_border(view.plain, "prepare").startswith("┌✓1")
        assert "‖ paused before chat" in status(screen)


async def test_a_checkpoint_picked_in_the_history_lights_the_node_that_wrote_it(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    thread = await counter_thread(client)  # steps -1 (input), 0, 1 (inc), 2 (dbl)
    app, screen = view_app(client, thread.thread_id, status_interval=0)
    async with app.run_test(size=(200, 45)) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the history")
        screen.pane.focus()
        await pilot.press("v")
        view = graph_of(screen)
        await wait_for(pilot, lambda: bool(view.drawn.boxes), what="the graph", workers=False)
        drawing = view.query_one("#graph-drawing", Static)

        def step_style(style: Style) -> bool:
            """Magenta: the checkpoint's nodes (whether under the cursor or not)."""
            return style.foreground is not None and style.foreground.ansi == MAGENTA

        def lit() -> list[str]:
            return boxes_styled(drawing, step_style)

        await wait_for(pilot, lambda: lit() == ["│ dbl │"], what="dbl wrote the latest")
        screen.pane.focus()
        await pilot.press("down")  # step 1: written by inc
        await wait_for(pilot, lambda: screen.selected_row is not None)
        assert screen.selected_row is not None and screen.selected_row.step == 1
        await wait_for(pilot, lambda: lit() == ["│ inc │"], what="inc lit")
        await pilot.press("down", "down")  # step -1, the input: what it runs next
        await wait_for(
            pilot,
            lambda: "(start)" in styled_pieces(drawing, step_style) and not lit(),
            what="start lit",
        )


def test_graph_pane_snapshot(snap_compare: Callable[..., bool], wait_for: WaitFor) -> None:
    """The fixed interrupted chat thread with its graph pane: the `interrupt()` waiting in
    approve, agent (the node that wrote the latest checkpoint) lit, under the cursor,
    with a breakpoint before it."""
    client = AgentServerClient("http://agent.test", http_transport=agent_server())
    screen = ThreadViewScreen(client, THREAD_ID, status_interval=0)
    app = ShellHarness(screen)
    app.client = client
    app.connection_status = "connected · http://agent.test"

    def settled() -> bool:
        view = graph_of(screen)
        return (
            loaded(screen)
            and "? asks in approve" in status(screen)
            and top_border(view.plain, "approve").startswith("┌?")
            and all(worker.is_finished for worker in app.workers)
        )

    async def run_before(pilot: Any) -> None:
        await wait_for(pilot, lambda: loaded(screen), what="the thread view")
        await pilot.press("v")
        await wait_for(pilot, settled, what="the graph pane", workers=False)
        await pilot.press("b")  # the cursor is on the first box (agent) from the start
        await wait_for(pilot, settled, what="the breakpoint", workers=False)

    assert snap_compare(app, terminal_size=(160, 32), run_before=run_before)


async def test_a_run_started_elsewhere_lights_its_node_from_the_polled_state(
    client: AgentServerClient, tmp_path: Path, wait_for: WaitFor
) -> None:
    gate = tmp_path / "gate"
    gated = await client.assistants.create(
        "nested", context={"token_delay_ms": 0, "gate": str(gate)}
    )
    thread = await chat_thread(client, gated)
    run = await client.runs.create(
        thread.thread_id,
        gated.assistant_id,
        input={"messages": [{"type": "human", "content": "from elsewhere"}]},
    )
    try:
        # Opened on the State tab: the chat does not follow the run, the state tells.
        app, screen = view_app(client, thread.thread_id, status_interval=0.5)
        async with app.run_test(size=(200, 45)) as pilot:
            await wait_for(pilot, lambda: screen.thread is not None, what="the thread")
            screen.pane.focus()
            await pilot.press("v")
            view = graph_of(screen)
            await wait_for(
                pilot,
                lambda: (
                    bool(view.drawn.boxes) and top_border(view.plain, "prepare").startswith("┌▶")
                ),
                what="prepare lit",
                workers=False,
            )
            assert not screen.chat.running
            gate.touch()
            await wait_for(
                pilot,
                lambda: (
                    "▶" not in view.plain
                    and screen.thread is not None
                    and screen.thread.status == "idle"
                ),
                what="nothing lit once the run is over",
                workers=False,
            )
            # Its checkpoints say which nodes ran, in which order.
            await wait_for(
                pilot,
                lambda: top_border(view.plain, "chat").startswith("┌✓2"),
                what="the order from the history",
                workers=False,
            )
            assert top_border(view.plain, "prepare").startswith("┌✓1")
    finally:
        gate.touch()
        await client.runs.join(thread.thread_id, run.run_id)


async def test_in_the_pane_a_subgraph_expands_in_place_and_its_nodes_take_no_breakpoint(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    app, screen = await nested_chat(client)
    async with app.run_test(size=(200, 45), notifications=True) as pilot:
        pane = pane_of(app)
        view = await show_graph(pilot, screen, wait_for)
        assert "chat:agent" not in view.plain
        await pilot.press("j", "down", "enter")  # chat: its nodes in a frame, in place
        assert "╭┈ chat ┈" in view.plain and "│ chat:agent │" in view.plain
        assert view.selected == "chat:agent"
        await pilot.press("b")
        await toast_saying(pilot, "a run pauses only at top-level nodes: pause at chat instead")
        assert pane.breakpoints.before == []
        assert not top_border(view.plain, "chat:agent").startswith("┌●")
        await pilot.press("x")  # every subgraph or none: none now (chat was the only one)
        assert "│ chat │" in view.plain and "chat:agent" not in view.plain
        await pilot.press("x")
        assert "│ chat:agent │" in view.plain


async def test_a_pause_after_a_node_is_marked_on_its_bottom_border(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    app, screen = await nested_chat(client)
    async with app.run_test(size=(150, 45)) as pilot:
        pane = pane_of(app)
        view = await show_graph(pilot, screen, wait_for)
        assert view.selected == "prepare"  # the first box, picked when the pane took the keys
        await pilot.press("B")  # pause after prepare
        assert pane.breakpoints.after == ["prepare"]
        await type_and_send(pilot, pane, "hello")
        await wait_for(pilot, lambda: pane.paused_bar.paused_text == "paused after prepare")
        await wait_for(
            pilot,
            lambda: bottom_border(view.plain, "prepare").startswith("└●‖"),
            what="paused after prepare",
            workers=False,
        )
        assert "‖ paused after prepare" in status(screen)
        assert top_border(view.plain, "prepare").startswith("┌✓1")
        assert "‖" not in top_border(view.plain, "chat")


async def test_a_hostile_graph_is_drawn_inertly_with_its_marks(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    thread = await client.threads.create(metadata={"graph_id": GRAPH})
    async with client.runs.stream(thread.thread_id, GRAPH, input={"note": "hi"}) as run:
        async for _ in run:
            pass
    app, screen = view_app(client, thread.thread_id, status_interval=0)
    async with app.run_test(size=(200, 45)) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the history")
        screen.pane.focus()
        await pilot.press("v")
        view = graph_of(screen)
        await wait_for(pilot, lambda: "┌✓1" in view.plain, what="the node ran", workers=False)
        await pilot.press("j", "b")  # its name in the status line too
        await wait_for(pilot, lambda: "● before" in status(screen), workers=False)
        drawn_inertly(app, "node-hostile", "✓1")


async def test_the_running_line_names_the_boxes_drawn_once_each(
    client: AgentServerClient, tmp_path: Path, wait_for: WaitFor
) -> None:
    """Two branches of a subgraph run at once (the `parallel` graph's two `Send`s): the
    status line names the subgraph's box while it is collapsed, its inner node once it
    is expanded, each once; never a node the drawing does not show."""
    gate = tmp_path / "gate"
    assistant = await client.assistants.create("parallel", context={"gate": str(gate)})
    app, screen = chat_app(client, (await chat_thread(client, assistant)).thread_id, assistant)
    async with app.run_test(size=(200, 45)) as pilot:
        pane = pane_of(app)
        view = await show_graph(pilot, screen, wait_for)
        try:
            await type_and_send(pilot, pane, "rust or go")
            await wait_for(
                pilot,
                lambda: top_border(view.plain, "researcher").startswith("┌▶"),
                what="the researchers lit while the gate holds them",
                workers=False,
            )
            assert status(screen).startswith("Graph  ▶ running researcher  ")
            view.focus()  # sending focused the prompt
            view.select("researcher")
            await pilot.press("enter")  # the subgraph's nodes in a frame, in place
            assert "│ researcher:summarize │" in view.plain
            await wait_for(
                pilot,
                lambda: "running researcher:summarize  " in status(screen),
                what="the inner node named",
                workers=False,
            )
            assert status(screen).startswith("Graph  ▶ running researcher:summarize  ")
        finally:
            gate.touch()
        await wait_for(pilot, lambda: ended(pane), what="the run's end")
