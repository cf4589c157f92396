"""The Experiments screen (`:experiments`): the experiments saved on this machine, newest
first — id, dataset, evaluator, each assistant's pass rate, regressions, when. `enter`
opens one's results side by side (`results.py`) · `n` runs a new one on the connected
server (`form.py`), with a progress bar; `esc` cancels it, and the runs it started are
cancelled on the server · `x` exports one as JSON (`modals/export_file.py`) · `ctrl+d`
deletes one (asks first). `agent-tui experiments run`
makes them too."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import ProgressBar, Static

from agent_tui.client import AgentServerClient
from agent_tui.datasets.store import DatasetStore
from agent_tui.experiments.results import Experiment
from agent_tui.experiments.runner import fill_traces, run_experiment
from agent_tui.experiments.store import ExperimentStore
from agent_tui.text.escaping import exact_json
from agent_tui.text.time_text import utc_minutes
from agent_tui.tui.app_contract import agent_app
from agent_tui.tui.modals.export_file import export_to_file
from agent_tui.tui.palette import PaletteCommand
from agent_tui.tui.resource_screen import ResourceScreen
from agent_tui.tui.screens.experiments.form import ExperimentFormScreen, ExperimentPlan
from agent_tui.tui.screens.experiments.results import ExperimentResultsScreen, rate_text
from agent_tui.tui.widgets.resource_table import Column
from agent_tui.tui.widgets.text import server_line

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen


class ExperimentsScreen(ResourceScreen[Experiment]):
    RESOURCE = "experiment"
    RESOURCES = "experiments"
    VERBS = frozenset({"new", "delete"})
    EMPTY_HINT: ClassVar[str] = "none yet: n runs one (or agent-tui experiments run)"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("x", "export", "Export", id="experiments.export"),
    ]
    DEFAULT_CSS = """
    ExperimentsScreen #experiment-progress { dock: bottom; height: 1; display: none; }
    ExperimentsScreen #experiment-progress.-running { display: block; }
    ExperimentsScreen #experiment-progress Static { width: auto; padding: 0 1; }
    """

    def __init__(
        self,
        client: AgentServerClient | None = None,
        *,
        store: ExperimentStore | None = None,
        datasets: DatasetStore | None = None,
    ) -> None:
        super().__init__()
        self.client = client
        self.store = store or ExperimentStore()
        self.datasets = datasets or DatasetStore()
        self.running = False

    def compose(self) -> ComposeResult:
        yield from super().compose()
        with Horizontal(id="experiment-progress"):
            yield Static(id="experiment-progress-text")
            yield ProgressBar(id="experiment-progress-bar", show_eta=False)

    def columns(self) -> Sequence[Column[Experiment]]:
        return [
            Column("id", "Experiment", lambda e: e.id, width=20),
            Column("dataset", "Dataset", lambda e: server_line(e.dataset), max_width=24),
            Column("evaluator", "Evaluator", lambda e: server_line(e.evaluator), max_width=20),
            Column("rates", "Pass rates", self._rates, flex=1, width=20),
            Column("regressions", "Regressions", self._regressions, width=11),
            Column("created", "Created (UTC)", lambda e: utc_minutes(e.created_at), width=16),
        ]

    def _rates(self, experiment: Experiment) -> Text:
        return server_line(
            ", ".join(
                f"{row.target} {rate_text(row.passed, row.judged)}"
                for row in experiment.summaries()
            )
        )

    def _regressions(self, experiment: Experiment) -> Text:
        count = len(experiment.regressions())
        return Text(str(count), style="bold red" if count else "green")

    def item_id(self, item: Experiment) -> str:
        return item.id

    def describe(self, item: Experiment) -> str:
        return f"experiment {item.id}"

    def raw_json(self, item: Experiment) -> Any:
        return item.as_json()

    async def fetch_page(self, offset: int, limit: int) -> Sequence[Experiment]:
        found = await asyncio.to_thread(self.store.all)
        return found[offset : offset + limit]

    def open_item(self, item: Experiment) -> None:
        self.app.push_screen(ExperimentResultsScreen(item))

    async def delete_item(self, item: Experiment) -> None:
        await asyncio.to_thread(self.store.delete, item.id)

    def action_export(self) -> None:
        """The selected experiment as JSON, as `y` shows it (summary, regressions, every
        answer); allowed read-only: it writes only here."""
        item = self._selected()
        if item is None:
            return

        export_to_file(
            self,
            f"Export experiment {item.id} as JSON",
            f"experiment-{item.id}.json",
            lambda: exact_json(item.as_json()) + "\n",
            said=lambda path: f"Wrote experiment {item.id} to {path}",
            notice="Experiment exported",
        )

    def palette_commands(self) -> Iterable[PaletteCommand]:
        yield from super().palette_commands()
        yield PaletteCommand(
            "Export experiment…", "The selected experiment as JSON", self.action_export
        )

    # -- running one --------------------------------------------------------------------

    def new_item(self) -> None:
        if self.client is None:
            self.notify("Not connected to an agent server", severity="warning", markup=False)
            return
        if self.running:
            self.notify("An experiment is running: esc cancels it", markup=False)
            return
        self.app.push_screen(ExperimentFormScreen(self.client, self.datasets), self._planned)

    def _planned(self, plan: ExperimentPlan | None) -> None:
        if plan is not None:
            self._run(plan)

    def _progress(self, done: int, total: int) -> None:
        self.query_one("#experiment-progress-bar", ProgressBar).update(total=total, progress=done)
        self.query_one("#experiment-progress-text", Static).update(
            Text(f"Running {done}/{total} runs · esc cancels")
        )

    def _show_progress(self, running: bool) -> None:
        self.running = running
        self.query_one("#experiment-progress").set_class(running, "-running")

    @work(exclusive=True, group="experiment-run", exit_on_error=False)
    async def _run(self, plan: ExperimentPlan) -> None:
        assert self.client is not None
        total = len(plan.dataset.examples) * len(plan.targets)
        self._show_progress(True)
        self._progress(0, total)
        try:
            experiment = await run_experiment(
                self.client,
                plan.dataset,
                plan.targets,
                plan.evaluator,
                concurrency=plan.concurrency,
                on_progress=self._progress,
            )
        except asyncio.CancelledError:
            self.notify(
                "Experiment cancelled: the runs it started were cancelled on the server",
                markup=False,
            )
            raise
        finally:
            self._show_progress(False)
        await asyncio.to_thread(fill_traces, experiment)
        await asyncio.to_thread(self.store.save, experiment)
        self.reload()
        self.app.push_screen(ExperimentResultsScreen(experiment))

    def action_back(self) -> None:
        if self.running:
            self.workers.cancel_group(self, "experiment-run")
            return
        super().action_back()


def experiments_screen(app: App[Any], argument: str | None) -> Screen[Any]:
    """The route's factory: `:experiments`."""
    return ExperimentsScreen(agent_app(app).client)
