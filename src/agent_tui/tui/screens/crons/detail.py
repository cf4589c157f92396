"""One cron whole: what it runs and when (the next three runs in UTC), its payload as
JSON, and the runs it started that the server still has (`crons/runs.py` says how they
are found). `enter` on a run opens its thread · `e`/`space` enables or disables the
cron · `ctrl+d` deletes it (after a confirmation) · `y` its raw JSON · `r` reloads.

Dismisses with True when the cron changed or was deleted (the list then reloads).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import DataTable, Footer, Static

from agent_tui.client import AgentServerClient, ApiError
from agent_tui.client.models import Cron, Run
from agent_tui.crons.runs import CronRuns, cron_thread_text, runs_of_cron
from agent_tui.crons.schedule import check_schedule
from agent_tui.text.sanitize import clean_text
from agent_tui.text.short_ids import short_cron_id, short_random_id, short_thread_id
from agent_tui.text.time_text import Clock, now_utc, utc_minutes, utc_seconds
from agent_tui.tui.agent_screen import AgentScreen
from agent_tui.tui.modals.confirm import ConfirmScreen
from agent_tui.tui.modals.raw_json import RawJsonScreen
from agent_tui.tui.widgets.breadcrumb import Breadcrumb
from agent_tui.tui.widgets.json_view import JsonView
from agent_tui.tui.widgets.resource_table import status_text
from agent_tui.tui.widgets.text import server_text


class CronDetailScreen(AgentScreen[bool]):
    AUTO_FOCUS = "#cron-runs"
    DEFAULT_CSS = """
    CronDetailScreen #cron-summary { height: auto; padding: 0 1; }
    CronDetailScreen #cron-body { height: 1fr; }
    CronDetailScreen #cron-left, CronDetailScreen #cron-right {
        width: 1fr; height: 1fr; padding: 0 1;
    }
    CronDetailScreen .section { text-style: bold; margin-top: 1; }
    CronDetailScreen #cron-payload { height: auto; }
    CronDetailScreen #cron-runs { height: auto; max-height: 100%; }
    CronDetailScreen #cron-runs-note { color: $text-muted; height: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("e,space", "toggle_enabled", "On/off", id="cron_detail.toggle"),
        Binding("ctrl+d", "delete", "Delete", id="cron_detail.delete"),
        Binding("y", "raw", "JSON", id="cron_detail.raw"),
        Binding("r", "refresh", "Refresh", id="cron_detail.refresh"),
        Binding("escape", "back", "Back", id="cron_detail.back"),
    ]

    def __init__(
        self,
        client: AgentServerClient,
        cron: Cron,
        *,
        assistants: Mapping[str, str] | None = None,
        clock: Clock = now_utc,
    ) -> None:
        super().__init__()
        self.client = client
        self.cron = cron
        self.assistants = dict(assistants or {})
        self.clock = clock
        self.found: CronRuns | None = None
        self.changed = False

    @property
    def breadcrumb_title(self) -> str:
        return f"crons · {short_cron_id(self.cron.cron_id)}"

    def compose(self) -> ComposeResult:
        yield Breadcrumb()
        yield Static(id="cron-summary")
        with Horizontal(id="cron-body"):
            with VerticalScroll(id="cron-left"):
                yield Static("Payload (what each run is started with)", classes="section")
                yield JsonView({}, id="cron-payload")
                yield Static("Metadata", classes="section")
                yield JsonView({}, id="cron-metadata")
            with Vertical(id="cron-right"):
                yield Static("Runs it started  (enter: open the thread)", classes="section")
                yield Static(id="cron-runs-note")
                table: DataTable[Text] = DataTable(id="cron-runs", cursor_type="row")
                yield table
        yield Footer()

    def on_mount(self) -> None:
        table = self.runs_table
        table.add_column("Run", key="run")
        table.add_column("Status", key="status")
        table.add_column("Thread", key="thread")
        table.add_column("Created (UTC)", key="created")
        self._show_cron()
        self.load()

    @property
    def runs_table(self) -> DataTable[Text]:
        return self.query_one("#cron-runs", DataTable)

    # -- loading ----------------------------------------------------------------------

    def load(self) -> None:
        self.runs_table.loading = True
        self._load()

    @work(exclusive=True, group="cron-detail", exit_on_error=False)
    async def _load(self) -> None:
        table = self.runs_table
        try:
            self.cron = await self.client.crons.get(self.cron.cron_id)
            self._show_cron()
            found = await runs_of_cron(self.client, self.cron)
        except ApiError as error:
            self.report_error(error, doing=f"load cron {short_cron_id(self.cron.cron_id)}")
            return
        finally:
            table.loading = False
        self.found = found
        self._show_runs(found)

    def _show_cron(self) -> None:
        cron = self.cron
        assistant_id = cron.assistant_id or ""
        text = Text("cron ", style="dim")
        text.append_text(server_text(cron.cron_id, style="bold"))
        text.append(
            "  enabled" if cron.enabled else "  disabled",
            style="green" if cron.enabled else "bold yellow",
        )
        text.append("\nschedule ", style="dim")
        text.append_text(server_text(cron.schedule, style="bold"))
        text.append_text(server_text(f" ({cron.timezone or 'UTC'})", style="dim"))
        text.append("   runs ", style="dim")
        text.append_text(
            server_text(
                self.assistants.get(assistant_id) or short_random_id(assistant_id), style="bold"
            )
        )
        text.append(" on ", style="dim")
        if cron.thread_id:
            text.append("thread ", style="dim")
            text.append_text(server_text(cron.thread_id))
        else:
            text.append(f"a new thread each time ({cron_thread_text(cron)})")
        text.append("\nnext runs (UTC) ", style="dim")
        check = check_schedule(
            cron.schedule, now=self.clock(), timezone=cron.timezone, end_time=cron.end_time
        )
        if check.error:
            text.append_text(server_text(check.error, style="red"))
        elif not check.next_runs:
            text.append("none: the end time has passed", style="italic")
        else:
            text.append(" · ".join(utc_minutes(moment) for moment in check.next_runs))
            if not cron.enabled:
                text.append(" (skipped while disabled)", style="italic")
        text.append("   ends ", style="dim")
        text.append(utc_minutes(cron.end_time, missing="never"))
        if cron.on_run_completed:
            text.append("   after each run ", style="dim")
            text.append_text(server_text(f"{cron.on_run_completed} the thread"))
        self.query_one("#cron-summary", Static).update(text)
        self.query_one("#cron-payload", JsonView).update(cron.payload)
        self.query_one("#cron-metadata", JsonView).update(cron.metadata)

    def _show_runs(self, found: CronRuns) -> None:
        table = self.runs_table
        table.clear()
        for run in found.runs:
            table.add_row(
                Text(short_thread_id(run.run_id)),
                status_text(run.status),
                Text(short_thread_id(run.thread_id or "—")),
                Text(utc_seconds(run.created_at)),
                key=run.run_id,
            )
        count = len(found.runs)
        words = f"{count} run{'s' if count != 1 else ''} found"
        if found.threads_read and not self.cron.thread_id:
            words += (
                f" on {found.threads_read} thread{'s' if found.threads_read != 1 else ''} searched"
            )
        if found.note:
            words += f"; {found.note}"
        self.query_one("#cron-runs-note", Static).update(server_text(words))

    # -- verbs ------------------------------------------------------------------------

    @property
    def highlighted_run(self) -> Run | None:
        if self.found is None or not self.runs_table.row_count:
            return None
        row = self.runs_table.cursor_row
        runs = self.found.runs
        return runs[row] if 0 <= row < len(runs) else None

    @on(DataTable.RowSelected, "#cron-runs")
    def _run_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        run = self.highlighted_run
        if run is not None and run.thread_id:
            self.run_worker(
                self.agent_app.open_resource("thread", run.thread_id),
                group="cron-open-thread",
                exit_on_error=False,
            )

    def action_refresh(self) -> None:
        self.load()

    def action_raw(self) -> None:
        title = f"cron {self.cron.cron_id}"
        self.app.push_screen(RawJsonScreen(self.cron.raw(), title=title))

    def action_back(self) -> None:
        self.dismiss(self.changed)

    def action_toggle_enabled(self) -> None:
        verb = "disable" if self.cron.enabled else "enable"
        if not self.refuse_if_readonly(f"{verb} a cron"):
            self._set_enabled(not self.cron.enabled)

    @work(group="cron-detail-toggle", exit_on_error=False)
    async def _set_enabled(self, enabled: bool) -> None:
        verb = "enable" if enabled else "disable"
        try:
            self.cron = await self.client.crons.update(self.cron.cron_id, enabled=enabled)
        except ApiError as error:
            self.report_error(error, doing=f"{verb} cron {short_cron_id(self.cron.cron_id)}")
            return
        self.changed = True
        self._show_cron()
        self.notify(
            clean_text(f"{verb.capitalize()}d cron {short_cron_id(self.cron.cron_id)}"),
            markup=False,
        )

    def action_delete(self) -> None:
        if self.refuse_if_readonly("delete a cron"):
            return
        cron = self.cron
        question = clean_text(
            f"Delete cron {short_cron_id(cron.cron_id)} ({cron.schedule})?\n"
            "It will not run again; the runs it started stay."
        )

        def answered(confirmed: bool | None) -> None:
            if confirmed:
                self._delete()

        self.app.push_screen(ConfirmScreen(question, title="Delete cron"), answered)

    @work(group="cron-detail-delete", exit_on_error=False)
    async def _delete(self) -> None:
        try:
            await self.client.crons.delete(self.cron.cron_id)
        except ApiError as error:
            self.report_error(error, doing=f"delete cron {short_cron_id(self.cron.cron_id)}")
            return
        self.notify(clean_text(f"Deleted cron {short_cron_id(self.cron.cron_id)}"), markup=False)
        self.dismiss(True)
