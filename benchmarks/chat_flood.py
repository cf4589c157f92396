"""The chat pane under a run stream that never ends: memory over time, then `esc`.

    uv run python benchmarks/chat_flood.py                  # 45 s of flood, inspector hidden
    uv run python benchmarks/chat_flood.py --inspector      # with the inspector shown (f2)
    uv run python benchmarks/chat_flood.py --seconds 120

The real embedded agent server runs the test `chat` graph; the run's stream is replaced,
after 5 real events, by a flood that never ends (`tests/support/stream_faults.py`: a token of one
message, then a custom event, in turn), so the run adds its 1,000 transcript items and
then only the inspector and the garbage collector see the rest. The app is the thread
view as the chat tests build it, with the collector tuned as the app tunes it. Printed
every 5 s: the process's RSS, events received, transcript items, widgets on the screen
and full re-arrangements of the screen (compositor reflows); then how long `esc` takes
to end the run, and what a full collection would still free.
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

from agent_tui.client import AgentServerClient  # noqa: E402
from agent_tui.local import EmbeddedAgentServer  # noqa: E402
from agent_tui.tui.gc_tuning import tune_for_streaming  # noqa: E402
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


async def bench(url: str, seconds: float, inspector: bool) -> None:
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
            while not faults.streams:  # noqa: ASYNC110 (polls the transport)
                await asyncio.sleep(0.05)
            print("     s   RSS MB     events  items  widgets  reflows")
            started = last = time.monotonic()
            while (now := time.monotonic()) - started < seconds:
                await asyncio.sleep(0.5)
                if now - last >= 5:
                    last = now
                    print(
                        f"{now - started:6.0f} {rss_mb():8.1f} {faults.streams[0].made_up:10,}"
                        f" {len(pane.model.items):6} {len(app.screen.query('*')):8}"
                        f" {reflows:8}",
                        flush=True,
                    )
            pressed = time.monotonic()
            app.post_message(events.Key("escape", None))
            while not ended(pane):  # noqa: ASYNC110 (polls the pane)
                await asyncio.sleep(0.05)
            print(f"esc ended the run in {time.monotonic() - pressed:.2f} s: {pane.run_state}")
            print(f"a full collection now frees {gc.collect():,} objects")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=45)
    parser.add_argument("--inspector", action="store_true", help="show the inspector (f2)")
    args = parser.parse_args()
    count_reflows()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        with EmbeddedAgentServer(GRAPHS, data_dir=data, log_file=data / "server.log") as server:
            asyncio.run(bench(server.url, args.seconds, args.inspector))


if __name__ == "__main__":
    main()
