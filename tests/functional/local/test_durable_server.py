"""Acknowledged writes survive a crash of the embedded server (issue 21, part 4).

The server is started as `agent-tui serve` and the app start it (`EmbeddedAgentServer`),
written to over HTTP, killed with SIGKILL a second after its last answer, and started
again on the same data folder: every thread, run, checkpoint, assistant and store item
answered with 2xx is there. Each test starts its own servers (about 3 s each).
"""

from __future__ import annotations

import asyncio
import os
import resource
import signal
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from agent_tui.client.tls import loopback_tls_context
from agent_tui.local import DEMO_CONFIG, EmbeddedAgentServer
from agent_tui.local.session import LocalSession
from agent_tui.settings.target import LocalServer
from tests.support.processes import gone_within

CHAT_INPUT = {"messages": [{"role": "user", "content": "weather in Paris"}]}


def own_server(data: Path, log: Path) -> EmbeddedAgentServer:
    return EmbeddedAgentServer(DEMO_CONFIG, data_dir=data, log_file=log)


def http(url: str) -> httpx.Client:
    # trust_env=False: a proxy from the environment must not see local traffic.
    return httpx.Client(base_url=url, trust_env=False, timeout=30, verify=loopback_tls_context())


def crash(server: EmbeddedAgentServer) -> None:
    """SIGKILL the server's process group: nothing runs on the way out."""
    pid = server.pid
    assert pid is not None
    os.killpg(pid, signal.SIGKILL)
    assert gone_within([pid], 30), "the killed server is still running"
    server.stop()  # forgets the dead process and frees the data folder's lock


def write_everything(client: httpx.Client) -> dict[str, Any]:
    """Threads with runs (chat and counter), an assistant and a store item; all 2xx."""
    written: dict[str, Any] = {"threads": [], "runs": []}
    for number in range(3):
        thread = client.post("/threads", json={"metadata": {"n": number}})
        thread.raise_for_status()
        thread_id = thread.json()["thread_id"]
        written["threads"].append(thread_id)
        graph = "chat" if number % 2 == 0 else "counter"
        body = {"assistant_id": graph, "input": CHAT_INPUT if graph == "chat" else {"by": 2}}
        run = client.post(f"/threads/{thread_id}/runs/wait", json=body)
        run.raise_for_status()
        runs = client.get(f"/threads/{thread_id}/runs").json()
        written["runs"].extend(r["run_id"] for r in runs)
    # A thread whose run was only created (a background run, answered at once).
    thread_id = client.post("/threads", json={}).json()["thread_id"]
    created = client.post(
        f"/threads/{thread_id}/runs", json={"assistant_id": "counter", "input": {"by": 5}}
    )
    created.raise_for_status()
    written["threads"].append(thread_id)
    written["background"] = (thread_id, created.json()["run_id"])
    assistant = client.post(
        "/assistants", json={"graph_id": "counter", "name": "kept", "context": {"label": "x"}}
    )
    assistant.raise_for_status()
    written["assistant"] = assistant.json()["assistant_id"]
    item = client.put(
        "/store/items", json={"namespace": ["durable", "test"], "key": "k", "value": {"v": 1}}
    )
    item.raise_for_status()
    return written


def test_acknowledged_writes_survive_a_kill_one_second_later(tmp_path: Path) -> None:
    data, log = tmp_path / "data", tmp_path / "server.log"
    with own_server(data, log) as server, http(server.url) as client:
        written = write_everything(client)
        time.sleep(1.0)  # the case: killed a second after the last answer
        crash(server)

    with own_server(data, log) as server, http(server.url) as client:
        for thread_id in written["threads"]:
            assert client.get(f"/threads/{thread_id}").status_code == 200, thread_id
        for thread_id in written["threads"][:3]:
            history = client.post(f"/threads/{thread_id}/history", json={"limit": 20}).json()
            assert history, f"thread {thread_id} has no checkpoints"
            values = client.get(f"/threads/{thread_id}/state").json()["values"]
            assert values, f"thread {thread_id} has an empty state"
        chat_state = client.get(f"/threads/{written['threads'][0]}/state").json()
        assert len(chat_state["values"]["messages"]) >= 2
        counter_state = client.get(f"/threads/{written['threads'][1]}/state").json()
        assert counter_state["values"]["count"] == 2
        for thread_id in written["threads"][:3]:
            runs = client.get(f"/threads/{thread_id}/runs").json()
            assert [r["status"] for r in runs] == ["success"], thread_id
        background_thread, background_run = written["background"]
        run = client.get(f"/threads/{background_thread}/runs/{background_run}")
        assert run.status_code == 200
        assistant = client.get(f"/assistants/{written['assistant']}")
        assert assistant.status_code == 200
        assert assistant.json()["name"] == "kept"
        item = client.get("/store/items", params={"namespace": "durable.test", "key": "k"})
        assert item.status_code == 200
        assert item.json()["value"] == {"v": 1}


def test_a_runs_result_is_kept_once_its_answer_has_ended(tmp_path: Path) -> None:
    """The result `runs/wait` answers with, and the end of a run's stream, are
    acknowledgements too: killed at once after them, the thread's state holds them."""
    data, log = tmp_path / "data", tmp_path / "server.log"
    with own_server(data, log) as server, http(server.url) as client:
        waited = client.post("/threads", json={}).json()["thread_id"]
        answer = client.post(
            f"/threads/{waited}/runs/wait", json={"assistant_id": "counter", "input": {"by": 4}}
        )
        assert answer.json()["count"] == 4
        crash(server)  # at once: no background commit has had its 0.1 s
    with own_server(data, log) as server, http(server.url) as client:
        assert client.get(f"/threads/{waited}/state").json()["values"]["count"] == 4
        streamed = client.post("/threads", json={}).json()["thread_id"]
        body = {"assistant_id": "chat", "input": CHAT_INPUT, "stream_mode": ["values"]}
        with client.stream("POST", f"/threads/{streamed}/runs/stream", json=body) as stream:
            last = [line for line in stream.iter_lines() if line.startswith("data:")][-1]
        assert "Paris" in last
        crash(server)
    with own_server(data, log) as server, http(server.url) as client:
        messages = client.get(f"/threads/{streamed}/state").json()["values"]["messages"]
        assert "Paris" in str(messages[-1]["content"]) and len(messages) >= 4


def test_a_write_that_cannot_be_saved_is_refused(tmp_path: Path) -> None:
    """The closest fault to a full disk that needs no root: a file-size limit on the
    server process (RLIMIT_FSIZE), so its writes fail with EFBIG ("File too large")."""
    data, log = tmp_path / "data", tmp_path / "server.log"
    with own_server(data, log) as server, http(server.url) as client:
        kept = client.post("/threads", json={"metadata": {"kept": True}}).json()["thread_id"]
        assert server.pid is not None
        resource.prlimit(server.pid, resource.RLIMIT_FSIZE, (1, 1))
        refused = client.post("/threads", json={"metadata": {"kept": False}})
        assert refused.status_code == 507
        assert "File too large" in refused.json()["detail"]
        item = client.put(
            "/store/items", json={"namespace": ["full"], "key": "k", "value": {"v": 1}}
        )
        assert item.status_code == 507
        told = "agent-tui: cannot save the server's data"
        deadline = time.monotonic() + 30
        while not any(told in line for line in server.log_lines()):
            assert time.monotonic() < deadline, "the server's log does not tell the user"
            time.sleep(0.05)  # the log is read from the server's output: nothing to wait on
        crash(server)

    with own_server(data, log) as server, http(server.url) as client:
        assert client.get(f"/threads/{kept}").status_code == 200


@pytest.mark.parametrize("route", ["runs/wait", "runs/stream"])
def test_a_run_that_cannot_be_saved_is_refused_before_any_200(tmp_path: Path, route: str) -> None:
    """`runs/wait` and a run's stream send their answer as the run goes: on a disk that
    takes no more writes they are answered 507 whole, never a 200 cut short (a client
    would read a result, or half a stream, that a crash would lose)."""
    data, log = tmp_path / "data", tmp_path / "server.log"
    with own_server(data, log) as server, http(server.url) as client:
        thread_id = client.post("/threads", json={}).json()["thread_id"]
        assert server.pid is not None
        resource.prlimit(server.pid, resource.RLIMIT_FSIZE, (1, 1))
        answer = client.post(
            f"/threads/{thread_id}/{route}",
            json={"assistant_id": "counter", "input": {"by": 6}},
        )
        assert answer.status_code == 507, f"answered: {answer.status_code} {answer.text}"
        assert "File too large" in answer.json()["detail"]
        again = client.post("/threads", json={})
        assert again.status_code == 507
    # The whole log, once the server has stopped: said once, not at every refused request.
    said = log.read_text(errors="replace").count("cannot save the server's data")
    assert said == 1, log.read_text(errors="replace")[-3000:]


def ready(client: httpx.Client) -> bool:
    try:
        return client.get("/ok").status_code == 200
    except httpx.HTTPError:
        return False


class NoScreen:
    """The start-up screen's part the session talks to, without a screen."""

    def follow(self, heading: str, log_source: object = None) -> None:
        pass

    def show_build(self, text: str, done: int, total: int | None) -> None:
        pass


def test_the_app_is_told_when_its_server_cannot_save(tmp_path: Path) -> None:
    """The app's session (as `AgentTuiApp` makes it) hears of refused writes at once:
    the app puts the words in its header and a notification."""
    told: list[str | None] = []
    session = LocalSession(
        on_loop=lambda function, *args: function(*args),
        on_reload=lambda event: None,
        on_status=lambda text: None,
        on_disk=told.append,
    )
    try:
        url = asyncio.run(session.url(LocalServer(DEMO_CONFIG, tmp_path / "data"), NoScreen()))
        server = session.server
        assert server is not None and server.pid is not None
        with http(url) as client:
            resource.prlimit(server.pid, resource.RLIMIT_FSIZE, (1, 1))
            assert client.post("/threads", json={}).status_code == 507
            deadline = time.monotonic() + 30
            while not told:
                assert time.monotonic() < deadline, "the session was not told"
                time.sleep(0.05)  # the server's output is read by a thread: nothing to await
            assert told[0] is not None
            assert told[0].startswith("agent-tui: cannot save the server's data in ")
            assert "File too large; changes are refused until it can" in told[0]
    finally:
        session.stop()
