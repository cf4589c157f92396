"""Running the chat on a specific assistant version, against the real agent server: the
picker lists an assistant's versions (`v` / `right`), the run passes the pinned version's
context (and its own config), the state line names the version, and `n` keeps it."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from textual.pilot import Pilot

from agent_tui.assistants.context_overrides import ContextOverrides
from agent_tui.chat.assistant import ChatAssistant
from agent_tui.client import AgentServerClient
from agent_tui.client.models import Assistant, AssistantVersion
from agent_tui.tui.chat.assistant_picker import AssistantPickerScreen
from agent_tui.tui.chat.assistant_version_picker import (
    VersionPickerScreen,
    active_config,
    context_summary,
    newest_first,
)
from agent_tui.tui.modals.confirm import ConfirmScreen
from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen
from tests.support.chat import (
    SIZE,
    ai_texts,
    chat_app,
    ended,
    mounted_pane,
    pane_of,
    state_line,
    type_and_send,
)
from tests.support.shell import ShellHarness
from tests.support.waiting import WaitFor, screen_shown

PLAIN = {"style": "plain", "token_delay_ms": 0}
PIRATE = {"style": "pirate", "token_delay_ms": 0}


async def two_version_bot(client: AgentServerClient, name: str) -> Assistant:
    """v1 answers plainly (with its own recursion limit), v2 (active) like a pirate."""
    bot = await client.assistants.create(
        "chat", context=PLAIN, name=name, config={"recursion_limit": 40}
    )
    bot = await client.assistants.update(bot.assistant_id, PIRATE, config={"recursion_limit": 25})
    assert bot.version == 2
    return bot


async def open_versions(
    pilot: Pilot[Any], app: ShellHarness, bot: Assistant, key: str, wait_for: WaitFor
) -> VersionPickerScreen:
    """f4, the bot's row, then `key` (`v` or `right`): its versions, loaded."""
    await pilot.press("f4")
    picker = app.screen
    assert isinstance(picker, AssistantPickerScreen)
    await wait_for(pilot, lambda: bool(picker.assistants), what="the assistants")
    row = next(i for i, a in enumerate(picker.assistants) if a.assistant_id == bot.assistant_id)
    picker.table.move_cursor(row=row)
    shown = {k: b.binding.description for k, b in app.active_bindings.items() if b.binding.show}
    assert shown["v"] == "Versions"  # the footer says how to get there
    await pilot.press(key)
    versions = app.screen
    assert isinstance(versions, VersionPickerScreen)
    await wait_for(pilot, lambda: bool(versions.versions), what="the versions")
    return versions


async def test_a_pinned_older_version_answers_as_that_version_and_n_keeps_it(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    bot = await two_version_bot(client, "versions bot")
    thread = await client.threads.create(metadata={})  # names no assistant
    app, screen = chat_app(client, thread.thread_id)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await wait_for(pilot, lambda: screen.thread is not None)
        versions = await open_versions(pilot, app, bot, "v", wait_for)
        # Newest first, the active one marked and highlighted, each context on one line.
        rows = [[str(cell) for cell in versions.table.get_row_at(i)] for i in range(2)]
        assert [row[0] for row in rows] == ["v2", "v1"]
        assert rows[0][2] == "● active" and rows[1][2] == ""
        assert rows[0][3] == "style=pirate, token_delay_ms=0"
        assert rows[1][3] == "style=plain, token_delay_ms=0 · own config"
        assert versions.table.cursor_row == 0
        await pilot.press("down", "enter")
        assert app.screen is screen
        assert pane.assistant is not None and pane.assistant.version == 1
        assert "versions bot v1 (not the active version)" in state_line(pane)
        await type_and_send(pilot, pane, "hi")
        await wait_for(pilot, lambda: ended(pane), what="the run to end")
        assert ai_texts(pane) == ["You said: hi"]
        # The run named the assistant and carried v1's own config.
        runs = await client.runs.list(thread.thread_id, limit=1)
        assert runs[0].assistant_id == bot.assistant_id
        assert runs[0].run_kwargs["config"]["recursion_limit"] == 40
        # `n`: a new thread on the same pinned version, still answering plainly.
        screen.pane.focus()  # `n` types into the prompt when it has the focus
        await pilot.press("n")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, ThreadViewScreen) and app.screen is not screen,
            what="the new thread's view",
        )
        fresh = await mounted_pane(app, pilot, wait_for)
        assert fresh.assistant is not None and fresh.assistant.version == 1
        assert "v1 (not the active version)" in state_line(fresh)
        await type_and_send(pilot, fresh, "hi")
        await wait_for(pilot, lambda: ended(fresh), what="the new thread's run")
        assert ai_texts(fresh) == ["You said: hi"]
        # f4 then v again: the pinned version is the one highlighted.
        fresh_app_screen = app.screen
        versions = await open_versions(pilot, app, bot, "v", wait_for)
        assert versions.table.cursor_row == 1  # v1, under the newer v2
        await pilot.press("escape", "escape")
        # Each escape closes one picker, as the loop gets to it (a loaded machine: later).
        await wait_for(pilot, lambda: app.screen is fresh_app_screen, what="the thread view")
        assert fresh.assistant.version == 1


async def test_right_lists_versions_esc_goes_back_and_the_active_version_can_be_pinned(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    bot = await two_version_bot(client, "pinned bot")
    thread = await client.threads.create(metadata={})
    app, screen = chat_app(client, thread.thread_id)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await wait_for(pilot, lambda: screen.thread is not None)
        await open_versions(pilot, app, bot, "right", wait_for)
        await pilot.press("escape")  # back to the assistants, nothing picked yet
        assert isinstance(back := app.screen, AssistantPickerScreen), back
        assert pane.assistant is None
        await pilot.press("right")
        versions = app.screen
        assert isinstance(versions, VersionPickerScreen)
        await wait_for(pilot, lambda: bool(versions.versions), what="the versions")
        await pilot.press("enter")  # the highlighted row: the active v2
        assert app.screen is screen
        assert "pinned bot v2 (pinned)" in state_line(pane)
        await type_and_send(pilot, pane, "hi")
        await wait_for(pilot, lambda: ended(pane), what="the run to end")
        assert ai_texts(pane) == ["Arr! You said: hi"]


# -- the pure helpers ----------------------------------------------------------------


def version(number: int, context: dict[str, Any], config: dict[str, Any]) -> AssistantVersion:
    return AssistantVersion(
        assistant_id="a1b2c3d4-0000-0000-0000-000000000000",
        graph_id="chat",
        name="bot",
        version=number,
        context=context,
        config=config,
        created_at=datetime(2026, 1, 2, 3, 4, tzinfo=UTC),
    )


def test_context_summary_is_one_clean_line_cut_to_width() -> None:
    assert context_summary({}) == "(empty context)"
    assert context_summary({"b": [1, 2], "a": "x\x1b[31my"}) == "a=xy, b=[1, 2]"
    assert context_summary({"note": "two\nlines"}) == "note=two lines"
    long = context_summary({"text": "w" * 100}, width=20)
    assert len(long) == 20 and long.endswith("…")


def test_a_pinned_version_passes_its_context_and_only_a_config_that_differs() -> None:
    v1 = version(1, PLAIN, {"recursion_limit": 40, "configurable": {"k": 1}})
    v2 = version(2, PIRATE, {"recursion_limit": 25})
    bot = Assistant.model_validate({**v2.raw(), "version": 2})
    assert newest_first([v1, v2]) == [v2, v1]
    assert active_config(bot, [v1, v2]) == {"recursion_limit": 25}
    overrides = ContextOverrides()
    overrides.record(bot.assistant_id, 2, {"style": "shout"})

    old = ChatAssistant.of_version(bot, v1, active_config(bot, [v1, v2]))
    assert old.shown == "bot v1 (not the active version)"
    assert old.context_for_run(overrides) == PLAIN  # the pinned version beats the override
    # `configurable` with a context is refused by the server: the context carries it.
    assert old.config_for_run() == {"recursion_limit": 40}

    current = ChatAssistant.of_version(bot, v2)
    assert current.shown == "bot v2 (pinned)"
    assert current.config_for_run() is None  # the same config as the active version

    following = ChatAssistant.of(bot)  # no version pinned: the app's override applies
    assert following.shown == "bot (a1b2c3d4) v2"
    assert following.context_for_run(overrides) == {"style": "shout"}
    assert following.context_for_run(None) is None and following.config_for_run() is None


async def test_picking_an_assistant_of_another_graph_asks_first(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    [chat] = await client.assistants.search(graph_id="chat", metadata={"created_by": "system"})
    thread = await client.threads.create(metadata={"graph_id": "chat"})
    app, screen = chat_app(client, thread.thread_id, chat)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await wait_for(pilot, lambda: screen.thread is not None)
        await pilot.press("f4")
        picker = app.screen
        assert isinstance(picker, AssistantPickerScreen)
        await wait_for(pilot, lambda: bool(picker.assistants), what="the assistants")
        row = next(i for i, a in enumerate(picker.assistants) if a.graph_id == "counter")
        assert "other graph" in str(picker.table.get_row_at(row)[-1])
        assert "other graph" not in str(
            picker.table.get_row_at(
                next(i for i, a in enumerate(picker.assistants) if a.graph_id == "chat")
            )[-1]
        )
        picker.table.move_cursor(row=row)
        await pilot.press("enter")
        await screen_shown(pilot, ConfirmScreen, what="the question")
        question = str(app.screen.query_one("#confirm-question").render())
        assert "This thread runs graph 'chat'" in question and "'counter'" in question
        await pilot.press("n")  # no: back to the list, the chat keeps its assistant
        await wait_for(pilot, lambda: app.screen is picker, what="the picker again")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="asked again")
        await pilot.press("y")
        await wait_for(pilot, lambda: app.screen is screen, what="the chat")
        assert pane.assistant is not None and pane.assistant.graph_id == "counter"
