"""The local agent server on a disk that fills up (issue 21, part 4): a real ENOSPC on a
small filesystem of its own (`tests.support.small_disk`), not a simulated one.

What a user sees: every write that was answered 2xx is there; the write that could not
be saved is refused with 507 naming the problem, and so is every change until there is
room again; the server's log (what `agent-tui serve` prints, what the app's header reads)
says so once; reads go on; once space is freed, writes are saved again and the log says so.
"""

from __future__ import annotations

import time
from pathlib import Path

import httpx

from agent_tui.local.disk_problem import DISK_PROBLEM, DISK_RECOVERED
from agent_tui.local.supervisor.errors import server_said
from tests.support.small_disk import SmallDiskServer, small_disk_server, start_on_a_full_disk

BLOB = "x" * 300_000


def wait_for_log(server: SmallDiskServer, text: str) -> None:
    deadline = time.monotonic() + 30
    while text not in server.log_text():
        assert time.monotonic() < deadline, f"the server's log never said {text!r}"
        time.sleep(0.05)  # the log is the server's output file: nothing to wait on


def test_a_full_disk_refuses_changes_and_keeps_what_was_answered(tmp_path: Path) -> None:
    with (
        small_disk_server(tmp_path) as server,
        httpx.Client(base_url=server.url, trust_env=False, timeout=30) as client,
    ):
        thread = client.post("/threads", json={"metadata": {"before": True}})
        assert thread.status_code == 200
        saved: list[str] = []
        refused = None
        for number in range(60):  # 18 MB of items for an 8 MB disk
            key = f"k{number}"
            answer = client.put(
                "/store/items", json={"namespace": ["big"], "key": key, "value": {"b": BLOB}}
            )
            if answer.status_code != 204:
                refused = answer
                break
            saved.append(key)
        assert refused is not None, "the disk never filled up"
        assert refused.status_code == 507
        assert "No space left on device" in refused.json()["detail"]
        assert saved, "the disk was full before the first write"
        wait_for_log(server, DISK_PROBLEM)

        # Every change is refused while the disk is full, and not made; reads go on.
        assert client.post("/threads", json={}).status_code == 507
        threads = client.post("/threads/search", json={"limit": 100}).json()
        assert len(threads) == 1
        gone = client.request("DELETE", "/store/items", json={"namespace": ["big"], "key": "k0"})
        assert gone.status_code == 507
        thread_id = thread.json()["thread_id"]
        assert client.get(f"/threads/{thread_id}").json()["metadata"] == {"before": True}
        for key in saved:
            item = client.get("/store/items", params={"namespace": "big", "key": key})
            assert item.status_code == 200, key

        # Room again: more than the store takes (a new snapshot is written whole beside
        # the last one before that one is given up).
        server.free_the_ballast()
        after = client.put("/store/items", json={"namespace": ["big"], "key": "s", "value": {}})
        assert after.status_code == 204, (after.text, server.log_text()[-3000:])
        assert client.post("/threads", json={}).status_code == 200
        wait_for_log(server, DISK_RECOVERED)


def test_a_server_started_on_a_full_disk_says_to_free_space(tmp_path: Path) -> None:
    """Not a traceback, not "pass another --port": what is wrong and what to do, in the
    words the app's start-up screen and `agent-tui serve` show first (`server_said`)."""
    code, said = start_on_a_full_disk(tmp_path)
    assert code == 5, said[-3000:]
    assert "Traceback" not in said
    advice = server_said(said.splitlines())
    assert advice is not None
    assert advice.startswith("cannot save the server's data in "), advice
    assert advice.endswith("No space left on device; free some space, then start it again")
