"""The info screen, against a fake server: hostile strings stay inert, and how it looks."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
from textual.widgets import DataTable, Static

from agent_tui.client import AgentServerClient
from agent_tui.tui.screens.server_info import ServerInfoScreen
from agent_tui.tui.shell import ShellApp
from tests.support.waiting import WaitFor, workers_done

# Markup that would quit the app when clicked, styles, a screen clear, a window title,
# a clipboard write, and a right-to-left override.
HOSTILE = (
    "[@click=app.quit]boom[/] [bold]b[/bold]\x1b[2J\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\u202eevil"
)
SHOWN = "[@click=app.quit]boom[/] [bold]b[/bold]evil"


def fake_server(info: dict[str, Any], assistants: list[dict[str, Any]]) -> httpx.MockTransport:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/info":
            return httpx.Response(200, json=info)
        if request.url.path == "/assistants/search":
            first_page = json.loads(request.content).get("offset", 0) == 0
            return httpx.Response(200, json=assistants if first_page else [])
        return httpx.Response(404, json={"detail": "Not Found"})

    return httpx.MockTransport(answer)


def assistant(graph_id: str, assistant_id: str, description: str = "") -> dict[str, Any]:
    return {
        "assistant_id": assistant_id,
        "graph_id": graph_id,
        "name": graph_id,
        "description": description,
        "metadata": {"created_by": "system"},
    }


class ScreenHarness(ShellApp):
    def __init__(self, transport: httpx.MockTransport, about: list[tuple[str, str]]) -> None:
        super().__init__()
        self.server = AgentServerClient("http://agent.test", http_transport=transport)
        self.client = self.server
        self.about = about

    def on_mount(self) -> None:
        self.push_screen(ServerInfoScreen(self.server, about=self.about))


async def test_server_strings_are_shown_as_inert_text(wait_for: WaitFor) -> None:
    transport = fake_server(
        {"version": HOSTILE, "langgraph_py_version": HOSTILE, "flags": {HOSTILE: True}},
        [assistant(HOSTILE, HOSTILE, HOSTILE)],
    )
    app = ScreenHarness(transport, [("Server", HOSTILE)])
    async with app.run_test(size=(140, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, ServerInfoScreen)
        table = screen.query_one("#graphs", DataTable)
        await wait_for(pilot, lambda: table.row_count == 1, what="the graph list")

        assert [cell.plain for cell in table.get_row_at(0)] == [SHOWN, SHOWN[:8], "1", SHOWN]
        summary = str(screen.query_one("#summary", Static).render())
        assert summary.count(SHOWN) >= 4  # server, version, langgraph, features
        assert "\x1b" not in summary and "\u202e" not in summary

        # Clicking the text must not run the action written in it.
        # (The summary first: a click on the graph row opens its assistants.)
        await pilot.click("#summary", offset=(14, 0))
        await pilot.click("#graphs", offset=(3, 1))
        await pilot.pause()
        assert app.is_running
        await app.server.aclose()


async def test_server_errors_are_shown_on_the_screen(wait_for: WaitFor) -> None:
    def broken(request: httpx.Request) -> httpx.Response:
        return httpx.Response(503, json={"detail": f"overloaded {HOSTILE}"})

    app = ScreenHarness(httpx.MockTransport(broken), [("Server", "http://agent.test")])
    async with app.run_test(size=(140, 30)) as pilot:
        screen = app.screen
        error = screen.query_one("#load-error", Static)
        await wait_for(pilot, lambda: error.display, what="the error")
        text = str(error.render())
        assert "overloaded" in text and SHOWN in text
        assert not screen.query_one("#graphs", DataTable).loading
        await app.server.aclose()


def test_info_screen_snapshot(snap_compare: Callable[..., bool]) -> None:
    transport = fake_server(
        {
            "version": "0.16.7",
            "langgraph_py_version": "1.0.3",
            "flags": {"assistants": True, "crons": True, "langsmith": False},
            "host": {"kind": "self-hosted", "project_id": None},
        },
        [
            assistant("chat", "eb6db400-e3c8-5d06-a834-015cb89efe69", "Offline demo chat."),
            assistant("counter", "09d6caf4-2ef3-5a8b-b1a7-114690ed5d45", "Offline counter."),
            {**assistant("chat", "5f0c0000-0000-4000-8000-000000000001"), "metadata": {}},
        ],
    )
    app = ScreenHarness(transport, [("Server", "http://agent.test  (remote)"), ("API key", "none")])

    async def loaded(pilot: Any) -> None:
        await workers_done(pilot.app)
        await pilot.pause()

    assert snap_compare(app, terminal_size=(110, 26), run_before=loaded)
