"""`:crons` on the real server: the list (what each cron runs, its next run in UTC), the
filter, a cron whole with the runs it started, switching it off, deleting it, and
read-only mode refusing every change."""

from __future__ import annotations

import httpx
import pytest

from agent_tui.client import AgentServerClient, NotFound
from agent_tui.settings.target import RemoteServer
from agent_tui.text.time_text import utc_minutes
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.modals.confirm import ConfirmScreen
from agent_tui.tui.screens.crons.detail import CronDetailScreen
from agent_tui.tui.screens.crons.form import CronFormScreen
from agent_tui.tui.screens.crons.list import CronsScreen
from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen
from agent_tui.tui.widgets.json_view import JsonView
from tests.support.crons import YEARLY, home, label, made_crons, open_crons, row_of
from tests.support.screen import footer_keys_in_view, toast_saying
from tests.support.waiting import WaitFor, screen_shown, workers_done


async def test_the_list_shows_what_each_cron_runs_and_its_next_run_in_utc(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    name = label()
    assistant = await client.assistants.create("counter", name=name)
    thread = await client.threads.create(metadata={"suite": name})
    async with made_crons(client) as made:
        stateless = made.add(
            await client.crons.create(
                assistant.assistant_id, YEARLY, input={"n": 1}, timezone="America/New_York"
            )
        )
        bound = made.add(
            await client.crons.create_for_thread(thread.thread_id, assistant.assistant_id, YEARLY)
        )
        app = AgentTuiApp(RemoteServer(agent_server_url))
        async with app.run_test(size=(150, 40)) as pilot:
            screen = await open_crons(
                app, pilot, wait_for, expect=[stateless.cron_id, bound.cron_id]
            )
            first = row_of(screen, stateless.cron_id)
            assert first[0] == "…" + stateless.cron_id[-8:]
            assert first[1] == f"{YEARLY} America/New_York"
            assert first[2] == f"{name} (counter)"
            assert first[3] == "stateless"
            # Computed here from the schedule in its timezone: the server's own date.
            assert stateless.next_run_date is not None
            assert first[4] == utc_minutes(stateless.next_run_date)
            assert first[4].endswith("-01-01 05:00")  # midnight in New York, in UTC
            assert first[5:] == ["—", "yes"]
            second = row_of(screen, bound.cron_id)
            assert second[3] == "…" + thread.thread_id[-8:]
            assert second[4].endswith("-01-01 00:00")

            # `/` filters what is loaded: this test's assistant only.
            await pilot.press("slash", *name, "enter")
            await wait_for(
                pilot, lambda: len(screen.table.visible_items) == 2, what="the filtered rows"
            )
            assert {c.cron_id for c in screen.table.visible_items} == {
                stateless.cron_id,
                bound.cron_id,
            }

            # A cron made elsewhere shows after `r`.
            later = made.add(await client.crons.create(assistant.assistant_id, "0 12 1 6 *"))
            await pilot.press("r")
            await wait_for(
                pilot, lambda: screen.table.get_item(later.cron_id) is not None, what="refresh"
            )
            await wait_for(pilot, lambda: len(screen.table.visible_items) == 3, what="the row")

            # `:crons <thread id>` (the short id the tables show): that thread's only.
            assert await app.run_command(f"crons {thread.thread_id[-8:]}")
            await wait_for(
                pilot,
                lambda: isinstance(app.screen, CronsScreen) and app.screen is not screen,
                what="the thread's crons",
            )
            mine = app.screen
            assert isinstance(mine, CronsScreen) and mine.thread_id == thread.thread_id
            await wait_for(pilot, lambda: mine._loaded_once, what="loaded")
            assert [c.cron_id for c in mine.table.items] == [bound.cron_id]


async def test_enter_shows_the_payload_and_the_runs_the_cron_started(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    name = label()
    assistant = await client.assistants.create("counter", name=name)
    thread = await client.threads.create(metadata={"suite": name})
    async with made_crons(client) as made:
        cron = made.add(
            await client.crons.create_for_thread(
                thread.thread_id, assistant.assistant_id, YEARLY, input={"n": 41}
            )
        )
        # A yearly cron does not fire during a test: its runs are made as the server's
        # scheduler makes them (checked with crons that fired): the cron's id in the
        # run's config.configurable. A run of the same thread without it is not listed.
        async with httpx.AsyncClient(base_url=agent_server_url, timeout=60) as http:
            path = f"/threads/{thread.thread_id}/runs/wait"
            configurable = {"configurable": {"cron_id": cron.cron_id}}
            body = {"assistant_id": assistant.assistant_id, "input": {}}
            assert (await http.post(path, json={**body, "config": configurable})).is_success
            assert (await http.post(path, json=body)).is_success
        runs = await client.runs.list(thread.thread_id)
        mine = [r for r in runs if r.run_kwargs["config"]["configurable"].get("cron_id")]
        assert len(runs) == 2 and len(mine) == 1

        app = AgentTuiApp(RemoteServer(agent_server_url))
        async with app.run_test(size=(150, 40), notifications=True) as pilot:
            screen = await open_crons(app, pilot, wait_for, expect=[cron.cron_id])
            assert screen.table.move_to(cron.cron_id)
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, CronDetailScreen), what="detail")
            detail = app.screen
            assert isinstance(detail, CronDetailScreen)
            await wait_for(pilot, lambda: detail.found is not None, what="the runs")
            payload = detail.query_one("#cron-payload", JsonView)
            assert payload.data["input"] == {"n": 41}
            assert '"cron_id": "' + cron.cron_id + '"' in payload.text
            assert detail.runs_table.row_count == 1
            shown = [cell.plain for cell in detail.runs_table.get_row_at(0)]
            assert shown[:2] == ["…" + mine[0].run_id[-8:], "success"]
            assert "1 run found" in str(detail.query_one("#cron-runs-note").render())

            # `e` switches it off on the server; back in the list, the row says so.
            await pilot.press("e")
            await wait_for(pilot, lambda: not detail.cron.enabled, what="disabled")
            assert (await client.crons.get(cron.cron_id)).enabled is False
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is screen, what="the list")
            await wait_for(pilot, lambda: row_of(screen, cron.cron_id)[-1] == "no", what="the row")
            # And `space` in the list switches it on again.
            await pilot.press("space")
            await wait_for(pilot, lambda: row_of(screen, cron.cron_id)[-1] == "yes", what="enabled")
            assert (await client.crons.get(cron.cron_id)).enabled is True
            await pilot.press("e")  # `e` too, in the list (not the shared edit verb)
            await wait_for(pilot, lambda: row_of(screen, cron.cron_id)[-1] == "no", what="off")
            await toast_saying(pilot, f"Disabled cron …{cron.cron_id[-8:]}")


async def test_a_stateless_crons_runs_are_found_on_the_threads_it_made(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    assistant = await client.assistants.create("counter", name=label())
    async with made_crons(client) as made:
        cron = made.add(
            await client.crons.create(assistant.assistant_id, YEARLY, on_run_completed="keep")
        )
        # What a firing records: a new thread, a run with the cron's id in its config.
        async with httpx.AsyncClient(base_url=agent_server_url, timeout=60) as http:
            body = {
                "assistant_id": assistant.assistant_id,
                "input": {},
                "config": {"configurable": {"cron_id": cron.cron_id}},
            }
            for _ in range(2):
                thread_id = (await http.post("/threads", json={})).json()["thread_id"]
                assert (await http.post(f"/threads/{thread_id}/runs/wait", json=body)).is_success

        app = AgentTuiApp(RemoteServer(agent_server_url))
        async with app.run_test(size=(150, 40)) as pilot:
            screen = await open_crons(app, pilot, wait_for, expect=[cron.cron_id])
            assert screen.table.move_to(cron.cron_id)
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, CronDetailScreen), what="detail")
            detail = app.screen
            assert isinstance(detail, CronDetailScreen)
            await wait_for(pilot, lambda: detail.found is not None, what="the runs")
            assert detail.runs_table.row_count == 2
            assert detail.found is not None and detail.found.threads_read == 2
            # `enter` on a run opens the thread it ran on.
            newest = detail.found.runs[0]
            await pilot.press("enter")
            await wait_for(
                pilot,
                lambda: isinstance(app.screen, ThreadViewScreen),
                what="the thread view",
                workers=False,
            )
            view = app.screen
            assert isinstance(view, ThreadViewScreen) and view.thread_id == newest.thread_id


async def test_delete_asks_first_and_removes_the_cron_from_the_server(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    assistant = await client.assistants.create("counter", name=label())
    async with made_crons(client) as made:
        cron = made.add(await client.crons.create(assistant.assistant_id, YEARLY))
        app = AgentTuiApp(RemoteServer(agent_server_url))
        async with app.run_test(size=(150, 40), notifications=True) as pilot:
            screen = await open_crons(app, pilot, wait_for, expect=[cron.cron_id])
            assert screen.table.move_to(cron.cron_id)
            await pilot.press("ctrl+d")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirm")
            await pilot.press("n")  # no: nothing happens
            await wait_for(pilot, lambda: app.screen is screen, what="the list")
            assert (await client.crons.get(cron.cron_id)).cron_id == cron.cron_id
            await pilot.press("ctrl+d")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirm")
            await pilot.press("y")
            await wait_for(
                pilot, lambda: screen.table.get_item(cron.cron_id) is None, what="the row gone"
            )
            with pytest.raises(NotFound):
                await client.crons.get(cron.cron_id)
            await toast_saying(pilot, f"Deleted cron …{cron.cron_id[-8:]}")


async def test_read_only_mode_refuses_to_create_delete_or_switch(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    assistant = await client.assistants.create("counter", name=label())
    async with made_crons(client) as made:
        cron = made.add(await client.crons.create(assistant.assistant_id, YEARLY))
        app = AgentTuiApp(RemoteServer(agent_server_url), readonly=True)
        async with app.run_test(size=(150, 40), notifications=True) as pilot:
            screen = await open_crons(app, pilot, wait_for, expect=[cron.cron_id])
            assert screen.table.move_to(cron.cron_id)
            for key, words in (
                ("n", "cannot create a cron"),
                ("ctrl+d", "cannot delete a cron"),
                ("space", "cannot disable a cron"),
            ):
                await pilot.press(key)
                await workers_done(app)
                assert app.screen is screen, key
                await toast_saying(pilot, words)
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, CronDetailScreen), what="detail")
            await pilot.press("e")
            await pilot.press("ctrl+d")
            await workers_done(app)
            assert isinstance(app.screen, CronDetailScreen)
        after = await client.crons.get(cron.cron_id)
        assert after.enabled is True


async def test_the_palette_opens_the_crons_and_the_keys_fit_80_columns(
    agent_server_url: str, wait_for: WaitFor
) -> None:
    from textual.command import CommandList, CommandPalette

    app = AgentTuiApp(RemoteServer(agent_server_url))
    async with app.run_test(size=(80, 24)) as pilot:
        await home(app, pilot, wait_for)
        await pilot.press("ctrl+p")
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"open crons")
        found = app.screen.query_one(CommandList)

        def prompts() -> list[str]:
            return [str(found.get_option_at_index(i).prompt) for i in range(found.option_count)]

        # Providers answer concurrently: until the route's entry is listed.
        await wait_for(pilot, lambda: any("Open crons" in p for p in prompts()), workers=False)
        found.highlighted = next(i for i, p in enumerate(prompts()) if "Open crons" in p)
        await pilot.press("enter")
        await screen_shown(pilot, CronsScreen, what="the crons")
        # The footer shows a screen's keys once it has read its bindings (a moment later).
        await wait_for(
            pilot,
            lambda: {"/", "r", "n", "e", "^d"} <= footer_keys_in_view(app),
            what="the crons' keys in the footer",
        )
        # The form scrolls its fields at 24 rows; its buttons stay on screen.
        await pilot.press("n")
        await screen_shown(pilot, CronFormScreen, what="the form")
        await pilot.pause()
        for selector in ("#save", "#cancel", "#assistant"):
            region = app.screen.query_one(selector).region
            assert region.height and region.bottom <= 24, selector


async def test_the_thread_view_opens_the_threads_crons_over_itself(
    client: AgentServerClient, agent_server_url: str, wait_for: WaitFor
) -> None:
    assistant = await client.assistants.create("counter", name=label())
    thread = await client.threads.create(metadata={"graph_id": "counter"})
    async with made_crons(client) as made:
        cron = made.add(
            await client.crons.create_for_thread(thread.thread_id, assistant.assistant_id, YEARLY)
        )
        app = AgentTuiApp(RemoteServer(agent_server_url), readonly=True)
        async with app.run_test(size=(150, 40)) as pilot:
            await home(app, pilot, wait_for)
            assert await app.run_command(f"thread {thread.thread_id}")
            await wait_for(pilot, lambda: isinstance(app.screen, ThreadViewScreen), what="view")
            view = app.screen
            assert isinstance(view, ThreadViewScreen)
            [command] = [c for c in view.palette_commands() if c.name == "Crons of this thread"]
            command.callback()
            await wait_for(pilot, lambda: isinstance(app.screen, CronsScreen), what="crons")
            crons = app.screen
            assert isinstance(crons, CronsScreen) and crons.thread_id == thread.thread_id
            await wait_for(pilot, lambda: crons._loaded_once, what="loaded")
            assert [c.cron_id for c in crons.table.items] == [cron.cron_id]
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is view, what="back to the view")
