"""An experiment's wall time against the same runs made with langgraph-sdk, side by side.

    uv run python benchmarks/experiments.py [--examples 200] [--concurrency 8] [--rounds 3]
    uv run python benchmarks/experiments.py --quick   # 20 examples, 1 round, checked

One embedded server of the test graphs. An `echo` assistant gets two versions (version 1
answers in capitals, version 2 in small letters); a dataset of ``--examples`` examples,
each with its reference, runs on both versions:

- **agent-tui**: `experiments.runner.run_experiment`, what `agent-tui experiments run`
  runs: a thread per example and version, one `runs/wait` each with the version's
  context, at most ``--concurrency`` at a time, each answer judged (`exact`) as it comes;
- **sdk**: the same requests made with langgraph-sdk (`threads.create`, `runs.wait` with
  the same context and metadata) under the same semaphore, answers compared after.

The two take turns round by round (whose turn goes first alternates), so a machine busy
with something else slows both alike. It prints each round's seconds and the median
ratio agent-tui / sdk.

Then the results screen of the last experiment opens in a headless app, through Pilot
(pushed until its table holds every example and the app is idle: painted), the median of
5 — its wall time, and the CPU time this process spent on it (what the screen itself
costs, whatever else the machine runs), beside a bare screen's for scale.

Checked (exit status 1 if not): on both sides every example answered as its version
should (version 1 passes all, version 2 none: every example a regression); the results
table full; without ``--quick`` also the budgets: within 1.2x of the sdk, the results
screen within 200 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchkit import add_options, arm, check

ROOT = Path(__file__).resolve().parent.parent
GRAPHS = ROOT / "tests" / "graphs" / "langgraph.json"
BUDGET = 1.2
SCREEN_BUDGET = 0.2  # seconds for the results screen of the experiment to open
WORDS = ["Paris", "oslo", "Rome", "berlin", "Madrid", "lima", "Quito", "tokyo", "Seoul", "delhi"]


def dataset_of(size: int) -> Any:
    from agent_tui.datasets.model import Dataset, Example

    examples = []
    for index in range(size):
        text = f"hello {WORDS[index % len(WORDS)]} {index}"
        examples.append(
            Example({"messages": [{"role": "user", "content": text}]}, {"answer": text.upper()})
        )
    return Dataset("bench", examples)


Opening = tuple[float, float]  # seconds: (wall, CPU of this process), each the median


async def bare_screen_opens(repeats: int = 5) -> Opening:
    """The same for a bare screen (breadcrumb, an empty table, footer): for scale, what
    opening any screen costs on this machine now."""
    from textual.screen import Screen
    from textual.widgets import DataTable, Footer

    from agent_tui.tui.shell import ShellApp
    from agent_tui.tui.widgets.breadcrumb import Breadcrumb

    class Bare(Screen[None]):
        def compose(self) -> Any:
            yield Breadcrumb()
            yield DataTable()
            yield Footer()

    times: list[float] = []
    cpu: list[float] = []
    app = ShellApp()
    async with app.run_test(size=(160, 50)) as pilot:
        for _ in range(repeats):
            started, spent = time.perf_counter(), time.process_time()
            await app.push_screen(Bare())
            await pilot.pause()
            times.append(time.perf_counter() - started)
            cpu.append(time.process_time() - spent)
            app.pop_screen()
            await pilot.pause()
    return statistics.median(times), statistics.median(cpu)


async def results_screen_opens(experiment: Any, repeats: int = 5) -> Opening:
    """Seconds from pushing the experiment's results screen to its last row in (the
    median of `repeats`, the first one the screen's styles are read), in a headless app
    of the app's own shell."""
    from textual.widgets import DataTable

    from agent_tui.tui.screens.experiments.results import ExperimentResultsScreen
    from agent_tui.tui.shell import ShellApp

    times: list[float] = []
    cpu: list[float] = []
    app = ShellApp()
    async with app.run_test(size=(160, 50)) as pilot:
        for _ in range(repeats):
            started, spent = time.perf_counter(), time.process_time()
            screen = ExperimentResultsScreen(experiment)
            await app.push_screen(screen)
            await pilot.pause()
            table = screen.query_one("#experiment-examples", DataTable)
            check(table.row_count == len(experiment.examples), "the results table is not full")
            times.append(time.perf_counter() - started)
            cpu.append(time.process_time() - spent)
            app.pop_screen()
            await pilot.pause()
    return statistics.median(times), statistics.median(cpu)


async def ours(url: str, dataset: Any, specs: list[str], concurrency: int) -> tuple[float, Any]:
    from agent_tui.client import AgentServerClient
    from agent_tui.experiments.evaluators import evaluator_of
    from agent_tui.experiments.runner import run_experiment
    from agent_tui.experiments.targets import resolve_targets

    async with AgentServerClient(url) as client:
        targets = await resolve_targets(client, specs)
        started = time.perf_counter()
        experiment = await run_experiment(
            client, dataset, targets, evaluator_of("exact"), concurrency=concurrency
        )
        seconds = time.perf_counter() - started
    first, second = experiment.summaries()
    size = len(dataset.examples)
    check(
        (first.passed, second.passed, first.errors + second.errors) == (size, 0, 0),
        f"agent-tui: pass counts {first.passed}, {second.passed} of {size}",
    )
    check(len(experiment.regressions()) == size, "agent-tui: every example should regress")
    return seconds, experiment


async def sdk(url: str, dataset: Any, versions: list[dict[str, Any]], concurrency: int) -> float:
    from langgraph_sdk import get_client

    client = get_client(url=url)
    gate = asyncio.Semaphore(concurrency)

    async def one(example: Any, version: dict[str, Any]) -> str:
        async with gate:
            thread = await client.threads.create(
                metadata={"graph_id": "echo", "assistant_id": version["assistant_id"]}
            )
            values = await client.runs.wait(
                thread["thread_id"],
                version["assistant_id"],
                input=example.inputs,
                context=version["context"],
            )
        return str(values["messages"][-1]["content"])  # type: ignore[call-overload]

    started = time.perf_counter()
    answers = await asyncio.gather(
        *(one(example, version) for example in dataset.examples for version in versions)
    )
    seconds = time.perf_counter() - started
    wanted = [
        text.upper() if version["context"]["mode"] == "upper" else text.lower()
        for example in dataset.examples
        for version in versions
        for text in [example.inputs["messages"][0]["content"]]
    ]
    check(answers == wanted, "sdk: the answers are not what the versions say")
    return seconds


async def bench(url: str, size: int, concurrency: int, rounds: int, quick: bool) -> None:
    from agent_tui.client import AgentServerClient

    async with AgentServerClient(url) as client:
        made = await client.assistants.create("echo", {"mode": "upper"}, name="bench-echo")
        await client.assistants.update(made.assistant_id, {"mode": "lower"})
        versions = [
            {"assistant_id": made.assistant_id, "context": v.context}
            for v in sorted(
                await client.assistants.get_versions(made.assistant_id), key=lambda v: v.version
            )
        ]
    specs = [f"{made.assistant_id}@1", f"{made.assistant_id}@2"]
    dataset = dataset_of(size)
    runs = size * 2
    print(f"{size} examples x 2 versions = {runs} runs, {concurrency} at a time")
    ratios = []
    experiment: Any = None
    for round_ in range(rounds):
        if round_ % 2 == 0:
            mine, experiment = await ours(url, dataset, specs, concurrency)
            theirs = await sdk(url, dataset, versions, concurrency)
        else:
            theirs = await sdk(url, dataset, versions, concurrency)
            mine, experiment = await ours(url, dataset, specs, concurrency)
        ratios.append(mine / theirs)
        print(
            f"round {round_ + 1}: agent-tui {mine:.2f} s ({runs / mine:.0f} runs/s),"
            f" sdk {theirs:.2f} s ({runs / theirs:.0f} runs/s), ratio {mine / theirs:.2f}"
        )
    ratio = statistics.median(ratios)
    print(f"median ratio agent-tui / sdk: {ratio:.2f} (budget {BUDGET})")
    (opened, opened_cpu) = await results_screen_opens(experiment)
    (bare, bare_cpu) = await bare_screen_opens()
    load = os.getloadavg()[0]
    print(f"the results screen ({size} examples x 2) opens in {opened * 1000:.0f} ms"
          f" ({opened_cpu * 1000:.0f} ms of CPU; budget {SCREEN_BUDGET * 1000:.0f} ms);"
          f" a bare screen, for scale: {bare * 1000:.0f} ms ({bare_cpu * 1000:.0f} ms of"
          f" CPU); load average {load:.1f}")  # fmt: skip
    print("checked: every answer as its version says, on both sides; every example regressed")
    if not quick:
        check(ratio <= BUDGET, f"agent-tui took {ratio:.2f}x the sdk's time (budget {BUDGET}x)")
        check(opened <= SCREEN_BUDGET, f"the results screen took {opened * 1000:.0f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running server with the test graphs (default: start one)")
    parser.add_argument("--examples", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    add_options(parser, quick=150, full=1800)
    args = parser.parse_args()
    arm(args)
    if args.quick:
        args.examples, args.rounds = 20, 1
    bench_args = (args.examples, args.concurrency, args.rounds, args.quick)
    if args.url:
        asyncio.run(bench(args.url, *bench_args))
        return 0
    from agent_tui.local import EmbeddedAgentServer

    with tempfile.TemporaryDirectory(prefix="agent-tui-bench-") as folder:
        data = Path(folder)
        with EmbeddedAgentServer(GRAPHS, data_dir=data, log_file=data / "server.log") as server:
            asyncio.run(bench(server.url, *bench_args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
