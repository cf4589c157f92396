"""A restart (a live reload) that cuts off a run keeps the thread, however slow the old
server's stop: the runtime clears its dictionaries once it has written them at a clean
stop, and a save of ours after that (the cut-off run's, 0.1 s after it ended) recorded
every thread deleted, newer than the runtime's files, so the new server had none (seen
under load in CI: "Thread ... not found" right after a restart mid-run).

The stop is made slow by the graph's module, which the server imports: the runtime's
clean stop sleeps 0.6 s after writing its records, as a loaded machine's can.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent_tui.client import AgentServerClient
from agent_tui.local import EmbeddedAgentServer
from tests.support.paths import GRAPHS

SLOW_STOP = """

import time as _time

from langgraph_runtime_inmem import database as _database

_close = _database.GLOBAL_STORE.close


def _slow_close() -> None:
    _close()  # written to its file, then cleared
    _time.sleep(0.6)


_database.GLOBAL_STORE.close = _slow_close
"""


async def running(client: AgentServerClient, thread_id: str, run_id: str) -> None:
    deadline = asyncio.get_running_loop().time() + 60
    while (run := await client.runs.get(thread_id, run_id)).status != "running":
        assert asyncio.get_running_loop().time() < deadline, f"the run stayed {run.status}"
        await asyncio.sleep(0.05)


def slow_stop_project(folder: Path) -> Path:
    folder.mkdir()
    (folder / "ticker.py").write_text((GRAPHS / "ticker.py").read_text() + SLOW_STOP)
    config = folder / "langgraph.json"
    config.write_text('{"dependencies": ["."], "graphs": {"ticker": "./ticker.py:graph"}}')
    return config


async def test_a_restart_that_cuts_off_a_run_keeps_its_thread(tmp_path: Path) -> None:
    config = slow_stop_project(tmp_path / "project")
    gate = tmp_path / "gate"
    server = EmbeddedAgentServer(
        config, data_dir=tmp_path / "data", log_file=tmp_path / "server.log", hold_listener=True
    )
    with server:
        async with AgentServerClient(server.url) as client:
            thread = await client.threads.create(metadata={"purpose": "kept"})
            run = await client.runs.create(
                thread.thread_id, "ticker", input={}, context={"ticks": 1, "gate": str(gate)}
            )
            await running(client, thread.thread_id, run.run_id)
            await asyncio.to_thread(server.restart)
            gate.touch()  # the run, once it runs again, ends at once
            kept = await client.threads.get(thread.thread_id)
            assert kept.metadata["purpose"] == "kept"
            # The cut-off run runs again to its end on the new server.
            assert await client.runs.join(thread.thread_id, run.run_id) == {"done": 1}
            assert (await client.runs.get(thread.thread_id, run.run_id)).status == "success"
