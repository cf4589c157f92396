"""`n` on `:crons`: the new-cron form on the real server. The schedule is checked as it
is typed (the reason, or the next three runs in UTC); nothing is sent while a field is
wrong; the server's refusals land under their field; nothing typed is lost."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from textual.widgets import Input, Select, Static, TextArea
from textual.widgets.select import InvalidSelectValueError

from agent_tui.client import AgentServerClient
from agent_tui.client.models import Assistant
from agent_tui.settings.target import RemoteServer
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.screens.crons.form import JSON, CronFormScreen
from agent_tui.tui.screens.crons.list import CronsScreen
from tests.support.crons import YEARLY, label, made_crons, open_crons
from tests.support.waiting import WaitFor, screen_shown, workers_done


def note(form: CronFormScreen, name: str) -> str:
    """What is written under field `name` ("" when nothing)."""
    widget = form.query_one(f"#{name}-note", Static)
    return str(widget.render()) if widget.display else ""


async def open_form(
    app: AgentTuiApp, pilot: Any, wait_for: WaitFor, assistant: Assistant
) -> tuple[CronsScreen, CronFormScreen]:
    """`n` on `:crons`, and the assistant picked in the form's list."""
    screen = await open_crons(app, pilot, wait_for)
    await pilot.press("n")
    await screen_shown(pilot, CronFormScreen, what="the form")
    form = app.screen
    assert isinstance(form, CronFormScreen)
    select = form.query_one("#assistant", Select)

    def picked() -> bool:
        # A Select refuses a value that is not one of its options: so, once listed.
        try:
            select.value = assistant.assistant_id
        except InvalidSelectValueError:
            return False
        return True

    await wait_for(pilot, picked, what="the assistant listed")
    return screen, form


async def type_into(pilot: Any, form: CronFormScreen, name: str, text: str) -> None:
    """Click into field `name`, clear it and type `text` key by key."""
    field = form.query_one(f"#{name}")
    field.focus()
    await pilot.pause()
    if isinstance(field, Input):
        field.value = ""
    elif isinstance(field, TextArea):
        field.text = ""
    for char in text:
        await pilot.press(char if len(char) == 1 and char.isalnum() else _key(char))
    await pilot.pause()


def _key(char: str) -> str:
    return {
        " ": "space",
        "*": "asterisk",
        "-": "minus",
        "/": "slash",
        "{": "left_curly_bracket",
        "}": "right_curly_bracket",
        '"': "quotation_mark",
        ":": "colon",
        "_": "underscore",
        ",": "comma",
    }[char]


async def test_the_schedule_is_checked_as_typed_and_saving_creates_the_cron(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    assistant = await client.assistants.create("chat", name=label())
    async with made_crons(client) as made:
        app = AgentTuiApp(RemoteServer(agent_server_url))
        async with app.run_test(size=(150, 50)) as pilot:
            screen, form = await open_form(app, pilot, wait_for, assistant)

            await type_into(pilot, form, "schedule", "0 0 1 1")
            assert note(form, "schedule").startswith("4 fields given; a schedule is five")
            await type_into(pilot, form, "schedule", "0 0 1 13 *")
            assert "13" in note(form, "schedule") or "month" in note(form, "schedule").lower()
            await type_into(pilot, form, "schedule", YEARLY)
            year = datetime.now(UTC).year
            runs = " · ".join(f"{year + n}-01-01 00:00" for n in (1, 2, 3))
            assert note(form, "schedule") == f"next runs (UTC): {runs}"
            # A timezone moves the runs (shown in UTC); an unknown one is said at once.
            await type_into(pilot, form, "timezone", "Mars/Base")
            assert note(form, "timezone").startswith("unknown timezone 'Mars/Base'")
            await type_into(pilot, form, "timezone", "Asia/Tokyo")
            assert note(form, "timezone") == ""
            # New Year in Tokyo is 15:00 UTC on New Year's Eve.
            tokyo_year = datetime.now(ZoneInfo("Asia/Tokyo")).year
            assert note(form, "schedule").startswith(f"next runs (UTC): {tokyo_year}-12-31 15:00")

            await type_into(pilot, form, "input", "remember Paris")
            form.query_one("#on_run_completed", Select).value = "keep"
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: app.screen is screen, what="the form closed")
            [cron] = await made.for_assistant(assistant)
            saved = await client.crons.get(cron.cron_id)
            assert saved.schedule == YEARLY and saved.timezone == "Asia/Tokyo"
            assert saved.thread_id is None  # blank thread: stateless
            assert saved.on_run_completed == "keep"  # its runs' threads stay to be seen
            assert saved.input == {"messages": [{"role": "user", "content": "remember Paris"}]}
            await wait_for(
                pilot, lambda: screen.table.get_item(cron.cron_id) is not None, what="its row"
            )
            assert screen.table.selected_item is not None
            assert screen.table.selected_item.cron_id == cron.cron_id


async def test_wrong_fields_send_nothing_and_the_servers_refusal_goes_under_its_field(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    assistant = await client.assistants.create("counter", name=label())
    thread = await client.threads.create(metadata={"suite": assistant.name})
    async with made_crons(client) as made:
        app = AgentTuiApp(RemoteServer(agent_server_url))
        async with app.run_test(size=(150, 50)) as pilot:
            screen, form = await open_form(app, pilot, wait_for, assistant)
            form.query_one("#input-kind", Select).value = JSON
            await type_into(pilot, form, "input", '{"n": ')
            await type_into(pilot, form, "schedule", "every day")
            await type_into(pilot, form, "end_time", "soon")
            await pilot.press("ctrl+s")
            await workers_done(app)
            assert form.is_current
            assert form.error == "Nothing was sent: fix the 3 problems marked above."
            assert note(form, "input").startswith("the input is not valid JSON")
            assert note(form, "end_time").startswith("not a date")
            assert "fields given" in note(form, "schedule")
            assert await made.for_assistant(assistant) == []

            # JSON the server refuses (input must be an object or a list): its 422 under
            # the input field, and everything typed still there.
            await type_into(pilot, form, "input", "3")
            await type_into(pilot, form, "schedule", YEARLY)
            await type_into(pilot, form, "end_time", "")
            await type_into(pilot, form, "thread", thread.thread_id[-8:])  # the short form
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: form.error is not None, what="the refusal")
            assert form.is_current
            assert form.error.startswith("Could not create the cron: invalid request")
            assert note(form, "input").startswith("3 is not valid under any of the schemas")
            assert form.value("input") == "3" and form.value("schedule") == YEARLY
            assert form.value("thread") == thread.thread_id[-8:]

            await type_into(pilot, form, "input", '{"n": 5}')
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: app.screen is screen, what="the form closed")
            [cron] = await made.for_assistant(assistant)
            assert cron.thread_id == thread.thread_id and cron.input == {"n": 5}


async def test_an_unknown_thread_is_said_under_the_thread_field(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    assistant = await client.assistants.create("counter", name=label())
    async with made_crons(client) as made:
        app = AgentTuiApp(RemoteServer(agent_server_url))
        async with app.run_test(size=(150, 50)) as pilot:
            _screen, form = await open_form(app, pilot, wait_for, assistant)
            await type_into(pilot, form, "schedule", YEARLY)
            missing = "00000000-0000-4000-8000-000000000000"
            form.query_one("#thread", Input).value = missing
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: form.error is not None, what="the refusal")
            assert form.is_current
            assert note(form, "thread").startswith("Thread with ID")
            assert await made.for_assistant(assistant) == []
