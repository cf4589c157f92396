"""At 80 columns the footer of every main screen shows the keys that matter most.

The rest are in `?` help; a hint cut off at the right edge does not count as shown.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.screen import Screen

from agent_tui.client import AgentServerClient
from agent_tui.tui.chat.prompt import PromptArea
from agent_tui.tui.screens.assistants.list import AssistantsScreen
from agent_tui.tui.screens.deployments.list import DeploymentsScreen
from agent_tui.tui.screens.server_info import ServerInfoScreen
from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen
from agent_tui.tui.screens.threads.list import ThreadsScreen
from tests.support import deployments as deployments_support
from tests.support.deployments import SharedPlane, control_plane_app
from tests.support.screen import footer_keys_in_view
from tests.support.waiting import WaitFor

SIZE = (80, 24)
pytestmark = pytest.mark.timeout(120)

# The keys as the footer shows them (`^d` is ctrl+d).
HOME = {"c", "a", "t", "d", "?", ":"}
ASSISTANTS = {"/", "n", "e", "^d", "v", "?", ":"}
THREADS = {"/", "s", "n", "^d", "?", ":"}
THREAD_VIEW = {"esc", "a", "f", "p", "n", "?", ":"}
CHAT = {"⏎", "esc", "^n"}  # the prompt focused: letters type
DEPLOYMENTS = {"/", "n", "e", "^d", "?", ":"}

plane = deployments_support.keyed_plane  # the fixture


async def test_the_main_keys_fit_the_footer_at_80_columns(
    plane: SharedPlane, agent_server_url: str, client: AgentServerClient, wait_for: WaitFor
) -> None:
    thread = await client.threads.create(metadata={"suite": "footer-fit"})
    app = control_plane_app(agent_server_url, plane.url)
    async with app.run_test(size=SIZE) as pilot:

        async def shows(keys: set[str], where: str) -> None:
            await wait_for(pilot, lambda: keys <= footer_keys_in_view(app), what=f"{where}: {keys}")

        await wait_for(pilot, lambda: isinstance(app.screen, ServerInfoScreen), what="home")
        await shows(HOME, "home")
        for key, screen_type, wanted in (
            ("a", AssistantsScreen, ASSISTANTS),
            ("t", ThreadsScreen, THREADS),
            ("d", DeploymentsScreen, DEPLOYMENTS),
        ):

            def opened(screen_type: type[Screen[Any]] = screen_type) -> bool:
                return isinstance(app.screen, screen_type)

            await pilot.press(key)
            await wait_for(pilot, opened, what=key)
            await shows(wanted, screen_type.__name__)
            await pilot.press("escape")
            await wait_for(pilot, lambda: isinstance(app.screen, ServerInfoScreen), what="home")

        assert app.client is not None
        view = ThreadViewScreen(app.client, thread.thread_id)
        await app.push_screen(view)
        await wait_for(pilot, lambda: view.thread is not None, what="the thread")
        await shows(THREAD_VIEW, "thread view")
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.focused, PromptArea), what="the prompt")
        await shows(CHAT, "chat")
