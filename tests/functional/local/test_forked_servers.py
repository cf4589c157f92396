"""Agent servers forked from a prewarmed process (`agent_tui.local.supervisor.forked`),
as this suite starts them: each must be a server of its own, as one started with
``Popen`` is (its own session, its output in the log, its lifeline on stdin, its exit
status), and start for a fraction of the CPU.

The ``Popen`` path is what a user's app and ``agent-tui serve`` run; the tests that start
those as processes (tests/functional/cli) and the benchmarks cover it.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from agent_tui.local import DEMO_CONFIG, EmbeddedAgentServer
from agent_tui.local.supervisor import forked
from tests.support.processes import gone_within, port_closed, servers_forked


@pytest.fixture(autouse=True)
def _forking() -> Iterator[None]:
    # On here even where the run starts its servers (`AGENT_TUI_TESTS_START_SERVERS=1`).
    with servers_forked(True):
        yield


def own_server(tmp_path: Path) -> EmbeddedAgentServer:
    return EmbeddedAgentServer(
        DEMO_CONFIG, data_dir=tmp_path / "data", log_file=tmp_path / "server.log"
    )


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def chat(url: str, text: str, thread_id: str | None = None) -> list[str]:
    with httpx.Client(base_url=url, trust_env=False, timeout=60) as client:
        state = client.post(
            f"/threads/{thread_id}/runs/wait" if thread_id else "/runs/wait",
            json={
                "assistant_id": "chat",
                "input": {"messages": [{"role": "user", "content": text}]},
            },
        ).json()
    return [message["content"] for message in state["messages"]]


def test_servers_on_this_python_are_forked_and_no_other_command() -> None:
    server = ["-P", "-m", "agent_tui.server.main", "--config", "langgraph.json"]
    assert forked.forks([sys.executable, *server])
    assert not forked.forks(["/elsewhere/bin/python", *server])  # a project's environment
    assert not forked.forks([sys.executable, "-m", "agent_tui.local.control_plane.build_check"])


def test_a_forked_server_serves_leads_its_session_logs_and_stops_with_nothing_left(
    tmp_path: Path,
) -> None:
    server = own_server(tmp_path)
    with server:
        pid, port = server.pid, server.port
        assert pid is not None and port is not None
        assert os.getpgid(pid) == pid  # its group: a stop signals what its graphs started
        assert Path(f"/proc/{pid}").stat().st_uid == os.getuid()
        assert chat(server.url, "hello") == ["hello", "You said: hello"]
        # Its output reaches the log, as a started one's does.
        assert any("Starting In-Memory runtime" in line for line in server.log_lines())
        # The slow imports were done once, in the forkserver, not here.
        assert cpu_seconds(pid) < 2.0, cpu_seconds(pid)
    assert not server.is_running
    assert gone_within([pid], 10, groups=True)
    assert port_closed(port)


def test_a_forked_server_killed_reports_the_signal_and_its_data_is_still_there(
    tmp_path: Path,
) -> None:
    with own_server(tmp_path) as server:
        with httpx.Client(base_url=server.url, trust_env=False) as client:
            thread_id = client.post("/threads", json={}).json()["thread_id"]
        assert chat(server.url, "kept", thread_id) == ["kept", "You said: kept"]
        pid = server.pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 15
        while server.crash_code() is None:
            assert time.monotonic() < deadline, "the kill was never seen"
            time.sleep(0.05)  # a process's exit seen through its parent: no event here
        assert server.crash_code() == -signal.SIGKILL
    with own_server(tmp_path) as again, httpx.Client(base_url=again.url, trust_env=False) as client:
        state = client.get(f"/threads/{thread_id}/state").json()
    # Durable: the run it acknowledged survived kill -9.
    assert [m["content"] for m in state["values"]["messages"]] == ["kept", "You said: kept"]


def test_a_forked_servers_standby_is_forked_too_and_a_restart_runs_on_it(tmp_path: Path) -> None:
    server = EmbeddedAgentServer(
        DEMO_CONFIG,
        data_dir=tmp_path / "data",
        log_file=tmp_path / "server.log",
        hold_listener=True,  # as live reload runs it: a standby may take over its socket
    )
    with server:
        with httpx.Client(base_url=server.url, trust_env=False) as client:
            thread_id = client.post("/threads", json={}).json()["thread_id"]
        assert chat(server.url, "kept", thread_id) == ["kept", "You said: kept"]
        first, port = server.pid, server.port
        server.prepare_standby()
        standby = server.standby_pid
        assert first is not None and standby is not None and standby != first
        # Forked as its server was: a sibling under the same forkserver, cheap to start.
        assert parent(standby) == parent(first) != os.getpid()
        assert cpu_seconds(standby) < 2.0, cpu_seconds(standby)
        server.restart()
        assert server.pid == standby and server.port == port
        assert chat(server.url, "again", thread_id) == [
            "kept",
            "You said: kept",
            "again",
            "You said: again",
        ]
    assert gone_within([first, standby], 10, groups=True)
