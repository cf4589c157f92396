"""The chat of a graph without `messages` (the `pipeline` test graph) against the real
server: the prompt takes the graph's input as a JSON object, checked before anything is
sent (what is wrong shows under the prompt, the text stays), and each node's update shows
its values, cut when long."""

from __future__ import annotations

from pathlib import Path

from agent_tui.chat.items import NodeUpdateItem
from agent_tui.client import AgentServerClient
from agent_tui.tui.chat.blocks import NodeUpdateBlock
from agent_tui.tui.chat.double_text_modal import DoubleTextScreen
from tests.support.chat import SIZE, chat_app, ended, humans, pane_of, state_line, type_and_send
from tests.support.screen import screen_text
from tests.support.waiting import WaitFor

GRAPH = "pipeline"


async def test_the_prompt_takes_the_graphs_input_and_node_updates_show_values(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    thread = await client.threads.create(metadata={"graph_id": GRAPH})
    app, _ = chat_app(client, thread.thread_id)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        # The prompt says what the graph takes, before anything is typed.
        await wait_for(
            pilot,
            lambda: "The graph's input as JSON" in screen_text(app),
            what="the prompt's placeholder",
        )
        assert '{"topic": ""' in screen_text(app)

        # A plain message is not the graph's input: said under the prompt, kept, not sent.
        await type_and_send(pilot, pane, "hi")
        await wait_for(pilot, lambda: pane.input_error.display, what="the input's error")
        shown = screen_text(app)
        assert "the input is not valid JSON" in shown
        assert pane.prompt.text == "hi" and pane.run_state == "idle"
        assert humans(pane) == []

        # A wrong key: named, and the text stays to be fixed.
        pane.prompt.clear()
        await type_and_send(pilot, pane, '{"topik": "owls"}')
        await wait_for(
            pilot,
            lambda: "no key topik in the graph's input" in screen_text(app),
            what="the unknown key's error",
        )
        assert pane.prompt.text == '{"topik": "owls"}'
        # The whole error (it wraps in the narrow pane): what the graph takes.
        assert str(pane.input_error.content).endswith(
            "(its keys: topic (string), notes (string), summary (string))"
        )

        # The right input runs: shown as sent, each node's update with its values.
        pane.prompt.clear()
        await type_and_send(pilot, pane, '{"topic": "owls"}')
        await wait_for(pilot, lambda: ended(pane), what="the run to end")
        assert state_line(pane).startswith("done"), state_line(pane)
        assert not pane.input_error.display and pane.prompt.text == ""
        assert humans(pane) == ['{\n  "topic": "owls"\n}']
        shown = screen_text(app)
        assert 'summarize ▸ summary="summary of owls"' in shown
        # A long value is cut on the block's one line (the whole update is one key away).
        assert 'research ▸ notes="OWLS and more and more' in shown
        [research] = [
            item
            for item in pane.model.items
            if isinstance(item, NodeUpdateItem) and item.node == "research"
        ]
        line = next(row for row in shown.splitlines() if "research ▸" in row)
        assert research.update["notes"] not in line
        block = pane.transcript.block(research.key)
        assert isinstance(block, NodeUpdateBlock) and block.title.endswith("…")
        assert (await client.threads.get(thread.thread_id)).values["summary"] == "summary of owls"

    # Reopened, the thread has no messages to show: the empty chat says what its state holds.
    app, _ = chat_app(client, thread.thread_id)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot, lambda: "The thread's state:" in screen_text(app), what="the state in the hint"
        )
        shown = screen_text(app)
        assert "This graph takes no messages: type its input as a JSON object" in shown
        assert 'summary="summary of owls"' in shown


async def test_input_handed_to_the_server_during_a_run_is_checked_first(
    client: AgentServerClient, wait_for: WaitFor, tmp_path: Path
) -> None:
    # `ticker` takes no messages either; its gate holds the first run open until the
    # second is handed over, however slow a loaded machine is.
    gate = tmp_path / "gate"
    ticker = await client.assistants.create(
        "ticker", context={"ticks": 5, "delay": 0.05, "gate": str(gate)}
    )
    thread = await client.threads.create(metadata={"graph_id": "ticker"})
    app, _ = chat_app(client, thread.thread_id, ticker)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await type_and_send(pilot, pane, "{}")
        await wait_for(pilot, lambda: pane.run_state == "running", what="the run", workers=False)

        async def hand_over(text: str) -> None:
            pane.prompt.insert(text)
            await pilot.press("enter")
            await wait_for(
                pilot,
                lambda: isinstance(app.screen, DoubleTextScreen),
                what="how to send it",
                workers=False,
            )
            await pilot.press("e")  # enqueue on the server

        await hand_over("oops")
        await wait_for(
            pilot, lambda: pane.input_error.display, what="the input's error", workers=False
        )
        assert "the input is not valid JSON" in str(pane.input_error.content)
        assert pane.prompt.text == "oops" and pane.queued is None
        assert len(await client.runs.list(thread.thread_id)) == 1  # nothing was sent

        pane.prompt.clear()
        await hand_over('{"done": 1}')
        await wait_for(pilot, lambda: pane.queued == '{"done": 1}', what="enqueued", workers=False)
        assert not pane.input_error.display
        gate.touch()  # the first run ends; the handed-over one follows
        await wait_for(
            pilot,
            lambda: ended(pane) and pane.queued is None,
            what="both runs to end",
        )
        runs = await client.runs.list(thread.thread_id)
        assert [run.status for run in runs] == ["success", "success"]
