"""The Experiments screen (`:experiments`): the experiments saved on this machine, newest
first — id, dataset, evaluator, each assistant's pass rate, regressions, when. `enter`
opens one's results side by side (`results.py`) · `ctrl+d` deletes it (asks first).
`agent-tui experiments run` makes them."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text

from agent_tui.experiments.results import Experiment
from agent_tui.experiments.store import ExperimentStore
from agent_tui.text.time_text import utc_minutes
from agent_tui.tui.resource_screen import ResourceScreen
from agent_tui.tui.screens.experiments.results import ExperimentResultsScreen, rate_text
from agent_tui.tui.widgets.resource_table import Column
from agent_tui.tui.widgets.text import server_line

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen


class ExperimentsScreen(ResourceScreen[Experiment]):
    RESOURCE = "experiment"
    RESOURCES = "experiments"
    VERBS = frozenset({"delete"})
    EMPTY_HINT: ClassVar[str] = (
        "none yet: agent-tui experiments run DATASET --assistant A --assistant B"
    )

    def __init__(self, store: ExperimentStore | None = None) -> None:
        super().__init__()
        self.store = store or ExperimentStore()

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


def experiments_screen(app: App[Any], argument: str | None) -> Screen[Any]:
    """The route's factory: `:experiments`."""
    return ExperimentsScreen()
