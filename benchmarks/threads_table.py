"""The Threads screen with 10,000 threads: first page, every page, scrolling, filtering.

    uv run python benchmarks/threads_table.py [--threads 10000] [--chat 1000] [--page-size 100]
    uv run python benchmarks/threads_table.py --quick   # 300 threads (50 chat), checked

Starts an embedded agent server (the test graphs, data in a temporary folder), makes
`--threads` threads — `--chat` of them chat threads with 20 messages each, the rest
empty — and then, in the real app run headless (Pilot), times:

- search requests alone: one page of chat threads asked for light (`select` + `extract`
  of the last message, what the screen does) and whole (every thread's full `values`);
- `:threads` to the first page on screen;
- loading every page (the cursor sent to the end again and again: each time the table
  asks for the next page);
- moving the cursor from the top to the bottom with `pagedown`, and 200 `down` presses (`--downs`)
  (CPU time per key: Pilot sleeps while it waits for the app to go idle after each key,
  so its wall time says more about Pilot than about the app; a bare DataTable with as
  many rows, timed the same way, is the baseline);
- `/` filtering the 10,000 loaded rows.

Checked (exit status 1 if not): the screen counts and loads every thread, in as many pages as
the page size makes; `pagedown` from the top reaches the last row; the filter `chat` shows
the chat threads, all of them and nothing else. Every wait has a deadline.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from agent_tui.client import AgentServerClient
from agent_tui.local import EmbeddedAgentServer
from agent_tui.settings.target import RemoteServer
from agent_tui.threads.query import ThreadQuery
from agent_tui.tui.app import AgentTuiApp
from agent_tui.tui.screens.server_info import ServerInfoScreen
from agent_tui.tui.screens.threads.list import ThreadsScreen
from benchkit import add_options, arm, check

CONFIG = Path(__file__).parents[1] / "tests" / "graphs" / "langgraph.json"
SIZE = (160, 50)
BATCH = 500
QUICK = {"threads": 300, "chat": 50, "downs": 30}


def chat_steps(thread: int, messages: int = 20) -> list[dict[str, Any]]:
    texts = [
        {
            "type": "human" if i % 2 == 0 else "ai",
            "content": f"message {i} of thread {thread}: " + "lorem ipsum dolor sit amet " * 8,
            "id": f"m{i}",
        }
        for i in range(messages)
    ]
    return [
        {"updates": [{"values": {"messages": []}, "as_node": "__input__"}]},
        {"updates": [{"values": {"messages": texts}, "as_node": "agent"}]},
    ]


async def make_threads(client: AgentServerClient, total: int, chat: int) -> float:
    started = time.perf_counter()
    for start in range(0, total, BATCH):
        calls = []
        for n in range(start, min(start + BATCH, total)):
            if n < chat:
                calls.append(
                    client.threads.create(
                        metadata={"graph_id": "chat", "bench": "chat", "n": n},
                        supersteps=chat_steps(n),
                    )
                )
            else:
                calls.append(client.threads.create(metadata={"bench": "empty", "n": n}))
        await asyncio.gather(*calls)
    return time.perf_counter() - started


async def time_search(client: AgentServerClient, page_size: int, reps: int = 7) -> dict[str, float]:
    """Median ms for one page of chat threads, light and whole."""
    results = {}
    for light in (True, False):
        query = ThreadQuery(metadata={"bench": "chat"}, page_size=page_size, light=light)
        times = []
        for _ in range(reps):
            started = time.perf_counter()
            await client.threads.search(**query.kwargs())
            times.append(time.perf_counter() - started)
        results["light" if light else "whole"] = statistics.median(times) * 1000
    return results


async def until(condition: Any, timeout: float = 120) -> None:
    """Poll without Pilot's idle detection (which sleeps), so wall times are the app's."""
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError("benchmark step did not finish")
        await asyncio.sleep(0.001)


async def keys_cost(pilot: Any, key: str, times: int) -> tuple[float, float]:
    """(CPU ms, wall ms) per press. Wall includes Pilot's wait for idle after each key
    (a few sleeps of ~17 ms), so the CPU figure is the one to read for the app's own work."""
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(times):
        await pilot.press(key)
    return (
        (time.process_time() - cpu) * 1000 / times,
        (time.perf_counter() - wall) * 1000 / times,
    )


async def load_every_page(table: Any) -> tuple[float, float, int]:
    """Send the cursor to the end until the last page is in: (wall ms, CPU ms, pages)."""
    started, cpu = time.perf_counter(), time.process_time()
    pages = 1
    while table.has_more:
        loaded = table.loaded_count
        # What `end` does (from one row up, so the cursor surely moves).
        table.move_cursor(row=max(table.row_count - 2, 0))
        table.move_cursor(row=table.row_count - 1)
        await until(lambda loaded=loaded: table.loaded_count > loaded or not table.has_more)
        pages += table.loaded_count > loaded
    await until(lambda: not table.loading_rows)
    return (
        (time.perf_counter() - started) * 1000,
        (time.process_time() - cpu) * 1000,
        pages,
    )


async def time_app(url: str, total: int, chat: int, page_size: int, downs: int) -> dict[str, float]:
    figures: dict[str, float] = {}
    app = AgentTuiApp(RemoteServer(url))
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: isinstance(app.screen, ServerInfoScreen))
        await asyncio.wait_for(app.workers.wait_for_complete(), 120)

        started = time.perf_counter()
        await app.run_command("threads")
        screen = app.screen
        assert isinstance(screen, ThreadsScreen)
        if page_size != screen.search.page_size:
            screen.set_queries([ThreadQuery(page_size=page_size)])
            screen.reload()
        table = screen.table
        await until(lambda: table.row_count > 0)
        figures["first page in the table"] = (time.perf_counter() - started) * 1000
        check(screen.total == total, f"the screen counts {screen.total} threads, not {total}")

        wall, cpu, pages = await load_every_page(table)
        figures["all pages loaded"] = wall
        figures["all pages loaded, app CPU"] = cpu
        figures["pages"] = pages
        check(table.loaded_count == total, f"{table.loaded_count} threads loaded, not {total}")
        ids = {thread.thread_id for thread in table.items}
        check(len(ids) == total, f"{len(ids)} different threads loaded, not {total}")
        check(
            pages == -(-total // page_size),
            f"{pages} pages of {page_size} for {total} threads",
        )

        table.move_cursor(row=0)
        await pilot.pause()
        presses = -(-total // max(table.size.height - 2, 1))
        cpu, wall = await keys_cost(pilot, "pagedown", presses)
        check(
            table.cursor_row == table.row_count - 1,
            f"{presses} x pagedown: cursor on row {table.cursor_row} of {table.row_count}",
        )
        figures["pagedown top to bottom"] = wall * presses
        figures["pagedown presses"] = presses
        figures["per pagedown, CPU"] = cpu
        figures["per pagedown, wall"] = wall
        table.move_cursor(row=0)
        await pilot.pause()
        cpu, wall = await keys_cost(pilot, "down", downs)
        check(table.cursor_row == downs, f"{downs} x down: cursor on row {table.cursor_row}")
        figures["per down, CPU"] = cpu
        figures["per down, wall"] = wall

        await pilot.press("slash")
        started = time.perf_counter()
        cpu_started = time.process_time()
        for key in "chat":  # 4 keystrokes: the filter narrows 4 times
            await pilot.press(key)
        # The filter waits for a pause in the typing (resource_screen.FILTER_DEBOUNCE).
        await until(lambda: table.filter_text == "chat" and not table.loading_rows)
        figures["filter 'chat' (4 keys), CPU"] = (time.process_time() - cpu_started) * 1000
        figures["rows shown by the filter"] = table.row_count
        check(table.row_count == chat, f"filter 'chat': {table.row_count} rows, not {chat}")

        assert app.client is not None
        bigger = ThreadsScreen(app.client, ThreadQuery(page_size=1000))
        await app.push_screen(bigger)
        await until(lambda: bigger.table.loaded_count > 0 and not bigger.table.loading_rows)
        wall, cpu, pages = await load_every_page(bigger.table)
        loaded = bigger.table.loaded_count
        check(loaded == total, f"page size 1000: {loaded} threads loaded, not {total}")
        figures["page size 1000: all pages loaded"] = wall
        figures["page size 1000: app CPU"] = cpu
        await pilot.press("ctrl+q")
    return figures


async def baseline(total: int, downs: int) -> tuple[float, float]:
    """The same key presses on a bare DataTable with as many rows: Pilot's own cost."""
    from textual.app import App, ComposeResult
    from textual.widgets import DataTable

    class Bare(App[None]):
        def compose(self) -> ComposeResult:
            yield DataTable(cursor_type="row")

        def on_mount(self) -> None:
            table = self.query_one(DataTable)
            table.add_columns("ID", "Status", "Graph", "Updated", "Last message")
            for n in range(total):
                table.add_row(f"{n:08x}", "idle", "chat", "2026-11-21 09:00:00", "ai: hi " * 8)

    app = Bare()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        down = await keys_cost(pilot, "down", downs)
        page = await keys_cost(pilot, "pagedown", max(downs // 4, 1))
    return down[0], page[0]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=10_000)
    parser.add_argument("--chat", type=int, default=1_000)
    parser.add_argument("--page-size", type=int, default=100)
    parser.add_argument("--downs", type=int, default=200, help="down presses timed")
    add_options(parser, quick=150, full=3600)
    args = parser.parse_args()
    arm(args)
    if args.quick:
        args.threads, args.chat, args.downs = QUICK["threads"], QUICK["chat"], QUICK["downs"]

    with tempfile.TemporaryDirectory(prefix="agent-tui-bench-") as data:
        async with EmbeddedAgentServer(CONFIG, data_dir=Path(data)) as server:
            async with AgentServerClient(server.url) as client:
                made = await make_threads(client, args.threads, args.chat)
                print(f"made {args.threads} threads ({args.chat} chat) in {made:.1f}s")
                search = await time_search(client, args.page_size)
            print(
                f"one page of {args.page_size} chat threads (20 messages each), median of 7:"
                f" light {search['light']:.0f} ms, whole values {search['whole']:.0f} ms"
            )
            figures = await time_app(
                server.url, args.threads, args.chat, args.page_size, args.downs
            )
    down, page = await baseline(args.threads, args.downs)
    figures["bare DataTable: down, CPU"] = down
    figures["bare DataTable: pagedown, CPU"] = page
    print(f"Threads screen, {args.threads} threads, page size {args.page_size}:")
    for name, value in figures.items():
        counts = {"pages", "pagedown presses", "rows shown by the filter"}
        shown = f"{value:>9.0f}" if name in counts else f"{value:>9.1f} ms"
        print(f"  {name:<34}{shown}")
    print("checked: threads counted and loaded, pages, pagedown to the end, downs, the filter")


if __name__ == "__main__":
    asyncio.run(main())
