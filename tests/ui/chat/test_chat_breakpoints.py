"""Breakpoints and stepping in the chat, against the real agent server: `b` chooses the
nodes, a run stops there and says so, `c` continues, `s` steps, `*` steps through every
node; a node inside a subgraph is refused with the reason; an `interrupt()` question is
still a question."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from agent_tui.chat.items import InterruptItem
from agent_tui.client import AgentServerClient
from agent_tui.client.models import Assistant
from agent_tui.tui import editor
from agent_tui.tui.chat.breakpoints_modal import BreakpointsScreen
from agent_tui.tui.chat.pane import ChatPane
from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen
from tests.support.chat import (
    SIZE,
    ai_texts,
    chat_app,
    chat_thread,
    ended,
    notices,
    pane_of,
    state_line,
    type_and_send,
)
from tests.support.screen import screen_text
from tests.support.shell import ShellHarness
from tests.support.snapshots import steady_cursors
from tests.support.thread_view import counter_thread, loaded, view_app
from tests.support.waiting import WaitFor, workers_done


async def open_breakpoints(
    pilot: Pilot[Any], pane: ChatPane, wait_for: WaitFor
) -> BreakpointsScreen:
    """`b` from the transcript (in the prompt, `b` types), once the nodes are listed."""
    pane.transcript.focus()
    await pilot.press("b")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, BreakpointsScreen), what="modal")
    modal = pilot.app.screen
    assert isinstance(modal, BreakpointsScreen)
    await wait_for(pilot, lambda: bool(modal.nodes), what="the graph's nodes")
    return modal


async def on_node(pilot: Pilot[Any], modal: BreakpointsScreen, name: str) -> None:
    rows = [node.name for node in modal.nodes]
    modal.query_one(DataTable).move_cursor(row=rows.index(name))
    await pilot.pause()


async def paused_at(pilot: Pilot[Any], pane: ChatPane, wait_for: WaitFor, text: str) -> None:
    try:
        await wait_for(pilot, lambda: ended(pane) and pane.paused_bar.paused_text == text)
    except AssertionError:
        said = f"{notices(pane)}, {state_line(pane)!r}"
        raise AssertionError(f"waited for {text!r}; the chat says {said}") from None
    assert notices(pane)[-1] == text
    # The bar takes the focus a message-loop turn after it shows the pause (`focus()`
    # is scheduled), before any key pressed after it: c and s act at once.
    await wait_for(
        pilot, lambda: pane.paused_bar.has_focus, what="the paused bar's focus", workers=False
    )
    # The state line says it too (not "idle"): `paused (before tools)`.
    where = text.removeprefix("paused ")
    await wait_for(pilot, lambda: state_line(pane).startswith(f"paused ({where})"), what="state")


async def test_pause_before_a_node_then_continue_to_the_end(
    client: AgentServerClient, fast_chat: Assistant, wait_for: WaitFor
) -> None:
    thread = await chat_thread(client, fast_chat)
    app, _ = chat_app(client, thread.thread_id, fast_chat)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        modal = await open_breakpoints(pilot, pane, wait_for)
        assert [node.name for node in modal.nodes] == ["agent", "tools", "approve"]
        await on_node(pilot, modal, "tools")
        await pilot.press("b", "enter")
        await wait_for(pilot, lambda: "‖ before: tools" in state_line(pane), what="state line")

        await type_and_send(pilot, pane, "weather in Paris")
        await paused_at(pilot, pane, wait_for, "paused before tools")
        state = await client.threads.get_state(thread.thread_id)
        assert state.next == ["tools"]

        await pilot.press("s")  # one step: tools runs, the run stops before agent
        await paused_at(pilot, pane, wait_for, "paused before agent")
        await pilot.press("c")
        await wait_for(
            pilot, lambda: ended(pane) and state_line(pane).startswith("done"), what="the end"
        )
        assert ai_texts(pane)[-1].endswith(" C in Paris.")  # the tool ran, then agent
        assert not pane.paused_bar.paused
        assert "‖ before: tools" in state_line(pane)  # the breakpoints stay for later runs


async def test_stepping_pauses_before_each_node_in_turn(
    client: AgentServerClient, fast_chat: Assistant, wait_for: WaitFor
) -> None:
    thread = await chat_thread(client, fast_chat)
    app, _ = chat_app(client, thread.thread_id, fast_chat)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await open_breakpoints(pilot, pane, wait_for)
        await pilot.press("asterisk", "enter")
        await wait_for(pilot, lambda: "‖ stepping" in state_line(pane), what="state line")

        await type_and_send(pilot, pane, "weather in Paris")
        for node in ("agent", "tools", "agent"):
            await paused_at(pilot, pane, wait_for, f"paused before {node}")
            await pilot.press("c")
        await wait_for(
            pilot, lambda: ended(pane) and state_line(pane).startswith("done"), what="the end"
        )
        assert ai_texts(pane)[-1].endswith(" C in Paris.")  # the tool ran, then agent


async def test_pause_after_a_node_and_step_to_the_next(
    client: AgentServerClient, fast_chat: Assistant, wait_for: WaitFor
) -> None:
    thread = await chat_thread(client, fast_chat)
    app, _ = chat_app(client, thread.thread_id, fast_chat)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        modal = await open_breakpoints(pilot, pane, wait_for)
        await on_node(pilot, modal, "agent")
        await pilot.press("a", "enter")
        await wait_for(pilot, lambda: "‖ after: agent" in state_line(pane), what="state line")

        await type_and_send(pilot, pane, "weather in Paris")
        await paused_at(pilot, pane, wait_for, "paused after agent")
        await pilot.press("s")  # one step: tools runs, the run stops before agent
        await paused_at(pilot, pane, wait_for, "paused before agent")
        await pilot.press("escape")  # stay paused: back to the prompt
        # (`focus()` is scheduled: the prompt has it a message-loop turn later.)
        await wait_for(pilot, lambda: pane.prompt.has_focus, what="the prompt", workers=False)
        assert pane.paused_bar.paused
        pane.paused_bar.focus()
        # The answer is the graph's last node: the runtime does not pause after it.
        await pilot.press("c")
        await wait_for(
            pilot, lambda: ended(pane) and state_line(pane).startswith("done"), what="the end"
        )
        assert ai_texts(pane)[-1].endswith(" C in Paris.")


async def test_a_node_inside_a_subgraph_is_refused_with_the_reason(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    nested = await client.assistants.create("nested", context={"token_delay_ms": 0})
    thread = await chat_thread(client, nested)
    app, _ = chat_app(client, thread.thread_id, nested)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        modal = await open_breakpoints(pilot, pane, wait_for)
        names = [node.name for node in modal.nodes]
        assert names == ["prepare", "chat", "chat:agent", "chat:tools", "chat:approve"]
        await on_node(pilot, modal, "chat:tools")
        await pilot.press("b")
        message = str(modal.query_one("#breakpoint-message", Static).render())
        assert message == (
            "chat:tools: a run pauses only at top-level nodes: pause at chat instead,"
            " or compile its subgraph with interrupt_before/after"
        )
        await on_node(pilot, modal, "chat")
        await pilot.press("b", "enter")
        await wait_for(pilot, lambda: "‖ before: chat" in state_line(pane), what="state line")
        assert pane.breakpoints.run_kwargs() == {
            "interrupt_before": ["chat"],
            "interrupt_after": None,
        }


async def test_every_node_has_before_and_after_and_subgraph_nodes_say_why_not(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    deep = await client.assistants.create("deep_nested")
    thread = await chat_thread(client, deep)
    app, _ = chat_app(client, thread.thread_id, deep)
    async with app.run_test(size=SIZE) as pilot:
        modal = await open_breakpoints(pilot, pane_of(app), wait_for)
        lines = [" ".join(line.strip("█ ").split()) for line in screen_text(app).splitlines()]
        assert "Node Before After" in lines
        assert "hotel_assistant · ·" in lines  # a top-level node: both sides to choose
        assert "hotel_assistant:model — —" in lines  # inside a subgraph: neither
        assert "hotel_assistant:final_report_generation:review — —" in lines  # two deep
        assert "—: inside a subgraph, where a run cannot pause (see why on one)" in lines
        await on_node(pilot, modal, "hotel_assistant:final_report_generation:review")
        why = (
            "A run pauses only at top-level nodes: pause at hotel_assistant instead,"
            " or compile its subgraph with interrupt_before/after."
        )
        assert why in [" ".join(line.strip("█ ").split()) for line in screen_text(app).splitlines()]
        # What it says is so: the server ignores a run's breakpoint on a subgraph's node.
        async with httpx.AsyncClient(base_url=agent_server_url, timeout=60) as http:
            body = {
                "assistant_id": "deep_nested",
                "input": {"messages": [{"role": "user", "content": "plain"}]},
                "interrupt_before": ["hotel_assistant:model", "model"],
            }
            ran = await http.post(f"/threads/{thread.thread_id}/runs/wait", json=body)
            assert ran.status_code == 200
            state = (await http.get(f"/threads/{thread.thread_id}/state")).json()
        assert state["next"] == []  # ran to its end


async def test_an_interrupt_question_is_still_a_question_and_its_answer_pauses_too(
    client: AgentServerClient, fast_chat: Assistant, wait_for: WaitFor
) -> None:
    thread = await chat_thread(client, fast_chat)
    app, _ = chat_app(client, thread.thread_id, fast_chat)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        modal = await open_breakpoints(pilot, pane, wait_for)
        await on_node(pilot, modal, "approve")
        await pilot.press("a", "enter")
        await type_and_send(pilot, pane, "deploy to staging")
        await wait_for(
            pilot,
            lambda: ended(pane) and any(isinstance(i, InterruptItem) for i in pane.model.items),
            what="the question",
        )
        await workers_done(app)
        assert not pane.paused_bar.paused
        assert not any(text.startswith("paused") for text in notices(pane))
        # The answer's run carries the breakpoints too: it stops once approve is done.
        await pilot.press("y", "e", "s", "enter")
        await paused_at(pilot, pane, wait_for, "paused after approve")


async def test_a_thread_paused_elsewhere_shows_where_when_opened(
    client: AgentServerClient, fast_chat: Assistant, wait_for: WaitFor
) -> None:
    thread = await chat_thread(client, fast_chat)
    message = {"messages": [{"role": "user", "content": "weather in Paris"}]}
    async with client.runs.stream(
        thread.thread_id, fast_chat.assistant_id, input=message, interrupt_before=["tools"]
    ) as run:
        async for _ in run:
            pass
    app, _ = chat_app(client, thread.thread_id, fast_chat)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await wait_for(pilot, lambda: pane.paused_bar.paused, what="the pause")
        assert pane.paused_bar.paused_text == "paused before tools"
        assert pane.prompt.has_focus  # opening a thread leaves the prompt to type in
        pane.paused_bar.focus()
        await pilot.press("c")
        await wait_for(
            pilot, lambda: ended(pane) and state_line(pane).startswith("done"), what="the end"
        )
        assert ai_texts(pane)[-1].endswith(" C in Paris.")


async def test_edit_the_paused_state_then_continue(
    client: AgentServerClient,
    fast_chat: Assistant,
    wait_for: WaitFor,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def city_changed(app: Any, text: str, *, title: str = "") -> str:
        # The tool call the agent made, pointed at another city.
        return text.replace('"city": "Paris"', '"city": "Oslo"')

    monkeypatch.setattr(editor, "edit_text", city_changed)
    thread = await chat_thread(client, fast_chat)
    app, _ = chat_app(client, thread.thread_id, fast_chat)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        modal = await open_breakpoints(pilot, pane, wait_for)
        await on_node(pilot, modal, "tools")
        await pilot.press("b", "enter")
        await type_and_send(pilot, pane, "weather in Paris")
        await paused_at(pilot, pane, wait_for, "paused before tools")
        await pilot.press("e")
        await wait_for(
            pilot, lambda: ended(pane) and state_line(pane).startswith("done"), what="the end"
        )
        assert ai_texts(pane)[-1].endswith(" C in Oslo.")


PAUSED_THREAD = "1f0c6a00-0000-7000-8000-0000000b0b0b"
PAUSED_MESSAGES = [
    {"type": "human", "content": "weather in Paris", "id": "m1"},
    {
        "type": "ai",
        "content": "",
        "id": "m2",
        "tool_calls": [{"name": "get_weather", "args": {"city": "Paris"}, "id": "c1"}],
    },
]


def paused_server() -> httpx.MockTransport:
    """A thread paused before `tools` at a breakpoint, as a fixed fake server answers."""

    def answer(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == f"/threads/{PAUSED_THREAD}":
            return httpx.Response(
                200,
                json={
                    "thread_id": PAUSED_THREAD,
                    "status": "interrupted",
                    "metadata": {"graph_id": "chat"},
                    "values": {"messages": PAUSED_MESSAGES},
                    "interrupts": {},
                },
            )
        if path == f"/threads/{PAUSED_THREAD}/state":
            state = {
                "values": {"messages": PAUSED_MESSAGES},
                "next": ["tools"],
                "tasks": [{"id": "t1", "name": "tools", "interrupts": []}],
                "checkpoint": {"thread_id": PAUSED_THREAD, "checkpoint_id": "c2"},
            }
            return httpx.Response(200, json=state)
        if path.endswith("/history"):
            return httpx.Response(200, json=[])
        return httpx.Response(404, json={"detail": "Not Found"})

    return httpx.MockTransport(answer)


def test_paused_run_snapshot(snap_compare: Callable[..., bool], wait_for: WaitFor) -> None:
    client = AgentServerClient("http://agent.test", http_transport=paused_server())
    screen = ThreadViewScreen(client, PAUSED_THREAD, chat=True, status_interval=0)
    app = ShellHarness(screen)
    app.client = client

    async def run_before(pilot: Any) -> None:
        pane = pane_of(app)
        await wait_for(
            pilot,
            lambda: pane.paused_bar.paused and all(w.is_finished for w in app.workers),
            what="the pause",
        )
        await pilot.press("ctrl+b")  # the history pane hidden: the chat has the width
        pane.paused_bar.focus()  # its keys in the footer
        steady_cursors(app)
        await pilot.pause()

    assert snap_compare(app, terminal_size=(120, 30), run_before=run_before)


async def test_a_replay_carries_the_breakpoints_and_the_chat_shows_the_pause(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    thread = await counter_thread(client, 5)
    app, screen = view_app(client, thread.thread_id)  # on the State tab
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the history")
        await pilot.press("b")  # the history has the focus
        await wait_for(pilot, lambda: isinstance(app.screen, BreakpointsScreen), what="modal")
        modal = app.screen
        assert isinstance(modal, BreakpointsScreen)
        await wait_for(pilot, lambda: bool(modal.nodes), what="the graph's nodes")
        await on_node(pilot, modal, "dbl")
        await pilot.press("b", "enter")
        await wait_for(pilot, lambda: app.screen is screen, what="the thread view")
        # The keys go where the focus is: back on the history once the modal has gone.
        history = screen.query_one("#history")
        await wait_for(pilot, lambda: history.has_focus, what="the history focused again")

        await pilot.press("down", "down")  # step 0: inc runs next
        row = screen.selected_row
        assert row is not None and row.step == 0
        await pilot.press("p")
        await wait_for(
            pilot,
            # A replay forks the checkpoint, then runs: inc ran, dbl waits.
            lambda: (
                [(r.source, r.next) for r in screen.history.rows[:2]]
                == [("loop", ("dbl",)), ("fork", ("inc",))]
            ),
            what="the replay stopped before dbl",
        )
        await pilot.press("a")  # the chat tab
        pane = pane_of(app)
        await wait_for(pilot, lambda: pane.paused_bar.paused, what="the pause in the chat")
        assert pane.paused_bar.paused_text == "paused before dbl"
        assert "‖ before: dbl" in state_line(pane)
