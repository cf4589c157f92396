"""The chat follows the thread when it changes elsewhere (issue 20: "the screen never
disagrees with `GET /threads/{id}/state`"): a run started by another client, a fork made
by another client — while the thread view is open and polling — and its own runs do not
count as changes elsewhere."""

from __future__ import annotations

from agent_tui.client import AgentServerClient
from agent_tui.tui.chat.pane import CHANGED_ELSEWHERE
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
from tests.support.waiting import WaitFor

POLL = 0.2  # seconds between the thread view's status checks


def user(text: str) -> dict[str, object]:
    return {"messages": [{"role": "user", "content": text}]}


async def test_a_run_and_a_fork_made_elsewhere_show_in_the_open_chat(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    assistant = await chat_assistant(client)
    thread = await chat_thread(client, assistant)
    app, screen = chat_app(client, thread.thread_id, assistant, status_interval=POLL)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await wait_for(pilot, lambda: pane.shown_loaded, what="the chat")
        # Its own run: the thread changed, but the chat already shows it.
        await type_and_send(pilot, pane, "hello")
        await wait_for(pilot, lambda: ended(pane), what="the chat's own run")
        first = await client.threads.get_history(thread.thread_id, limit=1)
        # The thread view's poll has read the thread as it is after that run, twice.
        sync = screen.browser.sync
        for _ in range(2):
            sync.thread = None
            await wait_for(
                pilot,
                lambda: (
                    sync.thread is not None
                    and sync.thread.updated_at == pane.session.seen_updated_at
                ),
                what="the poll to read the thread after the chat's run",
            )
        assert CHANGED_ELSEWHERE not in notices(pane) and not pane.running

        # Another client runs the thread: the chat shows that exchange too.
        run = await client.runs.create(
            thread.thread_id, assistant.assistant_id, input=user("hello from elsewhere")
        )
        await client.runs.join(thread.thread_id, run.run_id)
        expected = await state_messages(client, thread.thread_id)
        assert ("human", "hello from elsewhere") in expected
        await wait_for(
            pilot,
            lambda: transcript_messages(pane) == expected,
            what="the run made elsewhere in the chat",
        )
        assert CHANGED_ELSEWHERE in notices(pane)

        # Another client forks the thread back to after the first exchange: the chat
        # shows the branch the thread is on now, not the messages it left.
        await client.threads.update_state(
            thread.thread_id,
            {"messages": [{"role": "user", "content": "a fork made elsewhere"}]},
            checkpoint_id=first[0].checkpoint_id,
        )
        expected = await state_messages(client, thread.thread_id)
        assert ("human", "hello from elsewhere") not in expected
        await wait_for(
            pilot,
            lambda: transcript_messages(pane) == expected,
            what="the fork made elsewhere in the chat",
        )


async def test_a_send_while_the_chat_reloads_keeps_screen_and_thread_in_step(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    """The reload a change elsewhere starts, and a message sent before it has read the
    thread: the run keeps the transcript, and every message shows once, on screen too
    (the reload once emptied the chat's messages under the run, leaving blocks that showed
    nothing and messages with no block)."""
    assistant = await chat_assistant(client)
    thread = await chat_thread(client, assistant)
    app, _screen = chat_app(client, thread.thread_id, assistant)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await wait_for(pilot, lambda: pane.shown_loaded, what="the chat")
        await type_and_send(pilot, pane, "hello")
        await wait_for(pilot, lambda: ended(pane), what="the first run")
        await client.threads.update_state(thread.thread_id, user("an edit elsewhere"))

        pane.load_transcript(CHANGED_ELSEWHERE)  # as the thread view's poll would
        pane.send("and hello again")  # before the reload has read anything
        await wait_for(pilot, lambda: ended(pane), what="the second run")
        await pilot.pause()
        shown = transcript_messages(pane)
        assert shown == await state_messages(client, thread.thread_id)
        assert ("human", "and hello again") in shown
        blocks = {id(block.item) for block in pane.transcript.blocks}
        assert blocks == {id(item) for item in pane.model.items}
