"""`D` on a chat message: its turn — the human message as the input and, if wanted, the
answer as the reference — becomes an example of a dataset. The turn is the message
clicked, else the one in view; a message sent from this chat (shown under a local id)
finds its turn too; the form lets any other turn be picked, and `?` lists the key."""

from __future__ import annotations

import uuid

from textual.widgets import Checkbox

from agent_tui.chat.items import AIItem, HumanItem
from agent_tui.client import AgentServerClient
from agent_tui.datasets.store import DatasetStore
from agent_tui.tui.chat.blocks import ChatBlock
from agent_tui.tui.modals.to_dataset import AddToDatasetScreen
from agent_tui.tui.screens.help import HelpScreen
from agent_tui.tui.widgets.inert import Input, Select
from tests.support.chat import (
    SIZE,
    chat_app,
    chat_assistant,
    chat_thread,
    ended,
    pane_of,
    type_and_send,
)
from tests.support.screen import screen_text, toast_saying
from tests.support.waiting import WaitFor, screen_shown


def asked(text: str) -> dict[str, object]:
    return {"messages": [{"role": "user", "content": text}]}


async def test_d_adds_the_turn_of_a_chat_message(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    assistant = await chat_assistant(client)
    thread = await chat_thread(client, assistant)
    for text in ("first question", "second question"):
        await client.runs.wait(thread.thread_id, assistant.assistant_id, input=asked(text))
    name = f"chat-{uuid.uuid4().hex[:8]}"
    app, _screen = chat_app(client, thread.thread_id, assistant)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        pane = pane_of(app)
        await wait_for(pilot, lambda: pane.shown_loaded, what="the chat")
        # A third turn sent from here: its message is shown under a local id.
        await type_and_send(pilot, pane, "third one")
        await wait_for(pilot, lambda: ended(pane), what="the run")
        await wait_for(
            pilot,
            lambda: "You said: third one" in screen_text(app),
            what="the third answer",
        )

        async def add(*, keep_answer: bool = True) -> AddToDatasetScreen:
            await pilot.press("D")
            await screen_shown(pilot, AddToDatasetScreen, what="form")
            form = app.screen
            assert isinstance(form, AddToDatasetScreen)
            turns = form.query_one("#to-dataset-turn", Select)
            await wait_for(pilot, lambda: not turns.is_blank(), what="the turns listed")
            form.query_one("#to-dataset-name", Input).value = name
            form.query_one("#to-dataset-reference", Checkbox).value = keep_answer
            return form

        def block_of(kind: type[HumanItem | AIItem], text: str) -> ChatBlock:
            return next(
                block
                for block in pane.transcript.blocks
                if isinstance(block.item, kind) and block.item.text == text
            )

        # The transcript focused and following its end: the last turn, the one sent here.
        pane.transcript.focus()
        await pilot.pause()
        form = await add()
        assert "3. third one → You said: third one" in screen_text(app)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.screen is not form, what="the form closed")
        await toast_saying(pilot, "Added the turn to the dataset")
        examples = DatasetStore().load(name).examples
        assert [e.inputs for e in examples] == [asked("third one")]
        assert examples[0].outputs == {"answer": "You said: third one"}
        assert examples[0].metadata == {"source_thread_id": thread.thread_id}

        # A click picks a message (and focuses the transcript): the first question's turn,
        # its input only.
        await pilot.click(block_of(HumanItem, "first question"))
        form = await add(keep_answer=False)
        assert form.query_one("#to-dataset-turn", Select).value == 0
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.screen is not form, what="the form closed")
        examples = DatasetStore().load(name).examples
        assert [(e.inputs, e.outputs) for e in examples[1:]] == [(asked("first question"), None)]

        # An answer picks its own turn; another turn can be chosen in the form instead.
        await pilot.click(block_of(AIItem, "You said: second question"))
        form = await add()
        turns = form.query_one("#to-dataset-turn", Select)
        assert turns.value == 1
        turns.value = 2
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.screen is not form, what="the form closed")
        examples = DatasetStore().load(name).examples
        assert [e.inputs for e in examples[2:]] == [asked("third one")]

        # The key is listed in the help while the transcript has the focus.
        await pilot.press("question_mark")
        await screen_shown(pilot, HelpScreen, what="the help")
        assert "Add to dataset" in screen_text(app)
