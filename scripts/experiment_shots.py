"""The screenshots of datasets and experiments (`screenshots.py` takes them with the
others): a dataset of six questions to the demo `chat` graph, run on two versions of a
`quiz-bot` assistant (version 2 shouts), judged by `contains`; the Datasets screen, the
Experiments screen and the experiment's results side by side."""

from __future__ import annotations

from shot_support import info_screen, until
from textual.pilot import Pilot

from agent_tui.client import AgentServerClient
from agent_tui.datasets.model import Dataset, Example
from agent_tui.datasets.store import DatasetStore
from agent_tui.experiments.evaluators import evaluator_of
from agent_tui.experiments.runner import run_experiment
from agent_tui.experiments.store import ExperimentStore
from agent_tui.experiments.targets import resolve_targets

QUESTIONS = [
    ("weather in Paris", "Paris"),
    ("calc 6*7", "42"),
    ("hello there", "You said"),
    ("count to 5", "1 2 3 4 5"),
    ("deploy to staging", "Deployed"),
    ("please fail", "never"),
]


def questions() -> Dataset:
    return Dataset(
        "quiz",
        [
            Example({"messages": [{"role": "user", "content": text}]}, {"answer": expected},
                    {"topic": text.split()[0]})
            for text, expected in QUESTIONS
        ],
        description="Six questions to the demo chat graph",
    )  # fmt: skip


def greetings() -> Dataset:
    return Dataset(
        "greetings",
        [Example({"messages": [{"role": "user", "content": f"hello {name}"}]})
         for name in ("Ann", "Bob", "Eve")],
    )  # fmt: skip


async def experiment_data(pilot: Pilot[None]) -> None:
    """The datasets and one experiment, made once for the three shots."""
    await info_screen(pilot)
    experiments = ExperimentStore()
    if experiments.ids():
        return
    datasets = DatasetStore()
    dataset = questions()
    datasets.save(dataset)
    datasets.save(greetings())
    client: AgentServerClient = pilot.app.client  # type: ignore[attr-defined]
    bot = await client.assistants.create(
        "chat", {"style": "pirate", "token_delay_ms": 0}, "quiz-bot", description="Quizzes."
    )
    await client.assistants.update(
        bot.assistant_id, {"style": "pirate", "token_delay_ms": 0, "shout": True}
    )
    targets = await resolve_targets(client, ["quiz-bot@1", "quiz-bot@2"])
    experiment = await run_experiment(
        client, dataset, targets, evaluator_of("contains"), concurrency=3
    )
    experiments.save(experiment)


async def datasets_screen(pilot: Pilot[None]) -> None:
    await experiment_data(pilot)
    await pilot.press("colon", *"datasets", "enter")
    await until(pilot, lambda: type(pilot.app.screen).__name__ == "DatasetsScreen")
    await until(pilot, lambda: pilot.app.screen.table.row_count == 2)  # type: ignore[attr-defined]


async def experiments_screen(pilot: Pilot[None]) -> None:
    await experiment_data(pilot)
    await pilot.press("colon", *"experiments", "enter")
    await until(pilot, lambda: type(pilot.app.screen).__name__ == "ExperimentsScreen")
    await until(pilot, lambda: pilot.app.screen.table.row_count == 1)  # type: ignore[attr-defined]


async def experiment_results(pilot: Pilot[None]) -> None:
    """The experiment opened, the weather question highlighted: its answers and diff."""
    await experiments_screen(pilot)
    await pilot.press("enter")
    await until(pilot, lambda: type(pilot.app.screen).__name__ == "ExperimentResultsScreen")
    await pilot.pause()


EXPERIMENT_SHOTS = {
    "datasets": datasets_screen,
    "experiments": experiments_screen,
    "experiment-results": experiment_results,
}
