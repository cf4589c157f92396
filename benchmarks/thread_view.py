"""The thread view on a 5,000-checkpoint thread: time to open, to scroll, to move the cursor.

    uv run python benchmarks/thread_view.py                      # embedded server, 5,000 checkpoints
    uv run python benchmarks/thread_view.py --checkpoints 1000   # quick look

UI level: `ThreadViewScreen` in a headless app (Pilot), over `AgentServerClient`. The thread is
built with supersteps on the `loop` test graph, `growing` payload (checkpoint k holds k list items,
as a chat holds its messages), so the state drawn for each checkpoint gets bigger down the list.

- open: from pushing the screen to the newest row and its state on screen (one history page);
- end, page by page: `end` pressed until every page is in (what scrolling to the very first
  checkpoint costs, rows added in chunks while the keys stay live);
- 200 x down: the cursor held down over 200 rows, then the state of the row it rests on drawn.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

from textual import events
from textual.app import App

from agent_tui.client import AgentServerClient
from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen
from history_paging import GRAPHS, supersteps


class Harness(App[None]):
    def __init__(self, screen: ThreadViewScreen) -> None:
        super().__init__()
        self.view = screen

    def on_mount(self) -> None:
        self.push_screen(self.view)


async def settle(app: App[None], pilot: object) -> None:
    await app.workers.wait_for_complete()
    await pilot.pause()  # type: ignore[attr-defined]


async def bench(url: str, checkpoints: int) -> None:
    async with AgentServerClient(url) as client:
        info = await client.info()
        print(f"server: langgraph-api {info.version}, {url}")
        started = time.perf_counter()
        thread = await client.threads.create(
            metadata={"graph_id": "loop", "benchmark": "thread_view"},
            supersteps=supersteps(checkpoints - 2, growing=True),
        )
        print(
            f"thread of {checkpoints:,} checkpoints built in {time.perf_counter() - started:.2f} s"
        )
        screen = ThreadViewScreen(client, thread.thread_id, status_interval=0)
        app = Harness(screen)
        async with app.run_test(size=(150, 45)) as pilot:
            started = time.perf_counter()
            while screen.checkpoint_view.state is None:
                await pilot.pause(0.005)
            opened = time.perf_counter() - started
            print(f"  open (first page, newest state shown)   {opened * 1e3:8.0f} ms")

            started = time.perf_counter()
            presses = 0
            while not screen.history.exhausted or screen.pane.loading_rows:
                await pilot.press("end")
                presses += 1
                await settle(app, pilot)
            rows = screen.pane.row_count
            scrolled = time.perf_counter() - started
            print(
                f"  end, page by page, to all {rows:,} rows    {scrolled * 1e3:8.0f} ms"
                f"  ({presses} presses)"
            )

            await pilot.press("home")
            await settle(app, pilot)
            started = time.perf_counter()
            # As a held key does: 200 key events queued at once (Pilot's `press` waits
            # for the screen to be idle after each key, ~60 ms even on a bare DataTable).
            for _ in range(200):
                app.post_message(events.Key("down", None))
            target = screen.history.rows[200]
            while screen.checkpoint_view.checkpoint_id != target.checkpoint_id:
                await pilot.pause(0.005)
            moved = time.perf_counter() - started
            print(f"  200 x down, then the state drawn        {moved * 1e3:8.0f} ms")
        await client.threads.delete(thread.thread_id)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running server with the test graphs (default: start one)")
    parser.add_argument("--checkpoints", type=int, default=5000)
    args = parser.parse_args()
    if args.url:
        asyncio.run(bench(args.url, args.checkpoints))
        return 0
    from agent_tui.local import EmbeddedAgentServer

    with tempfile.TemporaryDirectory(prefix="agent-tui-bench-") as folder:
        data = Path(folder)
        with EmbeddedAgentServer(GRAPHS, data_dir=data, log_file=data / "server.log") as server:
            asyncio.run(bench(server.url, args.checkpoints))
    return 0


if __name__ == "__main__":
    sys.exit(main())
