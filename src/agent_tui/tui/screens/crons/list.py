"""The Crons screen (`:crons`): the server's cron jobs, runs on a schedule;
`:crons <thread id>` (a short id will do) lists one thread's, and `n` there fills it in.

Columns: the id (its random end), the schedule (and its timezone), the assistant it
runs (by name), the thread its runs go to or `stateless` (a new thread per run), the
next run in UTC computed from the schedule, the end time, and whether it is enabled.
Keys beyond the shared ones (`resource_screen.py`): `enter` shows a cron whole and the
runs it started · `n` creates one (the schedule checked as you type) · `e`/`space`
enables or disables it · `ctrl+d` deletes it after a confirmation. Read-only mode
refuses every change.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import work
from textual.binding import Binding, BindingType

from agent_tui.assistants.fetch import fetch_all_assistants
from agent_tui.client import AgentServerClient
from agent_tui.client.errors import ApiError
from agent_tui.client.models import Cron
from agent_tui.crons.runs import STATELESS, cron_thread_text, upcoming_run
from agent_tui.text.sanitize import clean_text
from agent_tui.text.short_ids import short_cron_id, short_random_id, short_thread_id
from agent_tui.text.time_text import MISSING, Clock, now_utc, utc_minutes
from agent_tui.tui.app_contract import agent_app
from agent_tui.tui.palette import PaletteCommand
from agent_tui.tui.resource_screen import FAILED, ResourceScreen
from agent_tui.tui.routes import RouteUnavailable
from agent_tui.tui.screens.crons.detail import CronDetailScreen
from agent_tui.tui.screens.crons.form import CronFormScreen
from agent_tui.tui.widgets.resource_table import NAME_WIDTH, Column
from agent_tui.tui.widgets.text import server_text

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen


def enabled_text(cron: Cron) -> Text:
    return Text("yes", style="green") if cron.enabled else Text("no", style="dim")


class CronsScreen(ResourceScreen[Cron]):
    RESOURCE = "cron"
    RESOURCES = "crons"
    VERBS = frozenset({"new", "delete"})
    EMPTY_HINT: ClassVar[str] = "none yet: n creates one"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("e,space", "toggle_enabled", "On/off", id="crons.toggle"),
    ]

    def __init__(
        self, client: AgentServerClient, *, thread_id: str | None = None, clock: Clock = now_utc
    ) -> None:
        super().__init__()
        self.client = client
        self.thread_id = thread_id  # only this thread's crons, when set
        self.clock = clock
        self.assistants: dict[str, str] = {}  # assistant id → name (graph)

    # -- what the table shows ---------------------------------------------------------

    def columns(self) -> Sequence[Column[Cron]]:
        return [
            Column("id", "Cron", lambda c: short_cron_id(c.cron_id), width=10),
            Column("schedule", "Schedule", self._schedule_text, max_width=28),
            Column("assistant", "Assistant", self._assistant_text, max_width=NAME_WIDTH),
            Column("thread", "Thread", self._thread_text, width=10),
            Column("next", "Next run (UTC)", self._next_text, width=16),
            Column("ends", "Ends (UTC)", lambda c: utc_minutes(c.end_time), width=16),
            Column("enabled", "Enabled", enabled_text, width=7),
        ]

    def _schedule_text(self, cron: Cron) -> Text:
        text = server_text(cron.schedule, style="bold")
        if cron.timezone:
            text.append_text(server_text(f" {cron.timezone}", style="dim"))
        return text

    def _assistant_text(self, cron: Cron) -> Text:
        assistant_id = cron.assistant_id or ""
        return server_text(self.assistants.get(assistant_id) or short_random_id(assistant_id))

    def _thread_text(self, cron: Cron) -> Text:
        shown = cron_thread_text(cron)
        return Text(shown, style="italic dim") if shown == STATELESS else Text(shown)

    def _next_text(self, cron: Cron) -> Text:
        moment = upcoming_run(cron, self.clock())
        if moment is None:
            return Text("ended" if cron.end_time else MISSING, style="dim")
        return Text(utc_minutes(moment), style="" if cron.enabled else "dim strike")

    def item_id(self, item: Cron) -> str:
        return item.cron_id

    def describe(self, item: Cron) -> str:
        return clean_text(f"cron {short_cron_id(item.cron_id)} ({item.schedule})")

    async def fetch_page(self, offset: int, limit: int) -> Sequence[Cron]:
        if offset == 0 and not self.assistants:
            await self._load_assistant_names()
        return await self.client.crons.search(
            thread_id=self.thread_id,
            limit=limit,
            offset=offset,
            sort_by="created_at",
            sort_order="desc",
        )

    def heading(self) -> Text | None:
        if self.thread_id is None:
            return None
        return server_text(f"thread {self.thread_id}", style="bold")

    @property
    def breadcrumb_title(self) -> str:
        if self.thread_id is None:
            return "crons"
        return f"crons · thread {short_thread_id(self.thread_id)}"

    async def _load_assistant_names(self) -> None:
        try:
            assistants, _cut = await fetch_all_assistants(self.client)
        except ApiError:
            return  # ids instead of names: the crons still show
        self.assistants = {
            a.assistant_id: f"{a.name} ({a.graph_id})" if a.name != a.graph_id else a.name
            for a in assistants
        }

    # -- verbs ------------------------------------------------------------------------

    def palette_commands(self) -> Iterable[PaletteCommand]:
        yield from super().palette_commands()
        yield PaletteCommand(
            "Enable or disable the cron",
            "Switch the selected cron on or off",
            self.action_toggle_enabled,
        )

    def open_item(self, item: Cron) -> None:
        detail = CronDetailScreen(self.client, item, assistants=self.assistants, clock=self.clock)
        self.app.push_screen(detail, self._after_detail)

    def _after_detail(self, changed: bool | None) -> None:
        if changed:
            self.reload()

    def new_item(self) -> None:
        form = CronFormScreen(self.client, thread_id=self.thread_id or "", clock=self.clock)
        self.app.push_screen(form, self._created)

    def _created(self, cron: Cron | None) -> None:
        if cron is None:
            return
        self.notify(f"Created {self.describe(cron)}", markup=False)
        self.table.update_item(cron)
        self.table.move_to(cron.cron_id)
        self.update_heading()
        self.reload()

    async def delete_item(self, item: Cron) -> None:
        await self.client.crons.delete(item.cron_id)

    def action_toggle_enabled(self) -> None:
        item = self._selected()
        if item is None:
            return
        verb = "disable" if item.enabled else "enable"
        if not self.refuse_if_readonly(f"{verb} a cron"):
            self._set_enabled(item, not item.enabled)

    @work(group="crons-toggle", exit_on_error=False)
    async def _set_enabled(self, item: Cron, enabled: bool) -> None:
        verb = "enable" if enabled else "disable"
        changed = await self.attempt(
            self.client.crons.update(item.cron_id, enabled=enabled),
            doing=f"{verb} {self.describe(item)}",
        )
        if changed is FAILED:
            return
        self.table.update_item(changed)
        self.notify(f"{verb.capitalize()}d {self.describe(changed)}", markup=False)


def crons_screen(app: App[Any], argument: str | None) -> Screen[Any]:
    """The route's factory: `:crons`, or `:crons <thread id>` for one thread's crons."""
    client = agent_app(app).client
    if client is None:
        raise RouteUnavailable("Not connected to an agent server yet")
    return CronsScreen(client, thread_id=(argument or "").strip() or None)
