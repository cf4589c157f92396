"""What tracing to agent-tui's collector costs a run: the same run of many model calls on a
traced and an untraced local server, side by side.

    uv run python benchmarks/traced_run.py [--calls 200] [--rounds 5] [--token-ms 5]
    uv run python benchmarks/traced_run.py --quick   # 40 calls, 2 rounds, checked

Two embedded servers of `benchmarks/graphs` run at once, as the app starts them: one with
the environment agent-tui gives its servers (`LANGSMITH_TRACING`, the collector's URL and
key; the collector runs in this process, as it does in the app's), one without. Each run
of `many_calls` calls a real `ChatOpenAI` (streaming, usage on) ``--calls`` times in a row
against the tests' OpenAI stand-in, which streams each answer at ``--token-ms`` a chunk
(20 ms, the demo model's pace: a call of about 100 ms, faster than any real model, whose
slower calls make tracing's share smaller still).
The servers take turns, whose run goes first alternating.

It prints each round's wall times (``runs/wait``) and the traced / untraced ratio (the
median of the rounds' ratios). The budget (issue #34): a run with 200 model calls traced
costs at most 5% more wall time than untraced. What tracing costs is the `langsmith` SDK's
work inside the server, 2-4 ms a model call (the collector, in another process, stores a
call in under 1 ms; offering zstd or not makes no difference): 5% of a 100 ms call.

Checked (exit status 1 if not): every run made all its calls; every call of every traced
run is in the trace store with its model and tokens; without ``--quick`` also the budget.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

from benchkit import add_options, arm, check

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the tests' OpenAI stand-in: the `tests` package

from agent_tui.local import EmbeddedAgentServer  # noqa: E402
from agent_tui.local.trace_collector import TraceCollector  # noqa: E402
from agent_tui.traces.calls import list_calls  # noqa: E402
from agent_tui.traces.query import list_traces  # noqa: E402
from tests.support.openai_standin import OpenAIStandIn  # noqa: E402

CONFIG = Path(__file__).resolve().parent / "graphs" / "langgraph.json"
BUDGET = 1.05


def one_run(url: str, calls: int) -> tuple[float, str, str]:
    """Seconds of one `many_calls` run on a new thread; its thread and run ids."""
    with httpx.Client(base_url=url, timeout=600) as http:
        thread_id = http.post("/threads", json={}).json()["thread_id"]
        started = time.perf_counter()
        answer = http.post(
            f"/threads/{thread_id}/runs/wait",
            json={"assistant_id": "many_calls", "input": {}, "context": {"calls": calls}},
        )
        elapsed = time.perf_counter() - started
    answer.raise_for_status()
    check(answer.json().get("answers") == calls, f"a run made {answer.json()} of {calls} calls")
    runs = httpx.get(f"{url}/threads/{thread_id}/runs").json()
    return elapsed, thread_id, runs[0]["run_id"]


def traced_calls(collector: TraceCollector, run_id: str, calls: int) -> None:
    """Wait until the run's trace has ended with every call, then check each call."""
    deadline = time.monotonic() + 60
    while True:
        found = list_traces(collector.store, run_id=run_id)
        if found and found[0].status == "success" and found[0].model_calls == calls:
            break
        check(time.monotonic() < deadline, f"the trace of {run_id} never had its {calls} calls")
        time.sleep(0.05)
    listed = list_calls(collector.store, run_id=run_id)
    check(len(listed) == calls, f"{len(listed)} calls listed of {calls}")
    check(
        all(c.model == "gpt-standin-mini" and c.input_tokens for c in listed),
        "a traced call without its model or tokens",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--token-ms", type=float, default=20.0)
    parser.add_argument(
        "--no-compression",
        dest="compression",
        action="store_false",
        help="the collector offers no zstd (the SDK sends plain multipart)",
    )
    add_options(parser, quick=180, full=3600)
    args = parser.parse_args()
    arm(args)
    if args.quick:
        args.calls, args.rounds = 40, 2
    standin = OpenAIStandIn(token_delay=args.token_ms / 1000)
    standin.start()
    model_env = {"OPENAI_BASE_URL": standin.url, "OPENAI_API_KEY": "sk-standin-0123456789"}
    print(
        f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; {args.calls} model calls a "
        f"run, {args.token_ms:g} ms a streamed chunk, {args.rounds} rounds"
    )
    with tempfile.TemporaryDirectory(prefix="traced-run-") as temporary:
        folder = Path(temporary)
        with TraceCollector(folder / "traces", compression=args.compression) as collector:
            traced = EmbeddedAgentServer(
                CONFIG,
                data_dir=folder / "traced",
                log_file=folder / "traced.log",
                env={**collector.tracing_environment(), **model_env},
            )
            untraced = EmbeddedAgentServer(
                CONFIG,
                data_dir=folder / "untraced",
                log_file=folder / "untraced.log",
                env=model_env,
            )
            with traced, untraced:
                one_run(traced.url, 2)  # warm-up: imports, the SDK's first /info
                one_run(untraced.url, 2)
                ratios = []
                print(f"{'round':>5} {'traced s':>9} {'untraced s':>11} {'ratio':>6}")
                for number in range(args.rounds):
                    order = [traced, untraced] if number % 2 == 0 else [untraced, traced]
                    times: dict[str, float] = {}
                    for server in order:
                        elapsed, _, run_id = one_run(server.url, args.calls)
                        times["traced" if server is traced else "untraced"] = elapsed
                        if server is traced:
                            traced_calls(collector, run_id, args.calls)
                    ratio = times["traced"] / times["untraced"]
                    ratios.append(ratio)
                    print(
                        f"{number + 1:>5} {times['traced']:>9.2f} {times['untraced']:>11.2f} "
                        f"{ratio:>6.3f}"
                    )
    standin.stop()
    median = statistics.median(ratios)
    print(f"\ntraced / untraced: {median:.3f} (median of {len(ratios)} rounds; budget {BUDGET})")
    if not args.quick:
        check(median <= BUDGET, f"tracing cost {median:.3f}x, over the {BUDGET}x budget")
    print("checked: every run made its calls; every traced call stored with model and tokens")


if __name__ == "__main__":
    main()
