"""Runs in the chat pane against the real agent server: an interrupt answered in the
transcript, an error run, cancelling with esc and ctrl+c, other stream modes and the
event inspector."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import Input

from agent_tui.chat.items import CustomItem, InterruptItem
from agent_tui.client import AgentServerClient
from agent_tui.client.models import Assistant
from agent_tui.tui.chat.interrupt import InterruptBlock
from agent_tui.tui.chat.stream_modes import StreamModesScreen
from agent_tui.tui.chat.thread_inputs import PathScreen
from agent_tui.tui.modals.raw_json import RawJsonScreen
from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen
from tests.support.chat import (
    SIZE,
    ai_texts,
    chat_app,
    chat_assistant,
    chat_thread,
    ended,
    error_block_texts,
    errors,
    humans,
    notices,
    pane_of,
    state_line,
    type_and_send,
)
from tests.support.screen import toast_saying
from tests.support.waiting import WaitFor


async def test_an_interrupt_is_answered_in_the_transcript_and_the_run_continues(
    client: AgentServerClient, fast_chat: Assistant, wait_for: WaitFor
) -> None:
    thread = await chat_thread(client, fast_chat)
    app, _ = chat_app(client, thread.thread_id, fast_chat)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await type_and_send(pilot, pane, "deploy to staging")
        await wait_for(pilot, lambda: ended(pane), what="the interrupt")
        assert pane.run_state == "interrupted" and "interrupted" in state_line(pane)
        [item] = [i for i in pane.model.items if isinstance(i, InterruptItem)]
        assert item.value["question"] == "Deploy to staging? (yes/no)"
        block = pane.transcript.block(item.key)
        assert isinstance(block, InterruptBlock)
        # The question takes the focus from the prompt: the answer is typed at once.
        assert block.query_one(Input).has_focus
        await pilot.press("y", "e", "s", "enter")
        await wait_for(
            pilot, lambda: ended(pane) and state_line(pane).startswith("done"), what="resume"
        )
        assert item.answered and pane.prompt.has_focus
        assert ai_texts(pane)[-1] == "Deployed to staging."
        state = await client.threads.get_state(thread.thread_id)
        assert state.values["messages"][-1]["content"] == "Deployed to staging."


async def test_an_error_shows_its_class_node_and_message_also_when_reopened(
    client: AgentServerClient, fast_chat: Assistant, wait_for: WaitFor
) -> None:
    thread = await chat_thread(client, fast_chat)
    app, screen = chat_app(client, thread.thread_id, fast_chat)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await type_and_send(pilot, pane, "fail please")
        await wait_for(pilot, lambda: ended(pane), what="the run to end")
        assert pane.run_state == "error"
        said = "DemoFailure in agent: You asked me to fail."
        await wait_for(pilot, lambda: [e.node for e in errors(pane)] == ["agent"], what="node")
        assert [(e.error, e.message) for e in errors(pane)] == [
            ("DemoFailure", "You asked me to fail.")
        ]
        # The error's block is mounted a moment after the run's end is known.
        await wait_for(pilot, lambda: error_block_texts(pane) == [said], what="the error block")
        header = screen.query_one("#thread-header")
        await wait_for(pilot, lambda: said in str(header.render()), what="the header")
        assert "thread error (DemoFailure in agent)" in state_line(pane)

    # Reopened later, the thread says the same, before anything is sent.
    app, screen = chat_app(client, thread.thread_id, fast_chat)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await wait_for(pilot, lambda: error_block_texts(pane) == [said], what="the error")
        assert humans(pane) == ["fail please"]
        header = screen.query_one("#thread-header")
        await wait_for(pilot, lambda: said in str(header.render()), what="the header")
        assert "thread error (DemoFailure in agent)" in state_line(pane)


async def test_esc_and_ctrl_c_cancel_the_run_on_the_server_and_keep_what_arrived(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    slow = await chat_assistant(client, token_delay_ms=5)
    thread = await chat_thread(client, slow)
    app, screen = chat_app(client, thread.thread_id, slow)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        for key in ("escape", "ctrl+c"):
            answers_before = len(ai_texts(pane))
            await type_and_send(pilot, pane, "count to 2000")

            # The answer of *this* run has tokens (the first run's answer must not count).
            def tokens(before: int = answers_before) -> bool:
                return len("".join(ai_texts(pane)[before:])) > 20

            await wait_for(pilot, tokens, what="tokens", workers=False)
            assert app.focused is pane.prompt
            await pilot.press(key)
            await wait_for(pilot, lambda: ended(pane), what=f"the cancel by {key}")
            assert pane.run_state == "cancelled" and "cancelled" in state_line(pane)
            assert app.screen is screen  # esc cancelled the run; it did not go back
            partial = ai_texts(pane)[-1]
            assert partial.startswith("1 2 3") and not partial.endswith("1999 2000")
            assert "Run cancelled." in notices(pane)
        runs = await client.runs.list(thread.thread_id)
        assert [run.status for run in runs] == ["interrupted", "interrupted"]
        # With no run, esc goes back as before.
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ThreadViewScreen))

    # Reopened, the thread says its run was cancelled: not "paused", no paused bar.
    app, screen = chat_app(client, thread.thread_id, slow)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await wait_for(pilot, lambda: pane.shown_loaded, what="the transcript")
        assert pane.run_state == "cancelled" and state_line(pane).startswith("cancelled")
        assert notices(pane)[-1] == "The last run was cancelled before agent finished."
        assert not pane.paused_bar.display


async def test_custom_and_debug_modes_show_in_the_transcript_and_the_inspector(
    client: AgentServerClient, wait_for: WaitFor, tmp_path: Path
) -> None:
    ticker = await client.assistants.create("ticker", context={"ticks": 3, "delay": 0.01})
    thread = await client.threads.create(metadata={"graph_id": "ticker"})
    app, _ = chat_app(client, thread.thread_id, ticker)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        pane = pane_of(app)
        await pilot.press("f3")
        assert isinstance(app.screen, StreamModesScreen)
        # updates, messages-tuple, values, custom, debug: turn on custom and debug.
        await pilot.press("down", "down", "down", "space", "down", "space", "enter")
        assert pane.stream_modes == ("updates", "messages-tuple", "custom", "debug")
        assert "custom, debug" in state_line(pane)
        await type_and_send(pilot, pane, "{}")  # the graph's input: it takes no messages
        await wait_for(pilot, lambda: ended(pane), what="the run to end")
        customs = [item.data for item in pane.model.items if isinstance(item, CustomItem)]
        assert customs == [{"tick": 0}, {"tick": 1}, {"tick": 2}]
        # The inspector recorded every event while hidden; f2 shows it.
        kinds = [record.event for record in pane.inspector.records]
        assert kinds[0] == "metadata" and "debug" in kinds and kinds.count("custom") == 3
        await pilot.press("f2")
        assert pane.inspector.display and app.focused is pane.inspector
        await wait_for(pilot, lambda: pane.inspector.shown_lines == len(kinds))
        # enter shows one event whole: here the first, the run's metadata.
        await pilot.press("home", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RawJsonScreen), what="the event")
        shown = app.screen
        assert isinstance(shown, RawJsonScreen) and shown.heading.startswith("Event metadata")
        assert shown.data["data"]["run_id"] == pane.session.driver.run_id
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.focused is pane.inspector, what="back")
        # ctrl+s saves them as JSON Lines where the user says.
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, PathScreen)
        target = tmp_path / "events.jsonl"
        app.screen.query_one(Input).value = str(target)
        await pilot.press("enter")
        await wait_for(pilot, lambda: target.exists(), what="the saved file")
        lines = [json.loads(line) for line in target.read_text().splitlines()]
        assert [line["event"] for line in lines] == kinds
        await toast_saying(pilot, str(target))
        # At 150 columns the history pane made way for the inspector; f2 again brings
        # it back with the transcript alone.
        history = app.screen.query_one("#history")
        assert not history.display
        await pilot.press("f2")
        assert history.display and not pane.inspector.display


async def test_runs_pass_the_active_versions_context_when_the_server_kept_a_stale_one(
    client: AgentServerClient, fast_chat: Assistant, wait_for: WaitFor
) -> None:
    from agent_tui.assistants.context_overrides import ContextOverrides

    thread = await chat_thread(client, fast_chat)
    app, _ = chat_app(client, thread.thread_id, fast_chat)
    overrides = ContextOverrides()
    # As the assistants screen records it after a version switch the server half-did.
    overrides.record(fast_chat.assistant_id, 1, {"token_delay_ms": 0, "style": "pirate"})
    app.context_overrides = overrides
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await type_and_send(pilot, pane, "ahoy")
        await wait_for(pilot, lambda: ended(pane), what="the run to end")
        assert ai_texts(pane) == ["Arr! You said: ahoy"]
