"""The chat pane under a run stream that never ends: memory over time, then `esc`.

    uv run python benchmarks/chat_flood.py                  # 45 s of flood, inspector hidden
    uv run python benchmarks/chat_flood.py --inspector      # with the inspector shown (f2)
    uv run python benchmarks/chat_flood.py --seconds 120
    uv run python benchmarks/chat_flood.py --quick          # 8 s of flood, a row every 2 s

The real embedded agent server runs the test `chat` graph; the run's stream is replaced,
after 5 real events, by a flood that never ends (`tests/support/stream_faults.py`: a token of one
message, then a custom event, in turn), so the run adds its 1,000 transcript items and
then only the inspector and the garbage collector see the rest. The app is the thread
view as the chat tests build it, with the collector tuned as the app tunes it. Printed
every 5 s: the process's RSS, events received, transcript items, widgets on the screen
and full re-arrangements of the screen (compositor reflows); then how long `esc` takes
to end the run, and what a full collection would still free.

Checked (exit status 1 if not): the flood keeps arriving (more events at every row), the
transcript keeps to its cap (`MAX_RUN_ITEMS` items for the run, plus the question), and `esc`
cancels the run and closes its stream. Every wait has a deadline.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the tests' helpers: the `tests` package

from textual import events  # noqa: E402
from textual._compositor import Compositor  # noqa: E402

from agent_tui.chat.transcript_model import MAX_RUN_ITEMS  # noqa: E402
from agent_tui.client import AgentServerClient  # noqa: E402
from agent_tui.local import EmbeddedAgentServer  # noqa: E402
from agent_tui.tui.gc_tuning import tune_for_streaming  # noqa: E402
from benchkit import add_options, arm, check, until  # noqa: E402
from tests.support.chat import (  # noqa: E402
    SIZE,
    chat_app,
    chat_assistant,
    chat_thread,
    ended,
    pane_of,
)
from tests.support.stream_faults import Fault, FaultyStreams  # noqa: E402

GRAPHS = ROOT / "tests" / "graphs" / "langgraph.json"
QUICK_SECONDS = 8.0
QUICK_EVERY = 2.0
STEP_TIMEOUT = 60.0  # seconds for the flood to begin, and for esc to end the run
reflows = 0


def count_reflows() -> None:
    original = Compositor.reflow

    def counting(self: Compositor, *args: Any, **kwargs: Any) -> Any:
        global reflows
        reflows += 1
        return original(self, *args, **kwargs)

    Compositor.reflow = counting  # type: ignore[method-assign]


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    return 0.0


async def bench(url: str, seconds: float, every: float, inspector: bool) -> None:
    async with AgentServerClient(url) as client:
        slow = await chat_assistant(client, token_delay_ms=20)  # the real run goes on
        thread = await chat_thread(client, slow)
    faults = FaultyStreams()
    faults.arm(Fault("flood", after_events=5))
    async with AgentServerClient(url, http_transport=faults) as faulty:
        app, _ = chat_app(faulty, thread.thread_id, slow)
        async with app.run_test(size=SIZE):
            pane = pane_of(app)
            tune_for_streaming()
            if inspector:
                pane.action_toggle_inspector()
            # Not Pilot's press: it waits for an idle app, which a flood never leaves.
            pane.send("count to 100000")
            await until(lambda: faults.streams, "the run's stream", STEP_TIMEOUT, 0.05)
            stream = faults.streams[0]
            await until(stream.faulty.is_set, "the flood to begin", STEP_TIMEOUT, 0.05)
            print("     s   RSS MB     events  items  widgets  reflows")
            started = last = time.monotonic()
            seen = [stream.made_up]
            while (now := time.monotonic()) - started < seconds:
                await asyncio.sleep(min(0.5, every / 4))
                if now - last >= every:
                    last = now
                    seen.append(stream.made_up)
                    items = len(pane.model.items)
                    print(
                        f"{now - started:6.0f} {rss_mb():8.1f} {stream.made_up:10,}"
                        f" {items:6} {len(app.screen.query('*')):8}"
                        f" {reflows:8}",
                        flush=True,
                    )
                    check(
                        seen[-1] > seen[-2],
                        f"the flood stopped: {seen[-1]:,} events, as {every:g} s before",
                    )
                    check(
                        items <= MAX_RUN_ITEMS + 2,
                        f"{items} transcript items: over the cap of {MAX_RUN_ITEMS} for the run",
                    )
            check(len(seen) > 1, f"no row in {seconds:g} s")
            pressed = time.monotonic()
            app.post_message(events.Key("escape", None))
            await until(lambda: ended(pane), "esc to end the run", STEP_TIMEOUT, 0.05)
            print(f"esc ended the run in {time.monotonic() - pressed:.2f} s: {pane.run_state}")
            check(pane.run_state == "cancelled", f"esc left the run {pane.run_state!r}")
            await until(stream.closed.is_set, "the flooded stream to close", STEP_TIMEOUT, 0.05)
            print(f"a full collection now frees {gc.collect():,} objects")
    print("checked: the flood kept coming, the transcript kept its cap, esc cancelled the run")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=45)
    parser.add_argument("--every", type=float, default=5, help="seconds between rows")
    parser.add_argument("--inspector", action="store_true", help="show the inspector (f2)")
    add_options(parser, quick=120, full=345)
    args = parser.parse_args()
    if args.quick:
        args.seconds, args.every = QUICK_SECONDS, QUICK_EVERY
    arm(args, full=args.seconds + 300)
    count_reflows()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        with EmbeddedAgentServer(GRAPHS, data_dir=data, log_file=data / "server.log") as server:
            asyncio.run(bench(server.url, args.seconds, args.every, args.inspector))


if __name__ == "__main__":
    main()
