"""A failed call in the exception's own words on every screen that shows a failure: the
chat (its error block, the thread header, the state line), the attention queue, the
runs screen and a replay from a checkpoint.

The `failing` test graph's `call_model` connects to a loopback port that refuses and lets
the `httpx.ConnectError` propagate; langgraph-api says only `An internal error occurred`
in the stream and the thread's `error`, and the screens read the words from the failing
task in the thread's state (`threads.failure`).
"""

from __future__ import annotations

from typing import Any

from agent_tui.client import AgentServerClient
from agent_tui.settings.target import RemoteServer
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.modals.raw_json import RawJsonScreen
from agent_tui.tui.screens.server_info import ServerInfoScreen
from agent_tui.tui.screens.thread_runs import ThreadRunsScreen
from agent_tui.tui.screens.threads.attention import AttentionScreen
from tests.support.chat import (
    SIZE,
    chat_app,
    ended,
    error_block_texts,
    pane_of,
    state_line,
    type_and_send,
)
from tests.support.screen import painted_control_codes, screen_text, toast_saying
from tests.support.thread_view import loaded, view_app
from tests.support.threads import HOSTILE, SHOWN, page_to_the_end
from tests.support.waiting import WaitFor

GRAPH = "failing"
REFUSED = "Connection refused: code 7731"  # the ConnectError's own words (Linux: [Errno 111] …)
GENERIC = "internal error"


def message(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


async def failed_thread(client: AgentServerClient, *texts: str) -> str:
    """A thread of `failing` whose runs (one per text, in order) all failed."""
    thread_id = (await client.threads.create(metadata={"graph_id": GRAPH})).thread_id
    for text in texts:
        async with client.runs.stream(thread_id, GRAPH, input=message(text)) as run:
            async for _event in run:
                pass
    return thread_id


async def test_the_chat_says_the_exceptions_own_words(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    assistant = await client.assistants.create(GRAPH, name="failing model call")
    thread_id = (await client.threads.create(metadata={"graph_id": GRAPH})).thread_id
    app, screen = chat_app(client, thread_id, assistant)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await type_and_send(pilot, pane, "hello")
        await wait_for(pilot, lambda: ended(pane), what="the run to end")
        assert pane.run_state == "error"

        def told() -> bool:
            shown = error_block_texts(pane)
            return len(shown) == 1 and shown[0].endswith(REFUSED)

        await wait_for(pilot, told, what="the exception's words")
        [said] = error_block_texts(pane)
        assert said.startswith("ConnectError in call_model: ") and GENERIC not in said
        header = screen.query_one("#thread-header")
        await wait_for(pilot, lambda: said in str(header.render()), what="the header")
        assert "thread error (ConnectError in call_model)" in state_line(pane)

    # Reopened later: the same words, before anything is sent.
    app, screen = chat_app(client, thread_id, assistant)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await wait_for(pilot, lambda: error_block_texts(pane) == [said], what="the error")
        header = screen.query_one("#thread-header")
        await wait_for(pilot, lambda: said in str(header.render()), what="the header")


async def test_the_attention_queue_and_the_runs_screen_say_why_each_run_failed(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    thread_id = await failed_thread(client, "quota exceeded", "hello")
    app = AgentTuiApp(RemoteServer(agent_server_url), readonly=True)
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ServerInfoScreen), what="home")

        assert await app.run_command("attention")
        await wait_for(pilot, lambda: isinstance(app.screen, AttentionScreen), what="attention")
        attention = app.screen
        assert isinstance(attention, AttentionScreen)
        table = attention.table
        await wait_for(pilot, lambda: table.row_count > 0, what="the first page")
        await page_to_the_end(pilot, table, wait_for)  # other tests leave threads here too
        why = table.get_row(thread_id)[-1].plain
        assert why.startswith("failed: ConnectError in call_model: ") and why.endswith(REFUSED)

        # The runs of that thread: each failed run with its own exception, newest first.
        assert await app.run_command(f"runs {thread_id}")
        await wait_for(pilot, lambda: isinstance(app.screen, ThreadRunsScreen), what="runs")
        runs = app.screen
        assert isinstance(runs, ThreadRunsScreen)
        await wait_for(pilot, lambda: runs.table.row_count == 2, what="two runs")
        shown = [
            [cell.plain for cell in runs.table.get_row_at(i)] for i in range(runs.table.row_count)
        ]
        assert [row[1] for row in shown] == ["error", "error"]
        newest, older = (row[-1] for row in shown)
        assert newest.startswith("ConnectError in call_model: ") and newest.endswith(REFUSED)
        assert older == "QuotaExceeded in call_model: quota exceeded: code 7731"

        # `enter` on the older run: its own failure, not the thread's last one.
        [_, first] = runs.table.items
        assert runs.table.move_to(first.run_id)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RawJsonScreen), what="the run")
        detail = app.screen
        assert isinstance(detail, RawJsonScreen)
        assert detail.data["error"] == "QuotaExceeded in call_model: quota exceeded: code 7731"


async def test_the_exceptions_words_from_a_hostile_server_stay_inert(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    # The exception's message carries markup and escape sequences; its repr in the
    # thread's state escapes them, and reading the repr back brings them back.
    thread_id = await failed_thread(client, f"quota {HOSTILE}")
    words = f"QuotaExceeded in call_model: quota {SHOWN}: code 7731"
    app, screen = chat_app(client, thread_id)
    async with app.run_test(size=SIZE) as pilot:
        pane = pane_of(app)
        await wait_for(pilot, lambda: error_block_texts(pane) == [words], what="the error")
        header = screen.query_one("#thread-header")
        await wait_for(pilot, lambda: words in str(header.render()), what="the header")
        assert "quota [@click=app.quit]x[/]" in screen_text(app)  # shown, as text
        assert painted_control_codes(app) == [] and app.is_running

    tui = AgentTuiApp(RemoteServer(agent_server_url), readonly=True)
    async with tui.run_test(size=(160, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(tui.screen, ServerInfoScreen), what="home")
        assert await tui.run_command(f"runs {thread_id}")
        await wait_for(pilot, lambda: isinstance(tui.screen, ThreadRunsScreen), what="runs")
        runs = tui.screen
        assert isinstance(runs, ThreadRunsScreen)
        await wait_for(pilot, lambda: runs.table.row_count == 1, what="the run")
        assert runs.table.get_row_at(0)[-1].plain == words
        assert painted_control_codes(tui) == [] and tui.is_running


async def test_a_replay_that_fails_says_the_exceptions_own_words(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    thread_id = await failed_thread(client, "quota exceeded")
    app, screen = view_app(client, thread_id)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for(pilot, lambda: loaded(screen), what="the history")
        await pilot.press("p")  # from the head, whose next node is the one that failed

        said = await toast_saying(pilot, "call_model")
        assert said.endswith("QuotaExceeded in call_model: quota exceeded: code 7731")
