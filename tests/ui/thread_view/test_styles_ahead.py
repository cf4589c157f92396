"""The thread view's styles read ahead (`tui/styles_ahead.py`): a thread opened after it
finds every rule parsed, and looks exactly as it does without it."""

from __future__ import annotations

from agent_tui.client import AgentServerClient
from agent_tui.settings.target import RemoteServer
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.screens.server_info import ServerInfoScreen
from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen
from agent_tui.tui.styles_ahead import CSS_FILES, read_styles_ahead
from tests.support.screen import screen_text
from tests.support.shell import ShellHarness
from tests.support.snapshots import repainted
from tests.support.thread_view import counter_thread, loaded, underline_under_active_tab
from tests.support.waiting import WaitFor

SIZE = (140, 36)


async def open_thread(
    client: AgentServerClient, thread_id: str, wait_for: WaitFor, *, ahead: bool
) -> tuple[str, set[tuple[str, str]]]:
    """The thread view's picture once opened, and the stylesheet sources the open added."""
    app = ShellHarness()
    app.client = client
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        if ahead:
            assert read_styles_ahead(app) > 0
        before = set(app.stylesheet.source)
        screen = ThreadViewScreen(client, thread_id, status_interval=0)
        await app.push_screen(screen)
        await wait_for(
            pilot,
            # The tab bar's underline slides under the State tab after the view opens:
            # under load one picture had it on its way.
            lambda: (
                loaded(screen)
                and screen.checkpoint_view.details_built
                and underline_under_active_tab(screen)
            ),
            what="the thread, its state and the sections below it, the tab underlined",
        )
        await repainted(app)
        # The text first: a failure then shows which rows differ, readably.
        return screen_text(app) + app.export_screenshot(), set(app.stylesheet.source) - before


async def test_a_thread_opened_after_the_styles_were_read_adds_none_and_looks_the_same(
    client: AgentServerClient, wait_for: WaitFor
) -> None:
    thread = await counter_thread(client)
    cold, added_cold = await open_thread(client, thread.thread_id, wait_for, ahead=False)
    warm, added_warm = await open_thread(client, thread.thread_id, wait_for, ahead=True)
    assert len(added_cold) > 10  # what Textual read while the view opened, without it
    # A widget class the view gained and the list lacks would show here, by its location.
    assert added_warm == set()
    assert warm == cold  # the same rules, the same precedence: the same picture


async def test_the_app_reads_them_once_home_is_drawn(
    agent_server_url: str, wait_for: WaitFor
) -> None:
    app = AgentTuiApp(RemoteServer(agent_server_url), readonly=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ServerInfoScreen), what="home")
        read = (str(CSS_FILES[0]), "")
        await wait_for(pilot, lambda: read in app.stylesheet.source, what="the view's styles")
        # Nothing of the thread view was mounted: read ahead, not by an open.
        assert ThreadViewScreen not in map(type, app.screen_stack)
