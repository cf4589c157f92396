"""A message queued while a run streams, against the real agent server: `enter` twice
queues it, it is sent when the run ends `done`, `esc` drops it, and a cancelled run
gives it back instead of sending it. The footer names what `esc` does meanwhile."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import OptionList

from agent_tui.client import AgentServerClient
from agent_tui.client.models import Thread
from agent_tui.tui.chat.double_text_modal import DoubleTextScreen
from agent_tui.tui.chat.pane import ChatPane
from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen
from tests.support.chat import (
    SIZE,
    ai_texts,
    chat_app,
    chat_assistant,
    chat_thread,
    ended,
    humans,
    pane_of,
    state_line,
    type_and_send,
)
from tests.support.screen import footer_keys, toast_saying
from tests.support.shell import ShellHarness
from tests.support.waiting import WaitFor

# "count to 300" then streams for 6 s or more: time for a few key presses, which wait
# for the app to go idle (up to a second each while tokens stream).
TOKEN_DELAY_MS = 20


async def slow_chat(client: AgentServerClient) -> tuple[Thread, ShellHarness, ThreadViewScreen]:
    """A new thread of a chat assistant slow enough to act while it answers, in the view."""
    slow = await chat_assistant(client, token_delay_ms=TOKEN_DELAY_MS)
    thread = await chat_thread(client, slow)
    app, screen = chat_app(client, thread.thread_id, slow)
    return thread, app, screen


async def start_long_run(pilot: Any, pane: ChatPane, wait_for: WaitFor, count: int = 300) -> None:
    await type_and_send(pilot, pane, f"count to {count}")
    await wait_for(pilot, lambda: len("".join(ai_texts(pane))) > 10, what="tokens", workers=False)


async def ask_how(pilot: Any, pane: ChatPane, text: str, wait_for: WaitFor) -> DoubleTextScreen:
    """Type `text` during the run and press enter: the picker asks how to send it.
    (The prompt may act on `enter` a message-loop turn later: after keys queued before.)"""
    pane.prompt.insert(text)
    await pilot.press("enter")
    await wait_for(
        pilot,
        lambda: isinstance(pane.app.screen, DoubleTextScreen),
        what="the picker",
        workers=False,
    )
    assert pane.queued is None and pane.prompt.text == text
    picker = pane.app.screen
    assert isinstance(picker, DoubleTextScreen)
    return picker


async def queue(pilot: Any, pane: ChatPane, text: str, wait_for: WaitFor) -> None:
    """Type `text` during the run: enter asks how, enter again picks "Queue here"."""
    await ask_how(pilot, pane, text, wait_for)
    await pilot.press("enter")
    await wait_for(pilot, lambda: pane.queued == text, what="queued", workers=False)


def toasts_last(app: ShellHarness, monkeypatch: pytest.MonkeyPatch) -> None:
    """Notifications stay up for a minute (not Textual's 5 s from `notify`): a run's end
    keeps the app busy (the transcript, the thread view's refresh), and on a CPU-starved
    machine a toast could come and go before the test got a turn to read it."""
    monkeypatch.setattr(app, "NOTIFICATION_TIMEOUT", 60)  # this app only


def queued_label(pane: ChatPane) -> str:
    """What the queued block's label says ("" until the block is mounted and composed)."""
    block = pane.transcript.queued_block
    labels = block.query(".block-label") if block is not None else None
    return str(labels.first().render()) if labels else ""


async def test_a_message_queued_during_a_run_is_sent_when_the_run_is_done(
    client: AgentServerClient, wait_for: WaitFor, tmp_path: Path
) -> None:
    # The chat graph behind a step that waits for the gate file: the run cannot end
    # before the message is queued, however slow the machine.
    gate = tmp_path / "gate"
    gated = await client.assistants.create(
        "nested", context={"token_delay_ms": TOKEN_DELAY_MS, "gate": str(gate)}
    )
    thread = await chat_thread(client, gated)
    app, _ = chat_app(client, thread.thread_id, gated)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await wait_for(pilot, lambda: footer_keys(app).get("esc") == "Back", what="Back")
        await type_and_send(pilot, pane, "count to 300")
        await wait_for(pilot, lambda: pane.run_state == "running", what="the run", workers=False)
        # The footer says what esc does now: it cancels the run, it does not go back.
        await wait_for(
            pilot,
            lambda: footer_keys(app).get("esc") == "Cancel run",
            what="esc Cancel run in the footer",
            workers=False,
        )
        await queue(pilot, pane, "hello", wait_for)
        assert pane.queued == "hello" and pane.prompt.text == ""  # free for the next one
        assert "1 message queued" in state_line(pane)
        # The block is mounted, so composed, a message-loop turn later.
        await wait_for(
            pilot, lambda: "queued" in queued_label(pane), what="the queued block", workers=False
        )
        await wait_for(
            pilot,
            lambda: footer_keys(app).get("esc") == "Drop queued",
            what="esc Drop queued in the footer",
            workers=False,
        )
        gate.touch()  # now the run answers
        # workers=False: the thread view's refresh after the first run may be cancelled
        # by the one after the second (an exclusive worker), which is no failure.
        await wait_for(
            pilot,
            lambda: ended(pane) and ai_texts(pane)[-1:] == ["You said: hello"],
            what="the queued message's answer",
            workers=False,
        )
        assert humans(pane) == ["count to 300", "hello"]
        assert ai_texts(pane)[0].endswith("299 300")
        assert pane.queued is None and pane.transcript.queued_block is None
        assert "queued" not in state_line(pane)
        await wait_for(
            pilot, lambda: footer_keys(app).get("esc") == "Back", what="Back", workers=False
        )
        runs = await client.runs.list(thread.thread_id)
        assert [run.status for run in runs] == ["success", "success"]


async def test_esc_drops_the_queued_message_and_a_cancelled_run_does_not_send_it(
    client: AgentServerClient, wait_for: WaitFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    thread, app, screen = await slow_chat(client)
    toasts_last(app, monkeypatch)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        pane = pane_of(app)
        await start_long_run(pilot, pane, wait_for, count=2000)  # cancelled, never waited for
        await queue(pilot, pane, "hello", wait_for)
        assert pane.queued == "hello"
        # esc drops the queued message (its text comes back to edit); the run goes on.
        await pilot.press("escape")
        await wait_for(
            pilot,
            lambda: pane.transcript.queued_block is None and pane.prompt.text == "hello",
            what="the queued message back in the prompt",
            workers=False,
        )
        assert pane.queued is None and pane.run_state == "running"
        assert app.screen is screen
        # Queued again, then the run is cancelled: the message is not sent but given back.
        # (The second enter is for the picker: pressed once it is there.)
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: isinstance(pane.app.screen, DoubleTextScreen),
            what="the picker",
            workers=False,
        )
        await pilot.press("enter")
        await wait_for(pilot, lambda: pane.queued == "hello", what="queued again", workers=False)
        await pilot.press("ctrl+c")
        # The toast first: it is on screen for a few seconds only, and waiting for the
        # cancel also waits for the workers that follow it.
        await toast_saying(pilot, "cancelled, so the queued message was not sent")
        await wait_for(pilot, lambda: ended(pane), what="the cancel")
        assert pane.run_state == "cancelled"
        assert pane.queued is None and pane.transcript.queued_block is None
        assert pane.prompt.text == "hello"
        assert humans(pane) == ["count to 2000"]
        runs = await client.runs.list(thread.thread_id)
        assert [run.status for run in runs] == ["interrupted"]


@pytest.mark.parametrize(
    ("then", "state", "why"),
    [
        ("interrupt", "interrupted", "The run stopped for a question"),
        ("fail", "error", "The run failed"),
    ],
)
async def test_a_run_that_stops_for_a_question_or_fails_gives_the_queued_message_back(
    client: AgentServerClient,
    wait_for: WaitFor,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    then: str,
    state: str,
    why: str,
) -> None:
    # The run ticks on until the gate file exists: it cannot end before the message is
    # queued, however slow the machine.
    gate = tmp_path / "gate"
    ticker = await client.assistants.create(
        "ticker", context={"ticks": 1, "delay": 0.05, "then": then, "gate": str(gate)}
    )
    thread = await client.threads.create(metadata={"graph_id": "ticker"})
    app, _ = chat_app(client, thread.thread_id, ticker)
    toasts_last(app, monkeypatch)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        pane = pane_of(app)
        await type_and_send(pilot, pane, "{}")  # the graph's input: it takes no messages
        await wait_for(pilot, lambda: pane.run_state == "running", what="the run", workers=False)
        await queue(pilot, pane, "next question", wait_for)
        assert pane.queued == "next question"
        gate.touch()  # now the run asks its question, or fails
        # The toast first: it is on screen for a few seconds only, and waiting for the
        # run's end also waits for the workers that follow it.
        await toast_saying(pilot, f"{why}, so the queued message was not sent")
        await wait_for(pilot, lambda: ended(pane), what="the run's end")
        assert pane.run_state == state
        assert pane.queued is None and pane.transcript.queued_block is None
        assert pane.prompt.text == "next question"  # given back, not sent
        assert humans(pane) == ["{}"]
        runs = await client.runs.list(thread.thread_id)
        assert len(runs) == 1


async def hand_over(
    pilot: Any, pane: ChatPane, text: str, key: str, wait_for: WaitFor
) -> DoubleTextScreen:
    picker = await ask_how(pilot, pane, text, wait_for)
    await pilot.press(key)
    await wait_for(pilot, lambda: not picker.is_attached, what="the picker to close", workers=False)
    return picker


async def test_interrupt_hands_the_message_to_the_server_which_stops_the_run(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    thread, app, _ = await slow_chat(client)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await start_long_run(pilot, pane, wait_for, count=2000)
        await hand_over(pilot, pane, "hello", "i", wait_for)
        await wait_for(
            pilot,
            lambda: ended(pane) and ai_texts(pane)[-1:] == ["You said: hello"],
            what="the new message's answer",
            workers=False,
        )
        assert humans(pane) == ["count to 2000", "hello"]
        assert not ai_texts(pane)[0].endswith("1999 2000")  # the first run was stopped
        assert pane.prompt.text == "" and pane.transcript.queued_block is None
    runs = await client.runs.list(thread.thread_id)
    assert [(run.status, run.multitask_strategy) for run in runs] == [
        ("success", "interrupt"),
        ("interrupted", "reject"),
    ]


async def test_enqueue_lets_the_run_finish_then_follows_the_servers_queued_run(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    thread, app, _ = await slow_chat(client)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await start_long_run(pilot, pane, wait_for, count=600)
        await hand_over(pilot, pane, "hello", "e", wait_for)
        # The server holds it: the transcript says so, and `esc` does not drop it.
        await wait_for(
            pilot, lambda: pane.queued == "hello", what="the server's answer", workers=False
        )
        await wait_for(
            pilot,
            lambda: "enqueued on the server" in queued_label(pane),
            what="the enqueued block",
            workers=False,
        )
        assert "1 message on the server (enqueue)" in state_line(pane)
        # esc cannot drop what the server holds: it still cancels the active run.
        await wait_for(
            pilot,
            lambda: footer_keys(app).get("esc") == "Cancel run",
            what="esc Cancel run in the footer",
            workers=False,
        )
        assert [run.multitask_strategy for run in await client.runs.list(thread.thread_id)] == [
            "enqueue",
            "reject",
        ]
        await wait_for(
            pilot,
            lambda: ended(pane) and ai_texts(pane)[-1:] == ["You said: hello"],
            what="the queued run's answer",
            workers=False,
        )
        assert humans(pane) == ["count to 600", "hello"]
        assert ai_texts(pane)[0].endswith("599 600")  # the first run was left to finish
    runs = await client.runs.list(thread.thread_id)
    assert [run.status for run in runs] == ["success", "success"]


async def test_rollback_deletes_the_run_and_the_transcript_forgets_its_answer(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    thread, app, _ = await slow_chat(client)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await start_long_run(pilot, pane, wait_for, count=2000)
        await hand_over(pilot, pane, "hello", "r", wait_for)
        await wait_for(
            pilot,
            lambda: ended(pane) and ai_texts(pane) == ["You said: hello"],
            what="only the new message's answer",
            workers=False,
        )
        # The run is gone with its partial answer. Whether langgraph-api 0.16.7 also drops
        # its input message depends on how far the run got: the transcript shows the thread
        # as the server left it.
        state = await client.threads.get_state(thread.thread_id)
        kept = [m["content"] for m in state.values["messages"] if m["type"] == "human"]
        assert humans(pane) == kept and kept[-1] == "hello"
        assert kept in (["hello"], ["count to 2000", "hello"])
    runs = await client.runs.list(thread.thread_id)
    assert [(run.status, run.multitask_strategy) for run in runs] == [("success", "rollback")]


async def test_reject_is_refused_by_the_server_and_the_message_stays(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    thread, app, _ = await slow_chat(client)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        pane = pane_of(app)
        await start_long_run(pilot, pane, wait_for, count=2000)
        await hand_over(pilot, pane, "hello", "x", wait_for)
        await toast_saying(pilot, "The server refused it (reject): ")
        assert pane.prompt.text == "hello" and pane.queued is None
        assert pane.running  # the active run goes on
        await pilot.press("escape")
        await wait_for(pilot, lambda: ended(pane), what="the cancel")
    runs = await client.runs.list(thread.thread_id)
    assert len(runs) == 1


async def test_esc_in_the_picker_keeps_the_message_in_the_prompt(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    _, app, screen = await slow_chat(client)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await start_long_run(pilot, pane, wait_for, count=2000)
        picker = await ask_how(pilot, pane, "hello", wait_for)
        choices = picker.query_one(OptionList)
        shown = " ".join(str(choices.get_option_at_index(i).prompt) for i in range(5))
        for words in ("Queue here", "Enqueue on the server", "Interrupt", "Rollback", "Reject"):
            assert words in shown, words
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, what="the picker to close")
        assert pane.prompt.text == "hello" and pane.queued is None and pane.running
        await pilot.press("escape")
        await wait_for(pilot, lambda: ended(pane), what="the cancel")
