"""Damaged data costs at most what was damaged, the server says what it dropped, and the
damaged file is kept (never deleted).

Each test writes through the real server, kills it with SIGKILL (so its records are read
back from agent-tui's database of them, not from the runtime's clean-stop file), damages a
file as a failing disk would, and starts a new server on the folder.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.server_process import killed_after
from tests.support.service_processes import Watchdog

THREADS = 40


@pytest.fixture
def watchdog() -> Iterator[Watchdog]:
    watchdog = Watchdog()
    yield watchdog
    watchdog.close()


def thread_ids(client: httpx.Client) -> set[str]:
    found = client.post("/threads/search", json={"limit": 1000}).json()
    return {thread["thread_id"] for thread in found}


def fill(data: Path, log: Path, watchdog: Watchdog) -> set[str]:
    """``THREADS`` threads with a counter run each, the server then killed."""
    with killed_after(data, log, watchdog) as client:
        made = set()
        for _ in range(THREADS):
            thread_id = client.post("/threads", json={}).json()["thread_id"]
            answer = client.post(
                f"/threads/{thread_id}/runs/wait",
                json={"assistant_id": "counter", "input": {"by": 2}},
            )
            assert answer.status_code == 200, answer.text
            made.add(thread_id)
        return made


def flip(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0xFF
    path.write_bytes(bytes(data))


def kept_aside(data: Path) -> list[Path]:
    return sorted((data / ".langgraph_api" / "damaged").glob("*"))


def damage_a_page(database: Path) -> None:
    """Noise over a page in the middle of ``database`` (its write-ahead log folded in
    first, as a clean stop would, so the pages are in the file)."""
    with sqlite3.connect(database) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    pages = database.stat().st_size // 4096
    assert pages > 4
    damaged = bytearray(database.read_bytes())
    page = pages // 2
    damaged[page * 4096 : (page + 1) * 4096] = random.Random(31).randbytes(4096)
    database.write_bytes(bytes(damaged))


def test_a_damaged_page_of_the_records_loses_only_its_rows(
    tmp_path: Path, watchdog: Watchdog
) -> None:
    data, log = tmp_path / "data", tmp_path / "server.log"
    data.mkdir()
    made = fill(data, log, watchdog)
    damage_a_page(data / ".langgraph_api" / "records.db")
    log.write_text("")
    with killed_after(data, log, watchdog) as client:
        found = thread_ids(client)
        assert found <= made
        assert len(found) >= THREADS * 3 // 4, f"{len(found)} of {THREADS} threads kept"
        said = log.read_text()
        assert "records.db was damaged" in said, said[-3000:]
        assert any(p.name.endswith("records.db") for p in kept_aside(data))
        # The next write does not make the intact rest unreadable.
        found.add(client.post("/threads", json={}).json()["thread_id"])
    log.write_text("")
    with killed_after(data, log, watchdog) as client:
        assert thread_ids(client) == found
        assert "was damaged" not in log.read_text()


def test_a_damaged_page_of_the_checkpoints_loses_only_its_rows(
    tmp_path: Path, watchdog: Watchdog
) -> None:
    data, log = tmp_path / "data", tmp_path / "server.log"
    data.mkdir()
    made = fill(data, log, watchdog)
    damage_a_page(data / ".langgraph_api" / "checkpoints.db")

    with killed_after(data, log, watchdog) as client:
        states = {
            thread_id: client.get(f"/threads/{thread_id}/state").json()["values"]
            for thread_id in made
        }
        intact = [t for t, values in states.items() if values.get("count") == 2]
        assert len(intact) >= THREADS * 3 // 4, f"{len(intact)} of {THREADS} kept"
        said = log.read_text()
        assert "checkpoints.db was damaged" in said, said[-3000:]
        assert any(p.name.endswith("checkpoints.db") for p in kept_aside(data))
        # It goes on working.
        thread_id = client.post("/threads", json={}).json()["thread_id"]
        answer = client.post(
            f"/threads/{thread_id}/runs/wait", json={"assistant_id": "counter", "input": {}}
        )
        assert answer.status_code == 200


def test_a_checkpoints_file_sqlite_cannot_open_is_moved_aside(
    tmp_path: Path, watchdog: Watchdog
) -> None:
    data, log = tmp_path / "data", tmp_path / "server.log"
    data.mkdir()
    made = fill(data, log, watchdog)
    database = data / ".langgraph_api" / "checkpoints.db"
    for suffix in ("-wal", "-shm"):
        Path(str(database) + suffix).unlink(missing_ok=True)
    header = bytearray(database.read_bytes())
    header[:16] = b"not a database!!"
    database.write_bytes(bytes(header))

    with killed_after(data, log, watchdog) as client:
        assert thread_ids(client) == made  # the threads are kept; their checkpoints not
        said = log.read_text()
        assert "checkpoints.db could not be read" in said, said[-3000:]
        moved = [p for p in kept_aside(data) if p.name.endswith("checkpoints.db")]
        assert moved and moved[0].read_bytes()[:16] == b"not a database!!"
