"""`agent-tui serve`: the project's local server, headless, as a real process.

Each test runs `python -m agent_tui serve` in a project folder with its own
`AGENT_TUI_HOME`, and the headless commands beside it, as a user would in two terminals.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
import pytest

from agent_tui.local import DEMO_CONFIG, server_key
from tests.support.paths import GRAPHS
from tests.support.processes import gone_within, pids_running, port_closed, process_gone
from tests.support.projects import add_dependency, add_endless_dependency, copy_weather_project
from tests.support.serve import Serve


def project(folder: Path) -> Path:
    """A project folder whose langgraph.json serves the test `counter` graph."""
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / "langgraph.json"
    config.write_text(json.dumps({"graphs": {"counter": f"{GRAPHS / 'counter.py'}:graph"}}))
    return folder


def agent_tui(
    home: Path, cwd: Path, *argv: str, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agent_tui", *argv],
        cwd=cwd,
        env={**os.environ, "AGENT_TUI_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def note_of(home: Path, config: Path) -> dict[str, object]:
    data_dir = home / "data" / "servers" / server_key(config)
    loaded: dict[str, object] = json.loads((data_dir / "server.json").read_text())
    return loaded


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "ctrl+c"])
def test_serve_prints_its_url_logs_requests_and_stops_cleanly(
    tmp_path: Path, home: Path, serves: list[Serve], stop_signal: signal.Signals
) -> None:
    folder = project(tmp_path / "project")
    serve = Serve(home, folder)
    serves.append(serve)
    url = serve.url()
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+", url)
    port = int(url.rsplit(":", 1)[1])
    missing = str(uuid.uuid4())
    with httpx.Client(base_url=url, trust_env=False, timeout=30) as client:
        assert client.get("/ok").json() == {"ok": True, "services": {}}
        assistants = client.post("/assistants/search", json={"graph_id": "counter"}).json()
        assert [a["graph_id"] for a in assistants] == ["counter"]
        assert client.get(f"/threads/{missing}").status_code == 404
    # The server's own log, with its request lines as `langgraph dev` shows them.
    serve.wait_for_stderr(f"GET /threads/{missing} 404")
    assert "Starting In-Memory runtime" in serve.stderr
    assert "\x1b" not in serve.stderr  # colours and escapes are stripped

    note = note_of(home, folder / "langgraph.json")
    assert (note["url"], note["pid"]) == (url, serve.pid)
    server_pid = note["server_pid"]
    assert isinstance(server_pid, int) and not process_gone(server_pid)

    assert serve.stop(stop_signal) == 0
    assert serve.stdout.get(timeout=10) is None  # the URL was the one line on stdout
    # A graceful shutdown: the runtime saved its data on the way down.
    assert "dev persistence flush loop exiting" in serve.stderr
    assert "Traceback" not in serve.stderr
    # Nothing its graphs started is left either (the last exits end, and the orphans
    # are reaped, a moment after serve's: seconds on a loaded machine).
    assert gone_within([server_pid], 10, groups=True), "the server's group outlived serve"
    assert port_closed(port)
    data_dir = home / "data" / "servers" / server_key(folder / "langgraph.json")
    assert not (data_dir / "server.json").exists()


@pytest.mark.timeout(240)
def test_serve_builds_the_project_and_its_env_reaches_the_graph_but_no_output(
    tmp_path: Path, home: Path, serves: list[Serve]
) -> None:
    config = copy_weather_project(tmp_path)
    secret = "sk-test-0f1e2d3c4b5a69788796a5b4"
    raw = json.loads(config.read_text())
    config.write_text(json.dumps({**raw, "env": {"WEATHER_GREETING": secret}}))
    serve = Serve(home, config.parent)
    serves.append(serve)
    url = serve.url()
    with httpx.Client(base_url=url, trust_env=False, timeout=60) as client:
        answer = client.post(
            "/runs/wait", json={"assistant_id": "weather", "input": {"city": "Oslo"}}
        ).json()
    # Built with uv (its words on stderr), run in that environment, with the mapping's value.
    assert answer == {"city": "Oslo", "answer": "sunny in Oslo", "greeting": secret}
    # uv's summary, not its list of a few hundred packages.
    assert re.search(r"Installed \d+ packages", serve.stderr)
    assert "Built tinyweather @ file" in serve.stderr
    assert not re.search(r"^ [-+~] ", serve.stderr, re.MULTILINE)
    assert serve.stop() == 0
    # The value is nowhere a user or a log reader would see it.
    assert secret not in serve.stderr
    logs = [path for path in (home / "log").iterdir() if path.is_file()]
    assert logs and not [path for path in logs if secret in path.read_text()]


def command_of(pid: int) -> str:
    try:
        return (Path(f"/proc/{pid}/cmdline").read_bytes()).replace(b"\0", b" ").decode()
    except OSError:
        return ""


def children_of(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def test_a_stop_while_the_server_starts_leaves_nothing_running(
    tmp_path: Path, home: Path, serves: list[Serve]
) -> None:
    folder = project(tmp_path / "project")
    serve = Serve(home, folder)
    serves.append(serve)
    serve.wait_for_stderr("\n")  # the server process has said something: it runs
    # The server, and the trace collector when it has started (a child of its own).
    children = children_of(serve.pid)
    assert [pid for pid in children if "agent_tui.server.main" in command_of(pid)]
    assert serve.stop() == 0
    assert "Traceback" not in serve.stderr
    # `stop` ends with a SIGKILL to the server's group: the kernel finishes those exits,
    # and reaps the orphans, a moment later (seconds on a loaded machine).
    assert gone_within(children, 10, groups=True), "a child of serve outlived the stop"
    data_dir = home / "data" / "servers" / server_key(folder / "langgraph.json")
    assert not (data_dir / "server.json").exists()


def test_second_serve_and_headless_commands_use_the_running_server(
    tmp_path: Path, home: Path, serves: list[Serve]
) -> None:
    folder = project(tmp_path / "project")
    config = (folder / "langgraph.json").resolve()
    first = Serve(home, folder)
    serves.append(first)
    url = first.url()

    second = agent_tui(home, folder, "serve")
    assert (second.returncode, second.stdout) == (1, "")
    assert second.stderr == (
        f"agent-tui serve: a local agent server for {config} already runs at {url} "
        f"(pid {first.pid})\n"
    )

    # Another project on the same port: a clear message, not a traceback.
    port = url.rsplit(":", 1)[1]
    busy = agent_tui(home, folder, "serve", "--config", str(DEMO_CONFIG), "--port", port)
    assert busy.returncode == 1
    assert busy.stderr.startswith(f"agent-tui serve: cannot listen on 127.0.0.1:{port}: ")
    assert "Traceback" not in busy.stderr

    tag = uuid.uuid4().hex
    with httpx.Client(base_url=url, trust_env=False, timeout=30) as client:
        thread = client.post("/threads", json={"metadata": {"tag": tag}}).json()
    # `--context local`, and no context at all (the built-in default), find it.
    for argv in (["--context", "local"], []):
        listed = agent_tui(
            home, folder, "threads", "list", "--json", "--metadata", f"tag={tag}", *argv
        )
        assert (listed.returncode, listed.stderr) == (0, "")
        assert [t["thread_id"] for t in json.loads(listed.stdout)] == [thread["thread_id"]]

    assert first.stop() == 0
    none = agent_tui(home, folder, "threads", "list", "--context", "local")
    assert (none.returncode, none.stdout) == (2, "")
    assert none.stderr == (
        f"agent-tui: no local agent server runs for {config}: start one with "
        f"`agent-tui serve` (or open `agent-tui`) in {folder.resolve()}\n"
    )


def test_a_bad_config_exits_2_with_the_reason(tmp_path: Path, home: Path) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "langgraph.json").write_text("{not json")
    bad = agent_tui(home, folder, "serve")
    assert (bad.returncode, bad.stdout) == (2, "")
    assert bad.stderr.startswith("agent-tui serve: ") and "not valid JSON" in bad.stderr
    assert "Traceback" not in bad.stderr

    missing = agent_tui(home, folder, "serve", "--config", str(folder / "nowhere.json"))
    assert missing.returncode == 2
    assert str(folder / "nowhere.json") in missing.stderr and "Traceback" not in missing.stderr


def test_serve_builds_the_project_environment_and_reloads_on_edit(
    tmp_path: Path, home: Path, serves: list[Serve]
) -> None:
    from tests.support.projects import copy_weather_project

    config = copy_weather_project(tmp_path)
    serve = Serve(home, config.parent)
    serves.append(serve)
    url = serve.url()
    serve.wait_for_stderr("tinyweather")  # uv's own line, copied to stderr

    def forecast() -> str:
        answer = httpx.post(
            f"{url}/runs/wait", json={"assistant_id": "weather", "input": {"city": "Oslo"}}
        )
        assert answer.status_code == 200, answer.text
        return str(answer.json()["answer"])

    assert forecast() == "sunny in Oslo"
    serve.wait_for_stderr("POST /runs/wait 200")  # the request line, as langgraph dev logs it
    module = config.parent / "packages" / "tinyweather" / "src" / "tinyweather" / "__init__.py"
    module.write_text(module.read_text().replace("sunny in", "windy in"))
    serve.wait_for_stderr("agent-tui serve: reloaded in", timeout=90)
    assert forecast() == "windy in Oslo"

    agent = config.parent / "agent.py"
    good = agent.read_text()
    agent.write_text(
        good.replace("from tinyweather import forecast", "from tinyweather import nope")
    )
    serve.wait_for_stderr("agent-tui serve: reload failed: agent.py:", timeout=90)
    serve.wait_for_stderr("still serving the previous code")  # the line after it
    assert "ImportError" in serve.stderr
    said = [line for line in serve.stderr.splitlines() if "reload failed:" in line]
    assert len(said) == 1 and said[0].startswith("agent-tui serve: reload failed: agent.py:")
    assert forecast() == "windy in Oslo"
    assert serve.stop() == 0
    assert "hello from .env" not in serve.stderr  # the project's env values are never logged


def test_what_the_project_and_its_server_print_is_inert_on_stderr(
    tmp_path: Path, home: Path, serves: list[Serve]
) -> None:
    from urllib.parse import quote

    from tests.support.hostile_text import EVERYTHING, MARKER, terminal_controls

    # A graph that prints the hostile-text corpus while it is imported, on stdout and
    # stderr; a request whose path holds it; then an edit that fails the reload with it.
    folder = tmp_path / "project"
    folder.mkdir()
    graph = folder / "hostile.py"
    importing = (
        "import sys\n"
        f"sys.path.insert(0, {str(GRAPHS)!r})\n"
        f"print('import-out ' + {EVERYTHING!r}, flush=True)\n"
        f"print('import-err ' + {EVERYTHING!r}, file=sys.stderr, flush=True)\n"
        "from counter import graph\n"
    )
    graph.write_text(importing)
    (folder / "langgraph.json").write_text(
        json.dumps({"graphs": {"counter": "./hostile.py:graph"}})
    )
    serve = Serve(home, folder)
    serves.append(serve)
    url = serve.url()
    serve.wait_for_stderr("import-err hostile")
    with httpx.Client(base_url=url, trust_env=False, timeout=30) as client:
        assert client.get(f"/threads/{quote(EVERYTHING)}").status_code in (404, 422)
    graph.write_text(importing + f"raise ValueError('reload-error ' + {EVERYTHING!r})\n")
    serve.wait_for_stderr("still serving the previous code", timeout=90)
    assert serve.stop() == 0

    assert terminal_controls(serve.stderr) == [], serve.stderr
    for shown in ("import-out hostile", "import-err hostile", "reload-error hostile"):
        assert shown in serve.stderr  # the text itself is kept, only its controls go
    assert serve.stderr.count(MARKER) >= 6


def running(*texts: str, timeout: float = 60) -> int:
    """The one process whose command line holds ``texts``, once it runs."""
    deadline = time.monotonic() + timeout
    while not (found := pids_running(*texts)):
        assert time.monotonic() < deadline, f"no process running {texts!r}"
        time.sleep(0.1)  # another process's progress: nothing to wait on
    [pid] = found
    return pid


def test_a_stop_during_a_reload_leaves_no_graph_check_running(
    tmp_path: Path, home: Path, serves: list[Serve]
) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    # A graph whose import hangs while a `hold` file exists: the reload's check hangs.
    (folder / "agent.py").write_text(
        "import time\nfrom pathlib import Path\n"
        "while Path(__file__).with_name('hold').exists():\n    time.sleep(0.1)\n"
        "from counter import graph\n"
    )
    (folder / "langgraph.json").write_text(
        json.dumps({"dependencies": [str(GRAPHS)], "graphs": {"held": "./agent.py:graph"}})
    )
    serve = Serve(home, folder)
    serves.append(serve)
    serve.url()
    (folder / "hold").touch()
    (folder / "agent.py").write_text((folder / "agent.py").read_text() + "# edited\n")
    check = running("build_check", str(folder / "langgraph.json"))
    assert serve.stop() == 0
    assert gone_within([check], 10, groups=True), "the graph check outlived serve"
    assert "reloaded" not in serve.stderr and "Traceback" not in serve.stderr


def test_the_prewarmed_processes_never_outlive_a_killed_serve(
    tmp_path: Path, home: Path, serves: list[Serve]
) -> None:
    folder = project(tmp_path / "project")
    config = str((folder / "langgraph.json").resolve())
    serve = Serve(home, folder)
    serves.append(serve)
    serve.url()
    # With live reload, a graph check and a server wait, prewarmed, for the next edit.
    check = running("build_check", "--standby", config)
    standby = running("agent_tui.server.main", "--standby", config)

    # The server, and the trace collector (a child of its own, started beside the server:
    # it may come a moment after the URL).
    def started() -> list[str]:
        commands = [command_of(pid) for pid in children_of(serve.pid)]
        return [
            part
            for part in ("trace_collector", "agent_tui.server.main")
            if any(part in c and "--standby" not in c for c in commands)
        ]

    deadline = time.monotonic() + 60
    while len(started()) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)  # another process's start: nothing to wait on
    # When the collector cannot start the server runs untraced and serve's log says why.
    assert started() == ["trace_collector", "agent_tui.server.main"], "\n".join(
        [
            "serve's children:",
            *(command_of(pid)[:200] for pid in children_of(serve.pid)),
            "what serve said of tracing:",
            *(line for line in serve.stderr.splitlines() if "trac" in line.lower()),
        ]
    )
    pids = [check, standby, *children_of(serve.pid)]  # a standby replaced since: both
    serve.stop(signal.SIGKILL)
    assert gone_within(pids, 30, groups=True), "a process outlived agent-tui"


def test_a_stop_during_the_environment_build_stops_uv_at_once(
    tmp_path: Path, home: Path, serves: list[Serve]
) -> None:
    config = copy_weather_project(tmp_path)
    add_endless_dependency(config)
    serve = Serve(home, config.parent)
    serves.append(serve)
    uv = running("pip install", str(home), timeout=90)
    serve.wait_for_stderr("endless")  # uv is building it
    started = time.monotonic()
    assert serve.stop() == 0
    assert time.monotonic() - started < 20, "serve waited for the build to end"
    assert gone_within([uv], 10, groups=True), "uv (or its build backend) outlived serve"
    assert serve.stdout.get(timeout=10) is None  # no URL: it never served
    assert "Traceback" not in serve.stderr


def test_a_dependency_that_cannot_be_installed_says_uvs_words_once(
    tmp_path: Path, home: Path
) -> None:
    config = copy_weather_project(tmp_path)
    add_dependency(config, "agent-tui-no-such-package-4711==0.0.1")
    failed = subprocess.run(  # (with reload, it would watch the project for a fix)
        [sys.executable, "-m", "agent_tui", "serve", "--no-reload"],
        cwd=config.parent,
        env={**os.environ, "AGENT_TUI_HOME": str(home), "UV_OFFLINE": "1"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (failed.returncode, failed.stdout) == (1, "")
    lines = failed.stderr.splitlines()
    uv_says = [line for line in lines if "agent-tui-no-such-package-4711" in line]
    assert uv_says and len(uv_says) == len(set(uv_says)), failed.stderr  # each line once
    assert lines[-1] == (
        "agent-tui serve: the project's environment could not be built: "
        "uv could not install the project's dependencies"
    )
    assert "Traceback" not in failed.stderr


def test_the_server_names_the_port_it_serves_on(
    tmp_path: Path, home: Path, serves: list[Serve]
) -> None:
    """Its banner, its OpenAPI `servers` and each run's `langgraph_api_url` (what a graph
    reads to call its own server) say the real port, not the 0 langgraph-api was given."""
    folder = project(tmp_path / "project")
    serve = Serve(home, folder)
    serves.append(serve)
    url = serve.url()
    with httpx.Client(base_url=url, trust_env=False, timeout=60) as client:
        assert client.get("/openapi.json").json()["servers"] == [{"url": url}]
        thread = client.post("/threads", json={}).json()["thread_id"]
        client.post(
            f"/threads/{thread}/runs/wait", json={"assistant_id": "counter", "input": {}}
        ).raise_for_status()
        state = client.get(f"/threads/{thread}/state").json()
    assert state["metadata"]["langgraph_api_url"] == url
    serve.wait_for_stderr(f"API: {url}")
    assert ":0/" not in serve.stderr and not re.search(r":0\b", serve.stderr)
