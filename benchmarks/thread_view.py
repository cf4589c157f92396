"""The thread view on a 5,000-checkpoint thread: time to open, to scroll, to move the cursor.

    uv run python benchmarks/thread_view.py                      # embedded server, 5,000 checkpoints
    uv run python benchmarks/thread_view.py --checkpoints 1000   # a shorter look
    uv run python benchmarks/thread_view.py --quick              # 300 checkpoints, checked (seconds)

UI level: `ThreadViewScreen` in a headless app (Pilot), over `AgentServerClient`. The thread is
built with supersteps on the `loop` test graph, `growing` payload (checkpoint k holds k list items,
as a chat holds its messages), so the state drawn for each checkpoint gets bigger down the list.
The app is the thread view tests' harness (`tests/support/shell.py`: the app shell,
`ShellApp`, over a stand-in home screen), and the view is pushed once it runs.

- open: from pushing the screen to the newest row and its state on screen (one history page);
- end, page by page: `end` pressed until every page is in (what scrolling to the very first
  checkpoint costs, rows added in chunks while the keys stay live);
- 200 x down: the cursor held down over 200 rows, then the state of the row it rests on drawn.

Checked (exit status 1 if not): the newest state shown on opening is the last checkpoint's
(`i` = ticks, a list of as many items); every checkpoint becomes a row, once; the cursor rests
on row 200 and the state drawn is that checkpoint's. Every wait has a deadline.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the tests' harness: the `tests` package

from textual import events  # noqa: E402
from textual.pilot import Pilot  # noqa: E402

from agent_tui.client import AgentServerClient  # noqa: E402
from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen  # noqa: E402
from benchkit import add_options, arm, check, until  # noqa: E402
from history_paging import GRAPHS, supersteps  # noqa: E402
from tests.support.shell import ShellHarness  # noqa: E402
from tests.support.thread_view import SIZE  # noqa: E402

QUICK_CHECKPOINTS = 300
STEP_TIMEOUT = 120.0  # seconds any one step may take, at any size


async def settle(pilot: Pilot[Any]) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def bench(url: str, checkpoints: int) -> None:
    check(checkpoints >= 202, "--checkpoints: at least 202 (the cursor moves over 200 rows)")
    ticks = checkpoints - 2
    async with AgentServerClient(url) as client:
        info = await client.info()
        print(f"server: langgraph-api {info.version}, {url}")
        started = time.perf_counter()
        thread = await client.threads.create(
            metadata={"graph_id": "loop", "benchmark": "thread_view"},
            supersteps=supersteps(ticks, growing=True),
        )
        print(
            f"thread of {checkpoints:,} checkpoints built in {time.perf_counter() - started:.2f} s"
        )
        # The shell with nothing but its stand-in home screen; the view is pushed below.
        app = ShellHarness()
        app.client = client
        screen = ThreadViewScreen(client, thread.thread_id, status_interval=0)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            started = time.perf_counter()
            await app.push_screen(screen)
            await until(
                lambda: screen.is_mounted and screen.checkpoint_view.state is not None,
                "the thread view to show the newest state",
                STEP_TIMEOUT,
            )
            opened = time.perf_counter() - started
            print(f"  open (first page, newest state shown)   {opened * 1e3:8.0f} ms")
            check(screen.failure is None, f"the thread view failed: {screen.failure}")
            newest = screen.checkpoint_view.state
            assert newest is not None
            values = newest.values if isinstance(newest.values, dict) else {}
            check(
                values.get("i") == ticks and len(values.get("seen", [])) == ticks,
                f"newest state: expected i={ticks} with {ticks} items, got i={values.get('i')!r}"
                f" with {len(values.get('seen', []))}",
            )

            started = time.perf_counter()
            presses = 0
            while not screen.history.exhausted or screen.pane.loading_rows:
                await pilot.press("end")
                presses += 1
                await asyncio.wait_for(settle(pilot), STEP_TIMEOUT)
                check(
                    time.perf_counter() - started < STEP_TIMEOUT * 5,
                    f"paging to the end: {screen.pane.row_count} rows after {presses} presses",
                )
            rows = screen.pane.row_count
            scrolled = time.perf_counter() - started
            print(
                f"  end, page by page, to all {rows:,} rows    {scrolled * 1e3:8.0f} ms"
                f"  ({presses} presses)"
            )
            ids = [row.checkpoint_id for row in screen.history.rows]
            check(
                rows == checkpoints and len(ids) == checkpoints and len(set(ids)) == checkpoints,
                f"expected {checkpoints} rows, one per checkpoint: {rows} rows in the table,"
                f" {len(ids)} in the history ({len(set(ids))} different)",
            )

            await pilot.press("home")
            await asyncio.wait_for(settle(pilot), STEP_TIMEOUT)
            started = time.perf_counter()
            # As a held key does: 200 key events queued at once (Pilot's `press` waits
            # for the screen to be idle after each key, ~60 ms even on a bare DataTable).
            for _ in range(200):
                app.post_message(events.Key("down", None))
            target = screen.history.rows[200]
            await until(
                lambda: screen.checkpoint_view.checkpoint_id == target.checkpoint_id,
                "the state of row 200 after 200 x down",
                STEP_TIMEOUT,
            )
            moved = time.perf_counter() - started
            print(f"  200 x down, then the state drawn        {moved * 1e3:8.0f} ms")
            await pilot.pause()
            check(
                screen.pane.cursor_row == 200,
                f"200 x down from the top: cursor on row {screen.pane.cursor_row}, not 200",
            )
            shown = screen.checkpoint_view.state
            check(
                shown is not None and shown.checkpoint_id == target.checkpoint_id,
                "the state drawn is not row 200's checkpoint",
            )
        await client.threads.delete(thread.thread_id)
    print("checked: newest state, one row per checkpoint, cursor and state after 200 x down")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running server with the test graphs (default: start one)")
    parser.add_argument("--checkpoints", type=int, default=5000)
    add_options(parser, quick=120, full=1800)
    args = parser.parse_args()
    arm(args)
    checkpoints = QUICK_CHECKPOINTS if args.quick else args.checkpoints
    if args.url:
        asyncio.run(bench(args.url, checkpoints))
        return 0
    from agent_tui.local import EmbeddedAgentServer

    with tempfile.TemporaryDirectory(prefix="agent-tui-bench-") as folder:
        data = Path(folder)
        with EmbeddedAgentServer(GRAPHS, data_dir=data, log_file=data / "server.log") as server:
            asyncio.run(bench(server.url, checkpoints))
    return 0


if __name__ == "__main__":
    sys.exit(main())
