"""The shell: `:` command mode, `?` help, the palette, read-only, the connection state,
themes and keymaps."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.app import ComposeResult
from textual.command import CommandList, CommandPalette
from textual.screen import Screen
from textual.widgets import Input, Static

from agent_tui.client import ConnectionFailed
from agent_tui.tui import routes
from agent_tui.tui.modals.confirm import ConfirmScreen
from agent_tui.tui.screens.command_line import CommandLineScreen
from agent_tui.tui.screens.help import HelpScreen
from agent_tui.tui.widgets.breadcrumb import SEPARATOR, Breadcrumb
from tests.support.screen import toast_saying, toasts_shown
from tests.support.shell import ListScreen, ShellHarness, make_items
from tests.support.waiting import WaitFor


@pytest.fixture
def widgets_route() -> Iterator[list[ListScreen]]:
    """A `widgets` route to a list screen, and an unbuilt `gadgets` route."""
    opened: list[ListScreen] = []

    def factory(app: object, argument: str | None) -> ListScreen:
        opened.append(ListScreen(make_items(5)))
        return opened[-1]

    saved = dict(routes._ROUTES)
    routes.register(routes.Route("widgets", "Widgets of this server", factory))
    routes.register(routes.Route("gadgets", "Not built", "agent_tui.tui.screens.no_such:make"))
    yield opened
    routes._ROUTES.clear()
    routes._ROUTES.update(saved)


async def wait_for_line(pilot: Any, wait_for: WaitFor) -> CommandLineScreen:
    app = pilot.app
    await wait_for(
        pilot,
        lambda: isinstance(app.screen, CommandLineScreen) and isinstance(app.focused, Input),
        what="the command line",
    )
    assert isinstance(app.screen, CommandLineScreen)
    return app.screen


def completions(app: ShellHarness) -> str:
    return str(app.screen.query_one("#command-completions", Static).render())


async def test_command_mode_completes_and_opens_a_screen(
    widgets_route: list[ListScreen], wait_for: WaitFor
) -> None:
    app = ShellHarness()
    async with app.run_test() as pilot:
        await pilot.press("colon")
        assert isinstance(app.screen, CommandLineScreen)
        await pilot.press("t", "h")
        shown = completions(app)
        assert ":threads" in shown and ":thread" in shown and ":assistants" not in shown
        await pilot.press("backspace", "backspace", "w", "i", "tab")
        box = app.screen.query_one("#command-input", Input)
        assert box.value == "widgets"
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(widgets_route) == 1, what="the screen")
        assert widgets_route[0].is_current


async def test_ctx_completes_context_names(wait_for: WaitFor) -> None:
    app = ShellHarness()
    app.context_names = lambda: ["local", "prod", "staging"]  # type: ignore[method-assign]
    async with app.run_test() as pilot:
        await pilot.press("colon", "c", "t", "tab")
        box = app.screen.query_one("#command-input", Input)
        assert box.value == "ctx "
        await pilot.press("s")
        assert ":ctx staging" in completions(app) and "prod" not in completions(app)
        await pilot.press("escape")
        assert not isinstance(app.screen, CommandLineScreen)


async def test_unknown_and_unbuilt_commands_say_so(
    widgets_route: list[ListScreen], wait_for: WaitFor
) -> None:
    app = ShellHarness()
    async with app.run_test(notifications=True) as pilot:
        await pilot.press("colon", *"bogus", "enter")
        unknown = await toast_saying(pilot, "Unknown command")
        assert ":threads" in unknown and ":bogus" in unknown
        await pilot.press("colon", *"gadgets", "enter")
        await toast_saying(pilot, "The gadgets screen is not available yet")
        await pilot.press("colon", *"thread", "enter")
        await toast_saying(pilot, ":thread needs an id")


async def test_q_quits(wait_for: WaitFor) -> None:
    app = ShellHarness()
    async with app.run_test() as pilot:
        await pilot.press("colon", "q", "enter")
        await wait_for(pilot, lambda: not app.is_running, what="the app to exit")


async def test_help_lists_the_keys_of_the_screen(wait_for: WaitFor) -> None:
    screen = ListScreen(make_items(3))
    app = ShellHarness(screen, keymap={"resource.refresh": "f5"})
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: screen.table.row_count == 3)
        await pilot.press("question_mark")
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        local = dict((d, k) for k, d in help_screen.local_keys)
        assert local["Filter"] == "/"
        assert local["Delete"] == "^d"
        assert local["Refresh"] == "f5"  # remapped by id
        assert {"Open", "New", "Edit", "JSON", "Copy id", "Back"} <= set(local)
        everywhere = {d for _k, d in help_screen.global_keys}
        assert {"Keys", "Command"} <= everywhere
        await pilot.press("escape")
        assert app.screen is screen
        fetches = len(screen.fetches)
        await pilot.press("f5")
        await wait_for(pilot, lambda: len(screen.fetches) > fetches, what="a refresh on f5")


async def test_help_leaves_out_verbs_the_screen_does_not_offer(wait_for: WaitFor) -> None:
    class ReadOnlyList(ListScreen):
        VERBS = frozenset()

    screen = ReadOnlyList(make_items(3))
    app = ShellHarness(screen)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: screen.table.row_count == 3)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        described = {d for _k, d in app.screen.local_keys}
        assert "Delete" not in described and "New" not in described and "Filter" in described


async def test_palette_offers_screens_contexts_and_thread_by_id(
    widgets_route: list[ListScreen], wait_for: WaitFor
) -> None:
    app = ShellHarness()
    app.context_names = lambda: ["local", "prod"]  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:

        async def search(query: str, expected: str) -> None:
            await pilot.press("ctrl+p")
            assert isinstance(app.screen, CommandPalette)
            await pilot.press(*query)
            found = app.screen.query_one(CommandList)

            def prompts() -> list[str]:
                return [str(found.get_option_at_index(i).prompt) for i in range(found.option_count)]

            # Providers answer concurrently: until the expected command is listed.
            await wait_for(pilot, lambda: any(expected in p for p in prompts()), workers=False)
            await pilot.press("escape")

        await search("widg", "Open widgets")
        await search("prod", "Switch context: prod")
        await search("thread 1234", "Open thread 1234")


async def test_palette_offers_the_screen_verbs(wait_for: WaitFor) -> None:
    screen = ListScreen(make_items(3))
    app = ShellHarness(screen)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: screen.table.row_count == 3)
        await pilot.press("ctrl+p", *"new widget")
        found = app.screen.query_one(CommandList)
        await wait_for(pilot, lambda: found.option_count > 0, workers=False)
        assert "New widget" in str(found.get_option_at_index(0).prompt)
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.created == 1, what="the new verb to run")


async def test_readonly_reason_names_the_context() -> None:
    app = ShellHarness(readonly=True)
    app.readonly_reason = "context 'prod' is read-only"
    async with app.run_test(notifications=True) as pilot:
        assert app.refuse_if_readonly("delete a thread")
        assert await toasts_shown(pilot, 1) == [
            "Refused\nRead-only mode: cannot delete a thread (context 'prod' is read-only)"
        ]
    assert not ShellHarness().refuse_if_readonly("delete a thread")


async def test_connection_failure_marks_the_header_offline_until_a_request_works(
    wait_for: WaitFor,
) -> None:
    screen = ListScreen(make_items(3))
    app = ShellHarness(screen)
    app.connection_status = "connected · http://agent.test"
    async with app.run_test(size=(120, 20), notifications=True) as pilot:
        await wait_for(pilot, lambda: screen.table.row_count == 3)
        crumb = screen.query_one(Breadcrumb)
        assert "connected · http://agent.test" in str(crumb.render())
        screen.fail_with = ConnectionFailed(
            "http://agent.test: connection refused", method="POST", url="http://agent.test/x"
        )
        await pilot.press("r")
        await wait_for(pilot, lambda: app.connection_status.startswith("offline"))
        assert "offline · http://agent.test" in str(crumb.render())
        await toast_saying(pilot, "Could not connect to http://agent.test")
        screen.fail_with = None
        await pilot.press("r")
        await wait_for(pilot, lambda: app.connection_status.startswith("connected"))
        assert "connected · http://agent.test" in str(crumb.render())


async def test_breadcrumb_follows_the_selection() -> None:
    screen = ListScreen(make_items(1))
    app = ShellHarness(screen)
    async with app.run_test(size=(120, 20)) as pilot:
        app.selection.update(context="prod", assistant="my-bot")
        await pilot.pause()
        shown = str(screen.query_one(Breadcrumb).render())
        assert f"ctx prod{SEPARATOR}assistant my-bot{SEPARATOR}widgets" in shown


async def test_theme_choice_persists(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("AGENT_TUI_HOME", str(tmp_path))
    app = ShellHarness()
    async with app.run_test() as pilot:
        await pilot.press("colon", *"theme nord", "enter")
        await pilot.pause()
        assert app.theme == "nord"
        state = json.loads((tmp_path / "config" / "ui-state.json").read_text())
        assert state["theme"] == "nord"
    again = ShellHarness()
    async with again.run_test():
        assert again.theme == "nord"


async def test_ctx_switches_context_or_opens_the_picker(wait_for: WaitFor) -> None:
    app = ShellHarness()
    switched: list[str] = []
    picked: list[bool] = []
    async with app.run_test(notifications=True) as pilot:
        await pilot.press("colon", *"ctx prod", "enter")
        await toast_saying(pilot, "Contexts are not available")

        def switch(name: str) -> bool:
            switched.append(name)
            return True

        app.switch_context = switch  # type: ignore[method-assign]
        app.action_pick_context = lambda: picked.append(True)  # type: ignore[method-assign]
        await pilot.press("colon", *"ctx prod", "enter")
        await wait_for(pilot, lambda: switched == ["prod"], what="the switch")
        await pilot.press("colon", *"ctx", "enter")
        await wait_for(pilot, lambda: picked == [True], what="the picker")


async def test_up_recalls_earlier_commands(wait_for: WaitFor) -> None:
    app = ShellHarness()
    async with app.run_test() as pilot:
        await pilot.press("colon", *"bogus", "enter")
        await pilot.press("colon", *"help", "enter")
        await pilot.press("escape")
        await pilot.press("colon", "up")
        box = app.screen.query_one("#command-input", Input)
        assert box.value == "help"
        await pilot.press("up")
        assert box.value == "bogus"
        await pilot.press("down", "down")
        assert box.value == ""


async def test_keys_typed_right_after_the_colon_all_reach_the_line(
    widgets_route: list[ListScreen], wait_for: WaitFor
) -> None:
    """A fast typist (or a loaded machine) sends the command's keys before the command
    line has mounted and focused its input: none may be lost (the keys are sent in one
    go, with no wait between them)."""
    app = ShellHarness()
    async with app.run_test() as pilot:
        keys = [("colon", ":"), *((c, c) for c in "widgets"), ("enter", "\r")]
        for key, character in keys:
            app.post_message(events.Key(key, character))
        await wait_for(pilot, lambda: len(widgets_route) == 1, what="the widgets screen")
        assert widgets_route[0].is_current


class FieldScreen(Screen[None]):
    """A screen that is not modal, its one field focused."""

    def compose(self) -> ComposeResult:
        yield Input(id="field")

    def on_mount(self) -> None:
        self.query_one(Input).focus()


async def test_a_colon_in_a_field_is_a_character(wait_for: WaitFor) -> None:
    """`:` opens the command line from a screen's keys, but typed in a field it is text."""
    screen = FieldScreen()
    app = ShellHarness(screen)
    async with app.run_test() as pilot:
        field = screen.query_one(Input)
        await wait_for(pilot, lambda: field.has_focus, what="the field focused")
        await pilot.press("a", "colon", "b")
        assert field.value == "a:b"
        assert app.screen is screen


async def test_a_colon_typed_in_the_command_line_stays_text(wait_for: WaitFor) -> None:
    """Typed in the command line itself, `:` is part of the line (no second line opens)."""
    app = ShellHarness()
    async with app.run_test() as pilot:
        await pilot.press("colon")
        line = await wait_for_line(pilot, wait_for)
        await pilot.press("a", "colon", "b")
        assert app.screen is line
        assert line.query_one("#command-input", Input).value == "a:b"


async def test_a_colon_over_a_modal_opens_no_command_line(wait_for: WaitFor) -> None:
    """A question waiting for its answer keeps the keys: `:` opens nothing over it (as the
    app's other keys do nothing there), and the question is still answered."""
    app = ShellHarness()
    answers: list[bool | None] = []
    async with app.run_test() as pilot:
        app.push_screen(ConfirmScreen("Delete it?"), answers.append)
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the question")
        question = app.screen
        await pilot.press("colon", "t")
        assert app.screen is question
        await pilot.press("escape")
        await wait_for(pilot, lambda: answers != [], what="the answer")
        assert not isinstance(app.screen, CommandLineScreen)
