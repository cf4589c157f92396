"""Markup-shaped text in a node's update (issue 30): a tool's error in a list of dicts,
`[Errno -2]`, tags, an unbalanced `[`, a backslash before `[`. The `markup_notes` test
graph writes it on the real server, and the `hostile` graph writes it with escape
sequences and controls in its node's name, its update, a tool's name, arguments and
result; the chat paints it as it is and nothing a terminal acts on, live and when the
thread is opened again, and the app keeps running."""

from __future__ import annotations

from textual.widgets import Collapsible

from agent_tui.chat.items import NodeUpdateItem
from agent_tui.client import AgentServerClient
from agent_tui.tui.chat.blocks import NodeUpdateBlock
from tests.support.chat import chat_app, ended, pane_of, state_line, tool_results, type_and_send
from tests.support.hostile_screens import GRAPH as HOSTILE_GRAPH
from tests.support.hostile_screens import WRAPPED_HEAD, WRAPPED_TAIL, drawn_inertly
from tests.support.hostile_text import MARKER, MARKUP_SHAPES
from tests.support.screen import screen_text
from tests.support.waiting import WaitFor

GRAPH = "markup_notes"
# The update's one line as the block shows it (JSON: the newline is written `\n`).
WIDE = (240, 45)  # the update's line whole in the chat pane
LINE = 'research ▸ notes=[{"content":"[link=file:///etc/passwd]x","type":"tool"'


async def test_a_node_update_holding_markup_is_painted_as_it_is(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    thread = await client.threads.create(metadata={"graph_id": GRAPH})
    app, _ = chat_app(client, thread.thread_id)
    async with app.run_test(size=WIDE) as pilot:
        pane = pane_of(app)
        await type_and_send(pilot, pane, "{}")
        await wait_for(pilot, lambda: ended(pane), what="the run to end")
        assert state_line(pane).startswith("done"), state_line(pane)
        [update] = [item for item in pane.model.items if isinstance(item, NodeUpdateItem)]
        block = pane.transcript.block(update.key)
        assert isinstance(block, NodeUpdateBlock)
        await pilot.pause()
        await wait_for(pilot, lambda: LINE in screen_text(app), what="the update's line")

        # Opened, the whole update: every shape as the graph wrote it (JSON-quoted).
        await pilot.click(block.query_one("CollapsibleTitle"))
        await wait_for(pilot, lambda: not block.query_one(Collapsible).collapsed, what="the update")
        await pilot.pause()
        shown = screen_text(app)
        for shape in MARKUP_SHAPES.values():
            quoted = shape.replace("\\", "\\\\")
            assert f'"{quoted}"' in shown, f"{quoted!r} not painted:\n{shown}"
        assert app.is_running

    # Opened again, the thread has no messages: its state, in the hint, as it is.
    app, _ = chat_app(client, thread.thread_id)
    async with app.run_test(size=WIDE) as pilot:
        await wait_for(
            pilot, lambda: "The thread's state:" in screen_text(app), what="the state in the hint"
        )
        shown = screen_text(app)
        assert 'notes=[{"content":"[link=file:///etc/passwd]x","type":"tool"' in shown
        assert app.is_running


async def test_the_hostile_graph_s_run_is_painted_inertly_live_and_reopened(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    """Its node's name, its update (a string, lists of dicts, dict keys), a tool call's
    name and arguments and the tool's result hold escapes, controls and markup shapes."""
    thread = await client.threads.create(metadata={"graph_id": HOSTILE_GRAPH})
    app, _ = chat_app(client, thread.thread_id)
    async with app.run_test(size=(240, 60)) as pilot:
        pane = pane_of(app)
        await type_and_send(pilot, pane, "hi")
        await wait_for(pilot, lambda: ended(pane), what="the run to end")
        assert state_line(pane).startswith("done"), state_line(pane)
        await pilot.pause()
        painted = drawn_inertly(
            app, f"→ tool-{MARKER}", f"tool · tool-{MARKER}", WRAPPED_HEAD, WRAPPED_TAIL
        )
        assert f"ai · node-{MARKER}" in painted  # the node, without ':' (langgraph's)
        assert painted.count(WRAPPED_TAIL) >= 3  # the tool's name, its call, its result
        [update] = [item for item in pane.model.items if isinstance(item, NodeUpdateItem)]
        block = pane.transcript.block(update.key)
        assert isinstance(block, NodeUpdateBlock)
        await pilot.click(block.query_one("CollapsibleTitle"))
        await wait_for(pilot, lambda: not block.query_one(Collapsible).collapsed, what="update")
        await pilot.pause()
        # The whole update as JSON (its lines cut at the pane's width): controls written
        # out, the shapes as typed (`markup_notes` above shows them whole).
        drawn_inertly(app, "\\u001b]0;pwned", "evilxadmin[link=fil")
        assert app.is_running

    app, _ = chat_app(client, thread.thread_id)  # opened again: from the thread's state
    async with app.run_test(size=(240, 60)) as pilot:
        pane = pane_of(app)
        await wait_for(pilot, lambda: len(tool_results(pane)) == 1, what="the thread's messages")
        await pilot.pause()
        painted = drawn_inertly(
            app, f"→ tool-{MARKER}", f"tool · tool-{MARKER}", WRAPPED_HEAD, WRAPPED_TAIL
        )
        assert painted.count(WRAPPED_TAIL) >= 3
        assert app.is_running
