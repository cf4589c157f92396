"""One server per data folder: a second copy uses the running server, never a second one.

Two servers on one data folder would each load the runtime's files and save over each
other's, losing threads. These tests run the real server (about 3 s per start).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import httpx
import pytest

from agent_tui.local import (
    DEMO_CONFIG,
    EmbeddedAgentServer,
    RunningServer,
    ServerAlreadyRunning,
    ServerLock,
    ServerLockHeld,
    running_server,
    wait_for_running_server,
    wait_for_running_url,
)
from tests.support.processes import process_gone


def own_server(folder: Path) -> EmbeddedAgentServer:
    return EmbeddedAgentServer(
        DEMO_CONFIG, data_dir=folder / "data", log_file=folder / "server.log"
    )


def chat(url: str, text: str) -> str:
    """A new thread with one exchange with the demo chat graph; its id."""
    with httpx.Client(base_url=url, trust_env=False, timeout=30) as client:
        thread = client.post("/threads", json={"metadata": {"said": text}}).json()
        client.post(
            f"/threads/{thread['thread_id']}/runs/wait",
            json={
                "assistant_id": "chat",
                "input": {"messages": [{"role": "user", "content": text}]},
            },
        ).raise_for_status()
    return str(thread["thread_id"])


def messages(url: str, thread_id: str) -> list[str]:
    with httpx.Client(base_url=url, trust_env=False, timeout=30) as client:
        state = client.get(f"/threads/{thread_id}/state").json()
    return [message["content"] for message in state["values"]["messages"]]


def test_a_second_copy_uses_the_running_server_and_no_thread_is_lost(tmp_path: Path) -> None:
    owner = own_server(tmp_path)
    with owner:
        # The note says where the server runs and who owns it.
        note = json.loads((tmp_path / "data" / "server.json").read_text())
        assert note["url"] == owner.url
        assert (note["pid"], note["server_pid"]) == (os.getpid(), owner.pid)
        assert note["config"] == str(DEMO_CONFIG)

        # A second copy on the same project may not start a server of its own...
        second = own_server(tmp_path)
        with pytest.raises(ServerAlreadyRunning) as caught:
            second.start()
        assert second.pid is None
        assert caught.value.running.url == owner.url
        assert str(caught.value) == (
            f"a local agent server for {DEMO_CONFIG} already runs at {owner.url} "
            f"(pid {os.getpid()})"
        )
        # ...it uses the running one.
        running = running_server(tmp_path / "data")
        assert running is not None and running.url == owner.url
        first_thread = chat(owner.url, "from the owner")
        second_thread = chat(running.url, "from the second copy")
    assert running_server(tmp_path / "data") is None
    assert not (tmp_path / "data" / "server.json").exists()

    with own_server(tmp_path) as again:
        assert messages(again.url, first_thread) == ["from the owner", "You said: from the owner"]
        assert messages(again.url, second_thread) == [
            "from the second copy",
            "You said: from the second copy",
        ]


OWNER_SCRIPT = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from agent_tui.local import DEMO_CONFIG, EmbeddedAgentServer

    folder = Path(sys.argv[1])
    server = EmbeddedAgentServer(
        DEMO_CONFIG, data_dir=folder / "data", log_file=folder / "server.log"
    )
    server.start()
    server.wait_until_ready(60)
    print(server.pid, server.url, flush=True)
    sys.stdin.read()
    """
)


def test_the_lock_outlives_a_killed_owner_until_its_server_has_saved(tmp_path: Path) -> None:
    owner = subprocess.Popen(
        [sys.executable, "-c", OWNER_SCRIPT, str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert owner.stdout is not None
        server_pid_text, url = owner.stdout.readline().split()
        server_pid = int(server_pid_text)
        thread_id = chat(url, "before the crash")
        owner.send_signal(signal.SIGKILL)
        owner.wait(10)

        # The orphaned server shuts down (and saves) on its own; until it has exited,
        # nobody else may load the folder.
        successor = own_server(tmp_path)
        try:
            successor.start()
        except ServerAlreadyRunning as held:
            assert held.running.pid == owner.pid
            assert held.running.url is None  # its owner is dead: not a server to use
            assert wait_for_running_url(tmp_path / "data", 30) is None
            assert process_gone(server_pid)
            successor.start()
        else:
            assert process_gone(server_pid)
        with successor:
            assert messages(successor.url, thread_id) == [
                "before the crash",
                "You said: before the crash",
            ]
    finally:
        if owner.poll() is None:
            owner.kill()
            owner.wait(10)


HOLDER_SCRIPT = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from agent_tui.local import ServerLock

    lock = ServerLock.acquire(Path(sys.argv[1]))
    lock.record(url="http://127.0.0.1:9", server_pid=None, config=None)
    print("held", flush=True)
    sys.stdin.read()
    """
)


def test_a_lock_and_note_left_by_a_dead_process_are_taken_over(tmp_path: Path) -> None:
    data = tmp_path / "data"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER_SCRIPT, str(data)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None
    assert holder.stdout.readline() == "held\n"
    held = running_server(data)
    assert held is not None and held.pid == holder.pid and held.url == "http://127.0.0.1:9"
    with pytest.raises(ServerLockHeld):
        ServerLock.acquire(data)

    holder.send_signal(signal.SIGKILL)
    holder.wait(10)
    # Its lock file and note are still there; they count for nothing.
    assert json.loads((data / "server.json").read_text())["pid"] == holder.pid
    assert running_server(data) is None
    assert wait_for_running_url(data, 5) is None

    with own_server(tmp_path) as server:
        note = json.loads((data / "server.json").read_text())
        assert (note["pid"], note["url"]) == (os.getpid(), server.url)
        running = running_server(data)
        assert running is not None and running.url == server.url


async def test_a_starting_owner_is_waited_for_until_it_answers_or_lets_go(
    tmp_path: Path, agent_server_url: str
) -> None:
    data = tmp_path / "data"
    lock = ServerLock.acquire(data, config=DEMO_CONFIG)
    try:
        starting = running_server(data)
        assert starting == RunningServer(
            data_dir=data,
            url=None,
            pid=os.getpid(),
            config=str(DEMO_CONFIG),
            started_at=starting.started_at if starting else None,
        )
        assert starting is not None and starting.starting

        waiter = asyncio.create_task(wait_for_running_server(data, 30))
        lock.record(url=agent_server_url, server_pid=None, config=DEMO_CONFIG)
        ready = await waiter
        assert ready is not None and ready.url == agent_server_url

        with pytest.raises(TimeoutError, match=f"process {os.getpid()}"):
            lock.record(url="http://127.0.0.1:9", server_pid=None, config=None)
            await wait_for_running_server(data, 0.3)

        waiter = asyncio.create_task(wait_for_running_server(data, 30))
        lock.release()
        assert await waiter is None  # it let go without answering: start your own
    finally:
        lock.release()
    assert not (data / "server.json").exists()
