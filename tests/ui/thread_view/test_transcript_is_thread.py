"""The chat transcript is the thread: after a send, a fork, a replay and the next send the
chat shows the messages of the checkpoint the thread is on, in order, each once, and says
when it moved to another branch (issue 20, part 3; real server)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from textual.widgets import Select

from agent_tui.client import AgentServerClient
from agent_tui.tui import editor
from agent_tui.tui.chat.thread_inputs import AsNodeScreen
from tests.support.chat import (
    SIZE,
    chat_app,
    chat_assistant,
    chat_thread,
    ended,
    notices,
    pane_of,
    state_messages,
    transcript_messages,
    type_and_send,
)
from tests.support.thread_view import loaded
from tests.support.waiting import WaitFor


async def test_after_a_fork_and_a_replay_the_chat_shows_the_branch(
    client: AgentServerClient, wait_for: WaitFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def snowing(app: Any, text: str, *, title: str = "") -> str:
        values = json.loads(text)
        values["messages"][2]["content"] = "It is snowing in Paris."
        return json.dumps(values)

    monkeypatch.setattr(editor, "edit_text", snowing)
    assistant = await chat_assistant(client)
    thread = await chat_thread(client, assistant)
    app, screen = chat_app(client, thread.thread_id, assistant)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await wait_for(pilot, lambda: pane.shown_loaded, what="the chat")
        await type_and_send(pilot, pane, "weather in Paris")
        await wait_for(pilot, lambda: ended(pane), what="the first run")
        first = await state_messages(client, thread.thread_id)
        assert transcript_messages(pane) == first
        old_answer = first[-1]

        # `f` where the tool has answered: the tool's result edited, saved as `tools`.
        await wait_for(
            pilot, lambda: loaded(screen) and len(screen.history.rows) >= 5, what="the steps"
        )
        await pilot.press("ctrl+g")
        while not (
            screen.selected_row is not None
            and len(screen.selected_row.state.values.get("messages", [])) == 3
        ):
            await pilot.press("down")
        await pilot.press("f")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, AsNodeScreen) and isinstance(app.focused, Select),
            workers=False,
            what="the node picker",
        )
        await pilot.press("ctrl+s")
        await wait_for(
            pilot, lambda: any("Forked at step" in text for text in notices(pane)), what="fork"
        )
        assert transcript_messages(pane) == await state_messages(client, thread.thread_id)
        assert ("tool", "It is snowing in Paris.") in transcript_messages(pane)
        assert old_answer not in transcript_messages(pane)

        await pilot.press("p")
        await wait_for(
            pilot, lambda: any("Ran from step" in text for text in notices(pane)), what="replay"
        )
        replayed = await state_messages(client, thread.thread_id)
        assert replayed[-1] == ("ai", "It is snowing in Paris.")
        assert transcript_messages(pane) == replayed

        await type_and_send(pilot, pane, "hello again")
        await wait_for(pilot, lambda: ended(pane), what="the next run")
        shown = transcript_messages(pane)
        assert shown == await state_messages(client, thread.thread_id)
        assert shown[-2:] == [("human", "hello again"), ("ai", "You said: hello again")]
        assert old_answer not in shown
