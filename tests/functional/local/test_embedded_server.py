"""The embedded agent server: the real langgraph-api, started, served, stopped, never leaked.

Most checks use the shared session server (`agent_server`); the lifecycle tests start
their own, each about 3 s.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

import httpx
import pytest

from agent_tui.local import (
    DEMO_CONFIG,
    EmbeddedAgentServer,
    EmbeddedServerError,
    default_langgraph_config,
    load_langgraph_config,
    server_key,
)
from agent_tui.local.server_environment import server_environment
from agent_tui.local.supervisor import launch
from tests.support.paths import GRAPHS_CONFIG
from tests.support.processes import port_closed, process_gone


def http(url: str) -> httpx.Client:
    # trust_env=False: a proxy from the environment must not see local traffic.
    return httpx.Client(base_url=url, trust_env=False, timeout=30)


def eventually(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not true after {timeout} s: {what}")
        time.sleep(0.05)  # polling a process table entry: there is no event to wait on


def own_server(tmp_path: Path, config: Path = DEMO_CONFIG) -> EmbeddedAgentServer:
    return EmbeddedAgentServer(config, data_dir=tmp_path / "data", log_file=tmp_path / "server.log")


# -- the shared server ----------------------------------------------------------------------


def test_ok_and_info_answer_and_tracing_is_off(agent_server_url: str) -> None:
    with http(agent_server_url) as client:
        assert client.get("/ok").json() == {"ok": True, "services": {}}
        info = client.get("/info").json()
    assert info["version"] == metadata.version("langgraph-api")  # any release of the range
    # The server environment turns LangSmith off: nothing is uploaded from a local run.
    assert info["flags"]["langsmith"] is False


def test_every_configured_graph_has_its_default_assistant(agent_server_url: str) -> None:
    with http(agent_server_url) as client:
        assistants = client.post("/assistants/search", json={"limit": 100}).json()
    defaults = {a["graph_id"]: a for a in assistants if a["metadata"] == {"created_by": "system"}}
    # Every graph of the test config (tests/graphs/langgraph.json), each with its default.
    configured = json.loads(GRAPHS_CONFIG.read_text())["graphs"]
    assert set(defaults) == set(configured) and "chat" in defaults
    assert defaults["chat"]["name"] == "chat"
    assert defaults["chat"]["context"] == {}


def test_server_output_is_kept_as_plain_lines_and_in_the_log_file(
    agent_server: EmbeddedAgentServer,
) -> None:
    lines = agent_server.log_lines()
    # The request lines of earlier tests may have pushed the banner out of memory: the log
    # file has every line.
    log = agent_server.log_file.read_text(encoding="utf-8")
    assert (
        f"Starting In-Memory runtime with langgraph-api={metadata.version('langgraph-api')}" in log
    )
    assert lines and not any("\x1b" in line for line in lines)  # colours are stripped
    # The last two lines, in order (a request of another test may log a line meanwhile:
    # they are then two consecutive lines of a later read).
    last_two = agent_server.log_lines(2)
    later = agent_server.log_lines()
    assert len(last_two) == 2
    assert any(later[i : i + 2] == last_two for i in range(len(later) - 1))
    assert "Starting In-Memory runtime" in agent_server.log_file.read_text(encoding="utf-8")
    assert agent_server.startup_seconds is not None and agent_server.startup_seconds > 0


# -- lifecycle ------------------------------------------------------------------------------


async def test_demo_server_serves_its_graphs_and_stop_leaves_nothing(tmp_path: Path) -> None:
    server = own_server(tmp_path)
    async with server:
        pid, port = server.pid, server.port
        assert pid is not None and port is not None
        assert server.url == f"http://127.0.0.1:{port}"
        async with httpx.AsyncClient(base_url=server.url, trust_env=False, timeout=60) as client:
            found = (await client.post("/assistants/search", json={"graph_id": "chat"})).json()
        assert [(a["graph_id"], a["name"]) for a in found] == [("chat", "chat")]
        assert found[0]["description"].startswith("Demo chat (no LLM)")
    assert not server.is_running
    assert process_gone(pid)
    with pytest.raises(ProcessLookupError):
        os.killpg(pid, 0)  # nothing is left in its process group either
    assert port_closed(port)
    server.stop()  # idempotent


def test_threads_survive_a_restart(tmp_path: Path) -> None:
    with own_server(tmp_path) as server, http(server.url) as client:
        thread = client.post("/threads", json={"metadata": {"purpose": "restart"}}).json()
        client.post(
            f"/threads/{thread['thread_id']}/runs/wait",
            json={
                "assistant_id": "chat",
                "input": {"messages": [{"role": "user", "content": "hi"}]},
            },
        ).raise_for_status()
    # The runtime keeps its files in its working folder, which is per config and stable.
    assert (tmp_path / "data" / ".langgraph_api" / ".langgraph_ops.pckl").is_file()

    with own_server(tmp_path) as server, http(server.url) as client:
        again = client.get(f"/threads/{thread['thread_id']}").json()
        state = client.get(f"/threads/{thread['thread_id']}/state").json()
    assert again["metadata"]["purpose"] == "restart"
    assert [m["content"] for m in state["values"]["messages"]] == ["hi", "You said: hi"]


PARENT_SCRIPT = textwrap.dedent(
    """
    import sys, threading
    from pathlib import Path
    from agent_tui.local import EmbeddedAgentServer

    folder = Path(sys.argv[1])
    server = EmbeddedAgentServer(
        Path(sys.argv[2]), data_dir=folder / "data", log_file=folder / "server.log"
    )
    if sys.argv[3] == "worker-thread":
        # The thread that started the server ends; the server must not go with it.
        starter = threading.Thread(target=server.start)
        starter.start()
        starter.join()
    else:
        server.start()
    server.wait_until_ready(60)
    print(server.pid, server.port, flush=True)
    sys.stdin.read()
    """
)


@pytest.mark.parametrize("started_from", ["main-thread", "worker-thread"])
def test_server_exits_when_its_parent_is_killed(tmp_path: Path, started_from: str) -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT_SCRIPT, str(tmp_path), str(DEMO_CONFIG), started_from],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert parent.stdout is not None
        first_line = parent.stdout.readline()
        assert first_line, parent.stderr.read() if parent.stderr else "no output"
        pid, port = (int(part) for part in first_line.split())
        with http(f"http://127.0.0.1:{port}") as client:
            assert client.get("/ok").status_code == 200
        parent.send_signal(signal.SIGKILL)
        parent.wait(10)
        # Without PDEATHSIG (worker thread) only the stdin watchdog can notice.
        eventually(lambda: process_gone(pid), timeout=15, what=f"server {pid} exited")
        # A leader shows as a zombie while its other threads still wind down.
        eventually(lambda: port_closed(port), timeout=15, what=f"port {port} closed")
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait(10)


async def test_a_graph_that_fails_to_import_raises_with_the_server_log(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "broken.py").write_text("import agent_tui_no_such_module  # noqa\n")
    (project / "langgraph.json").write_text(
        json.dumps({"dependencies": ["."], "graphs": {"broken": "./broken.py:graph"}})
    )
    server = own_server(tmp_path, project / "langgraph.json")
    server.start()
    with pytest.raises(EmbeddedServerError) as caught:
        await server.wait_until_ready_async(60)
    assert "exited with code" in caught.value.reason
    assert any("agent_tui_no_such_module" in line for line in caught.value.log_lines)
    assert "agent_tui_no_such_module" in str(caught.value)
    assert not server.is_running


async def test_a_failed_start_and_a_stop_end_without_a_crash(tmp_path: Path) -> None:
    # The stdin watchdog thread used to block in the buffered reader, holding its lock,
    # so the interpreter aborted at shutdown ("exited with code -6") whenever the server
    # stopped or failed to start.
    project = tmp_path / "project"
    project.mkdir()
    (project / "broken.py").write_text("raise SystemExit('no graph today')\n")
    (project / "langgraph.json").write_text(
        json.dumps({"dependencies": ["."], "graphs": {"broken": "./broken.py:graph"}})
    )
    broken = own_server(tmp_path / "broken", project / "langgraph.json")
    broken.start()
    with pytest.raises(EmbeddedServerError) as caught:
        await broken.wait_until_ready_async(60)
    assert "exited with code -6" not in caught.value.reason
    assert "Fatal Python error" not in broken.log_file.read_text(encoding="utf-8")

    server = own_server(tmp_path / "clean")
    async with server:
        pid = server.pid
        assert pid is not None
        process = server._process
        assert process is not None
    # uvicorn ends a graceful shutdown by raising the SIGTERM it caught again.
    assert process.returncode in (0, -signal.SIGTERM)
    assert "Fatal Python error" not in server.log_file.read_text(encoding="utf-8")


def test_a_server_not_ready_in_time_is_stopped(tmp_path: Path) -> None:
    server = own_server(tmp_path)
    server.start()
    pid = server.pid
    assert pid is not None
    with pytest.raises(EmbeddedServerError, match=r"not ready after 0.2 s"):
        server.wait_until_ready(0.2)  # far less than the ~3 s a start takes
    assert not server.is_running and process_gone(pid)


def test_a_config_that_is_not_json_fails_at_once(tmp_path: Path) -> None:
    config = tmp_path / "langgraph.json"
    config.write_text("{not json")
    server = own_server(tmp_path, config)
    with pytest.raises(EmbeddedServerError, match="not valid JSON"):
        server.start()
    assert server.pid is None


def test_a_busy_explicit_port_is_reported(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        server = EmbeddedAgentServer(DEMO_CONFIG, data_dir=tmp_path, port=port)
        with pytest.raises(EmbeddedServerError, match=f"cannot listen on 127.0.0.1:{port}"):
            server.start()


def test_without_socket_inheritance_a_lost_port_race_is_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The portable path (Windows): choose a port, release it, let the server bind it.
    # Here the first choice is taken by someone else before the server binds it.
    with socket.socket() as thief:
        thief.bind(("127.0.0.1", 0))
        thief.listen()
        taken = thief.getsockname()[1]
        choices = iter([taken])
        real_free_port = launch.free_port
        monkeypatch.setattr(launch, "SOCKET_INHERITANCE", False)
        monkeypatch.setattr(
            launch,
            "free_port",
            lambda host: next(choices, None) or real_free_port(host),
        )
        with own_server(tmp_path) as server:
            assert server.port != taken
            with http(server.url) as client:
                assert client.get("/ok").status_code == 200
        assert any("address already in use" in line.lower() for line in server.log_lines())


# -- configuration --------------------------------------------------------------------------


def test_default_config_is_the_project_one_when_present(tmp_path: Path) -> None:
    assert default_langgraph_config(tmp_path) == DEMO_CONFIG
    (tmp_path / "langgraph.json").write_text("{}")
    assert default_langgraph_config(tmp_path) == (tmp_path / "langgraph.json").resolve()


def test_config_paths_are_resolved_against_the_config_folder(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / ".env").write_text('export API_URL="http://x"\n# comment\nDEBUG=1 # on\n')
    (tmp_path / "langgraph.json").write_text(
        json.dumps(
            {
                "dependencies": [".", "./src", "langchain_openai"],
                "graphs": {
                    "file": "./src/agent.py:graph",
                    "bare": "agent.py:graph",
                    "module": "my_pkg.agent:graph",
                    "described": {"path": "src/agent.py:graph", "description": "d"},
                },
                "env": ".env",
                "auth": {"path": "./auth.py:auth"},
                "store": {"index": {"embed": "openai:text-embedding-3-small", "dims": 3}},
                "http": {"app": "./app.py:app", "cors": {"allow_origins": ["*"]}},
            }
        )
    )
    config = load_langgraph_config(tmp_path / "langgraph.json")
    root = tmp_path.resolve()
    assert config.graphs == {
        "file": f"{root}/src/agent.py:graph",
        "bare": f"{root}/agent.py:graph",
        "module": "my_pkg.agent:graph",
        "described": {"path": f"{root}/src/agent.py:graph", "description": "d"},
    }
    assert config.dependencies == [root, root / "src"]
    assert config.env == {"API_URL": "http://x", "DEBUG": "1"}
    assert config.options == {
        "auth": {"path": f"{root}/auth.py:auth"},
        "store": {"index": {"embed": "openai:text-embedding-3-small", "dims": 3}},
        "http": {"app": f"{root}/app.py:app", "cors": {"allow_origins": ["*"]}},
    }
    assert config.warnings == []


def test_a_missing_env_file_is_a_warning_like_langgraph_dev(tmp_path: Path) -> None:
    (tmp_path / "langgraph.json").write_text(json.dumps({"graphs": {"g": "a:b"}, "env": ".env"}))
    config = load_langgraph_config(tmp_path / "langgraph.json")
    assert config.env == {}
    assert len(config.warnings) == 1 and ".env" in config.warnings[0]


def test_each_config_gets_its_own_stable_data_folder(tmp_path: Path) -> None:
    key = server_key(DEMO_CONFIG)
    assert key == server_key(DEMO_CONFIG) and key.startswith("demo-")
    assert server_key(tmp_path / "langgraph.json") != key
    server = EmbeddedAgentServer(DEMO_CONFIG)
    home = Path(os.environ["AGENT_TUI_HOME"])  # set for the whole test session
    assert server.data_dir == home / "data" / "servers" / key
    assert server.log_file == home / "log" / f"server-{key}.log"


def test_server_environment_is_offline_unless_overridden() -> None:
    env = server_environment(
        {"LANGSMITH_API_KEY": "lsv2_pt_x", "LSD_DD_API_KEY": "dd", "PATH": "/bin"},
        {"LANGSMITH_TRACING": "true"},
    )
    assert env["LANGGRAPH_NO_VERSION_CHECK"] == "true"
    assert env["LANGSMITH_CONTROL_PLANE_API_KEY"] == ""  # no usage reports with the key
    assert env["LANGCHAIN_TRACING_V2"] == "false"
    assert env["LANGSMITH_TRACING"] == "true"  # the caller's choice wins
    assert "LSD_DD_API_KEY" not in env
    # agent-tui's own key stays home: a project that traces sets it in its `env`.
    assert env["PATH"] == "/bin" and "LANGSMITH_API_KEY" not in env


@pytest.mark.parametrize(
    ("name", "passed"),
    [
        ("PATH", True),
        ("LC_CTYPE", True),
        ("https_proxy", True),
        ("SSL_CERT_FILE", True),
        ("ANTHROPIC_API_KEY", True),
        ("AWS_REGION", True),
        ("MY_TOOL_API_KEY", True),
        ("AGENT_TUI_CONTROL_PLANE_KEY", False),
        ("AGENT_TUI_HOME", False),
        ("LANGGRAPH_API_KEY", False),
        ("langsmith_api_key", False),
        ("PYTHONPATH", False),
        ("LD_PRELOAD", False),
        ("VIRTUAL_ENV", False),
        ("GITHUB_TOKEN", False),
    ],
)
def test_a_server_gets_only_allow_listed_variables(name: str, passed: bool) -> None:
    assert (name in server_environment({name: "x"}, withheld=())) is passed


def test_the_variable_a_context_reads_its_key_from_is_withheld() -> None:
    env = server_environment(
        {"TEAM_API_KEY": "k", "OPENAI_API_KEY": "o"}, withheld={"TEAM_API_KEY"}
    )
    assert "TEAM_API_KEY" not in env and env["OPENAI_API_KEY"] == "o"


def test_importing_agent_tui_local_stays_cheap() -> None:
    # The TUI imports this package at start-up; the server stack loads in the child only.
    code = (
        "import sys, agent_tui.local; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'textual', 'langgraph_api', 'langgraph', 'langchain_core'}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == "[]"
