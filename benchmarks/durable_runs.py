"""Run throughput of the embedded server with durable writes, against the runtime's own
saving, side by side.

    uv run python benchmarks/durable_runs.py [--rounds 5] [--threads 300]
    uv run python benchmarks/durable_runs.py --quick   # 2 rounds on 30 threads, checked

Two servers of the bundled demo graphs run at once, each in its own data folder, started
as the app starts them (``python -m agent_tui.server.main``):

- **durable**: what agent-tui runs, langgraph's SQLite checkpointer and store, and the
  runtime's records saved before each changing request is answered (`agent_tui.server`);
- **volatile**: ``--volatile``, the runtime as langgraph-api ships it (stores pickled every
  10 s from a thread, checkpoints kept in memory until a clean stop).

The two take turns batch by batch (whose batch goes first alternates), so a machine busy
with something else for a while slows both alike.

Both are first filled with ``--threads`` threads of one ``counter`` run each, so the stores
written at each commit are not empty. Then, per round, each of a new thread
(``POST /threads``) and a run on it, one at a time and eight at a time: ``--chat-runs``
chat turns streamed as the app's chat streams them (``runs/stream``: a tool call, a store
item, the reply at the demo model's 20 ms a token) and ``--runs`` ``counter`` runs
answered by ``runs/wait`` (two nodes, no model: milliseconds, the worst case).

It prints the time a caller waits for a run (the median of its batches), what durable
writes add and the durable / volatile ratio: the median over the pairs of batches, each
pair run one right after the other. Medians of pairs, not of rounds' totals: a server's
full garbage collection (about 0.1 s with a few hundred threads, in both servers alike)
lands in one batch of a few dozen and made a round's total swing by 10%. The budget: a
streamed chat turn (what a user waits for) within 5% of volatile, a ``counter`` run that
does nearly nothing within 1.5x.

Checked (exit status 1 if not): every run ends with its graph's expected state, on both
servers, and every thread is counted; without ``--quick`` also the budget.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from benchkit import add_options, arm, check

CONCURRENCY = 8
BUDGET = {"chat": 1.05, "counter": 1.50}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_server(
    data: Path, *, volatile: bool, name: str = ""
) -> tuple[subprocess.Popen[bytes], str]:
    from agent_tui.local import DEMO_CONFIG
    from agent_tui.local.server_environment import server_environment

    data.mkdir(parents=True)
    port = free_port()
    command = [
        sys.executable,
        "-P",
        "-m",
        "agent_tui.server.main",
        "--config",
        str(DEMO_CONFIG),
        "--port",
        str(port),
        *(["--volatile"] if volatile else []),
    ]
    process = subprocess.Popen(
        command,
        cwd=data,
        env=server_environment(os.environ),
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return process, f"http://127.0.0.1:{port}"


GRAPHS = ("chat", "counter")
"""``chat``: the demo's "weather in Paris" turn as the app's chat runs it (a tool call, a
store item, the reply streamed at the demo model's 20 ms a token: a run as a user sees
one); ``counter``: two nodes and no model, answered by ``runs/wait`` (milliseconds: the
worst case, nearly all of it overhead)."""


async def one_run(client: httpx.AsyncClient, graph: str, n: int) -> None:
    thread = (await client.post("/threads", json={})).json()["thread_id"]
    if graph == "counter":
        body = {"assistant_id": "counter", "input": {"by": 1 + n % 7}}
        result = await client.post(f"/threads/{thread}/runs/wait", json=body)
        check(result.status_code == 200, f"a counter run answered {result.status_code}")
        check(result.json().get("count") == 1 + n % 7, f"a counter run ended {result.json()}")
        return
    # As the app's chat does it: the answer streamed, token by token.
    body = {
        "assistant_id": "chat",
        "input": {"messages": [{"role": "user", "content": CITY[n % 3]}]},
        "stream_mode": ["messages-tuple", "values"],
    }
    last_values = ""
    async with client.stream("POST", f"/threads/{thread}/runs/stream", json=body) as stream:
        check(stream.status_code == 200, f"a chat run answered {stream.status_code}")
        event = ""
        async for line in stream.aiter_lines():
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:") and event == "values":
                last_values = line
    city = CITY[n % 3].split()[-1]
    check(city in last_values, f"a chat run ended without {city}: {last_values[:200]}")


CITY = ("weather in Paris", "weather in Tokyo", "weather in Lima")


async def timed(client: httpx.AsyncClient, graph: str, runs: int, concurrency: int) -> float:
    """Seconds per run (as its caller waits for it), ``runs`` runs ``concurrency`` at a time."""
    began = time.perf_counter()
    for start in range(0, runs, concurrency):
        batch = range(start, min(runs, start + concurrency))
        await asyncio.gather(*(one_run(client, graph, n) for n in batch))
    return (time.perf_counter() - began) / runs * concurrency


async def timed_side_by_side(
    clients: dict[str, httpx.AsyncClient], graph: str, runs: int, concurrency: int, turn: int
) -> dict[str, list[float]]:
    """Per batch of ``concurrency`` runs, the seconds a run's caller waited, on each
    server: their batches taken in turn (whose goes first alternates), so the two of a
    pair ran under the same conditions of a machine busy with something else."""
    spent: dict[str, list[float]] = {name: [] for name in clients}
    for start in range(0, runs, concurrency):
        batch = range(start, min(runs, start + concurrency))
        names = list(clients)
        if (turn + start // concurrency) % 2:
            names.reverse()
        for name in names:
            began = time.perf_counter()
            await asyncio.gather(*(one_run(clients[name], graph, n) for n in batch))
            spent[name].append(time.perf_counter() - began)
    return spent


Results = dict[str, dict[tuple[str, int], list[float]]]
"""Per server and mode (graph, runs at a time): each batch's seconds, in the order run."""


async def measure(urls: dict[str, str], args: argparse.Namespace) -> Results:
    clients = {
        name: httpx.AsyncClient(base_url=url, trust_env=False, timeout=120)
        for name, url in urls.items()
    }
    modes = [(graph, concurrency) for graph in GRAPHS for concurrency in (1, CONCURRENCY)]
    try:
        for name, client in clients.items():
            began = time.perf_counter()
            while not await ready(client):
                check(time.perf_counter() - began < 90, f"the {name} server did not start")
                await asyncio.sleep(0.1)
            await timed(client, "counter", args.threads, CONCURRENCY)  # the stores' contents
        results: Results = {name: {mode: [] for mode in modes} for name in clients}
        for round_ in range(args.rounds):
            for graph, concurrency in modes:
                runs = args.runs if graph == "counter" else args.chat_runs
                times = await timed_side_by_side(clients, graph, runs, concurrency, round_)
                for name, batches in times.items():
                    results[name][graph, concurrency].extend(batches)
        for name, client in clients.items():
            counted = (await client.post("/threads/count", json={})).json()
            expected = args.threads + 2 * args.rounds * (args.runs + args.chat_runs)
            check(counted == expected, f"{name}: {counted} threads, not {expected}")
        return results
    finally:
        for client in clients.values():
            await client.aclose()


async def ready(client: httpx.AsyncClient) -> bool:
    try:
        return (await client.get("/ok")).status_code == 200
    except httpx.HTTPError:
        return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=40, help="counter runs per round and mode")
    parser.add_argument("--chat-runs", type=int, default=48, help="chat runs per round and mode")
    parser.add_argument("--threads", type=int, default=300, help="threads made beforehand")
    add_options(parser, quick=180, full=3600)
    args = parser.parse_args()
    arm(args)
    if args.quick:
        args.rounds, args.runs, args.chat_runs, args.threads = 2, 16, 8, 30
    home = Path(tempfile.mkdtemp(prefix="agent-tui-bench-"))
    servers = {
        name: start_server(
            home / name,
            volatile=name == "volatile",
            name=name,
        )
        for name in ("durable", "volatile")
    }
    try:
        results = asyncio.run(measure({n: url for n, (_, url) in servers.items()}, args))
    finally:
        for process, _ in servers.values():
            process.terminate()
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(home, ignore_errors=True)

    print(
        f"Python {sys.version.split()[0]}, {args.threads} threads beforehand, {args.rounds} "
        f"rounds of {args.chat_runs} chat and {args.runs} counter runs per mode, side by side"
    )
    print(f"{'ms per run':24}{'durable':>10}{'volatile':>10}{'added':>10}{'ratio':>8}{'pairs':>7}")
    ratios = {}
    for mode in results["durable"]:
        durable, volatile = results["durable"][mode], results["volatile"][mode]
        pairs = list(zip(durable, volatile, strict=True))
        ratios[mode] = statistics.median(d / v for d, v in pairs)
        added = statistics.median(d - v for d, v in pairs)
        graph, concurrency = mode
        print(
            f"{graph + f', {concurrency} at a time':24}{statistics.median(durable) * 1000:>10.1f}"
            f"{statistics.median(volatile) * 1000:>10.1f}{added * 1000:>+10.1f}"
            f"{ratios[mode]:>7.2f}x{len(pairs):>7}"
        )
    print(
        f"(a run's wait, median of its batches; ratio: durable / volatile, median of the "
        f"pairs of batches run one after the other; budget chat {BUDGET['chat']:.2f}x, "
        f"counter {BUDGET['counter']:.2f}x)"
    )
    if not args.quick:
        for (graph, concurrency), ratio in ratios.items():
            check(
                ratio <= BUDGET[graph],
                f"durable writes slow a {graph} run {concurrency} at a time {ratio:.2f}x "
                f"(budget {BUDGET[graph]:.2f}x)",
            )
    print("checked: every run succeeded with the counter's state, every thread counted")
    return 0


if __name__ == "__main__":
    sys.exit(main())
