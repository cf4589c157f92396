"""`:experiments` and `:datasets`: an experiment run on the real server (two versions of
an echo assistant) listed with its pass rates and regressions, opened with the answers
side by side, a regression in red, and the highlighted example's diff; its dataset listed
with its examples."""

from __future__ import annotations

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
from agent_tui.tui.screens.experiments.form import ExperimentFormScreen
from agent_tui.tui.screens.experiments.list import ExperimentsScreen
from agent_tui.tui.screens.experiments.results import ExperimentResultsScreen
from agent_tui.tui.widgets.inert import Input
from tests.support.screen import painted_control_codes, screen_text
from tests.support.shell import ShellHarness
from tests.support.waiting import WaitFor, screen_shown


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
    screen = ExperimentsScreen(store=ExperimentStore(tmp_path / "experiments"))
    app = ShellHarness(screen)
    async with app.run_test(size=(160, 45)) as pilot:
        await wait_for(pilot, lambda: screen.table.row_count == 1, what="the experiment listed")
        # Drawn a moment after it is in the table (under load the screen was read before).
        await wait_for(pilot, lambda: experiment_id in screen_text(app), what="its row drawn")
        shown = screen_text(app)
        assert "cities" in shown and "exact" in shown
        assert f"{name} v1 2/3 67%, {name} v2 2/3 67%" in shown

        # How fast it opens is the benchmark's (benchmarks/experiments.py), not a test's.
        await pilot.press("enter")
        await screen_shown(pilot, ExperimentResultsScreen, what="the results screen")
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
        await wait_for(pilot, lambda: "cities" in screen_text(app), what="its row drawn")
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


async def test_n_runs_an_experiment_with_a_progress_bar_and_opens_its_results(
    client: AgentServerClient, tmp_path: Path, wait_for: WaitFor
) -> None:
    name = f"ui-run-{uuid.uuid4().hex[:6]}"
    made = await client.assistants.create("echo", {"mode": "upper"}, name=name)
    await client.assistants.update(made.assistant_id, {"mode": "lower"})
    datasets = DatasetStore(tmp_path / "datasets")
    datasets.save(Dataset("greetings", [example(f"hi {n}", f"HI {n}") for n in range(6)]))
    store = ExperimentStore(tmp_path / "experiments")
    screen = ExperimentsScreen(client, store=store, datasets=datasets)
    app = ShellHarness(screen)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: screen.table.row_count == 0 and "n runs one" in
                       screen_text(app), what="the empty list")  # fmt: skip
        await pilot.press("n")
        await screen_shown(pilot, ExperimentFormScreen, what="form")
        form = app.screen
        assert form.query_one("#experiment-dataset", Input).value == "greetings"  # the only one
        # A bad evaluator and an unknown version are said under their fields.
        await pilot.press("tab", *f"{name}@1, {name}@7", "tab")
        evaluator = form.query_one("#experiment-evaluator", Input)
        evaluator.value = "regex:("
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "not a regular expression" in screen_text(app), what="why")
        evaluator.value = "exact"
        await pilot.press("ctrl+s")
        await wait_for(
            pilot, lambda: f"{name} has no version 7" in screen_text(app), what="the version"
        )
        form.query_one("#experiment-assistants", Input).value = f"{name}@1, {name}@2"
        await pilot.press("ctrl+s")
        await screen_shown(pilot, ExperimentResultsScreen, what="the experiment's results")
        shown = screen_text(app)
        assert f"{name} v1  6/6 100%" in shown and f"{name} v2  0/6 0%" in shown
        assert "6 regressions" in shown
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen.table.row_count == 1, what="the experiment saved")
        assert len(store.all()) == 1


async def test_esc_cancels_a_running_experiment_and_its_runs(
    client: AgentServerClient, tmp_path: Path, wait_for: WaitFor
) -> None:
    # The gate file never appears: each run ticks on until it is cancelled.
    made = await client.assistants.create("ticker", {"gate": str(tmp_path / "never")})
    datasets = DatasetStore(tmp_path / "datasets")
    slow = Dataset("slow", [Example({}, {"done": 1}) for _ in range(2)])
    datasets.save(slow)
    screen = ExperimentsScreen(client, store=ExperimentStore(tmp_path / "x"), datasets=datasets)
    app = ShellHarness(screen)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("n")
        await screen_shown(pilot, ExperimentFormScreen, what="form")
        app.screen.query_one("#experiment-assistants", Input).value = made.assistant_id
        await pilot.press("ctrl+s")
        await wait_for(
            pilot,
            lambda: "Running 0/2 runs · esc cancels" in screen_text(app),
            what="the progress bar",
            workers=False,
        )
        threads: list[str] = []
        while len(threads) < 2:
            for item in slow.examples:
                found = await client.threads.search(metadata={"example_id": item.id}, limit=1)
                threads += [t.thread_id for t in found if t.thread_id not in threads]
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.running, what="the experiment cancelled")
        assert app.screen is screen  # esc cancelled; it did not leave the screen
        for thread_id in threads:
            runs = await client.runs.list(thread_id)
            assert [run.status for run in runs] in (["interrupted"], []), thread_id
        assert screen.store.all() == []


async def test_n_types_in_a_new_dataset_and_more_examples(
    tmp_path: Path, wait_for: WaitFor
) -> None:
    from agent_tui.tui.screens.datasets.example_form import ExampleFormScreen
    from agent_tui.tui.widgets.inert import TextArea

    store = DatasetStore(tmp_path / "datasets")
    screen = DatasetsScreen(store)
    app = ShellHarness(screen)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: "n makes one" in screen_text(app), what="the empty list")
        await pilot.press("n")
        await screen_shown(pilot, ExampleFormScreen, what="form")
        form = app.screen
        form.query_one("#example-name", Input).value = "typed"
        form.query_one("#example-input", TextArea).text = "hello Oslo"
        form.query_one("#example-reference", Input).value = "HELLO OSLO"
        form.query_one("#example-metadata", Input).value = "[1]"
        await pilot.press("ctrl+s")
        await wait_for(
            pilot, lambda: "the metadata must be a JSON object" in screen_text(app), what="why"
        )
        form.query_one("#example-metadata", Input).value = '{"city": "Oslo"}'
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: screen.table.row_count == 1, what="the new dataset")
        (made,) = store.load("typed").examples
        assert made.inputs == {"messages": [{"role": "user", "content": "hello Oslo"}]}
        assert (made.outputs, made.metadata) == ({"answer": "HELLO OSLO"}, {"city": "Oslo"})

        # In the dataset, n adds one more: a JSON input, no reference.
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ExamplesScreen), what="examples")
        examples = app.screen
        await pilot.press("n")
        await screen_shown(pilot, ExampleFormScreen, what="form")
        app.screen.query_one("#example-input", TextArea).text = '{"topic": "cats"}'
        await pilot.press("ctrl+s")
        await wait_for(
            pilot,
            lambda: isinstance(examples, ExamplesScreen) and examples.table.row_count == 2,
            what="the second example",
        )
        assert [e.outputs for e in store.load("typed").examples] == [
            {"answer": "HELLO OSLO"},
            None,
        ]
