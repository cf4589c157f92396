"""The thread view on a 5,000-checkpoint thread: time to open, to page down, to move the cursor.

    uv run python benchmarks/thread_view.py                      # embedded server, 5,000 checkpoints
    uv run python benchmarks/thread_view.py --checkpoints 1000   # a shorter look
    uv run python benchmarks/thread_view.py --quick              # 300 checkpoints, checked (seconds)

UI level: `ThreadViewScreen` in a headless app (Pilot), over `AgentServerClient`. The thread is
built with supersteps on the `loop` test graph, `growing` payload (checkpoint k holds k list items,
as a chat holds its messages), so the newest checkpoints are the biggest. The app is the thread
view tests' harness (`tests/support/shell.py`: the app shell, `ShellApp`, over a stand-in home
screen), and the view is pushed once it runs, with the garbage collector set as the app sets it
once connected (`tui/gc_tuning.tune_for_streaming`).

- open: from pushing the screen to the screen drawn with the newest state and a screenful of rows
  (`call_after_refresh`: the callback runs once the screen has been painted);
- page-down to the end: `pagedown` pressed (a key event, as the terminal sends it) until the cursor
  rests on the thread's first checkpoint; each press timed from the key to the cursor a screenful
  further (or on the last row) with the screen painted. Between presses the user reads for
  `READING` s (the view may load behind the cursor meanwhile); a press that finds no row to move
  to waits for the rows and is pressed again (after `AGAIN` s if none come), and one that left
  the cursor short of its target for `AGAIN` s is pressed again, all of it counted in that
  press's time;
- memory: the process's RSS once the view has opened and loaded what it loads on its own, and
  once paged to the end, each time after `REST` s without a key and a collection;
- 200 x down: the cursor held down over 200 rows, then the state of the row it rests on drawn.

Reported: open (wall and CPU ms), page-down wall and CPU (median and p90, the slowest), RSS
growth from opening to the end. Checked (exit status 1 if not): the newest state shown on opening
is the last checkpoint's (`i` = ticks, a list of as many items); every checkpoint becomes a row,
once, in order; the cursor rests on row 200 and the state drawn is that checkpoint's. Without
--quick, also the goals (the figures are printed first): open within OPEN_GOAL_MS (wall), page-down
p90 within PAGE_GOAL_MS (wall: nine pages in ten; the slowest is printed too), RSS grown by at
most MEMORY_GOAL_MB from opening to the end; every goal missed is named. Every wait has a
deadline.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the tests' harness: the `tests` package

import httpx  # noqa: E402
from textual import events  # noqa: E402
from textual.widget import Widget  # noqa: E402

from agent_tui.client import AgentServerClient  # noqa: E402
from agent_tui.tui.gc_tuning import tune_for_streaming  # noqa: E402
from agent_tui.tui.screens.thread_view.screen import ThreadViewScreen  # noqa: E402
from agent_tui.tui.styles_ahead import read_styles_ahead  # noqa: E402
from benchkit import BenchmarkFailed, add_options, arm, check, until  # noqa: E402
from history_paging import GRAPHS, supersteps  # noqa: E402
from tests.support.shell import ShellHarness  # noqa: E402
from tests.support.thread_view import SIZE  # noqa: E402

QUICK_CHECKPOINTS = 300
STEP_TIMEOUT = 120.0  # seconds any one step may take, at any size
READING = 0.1  # seconds between a page shown and the next pagedown
AGAIN = 1.0  # seconds on the last row loaded, no more coming, before pagedown is pressed again
OPEN_GOAL_MS = 150.0
PAGE_GOAL_MS = 50.0
REST = 1.0  # seconds the view rests (no key) before its memory is read, at the open and the end
MEMORY_GOAL_MB = 15.0  # "flat": what a few screens of drawn lines and the allocator's slack take


def quantiles(seconds: list[float]) -> tuple[float, float]:
    """The median and the 90th percentile, in ms."""
    if len(seconds) < 2:
        return seconds[0] * 1e3, seconds[0] * 1e3
    tenths = statistics.quantiles(seconds, n=10, method="inclusive")
    return statistics.median(seconds) * 1e3, tenths[-1] * 1e3


async def settle(pilot: Any) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def rss_mb() -> float:
    gc.collect()
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    return 0.0


async def painted(widget: Widget) -> None:
    """Until the screen has been painted with what changed so far."""
    done = asyncio.Event()
    widget.call_after_refresh(done.set)
    await asyncio.wait_for(done.wait(), STEP_TIMEOUT)


def key(app: Any, name: str) -> None:
    # As the terminal sends it: Pilot's `press` also waits for the screen to be idle
    # after each key (~60 ms even on a bare DataTable), and the loads behind the cursor
    # would count as the key's time.
    app.post_message(events.Key(name, None))


async def page_down(app: Any, screen: ThreadViewScreen) -> tuple[float, float]:
    """One `pagedown`: seconds until the cursor is a screenful further (or on the thread's
    last row) and painted, pressing again if it stopped at the end of the rows loaded;
    and the CPU seconds this process spent meanwhile."""
    pane, history = screen.pane, screen.history
    page = pane.scrollable_content_region.height - pane.header_height
    target = pane.cursor_row + page

    def at_end() -> bool:
        return history.exhausted and not pane.loading_rows

    def arrived() -> bool:
        return pane.cursor_row >= target or (at_end() and pane.cursor_row == pane.row_count - 1)

    started, cpu = time.perf_counter(), time.process_time()
    key(app, "pagedown")
    while True:
        # Stopped on the last row loaded, or short of the target with rows come in since
        # (a view that drops a key pressed on its last row): a user presses again after
        # a while.
        with contextlib.suppress(BenchmarkFailed):
            await until(
                lambda: arrived() or pane.cursor_row == pane.row_count - 1, "a pagedown", AGAIN
            )
        if arrived():
            break
        # More rows are on their way (or the walk is at its end).
        with contextlib.suppress(BenchmarkFailed):
            await until(lambda: pane.row_count - 1 > pane.cursor_row or at_end(), "rows", AGAIN)
        check(time.perf_counter() - started < STEP_TIMEOUT, "a pagedown never arrived")
        if not arrived():
            key(app, "pagedown")
    await painted(screen)
    return time.perf_counter() - started, time.process_time() - cpu


async def build_thread(url: str, ticks: int) -> str:
    """The thread's id, built by the server from its supersteps. Not through the client:
    5,000 take the server 25-40 s on a loaded machine, past the client's 30 s read
    timeout (the run failed there before it measured anything)."""
    body = {
        "metadata": {"graph_id": "loop", "benchmark": "thread_view"},
        "supersteps": supersteps(ticks, growing=True),
    }
    async with httpx.AsyncClient(base_url=url, timeout=STEP_TIMEOUT * 5) as http:
        response = await http.post("/threads", json=body)
        response.raise_for_status()
        thread_id: str = response.json()["thread_id"]
        return thread_id


async def bench(url: str, checkpoints: int, quick: bool) -> None:
    check(checkpoints >= 202, "--checkpoints: at least 202 (the cursor moves over 200 rows)")
    ticks = checkpoints - 2
    async with AgentServerClient(url) as client:
        info = await client.info()
        print(f"server: langgraph-api {info.version}, {url}")
        started = time.perf_counter()
        thread_id = await build_thread(url, ticks)
        print(
            f"thread of {checkpoints:,} checkpoints built in {time.perf_counter() - started:.2f} s"
        )
        # The shell with nothing but its stand-in home screen; the view is pushed below.
        app = ShellHarness()
        app.client = client
        screen = ThreadViewScreen(client, thread_id, status_interval=0)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            # As the app does once connected (tui/app.py): the thread view's styles read
            # ahead, what is loaded by now frozen out of the collector's sight and
            # collections spaced out. Without the freeze, full collections walked the
            # whole process during the walk (a third of it).
            read_styles_ahead(app)
            tune_for_streaming()
            rss_before = rss_mb()
            started, cpu = time.perf_counter(), time.process_time()
            await app.push_screen(screen)

            def shown() -> bool:
                if not screen.is_mounted or screen.checkpoint_view.state is None:
                    return False
                pane = screen.pane
                screenful = pane.scrollable_content_region.height - pane.header_height
                return pane.row_count >= min(checkpoints, screenful)

            await until(shown, "the newest state and a screenful of rows", STEP_TIMEOUT)
            await painted(screen)
            opened = (time.perf_counter() - started) * 1e3
            opened_cpu = (time.process_time() - cpu) * 1e3
            print(
                f"  open (newest state, first rows, painted) {opened:8.0f} ms"
                f"  (CPU {opened_cpu:.0f} ms)"
            )
            check(screen.failure is None, f"the thread view failed: {screen.failure}")
            newest = screen.checkpoint_view.state
            assert newest is not None
            values = newest.values if isinstance(newest.values, dict) else {}
            check(
                values.get("i") == ticks and len(values.get("seen", [])) == ticks,
                f"newest state: expected i={ticks} with {ticks} items, got i={values.get('i')!r}"
                f" with {len(values.get('seen', []))}",
            )
            # What the view loads behind the first screenful, in: the memory of an open view.
            await asyncio.wait_for(settle(pilot), STEP_TIMEOUT)
            await asyncio.sleep(REST)
            rss_open = rss_mb()

            started = time.perf_counter()
            pages: list[float] = []
            cpus: list[float] = []
            while not (
                screen.history.exhausted
                and not screen.pane.loading_rows
                and screen.pane.cursor_row == screen.pane.row_count - 1
            ):
                took, used = await page_down(app, screen)
                pages.append(took)
                cpus.append(used)
                await asyncio.sleep(READING)
                check(
                    time.perf_counter() - started < STEP_TIMEOUT * 5,
                    f"paging to the end: {screen.pane.row_count} rows after {len(pages)} pages",
                )
            walked = time.perf_counter() - started
            slowest = max(pages) * 1e3
            median, p90 = quantiles(pages)
            median_cpu, p90_cpu = quantiles(cpus)
            rows = screen.pane.row_count
            print(
                f"  pagedown to all {rows:,} rows: {len(pages)} pages in {walked:.1f} s;"
                f" a page: median {median:.0f} ms (CPU {median_cpu:.0f}),"
                f" p90 {p90:.0f} ms (CPU {p90_cpu:.0f}), slowest {slowest:.0f} ms"
            )
            ids = [row.checkpoint_id for row in screen.history.rows]
            steps = [row.step for row in screen.history.rows]
            check(
                rows == checkpoints and len(ids) == checkpoints and len(set(ids)) == checkpoints,
                f"expected {checkpoints} rows, one per checkpoint: {rows} rows in the table,"
                f" {len(ids)} in the history ({len(set(ids))} different)",
            )
            check(steps == list(range(ticks, -2, -1)), "the rows are not newest first, in order")
            await pilot.pause()
            await asyncio.sleep(REST)
            rss_end = rss_mb()
            print(
                f"  RSS: {rss_before:.0f} MB before, {rss_open:.0f} MB open,"
                f" {rss_end:.0f} MB at the end ({rss_end - rss_open:+.0f} MB)"
            )

            key(app, "home")
            await until(lambda: screen.pane.cursor_row == 0, "the first row", STEP_TIMEOUT)
            await asyncio.wait_for(pilot.pause(), STEP_TIMEOUT)
            started = time.perf_counter()
            # As a held key does: 200 key events queued at once.
            for _ in range(200):
                key(app, "down")
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
            shown_state = screen.checkpoint_view.state
            check(
                shown_state is not None and shown_state.checkpoint_id == target.checkpoint_id,
                "the state drawn is not row 200's checkpoint",
            )
        await client.threads.delete(thread_id)
    print(
        "checked: newest state, one row per checkpoint in order, cursor and state after 200 x down"
    )
    if quick:
        return
    missed = [
        f"open took {opened:.0f} ms (goal {OPEN_GOAL_MS:.0f})" if opened > OPEN_GOAL_MS else "",
        f"nine page-downs in ten took up to {p90:.0f} ms (goal {PAGE_GOAL_MS:.0f})"
        if p90 > PAGE_GOAL_MS
        else "",
        f"RSS grew by {rss_end - rss_open:.0f} MB paging to the end (goal {MEMORY_GOAL_MB:.0f})"
        if rss_end - rss_open > MEMORY_GOAL_MB
        else "",
    ]
    check(not any(missed), "goals missed: " + "; ".join(m for m in missed if m))
    print(
        f"goals met: open <= {OPEN_GOAL_MS:.0f} ms, page-down p90 <= {PAGE_GOAL_MS:.0f} ms,"
        f" RSS +{MEMORY_GOAL_MB:.0f} MB at most"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running server with the test graphs (default: start one)")
    parser.add_argument("--checkpoints", type=int, default=5000)
    add_options(parser, quick=120, full=1800)
    args = parser.parse_args()
    arm(args)
    checkpoints = QUICK_CHECKPOINTS if args.quick else args.checkpoints
    if args.url:
        asyncio.run(bench(args.url, checkpoints, args.quick))
        return 0
    from agent_tui.local import EmbeddedAgentServer

    with tempfile.TemporaryDirectory(prefix="agent-tui-bench-") as folder:
        data = Path(folder)
        with EmbeddedAgentServer(GRAPHS, data_dir=data, log_file=data / "server.log") as server:
            asyncio.run(bench(server.url, checkpoints, args.quick))
    return 0


if __name__ == "__main__":
    sys.exit(main())
