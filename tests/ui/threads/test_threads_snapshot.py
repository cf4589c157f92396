"""How the Threads screen and the thread state view look, on fixed data (stable run to run)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agent_tui.client import AgentServerClient
from agent_tui.threads.query import ThreadQuery
from agent_tui.tui.screens.threads.list import ThreadsScreen
from tests.support.fixed_servers import threads_server
from tests.support.shell import ShellHarness
from tests.support.waiting import WaitFor, workers_done


def harness(screen_for: Callable[[AgentServerClient], Any]) -> ShellHarness:
    client = AgentServerClient("http://agent.test", http_transport=threads_server())
    app = ShellHarness(screen_for(client))
    app.client = client
    app.connection_status = "connected · http://agent.test"
    return app


async def loaded(pilot: Any) -> None:
    await workers_done(pilot.app)
    await pilot.pause()
    await workers_done(pilot.app)
    await pilot.pause()


def test_threads_screen_snapshot(snap_compare: Callable[..., bool]) -> None:
    app = harness(lambda client: ThreadsScreen(client, ThreadQuery(metadata={"team": "demo"})))
    assert snap_compare(app, terminal_size=(110, 16), run_before=loaded)


async def test_help_and_palette_offer_the_thread_keys(wait_for: WaitFor) -> None:
    from textual.command import CommandList, CommandPalette

    from agent_tui.tui.screens.help import HelpScreen

    screen_holder: list[ThreadsScreen] = []

    def make(client: AgentServerClient) -> ThreadsScreen:
        screen_holder.append(ThreadsScreen(client))
        return screen_holder[0]

    app = harness(make)
    async with app.run_test(size=(110, 30)) as pilot:
        await loaded(pilot)
        (screen,) = screen_holder
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        local = {d: k for k, d in app.screen.local_keys}
        assert (local["Search"], local["Copy thread"], local["Attention"]) == ("s", "C", "!")
        assert local["Delete"] == "^d" and local["New"] == "n"
        await pilot.press("escape")
        assert screen.is_current

        await pilot.press("ctrl+p")
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"search thr")
        found = app.screen.query_one(CommandList)

        def prompts() -> list[str]:
            return [str(found.get_option_at_index(i).prompt) for i in range(found.option_count)]

        # Providers answer concurrently: until the screen's own command is listed.
        await wait_for(pilot, lambda: any("Search threads" in p for p in prompts()), workers=False)
        await pilot.press("escape")
