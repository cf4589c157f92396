"""`:experiments` and `:datasets`: an experiment run on the real server (two versions of
an echo assistant) listed with its pass rates and regressions, opened with the answers
side by side, a regression in red, and the highlighted example's diff; its dataset listed
with its examples."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

from textual.widgets import DataTable, Static

from agent_tui.client import AgentServerClient
from agent_tui.datasets.model import Dataset, Example
from agent_tui.datasets.store import DatasetStore
from agent_tui.experiments.evaluators import evaluator_of
from agent_tui.experiments.runner import run_experiment
from agent_tui.experiments.store import ExperimentStore
from agent_tui.experiments.targets import resolve_targets
from agent_tui.tui.screens.datasets.list import DatasetsScreen, ExamplesScreen
from agent_tui.tui.screens.experiments.list import ExperimentsScreen
from agent_tui.tui.screens.experiments.results import ExperimentResultsScreen
from tests.support.screen import painted_control_codes, screen_text
from tests.support.shell import ShellHarness
from tests.support.waiting import WaitFor


def example(text: str, reference: str | None) -> Example:
    outputs = {"answer": reference} if reference is not None else None
    return Example({"messages": [{"role": "user", "content": text}]}, outputs)


async def saved_experiment(client: AgentServerClient, folder: Path) -> tuple[str, str]:
    name = f"ui-echo-{uuid.uuid4().hex[:6]}"
    made = await client.assistants.create("echo", {"mode": "upper"}, name=name)
    await client.assistants.update(made.assistant_id, {"mode": "lower"})
    dataset = Dataset(
        "cities",
        [
            example("hello Oslo", "HELLO OSLO"),
            example("hi Bern", "hi bern"),
            example("42", "42"),
            example("no reference \x1b[31mhere", None),
        ],
    )
    DatasetStore(folder / "datasets").save(dataset)
    targets = await resolve_targets(client, [f"{name}@1", f"{name}@2"])
    experiment = await run_experiment(client, dataset, targets, evaluator_of("exact"))
    ExperimentStore(folder / "experiments").save(experiment)
    return name, experiment.id


async def test_an_experiment_listed_and_opened_side_by_side(
    client: AgentServerClient, tmp_path: Path, wait_for: WaitFor
) -> None:
    name, experiment_id = await saved_experiment(client, tmp_path)
    screen = ExperimentsScreen(ExperimentStore(tmp_path / "experiments"))
    app = ShellHarness(screen)
    async with app.run_test(size=(160, 45)) as pilot:
        await wait_for(pilot, lambda: screen.table.row_count == 1, what="the experiment listed")
        shown = screen_text(app)
        assert experiment_id in shown and "cities" in shown and "exact" in shown
        assert f"{name} v1 2/3 67%, {name} v2 2/3 67%" in shown

        started = time.perf_counter()
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, ExperimentResultsScreen),
            what="the results screen",
        )
        opened = time.perf_counter() - started
        assert opened < 2.0  # generous for a loaded machine; the target is 200 ms
        shown = screen_text(app)
        assert "dataset cities · 4 examples · evaluator exact" in shown
        assert f"{name} v1  2/3 67%" in shown and f"{name} v2  2/3 67%" in shown
        assert "1 regression (passed on an earlier assistant, failed on a later one)" in shown
        assert "✓ HELLO OSLO" in shown and "✗ hello oslo" in shown
        assert "✗ HI BERN" in shown and "✓ hi bern" in shown
        # No verdict without a reference; the escape sequence it held is not painted.
        assert "· no reference here" in shown
        assert painted_control_codes(app) == []

        # The first example is highlighted: its answers whole and the diff between them.
        detail = str(app.screen.query_one("#experiment-detail", Static).render())
        assert "Input  hello Oslo" in detail and "Reference  HELLO OSLO" in detail
        assert f"{name} v1 → {name} v2" in detail
        assert "- HELLO OSLO" in detail and "+ hello oslo" in detail
        await pilot.press("down", "down")
        detail = str(app.screen.query_one("#experiment-detail", Static).render())
        assert "Input  42" in detail and "→" not in detail  # the same answer: no diff
        table = app.screen.query_one("#experiment-examples", DataTable)
        assert table.row_count == 4

        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, what="back to the list")


async def test_datasets_listed_with_their_examples(
    client: AgentServerClient, tmp_path: Path, wait_for: WaitFor
) -> None:
    store = DatasetStore(tmp_path / "datasets")
    store.save(Dataset("cities", [example("hello Oslo", "HELLO OSLO"), example("x", None)]))
    screen = DatasetsScreen(store)
    app = ShellHarness(screen)
    async with app.run_test(size=(140, 30)) as pilot:
        await wait_for(pilot, lambda: screen.table.row_count == 1, what="the dataset listed")
        row = next(line for line in screen_text(app).splitlines() if "cities" in line)
        assert row.split()[1:3] == ["2", "1"]
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, ExamplesScreen) and app.screen.table.row_count == 2,
            what="the examples",
        )
        shown = screen_text(app)
        assert '{"messages":[{"role":"user","content":"hello Oslo"}]}' in shown
        assert '{"answer":"HELLO OSLO"}' in shown
