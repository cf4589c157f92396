"""The chat's keys while a run streams, traced or not and with the live calls or not: what
the trace collector and the `events` stream mode cost the user.

    uv run python benchmarks/chat_calls.py                # 20,000 tokens / 200 calls, 3 rounds
    uv run python benchmarks/chat_calls.py --rounds 5 --tokens 5000 --calls 100
    uv run python benchmarks/chat_calls.py --quick        # 1,000 tokens / 15 calls, 1 round

Two embedded servers of `benchmarks/graphs` run at once: one traced as agent-tui traces
the local servers it starts (`LANGSMITH_*` pointing at a `CollectorProcess`, the
collector in a child process, as the app's is), one with tracing off (as with
`AGENT_TUI_TRACES=0`). The thread view's `ChatPane` (the collector tuned as the app
tunes it) sends one run of each graph to each server, with the live calls (`f5`: the
`events` mode, a record per token) off and on:

- `tokens`: a fake chat model streaming ``--tokens`` tokens as fast as it can (one call);
- `many_calls`: a real `ChatOpenAI` called ``--calls`` times against the tests' OpenAI
  stand-in (each call's post and patch reach the collector while the chat streams).

A thread presses f12 every 25 ms (as a terminal's input thread posts keys) and the time
until its binding runs is recorded: median, 99th percentile and max per run, over the
rounds (which alternate the servers' order). Also the run's wall time, the call lines
shown live, and whether the totals line came (the traced runs' from the store).

Checked (exit status 1 if not): every key answered; every run done; with the live calls
on, a line per call (many_calls: one per model call); every traced run's totals line
says its model calls.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the tests' OpenAI stand-in: the `tests` package
# Before agent-tui reads a folder: the collector's store and the app's reads go here.
_HOME = tempfile.mkdtemp(prefix="chat-calls-")
os.environ["AGENT_TUI_HOME"] = _HOME

from textual.pilot import Pilot  # noqa: E402

from agent_tui.chat.assistant import ChatAssistant  # noqa: E402
from agent_tui.chat.items import TERMINAL_RUN_STATES, NoticeItem  # noqa: E402
from agent_tui.client import AgentServerClient  # noqa: E402
from agent_tui.local import EmbeddedAgentServer  # noqa: E402
from agent_tui.local.trace_collector import default_folder  # noqa: E402
from agent_tui.local.trace_collector.process import CollectorProcess  # noqa: E402
from agent_tui.traces.query import open_for_reading  # noqa: E402
from agent_tui.traces.store import DB_FILE  # noqa: E402
from agent_tui.tui.chat.pane import ChatPane  # noqa: E402
from agent_tui.tui.chat.stream_modes import DEFAULT_MODES, remember_modes  # noqa: E402
from benchkit import add_options, arm, check, until  # noqa: E402
from chat_render import ChatBench, Source, press_keys, set_gc  # noqa: E402
from tests.support.openai_standin import OpenAIStandIn  # noqa: E402

CONFIG = Path(__file__).resolve().parent / "graphs" / "langgraph.json"
RUN_TIMEOUT = 600.0
TOTALS_TIMEOUT = 30.0


@dataclass
class Row:
    graph: str
    traced: bool
    events: bool
    seconds: list[float] = field(default_factory=list)
    key_ms: list[float] = field(default_factory=list)
    p99s: list[float] = field(default_factory=list)
    lines: int = 0
    totals: str = ""

    def text(self) -> str:
        keys = sorted(self.key_ms)
        p99 = keys[min(len(keys) - 1, round(0.99 * (len(keys) - 1)))] if keys else 0.0
        median = statistics.median(keys) if keys else 0.0
        traced = "traced" if self.traced else "off"
        events = "on" if self.events else "off"
        return (
            f"  {self.graph:<11}{traced:<8}{events:<7}{statistics.median(self.seconds):8.2f}"
            f"{median:9.1f}{p99:9.1f}{max(keys, default=0):9.1f}{len(keys):7}{self.lines:7}"
            f"  {self.totals}"
        )


class CallsBench(ChatBench):
    """`ChatBench`'s pane stack, running any graph of `benchmarks/graphs`."""

    def __init__(self, client: AgentServerClient, thread_id: str, graph: str, events: bool) -> None:
        super().__init__(client, Source(0), thread_id, "pane")
        self.graph = graph
        self.events = events

    async def start(self, pilot: Pilot[None]) -> None:
        pane = self.query_one(ChatPane)
        await asyncio.wait_for(self.workers.wait_for_complete(), RUN_TIMEOUT)
        await pilot.pause()
        assert self.assistant_id is not None
        remember_modes(self, (*DEFAULT_MODES, "events") if self.events else DEFAULT_MODES)
        pane.use_assistant(ChatAssistant(self.assistant_id, self.graph, self.graph))
        self.started = time.perf_counter()
        pane.send("flood" if self.graph == "tokens" else "{}")

    def check_finished(self) -> None:
        pane = self.query_one(ChatPane)
        ended = pane.run_state in TERMINAL_RUN_STATES and pane.run_state != "idle"
        if self.finished_at is None and not pane.machine.active and ended:
            self.finished_at = time.perf_counter()


def stored_runs(folder: Path) -> int:
    """The runs in the collector's store, read from this process as the app reads it."""
    store = open_for_reading(folder / DB_FILE)
    if store is None:
        return 0
    try:
        with store.reading() as db:
            return int(db.execute("SELECT COUNT(*) FROM runs").fetchone()[0])
    finally:
        store.close()


def notices(pane: ChatPane) -> list[str]:
    return [item.text for item in pane.model.items if isinstance(item, NoticeItem)]


async def one_run(
    client: AgentServerClient, graph: str, context: dict[str, int], events: bool, row: Row
) -> None:
    set_gc(True)
    thread = await client.threads.create(metadata={"graph_id": graph})
    assistant = await client.assistants.create(graph, context=context)
    app = CallsBench(client, thread.thread_id, graph, events)
    app.assistant_id = assistant.assistant_id
    async with app.run_test(size=(120, 40)) as pilot:
        stop = threading.Event()
        presser = threading.Thread(
            target=press_keys, args=(app, asyncio.get_running_loop(), stop), daemon=True
        )
        await app.start(pilot)
        presser.start()
        try:

            def finished() -> bool:
                app.check_finished()
                return app.finished_at is not None

            await until(finished, f"the {graph} run to end", RUN_TIMEOUT)
        finally:
            stop.set()
            presser.join()
        done = time.perf_counter()
        while app.pressed and time.perf_counter() - done < 10:  # noqa: ASYNC110 (bounded)
            await asyncio.sleep(0.005)
        pane = app.query_one(ChatPane)
        check(pane.run_state == "done", f"{graph}: the run ended {pane.run_state}")
        check(len(app.key_ms) == app.presses, f"{graph}: {app.presses} keys, {len(app.key_ms)}")
        assert app.finished_at is not None
        row.seconds.append(app.finished_at - app.started)
        row.key_ms += app.key_ms
        keys = sorted(app.key_ms)
        row.p99s.append(keys[min(len(keys) - 1, round(0.99 * (len(keys) - 1)))] if keys else 0)
        wants_totals = row.traced or events
        if wants_totals:
            await until(
                lambda: any(t.startswith("run totals:") for t in notices(pane)),
                f"{graph} (traced {row.traced}, events {events}): the totals line",
                TOTALS_TIMEOUT,
            )
        said = notices(pane)
        row.totals = next((t for t in said if t.startswith("run totals:")), "—")
        row.lines = sum(t.startswith(("model call", "tool call")) for t in said)
        if events and graph == "many_calls":
            calls = context["calls"]
            check(row.lines == calls, f"many_calls: {row.lines} call lines of {calls}")
        if wants_totals:
            calls = context.get("calls", 1)
            check(f"{calls} model call" in row.totals, f"{graph}: totals {row.totals!r}")


async def bench(urls: dict[bool, str], tokens: int, calls: int, rounds: int) -> list[Row]:
    graphs = {"tokens": {"tokens": tokens}, "many_calls": {"calls": calls}}
    rows = {
        (graph, traced, events): Row(graph, traced, events)
        for graph in graphs
        for events in (False, True)
        for traced in (False, True)
    }
    clients = {traced: AgentServerClient(url) for traced, url in urls.items()}
    try:
        for traced in (False, True):  # warm up: imports, the SDK's first /info
            await one_run(
                clients[traced], "many_calls", {"calls": 2}, False, Row("", traced, False)
            )
        for number in range(rounds):
            order = (False, True) if number % 2 == 0 else (True, False)
            for graph, context in graphs.items():
                for events in (False, True):
                    for traced in order:
                        row = rows[(graph, traced, events)]
                        await one_run(clients[traced], graph, context, events, row)
            print(f"round {number + 1} of {rounds} done", flush=True)
    finally:
        for client in clients.values():
            await client.aclose()
    return list(rows.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=20_000)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--token-ms", type=float, default=2.0, help="the stand-in's pace")
    add_options(parser, quick=240, full=3600)
    args = parser.parse_args()
    arm(args)
    if args.quick:
        args.tokens, args.calls, args.rounds = 1_000, 15, 1
    print(
        f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f};"
        f" {args.tokens:,} tokens / {args.calls} calls a run, {args.rounds} rounds;"
        " key f12 every 25 ms, times in ms"
    )
    standin = OpenAIStandIn(token_delay=args.token_ms / 1000)
    standin.start()
    model_env = {"OPENAI_BASE_URL": standin.url, "OPENAI_API_KEY": "sk-standin-0123456789"}
    try:
        with tempfile.TemporaryDirectory(prefix="chat-calls-servers-") as temporary:
            folder = Path(temporary)
            with CollectorProcess(default_folder()) as collector:
                traced = EmbeddedAgentServer(
                    CONFIG,
                    data_dir=folder / "traced",
                    log_file=folder / "traced.log",
                    env={**collector.tracing_environment(), **model_env},
                )
                untraced = EmbeddedAgentServer(
                    CONFIG, data_dir=folder / "off", log_file=folder / "off.log", env=model_env
                )
                with traced, untraced:
                    urls = {True: traced.url, False: untraced.url}
                    rows = asyncio.run(bench(urls, args.tokens, args.calls, args.rounds))
            received = stored_runs(default_folder())
    finally:
        standin.stop()
        shutil.rmtree(_HOME, ignore_errors=True)
    print(
        f"\n  {'graph':<11}{'tracing':<8}{'events':<7}{'run s':>8}{'key p50':>9}{'key p99':>9}"
        f"{'key max':>9}{'keys':>7}{'lines':>7}  totals line"
    )
    for row in rows:
        print(row.text())
    print(f"\ncollector (another process): {received} runs stored")
    print("checked: every key answered, every run done, its call lines and totals shown")


if __name__ == "__main__":
    main()
