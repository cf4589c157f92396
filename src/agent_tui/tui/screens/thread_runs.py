"""The runs of one thread, newest first: what ran, how it ended, how long it took.

`R` in the thread view or `:runs <thread id>` opens it. Columns: the run id, its status,
the assistant (by name where the server lists it), created (UTC), duration, the
multitask strategy it was started with, its model and tool calls and tokens where this
machine's trace store has its trace (`agent-tui traces`: runs of the local servers
agent-tui starts), and for a failed run its error (`threads.failure`: the exception's
type, node and own words, from the run's last checkpoint). Keys beyond the shared ones (`resource_screen.py`): `enter` shows one run
whole — its kwargs (input, command, breakpoints, stream modes), metadata and, for a
failed run, its error · `j` joins a running run: the thread view opens on the chat and
streams it · `x` cancels a pending or running run on the server (after a confirmation;
refused in read-only mode). While a run is pending or running the list refreshes itself.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import work
from textual.binding import Binding, BindingType

from agent_tui.assistants.fetch import fetch_all_assistants
from agent_tui.client import AgentServerClient
from agent_tui.client.errors import ApiError
from agent_tui.client.models import Run
from agent_tui.text.sanitize import clean_text
from agent_tui.text.short_ids import short_random_id, short_thread_id
from agent_tui.text.time_text import utc_seconds
from agent_tui.threads.failure import Failure, run_failure
from agent_tui.traces.totals import (
    NOT_REPORTED,
    RunTotals,
    configured_prices,
    tokens_pair,
    totals_of_runs,
)
from agent_tui.tui.app_contract import agent_app
from agent_tui.tui.modals.confirm import ConfirmScreen
from agent_tui.tui.modals.raw_json import RawJsonScreen
from agent_tui.tui.resource_screen import FAILED, ResourceScreen
from agent_tui.tui.routes import RouteUnavailable
from agent_tui.tui.widgets.resource_table import Column, status_text
from agent_tui.tui.widgets.text import server_text

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

ACTIVE = frozenset({"pending", "running"})
ERROR_WIDTH = 100  # cells of the Error column: the exception's own words, not just its type
FAILURE_READS = 8  # failed runs' checkpoints read at once for the Error column


def run_duration(run: Run, now: datetime) -> str:
    """`4.2s`, `3m 05s`, `1h 02m`; a run still going counts up to `now`."""
    if run.created_at is None:
        return "—"
    end = now if run.status in ACTIVE or run.updated_at is None else run.updated_at
    seconds = max(0.0, (end - run.created_at).total_seconds())
    if seconds < 60:
        text = f"{seconds:.1f}s"
    elif seconds < 3600:
        text = f"{int(seconds // 60)}m {int(seconds % 60):02d}s"
    else:
        text = f"{int(seconds // 3600)}h {int(seconds % 3600 // 60):02d}m"
    return text + "…" if run.status in ACTIVE else text


def _read_totals(run_ids: list[str]) -> dict[str, RunTotals]:
    return totals_of_runs(run_ids, prices=configured_prices())


class ThreadRunsScreen(ResourceScreen[Run]):
    RESOURCE = "run"
    RESOURCES = "runs"
    PAGE_SIZE = 50
    LIVE_INTERVAL: ClassVar[float] = 1.0
    EMPTY_HINT: ClassVar[str] = "none yet: send a message on the thread's chat"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "join", "Join", id="runs.join"),
        Binding("x", "cancel_run", "Cancel run", id="runs.cancel"),
    ]

    def __init__(self, client: AgentServerClient, thread_id: str) -> None:
        super().__init__()
        self.client = client
        self.thread_id = thread_id
        self.assistant_names: dict[str, str] = {}
        # run id → why it failed (`threads.failure`); a finished run's never changes.
        self.failures: dict[str, Failure | None] = {}
        # run id → its calls and tokens from this machine's trace store (if traced here).
        self.traced: dict[str, RunTotals] = {}

    @property
    def breadcrumb_title(self) -> str:
        return "runs"

    def columns(self) -> Sequence[Column[Run]]:
        return [
            Column("id", "Run", lambda r: short_thread_id(r.run_id), width=10),
            Column("status", "Status", lambda r: status_text(r.status), width=11),
            Column("assistant", "Assistant", self._assistant_text, width=24),
            Column("created", "Created (UTC)", lambda r: utc_seconds(r.created_at), width=19),
            Column("duration", "Duration", lambda r: run_duration(r, datetime.now(UTC)), width=9),
            Column("strategy", "Multitask", lambda r: r.multitask_strategy or "—", width=10),
            Column("calls", "Calls", self._calls_text, width=7),
            Column("tokens", "Tokens", self._tokens_text, width=13),
            Column("error", "Error", self._error_text, max_width=ERROR_WIDTH),
        ]

    def _calls_text(self, run: Run) -> str:
        """Model calls / tool calls, "—" when this machine has no trace of the run."""
        totals = self.traced.get(run.run_id)
        return f"{totals.model_calls}/{totals.tool_calls}" if totals else "—"

    def _tokens_text(self, run: Run) -> str:
        """Input→output tokens; "not reported" when its model did not say them; "—" when
        this machine has no trace of the run."""
        totals = self.traced.get(run.run_id)
        if totals is None:
            return "—"
        return tokens_pair(totals.input_tokens, totals.output_tokens) or NOT_REPORTED

    def _error_text(self, run: Run) -> Text:
        failure = self.failures.get(run.run_id)
        return server_text(failure.line() if failure is not None else "", style="red")

    def _assistant_text(self, run: Run) -> Text:
        assistant_id = run.assistant_id or ""
        return server_text(self.assistant_names.get(assistant_id) or short_random_id(assistant_id))

    def item_id(self, item: Run) -> str:
        return item.run_id

    def describe(self, item: Run) -> str:
        return f"run {short_thread_id(item.run_id)}"

    def heading(self) -> Text | None:
        return server_text(f"thread {self.thread_id}", style="bold")

    async def fetch_page(self, offset: int, limit: int) -> Sequence[Run]:
        if offset == 0 and not self.assistant_names:
            try:
                assistants, _cut = await fetch_all_assistants(self.client)
            except ApiError:
                assistants = []  # ids instead of names: the runs still show
            self.assistant_names = {a.assistant_id: a.name or a.graph_id for a in assistants}
        runs = await self.client.runs.list(self.thread_id, limit=limit, offset=offset)
        newest = runs[0].run_id if offset == 0 and runs else None
        unread = [r for r in runs if r.status == "error" and r.run_id not in self.failures]
        gate = asyncio.Semaphore(FAILURE_READS)

        async def read(run: Run) -> None:
            async with gate:
                with contextlib.suppress(ApiError):  # the row says "error" without why
                    self.failures[run.run_id] = await run_failure(
                        self.client, self.thread_id, run.run_id, last=run.run_id == newest
                    )

        await asyncio.gather(*(read(run) for run in unread))
        # Read again at each fetch: a run's trace grows while it runs and a little after
        # (the SDK sends in batches); a page's worth of runs is a few small queries.
        if runs:
            self.traced.update(await asyncio.to_thread(_read_totals, [r.run_id for r in runs]))
        return runs

    # -- live -------------------------------------------------------------------------

    def on_mount(self) -> None:
        super().on_mount()
        self.set_interval(self.LIVE_INTERVAL, self._refresh_while_active)

    def _refresh_while_active(self) -> None:
        if self.is_current and any(run.status in ACTIVE for run in self.table.items):
            self.reload()

    # -- verbs ------------------------------------------------------------------------

    def open_item(self, item: Run) -> None:
        self._show_run(item)

    @work(exclusive=True, group="run-detail", exit_on_error=False)
    async def _show_run(self, item: Run) -> None:
        shown: dict[str, Any] = {
            "run_id": item.run_id,
            "status": item.status,
            "assistant_id": item.assistant_id,
            "assistant": self.assistant_names.get(item.assistant_id or ""),
            "multitask_strategy": item.multitask_strategy,
            "created_at": utc_seconds(item.created_at),
            "updated_at": utc_seconds(item.updated_at),
            "duration": run_duration(item, datetime.now(UTC)),
            "kwargs": item.run_kwargs,
            "metadata": item.metadata,
        }
        totals = self.traced.get(item.run_id)
        shown["trace"] = (
            totals.as_json()
            if totals is not None
            else "not traced here (`agent-tui traces`: the local servers agent-tui starts)"
        )
        if item.status == "error":
            # The run record holds no error; the run's last checkpoint does (its failing
            # task), as the Error column shows it.
            if item.run_id not in self.failures:
                newest = self.table.items[0].run_id if self.table.items else None
                try:
                    self.failures[item.run_id] = await run_failure(
                        self.client, self.thread_id, item.run_id, last=item.run_id == newest
                    )
                except ApiError:
                    shown["error"] = "(could not read the run's checkpoints)"
            if item.run_id in self.failures:
                failure = self.failures[item.run_id]
                shown["error"] = failure.line() if failure else "(not recorded on the thread)"
        title = f"run {item.run_id} · {item.status}"
        self.app.push_screen(RawJsonScreen(shown, title=title))

    def action_join(self) -> None:
        item = self.table.selected_item
        if item is None:
            return
        if item.status != "running":
            self.notify(
                clean_text(
                    f"Run {short_thread_id(item.run_id)} is {item.status}: "
                    "only a running run can be joined"
                ),
                markup=False,
            )
            return
        self.run_worker(
            self.agent_app.open_resource("thread", self.thread_id),
            group="runs-join",
            exit_on_error=False,
        )

    def action_cancel_run(self) -> None:
        item = self.table.selected_item
        if item is None or self.refuse_if_readonly("cancel a run"):
            return
        if item.status not in ACTIVE:
            self.notify(
                clean_text(
                    f"Run {short_thread_id(item.run_id)} is {item.status}: nothing to cancel"
                ),
                markup=False,
            )
            return

        def answered(confirmed: bool | None) -> None:
            if confirmed:
                self._cancel(item)

        question = f"Cancel run {short_thread_id(item.run_id)} ({item.status})?\nWhat it wrote so far stays on the thread."
        self.app.push_screen(ConfirmScreen(question, title="Cancel run"), answered)

    @work(group="runs-cancel", exit_on_error=False)
    async def _cancel(self, item: Run) -> None:
        call = self.client.runs.cancel(self.thread_id, item.run_id, wait=True, timeout=30)
        if await self.attempt(call, doing=f"cancel run {short_thread_id(item.run_id)}") is FAILED:
            return
        self.notify(clean_text(f"Cancelled run {short_thread_id(item.run_id)}"), markup=False)
        self.reload()


def thread_runs_screen(app: App[Any], argument: str | None) -> Screen[Any]:
    """The route's factory: `:runs <thread id>`."""
    thread_id = (argument or "").strip()
    if not thread_id:
        raise RouteUnavailable(":runs needs a thread id")
    client = agent_app(app).client
    if client is None:
        raise RouteUnavailable("Not connected to an agent server yet")
    return ThreadRunsScreen(client, thread_id)
