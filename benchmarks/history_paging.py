"""History paging: time to open a 5,000-checkpoint thread and to page through all of it.

    uv run python benchmarks/history_paging.py                  # embedded server, 5,000 checkpoints
    uv run python benchmarks/history_paging.py --checkpoints 1000 --reps 3   # a shorter look
    uv run python benchmarks/history_paging.py --url http://127.0.0.1:2024  # a running server
    uv run python benchmarks/history_paging.py --quick      # 300 checkpoints, 2 reps, checked

Client level (no UI): `ThreadHistory` from `agent_tui.threads.history` over `AgentServerClient`. The thread
is built once with supersteps on the `loop` test graph (tests/graphs/), each tick written as the
`tick` node, so the history reads as if the graph had run. Two payloads: `small` (each checkpoint
holds a few numbers) and `growing` (each tick also appends to a list, as a chat appends messages,
so checkpoint `k` holds `k` items — the total the server sends grows with the square of the length).

Figures (best and median of --reps):

- first page: one `load_more()` on a fresh `ThreadHistory` — what opening the thread costs;
- all pages: `load_all()` — scrolling to the very first checkpoint;
- one request: `get_history(limit=1000)`, the most the server gives at once (no rows built), what a
  viewer without paging would ask for;
- rows/s: `HistoryRow`s built per second of `load_all()` (writers, keys and interrupts included).

Checked (exit status 1 if not): a first page holds as many rows as asked; all pages hold every
checkpoint once, newest first; one request returns as many states as asked.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from agent_tui.client import AgentServerClient
from agent_tui.threads.history import MAX_PAGE_SIZE, ThreadHistory
from benchkit import add_options, arm, check

QUICK_CHECKPOINTS = 300
QUICK_REPS = 2
GRAPHS = Path(__file__).resolve().parent.parent / "tests" / "graphs" / "langgraph.json"


def supersteps(ticks: int, growing: bool) -> list[dict[str, Any]]:
    def step(values: dict[str, Any], node: str) -> dict[str, Any]:
        return {"updates": [{"values": values, "as_node": node}]}

    steps = [step({"steps": ticks}, "__input__"), step({"steps": ticks}, "__start__")]
    for i in range(1, ticks + 1):
        steps.append(step({"i": i, "seen": [i]} if growing else {"i": i}, "tick"))
    return steps


async def timed(reps: int, work: Callable[[], Awaitable[Any]]) -> tuple[float, float]:
    times = []
    for _ in range(reps):
        started = time.perf_counter()
        await work()
        times.append(time.perf_counter() - started)
    return min(times), statistics.median(times)


async def measure(client: AgentServerClient, tid: str, checkpoints: int, reps: int) -> None:
    print(f"  {'what':<28}{'best ms':>10}{'med ms':>10}{'requests':>10}{'rows/s':>10}")

    for size in (50, 100, 500):

        async def first_page(size: int = size) -> None:
            rows = await ThreadHistory(client, tid, page_size=size).load_more()
            expected = min(size, checkpoints)
            check(len(rows) == expected, f"first page of {size}: {len(rows)} rows, not {expected}")

        best, median = await timed(reps, first_page)
        print(f"  {f'first page of {size}':<28}{best * 1e3:>10.1f}{median * 1e3:>10.1f}{1:>10}")

    for size in (100, 500, 1000):
        rows = 0

        async def all_pages(size: int = size) -> None:
            nonlocal rows
            history = ThreadHistory(client, tid, page_size=size)
            loaded = await history.load_all()
            rows = len(loaded)
            ids = {row.checkpoint_id for row in loaded}
            steps = [row.step for row in loaded]
            check(
                rows == checkpoints and len(ids) == rows,
                f"all pages of {size}: {rows} rows ({len(ids)} different), not {checkpoints}",
            )
            check(
                steps == sorted(steps, key=lambda step: -1 if step is None else step, reverse=True),
                f"all pages of {size}: the rows are not newest first",
            )

        best, median = await timed(reps, all_pages)
        requests = checkpoints // size + 1
        print(
            f"  {f'all pages of {size}':<28}{best * 1e3:>10.1f}{median * 1e3:>10.1f}"
            f"{requests:>10}{rows / best:>10,.0f}"
        )

    # What a viewer without paging asks for: as much as the server gives at once (its
    # maximum `limit` is 1000), rows not built.
    limit = min(checkpoints, MAX_PAGE_SIZE)

    async def one_request() -> None:
        states = await client.threads.get_history(tid, limit=limit)
        check(len(states) == limit, f"one request of {limit}: {len(states)} states")

    best, median = await timed(reps, one_request)
    print(
        f"  {f'one request of {limit}, raw':<28}{best * 1e3:>10.1f}{median * 1e3:>10.1f}{1:>10}\n"
    )


async def bench(url: str, checkpoints: int, reps: int, payloads: list[str]) -> None:
    async with AgentServerClient(url) as client:
        info = await client.info()
        print(f"server: langgraph-api {info.version}, {url}")
        print(f"{checkpoints:,} checkpoints per thread; best/median of {reps}\n")
        for payload in payloads:
            ticks = checkpoints - 2
            started = time.perf_counter()
            thread = await client.threads.create(
                metadata={"graph_id": "loop", "benchmark": "history_paging"},
                supersteps=supersteps(ticks, payload == "growing"),
            )
            built = time.perf_counter() - started
            print(
                f"payload {payload}: thread built with {checkpoints:,} supersteps in {built:.2f} s"
            )
            await measure(client, thread.thread_id, checkpoints, reps)
            await client.threads.delete(thread.thread_id)
    print("checked: page sizes, every checkpoint once and newest first, one request's length")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running server with the test graphs (default: start one)")
    parser.add_argument("--checkpoints", type=int, default=5000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument(
        "--payload", choices=["small", "growing", "both"], default="both", help="checkpoint size"
    )
    add_options(parser, quick=120, full=3600)
    args = parser.parse_args()
    arm(args)
    if args.quick:
        args.checkpoints, args.reps = QUICK_CHECKPOINTS, QUICK_REPS
    payloads = ["small", "growing"] if args.payload == "both" else [args.payload]
    if args.url:
        asyncio.run(bench(args.url, args.checkpoints, args.reps, payloads))
        return 0
    from agent_tui.local import EmbeddedAgentServer

    with tempfile.TemporaryDirectory(prefix="agent-tui-bench-") as folder:
        data = Path(folder)
        with EmbeddedAgentServer(GRAPHS, data_dir=data, log_file=data / "server.log") as server:
            asyncio.run(bench(server.url, args.checkpoints, args.reps, payloads))
    return 0


if __name__ == "__main__":
    sys.exit(main())
